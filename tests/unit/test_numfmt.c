/* test_numfmt.c — gs_fmt_g, gs_fmt_g8 and gs_fmt_g17 against snprintf's "%g", "%.8g" and "%.17g",
 * byte for byte: random bit patterns (every exponent, subnormals, NaN and infinities among them),
 * the ratios a scaler prints (lower + (upper-lower)*(v-min)/(max-min) of short decimals), values
 * next to every power of ten from 1e-30 to 1e30 (where the exponent and the notation switch),
 * 6- and 8-digit ties and their neighbours (where the rounding is decided), the short decimals of
 * floats a model file's SV values are, integers and signed zeros. */
#include <stdlib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/numfmt.h"
#include "testlib.h"

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static long g_bad;

/* Compares both functions with snprintf on v; prints the first few differences. */
static void one(double v)
{
    char want[64], got[GS_FMT_MAX + 8];
    memset(got, 'x', sizeof got);
    snprintf(want, sizeof want, "%g", v);
    size_t n = gs_fmt_g(v, got);
    if (strcmp(want, got) != 0 || n != strlen(want)) {
        if (g_bad++ < 5) printf("  %%g of %a: want [%s] got [%s] (len %zu)\n", v, want, got, n);
    }
    snprintf(want, sizeof want, "%.8g", v);
    n = gs_fmt_g8(v, got);
    if (strcmp(want, got) != 0 || n != strlen(want)) {
        if (g_bad++ < 5) printf("  %%.8g of %a: want [%s] got [%s] (len %zu)\n", v, want, got, n);
    }
    snprintf(want, sizeof want, "%.17g", v);
    n = gs_fmt_g17(v, got);
    if (strcmp(want, got) != 0 || n != strlen(want)) {
        if (g_bad++ < 5) printf("  %%.17g of %a: want [%s] got [%s] (len %zu)\n", v, want, got, n);
    }
}

int main(void)
{
    uint64_t s = 0x9e3779b97f4a7c15u;
    long count = 0;

    /* random bit patterns: every exponent, subnormals, NaN payloads, infinities */
    for (int i = 0; i < 100000; i++, count++) {
        const uint64_t b = rng(&s);
        double v;
        memcpy(&v, &b, sizeof v);
        one(v);
    }
    CHECK(g_bad == 0, "random bit patterns: %ld differences", g_bad);

    /* what a scaler prints: [-1,1] images of short decimals */
    g_bad = 0;
    for (int i = 0; i < 150000; i++, count++) {
        const double lo = (double)(int)(rng(&s) % 2000) / 100.0 - 10.0;
        const double span = (double)(int)(rng(&s) % 100000 + 1) / 1000.0;
        const double v = (double)(int)(rng(&s) % 100001) / 1000.0;
        const double lower = (rng(&s) & 1) ? -1.0 : 0.0;
        one(lower + (1.0 - lower) * (v - lo) / span);
        one((double)(int64_t)(rng(&s) % 2000001 - 1000000) / 1e6);
    }
    CHECK(g_bad == 0, "scaled values: %ld differences", g_bad);

    /* next to the powers of ten, where %g's exponent and its notation change */
    g_bad = 0;
    for (int e = -30; e <= 30; e++) {
        const double p = pow(10.0, e);
        double lo = p, hi = p;
        for (int k = 0; k < 40; k++, count += 4) {
            one(lo);
            one(hi);
            one(-lo);
            one(hi * (1 + 1e-7 * k));
            lo = nextafter(lo, 0);
            hi = nextafter(hi, INFINITY);
        }
        /* 999999.5 x 10^(e-5) and 99999999.5 x 10^(e-7): round up into the next decade */
        const double up = 999999.5 * pow(10.0, e - 5), up8 = 99999999.5 * pow(10.0, e - 7);
        for (int k = -3; k <= 3; k++, count += 2) {
            one(up + k * up * 1e-16);
            one(up8 + k * up8 * 1e-16);
        }
    }
    CHECK(g_bad == 0, "powers of ten: %ld differences", g_bad);

    /* 6- and 8-digit ties d.ddddd5 / d.ddddddd5 and their neighbours, exact binary ties (n + 0.5)
     * among them */
    for (int p = 6; p <= 8; p += 2) {
        g_bad = 0;
        const uint64_t lo = p == 6 ? 100000u : 10000000u;
        for (int i = 0; i < 50000; i++, count += 4) {
            const double m = (double)(rng(&s) % (9 * lo) + lo) + 0.5;
            const int e = (int)(rng(&s) % 41) - 20;
            const double v = m * pow(10.0, e - (p - 1));
            one(v);
            one(nextafter(v, 0));
            one(nextafter(v, INFINITY));
            one(m); /* exact ties: printf rounds them to even */
        }
        CHECK(g_bad == 0, "%d-digit ties: %ld differences", p, g_bad);
    }

    /* a model's SV values: the shortest decimals (1 to 9 digits) of floats, as doubles */
    g_bad = 0;
    for (int i = 0; i < 100000; i++) {
        uint32_t b = (uint32_t)rng(&s);
        if (i % 2) b = (b & 0x807fffffu) | ((uint32_t)(100 + rng(&s) % 60) << 23); /* 2^-27..2^32 */
        float f;
        memcpy(&f, &b, sizeof f);
        for (int p = 1; p <= 9; p++, count++) {
            char t[64];
            snprintf(t, sizeof t, "%.*g", p, (double)f);
            one(strtod(t, NULL));
        }
    }
    CHECK(g_bad == 0, "floats' short decimals: %ld differences", g_bad);

    /* integers (labels) and the special values */
    g_bad = 0;
    const double specials[] = {0.0, -0.0, 1.0, -1.0, 2.0, 10.0, 100000.0, 999999.0, 1000000.0,
                               1e16, 1e17 - 16, 1e17, 9007199254740993.0, 1e300, -1e-300, 5e-324,
                               2.2250738585072014e-308, -2.220446049250313e-16, INFINITY, -INFINITY,
                               NAN, -NAN, 0.1, 0.5, 1.5, 2.5, 0.0001, 0.00001, 123456.5, 1234567.0};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++, count++) one(specials[i]);
    for (int64_t k = -100000; k <= 100000; k += 7, count++) one((double)k);
    for (int i = 0; i < 30000; i++, count++) one((double)(int64_t)(rng(&s) >> 11) * ((rng(&s) & 1) ? 1 : -1));
    CHECK(g_bad == 0, "integers and specials: %ld differences", g_bad);

    /* gs_fmt_repr: Python 3's repr(float) of these values (printed by python3 -c 'print(repr(v))') */
    static const struct { double v; const char *py; } reprs[] = {
        {-5.0, "-5.0"}, {15.0, "15.0"}, {3.0, "3.0"}, {0.03125, "0.03125"}, {32768.0, "32768.0"},
        {3.0517578125e-05, "3.0517578125e-05"}, {82.5926, "82.5926"}, {100.0, "100.0"},
        {0.1 + 0.2, "0.30000000000000004"}, {1e16, "1e+16"}, {1.5e16, "1.5e+16"}, {1e-5, "1e-05"},
        {0.0001, "0.0001"}, {-0.0, "-0.0"}, {1.4142135623730951, "1.4142135623730951"},
        {123456789012345.6, "123456789012345.6"}, {5e-324, "5e-324"}, {0.5, "0.5"},
        {1.7976931348623157e308, "1.7976931348623157e+308"}, {0.8408964152537145, "0.8408964152537145"},
        {INFINITY, "inf"}, {-INFINITY, "-inf"}, {NAN, "nan"}};
    for (size_t i = 0; i < sizeof reprs / sizeof reprs[0]; i++) {
        char got[GS_FMT_MAX];
        const size_t n = gs_fmt_repr(reprs[i].v, got);
        CHECK(strcmp(got, reprs[i].py) == 0 && n == strlen(got), "repr of %a: want [%s] got [%s]", reprs[i].v,
              reprs[i].py, got);
    }

    printf("compared %ld values with snprintf\n", count);
    TEST_END();
}
