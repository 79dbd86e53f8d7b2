/* colchunks.c — the by-column copy of a clustered layout (colchunks.h): a pass over each chunk's
 * positions counting its columns' entries, then one placing them; chunks in groups on the CPU's
 * threads (text-gen's 16 million entries: 0.71 s on one thread of the H200's host). */
#include "data/colchunks.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/order.h"
#include "util/parallel.h"

/* Calls EMIT(col, value, position in chunk) for every nonzero value of cluster c, whose first
 * position is chunk position r0: row-wise clusters row by row (wide layouts' runs) or slot by slot
 * (ELL: a row's entries end at column -1), dense ones column by column over the cluster's union. */
#define GS_CLUSTER_ENTRIES(cl, c, r0, EMIT)                                                          \
    do {                                                                                             \
        const int32_t wg_ = (cl)->cluster_size, ew_ = (cl)->ell_w[c];                                \
        if (ew_ > 0 && (cl)->wide) {                                                                 \
            for (int32_t t_ = 0; t_ < wg_; t_++) {                                                   \
                const int64_t p_ = (int64_t)(c) * wg_ + t_;                                          \
                for (int64_t e_ = (cl)->ell_off[p_]; e_ < (cl)->ell_off[p_ + 1]; e_++)               \
                    if ((cl)->ell_val[e_] != 0.0f) EMIT((cl)->ell_idx[e_], (cl)->ell_val[e_], (r0) + t_); \
            }                                                                                        \
        } else if (ew_ > 0) {                                                                        \
            const int64_t b_ = (cl)->ell_off[c];                                                     \
            for (int64_t s_ = 0; s_ < (int64_t)ew_ * wg_; s_++) {                                    \
                const int32_t col_ = (cl)->ell_idx[b_ + s_];                                         \
                const float x_ = (cl)->ell_val[b_ + s_];                                             \
                if (col_ >= 0 && x_ != 0.0f) EMIT(col_, x_, (r0) + (int32_t)(s_ % wg_));             \
            }                                                                                        \
        } else {                                                                                     \
            for (int64_t j_ = (cl)->col_off[c]; j_ < (cl)->col_off[(c) + 1]; j_++)                   \
                for (int32_t t_ = 0; t_ < wg_; t_++) {                                               \
                    const float x_ = (cl)->vals[j_ * wg_ + t_];                                      \
                    if (x_ != 0.0f) EMIT((cl)->cols[j_], x_, (r0) + t_);                             \
                }                                                                                    \
        }                                                                                            \
    } while (0)

void gs_colchunks_free(gs_colchunks *c)
{
    if (!c) return;
    free(c->chunk_cols);
    free(c->cols);
    free(c->col_off);
    free(c->row);
    free(c->val);
    memset(c, 0, sizeof *c);
}

int64_t gs_colchunks_bytes(const gs_colchunks *c)
{
    return (int64_t)sizeof(int32_t) * (c->n_chunks + 1 + 2 * c->n_cols + 1) +
           (int64_t)(sizeof(uint16_t) + sizeof(float)) * c->n_entries;
}

/* The build's shared state: pass 1 fills nu / ne per chunk, pass 2 places them (chunk_cols and
 * e0, the chunks' first column and entry, from pass 1's sums). */
typedef struct build {
    const gs_clustered *cl;
    gs_colchunks *out;
    int32_t ncols, ngroups;
    int pass;
    int32_t *nu;  /* [n_chunks] distinct columns of each chunk */
    int64_t *ne;  /* [n_chunks] its entries; after pass 1, where they start */
} build;

/* Chunk h's columns listed (used, distinct, counts in cnt) and, in pass 2, placed. cnt is zero
 * again on return. */
static void chunk_pass(const build *b, int32_t h, int32_t *cnt, int32_t *used, int32_t *fill)
{
    const gs_clustered *cl = b->cl;
    gs_colchunks *const out = b->out;
    const int32_t c0 = h * out->chunk_clusters;
    const int32_t c1 = c0 + out->chunk_clusters < cl->n_clusters ? c0 + out->chunk_clusters : cl->n_clusters;
    int32_t nu = 0;
    int64_t ne = 0;
#define COUNT(col, x, r) do { if (cnt[col]++ == 0) used[nu++] = (col); ne++; (void)(x); (void)(r); } while (0)
    for (int32_t c = c0; c < c1; c++) GS_CLUSTER_ENTRIES(cl, c, 0, COUNT);
#undef COUNT
    if (b->pass == 1) {
        b->nu[h] = nu;
        b->ne[h] = ne;
        for (int32_t k = 0; k < nu; k++) cnt[used[k]] = 0;
        return;
    }
    qsort(used, (size_t)nu, sizeof *used, gs_cmp_i32);
    int32_t *const kc = out->cols + out->chunk_cols[h], *const ko = out->col_off + out->chunk_cols[h];
    int64_t e = b->ne[h];
    for (int32_t k = 0; k < nu; k++) {
        kc[k] = used[k];
        ko[k] = (int32_t)e;
        fill[used[k]] = (int32_t)e;
        e += cnt[used[k]];
        cnt[used[k]] = 0;
    }
#define PLACE(col, x, r) do { out->row[fill[col]] = (uint16_t)(r); out->val[fill[col]++] = (x); } while (0)
    for (int32_t c = c0; c < c1; c++) GS_CLUSTER_ENTRIES(cl, c, (c - c0) * cl->cluster_size, PLACE);
#undef PLACE
}

/* Group g of the chunks, with scratch of its own. */
static gs_status group_job(void *ctx, int g)
{
    const build *b = ctx;
    const int32_t nch = b->out->n_chunks;
    int32_t *cnt = calloc((size_t)b->ncols, sizeof *cnt), *used = malloc(sizeof *used * (size_t)b->ncols);
    int32_t *fill = b->pass == 2 ? malloc(sizeof *fill * (size_t)b->ncols) : NULL;
    gs_status st = GS_OK;
    if (!cnt || !used || (b->pass == 2 && !fill)) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory");
    } else {
        const int32_t h0 = (int32_t)((int64_t)nch * g / b->ngroups);
        const int32_t h1 = (int32_t)((int64_t)nch * (g + 1) / b->ngroups);
        for (int32_t h = h0; h < h1; h++) chunk_pass(b, h, cnt, used, fill);
    }
    free(cnt);
    free(used);
    free(fill);
    return st;
}

gs_status gs_colchunks_build(const gs_clustered *cl, int32_t chunk_clusters, gs_colchunks *out)
{
    gs_status st = GS_OK;
    memset(out, 0, sizeof *out);
    if (chunk_clusters < 1 || (int64_t)chunk_clusters * cl->cluster_size > 65536)
        return GS_FAIL(GS_ERR_ARG, "by-column chunks of %d clusters of %d rows", chunk_clusters, cl->cluster_size);
    const int32_t nch = (cl->n_clusters + chunk_clusters - 1) / chunk_clusters;
    const int nth = gs_cpu_threads(16);
    build b = {.cl = cl, .out = out, .ncols = cl->n_ucols > 0 ? cl->n_ucols : 1, .pass = 1,
               .ngroups = nch < 4 * nth ? (nch > 0 ? nch : 1) : 4 * nth};
    out->chunk_clusters = chunk_clusters;
    out->chunk_rows = chunk_clusters * cl->cluster_size;
    out->n_chunks = nch;
    out->chunk_cols = malloc(sizeof(int32_t) * ((size_t)nch + 1));
    b.nu = malloc(sizeof *b.nu * ((size_t)nch + 1));
    b.ne = malloc(sizeof *b.ne * ((size_t)nch + 1));
    if (!out->chunk_cols || !b.nu || !b.ne) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
    if ((st = gs_parallel_items(b.ngroups, nth, group_job, &b))) goto cleanup;
    int64_t ncol_all = 0, nent = 0;
    for (int32_t h = 0; h < nch; h++) {
        out->chunk_cols[h] = (int32_t)ncol_all;
        ncol_all += b.nu[h];
        const int64_t n = b.ne[h];
        b.ne[h] = nent;
        nent += n;
        if (ncol_all >= INT32_MAX || nent >= INT32_MAX) {
            st = GS_FAIL(GS_ERR_UNSUPPORTED, "by-column chunks: more than 2^31 entries or columns");
            goto cleanup;
        }
    }
    out->chunk_cols[nch] = (int32_t)ncol_all;
    out->n_cols = ncol_all;
    out->n_entries = nent;
    out->cols = malloc(sizeof(int32_t) * (size_t)(ncol_all + 1));
    out->col_off = malloc(sizeof(int32_t) * (size_t)(ncol_all + 1));
    out->row = malloc(sizeof(uint16_t) * (size_t)(nent + 1));
    out->val = malloc(sizeof(float) * (size_t)(nent + 1));
    if (!out->cols || !out->col_off || !out->row || !out->val) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory (by-column chunks: %lld entries)", (long long)nent);
        goto cleanup;
    }
    out->col_off[ncol_all] = (int32_t)nent; /* a chunk's last column ends where the next's first begins */
    b.pass = 2;
    st = gs_parallel_items(b.ngroups, nth, group_job, &b);
cleanup:
    free(b.nu);
    free(b.ne);
    if (st != GS_OK) gs_colchunks_free(out);
    return st;
}

gs_status gs_colchunks_of(const gs_clustered *cl, int32_t chunk_clusters, const gs_colchunks **out)
{
    gs_clustered *const m = (gs_clustered *)cl; /* bycol is the layout's cache: see cluster.h */
    gs_colchunks *have = atomic_load(&m->bycol);
    *out = NULL;
    if (!have) {
        gs_colchunks *mine = malloc(sizeof *mine);
        if (!mine) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
        const gs_status st = gs_colchunks_build(cl, chunk_clusters, mine);
        if (st != GS_OK) { free(mine); return st; }
        if (atomic_compare_exchange_strong(&m->bycol, &have, mine)) {
            have = mine;
        } else { /* another thread's came first: have is it */
            gs_colchunks_free(mine);
            free(mine);
        }
    }
    if (have->chunk_clusters != chunk_clusters)
        return GS_FAIL(GS_ERR_INTERNAL, "by-column chunks of %d clusters wanted, %d made", chunk_clusters,
                       have->chunk_clusters);
    *out = have;
    return GS_OK;
}

void gs_colchunks_release(gs_clustered *cl)
{
    gs_colchunks *c = atomic_exchange(&cl->bycol, NULL);
    gs_colchunks_free(c);
    free(c);
}
