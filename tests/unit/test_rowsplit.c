/* test_rowsplit.c — src/train/rowsplit.c: the devices' picks merge into the picks one device makes
 * over every position (the largest keys, ties to the smaller position, in position order), on
 * random keys with many ties, fewer picks than wanted, and empty devices; the chunks are dealt in
 * order, every device at least one, balanced by weight. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "train/rowsplit.h"

static int by_key_then_pos(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The top `want` of positions [lo, hi) (key 0: not eligible) as one device picks them: keys
 * largest first, ties to the smaller position; returned in ascending position order. */
static int top(const uint32_t *key, int lo, int hi, int want, uint32_t *pos_out, uint32_t *key_out)
{
    uint64_t *t = malloc(sizeof *t * (size_t)(hi - lo + 1));
    int n = 0;
    for (int p = lo; p < hi; p++)
        if (key[p]) t[n++] = (uint64_t)(~key[p]) << 32 | (uint32_t)p;
    qsort(t, (size_t)n, sizeof *t, by_key_then_pos);
    const int m = n < want ? n : want;
    uint32_t *sel = malloc(sizeof *sel * (size_t)(m + 1));
    for (int i = 0; i < m; i++) sel[i] = (uint32_t)(t[i] & 0xFFFFFFFFu);
    /* ascending positions */
    for (int i = 1; i < m; i++)
        for (int k = i; k > 0 && sel[k - 1] > sel[k]; k--) { const uint32_t x = sel[k]; sel[k] = sel[k - 1]; sel[k - 1] = x; }
    for (int i = 0; i < m; i++) { pos_out[i] = sel[i]; key_out[i] = key[sel[i]]; }
    free(t);
    free(sel);
    return m;
}

static void one_case(unsigned seed, int npos, int nd, int q, int want_up, int nkeys, int sparse)
{
    srand(seed);
    uint32_t *key[2];
    for (int L = 0; L < 2; L++) {
        key[L] = malloc(sizeof(uint32_t) * (size_t)npos);
        for (int p = 0; p < npos; p++) key[L][p] = rand() % sparse == 0 ? 1 + (uint32_t)(rand() % nkeys) : 0;
    }
    const int want[2] = {want_up, q - want_up};
    int ch[9];
    for (int d = 0; d <= nd; d++) ch[d] = (int)((long)npos * d / nd); /* slices of positions */
    uint32_t *picks = calloc((size_t)nd * GS_ROWSPLIT_PICK_WORDS(q), sizeof *picks);
    for (int d = 0; d < nd; d++) {
        uint32_t *h = picks + (size_t)d * GS_ROWSPLIT_PICK_WORDS(q);
        for (int L = 0; L < 2; L++)
            h[4 * L + 3] = (uint32_t)top(key[L], ch[d], ch[d + 1], want[L], h + 8 + (size_t)L * q,
                                         h + 8 + 2 * (size_t)q + (size_t)L * q);
    }
    uint32_t mstate[8];
    int32_t *mcand = calloc(2 * (size_t)q, sizeof *mcand);
    uint64_t *scratch = malloc(sizeof *scratch * (size_t)nd * q);
    const uint32_t *dev_picks[8];
    for (int d = 0; d < nd; d++) dev_picks[d] = picks + (size_t)d * GS_ROWSPLIT_PICK_WORDS(q);
    gs_rowsplit_merge(dev_picks, nd, q, want, mstate, mcand, scratch);
    uint32_t *gp = malloc(sizeof *gp * (size_t)q), *gk = malloc(sizeof *gk * (size_t)q);
    for (int L = 0; L < 2; L++) {
        const int m = top(key[L], 0, npos, want[L], gp, gk);
        int same = (int)mstate[4 * L + 3] == m;
        for (int i = 0; i < m && same; i++) same = (uint32_t)mcand[(size_t)L * q + i] == gp[i];
        CHECK(same, "seed %u, %d positions over %d devices, list %d: %u picks merged, %d over all", seed, npos, nd, L,
              mstate[4 * L + 3], m);
    }
    CHECK(mstate[0] == 0 && mstate[1] == 0 && mstate[2] == 0 && mstate[4] == 0, "seed %u: other state words 0", seed);
    free(key[0]); free(key[1]); free(picks); free(mcand); free(scratch); free(gp); free(gk);
}

int main(void)
{
    /* ties everywhere (3 distinct keys), few keys, spread keys; fewer eligible than wanted */
    for (unsigned seed = 1; seed <= 40; seed++) {
        one_case(seed, 5000, 1 + (int)seed % 4, 64, 32, 3, 1);
        one_case(seed + 100, 3000, 2 + (int)seed % 3, 128, 60, 1000000, 2);
        one_case(seed + 200, 900, 4, 256, 128, 50, 37); /* ~24 eligible of 900: all taken */
        one_case(seed + 300, 40, 8, 16, 8, 5, 1);       /* devices of 5 positions */
        one_case(seed + 400, 200000, 4, 768, 384, 1 << 30, 3); /* a large problem's round */
    }
    /* the deal: in order, a chunk at least each, balanced */
    double w[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    int ch[5];
    gs_rowsplit_deal(w, 12, 4, ch);
    CHECK(ch[0] == 0 && ch[1] == 3 && ch[2] == 6 && ch[3] == 9 && ch[4] == 12, "equal weights: %d %d %d %d %d", ch[0],
          ch[1], ch[2], ch[3], ch[4]);
    double heavy[6] = {100, 1, 1, 1, 1, 1};
    gs_rowsplit_deal(heavy, 6, 3, ch);
    CHECK(ch[1] == 1 && ch[2] == 2 && ch[3] == 6, "a heavy first chunk: %d %d %d", ch[1], ch[2], ch[3]);
    double tail[5] = {1, 1, 1, 1, 100};
    gs_rowsplit_deal(tail, 5, 4, ch);
    int ordered = ch[0] == 0 && ch[4] == 5;
    for (int d = 0; d < 4; d++) ordered &= ch[d + 1] > ch[d];
    CHECK(ordered, "a heavy last chunk: every device a chunk, in order: %d %d %d %d %d", ch[0], ch[1], ch[2], ch[3],
          ch[4]);
    gs_rowsplit_deal(w, 2, 2, ch);
    CHECK(ch[1] == 1, "two chunks over two devices: %d", ch[1]);
    TEST_END();
}
