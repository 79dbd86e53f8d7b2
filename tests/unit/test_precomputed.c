/* test_precomputed.c — -t 4 on the host (data/precomputed.h): svm-train's serial-number checks in
 * its order and words, and the device layout against a direct reading of the rows: every row once,
 * in segment order, column j = the row's j-th stored value (position, not index), column 0 the
 * truncated ID, padding zero, compact ids the positions; short rows refused; the SV end helper. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/precomputed.h"
#include "testlib.h"

#define FIRST "Wrong input format: first column must be 0:sample_serial_number"
#define RANGE "Wrong input format: sample_serial_number out of range"

/* A problem from rows written as "idx:val ..." strings (labels 1), max_index as LIBSVM counts it. */
static gs_problem make(int n, const char *const *rows)
{
    gs_problem p = {0};
    p.l = n;
    p.y = calloc((size_t)n + 1, sizeof *p.y);
    p.row_ptr = calloc((size_t)n + 1, sizeof *p.row_ptr);
    p.idx = malloc(sizeof *p.idx * 64 * ((size_t)n + 1));
    p.val = malloc(sizeof *p.val * 64 * ((size_t)n + 1));
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        const char *s = rows[i];
        int used = 0, ix = 0;
        float v = 0;
        while (sscanf(s, " %d:%f%n", &ix, &v, &used) == 2) {
            p.idx[k] = ix;
            p.val[k++] = v;
            if (ix > p.max_index) p.max_index = ix;
            s += used;
        }
        p.row_ptr[i + 1] = k;
    }
    p.nnz = k;
    return p;
}

static void check_messages(void)
{
    struct { const char *rows[3]; int n; const char *want; } cases[] = {
        {{"0:1 1:1 2:2", "0:2 1:2 2:1"}, 2, NULL},
        {{"0:2 1:1 2:2", "0:1 1:2 2:1"}, 2, NULL},                  /* a permutation */
        {{"0:1.9 1:1 2:2", "0:2 1:2 2:1"}, 2, NULL},                /* (int)1.9 = 1 */
        {{"0:1 1:1 2:2", "1:2 2:1"}, 2, FIRST},
        {{"0:1 1:1 2:2", ""}, 2, FIRST},                            /* an empty row */
        {{"0:0 1:1 2:2", "0:2 1:2 2:1"}, 2, RANGE},
        {{"0:0.5 1:1 2:2", "0:2 1:2 2:1"}, 2, RANGE},               /* (int)0.5 = 0 */
        {{"0:-1 1:1 2:2", "0:2 1:2 2:1"}, 2, RANGE},
        {{"0:3 1:1 2:2", "0:2 1:2 2:1"}, 2, RANGE},                 /* beyond max_index 2 */
        {{"0:1e10 1:1 2:2", "0:2 1:2 2:1"}, 2, RANGE},              /* beyond int */
        {{"0:nan 1:1 2:2", "0:2 1:2 2:1"}, 2, RANGE},
        {{"0:5 1:1 2:2", "1:2 2:1"}, 2, RANGE},                     /* the first bad row decides */
        {{"1:2 2:1", "0:5 1:1 2:2"}, 2, FIRST},
        {{"0:3 1:1 2:2 3:0"}, 1, NULL},                             /* max_index counts every index */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gs_problem p = make(cases[c].n, cases[c].rows);
        const char *got = gs_precomputed_check(&p);
        CHECK((got == NULL && cases[c].want == NULL) || (got && cases[c].want && strcmp(got, cases[c].want) == 0),
              "case %zu: [%s]", c, got ? got : "(null)");
        gs_problem_free(&p);
    }
    gs_problem none = {0};
    CHECK(gs_precomputed_check(&none) == NULL, "no rows");
}

/* n rows of a symmetric n x n matrix K(i,j) = i*100+j, rows in a shuffled serial order; every third
 * row also carries a value past position n (never read). */
static void check_layout(int n, int cs, int nseg)
{
    gs_problem p = {0};
    p.l = n;
    p.row_ptr = calloc((size_t)n + 1, sizeof *p.row_ptr);
    p.idx = malloc(sizeof *p.idx * (size_t)n * ((size_t)n + 2));
    p.val = malloc(sizeof *p.val * (size_t)n * ((size_t)n + 2));
    int64_t k = 0;
    for (int r = 0; r < n; r++) {
        const int id = (r * 7) % n + 1; /* n prime to 7: a permutation */
        p.idx[k] = 0;
        p.val[k++] = (float)id;
        for (int j = 1; j <= n; j++) {
            p.idx[k] = j;
            p.val[k++] = (float)(id * 100 + j);
        }
        if (r % 3 == 0) { p.idx[k] = n + 1; p.val[k++] = -1; }
        p.row_ptr[r + 1] = k;
    }
    int32_t seg[4] = {0, n, n, n};
    if (nseg == 3) { seg[1] = n / 3; seg[2] = n / 2; }
    gs_clustered c;
    const gs_status st = gs_precomputed_cluster(p.row_ptr, p.idx, p.val, n, nseg, seg, cs, &c);
    CHECK(st == GS_OK, "n %d: status %d", n, (int)st);
    if (st != GS_OK) { gs_problem_free(&p); return; }
    int bad = 0, seen = 0;
    CHECK(c.n_ucols == n + 1 && c.max_col == n && c.n_ell == 0, "n %d: %d columns", n, c.n_ucols);
    for (int g = 0; g < nseg; g++)
        CHECK(c.seg_cl[g + 1] - c.seg_cl[g] == (seg[g + 1] - seg[g] + cs - 1) / cs, "segment %d clusters", g);
    for (int32_t q = 0; q < c.n_pos; q++) {
        const int cl = q / cs, t = q % cs, r = c.perm[q];
        const int64_t off = c.col_off[cl];
        if (c.col_off[cl + 1] - off != n + 1) bad++;
        for (int j = 0; j <= n; j++) {
            const float v = c.vals[(off + j) * cs + t];
            if (c.cols[off + j] != j) bad++;
            if (r < 0) { bad += v != 0.0f; continue; }
            bad += v != p.val[p.row_ptr[r] + j];
        }
        if (r >= 0) { seen++; bad += c.inv[r] != q; }
    }
    /* segment order: row r of segment g sits at cluster seg_cl[g] + (r - seg[g]) / cs */
    for (int g = 0; g < nseg; g++)
        for (int r = seg[g]; r < seg[g + 1]; r++) bad += c.inv[r] != c.seg_cl[g] * cs + (r - seg[g]);
    CHECK(bad == 0 && seen == n, "n %d cs %d nseg %d: %d wrong values, %d rows placed", n, cs, nseg, bad, seen);
    gs_clustered_free(&c);
    gs_problem_free(&p);
}

static void check_short_rows(void)
{
    /* position semantics: 0:2 with a missing 1: still reads its second stored value as column 2 */
    const char *rows[] = {"0:1 1:4 2:5", "0:2 2:6 3:7"};
    gs_problem p = make(2, rows);
    const int32_t seg[2] = {0, 2};
    gs_clustered c;
    gs_status st = gs_precomputed_cluster(p.row_ptr, p.idx, p.val, 2, 1, seg, 32, &c);
    CHECK(st == GS_OK, "gap row: status %d", (int)st);
    if (st == GS_OK) {
        CHECK(c.vals[1 * 32 + 1] == 6.0f && c.vals[2 * 32 + 1] == 7.0f, "positions, not indices");
        gs_clustered_free(&c);
    }
    gs_problem_free(&p);
    const char *shorter[] = {"0:1 1:4 2:5", "0:2 1:6"};
    p = make(2, shorter);
    st = gs_precomputed_cluster(p.row_ptr, p.idx, p.val, 2, 1, seg, 32, &c);
    CHECK(st == GS_ERR_FORMAT, "short row: status %d", (int)st);
    CHECK(strstr(gs_last_error(), "the row with 0:2 has 1 kernel values, but serial number 2 needs 2") != NULL,
          "short row: [%s]", gs_last_error());
    gs_problem_free(&p);
    const char *noid[] = {"1:4 2:5"};
    p = make(1, noid);
    const int32_t seg1[2] = {0, 1};
    st = gs_precomputed_cluster(p.row_ptr, p.idx, p.val, 1, 1, seg1, 32, &c);
    CHECK(st == GS_ERR_FORMAT, "no 0:ID: status %d", (int)st);
    CHECK(gs_sv_end(&p, 0, 1) == 1 && gs_sv_end(&p, 0, 0) == 2, "gs_sv_end");
    gs_problem_free(&p);
}

int main(void)
{
    check_messages();
    check_layout(10, 32, 1);
    check_layout(100, 32, 1);
    check_layout(101, 32, 3);
    check_layout(300, 256, 3);
    check_short_rows();
    TEST_END();
}
