/* rowsplit.c — see rowsplit.h. */
#include "train/rowsplit.h"

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

/* The k-th smallest (1 <= k <= n) of n distinct values, by their bytes from the top (each pass
 * keeps the byte value that holds it): O(n) a pass, at most 8 passes. Reorders v. */
static uint64_t kth_smallest(uint64_t *v, size_t n, size_t k)
{
    for (int shift = 56;; shift -= 8) {
        size_t cnt[256] = {0};
        for (size_t i = 0; i < n; i++) cnt[(v[i] >> shift) & 255]++;
        unsigned b = 0;
        while (k > cnt[b]) k -= cnt[b++];
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (((v[i] >> shift) & 255) == b) v[m++] = v[i];
        n = m;
        if (n == 1 || shift == 0) return v[0];
    }
}

/* A pick's order (larger key, then smaller position, first): the key's complement high, the
 * position low. */
static uint64_t pick_order(uint32_t key, uint32_t pos) { return (uint64_t)(~key) << 32 | pos; }

void gs_rowsplit_merge(const uint32_t *const *picks, int nd, int q, const int want[2], uint32_t mstate[8],
                       int32_t *mcand, uint64_t *scratch)
{
    memset(mstate, 0, 8 * sizeof *mstate);
    for (int L = 0; L < 2; L++) {
        size_t n = 0;
        for (int d = 0; d < nd; d++) {
            const uint32_t *h = picks[d];
            const uint32_t m = h[4 * L + 3];
            const uint32_t *pos = h + 8 + (size_t)L * q, *key = h + 8 + 2 * (size_t)q + (size_t)L * q;
            for (uint32_t i = 0; i < m && i < (uint32_t)q; i++) scratch[n++] = pick_order(key[i], pos[i]);
        }
        const size_t need = (size_t)want[L] < n ? (size_t)want[L] : n;
        /* the need-th in that order: every pick at or before it is taken; the devices' lists go
         * in ascending position, device after device, so the taken do too */
        const uint64_t last = need == 0 ? 0 : need == n ? UINT64_MAX : kth_smallest(scratch, n, need);
        int32_t *out = mcand + (size_t)L * q;
        size_t k = 0;
        for (int d = 0; d < nd && need > 0; d++) {
            const uint32_t *h = picks[d];
            const uint32_t m = h[4 * L + 3];
            const uint32_t *pos = h + 8 + (size_t)L * q, *key = h + 8 + 2 * (size_t)q + (size_t)L * q;
            for (uint32_t i = 0; i < m && i < (uint32_t)q; i++)
                if (pick_order(key[i], pos[i]) <= last) out[k++] = (int32_t)pos[i];
        }
        mstate[4 * L + 3] = (uint32_t)k;
    }
}
