/* precomputed.c — see precomputed.h. */
#include "data/precomputed.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

/* (int)v as x86 gives it for any float (INT_MIN outside int's range and for NaN), so an absurd
 * serial number is "out of range", never undefined behaviour. */
static int serial_of(float v)
{
    const double d = v;
    if (!(d > (double)INT_MIN - 1.0 && d < (double)INT_MAX + 1.0)) return INT_MIN;
    return (int)d;
}

const char *gs_precomputed_check(const gs_problem *prob)
{
    for (int32_t i = 0; i < prob->l; i++) {
        const int64_t b = prob->row_ptr[i];
        if (prob->row_ptr[i + 1] == b || prob->idx[b] != 0)
            return "Wrong input format: first column must be 0:sample_serial_number";
        const int id = serial_of(prob->val[b]);
        if (id <= 0 || id > prob->max_index) return "Wrong input format: sample_serial_number out of range";
    }
    return NULL;
}

/* Physical memory of the host in bytes (0 when unknown). */
static size_t host_memory(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (size_t)pages * (size_t)size : 0;
}

/* The largest serial number S among the rows, and that every row holds positions 0..S. */
static gs_status widest_serial(const int64_t *row_ptr, const int32_t *idx, const float *val, int32_t n,
                               int32_t *s_out)
{
    int32_t s = 0;
    for (int32_t r = 0; r < n; r++) {
        const int id = row_ptr[r + 1] > row_ptr[r] && idx[row_ptr[r]] == 0 ? serial_of(val[row_ptr[r]]) : 0;
        if (id <= 0) return GS_FAIL(GS_ERR_FORMAT, "precomputed kernel: a row has no serial number 0:ID >= 1");
        if (id > s) s = id;
    }
    for (int32_t r = 0; r < n; r++) {
        const int64_t len = row_ptr[r + 1] - row_ptr[r];
        if (len <= s)
            /* named by its ID: the trainers pass rows grouped by class, not in file order */
            return GS_FAIL(GS_ERR_FORMAT, "precomputed kernel: the row with 0:%d has %lld kernel values, but "
                           "serial number %d needs %d (K(i,j) is read at position ID_j of row i, so every row "
                           "needs its values 1..%d, zeros included)",
                           serial_of(val[row_ptr[r]]), (long long)(len - 1), s, s, s);
    }
    *s_out = s;
    return GS_OK;
}

/* Cluster c's block, column-major, from its rows: a transpose done in strips of GS_PRE_STRIP
 * columns, so the strip's output lines stay in cache while the rows are read along. */
#define GS_PRE_STRIP 64
static void fill_cluster(gs_clustered *out, int32_t c, const int64_t *row_ptr, const float *val, size_t w)
{
    const size_t cs = (size_t)out->cluster_size;
    float *v = out->vals + (size_t)c * w * cs;
    const int32_t *perm = out->perm + (size_t)c * cs;
    for (size_t j0 = 0; j0 < w; j0 += GS_PRE_STRIP) {
        const size_t j1 = j0 + GS_PRE_STRIP < w ? j0 + GS_PRE_STRIP : w;
        for (size_t t = 0; t < cs && perm[t] >= 0; t++) {
            const float *x = val + row_ptr[perm[t]];
            for (size_t j = j0; j < j1; j++) v[j * cs + t] = j ? x[j] : (float)serial_of(x[0]);
        }
    }
}

gs_status gs_precomputed_cluster(const int64_t *row_ptr, const int32_t *idx, const float *val, int32_t n,
                                 int32_t nseg, const int32_t *seg, int32_t cluster_size, gs_clustered *out)
{
    const double t0 = gs_now();
    memset(out, 0, sizeof *out);
    if (n < 0 || cluster_size <= 0 || nseg < 1 || seg[0] != 0 || seg[nseg] != n)
        return GS_FAIL(GS_ERR_ARG, "bad clustering arguments");
    int32_t s = 0, nc = 0;
    gs_status st = widest_serial(row_ptr, idx, val, n, &s);
    if (st != GS_OK) return st;
    for (int32_t g = 0; g < nseg; g++) {
        if (seg[g + 1] < seg[g]) return GS_FAIL(GS_ERR_ARG, "bad clustering segments");
        nc += (int32_t)((seg[g + 1] - seg[g] + (int64_t)cluster_size - 1) / cluster_size);
    }
    const size_t w = (size_t)s + 1, npos = (size_t)nc * (size_t)cluster_size;
    const size_t need = npos * w * sizeof(float) + npos * (sizeof(double) + 2 * sizeof(int32_t)) +
                        (size_t)nc * w * sizeof(int32_t);
    const size_t have = host_memory();
    if (have && need > have)
        return GS_FAIL(GS_ERR_NOMEM, "precomputed kernel: the %d kernel rows of %zu values need %zu bytes of host "
                       "memory for the device layout; the host has %zu", (int)n, w, need, have);
    out->seg_cl = malloc(sizeof *out->seg_cl * ((size_t)nseg + 1));
    out->perm = malloc(sizeof *out->perm * (npos ? npos : 1));
    out->inv = malloc(sizeof *out->inv * (size_t)(n ? n : 1));
    out->col_off = malloc(sizeof *out->col_off * ((size_t)nc + 1));
    out->cols = malloc(sizeof *out->cols * (size_t)(nc ? nc : 1) * w);
    out->vals = calloc((npos ? npos : 1) * w, sizeof *out->vals);
    out->norm2 = calloc(npos ? npos : 1, sizeof *out->norm2); /* no norms: the kernel reads values */
    out->ell_w = calloc((size_t)(nc ? nc : 1), sizeof *out->ell_w);
    out->ell_off = calloc(npos + 1, sizeof *out->ell_off);
    out->ell_idx = calloc(1, sizeof *out->ell_idx);
    out->ell_val = calloc(1, sizeof *out->ell_val);
    out->ucol = malloc(sizeof *out->ucol * w);
    if (!out->seg_cl || !out->perm || !out->inv || !out->col_off || !out->cols || !out->vals || !out->norm2 ||
        !out->ell_w || !out->ell_off || !out->ell_idx || !out->ell_val || !out->ucol) {
        gs_clustered_free(out);
        return GS_FAIL(GS_ERR_NOMEM, "precomputed kernel: out of memory for the device layout of %d kernel rows "
                       "of %zu values (%zu bytes; the host has %zu)", (int)n, w, need, have);
    }
    for (size_t j = 0; j < w; j++) out->ucol[j] = (int32_t)j;
    for (int32_t c = 0; c <= nc; c++) out->col_off[c] = (int64_t)c * (int64_t)w;
    for (int32_t c = 0; c < nc; c++)
        for (size_t j = 0; j < w; j++) out->cols[(size_t)c * w + j] = (int32_t)j;
    for (size_t p = 0; p < npos; p++) out->perm[p] = -1;
    int32_t c0 = 0;
    for (int32_t g = 0; g < nseg; g++) {
        out->seg_cl[g] = c0;
        for (int32_t r = seg[g]; r < seg[g + 1]; r++) {
            const size_t p = (size_t)c0 * (size_t)cluster_size + (size_t)(r - seg[g]);
            out->perm[p] = r;
            out->inv[r] = (int32_t)p;
        }
        c0 += (int32_t)((seg[g + 1] - seg[g] + (int64_t)cluster_size - 1) / cluster_size);
    }
    out->seg_cl[nseg] = c0;
    out->n = n;
    out->cluster_size = cluster_size;
    for (int32_t c = 0; c < nc; c++) fill_cluster(out, c, row_ptr, val, w);
    out->n_clusters = nc;
    out->n_pos = (int32_t)npos;
    out->max_col = s;
    out->n_ucols = (int32_t)w;
    out->n_seg = nseg;
    out->raw_nnz_per_row = n ? (double)row_ptr[n] / n : 0;
    out->clustered_nnz_per_row = (double)w;
    out->seconds = gs_now() - t0;
    out->stamp = gs_clustered_stamp();
    return GS_OK;
}
