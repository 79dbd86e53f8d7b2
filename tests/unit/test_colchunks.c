/* test_colchunks.c — the by-column copy of clustered layouts (data/colchunks.h) on generated data:
 * narrow layouts with row-wise (ELL) and dense clusters, and a wide one; chunks of 1, 2 and 3
 * clusters (a last chunk part-full): every chunk's columns ascending, every nonzero value of every
 * position exactly once at its column (explicit zeros and padding left out), nothing else; the kept
 * copy (gs_colchunks_of) is made once and freed with the layout; bad chunk sizes refused. Wide
 * layouts with dense clusters too (their rows over the union, as narrow ones). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/colchunks.h"
#include "testgen.h"
#include "testlib.h"

/* n rows: the first dense_rows over columns 1..20 (dense clusters), the others random sparse
 * over 1..ncol with `per` entries on average; some explicit zeros; every 41st row empty. */
static csr make(int32_t n, int32_t dense_rows, int32_t ncol, int32_t per, uint64_t seed)
{
    csr m = {n, calloc((size_t)n + 1, sizeof(int64_t)), malloc(sizeof(int32_t) * (size_t)n * (size_t)(ncol + 20)),
             malloc(sizeof(float) * (size_t)n * (size_t)(ncol + 20))};
    uint64_t s = seed | 1;
    int64_t k = 0;
    for (int32_t r = 0; r < n; r++) {
        if (r % 41 != 40) {
            if (r < dense_rows) {
                for (int32_t j = 1; j <= 20; j++) { m.idx[k] = j; m.val[k++] = (float)((r * j) % 5) - 1.0f; }
            } else {
                for (int32_t j = 1; j <= ncol; j++)
                    if ((int32_t)(rng_next(&s) % (uint64_t)ncol) < per) {
                        m.idx[k] = j;
                        m.val[k++] = (float)(rng_next(&s) % 7) * 0.25f; /* 0 one time in 7 */
                    }
            }
        }
        m.row_ptr[r + 1] = k;
    }
    return m;
}

/* pc against the CSR m through cl's positions: each nonzero once, at its compact column. */
static void check_copy(const char *name, const csr *m, const gs_clustered *cl, const gs_colchunks *pc, int32_t pcl)
{
    CHECK(pc->chunk_clusters == pcl && pc->chunk_rows == pcl * cl->cluster_size &&
              pc->n_chunks == (cl->n_clusters + pcl - 1) / pcl,
          "%s: %d chunks of %d rows", name, pc->n_chunks, pc->chunk_rows);
    int64_t nz = 0;
    for (int64_t e = 0; e < m->row_ptr[m->n]; e++) nz += m->val[e] != 0.0f;
    CHECK(pc->n_entries == nz, "%s: %lld entries, %lld nonzeros", name, (long long)pc->n_entries, (long long)nz);
    CHECK(pc->chunk_cols[0] == 0 && pc->chunk_cols[pc->n_chunks] == pc->n_cols && pc->col_off[pc->n_cols] == nz,
          "%s: offsets' ends", name);
    /* the copy as a dense matrix over (position, compact column), then each CSR value looked up */
    const int32_t nc = cl->n_ucols;
    float *dense = calloc((size_t)cl->n_pos * (size_t)nc, sizeof(float));
    unsigned char *seen = calloc((size_t)cl->n_pos * (size_t)nc, 1);
    int bad = 0, twice = 0;
    for (int32_t h = 0; h < pc->n_chunks; h++)
        for (int32_t k = pc->chunk_cols[h]; k < pc->chunk_cols[h + 1]; k++) {
            if (k > pc->chunk_cols[h] && pc->cols[k] <= pc->cols[k - 1]) bad++;
            if (pc->cols[k] < 0 || pc->cols[k] >= nc || pc->col_off[k] > pc->col_off[k + 1]) { bad++; continue; }
            for (int32_t e = pc->col_off[k]; e < pc->col_off[k + 1]; e++) {
                const int64_t p = (int64_t)h * pc->chunk_rows + pc->row[e];
                if (pc->row[e] >= pc->chunk_rows || p >= cl->n_pos || pc->val[e] == 0.0f) { bad++; continue; }
                twice += seen[p * nc + pc->cols[k]]++ != 0;
                dense[p * nc + pc->cols[k]] = pc->val[e];
            }
        }
    CHECK(bad == 0 && twice == 0, "%s: %d bad entries, %d placed twice", name, bad, twice);
    int32_t *cid = malloc(sizeof(int32_t) * (size_t)(cl->max_col + 1));
    for (int32_t k = 0; k < nc; k++) cid[cl->ucol[k]] = k;
    int wrong = 0;
    for (int32_t p = 0; p < cl->n_pos; p++) {
        const int32_t r = cl->perm[p];
        if (r < 0) continue;
        for (int64_t e = m->row_ptr[r]; e < m->row_ptr[r + 1]; e++)
            wrong += dense[(int64_t)p * nc + cid[m->idx[e]]] != m->val[e];
    }
    CHECK(wrong == 0, "%s: %d values not where the layout puts them", name, wrong);
    free(cid);
    free(dense);
    free(seen);
}

static void test_layout(const char *name, int32_t n, int32_t dense_rows, int32_t ncol, int32_t per, int wide)
{
    csr m = make(n, dense_rows, ncol, per, 7 + (uint64_t)n);
    gs_clustered cl;
    const int32_t one_seg[2] = {0, n};
    CHECK(gs_cluster_build_seg_wide(m.row_ptr, m.idx, m.val, n, 1, one_seg, 32, 8, 1, wide, &cl) == GS_OK,
          "%s: build: %s", name, gs_last_error());
    CHECK(cl.wide == wide && cl.n_ell > 0, "%s: wide %d, %d row-wise clusters", name, cl.wide, cl.n_ell);
    CHECK(dense_rows == 0 || cl.n_ell < cl.n_clusters, "%s: dense clusters too (%d of %d row-wise)", name,
          cl.n_ell, cl.n_clusters);
    for (int32_t pcl = 1; pcl <= 3; pcl++) {
        gs_colchunks pc;
        CHECK(gs_colchunks_build(&cl, pcl, &pc) == GS_OK, "%s: by column: %s", name, gs_last_error());
        check_copy(name, &m, &cl, &pc, pcl);
        CHECK(gs_colchunks_bytes(&pc) > 6 * pc.n_entries, "%s: bytes", name);
        gs_colchunks_free(&pc);
    }
    const gs_colchunks *a = NULL, *b = NULL;
    CHECK(gs_colchunks_of(&cl, 2, &a) == GS_OK && gs_colchunks_of(&cl, 2, &b) == GS_OK && a && a == b,
          "%s: the kept copy made once", name);
    CHECK(gs_colchunks_of(&cl, 3, &b) == GS_ERR_INTERNAL && b == NULL, "%s: other chunks than the kept copy's",
          name);
    gs_clear_error();
    gs_clustered_free(&cl); /* frees the kept copy (ASan: no leak) */
    csr_free(&m);
}

static void test_refused(void)
{
    csr m = make(100, 0, 500, 10, 3);
    gs_clustered cl;
    CHECK(gs_cluster_build(m.row_ptr, m.idx, m.val, m.n, 32, 8, 1, &cl) == GS_OK, "build");
    gs_colchunks pc;
    CHECK(gs_colchunks_build(&cl, 0, &pc) == GS_ERR_ARG && pc.n_chunks == 0, "0 clusters a chunk refused");
    CHECK(gs_colchunks_build(&cl, 4096, &pc) == GS_ERR_ARG, "chunks past 65536 rows refused");
    gs_clear_error();
    gs_clustered_free(&cl);
    csr_free(&m);
}

int main(void)
{
    test_layout("narrow, ELL and dense", 700, 200, 1500, 12, 0);
    test_layout("wide", 400, 0, 40000, 30, 1);
    test_layout("wide, dense clusters too", 600, 200, 40000, 30, 1);
    test_refused();
    TEST_END();
}
