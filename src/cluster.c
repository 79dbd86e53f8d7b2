/* cluster.c — GTSVM Algorithm 2: a single greedy pass over the rows in a seeded random order; each
 * row joins the active cluster whose column union grows least (|S|·|Jx\JS| + |JS\Jx| new stored
 * zeros); a full cluster is retired and the next one activated. Membership tests use one bitmap of
 * max_col+1 bits per active cluster; a retired cluster keeps only its sorted union. */
#include "cluster.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

typedef struct active_cluster {
    int32_t id;        /* index of the cluster being filled, -1 when the slot is unused */
    int32_t size;      /* rows so far */
    int32_t ncols;     /* |J_S| */
    uint64_t *bits;    /* membership bitmap of J_S */
} active_cluster;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void gs_clustered_free(gs_clustered *c)
{
    if (!c) return;
    free(c->perm);
    free(c->inv);
    free(c->col_off);
    free(c->cols);
    free(c->vals);
    free(c->norm2);
    free(c->ucol);
    memset(c, 0, sizeof *c);
}

static int has_bit(const uint64_t *b, int32_t i) { return (int)((b[i >> 6] >> (i & 63)) & 1u); }

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Renumbers the columns present to 0..m-1 (ascending), so bitmaps and the device's dense
 * working-set block scale with the columns used, not with the largest index. */
static gs_status compact_columns(const int32_t *idx, int64_t nnz, int32_t max_col, int32_t **cidx_out,
                                 int32_t **ucol_out, int32_t *m_out)
{
    int32_t *cidx = malloc(sizeof *cidx * (size_t)(nnz ? nnz : 1));
    int32_t *ucol = NULL, m = 0;
    if (!cidx) return GS_FAIL(GS_ERR_NOMEM, "out of memory compacting columns");
    if (max_col < (1 << 24)) {
        int32_t *map = malloc(sizeof *map * ((size_t)max_col + 1));
        if (!map) { free(cidx); return GS_FAIL(GS_ERR_NOMEM, "out of memory compacting columns"); }
        for (int32_t c = 0; c <= max_col; c++) map[c] = -1;
        for (int64_t k = 0; k < nnz; k++) map[idx[k]] = 0;
        for (int32_t c = 0; c <= max_col; c++) if (map[c] == 0) m++;
        ucol = malloc(sizeof *ucol * (size_t)(m ? m : 1));
        if (!ucol) { free(map); free(cidx); return GS_FAIL(GS_ERR_NOMEM, "out of memory compacting columns"); }
        m = 0;
        for (int32_t c = 0; c <= max_col; c++) if (map[c] == 0) { ucol[m] = c; map[c] = m++; }
        for (int64_t k = 0; k < nnz; k++) cidx[k] = map[idx[k]];
        free(map);
    } else {
        ucol = malloc(sizeof *ucol * (size_t)(nnz ? nnz : 1));
        if (!ucol) { free(cidx); return GS_FAIL(GS_ERR_NOMEM, "out of memory compacting columns"); }
        memcpy(ucol, idx, sizeof *ucol * (size_t)nnz);
        qsort(ucol, (size_t)nnz, sizeof *ucol, cmp_i32);
        for (int64_t k = 0; k < nnz; k++) if (k == 0 || ucol[k] != ucol[m - 1]) ucol[m++] = ucol[k];
        for (int64_t k = 0; k < nnz; k++) {
            const int32_t *f = bsearch(&idx[k], ucol, (size_t)m, sizeof *ucol, cmp_i32);
            cidx[k] = (int32_t)(f - ucol);
        }
    }
    *cidx_out = cidx;
    *ucol_out = ucol;
    *m_out = m;
    return GS_OK;
}

gs_status gs_cluster_build(const int64_t *row_ptr, const int32_t *idx, const float *val, int32_t n,
                           int32_t cluster_size, int32_t active, uint64_t seed, gs_clustered *out)
{
    gs_status st = GS_OK;
    double t0 = gs_now();
    int32_t *order = NULL, *assign = NULL, *fill = NULL;
    active_cluster *act = NULL;
    uint64_t *bitpool = NULL;
    memset(out, 0, sizeof *out);
    if (n < 0 || cluster_size <= 0 || active <= 0 || (n > 0 && row_ptr[0] != 0))
        return GS_FAIL(GS_ERR_ARG, "bad clustering arguments");

    int32_t max_col = 0;
    const int64_t nnz_all = n ? row_ptr[n] : 0;
    for (int64_t k = 0; k < nnz_all; k++)
        if (idx[k] > max_col) max_col = idx[k];
    int32_t *cidx = NULL, n_ucols = 0;
    st = compact_columns(idx, nnz_all, max_col, &cidx, &out->ucol, &n_ucols);
    if (st != GS_OK) return st;
    idx = cidx; /* from here on, idx holds compact ids */
    const int32_t total = n ? (int32_t)((n + (int64_t)cluster_size - 1) / cluster_size) : 0;
    const int32_t nact = active < total ? active : total;
    const size_t words = (size_t)n_ucols / 64 + 1;

    order = malloc(sizeof *order * (size_t)(n ? n : 1));
    assign = malloc(sizeof *assign * (size_t)(n ? n : 1));
    fill = calloc((size_t)(total ? total : 1), sizeof *fill);
    act = calloc((size_t)(nact ? nact : 1), sizeof *act);
    bitpool = calloc((size_t)(nact ? nact : 1) * words, sizeof *bitpool);
    out->col_off = calloc((size_t)total + 1, sizeof *out->col_off);
    if (!order || !assign || !fill || !act || !bitpool || !out->col_off) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory clustering %d rows", n);
        goto cleanup;
    }
    /* Fisher–Yates with a seeded generator: the order only affects speed, never the answer. */
    uint64_t rs = seed;
    for (int32_t i = 0; i < n; i++) order[i] = i;
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t j = (int32_t)(splitmix64(&rs) % (uint64_t)(i + 1));
        int32_t t = order[i]; order[i] = order[j]; order[j] = t;
    }
    int32_t next_id = 0;
    for (int32_t a = 0; a < nact; a++) {
        act[a].id = next_id++;
        act[a].bits = bitpool + (size_t)a * words;
    }
    /* Per-cluster union sizes are needed before the layout; collect each retired union as we go. */
    int64_t *union_size = calloc((size_t)(total ? total : 1), sizeof *union_size);
    int32_t **unions = calloc((size_t)(total ? total : 1), sizeof *unions);
    if (!union_size || !unions) {
        free(union_size); free(unions);
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory clustering");
        goto cleanup;
    }
    for (int32_t oi = 0; oi < n; oi++) {
        const int32_t r = order[oi];
        const int64_t b = row_ptr[r], e = row_ptr[r + 1];
        const int32_t nx = (int32_t)(e - b);
        int32_t best = -1;
        int64_t best_cost = INT64_MAX;
        for (int32_t a = 0; a < nact; a++) {
            if (act[a].id < 0) continue;
            /* cost >= |J_S| - |J_x|: skip clusters that cannot beat the best so far */
            if ((int64_t)act[a].ncols - nx > best_cost) continue;
            int32_t inter = 0, miss = 0;
            int64_t sz = act[a].size;
            int pruned = 0;
            for (int64_t k = b; k < e; k++) {
                if (has_bit(act[a].bits, idx[k])) inter++;
                else if (sz * ++miss > best_cost) { pruned = 1; break; }
            }
            if (pruned) continue;
            int64_t cost = sz * (nx - inter) + (act[a].ncols - inter);
            if (cost < best_cost) { best_cost = cost; best = a; if (cost == 0 && sz > 0) break; }
        }
        active_cluster *c = &act[best];
        for (int64_t k = b; k < e; k++) {
            if (!has_bit(c->bits, idx[k])) {
                c->bits[idx[k] >> 6] |= 1ull << (idx[k] & 63);
                c->ncols++;
            }
        }
        assign[r] = c->id;
        c->size++;
        if (c->size == cluster_size || oi == n - 1) {
            /* retire: store the sorted union; activate the next cluster in this slot */
            int32_t *u = malloc(sizeof *u * (size_t)(c->ncols ? c->ncols : 1));
            if (!u) { free(union_size); free(unions); st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
            int32_t m = 0;
            for (size_t w = 0; w < words; w++) {
                uint64_t x = c->bits[w];
                while (x) {
                    int bit = __builtin_ctzll(x);
                    u[m++] = (int32_t)(w * 64 + (size_t)bit);
                    x &= x - 1;
                }
            }
            unions[c->id] = u;
            union_size[c->id] = m;
            memset(c->bits, 0, words * sizeof *c->bits);
            c->ncols = 0;
            c->size = 0;
            c->id = (c->size == 0 && next_id < total && oi != n - 1) ? next_id++ : -1;
        }
    }
    /* Clusters still active at the end (partially filled) retire now. */
    for (int32_t a = 0; a < nact; a++) {
        active_cluster *c = &act[a];
        if (c->id < 0) continue;
        if (c->size == 0) { unions[c->id] = NULL; union_size[c->id] = 0; continue; }
        int32_t *u = malloc(sizeof *u * (size_t)(c->ncols ? c->ncols : 1));
        if (!u) { free(union_size); free(unions); st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
        int32_t m = 0;
        for (size_t w = 0; w < words; w++) {
            uint64_t x = c->bits[w];
            while (x) { int bit = __builtin_ctzll(x); u[m++] = (int32_t)(w * 64 + (size_t)bit); x &= x - 1; }
        }
        unions[c->id] = u;
        union_size[c->id] = m;
    }
    /* Layout: clusters in id order; rows of a cluster in insertion (shuffled) order. */
    {
        const int32_t nc = total;
        out->n = n;
        out->cluster_size = cluster_size;
        out->n_clusters = nc;
        out->n_pos = nc * cluster_size;
        out->max_col = max_col;
        out->n_ucols = n_ucols;
        int64_t ncols_total = 0;
        for (int32_t c = 0; c < nc; c++) { out->col_off[c] = ncols_total; ncols_total += union_size[c]; }
        out->col_off[nc] = ncols_total;
        out->cols = malloc(sizeof *out->cols * (size_t)(ncols_total ? ncols_total : 1));
        out->vals = calloc((size_t)(ncols_total ? ncols_total : 1) * (size_t)cluster_size, sizeof *out->vals);
        out->perm = malloc(sizeof *out->perm * (size_t)(out->n_pos ? out->n_pos : 1));
        out->inv = malloc(sizeof *out->inv * (size_t)(n ? n : 1));
        out->norm2 = calloc((size_t)(out->n_pos ? out->n_pos : 1), sizeof *out->norm2);
        if (!out->cols || !out->vals || !out->perm || !out->inv || !out->norm2) {
            for (int32_t c = 0; c < nc; c++) free(unions[c]);
            free(union_size); free(unions);
            st = GS_FAIL(GS_ERR_NOMEM, "out of memory for the clustered layout (%lld columns x %d rows)",
                         (long long)ncols_total, cluster_size);
            goto cleanup;
        }
        for (int32_t c = 0; c < nc; c++)
            if (union_size[c]) memcpy(out->cols + out->col_off[c], unions[c], sizeof(int32_t) * (size_t)union_size[c]);
        for (int32_t p = 0; p < out->n_pos; p++) out->perm[p] = -1;
        for (int32_t oi = 0; oi < n; oi++) {
            const int32_t r = order[oi];
            const int32_t c = assign[r];
            const int32_t t = fill[c]++;
            const int32_t p = c * cluster_size + t;
            out->perm[p] = r;
            out->inv[r] = p;
            /* merge the row into the cluster's union (both ascending) */
            const int32_t *u = out->cols + out->col_off[c];
            float *v = out->vals + out->col_off[c] * cluster_size;
            int32_t j = 0;
            double s2 = 0;
            for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; k++) {
                while (u[j] != idx[k]) j++;
                v[(int64_t)j * cluster_size + t] = val[k];
                s2 += (double)val[k] * (double)val[k];
            }
            out->norm2[p] = s2;
        }
        for (int32_t c = 0; c < nc; c++) free(unions[c]);
        free(union_size);
        free(unions);
        const int64_t raw = n ? row_ptr[n] : 0;
        out->raw_nnz_per_row = n ? (double)raw / n : 0;
        double cl = 0;
        for (int32_t c = 0; c < nc; c++) cl += (double)(out->col_off[c + 1] - out->col_off[c]) * fill[c];
        out->clustered_nnz_per_row = n ? cl / n : 0;
    }
    out->seconds = gs_now() - t0;

cleanup:
    if (st != GS_OK) gs_clustered_free(out);
    free(order);
    free(assign);
    free(fill);
    free(act);
    free(bitpool);
    free(cidx);
    return st;
}
