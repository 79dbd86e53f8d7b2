/* cluster.c — GTSVM Algorithm 2: a single greedy pass over the rows in a seeded random order; each
 * row joins the active cluster whose column union grows least (|S|·|Jx\JS| + |JS\Jx| new stored
 * zeros, ties to the lowest active slot); a full cluster is retired and the next one activated.
 *
 * Speed (the choices are exactly those of the plain algorithm):
 * - membership is stored transposed, one bit per active slot in a per-column mask (ceil(active/64)
 *   words per column), so |Jx ∩ JS| for every slot at once is a sum of the row's column masks: each
 *   mask byte adds a table entry of eight 16-bit counters, and the costs and their argmin are taken
 *   four slots at a time as 32-bit keys cost << sh | slot (wide 64-bit fallback for huge rows);
 * - a zero cost (an empty slot, or a union equal to J_x, the common case for repeated sparsity
 *   patterns) is found first through additive set hashes, and skips the counting;
 * - columns keep their indices when their range is not much larger than the data, and a second
 *   thread finds the columns present (the compact ids) meanwhile; otherwise they are compacted first;
 * - the layout (most of the time for very sparse, high-dimensional data, whose unions are large) is
 *   filled per cluster through a column -> union position map, on up to GS_CLUSTER_THREADS threads,
 *   into huge pages where it is large.
 * The greedy pass itself is sequential, so the result depends on the seed only, never on threads. */
#define _GNU_SOURCE /* sched_getaffinity */
#include "data/cluster.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "data/colchunks.h"
#include "util/log.h"
#include "util/order.h"

#ifndef GS_CLUSTER_THREADS
#define GS_CLUSTER_THREADS 16
#endif
/* segments clustered on threads of their own from this many rows, while their masks and keys take
 * at most GS_PASS_MEM bytes in all */
#define GS_PASS_PAR_MIN (1 << 14)
#define GS_PASS_MEM (512.0 * (1 << 20))
/* fewer stored values than this per extra thread: lay out on the calling thread only */
#define GS_CLUSTER_PAR_MIN (1 << 18)

typedef uint16_t u16x8 __attribute__((vector_size(16)));
typedef int32_t i32x4 __attribute__((vector_size(16)));
typedef uint32_t u32x4 __attribute__((vector_size(16)));

#ifndef GS_AHEAD
#define GS_AHEAD 4 /* rows are visited in random order: prefetch this many rows ahead */
#endif
#define GS_NBUCKET 1024 /* set-hash buckets of the exact-match lookup */

/* The greedy pass's state. Per-slot int32 arrays used by the vector cost are padded to 64*W lanes
 * and stored in lane order: slot 8v+i sits at lane_of(8v+i) = 8v + 4*(i&1) + (i>>1), matching
 * how a vector of eight 16-bit counts splits into its even and odd halves as 32-bit lanes. */
typedef struct greedy {
    int32_t nact, W, space, cluster_size; /* space: column ids are 0..space-1 */
    int sh;            /* key = cost << sh | slot: 64*W <= 1 << sh */
    uint64_t *colmask; /* [space*W]: bit a of column j: j is in slot a's union */
    uint64_t *key;     /* [space] random column keys */
    int32_t *id;       /* [64W] cluster filled by each slot, -1 when unused */
    int32_t *size;     /* [64W] rows so far, lane order */
    int32_t *ncols;    /* [64W] |J_S|, lane order */
    int32_t *pen;      /* [64W] 0 for an active slot, INT32_MAX otherwise, lane order */
    int32_t *lane;     /* [64W] slot number at each lane */
    uint64_t *hash;    /* [64W] sum of key[j] over J_S */
    int32_t **list;    /* [64W] J_S in insertion order */
    int32_t *cap;      /* [64W] */
    uint64_t *empty;   /* [W] active slots with no rows yet */
    uint64_t *bucket;  /* [GS_NBUCKET*W] active slots by hash bucket */
    u16x8 *tab;        /* [256] byte -> its eight bits as 16-bit counts */
    u16x8 *acc;        /* [8W] */
    int32_t *cnt;      /* [64W] counts for the wide path, slot order */
} greedy;

/* A cluster is stored row-wise when its union has more than GS_ELL_RATIO times the columns of
 * its widest row (and more than GS_ELL_MIN columns): gathering the working-set values per value
 * then costs less than streaming the mostly-zero dense block. */
#define GS_ELL_RATIO 8
#define GS_ELL_MIN 64
#define GS_PAD_MAX 16
#define GS_WIDE_COLS 4096

static inline int32_t lane_of(int32_t a) { return (a & ~7) + 4 * (a & 1) + ((a & 7) >> 1); }

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t gs_clustered_stamp(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    const uint64_t ns = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
    return ns ? ns : 1;
}

void gs_clustered_free(gs_clustered *c)
{
    if (!c) return;
    free(c->seg_cl);
    free(c->perm);
    free(c->inv);
    free(c->col_off);
    free(c->cols);
    free(c->vals);
    free(c->ell_w);
    free(c->ell_off);
    free(c->ell_idx);
    free(c->ell_val);
    free(c->norm2);
    free(c->ucol);
    gs_colchunks_release(c);
    memset(c, 0, sizeof *c);
}

/* Renumbers the columns present to 0..m-1 (ascending), so masks and the device's dense
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
        qsort(ucol, (size_t)nnz, sizeof *ucol, gs_cmp_i32);
        for (int64_t k = 0; k < nnz; k++) if (k == 0 || ucol[k] != ucol[m - 1]) ucol[m++] = ucol[k];
        for (int64_t k = 0; k < nnz; k++) {
            const int32_t *f = bsearch(&idx[k], ucol, (size_t)m, sizeof *ucol, gs_cmp_i32);
            cidx[k] = (int32_t)(f - ucol);
        }
    }
    *cidx_out = cidx;
    *ucol_out = ucol;
    *m_out = m;
    return GS_OK;
}

/* acc[8W] = per-slot counts of the row's columns (cols[0..nx), nx <= 65535) held by each slot:
 * 16-bit lanes, vector v covering slots 8v..8v+7. */
static void count_row(const greedy *g, const int32_t *cols, int64_t nx)
{
    const u16x8 *tab = g->tab;
    if (g->W == 1) {
        u16x8 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0};
        for (int64_t k = 0; k < nx; k++) {
            const uint64_t m = g->colmask[cols[k]];
            if (!m) continue;
            a0 += tab[m & 255];
            a1 += tab[(m >> 8) & 255];
            a2 += tab[(m >> 16) & 255];
            a3 += tab[(m >> 24) & 255];
            a4 += tab[(m >> 32) & 255];
            a5 += tab[(m >> 40) & 255];
            a6 += tab[(m >> 48) & 255];
            a7 += tab[m >> 56];
        }
        u16x8 *acc = g->acc;
        acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3;
        acc[4] = a4; acc[5] = a5; acc[6] = a6; acc[7] = a7;
        return;
    }
    const int32_t W = g->W;
    u16x8 *acc = g->acc;
    memset(acc, 0, sizeof *acc * 8 * (size_t)W);
    for (int64_t k = 0; k < nx; k++) {
        const uint64_t *mw = g->colmask + (size_t)cols[k] * (size_t)W;
        for (int32_t w = 0; w < W; w++) {
            const uint64_t m = mw[w];
            if (!m) continue;
            u16x8 *aw = acc + 8 * w;
            for (int j = 0; j < 8; j++) aw[j] += tab[(m >> (8 * j)) & 255];
        }
    }
}

/* The cheapest slot for a row of nx columns whose counts are in g->acc, lowest slot on ties:
 * 32-bit keys cost << sh | slot, minimised four lanes at a time. The caller checked that every
 * key fits below INT32_MAX. */
static int32_t best_fast(const greedy *g, int64_t nx)
{
    const i32x4 nxv = (i32x4){0, 0, 0, 0} + (int32_t)nx;
    i32x4 best = (i32x4){0, 0, 0, 0} + INT32_MAX;
    const u32x4 lo16 = (u32x4){0, 0, 0, 0} + 0xFFFFu;
    for (int32_t v = 0; v < 8 * g->W; v++) {
        const u32x4 x = (u32x4)g->acc[v];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        const i32x4 half[2] = {(i32x4)(x >> 16), (i32x4)(x & lo16)}; /* even, odd slots */
#else
        const i32x4 half[2] = {(i32x4)(x & lo16), (i32x4)(x >> 16)}; /* even, odd slots */
#endif
        for (int h = 0; h < 2; h++) {
            const int32_t base = 8 * v + 4 * h;
            i32x4 sz, nc, pen, ln;
            memcpy(&sz, g->size + base, sizeof sz);
            memcpy(&nc, g->ncols + base, sizeof nc);
            memcpy(&pen, g->pen + base, sizeof pen);
            memcpy(&ln, g->lane + base, sizeof ln);
            const i32x4 in = half[h];
            const i32x4 cost = sz * (nxv - in) + (nc - in);
            const i32x4 k = (cost << g->sh) | ln | pen;
            const i32x4 lt = k < best;
            best = (k & lt) | (best & ~lt);
        }
    }
    int32_t m = best[0];
    for (int i = 1; i < 4; i++) if (best[i] < m) m = best[i];
    return m & ((1 << g->sh) - 1);
}

/* The same choice with 64-bit costs, for rows too long for best_fast. */
static int32_t best_wide(const greedy *g, const int32_t *cols, int64_t nx)
{
    for (int32_t a = 0; a < g->nact; a++) g->cnt[a] = 0;
    for (int64_t k = 0; k < nx; k++) {
        const uint64_t *mw = g->colmask + (size_t)cols[k] * (size_t)g->W;
        for (int32_t w = 0; w < g->W; w++)
            for (uint64_t m = mw[w]; m; m &= m - 1) g->cnt[64 * w + __builtin_ctzll(m)]++;
    }
    int32_t best = -1;
    int64_t best_cost = INT64_MAX;
    for (int32_t a = 0; a < g->nact; a++) {
        const int32_t l = lane_of(a);
        if (g->pen[l]) continue;
        const int64_t in = g->cnt[a];
        const int64_t cost = (int64_t)g->size[l] * (nx - in) + ((int64_t)g->ncols[l] - in);
        if (cost < best_cost) { best_cost = cost; best = a; }
    }
    return best;
}

/* Costs are >= 0, and 0 exactly for an empty slot or one whose union equals J_x: returns the
 * lowest such slot (equal unions found through the set-hash buckets, confirmed bit by bit), or -1. */
static int32_t find_exact(const greedy *g, const int32_t *cols, int64_t nx, uint64_t hx)
{
    const int32_t W = g->W;
    int32_t best = INT32_MAX;
    for (int32_t w = 0; w < W; w++)
        if (g->empty[w]) { best = 64 * w + __builtin_ctzll(g->empty[w]); break; }
    const uint64_t *bk = g->bucket + (size_t)(hx & (GS_NBUCKET - 1)) * (size_t)W;
    for (int32_t w = 0; w < W && 64 * w < best; w++) {
        for (uint64_t m = bk[w]; m; m &= m - 1) {
            const int32_t a = 64 * w + __builtin_ctzll(m);
            if (a >= best) break;
            if (g->hash[a] != hx || g->ncols[lane_of(a)] != nx) continue;
            const uint64_t *am = g->colmask + w;
            const uint64_t bit = 1ull << (a & 63);
            int64_t k = 0;
            while (k < nx && (am[(size_t)cols[k] * (size_t)W] & bit)) k++;
            if (k == nx) return a;
        }
    }
    return best == INT32_MAX ? -1 : best;
}

/* Adds slot a to (on) or removes it from (!on) the bucket of set hash h. */
static void bucket_set(greedy *g, int32_t a, uint64_t h, int on)
{
    uint64_t *w = g->bucket + (size_t)(h & (GS_NBUCKET - 1)) * (size_t)g->W + ((size_t)a >> 6);
    const uint64_t bit = 1ull << (a & 63);
    if (on) *w |= bit;
    else *w &= ~bit;
}

/* The largest column index (0 when none), eight at a time. */
static int32_t max_index(const int32_t *idx, int64_t nnz)
{
    i32x4 m0 = {0, 0, 0, 0}, m1 = m0;
    int64_t k = 0;
    for (; k + 8 <= nnz; k += 8) {
        i32x4 v0, v1;
        memcpy(&v0, idx + k, sizeof v0);
        memcpy(&v1, idx + k + 4, sizeof v1);
        const i32x4 g0 = v0 > m0, g1 = v1 > m1;
        m0 = (v0 & g0) | (m0 & ~g0);
        m1 = (v1 & g1) | (m1 & ~g1);
    }
    int32_t m = 0;
    for (int i = 0; i < 4; i++) {
        if (m0[i] > m) m = m0[i];
        if (m1[i] > m) m = m1[i];
    }
    for (; k < nnz; k++) if (idx[k] > m) m = idx[k];
    return m;
}

/* The visiting order: Fisher–Yates with a seeded generator (on a thread of its own while the
 * columns are scanned). */
typedef struct shuffle_job {
    int32_t *order;
    int32_t n;
    uint64_t seed;
    int32_t base; /* the rows are base .. base+n-1 */
} shuffle_job;

static void *shuffle_run(void *arg)
{
    shuffle_job *j = arg;
    uint64_t rs = j->seed;
    for (int32_t i = 0; i < j->n; i++) j->order[i] = j->base + i;
    for (int32_t i = j->n - 1; i > 0; i--) {
        int32_t k = (int32_t)(splitmix64(&rs) % (uint64_t)(i + 1));
        int32_t t = j->order[i]; j->order[i] = j->order[k]; j->order[k] = t;
    }
    return NULL;
}

/* CPUs this thread may run on (its affinity mask, so taskset and cpusets count). */
static long cpus_usable(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

/* Prefetches the first cache lines of row r's column ids (and values when val is set). */
/* (always_inline: as a function of loads and prefetches alone, GCC deems it pure and drops calls) */
__attribute__((always_inline)) static inline void prefetch_row(const int64_t *row_ptr, const int32_t *idx,
                                                               const float *val, int32_t r)
{
    const int64_t b = row_ptr[r], e = row_ptr[r + 1];
    const int64_t lim = e - b < 128 ? e : b + 128;
    for (int64_t k = b; k < lim; k += 16) {
        __builtin_prefetch(idx + k);
        if (val) __builtin_prefetch(val + k);
    }
}

/* Writes list[0..m) sorted to dst; scratch is a zeroed bitmap of space bits (left zeroed). */
static void sorted_union(const int32_t *list, int32_t m, int32_t space, uint64_t *scratch, int32_t *dst)
{
    const size_t words = (size_t)space / 64 + 1;
    if (m == 0) return;
    if ((int64_t)words > 8 * (int64_t)m) {
        memcpy(dst, list, sizeof *dst * (size_t)m);
        qsort(dst, (size_t)m, sizeof *dst, gs_cmp_i32);
        return;
    }
    for (int32_t j = 0; j < m; j++) scratch[list[j] >> 6] |= 1ull << (list[j] & 63);
    int32_t q = 0;
    for (size_t w = 0; w < words && q < m; w++) {
        uint64_t x = scratch[w];
        scratch[w] = 0;
        while (x) {
            dst[q++] = (int32_t)(w * 64 + (size_t)__builtin_ctzll(x));
            x &= x - 1;
        }
    }
}

/* The columns present, for direct mode (ids < space used as they are): map[j] = compact id of
 * column j (or -1), ucol[0..m) the columns present. Runs beside the greedy pass. */
typedef struct present_job {
    const int32_t *idx;
    int64_t nnz;
    int32_t space;
    int32_t *map, *ucol;
    int32_t m;
} present_job;

static void *present_run(void *arg)
{
    present_job *j = arg;
    memset(j->map, 0xff, sizeof *j->map * (size_t)j->space);
    for (int64_t k = 0; k < j->nnz; k++) j->map[j->idx[k]] = 0;
    int32_t m = 0;
    for (int32_t c = 0; c < j->space; c++)
        if (j->map[c] == 0) { j->ucol[m] = c; j->map[c] = m++; }
    j->m = m;
    return NULL;
}

typedef struct layout_job {
    const int64_t *row_ptr;
    const int32_t *idx;    /* column ids of the greedy pass */
    const float *val;
    gs_clustered *out;
    const int32_t *fill;
    const int32_t *pool;   /* unions in the same ids: cluster c's at pool + ustart[c] */
    const int64_t *ustart;
    int32_t c0, c1;     /* clusters [c0, c1) */
    int zero;           /* vals is not zeroed yet: clear each cluster's block before filling it */
    int32_t *pos;       /* [space] scratch */
    const int32_t *map; /* greedy-pass id -> compact id, or NULL when they are the same */
} layout_job;

/* Values and norms of clusters [c0, c1): each row merges into its cluster's union via pos. */
static void *layout_run(void *arg)
{
    layout_job *j = arg;
    gs_clustered *out = j->out;
    const int32_t cs = out->cluster_size;
    for (int32_t c = j->c0; c < j->c1; c++) {
        if (out->ell_w[c] > 0) { /* row-wise: each row's values in its own run, or its ELL slots */
            const int64_t st = out->wide ? 1 : cs; /* entry e of row t at base(t) + e * st */
            if (!out->wide) {
                /* padding: column -1 (every byte 0xFF), so a row's gather stops at its end */
                memset(out->ell_idx + out->ell_off[c], 0xFF, sizeof *out->ell_idx * (size_t)out->ell_w[c] * (size_t)cs);
                memset(out->ell_val + out->ell_off[c], 0, sizeof *out->ell_val * (size_t)out->ell_w[c] * (size_t)cs);
            }
            for (int32_t t = 0; t < j->fill[c]; t++) {
                const int32_t p = c * cs + t, r = out->perm[p];
                const int64_t b0 = out->wide ? out->ell_off[p] : out->ell_off[c] + t;
                double s2 = 0;
                int64_t e = 0;
                for (int64_t k = j->row_ptr[r]; k < j->row_ptr[r + 1]; k++, e++) {
                    out->ell_idx[b0 + e * st] = j->map ? j->map[j->idx[k]] : j->idx[k];
                    out->ell_val[b0 + e * st] = j->val[k];
                    s2 += (double)j->val[k] * (double)j->val[k];
                }
                out->norm2[p] = s2;
            }
            continue;
        }
        const int64_t off = out->col_off[c], m = out->col_off[c + 1] - off;
        const int32_t *u = j->pool + j->ustart[c];
        for (int64_t q = 0; q < m; q++) j->pos[u[q]] = (int32_t)q;
        float *v = out->vals + off * cs;
        if (j->zero) memset(v, 0, sizeof *v * (size_t)(m * cs));
        for (int32_t t = 0; t < j->fill[c]; t++) {
            const int32_t p = c * cs + t, r = out->perm[p];
            if (t + 2 * GS_AHEAD < j->fill[c]) __builtin_prefetch(j->row_ptr + out->perm[p + 2 * GS_AHEAD]);
            if (t + GS_AHEAD < j->fill[c]) prefetch_row(j->row_ptr, j->idx, j->val, out->perm[p + GS_AHEAD]);
            double s2 = 0;
            for (int64_t k = j->row_ptr[r]; k < j->row_ptr[r + 1]; k++) {
                v[(int64_t)j->pos[j->idx[k]] * cs + t] = j->val[k];
                s2 += (double)j->val[k] * (double)j->val[k];
            }
            out->norm2[p] = s2;
        }
    }
    return NULL;
}

/* Frees the greedy state (fields may be NULL). */
static void greedy_free(greedy *g)
{
    if (g->list)
        for (int32_t a = 0; a < g->nact; a++) free(g->list[a]);
    free(g->colmask); free(g->key); free(g->id); free(g->size); free(g->ncols); free(g->pen);
    free(g->lane); free(g->hash); free(g->list); free(g->cap); free(g->empty); free(g->bucket);
    free(g->tab); free(g->cnt);
    memset(g, 0, sizeof *g);
}

static void *alloc16(size_t bytes)
{
    bytes = (bytes + 15) & ~(size_t)15;
    void *p = aligned_alloc(16, bytes ? bytes : 16);
    if (p) memset(p, 0, bytes ? bytes : 16);
    return p;
}

static int greedy_init(greedy *g, int32_t nact, int32_t space, int32_t cluster_size)
{
    memset(g, 0, sizeof *g);
    const int32_t W = nact / 64 + (nact % 64 != 0) + (nact == 0);
    const size_t L = 64 * (size_t)W;
    g->nact = nact;
    g->W = W;
    g->space = space;
    g->cluster_size = cluster_size;
    while (((size_t)1 << g->sh) < L) g->sh++;
    g->colmask = calloc(((size_t)space + 1) * (size_t)W, sizeof *g->colmask);
    g->key = malloc(sizeof *g->key * ((size_t)space + 1));
    g->id = malloc(sizeof *g->id * L);
    g->size = alloc16(sizeof *g->size * L);
    g->ncols = alloc16(sizeof *g->ncols * L);
    g->pen = alloc16(sizeof *g->pen * L);
    g->lane = alloc16(sizeof *g->lane * L);
    g->hash = calloc(L, sizeof *g->hash);
    g->list = calloc(L, sizeof *g->list);
    g->cap = calloc(L, sizeof *g->cap);
    g->empty = calloc((size_t)W, sizeof *g->empty);
    g->bucket = calloc((size_t)GS_NBUCKET * (size_t)W, sizeof *g->bucket);
    g->tab = alloc16(sizeof *g->tab * (256 + 8 * (size_t)W));
    g->cnt = malloc(sizeof *g->cnt * L);
    if (!g->colmask || !g->key || !g->id || !g->size || !g->ncols || !g->pen || !g->lane || !g->hash ||
        !g->list || !g->cap || !g->empty || !g->bucket || !g->tab || !g->cnt)
        return 0;
    g->acc = g->tab + 256;
    for (int b = 0; b < 256; b++)
        for (int i = 0; i < 8; i++) g->tab[b][i] = (uint16_t)((b >> i) & 1);
    uint64_t ks = 0x5EED5EED5EED5EEDull;
    for (int32_t j = 0; j < space; j++) g->key[j] = splitmix64(&ks);
    for (int32_t a = 0; a < (int32_t)L; a++) {
        const int32_t l = lane_of(a);
        g->lane[l] = a;
        g->pen[l] = a < nact ? 0 : INT32_MAX;
        if (a < nact) {
            g->id[a] = a;
            g->empty[a >> 6] |= 1ull << (a & 63);
            bucket_set(g, a, 0, 1);
        }
    }
    return 1;
}

gs_status gs_cluster_build(const int64_t *row_ptr, const int32_t *idx, const float *val, int32_t n,
                           int32_t cluster_size, int32_t active, uint64_t seed, gs_clustered *out)
{
    const int32_t seg[2] = {0, n};
    return gs_cluster_build_seg(row_ptr, idx, val, n, 1, seg, cluster_size, active, seed, out);
}

/* One thread's greedy pass: the segments it takes, one at a time, and their retired unions. */
typedef struct pass {
    struct build *b;
    greedy g;              /* the segment being clustered */
    uint64_t *scratch;     /* zeroed bitmap of space bits (sorted_union) */
    int32_t *pool;         /* this pass's retired unions, in retirement order; a cluster's ustart */
    int64_t pool_len, pool_cap; /* is into this pool until gs_cluster_build_seg joins them */
    gs_status st;
} pass;

/* What the steps of gs_cluster_build_seg share. */
typedef struct build {
    /* the greedy passes: segments are dealt out over up to GS_CLUSTER_THREADS of them (seg_pass and
     * seg_at: each segment's pass and where its unions start in that pass's pool) */
    pass *passes;
    int32_t npass;
    _Atomic int32_t next_seg;
    int32_t *seg_pass;
    int64_t *seg_at;
    const int32_t *seg_cl;   /* out->seg_cl: each segment's first cluster */
    const int64_t *row_ptr;
    const int32_t *idx;    /* column ids of the greedy pass: the input's, or cidx (compacted) */
    const float *val;
    int32_t n, nseg, cluster_size, active;
    int wide_as;           /* 0 / 1: the wide form as the caller says; -1: is_wide decides */
    const int32_t *seg;
    uint64_t seed;
    long ncpu;
    int32_t *order;        /* [n] the visiting order, shuffled per segment */
    shuffle_job sj;        /* the shuffle of a single segment, maybe on thread sth */
    pthread_t sth;
    int sstarted;
    int direct;            /* column ids used as they are (present_job finds the compact ids) */
    int32_t max_col, space, n_ucols; /* space: greedy-pass ids are 0..space-1 */
    int32_t *map, *cidx;   /* direct: id -> compact id; otherwise the compacted ids */
    present_job pj;
    pthread_t pth;
    int pstarted;
    int32_t total;         /* clusters */
    int32_t *assign;       /* [n] each row's cluster */
    int32_t *fill;         /* [total] rows per cluster */
    int32_t *pool;         /* retired unions, sorted, segment by segment in retirement order: */
    int64_t *usize, *ustart; /* cluster c's is pool[ustart[c] .. ustart[c] + usize[c]) */
    int64_t *nnzc;         /* [total] stored values per cluster */
    int big;               /* vals is a fresh (zeroed) mapping */
    int32_t *pos;          /* layout threads' scratch */
} build;

/* Starts the visiting order: one segment is shuffled on a thread of its own (joined by
 * alloc_pass), several in turn, each in its own seeded order. */
static gs_status start_order(build *b)
{
    b->order = malloc(sizeof *b->order * (size_t)(b->n ? b->n : 1));
    if (!b->order) return GS_FAIL(GS_ERR_NOMEM, "out of memory clustering %d rows", b->n);
    b->sj = (shuffle_job){b->order, b->n, b->seed, 0};
    if (b->nseg == 1) {
        if (b->ncpu > 1 && b->n >= (1 << 14)) b->sstarted = pthread_create(&b->sth, NULL, shuffle_run, &b->sj) == 0;
        if (!b->sstarted) shuffle_run(&b->sj);
    } else {
        for (int32_t s = 0; s < b->nseg; s++) {
            shuffle_job js = {b->order + b->seg[s], b->seg[s + 1] - b->seg[s], b->seed + (uint64_t)s, b->seg[s]};
            shuffle_run(&js);
        }
    }
    return GS_OK;
}

/* Direct mode (column range not much larger than the data): the greedy pass and the layout use the
 * column indices as they are, while a second thread finds the columns present and their compact
 * ids. Otherwise the columns are compacted first. Both give the same clusters (the costs do not
 * depend on the labels). */
static gs_status setup_columns(build *b, gs_clustered *out)
{
    const int64_t nnz_all = b->n ? b->row_ptr[b->n] : 0;
    b->max_col = max_index(b->idx, nnz_all);
    b->direct = b->max_col < (1 << 24) && (int64_t)b->max_col < 4 * nnz_all + 65536;
    if (!b->direct) {
        const gs_status st = compact_columns(b->idx, nnz_all, b->max_col, &b->cidx, &out->ucol, &b->n_ucols);
        if (st != GS_OK) return st;
        b->idx = b->cidx; /* from here on, idx holds compact ids */
        b->space = b->n_ucols;
        return GS_OK;
    }
    b->space = b->max_col + 1;
    b->map = malloc(sizeof *b->map * (size_t)b->space);
    out->ucol = malloc(sizeof *out->ucol * (size_t)b->space);
    if (!b->map || !out->ucol) return GS_FAIL(GS_ERR_NOMEM, "out of memory clustering %d rows", b->n);
    b->pj = (present_job){b->idx, nnz_all, b->space, b->map, out->ucol, 0};
    if (b->ncpu > 1 && nnz_all >= (1 << 16)) b->pstarted = pthread_create(&b->pth, NULL, present_run, &b->pj) == 0;
    if (!b->pstarted) present_run(&b->pj);
    return GS_OK;
}

/* The greedy pass's arrays; waits for the shuffle. */
static gs_status alloc_pass(build *b, gs_clustered *out)
{
    b->total = 0;
    for (int32_t s = 0; s < b->nseg; s++)
        b->total += (int32_t)((b->seg[s + 1] - b->seg[s] + (int64_t)b->cluster_size - 1) / b->cluster_size);
    const size_t total = (size_t)b->total;
    b->assign = malloc(sizeof *b->assign * (size_t)(b->n ? b->n : 1));
    b->fill = calloc(total ? total : 1, sizeof *b->fill);
    b->usize = calloc(total + 1, sizeof *b->usize);
    b->ustart = calloc(total + 1, sizeof *b->ustart);
    out->col_off = calloc(total + 1, sizeof *out->col_off);
    out->n_seg = b->nseg;
    out->seg_cl = calloc((size_t)b->nseg + 1, sizeof *out->seg_cl);
    b->seg_pass = calloc((size_t)b->nseg, sizeof *b->seg_pass);
    b->seg_at = calloc((size_t)b->nseg, sizeof *b->seg_at);
    if (!b->assign || !b->fill || !b->usize || !b->ustart || !out->col_off || !out->seg_cl || !b->seg_pass ||
        !b->seg_at)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory clustering %d rows", b->n);
    if (b->sstarted) {
        pthread_join(b->sth, NULL);
        b->sstarted = 0;
    }
    return GS_OK;
}

/* The slot row cols[0..nx) joins: the lowest one of zero cost (found through the set hashes),
 * else the cheapest. *same: the slot's union already is the row's columns. */
static int32_t choose_slot(const greedy *g, const int32_t *cols, int64_t nx, uint64_t hx, int *same)
{
    int32_t best = find_exact(g, cols, nx, hx);
    /* a nonempty slot at zero cost already holds exactly J_x: nothing to add */
    *same = best >= 0 && g->size[lane_of(best)] > 0;
    if (best >= 0) return best;
    if (nx <= 65535 && ((((int64_t)g->cluster_size * nx + g->space + 1) << g->sh) < INT32_MAX)) {
        count_row(g, cols, nx);
        return best_fast(g, nx);
    }
    return best_wide(g, cols, nx);
}

/* Adds the row's columns that slot `best` lacks to its union (list, masks, set hash). */
static gs_status add_to_union(greedy *g, int32_t best, const int32_t *cols, int64_t nx)
{
    const int32_t bl = lane_of(best), W = g->W;
    uint64_t *cm = g->colmask + (best >> 6);
    const uint64_t bit = 1ull << (best & 63);
    int32_t nc = g->ncols[bl];
    if (nc + nx > g->cap[best] && g->cap[best] < g->space) {
        int64_t ncap = g->cap[best] ? 2 * (int64_t)g->cap[best] : 64;
        while (ncap < nc + nx) ncap *= 2;
        if (ncap > g->space) ncap = g->space;
        int32_t *nl = realloc(g->list[best], sizeof *nl * (size_t)(ncap ? ncap : 1));
        if (!nl) return GS_FAIL(GS_ERR_NOMEM, "out of memory clustering");
        g->list[best] = nl;
        g->cap[best] = (int32_t)ncap;
    }
    int32_t *list = g->list[best];
    uint64_t h = g->hash[best];
    for (int64_t k = 0; k < nx; k++) {
        uint64_t *w = cm + (size_t)cols[k] * (size_t)W;
        if (!(*w & bit)) { *w |= bit; list[nc++] = cols[k]; h += g->key[cols[k]]; }
    }
    if (h != g->hash[best]) {
        bucket_set(g, best, g->hash[best], 0);
        bucket_set(g, best, h, 1);
        g->hash[best] = h;
    }
    g->ncols[bl] = nc;
    return GS_OK;
}

/* Retires slot a's cluster: its sorted union goes to the pool, and the slot takes the next cluster
 * id (*next_id below end_id, and not at the segment's end) or is closed. */
static gs_status retire_slot(pass *ps, int32_t a, int last, int32_t *next_id, int32_t end_id)
{
    build *b = ps->b;
    greedy *g = &ps->g;
    const int32_t al = lane_of(a), m = g->ncols[al];
    if (ps->pool_len + m > ps->pool_cap) {
        int64_t ncap = ps->pool_cap ? 2 * ps->pool_cap : 4096;
        while (ncap < ps->pool_len + m) ncap *= 2;
        int32_t *np = realloc(ps->pool, sizeof *np * (size_t)ncap);
        if (!np) return GS_FAIL(GS_ERR_NOMEM, "out of memory clustering");
        ps->pool = np;
        ps->pool_cap = ncap;
    }
    sorted_union(g->list[a], m, g->space, ps->scratch, ps->pool + ps->pool_len);
    b->ustart[g->id[a]] = ps->pool_len;
    b->usize[g->id[a]] = m;
    ps->pool_len += m;
    uint64_t *sm = g->colmask + (a >> 6);
    const uint64_t sbit = ~(1ull << (a & 63));
    for (int32_t j = 0; j < m; j++) sm[(size_t)g->list[a][j] * (size_t)g->W] &= sbit;
    g->ncols[al] = 0;
    g->size[al] = 0;
    if (*next_id < end_id && !last) {
        g->id[a] = (*next_id)++;
        bucket_set(g, a, g->hash[a], 0);
        bucket_set(g, a, 0, 1);
        g->empty[a >> 6] |= ~sbit;
    } else {
        g->id[a] = -1;
        g->pen[al] = INT32_MAX;
        bucket_set(g, a, g->hash[a], 0);
    }
    g->hash[a] = 0;
    return GS_OK;
}

/* The greedy pass over segment sg's rows, whose clusters are cl0, cl0 + 1, ... (Algorithm 2). */
static gs_status cluster_segment(pass *ps, int32_t sg, int32_t cl0)
{
    gs_status st = GS_OK;
    build *b = ps->b;
    const int32_t r0 = b->seg[sg], r1 = b->seg[sg + 1], cs = b->cluster_size;
    const int32_t total_s = (int32_t)((r1 - r0 + (int64_t)cs - 1) / cs);
    const int32_t nact = b->active < total_s ? b->active : total_s;
    greedy *g = &ps->g;
    greedy_free(g);
    if (!greedy_init(g, nact, b->space, cs)) return GS_FAIL(GS_ERR_NOMEM, "out of memory clustering %d rows", b->n);
    for (int32_t a = 0; a < nact; a++) g->id[a] = cl0 + a;
    int32_t next_id = cl0 + nact;
    const int32_t end_id = cl0 + total_s;
    const int64_t *row_ptr = b->row_ptr;
    for (int32_t oi = r0; oi < r1; oi++) {
        const int32_t r = b->order[oi];
        const int64_t nx = row_ptr[r + 1] - row_ptr[r];
        const int32_t *cols = b->idx + row_ptr[r];
        /* rows come in random order: fetch ahead (row_ptr of a later row, columns of the next) */
        if (oi + 2 * GS_AHEAD < r1) __builtin_prefetch(row_ptr + b->order[oi + 2 * GS_AHEAD]);
        if (oi + GS_AHEAD < r1) prefetch_row(row_ptr, b->idx, NULL, b->order[oi + GS_AHEAD]);
        uint64_t hx = 0;
        for (int64_t k = 0; k < nx; k++) hx += g->key[cols[k]];
        int same = 0;
        const int32_t best = choose_slot(g, cols, nx, hx, &same);
        if (!same && (st = add_to_union(g, best, cols, nx))) return st;
        g->empty[best >> 6] &= ~(1ull << (best & 63));
        b->assign[r] = g->id[best];
        g->size[lane_of(best)]++;
        const int last = oi == r1 - 1;
        for (int32_t a = last ? 0 : best; a < (last ? nact : best + 1); a++) {
            /* retire full clusters; at the end every remaining one */
            if (g->id[a] < 0 || !(g->size[lane_of(a)] == cs || last)) continue;
            if ((st = retire_slot(ps, a, last, &next_id, end_id))) return st;
        }
    }
    return GS_OK;
}

/* Wide data: more than GS_WIDE_COLS distinct columns, and a dense block of 256 working-set vectors
 * over them would hold more floats than the data has values (text, or a few very wide rows), all
 * values finite. Its row-wise clusters keep only each row's entries (no ELL padding), and the
 * solver reads working-set vectors from the layout instead of a dense block (solver.c). */
static int is_wide(const build *b, const gs_clustered *out)
{
    const int64_t nnz = b->n ? b->row_ptr[b->n] : 0;
    if (out->n_ucols <= GS_WIDE_COLS || ((int64_t)out->n_ucols + 1) * 256 <= nnz) return 0;
    for (int64_t e = 0; e < nnz; e++)
        if (!isfinite(b->val[e])) return 0;
    return 1;
}

/* Row-wise entries stored before cluster c (fill_layout's work split). */
static int64_t ell_before(const gs_clustered *out, int32_t c)
{
    return out->wide ? out->ell_off[(int64_t)c * out->cluster_size] : out->ell_off[c];
}

/* Which clusters are stored row-wise (union over GS_ELL_RATIO times the widest row, or a dense
 * block over GS_PAD_MAX times the cluster's values), the offsets of
 * both forms, and the layout's arrays. */
static gs_status plan_layout(build *b, gs_clustered *out)
{
    const int32_t nc = b->total, cs = b->cluster_size;
    out->ell_w = calloc((size_t)(nc ? nc : 1), sizeof *out->ell_w);
    out->wide = b->wide_as >= 0 ? b->wide_as : is_wide(b, out);
    out->ell_off = calloc((size_t)(out->wide ? out->n_pos : nc) + 1, sizeof *out->ell_off);
    b->nnzc = calloc((size_t)nc + 1, sizeof *b->nnzc);
    if (!out->ell_w || !out->ell_off || !b->nnzc) return GS_FAIL(GS_ERR_NOMEM, "out of memory for the clustered layout");
    for (int32_t r = 0; r < b->n; r++) {
        const int32_t w = (int32_t)(b->row_ptr[r + 1] - b->row_ptr[r]);
        if (w > out->ell_w[b->assign[r]]) out->ell_w[b->assign[r]] = w;
        b->nnzc[b->assign[r]] += w;
    }
    int64_t ncols_total = 0, ell_total = 0;
    out->n_ell = 0;
    for (int32_t c = 0; c < nc; c++) {
        /* row-wise where the dense block would hold over GS_PAD_MAX times the cluster's values and
         * the row-wise form is smaller (rows much wider than others, or a cluster with few rows: two
         * rows of 1M values gave a 1 GB block); wide data's row-wise form is the values themselves */
        const int64_t dense_v = b->usize[c] * (int64_t)cs;
        const int64_t row_v = out->wide ? 2 * b->nnzc[c] : 2 * (int64_t)out->ell_w[c] * cs;
        const int pad = dense_v > GS_PAD_MAX * b->nnzc[c] && row_v < dense_v;
        if (!pad && (b->usize[c] <= GS_ELL_MIN || b->usize[c] <= (int64_t)GS_ELL_RATIO * out->ell_w[c])) out->ell_w[c] = 0;
        else out->n_ell++;
        if (!out->wide) out->ell_off[c] = ell_total;
        ell_total += !out->ell_w[c] ? 0 : out->wide ? b->nnzc[c] : (int64_t)out->ell_w[c] * cs;
        out->col_off[c] = ncols_total;
        if (!out->ell_w[c]) ncols_total += b->usize[c];
    }
    out->col_off[nc] = ncols_total;
    if (!out->wide) out->ell_off[nc] = ell_total;
    out->ell_nnz = ell_total;
    out->ell_idx = malloc(sizeof *out->ell_idx * (size_t)(ell_total ? ell_total : 1));
    out->ell_val = malloc(sizeof *out->ell_val * (size_t)(ell_total ? ell_total : 1));
    out->cols = malloc(sizeof *out->cols * (size_t)(ncols_total ? ncols_total : 1));
    /* A large block is a fresh mapping from calloc (zero pages, touched first by the layout); a
     * smaller one may be recycled heap that calloc would clear in one cold pass, so it is cleared
     * cluster by cluster instead, just before the cluster is filled. */
    const size_t vbytes = (size_t)(ncols_total ? ncols_total : 1) * (size_t)cs * sizeof *out->vals;
    b->big = vbytes >= ((size_t)64 << 20);
    out->vals = b->big ? calloc(vbytes, 1) : malloc(vbytes);
    out->perm = malloc(sizeof *out->perm * (size_t)(out->n_pos ? out->n_pos : 1));
    out->inv = malloc(sizeof *out->inv * (size_t)(b->n ? b->n : 1));
    out->norm2 = calloc((size_t)(out->n_pos ? out->n_pos : 1), sizeof *out->norm2);
    if (!out->ell_idx || !out->ell_val || !out->cols || !out->vals || !out->perm || !out->inv || !out->norm2)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for the clustered layout (%lld columns x %d rows)",
                       (long long)ncols_total, cs);
#ifdef MADV_HUGEPAGE
    /* a large calloc is a fresh, untouched mapping: ask for huge pages before the layout touches it
     * (halves the page-fault cost where THP is in madvise mode) */
    const uintptr_t hp = (uintptr_t)2 << 20;
    const uintptr_t lo = ((uintptr_t)out->vals + hp - 1) & ~(hp - 1);
    const uintptr_t hi = ((uintptr_t)(out->vals + ncols_total * cs)) & ~(hp - 1);
    if (b->big && hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
    return GS_OK;
}

/* Fills the layout: the dense clusters' unions in compact ids, the permutation (clusters in id
 * order, a cluster's rows in insertion order), then values and norms on up to GS_CLUSTER_THREADS
 * threads, which split the clusters by stored values (their memory is most of the work). */
static gs_status fill_layout(build *b, gs_clustered *out)
{
    const int32_t nc = b->total, cs = b->cluster_size;
    for (int32_t c = 0; c < nc; c++) {
        const int64_t m = out->col_off[c + 1] - out->col_off[c];
        int32_t *dst = out->cols + out->col_off[c];
        const int32_t *src = b->pool + b->ustart[c];
        if (out->ell_w[c]) continue;
        if (b->direct)
            for (int64_t q = 0; q < m; q++) dst[q] = b->map[src[q]];
        else if (m)
            memcpy(dst, src, sizeof *dst * (size_t)m);
    }
    for (int32_t p = 0; p < out->n_pos; p++) out->perm[p] = -1;
    for (int32_t oi = 0; oi < b->n; oi++) {
        const int32_t r = b->order[oi], c = b->assign[r];
        const int32_t p = c * cs + b->fill[c]++;
        out->perm[p] = r;
        out->inv[r] = p;
    }
    int64_t run = 0; /* wide: row-wise positions' runs, in position order (padding and dense rows: empty) */
    for (int32_t p = 0; p < out->n_pos && out->wide; p++) {
        out->ell_off[p] = run;
        const int32_t r = out->perm[p];
        if (r >= 0 && out->ell_w[p / cs]) run += b->row_ptr[r + 1] - b->row_ptr[r];
    }
    if (out->wide) out->ell_off[out->n_pos] = run;
    const int64_t work = out->col_off[nc] * cs + out->ell_nnz;
    int nt = b->ncpu > 1 ? (int)(b->ncpu < GS_CLUSTER_THREADS ? b->ncpu : GS_CLUSTER_THREADS) : 1;
    while (nt > 1 && work / nt < GS_CLUSTER_PAR_MIN) nt--;
    layout_job jobs[GS_CLUSTER_THREADS];
    pthread_t th[GS_CLUSTER_THREADS];
    int started[GS_CLUSTER_THREADS] = {0};
    b->pos = malloc(sizeof *b->pos * (size_t)(b->space ? b->space : 1) * (size_t)nt);
    if (!b->pos) return GS_FAIL(GS_ERR_NOMEM, "out of memory for the clustered layout");
    int32_t c = 0;
    for (int i = 0; i < nt; i++) {
        const int64_t goal = work * (i + 1) / nt;
        const int32_t c0 = c;
        while (c < nc && (i == nt - 1 || c == c0 || out->col_off[c + 1] * cs + ell_before(out, c + 1) <= goal)) c++;
        jobs[i] = (layout_job){b->row_ptr, b->idx, b->val, out, b->fill, b->pool, b->ustart, c0, c, !b->big,
                               b->pos + (size_t)i * (size_t)b->space, b->direct ? b->map : NULL};
    }
    for (int i = 1; i < nt; i++) started[i] = pthread_create(&th[i], NULL, layout_run, &jobs[i]) == 0;
    layout_run(&jobs[0]);
    for (int i = 1; i < nt; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        else layout_run(&jobs[i]);
    }
    return GS_OK;
}

/* A pass's thread: segments from the shared counter until none is left or one fails. */
static void *pass_run(void *arg)
{
    pass *ps = arg;
    build *b = ps->b;
    for (;;) {
        const int32_t sg = atomic_fetch_add(&b->next_seg, 1);
        if (sg >= b->nseg) break;
        b->seg_pass[sg] = (int32_t)(ps - b->passes);
        b->seg_at[sg] = ps->pool_len;
        if (b->seg[sg + 1] > b->seg[sg] && (ps->st = cluster_segment(ps, sg, b->seg_cl[sg]))) {
            atomic_store(&b->next_seg, b->nseg); /* the others stop after their segment */
            break;
        }
    }
    return NULL;
}

/* The greedy passes over every segment: each segment's clusters depend only on its rows and its
 * seeded order, so segments may run on threads of their own (up to GS_CLUSTER_THREADS, each with
 * its own masks: while their memory stays under GS_PASS_MEM) and give the same clusters. Their
 * unions are then joined into one pool in segment order, as one pass would have left them. */
static gs_status run_passes(build *b, const gs_clustered *out)
{
    b->seg_cl = out->seg_cl;
    const int32_t W = b->active / 64 + 2;
    const double per = ((double)b->space + 1) * (8.0 * W + 8.0) + 4096.0 * 8;
    int64_t np = b->ncpu < GS_CLUSTER_THREADS ? b->ncpu : GS_CLUSTER_THREADS;
    if (np > b->nseg) np = b->nseg;
    if (np > 1 && per * np > GS_PASS_MEM) np = (int64_t)(GS_PASS_MEM / per);
    if (b->n < GS_PASS_PAR_MIN || np < 1) np = 1;
    b->passes = calloc((size_t)np, sizeof *b->passes);
    if (!b->passes) return GS_FAIL(GS_ERR_NOMEM, "out of memory clustering %d rows", b->n);
    b->npass = (int32_t)np;
    const size_t words = (size_t)b->space / 64 + 1;
    for (int32_t i = 0; i < b->npass; i++) {
        pass *ps = &b->passes[i];
        ps->b = b;
        ps->scratch = calloc(words, sizeof *ps->scratch);
        ps->pool_cap = 4096;
        ps->pool = malloc(sizeof *ps->pool * (size_t)ps->pool_cap);
        if (!ps->scratch || !ps->pool) return GS_FAIL(GS_ERR_NOMEM, "out of memory clustering %d rows", b->n);
    }
    atomic_store(&b->next_seg, 0);
    pthread_t th[GS_CLUSTER_THREADS];
    int started[GS_CLUSTER_THREADS] = {0};
    for (int32_t i = 1; i < b->npass; i++) started[i] = pthread_create(&th[i], NULL, pass_run, &b->passes[i]) == 0;
    pass_run(&b->passes[0]);
    for (int32_t i = 1; i < b->npass; i++)
        if (started[i]) pthread_join(th[i], NULL);
    for (int32_t i = 0; i < b->npass; i++)
        if (b->passes[i].st != GS_OK) return b->passes[i].st;
    if (b->npass == 1) { /* one pass went through the segments in order: its pool is the pool */
        b->pool = b->passes[0].pool;
        b->passes[0].pool = NULL;
        return GS_OK;
    }
    /* join the pools in segment order: a segment's unions are one run of its pass's pool */
    int64_t len = 0;
    for (int32_t i = 0; i < b->npass; i++) len += b->passes[i].pool_len;
    b->pool = malloc(sizeof *b->pool * (size_t)(len ? len : 1));
    if (!b->pool) return GS_FAIL(GS_ERR_NOMEM, "out of memory clustering %d rows", b->n);
    int64_t at = 0;
    for (int32_t sg = 0; sg < b->nseg; sg++) {
        const pass *ps = &b->passes[b->seg_pass[sg]];
        int64_t m = 0;
        for (int32_t c = out->seg_cl[sg]; c < out->seg_cl[sg + 1]; c++) {
            b->ustart[c] += at - b->seg_at[sg];
            m += b->usize[c];
        }
        if (m) memcpy(b->pool + at, ps->pool + b->seg_at[sg], sizeof *b->pool * (size_t)m);
        at += m;
    }
    return GS_OK;
}

/* Joins the helper threads still running and frees the steps' arrays. */
static void build_free(build *b)
{
    if (b->sstarted) pthread_join(b->sth, NULL);
    if (b->pstarted) pthread_join(b->pth, NULL);
    for (int32_t i = 0; b->passes && i < b->npass; i++) {
        greedy_free(&b->passes[i].g);
        free(b->passes[i].scratch);
        free(b->passes[i].pool);
    }
    free(b->passes);
    free(b->order); free(b->assign); free(b->fill); free(b->pool); free(b->usize);
    free(b->ustart); free(b->nnzc); free(b->pos); free(b->cidx); free(b->map); free(b->seg_pass);
    free(b->seg_at);
    memset(b, 0, sizeof *b);
}

gs_status gs_cluster_build_seg(const int64_t *row_ptr, const int32_t *idx, const float *val, int32_t n,
                               int32_t nseg, const int32_t *seg, int32_t cluster_size, int32_t active,
                               uint64_t seed, gs_clustered *out)
{
    return gs_cluster_build_seg_wide(row_ptr, idx, val, n, nseg, seg, cluster_size, active, seed, -1, out);
}

gs_status gs_cluster_build_seg_wide(const int64_t *row_ptr, const int32_t *idx, const float *val, int32_t n,
                                    int32_t nseg, const int32_t *seg, int32_t cluster_size, int32_t active,
                                    uint64_t seed, int wide, gs_clustered *out)
{
    gs_status st = GS_OK;
    const double t0 = gs_now();
    memset(out, 0, sizeof *out);
    if (n < 0 || cluster_size <= 0 || active <= 0 || (n > 0 && row_ptr[0] != 0) || nseg < 1 || seg[0] != 0 ||
        seg[nseg] != n)
        return GS_FAIL(GS_ERR_ARG, "bad clustering arguments");
    for (int32_t s = 0; s < nseg; s++)
        if (seg[s + 1] < seg[s]) return GS_FAIL(GS_ERR_ARG, "bad clustering segments");
    build b = {.row_ptr = row_ptr, .idx = idx, .val = val, .n = n, .nseg = nseg, .seg = seg,
                .cluster_size = cluster_size, .active = active, .wide_as = wide < 0 ? -1 : wide != 0, .seed = seed,
                .ncpu = cpus_usable()};
    if ((st = start_order(&b)) || (st = setup_columns(&b, out)) || (st = alloc_pass(&b, out))) goto cleanup;
    int32_t cl0 = 0; /* first cluster of the segment */
    for (int32_t sg = 0; sg < nseg; sg++) {
        out->seg_cl[sg] = cl0;
        cl0 += (int32_t)((seg[sg + 1] - seg[sg] + (int64_t)cluster_size - 1) / cluster_size);
    }
    out->seg_cl[nseg] = cl0;
    if ((st = run_passes(&b, out))) goto cleanup;
    if (b.pstarted) {
        pthread_join(b.pth, NULL);
        b.pstarted = 0;
    }
    if (b.direct) {
        b.n_ucols = b.pj.m;
        int32_t *u = realloc(out->ucol, sizeof *u * (size_t)(b.n_ucols ? b.n_ucols : 1));
        if (u) out->ucol = u;
    }
    out->n = n;
    out->cluster_size = cluster_size;
    out->n_clusters = b.total;
    out->n_pos = b.total * cluster_size;
    out->max_col = b.max_col;
    out->n_ucols = b.n_ucols;
    const double t_layout = gs_now();
    if ((st = plan_layout(&b, out)) || (st = fill_layout(&b, out))) goto cleanup;
    out->layout_seconds = gs_now() - t_layout;
    out->raw_nnz_per_row = n ? (double)row_ptr[n] / n : 0;
    double cl = 0;
    for (int32_t k = 0; k < b.total; k++)
        cl += out->ell_w[k] && out->wide ? (double)b.nnzc[k]
              : (double)(out->ell_w[k] ? out->ell_w[k] : out->col_off[k + 1] - out->col_off[k]) * b.fill[k];
    out->clustered_nnz_per_row = n ? cl / n : 0;
    out->seconds = gs_now() - t0;
    out->stamp = gs_clustered_stamp();
cleanup:
    build_free(&b);
    if (st != GS_OK) gs_clustered_free(out);
    return st;
}
