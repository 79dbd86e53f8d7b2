/* rowsplit.c — see rowsplit.h. */
#include "train/rowsplit.h"

#include <stdlib.h>
#include <string.h>

void gs_rowsplit_deal(const double *w, int nch, int nd, int *ch)
{
    double total = 0, run = 0;
    for (int j = 0; j < nch; j++) total += w[j];
    ch[0] = 0;
    int j = 0;
    for (int d = 1; d < nd; d++) { /* leaving a chunk at least for each device still to come */
        while (j < nch - (nd - d) && (j < ch[d - 1] + 1 || run + w[j] <= total * d / nd)) run += w[j++];
        ch[d] = j;
    }
    ch[nd] = nch;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

void gs_rowsplit_merge(const uint32_t *picks, int nd, int q, const int want[2], uint32_t mstate[8], int32_t *mcand,
                       uint64_t *scratch)
{
    const size_t per = GS_ROWSPLIT_PICK_WORDS(q);
    memset(mstate, 0, 8 * sizeof *mstate);
    for (int L = 0; L < 2; L++) {
        size_t n = 0;
        for (int d = 0; d < nd; d++) {
            const uint32_t *h = picks + (size_t)d * per;
            const uint32_t m = h[4 * L + 3];
            const uint32_t *pos = h + 8 + (size_t)L * q, *key = h + 8 + 2 * (size_t)q + (size_t)L * q;
            /* (larger key, then smaller position) first: the complement's high word, the position's low */
            for (uint32_t i = 0; i < m && i < (uint32_t)q; i++) scratch[n++] = (uint64_t)(~key[i]) << 32 | pos[i];
        }
        const int need = (size_t)want[L] < n ? want[L] : (int)n;
        qsort(scratch, n, sizeof *scratch, cmp_u64);
        int32_t *out = mcand + (size_t)L * q;
        for (int i = 0; i < need; i++) out[i] = (int32_t)(scratch[i] & 0xFFFFFFFFu);
        qsort(out, (size_t)need, sizeof *out, cmp_i32);
        mstate[4 * L + 3] = (uint32_t)need;
    }
}
