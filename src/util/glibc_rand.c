/* glibc_rand.c — see glibc_rand.h. The recurrence: r[0] = seed, r[k] = 16807 r[k-1] mod (2^31 - 1)
 * for k = 1..30, r[k] = r[k-31] for k = 31..33, then r[k] = r[k-31] + r[k-3] (mod 2^32); the first
 * 310 values after r[33] are discarded and each output is r[k] >> 1. */
#include "util/glibc_rand.h"

void gs_glibc_rand_init(gs_glibc_rand *g, uint32_t seed)
{
    int64_t v = seed == 0 ? 1 : (int32_t)seed;
    uint32_t full[34];
    full[0] = (uint32_t)v;
    for (int k = 1; k < 31; k++) {
        /* 16807 * v mod (2^31 - 1) by Schrage's method, as signed 32-bit values */
        const int64_t hi = v / 127773, lo = v % 127773;
        v = 16807 * lo - 2836 * hi;
        if (v < 0) v += 2147483647;
        full[k] = (uint32_t)v;
    }
    for (int k = 31; k < 34; k++) full[k] = full[k - 31];
    for (int k = 0; k < 34; k++) g->r[k] = full[k];
    g->i = 0; /* r[i] is the oldest: r[k-34] */
    for (int k = 0; k < 310; k++) (void)gs_glibc_rand_next(g);
}

int32_t gs_glibc_rand_next(gs_glibc_rand *g)
{
    /* the ring holds r[k-34..k-1] with r[k-34] at i: r[k-31] is at i+3, r[k-3] at i+31 */
    const uint32_t v = g->r[(g->i + 3) % 34] + g->r[(g->i + 31) % 34];
    g->r[g->i] = v;
    g->i = (g->i + 1) % 34;
    return (int32_t)(v >> 1);
}

void gs_glibc_rand_shuffle(gs_glibc_rand *g, int *a, int n)
{
    for (int i = 0; i < n; i++) {
        const int j = i + gs_glibc_rand_next(g) % (n - i);
        const int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
