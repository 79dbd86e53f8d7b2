/* numfmt.c — "%g", "%.8g" and "%.17g" without printf for the values where the answer is certain.
 *
 * %g rounds to 6 significant digits (%.8g to 8: the same with 8 for 6 below, s below 10^8 and
 * within 1.1e-8 of the exact product). For a finite nonzero |v| with decimal exponent X, the digits
 * are round(|v| * 10^(5-X)). When 5-X lies in 0..22 (or -22..-1) the power of ten is an exact
 * double, so the one multiplication (division) is correctly rounded: the computed s is within
 * 2^-53 relative, less than 1.2e-10 absolute below 10^6, of the exact product. Rounding s to an
 * integer is then the same as rounding the exact product unless the fraction is within that much
 * of one half, and such values (and exact ties, which printf rounds to even) go to snprintf. The
 * layout rules after that are C's: fixed notation when -4 <= X < 6, else d.ddddde±XX, trailing
 * zeros removed. tests/unit/test_numfmt.c compares both functions with snprintf on millions of
 * values, the near-tie and boundary ones among them. */
#include "util/numfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double k_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static size_t slow_g(double v, char *out, int prec)
{
    const int n = snprintf(out, GS_FMT_MAX, "%.*g", prec, v);
    return n > 0 ? (size_t)n : 0;
}

static const char k_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Lays out the p digits of n (10^(p-1)..10^p - 1, p <= 9) with decimal exponent x as %.<p>g does. */
static size_t put_g(int neg, uint32_t n, int x, int p, char *out)
{
    char d[10];
    for (int i = p - 1; i >= 1; i -= 2) { /* two digits at a time from the right */
        memcpy(d + i - 1, k_pairs + 2 * (n % 100), 2);
        n /= 100;
    }
    if (p % 2) d[0] = (char)('0' + n);
    int nd = p;
    while (nd > 1 && d[nd - 1] == '0') nd--;
    char *o = out;
    if (neg) *o++ = '-';
    if (x >= -4 && x < p) {
        if (x >= 0) {
            for (int i = 0; i <= x; i++) *o++ = d[i];
            if (nd > x + 1) {
                *o++ = '.';
                for (int i = x + 1; i < nd; i++) *o++ = d[i];
            }
        } else {
            *o++ = '0';
            *o++ = '.';
            for (int i = 0; i < -x - 1; i++) *o++ = '0';
            for (int i = 0; i < nd; i++) *o++ = d[i];
        }
    } else {
        *o++ = d[0];
        if (nd > 1) {
            *o++ = '.';
            for (int i = 1; i < nd; i++) *o++ = d[i];
        }
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        const int ax = x < 0 ? -x : x;
        if (ax >= 100) *o++ = (char)('0' + ax / 100);
        *o++ = (char)('0' + ax / 10 % 10);
        *o++ = (char)('0' + ax % 10);
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* %.<p>g for p = 6 or 8; tie is how close to one half a fraction sends the value to snprintf: the
 * product's error, 2^-53 relative of a number below 10^p, with a margin (1e-9 for 6 digits,
 * 1e-7 for 8: 1.1e-8 is the error bound there). */
static size_t fmt_gp(double v, int p, double tie, char *out)
{
    const double a = fabs(v);
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    const int biased = (int)(bits >> 52);
    /* zero, subnormals, infinities and NaN: printf */
    if (biased == 0 || biased == 0x7ff) return slow_g(v, out, p);
    const double lo = k_pow10[p - 1], hi = k_pow10[p];
    /* a = m * 2^e2 with m in [1, 2): log10(a) lies in [e2 log10 2, (e2+1) log10 2); 78913 / 2^18
     * is log10 2 to 6 digits, enough for |e2| <= 1023 to give floor(e2 log10 2) or one less */
    const int e2 = biased - 1023;
    const int t = e2 * 78913;
    int x = t >= 0 ? t >> 18 : -((-t + 262143) >> 18);
    /* each retry moves x one step towards the truth */
    for (int tries = 0; tries < 4; tries++) {
        const int k = p - 1 - x;
        double s;
        if (k >= 0 && k <= 22) s = a * k_pow10[k];
        else if (k < 0 && k >= -22) s = a / k_pow10[-k];
        else break;
        if (s < lo) { x--; continue; }
        if (s >= hi) { x++; continue; }
        uint32_t n = (uint32_t)s; /* floor: s is positive */
        const double f = s - (double)n; /* exact: s and n are within 1 of each other */
        if (f > 0.5 - tie && f < 0.5 + tie) break;
        n += f > 0.5;
        if (n == (uint32_t)hi) { /* 999999.7 rounds up to the next power of ten */
            n = (uint32_t)lo;
            x++;
        }
        return put_g(v < 0, n, x, p, out);
    }
    return slow_g(v, out, p);
}

size_t gs_fmt_g(double v, char *out) { return fmt_gp(v, 6, 1e-9, out); }

size_t gs_fmt_g8(double v, char *out) { return fmt_gp(v, 8, 1e-7, out); }

size_t gs_fmt_g17(double v, char *out)
{
    /* Integers below 1e17 have at most 17 digits, every one of them exact, and %.17g prints them
     * in fixed notation without a point: the labels of classification data. */
    const double a = fabs(v);
    if (a < 1e17 && a == floor(a)) {
        uint64_t n = (uint64_t)a;
        char tmp[24];
        int len = 0;
        do {
            tmp[len++] = (char)('0' + n % 10);
            n /= 10;
        } while (n);
        char *p = out;
        if (signbit(v)) *p++ = '-';
        while (len) *p++ = tmp[--len];
        *p = '\0';
        return (size_t)(p - out);
    }
    return slow_g(v, out, 17);
}

/* Python's repr is the shortest digit string that reads back as v, the nearest such one when
 * several are as short. The shortest "%.*e" that reads back is the nearest one of its length, so
 * the two agree except where v is a power of two whose rounding interval is narrower below than
 * above and the nearest short decimal lies just below it (never for grid.py's values: steps of
 * log2 grids, 2^k and %g-rounded rates; tests/unit/test_numfmt.c has Python's answers). */
size_t gs_fmt_repr(double v, char *out)
{
    if (isnan(v)) { memcpy(out, "nan", 4); return 3; }
    if (isinf(v)) { strcpy(out, v < 0 ? "-inf" : "inf"); return v < 0 ? 4 : 3; }
    char e[GS_FMT_MAX];
    int prec = 0;
    for (; prec < 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec, v);
        if (strtod(e, NULL) == v) break;
    }
    /* e: [-]d[.ddd]e±XX: the digits without the point, and the exponent */
    char dig[24];
    int nd = 0, x = 0;
    const char *c = e + (e[0] == '-');
    for (; *c && *c != 'e'; c++)
        if (*c != '.') dig[nd++] = *c;
    x = atoi(c + 1);
    while (nd > 1 && dig[nd - 1] == '0') nd--;
    char *o = out;
    if (signbit(v)) *o++ = '-';
    if (x < -4 || x >= 16) {
        *o++ = dig[0];
        if (nd > 1) { *o++ = '.'; memcpy(o, dig + 1, (size_t)nd - 1); o += nd - 1; }
        o += sprintf(o, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
    } else if (x < 0) {
        *o++ = '0'; *o++ = '.';
        for (int i = 0; i < -x - 1; i++) *o++ = '0';
        memcpy(o, dig, (size_t)nd); o += nd;
    } else {
        for (int i = 0; i <= x; i++) *o++ = i < nd ? dig[i] : '0';
        *o++ = '.';
        if (nd > x + 1) { memcpy(o, dig + x + 1, (size_t)(nd - x - 1)); o += nd - x - 1; }
        else *o++ = '0';
    }
    *o = '\0';
    return (size_t)(o - out);
}
