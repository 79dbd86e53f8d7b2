/* test_cluster.c — gs_cluster_build's clustered layout on generated matrices: every row placed once,
 * perm/inv consistent, unions ascending compact ids, values at their places and zeros elsewhere,
 * norm2 and padding; dense data gives dense blocks; the same seed gives the same answer; very large
 * column indices (the compacting path) give the same clusters as small ones; more than 64 active
 * clusters; empty rows and bad arguments; wide data's row-wise runs; segments clustered on threads
 * of their own give the layout one thread gives. */
#define _GNU_SOURCE /* sched_setaffinity */
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/cluster.h"
#include "testgen.h"
#include "testlib.h"

/* n rows over columns 1..ncol: a few base patterns (so clusters have something to find), each row
 * one of them with some columns flipped; every 37th row empty. */
static csr make_sparse(int32_t n, int32_t ncol, uint64_t seed)
{
    csr m = {n, malloc(sizeof(int64_t) * (size_t)(n + 1)), malloc(sizeof(int32_t) * (size_t)n * (size_t)ncol),
             malloc(sizeof(float) * (size_t)n * (size_t)ncol)};
    uint64_t s = seed | 1;
    unsigned char *base = calloc((size_t)8 * (size_t)ncol, 1), *row = malloc((size_t)ncol);
    for (int b = 0; b < 8; b++)
        for (int32_t j = 0; j < ncol; j++) base[b * ncol + j] = rng_next(&s) % 5 == 0;
    int64_t k = 0;
    m.row_ptr[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        if (i % 37 != 5) {
            memcpy(row, base + (size_t)(rng_next(&s) % 8) * (size_t)ncol, (size_t)ncol);
            for (int f = 0; f < 3; f++) row[rng_next(&s) % (uint64_t)ncol] ^= 1;
            for (int32_t j = 0; j < ncol; j++)
                if (row[j]) {
                    m.idx[k] = j + 1;
                    m.val[k++] = (float)((int)(rng_next(&s) % 2001) - 1000) / 128.0f;
                }
        }
        m.row_ptr[i + 1] = k;
    }
    free(base);
    free(row);
    return m;
}

static csr make_dense(int32_t n, int32_t ncol)
{
    csr m = {n, malloc(sizeof(int64_t) * (size_t)(n + 1)), malloc(sizeof(int32_t) * (size_t)n * (size_t)ncol),
             malloc(sizeof(float) * (size_t)n * (size_t)ncol)};
    m.row_ptr[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        for (int32_t j = 0; j < ncol; j++) {
            m.idx[(int64_t)i * ncol + j] = j + 1;
            m.val[(int64_t)i * ncol + j] = (float)(i % 7 + j) - 3.0f;
        }
        m.row_ptr[i + 1] = (int64_t)(i + 1) * ncol;
    }
    return m;
}

/* Checks every invariant of the layout against the input; returns the number of failures. */
static int check_layout(const char *what, const csr *m, int32_t cs, const gs_clustered *cl)
{
    int bad = 0;
#define LCHECK(cond, ...) do { if (!(cond)) { if (bad++ < 5) CHECK(cond, __VA_ARGS__); } } while (0)
    const int32_t n = m->n;
    const int32_t nc = n ? (n + cs - 1) / cs : 0;
    LCHECK(cl->n == n && cl->cluster_size == cs && cl->n_clusters == nc && cl->n_pos == nc * cs,
           "%s: n %d cs %d clusters %d pos %d", what, cl->n, cl->cluster_size, cl->n_clusters, cl->n_pos);
    if (bad) return bad;
    /* columns: ucol ascending, exactly the columns present */
    int32_t max_col = 0;
    const int64_t nnz = m->row_ptr[n];
    for (int64_t k = 0; k < nnz; k++) if (m->idx[k] > max_col) max_col = m->idx[k];
    LCHECK(cl->max_col == max_col, "%s: max_col %d, want %d", what, cl->max_col, max_col);
    for (int32_t j = 1; j < cl->n_ucols; j++) LCHECK(cl->ucol[j] > cl->ucol[j - 1], "%s: ucol[%d]", what, j);
    int32_t present = 0;
    for (int64_t k = 0; k < nnz; k++) {
        int32_t lo = 0, hi = cl->n_ucols;
        while (lo < hi) { int32_t mid = (lo + hi) / 2; if (cl->ucol[mid] < m->idx[k]) lo = mid + 1; else hi = mid; }
        LCHECK(lo < cl->n_ucols && cl->ucol[lo] == m->idx[k], "%s: column %d missing from ucol", what, m->idx[k]);
    }
    {
        int32_t *seen = calloc((size_t)max_col + 1, sizeof *seen);
        for (int64_t k = 0; k < nnz; k++) if (!seen[m->idx[k]]++) present++;
        free(seen);
    }
    LCHECK(cl->n_ucols == present, "%s: n_ucols %d, want %d", what, cl->n_ucols, present);
    /* rows: each exactly once, inv the inverse of perm, padding -1 with zero norm */
    char *seen = calloc((size_t)(n ? n : 1), 1);
    for (int32_t p = 0; p < cl->n_pos; p++) {
        const int32_t r = cl->perm[p];
        if (r < 0) { LCHECK(r == -1 && cl->norm2[p] == 0, "%s: padding %d: %d %g", what, p, r, cl->norm2[p]); continue; }
        LCHECK(r < n && !seen[r], "%s: row %d twice or out of range", what, r);
        if (r >= n || seen[r]) continue;
        seen[r] = 1;
        LCHECK(cl->inv[r] == p, "%s: inv[%d] = %d, want %d", what, r, cl->inv[r], p);
    }
    for (int32_t r = 0; r < n; r++) LCHECK(seen[r], "%s: row %d not placed", what, r);
    free(seen);
    /* blocks: unions ascending compact ids; every value at its place, zeros elsewhere */
    LCHECK(cl->col_off[0] == 0, "%s: col_off[0]", what);
    double cl_sum = 0;
    for (int32_t c = 0; c < nc; c++) {
        const int64_t off = cl->col_off[c], mu = cl->col_off[c + 1] - off;
        const int32_t *u = cl->cols + off;
        LCHECK(mu >= 0 && mu <= cl->n_ucols, "%s: cluster %d union %lld", what, c, (long long)mu);
        for (int64_t q = 0; q < mu; q++) {
            LCHECK(u[q] >= 0 && u[q] < cl->n_ucols, "%s: cluster %d col %d", what, c, u[q]);
            if (q) LCHECK(u[q] > u[q - 1], "%s: cluster %d union not ascending", what, c);
        }
        const float *v = cl->vals + off * cs;
        int32_t rows = 0;
        for (int32_t t = 0; t < cs; t++) {
            const int32_t p = c * cs + t, r = cl->perm[p];
            int64_t k = r >= 0 ? m->row_ptr[r] : 0;
            const int64_t e = r >= 0 ? m->row_ptr[r + 1] : 0;
            double s2 = 0;
            rows += r >= 0;
            for (int64_t q = 0; q < mu; q++) {
                const float x = v[q * cs + t];
                if (k < e && cl->ucol[u[q]] == m->idx[k]) {
                    LCHECK(x == m->val[k], "%s: row %d col %d: %g, want %g", what, r, m->idx[k], x, m->val[k]);
                    s2 += (double)m->val[k] * m->val[k];
                    k++;
                } else {
                    LCHECK(x == 0, "%s: cluster %d pos %d col %lld: %g, want 0", what, c, t, (long long)q, x);
                }
            }
            LCHECK(k == e, "%s: row %d: %lld of its columns not in the union", what, r, (long long)(e - k));
            if (r >= 0) LCHECK(fabs(s2 - cl->norm2[p]) <= 1e-12 * (1 + s2), "%s: norm2 of row %d: %.17g, want %.17g",
                               what, r, cl->norm2[p], s2);
        }
        cl_sum += (double)mu * rows;
    }
    LCHECK(!n || fabs(cl->clustered_nnz_per_row - cl_sum / n) < 1e-9, "%s: clustered_nnz_per_row %g, want %g",
           what, cl->clustered_nnz_per_row, n ? cl_sum / n : 0);
    LCHECK(!n || fabs(cl->raw_nnz_per_row - (double)nnz / n) < 1e-12, "%s: raw_nnz_per_row %g", what,
           cl->raw_nnz_per_row);
    LCHECK(cl->clustered_nnz_per_row >= cl->raw_nnz_per_row - 1e-12, "%s: union smaller than the rows", what);
#undef LCHECK
    if (!bad) t_pass++;
    return bad;
}

static int same_layout(const gs_clustered *a, const gs_clustered *b, int compare_cols)
{
    if (a->n_pos != b->n_pos || a->n_clusters != b->n_clusters || a->n_ucols != b->n_ucols) return 0;
    if (memcmp(a->perm, b->perm, sizeof *a->perm * (size_t)a->n_pos)) return 0;
    if (memcmp(a->col_off, b->col_off, sizeof *a->col_off * (size_t)(a->n_clusters + 1))) return 0;
    const int64_t tot = a->col_off[a->n_clusters];
    if (memcmp(a->cols, b->cols, sizeof *a->cols * (size_t)tot)) return 0;
    if (memcmp(a->vals, b->vals, sizeof *a->vals * (size_t)tot * (size_t)a->cluster_size)) return 0;
    if (compare_cols && memcmp(a->ucol, b->ucol, sizeof *a->ucol * (size_t)a->n_ucols)) return 0;
    return 1;
}

static void test_sparse(void)
{
    csr m = make_sparse(1500, 200, 7);
    gs_clustered a, b, c;
    CHECK(gs_cluster_build(m.row_ptr, m.idx, m.val, m.n, 32, 8, 1, &a) == GS_OK, "build");
    check_layout("sparse cs32 k8", &m, 32, &a);
    /* clustering must beat taking the rows in their shuffled order */
    CHECK(a.clustered_nnz_per_row < 0.9 * 200, "clustered %g", a.clustered_nnz_per_row);
    /* determinism: same seed, same everything */
    CHECK(gs_cluster_build(m.row_ptr, m.idx, m.val, m.n, 32, 8, 1, &b) == GS_OK, "build");
    CHECK(same_layout(&a, &b, 1), "same seed gave a different layout");
    CHECK(b.seconds >= 0, "%g", b.seconds);
    gs_clustered_free(&b);
    /* another seed: still valid */
    CHECK(gs_cluster_build(m.row_ptr, m.idx, m.val, m.n, 32, 8, 12345, &b) == GS_OK, "build");
    check_layout("sparse seed 12345", &m, 32, &b);
    gs_clustered_free(&b);
    /* very large column indices take the compacting path: the same clusters, other ucol */
    csr big = m;
    big.idx = malloc(sizeof *big.idx * (size_t)m.row_ptr[m.n]);
    for (int64_t k = 0; k < m.row_ptr[m.n]; k++) big.idx[k] = 1000000000 + m.idx[k] * 5000000;
    CHECK(gs_cluster_build(big.row_ptr, big.idx, big.val, big.n, 32, 8, 1, &c) == GS_OK, "build");
    check_layout("sparse, large indices", &big, 32, &c);
    CHECK(same_layout(&a, &c, 0), "large column indices changed the clusters");
    CHECK(c.n_ucols > 0 && c.ucol[0] >= 1000000000, "ucol[0] %d", c.n_ucols ? c.ucol[0] : -1);
    gs_clustered_free(&c);
    /* indices a little sparse (between the two paths) */
    for (int64_t k = 0; k < m.row_ptr[m.n]; k++) big.idx[k] = m.idx[k] * 300;
    CHECK(gs_cluster_build(big.row_ptr, big.idx, big.val, big.n, 32, 8, 1, &c) == GS_OK, "build");
    check_layout("sparse, spread indices", &big, 32, &c);
    CHECK(same_layout(&a, &c, 0), "spread column indices changed the clusters");
    gs_clustered_free(&c);
    free(big.idx);
    gs_clustered_free(&a);
    /* more than 64 active clusters (several mask words), one active cluster, clusters of one row */
    CHECK(gs_cluster_build(m.row_ptr, m.idx, m.val, m.n, 8, 100, 3, &a) == GS_OK, "build");
    check_layout("sparse cs8 k100", &m, 8, &a);
    gs_clustered_free(&a);
    CHECK(gs_cluster_build(m.row_ptr, m.idx, m.val, m.n, 16, 1, 3, &a) == GS_OK, "build");
    check_layout("sparse cs16 k1", &m, 16, &a);
    gs_clustered_free(&a);
    CHECK(gs_cluster_build(m.row_ptr, m.idx, m.val, 300, 1, 64, 3, &a) == GS_OK, "build");
    csr head = m;
    head.n = 300;
    check_layout("sparse cs1", &head, 1, &a);
    gs_clustered_free(&a);
    csr_free(&m);
}

static void test_dense(void)
{
    /* 1000 rows of 12 columns in clusters of 64: 16 clusters, the last one padded */
    csr m = make_dense(1000, 12);
    gs_clustered a;
    CHECK(gs_cluster_build(m.row_ptr, m.idx, m.val, m.n, 64, 64, 9, &a) == GS_OK, "build");
    check_layout("dense", &m, 64, &a);
    CHECK(a.n_clusters == 16 && a.n_pos == 1024, "%d clusters, %d positions", a.n_clusters, a.n_pos);
    CHECK(a.n_ucols == 12 && a.max_col == 12, "%d columns, max %d", a.n_ucols, a.max_col);
    int dense = 1;
    for (int32_t c = 0; c < a.n_clusters; c++) {
        dense &= a.col_off[c + 1] - a.col_off[c] == 12;
        for (int32_t j = 0; j < 12 && dense; j++) dense &= a.cols[a.col_off[c] + j] == j;
    }
    CHECK(dense, "dense data gave a cluster whose union is not every column");
    CHECK(a.clustered_nnz_per_row == 12 && a.raw_nnz_per_row == 12, "%g %g", a.clustered_nnz_per_row,
          a.raw_nnz_per_row);
    /* padding: 24 positions of the last cluster */
    int pad = 0;
    for (int32_t p = 0; p < a.n_pos; p++) pad += a.perm[p] == -1;
    CHECK(pad == 24, "%d padding positions", pad);
    for (int32_t p = 1000; p < 1024; p++) {
        /* a padded column of the last block reads zero */
        const int32_t c = p / 64, t = p % 64;
        if (a.perm[p] != -1) continue;
        for (int32_t j = 0; j < 12; j++)
            if (a.vals[(a.col_off[c] + j) * 64 + t] != 0) { CHECK(0, "padding value at %d", p); break; }
    }
    gs_clustered_free(&a);
    csr_free(&m);
}

static void test_edges(void)
{
    gs_clustered a;
    int64_t rp0[1] = {0};
    /* no rows */
    CHECK(gs_cluster_build(rp0, NULL, NULL, 0, 256, 64, 1, &a) == GS_OK, "empty");
    CHECK(a.n == 0 && a.n_clusters == 0 && a.n_pos == 0 && a.clustered_nnz_per_row == 0, "empty layout");
    gs_clustered_free(&a);
    /* only empty rows */
    int64_t rp[4] = {0, 0, 0, 0};
    CHECK(gs_cluster_build(rp, NULL, NULL, 3, 2, 4, 1, &a) == GS_OK, "empty rows");
    csr e = {3, rp, NULL, NULL};
    check_layout("empty rows", &e, 2, &a);
    CHECK(a.n_ucols == 0 && a.col_off[a.n_clusters] == 0, "%d columns", a.n_ucols);
    gs_clustered_free(&a);
    /* one row; a column index 0 */
    int64_t rp1[2] = {0, 3};
    int32_t id1[3] = {0, 4, 9};
    float v1[3] = {1.5f, -2, 0};
    CHECK(gs_cluster_build(rp1, id1, v1, 1, 256, 64, 1, &a) == GS_OK, "one row");
    csr o = {1, rp1, id1, v1};
    check_layout("one row", &o, 256, &a);
    CHECK(a.n_pos == 256 && a.norm2[a.inv[0]] == 6.25, "%d %g", a.n_pos, a.norm2[a.inv[0]]);
    gs_clustered_free(&a);
    /* bad arguments leave *out empty */
    CHECK(gs_cluster_build(rp1, id1, v1, 1, 0, 64, 1, &a) == GS_ERR_ARG, "cluster_size 0");
    CHECK(a.perm == NULL && a.vals == NULL, "left empty");
    CHECK(gs_cluster_build(rp1, id1, v1, 1, 256, 0, 1, &a) == GS_ERR_ARG, "active 0");
    CHECK(gs_cluster_build(rp1, id1, v1, -1, 256, 64, 1, &a) == GS_ERR_ARG, "n < 0");
    gs_clustered_free(NULL);
}

/* Wide data (over 4096 distinct columns, far more than the data's values / 256): row-wise clusters
 * keep each row's own entries as a run from ell_off[position] (none for padding or dense
 * clusters), in column order; a two-row cluster of wide rows goes row-wise; narrow data is not wide. */
static void test_wide(void)
{
    const int32_t n = 300, cs = 32;
    csr m = {n, calloc((size_t)n + 1, sizeof(int64_t)), malloc(sizeof(int32_t) * (size_t)n * 40),
             malloc(sizeof(float) * (size_t)n * 40)};
    uint64_t st = 99;
    int64_t k = 0;
    for (int32_t r = 0; r < n; r++) {
        int32_t c = 0;
        for (int j = 0; j < 20 + r % 20; j++) { /* ascending random columns of 1..~40000 */
            c += 1 + (int32_t)(rng_next(&st) % 1000);
            m.idx[k] = c;
            m.val[k++] = (float)((r + j) % 7) - 3; /* some explicit zeros */
        }
        m.row_ptr[r + 1] = k;
    }
    gs_clustered cl;
    CHECK(gs_cluster_build(m.row_ptr, m.idx, m.val, n, cs, 8, 1, &cl) == GS_OK, "build: %s", gs_last_error());
    CHECK(cl.wide == 1 && cl.n_ucols > 4096, "wide %d, %d columns", cl.wide, cl.n_ucols);
    CHECK(cl.n_ell > 0 && cl.ell_off[0] == 0 && cl.ell_off[cl.n_pos] == cl.ell_nnz, "%d row-wise, %lld entries",
          cl.n_ell, (long long)cl.ell_nnz);
    int bad = 0;
    for (int32_t p = 0; p < cl.n_pos; p++) {
        const int32_t c = p / cs, r = cl.perm[p];
        const int64_t b = cl.ell_off[p], len = cl.ell_off[p + 1] - b;
        if (r < 0 || !cl.ell_w[c]) { bad += len != 0; continue; }
        bad += len != m.row_ptr[r + 1] - m.row_ptr[r] || len > cl.ell_w[c];
        double s2 = 0;
        for (int64_t e = 0; e < len && e < m.row_ptr[r + 1] - m.row_ptr[r]; e++) {
            const int64_t q = m.row_ptr[r] + e;
            bad += cl.ucol[cl.ell_idx[b + e]] != m.idx[q] || cl.ell_val[b + e] != m.val[q];
            s2 += (double)m.val[q] * m.val[q];
        }
        bad += fabs(s2 - cl.norm2[p]) > 1e-12 * (1 + s2);
    }
    CHECK(bad == 0, "%d wrong row-wise positions", bad);
    gs_clustered_free(&cl);
    /* two rows of 5000 values each: one cluster, stored as the two runs */
    csr w = {2, calloc(3, sizeof(int64_t)), malloc(sizeof(int32_t) * 10000), malloc(sizeof(float) * 10000)};
    for (int64_t e = 0; e < 10000; e++) { w.idx[e] = (int32_t)(e % 5000) + 1; w.val[e] = (float)(e % 3) + 1; }
    w.row_ptr[1] = 5000;
    w.row_ptr[2] = 10000;
    CHECK(gs_cluster_build(w.row_ptr, w.idx, w.val, 2, 256, 8, 1, &cl) == GS_OK, "build: %s", gs_last_error());
    CHECK(cl.wide == 1 && cl.n_ell == 1 && cl.ell_nnz == 10000 && cl.col_off[1] == 0, "wide %d, %d row-wise, "
          "%lld entries, %lld dense columns", cl.wide, cl.n_ell, (long long)cl.ell_nnz, (long long)cl.col_off[1]);
    gs_clustered_free(&cl);
    csr_free(&w);
    csr_free(&m);
    csr nm = make_sparse(1500, 200, 7);
    CHECK(gs_cluster_build(nm.row_ptr, nm.idx, nm.val, nm.n, 32, 8, 1, &cl) == GS_OK, "build");
    CHECK(cl.wide == 0, "200 columns taken for wide data");
    gs_clustered_free(&cl);
    csr_free(&nm);
}

/* Segments (classes) are clustered on threads of their own from 2^14 rows (cluster.c run_passes):
 * the layout must be the one a single thread gives (this thread's CPUs cut to one), whatever the
 * segments' sizes, an empty one included. */
static void test_segments(void)
{
    csr m = make_sparse(40000, 300, 11);
    const int32_t seg[6] = {0, 9000, 9000, 25000, 25100, 40000};
    gs_clustered a, b;
    CHECK(gs_cluster_build_seg(m.row_ptr, m.idx, m.val, m.n, 5, seg, 64, 64, 5, &a) == GS_OK, "build: %s",
          gs_last_error());
    int lost = 0; /* every row at one position (check_layout's other counts are for one segment) */
    for (int32_t r = 0; r < m.n; r++) lost += a.inv[r] < 0 || a.inv[r] >= a.n_pos || a.perm[a.inv[r]] != r;
    CHECK(lost == 0 && a.n_clusters == 141 + 250 + 2 + 233, "segments: %d rows misplaced, %d clusters", lost,
          a.n_clusters);
    cpu_set_t all, one;
    CHECK(sched_getaffinity(0, sizeof all, &all) == 0, "sched_getaffinity");
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all)) { CPU_SET(c, &one); break; }
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "sched_setaffinity");
    CHECK(gs_cluster_build_seg(m.row_ptr, m.idx, m.val, m.n, 5, seg, 64, 64, 5, &b) == GS_OK, "build: %s",
          gs_last_error());
    CHECK(sched_setaffinity(0, sizeof all, &all) == 0, "sched_setaffinity back");
    CHECK(same_layout(&a, &b, 1), "segments on threads: not the one-thread layout");
    CHECK(!memcmp(a.seg_cl, b.seg_cl, sizeof *a.seg_cl * 6) && a.seg_cl[2] == a.seg_cl[1],
          "segments' first clusters");
    CHECK(!memcmp(a.ell_w, b.ell_w, sizeof *a.ell_w * (size_t)a.n_clusters), "row-wise clusters");
    /* no cluster mixes segments */
    int mixed = 0;
    for (int s = 0; s < 5; s++)
        for (int32_t c = a.seg_cl[s]; c < a.seg_cl[s + 1]; c++)
            for (int32_t t = 0; t < a.cluster_size; t++) {
                const int32_t r = a.perm[(int64_t)c * a.cluster_size + t];
                if (r >= 0 && (r < seg[s] || r >= seg[s + 1])) mixed++;
            }
    CHECK(mixed == 0, "%d rows in another segment's clusters", mixed);
    gs_clustered_free(&a);
    gs_clustered_free(&b);
    csr_free(&m);
}

int main(void)
{
    test_segments();
    test_sparse();
    test_wide();
    test_dense();
    test_edges();
    TEST_END();
}
