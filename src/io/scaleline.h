/* scaleline.h — svm-scale's reading of one data line (compat §5.1), for scale.c: the label as
 * sscanf("%lf") reads it, then the elements as svm-scale's two loops walk them. Inline, because
 * every character of a large file passes through here twice.
 *
 * svm-scale walks a line with sscanf and two skipping macros, and its passes see different pairs:
 *  - the label: sscanf(line, "%lf"); then "skip target": white space, then non-white space;
 *  - each element: pass 1 continues while sscanf(p, "%d:%*f") assigns the index, which is also
 *    true when no ':' or no number follows it ("2:x", "5"); pass 2 (and 3) continue only while
 *    sscanf(p, "%d:%lf") reads both. Between elements, "skip element": to the next ':' (searched
 *    from p, so past text that is not an element), then white space, then non-white space.
 * So pass 2's pairs are a prefix of pass 1's elements, and one walk gives both. Where svm-scale
 * runs past the end of the line (no ':' left, a label with nothing after it at the end of the
 * file) its behaviour is undefined; here the line simply ends there. A NUL byte ends a line's text
 * as it ends svm-scale's sscanf.
 *
 * Numbers: %d is skip white space, sign, decimal digits, then strtol's long cast to int (which
 * wraps: 4294967297 is 1). %lf takes what glibc's scanf collects and strtod converts. The fast
 * paths below take only shapes where the result is certain to be the same (up to 9 index digits;
 * decimals with at most 19 significant digits, value <= 2^53, and a power of ten <= 10^22, where
 * one correctly rounded operation gives strtod's double) and end at white space or the end of the
 * line; everything else goes to strtol or to sscanf itself. */
#ifndef GS_SCALELINE_H
#define GS_SCALELINE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* C-locale isspace: ' ', \t \n \v \f \r. */
static inline int gs_sl_ws(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static inline int gs_sl_digit(char c) { return (unsigned char)(c - '0') < 10; }

/* Skips white space, then non-white space: the end of the token at p. */
static inline const char *gs_sl_skip_token(const char *p)
{
    while (gs_sl_ws(*p)) p++;
    while (*p && !gs_sl_ws(*p)) p++;
    return p;
}

/* long -> int as the C library's scanf stores %d (modulo 2^32), without implementation-defined
 * conversions. */
static inline int32_t gs_sl_wrap(long v)
{
    const uint32_t u = (uint32_t)(unsigned long)v;
    return u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - 2147483648u) + INT32_MIN;
}

/* sscanf(p, "%d"): @return 1 with *out and *end (after the digits), or 0 when it reads nothing */
static inline int gs_sl_int(const char *p, int32_t *out, const char **end)
{
    while (gs_sl_ws(*p)) p++;
    const char *s = p;
    if (*s == '-' || *s == '+') s++;
    const char *const d = s;
    uint32_t v = 0;
    while (gs_sl_digit(*s)) v = v * 10 + (uint32_t)(*s++ - '0');
    const ptrdiff_t nd = s - d;
    if (nd == 0) return 0;
    if (nd > 9) *out = gs_sl_wrap(strtol(p, NULL, 10));
    else *out = *p == '-' ? -(int32_t)v : (int32_t)v;
    *end = s;
    return 1;
}

static const double gs_sl_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* sscanf(p, "%lf") (after leading white space). @return the end of the token it read from (the
 * next white space or the end of the line; what follows a number inside its token is ignored,
 * as svm-scale's skipping ignores it), or NULL when nothing was read */
static inline const char *gs_sl_double(const char *p, double *out)
{
    while (gs_sl_ws(*p)) p++;
    const char *s = p;
    const int neg = *s == '-';
    if (*s == '-' || *s == '+') s++;
    uint64_t m = 0;
    int nd = 0, frac = 0;
    while (gs_sl_digit(*s)) {
        m = m * 10 + (uint64_t)(*s++ - '0');
        nd++;
    }
    if (*s == '.') {
        s++;
        while (gs_sl_digit(*s)) {
            m = m * 10 + (uint64_t)(*s++ - '0');
            nd++;
            frac++;
        }
    }
    int e10 = -frac;
    if ((*s == 'e' || *s == 'E') && nd > 0) {
        const char *x = s + 1;
        const int eneg = *x == '-';
        if (*x == '-' || *x == '+') x++;
        int ev = 0, ed = 0;
        while (gs_sl_digit(*x) && ed < 6) {
            ev = ev * 10 + (*x++ - '0');
            ed++;
        }
        if (ed == 0 || ed == 6) goto slow;
        e10 += eneg ? -ev : ev;
        s = x;
    }
    if (nd == 0 || nd > 19 || (*s && !gs_sl_ws(*s))) goto slow;
    if (m == 0) {
        *out = neg ? -0.0 : 0.0;
        return s;
    }
    if (m <= ((uint64_t)1 << 53) && e10 >= -22 && e10 <= 22) {
        const double d = e10 >= 0 ? (double)m * gs_sl_pow10[e10] : (double)m / gs_sl_pow10[-e10];
        *out = neg ? -d : d;
        return s;
    }
    /* a plain decimal ending at white space: strtod reads exactly what scanf collects */
    *out = strtod(p, NULL);
    return s;
slow:
    if (sscanf(p, "%lf", out) != 1) return NULL;
    return gs_sl_skip_token(p);
}

/* Walks the elements after the label. */
typedef struct gs_sl_iter {
    const char *p;
    int pass2; /* pass 2 still reads pairs on this line */
    int done;
} gs_sl_iter;

/* Starts after the label token: svm-scale's "skip target" from the line's start. */
static inline void gs_sl_begin(gs_sl_iter *it, const char *line)
{
    it->p = gs_sl_skip_token(line);
    it->pass2 = 1;
    it->done = 0;
}

enum { GS_SL_END = 0, GS_SL_INDEX = 1, GS_SL_PAIR = 2 };

/* The next element: GS_SL_END; GS_SL_INDEX, an index only pass 1 counts (*idx); GS_SL_PAIR, a pair
 * pass 2 reads too (*idx, *val). After the first non-pair, pass 2 has ended for the line. */
static inline int gs_sl_next(gs_sl_iter *it, int32_t *idx, double *val)
{
    const char *r;
    if (it->done || !gs_sl_int(it->p, idx, &r)) return GS_SL_END;
    int kind = GS_SL_INDEX;
    if (it->pass2) {
        const char *e;
        if (*r == ':' && (e = gs_sl_double(r + 1, val)) != NULL) {
            it->p = e; /* the value's token end is where "skip element" stops */
            return GS_SL_PAIR;
        }
        it->pass2 = 0;
    }
    const char *c = *r == ':' ? r : strchr(r, ':');
    if (!c) {
        it->done = 1;
        return kind;
    }
    it->p = gs_sl_skip_token(c + 1);
    return kind;
}

#endif
