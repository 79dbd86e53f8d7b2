/* predict.cl — decision values for gpusvm-predict, in double with LIBSVM's operation order.
 *
 * pred_kvals: one work-group per block of WG support vectors (clustered by sparsity pattern; the
 * block stores the union of its SVs' columns, values column-major, zero padded) and RT test rows.
 * Every work-item walks the same merge of the block's columns with the row's columns, so control
 * flow is uniform (very sparse blocks are stored row-wise instead, see below); K(sv, x) is written
 * once to K[sv * ld + row] and shared by every class pair; with arg_out, exp's or tanh's argument
 * goes to K[row * ld + sv] instead (ld = the SV count), rows contiguous for the host (predictor.c),
 * or with arg_out == 2 the squared distance as a 16-bit integer there (pred_store).
 * pred_sum: one work-item per (row, pair) adds coef * K sequentially in model SV order (class i's
 * SVs, then class j's), subtracts rho, and also returns sum |coef * K| for the host's error bound.
 *
 * Exactness: contraction to fma would change roundings, hence FP_CONTRACT OFF. Zero padding only
 * adds exact zeros (d = 0 - 0 in RBF, x * 0 in dot products, for finite x), so the merge over the
 * block's union gives LIBSVM's bits for every kernel except exp/tanh, which come from the device's
 * libm (see predictor.c). Row-wise blocks merge each SV's own values with no padding at all: the
 * very operations of LIBSVM's loop, in its order. */
#pragma OPENCL FP_CONTRACT OFF

#ifndef WG
#define WG 128 /* work-group size = SVs per block; the host reads the same value */
#endif
#ifndef RT
#define RT 8   /* test rows per work-group in pred_kvals */
#endif
#ifndef LX
#define LX 1024 /* test values staged in local memory per work-group (0: none) */
#endif
#ifndef CC
#define CC 128  /* columns per step of the tiled dense path */
#endif

#define KT_LINEAR 0
#define KT_POLY 1
#define KT_RBF 2
#define KT_SIGMOID 3

/* K from the squared distance (RBF) or the dot product (the others), as LIBSVM's k_function. */
static inline double pred_kval(const int ktype, const double sum, const double gamma, const double coef0,
                               const int degree)
{
    if (ktype == KT_RBF) return exp(-gamma * sum);
    if (ktype == KT_LINEAR) return sum;
    if (ktype == KT_POLY) return gs_powi(gamma * sum + coef0, degree);
    return tanh(gamma * sum + coef0);
}

/* What pred_kvals stores: K, or with arg_out (RBF and sigmoid, for the host's exact path) the
 * argument LIBSVM hands to exp / tanh, computed with its operations (-gamma * sum, gamma * dot +
 * coef0: FP_CONTRACT OFF keeps them two roundings), so the host's libm finishes LIBSVM's bits. */
static inline double pred_kout(const int ktype, const double sum, const double gamma, const double coef0,
                               const int degree, const int arg_out)
{
    if (arg_out) return ktype == KT_RBF ? -gamma * sum : gamma * sum + coef0;
    return pred_kval(ktype, sum, gamma, coef0, degree);
}

/* Stores K(sv s, row r) as pred_kout says, or with arg_out == 2 (RBF on data whose squared
 * distances are small integers, checked by the host: predictor.c's codes) the squared distance
 * itself as a 16-bit integer at [r * ld + s] of K read as ushorts: exact, and a quarter of the
 * bytes for the host, which takes exp(-gamma * sum) from a table of LIBSVM's own values. */
static inline void pred_store(__global double *K, const long r, const long s, const int ld, const int ktype,
                              const double sum, const double gamma, const double coef0, const int degree,
                              const int arg_out)
{
    if (arg_out == 2)
        ((__global ushort *)K)[r * ld + s] = (ushort)sum;
    else
        K[arg_out ? r * ld + s : s * ld + r] = pred_kout(ktype, sum, gamma, coef0, degree, arg_out);
}

/* LIBSVM's merged loop over one SV and one test row [x, xe): the squared distance for RBF, the dot
 * product otherwise, term by term in increasing column order. Defined twice through the macros
 * below, for a test row in global memory and for one staged in local memory (OpenCL C 1.2 has no
 * generic address space); XS is the row's address space, IT the type of positions in it.
 *
 * PRED_MERGE_DENSE: a dense block's SV (column j of the block's union at sc[j], shared by the
 * work-group, value at sv[j * WG]); every work-item takes the same branches.
 *
 * PRED_MERGE_ROWS: a row-wise block's SV (its e-th column at sc[e * WG], value at sv[e * WG], n of
 * them), without data-dependent branches (each work-item's merge takes its own course): every step
 * takes the SV's value where its column is the smaller or equal one and the row's where the row's
 * is, 0 otherwise, and adds exactly LIBSVM's term:
 * RBF: d = xv - sv (equal columns), 0 - sv = -sv (SV only: d * d = sv * sv exactly), xv - 0 = xv
 * (row only); dot: xv * sv where equal, else +0, which leaves the sum unchanged (a sum that starts
 * at +0 never becomes -0 in round-to-nearest, and s + 0 = s for every other s). The unselected
 * value is discarded by the select, so non-finite values cannot leak in. */
/* RBF after the merge, as LIBSVM: the SV's remaining values squared, then the row's (used inside
 * the two merge macros below, where a, n, x, xe, sv, x_val and sum are in scope; RS: the step
 * between an SV's values). */
#define PRED_TAIL_RBF(RS)                                                                        \
    for (; a < n; a++) {                                                                         \
        const double d = sv[a * (RS)];                                                           \
        sum += d * d;                                                                            \
    }                                                                                            \
    for (; x < xe; x++) {                                                                        \
        const double d = x_val[x];                                                               \
        sum += d * d;                                                                            \
    }

#define PRED_MERGE_DENSE(NAME, XS, IT)                                                               \
static inline double NAME(const int rbf, __global const int *sc, __global const double *sv,    \
                          const int n, XS const int *x_idx, XS const double *x_val, IT x,       \
                          const IT xe)                                                           \
{                                                                                                \
    double sum = 0;                                                                              \
    int a = 0;                                                                                   \
    if (rbf) {                                                                                   \
        while (a < n && x < xe) {                                                                \
            const int ca = sc[a], cx = x_idx[x];                                                 \
            double d;                                                                            \
            if (ca == cx) {                                                                      \
                d = x_val[x] - sv[a * WG];                                                       \
                a++;                                                                             \
                x++;                                                                             \
            } else if (ca < cx) {                                                                \
                d = sv[a * WG];                                                                  \
                a++;                                                                             \
            } else {                                                                             \
                d = x_val[x];                                                                    \
                x++;                                                                             \
            }                                                                                    \
            sum += d * d;                                                                        \
        }                                                                                        \
        PRED_TAIL_RBF(WG)                                                                        \
    } else {                                                                                     \
        while (a < n && x < xe) {                                                                \
            const int ca = sc[a], cx = x_idx[x];                                                 \
            if (ca == cx) {                                                                      \
                sum += x_val[x] * sv[a * WG];                                                    \
                a++;                                                                             \
                x++;                                                                             \
            } else if (ca < cx) {                                                                \
                a++;                                                                             \
            } else {                                                                             \
                x++;                                                                             \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
    return sum;                                                                                  \
}

#define PRED_MERGE_ROWS(NAME, XS, IT, RS)                                                            \
static inline double NAME(const int rbf, __global const int *sc, __global const double *sv,    \
                          const int n, XS const int *x_idx, XS const double *x_val, IT x,       \
                          const IT xe)                                                           \
{                                                                                                \
    double sum = 0;                                                                              \
    int a = 0;                                                                                   \
    if (rbf) {                                                                                   \
        while (a < n && x < xe) {                                                                \
            const int ca = sc[a * (RS)], cx = x_idx[x];                                         \
            const double va = sv[a * (RS)], vx = x_val[x];                                       \
            const double d = (ca >= cx ? vx : 0.0) - (ca <= cx ? va : 0.0);                      \
            sum += d * d;                                                                        \
            a += ca <= cx;                                                                       \
            x += ca >= cx;                                                                       \
        }                                                                                        \
        PRED_TAIL_RBF(RS)                                                                        \
    } else {                                                                                     \
        while (a < n && x < xe) {                                                                \
            const int ca = sc[a * (RS)], cx = x_idx[x];                                         \
            const double va = sv[a * (RS)], vx = x_val[x];                                       \
            const double pr = vx * va;                                                           \
            sum += ca == cx ? pr : 0.0;                                                          \
            a += ca <= cx;                                                                       \
            x += ca >= cx;                                                                       \
        }                                                                                        \
    }                                                                                            \
    return sum;                                                                                  \
}

PRED_MERGE_DENSE(merge_dense_g, __global, long)
PRED_MERGE_DENSE(merge_dense_l, __local, int)
PRED_MERGE_ROWS(merge_rows_g, __global, long, WG)
PRED_MERGE_ROWS(merge_rows_l, __local, int, WG)
PRED_MERGE_ROWS(merge_rows_g1, __global, long, 1) /* runs (see pred_kvals) */

/* Blocks come in two layouts (the host picks per block, see predictor.c):
 * - dense (ell_w[b] == 0): the block's column union cols[blk_off[b] .. blk_off[b+1]) and values
 *   vals[(blk_off[b] + j) * WG + t], zero padded; every work-item walks the same merge.
 * - row-wise (ell_w[b] > 0, for sparse blocks whose union is far wider than their rows): SV t's
 *   e-th value at ell_val[ell_off[b] + e * WG + t], its column in ell_idx, ell_len[b * WG + t]
 *   values; each work-item merges its own SV's columns with the row, exactly LIBSVM's loop, so the
 *   work is proportional to the real nonzeros. With runs (wide models, predictor.c) SV t's values
 *   are one run from ell_off[b * WG + t] instead, no slots padded to the block's widest SV.
 * For dense blocks the group's RT test rows are first copied to local memory when they fit in LX
 * values (one read of global memory per value instead of one per work-item); longer rows, and the
 * rows of row-wise blocks, are read in place. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void pred_kvals(const int ktype, const double gamma, const double coef0, const int degree,
                __global const long *blk_off, __global const int *cols, __global const double *vals,
                __global const int *pos_sv,
                __global const long *x_ptr, __global const int *x_idx, __global const double *x_val,
                const int row0, const int rows, __global double *K, const int ld,
                __global const int *ell_w, __global const long *ell_off,
                __global const int *ell_idx, __global const double *ell_val,
                __global const int *ell_len, const int tile, const int arg_out, const int runs,
                const int skip_rows)
{
#if LX > 0
    __local int lx_idx[LX];
    __local double lx_val[LX];
#endif
    __local double xt[RT * CC];
    const int b = get_group_id(0);
    const int t = get_local_id(0);
    const int s = pos_sv[b * WG + t];
    const int rbf = ktype == KT_RBF;
    const int row_wise = ell_w[b] > 0;
    if (row_wise && skip_rows) return; /* pred_khash's */
    __global const int *sc;
    __global const double *sv;
    int n;
    if (row_wise) {
        const long e0 = runs ? ell_off[b * WG + t] : ell_off[b] + t;
        sc = ell_idx + e0;
        sv = ell_val + e0;
        n = ell_len[b * WG + t];
    } else {
        const long c0 = blk_off[b];
        sc = cols + c0;
        sv = vals + c0 * WG + t;
        n = (int)(blk_off[b + 1] - c0);
    }
    const int rbeg = get_group_id(1) * RT;
    const int rend = min(rbeg + RT, rows);
    /* the tiled path where columns 0..last are not much more than the merge would walk */
    int last = -1;
    if (tile && !row_wise) {
        last = n > 0 ? sc[n - 1] : -1;
        for (int r = rbeg; r < rend; r++) {
            const long e1 = x_ptr[row0 + r + 1];
            if (e1 > x_ptr[row0 + r]) last = max(last, x_idx[e1 - 1]);
        }
    }
    const long nnz_rows = x_ptr[row0 + rend] - x_ptr[row0 + rbeg];
    if (tile && !row_wise && ((long)last + 1) * (rend - rbeg) <= 4 * ((long)n * (rend - rbeg) + nnz_rows)) {
        /* Tiled dense path: the group's RT rows are scattered densely into local memory, CC
         * columns at a time, and every work-item walks columns 0..last once for all RT rows,
         * reading each of its SV's values once. Per row the terms come in increasing column order
         * as in LIBSVM's merge; a column that neither side has adds (0 - 0)^2 or 0 * 0 = +0,
         * which leaves the sum unchanged. For the dot kernels a column only one side has adds
         * x * 0 = +-0, also no change for finite values (the host allows this path for them only
         * when every SV value is finite; rows with a non-finite value are redone on the CPU). */
        double acc[RT];
        for (int i = 0; i < RT; i++) acc[i] = 0.0;
        int a = 0;
        for (long c0 = 0; c0 <= last; c0 += CC) {
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int i = t; i < RT * CC; i += WG) xt[i] = 0.0;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int i = 0; i < rend - rbeg; i++) {
                const long e1 = x_ptr[row0 + rbeg + i + 1];
                for (long e = x_ptr[row0 + rbeg + i] + t; e < e1; e += WG) {
                    const long c = x_idx[e] - c0;
                    if (c >= 0 && c < CC) xt[i * CC + (int)c] = x_val[e];
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            const int cend = (int)min((long)CC, last - c0 + 1);
            for (int c = 0; c < cend; c++) {
                double v = 0.0;
                if (a < n && (long)sc[a] == c0 + c) { v = sv[a * WG]; a++; }
                if (rbf) {
                    for (int i = 0; i < RT; i++) {
                        const double d = xt[i * CC + c] - v;
                        acc[i] += d * d;
                    }
                } else {
                    for (int i = 0; i < RT; i++) acc[i] += xt[i * CC + c] * v;
                }
            }
        }
        for (int i = 0; i < RT; i++) {
            const int r = rbeg + i;
            if (r >= rend) break;
            if (s >= 0) pred_store(K, r, s, ld, ktype, acc[i], gamma, coef0, degree, arg_out);
        }
        return;
    }
    const long g0 = x_ptr[row0 + rbeg];
#if LX > 0
    /* dense blocks only: measured on an H200, staging sped the dense merge up a little and slowed
     * the row-wise one a little. The condition is the same in the whole group. */
    const int staged = !row_wise && x_ptr[row0 + rend] - g0 <= LX;
    if (staged) {
        const int nx = (int)(x_ptr[row0 + rend] - g0);
        for (int i = t; i < nx; i += WG) {
            lx_idx[i] = x_idx[g0 + i];
            lx_val[i] = x_val[g0 + i];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    const int staged = 0;
#endif
    /* Row positions relative to g0 (below LX where staged). */
    __global const int *gx_idx = x_idx + g0;
    __global const double *gx_val = x_val + g0;
    for (int r = rbeg; r < rend; r++) {
        const long x = x_ptr[row0 + r] - g0, xe = x_ptr[row0 + r + 1] - g0;
        double sum;
#if LX > 0
        if (staged)
            sum = row_wise ? merge_rows_l(rbf, sc, sv, n, lx_idx, lx_val, (int)x, (int)xe)
                           : merge_dense_l(rbf, sc, sv, n, lx_idx, lx_val, (int)x, (int)xe);
        else
#endif
            sum = row_wise ? (runs ? merge_rows_g1(rbf, sc, sv, n, gx_idx, gx_val, x, xe)
                                   : merge_rows_g(rbf, sc, sv, n, gx_idx, gx_val, x, xe))
                           : merge_dense_g(rbf, sc, sv, n, gx_idx, gx_val, x, xe);
        if (s >= 0) pred_store(K, r, s, ld, ktype, sum, gamma, coef0, degree, arg_out);
    }
}

/* pred_khash: the row-wise blocks' kernel values (pred_kvals returns for them when the host
 * chooses this kernel) from a hash table of each test row in local memory instead of a merge.
 * The work-group's HR rows get a table each (open addressing, a power of two at least twice the
 * row's values, carved from a pool of HP slots); each work-item then walks its SV's own values
 * once for all HR rows, looking each column up in every table: the SV's values are read once per
 * group, not once per row, and no work-item walks the row's values. A row whose table does not
 * fit the pool takes the merge (merge_rows_g), LIBSVM's own operations.
 * The dot product adds sv * x over the SV's columns in increasing order, sv * 0 = +-0 where the
 * row has no such column (the host takes this kernel only when every SV value is finite): the
 * very sum of LIBSVM's dot, whose terms are the matched products in column order (a sum that
 * starts at +0 stays unchanged by +-0). So linear, polynomial and sigmoid keep their bits. RBF
 * takes |sv|^2 + |x|^2 - 2 sv.x (sv_n2 from the host, |x|^2 summed here), not LIBSVM's order:
 * the host widens the decision values' bound by the difference (predictor.c rbf_hash_dz). */
#ifndef HR
#define HR 2 /* test rows per work-group in pred_khash (the host passes PRED_HR) */
#endif
#ifndef HP
#define HP 1024 /* table slots per work-group (PRED_HP) */
#endif

static inline uint pred_hash(const int c) { return (uint)c * 2654435761u; }

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void pred_khash(const int ktype, const double gamma, const double coef0, const int degree,
                __global const int *pos_sv, __global const long *x_ptr, __global const int *x_idx,
                __global const double *x_val, const int row0, const int rows, __global double *K, const int ld,
                __global const int *ell_w, __global const long *ell_off, __global const int *ell_idx,
                __global const double *ell_val, __global const int *ell_len, const int runs,
                __global const double *sv_n2)
{
    __local int hkey[HP];
    __local double hval[HP];
    __local int toff[HR], tbits[HR];
    __local double xn2[HR];
    const int b = get_group_id(0);
    if (ell_w[b] <= 0) return; /* a dense block: pred_kvals' */
    const int t = get_local_id(0);
    const int rbeg = get_group_id(1) * HR;
    const int nr = min(HR, rows - rbeg);
    const int rbf = ktype == KT_RBF;
    for (int i = t; i < HP; i += WG) hkey[i] = -1;
    if (t == 0) { /* each row's table: 2^bits slots at toff, or toff = -1 (the merge) */
        int used = 0;
        for (int i = 0; i < HR; i++) {
            const long n = i < nr ? x_ptr[row0 + rbeg + i + 1] - x_ptr[row0 + rbeg + i] : 0;
            int bits = 4;
            while (bits < 30 && ((long)1 << bits) < 2 * n) bits++;
            tbits[i] = bits;
            toff[i] = -1;
            if (i < nr && used + (1 << bits) <= HP) {
                toff[i] = used;
                used += 1 << bits;
            }
        }
    }
    if (t < nr) {
        double q = 0;
        for (long e = x_ptr[row0 + rbeg + t]; e < x_ptr[row0 + rbeg + t + 1]; e++) q += x_val[e] * x_val[e];
        xn2[t] = q;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < nr; i++) {
        if (toff[i] < 0) continue;
        const int o = toff[i], sh = 32 - tbits[i];
        const uint mask = (1u << tbits[i]) - 1;
        const long e1 = x_ptr[row0 + rbeg + i + 1];
        for (long e = x_ptr[row0 + rbeg + i] + t; e < e1; e += WG) {
            const int c = x_idx[e];
            uint h = pred_hash(c) >> sh;
            while (atomic_cmpxchg(&hkey[o + h], -1, c) != -1) h = (h + 1) & mask;
            hval[o + h] = x_val[e];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int s = pos_sv[b * WG + t];
    const int rs = runs ? 1 : WG;
    const long e0 = runs ? ell_off[b * WG + t] : ell_off[b] + t;
    __global const int *sc = ell_idx + e0;
    __global const double *sv = ell_val + e0;
    const int n = ell_len[b * WG + t];
    double acc[HR];
    for (int i = 0; i < HR; i++) acc[i] = 0.0;
    for (int a = 0; a < n; a++) {
        const int c = sc[a * rs];
        const double v = sv[a * rs];
        const uint hc = pred_hash(c);
        for (int i = 0; i < HR; i++) {
            if (i >= nr || toff[i] < 0) continue;
            const int o = toff[i];
            const uint mask = (1u << tbits[i]) - 1;
            uint h = hc >> (32 - tbits[i]);
            double xv = 0.0;
            for (;;) {
                const int k = hkey[o + h];
                if (k == c) {
                    xv = hval[o + h];
                    break;
                }
                if (k < 0) break;
                h = (h + 1) & mask;
            }
            acc[i] += v * xv;
        }
    }
    if (s < 0) return;
    for (int i = 0; i < nr; i++) {
        const int r = rbeg + i;
        double sum;
        if (toff[i] < 0) {
            const long x = x_ptr[row0 + r], xe = x_ptr[row0 + r + 1];
            sum = rs == 1 ? merge_rows_g1(rbf, sc, sv, n, x_idx, x_val, x, xe)
                          : merge_rows_g(rbf, sc, sv, n, x_idx, x_val, x, xe);
        } else {
            sum = rbf ? fmax(0.0, (sv_n2[b * WG + t] + xn2[i]) - 2.0 * acc[i]) : acc[i];
        }
        pred_store(K, r, s, ld, ktype, sum, gamma, coef0, degree, 0);
    }
}

/* Adds coef * K for row r over SVs [s, e) of coefficient column c to *sum (in SV order) and their
 * magnitudes to *m: eight loads in flight, then the additions in order (the same sum, less
 * waiting). pred_sum and pred_part. */
inline void add_terms(__global const double *K, const int ld, const int r, __global const double *coef, const int nc,
                      const int c, int s, const int e, double *sum, double *m)
{
    for (; s + 8 <= e; s += 8) {
        double term[8];
        for (int u = 0; u < 8; u++) term[u] = coef[(long)(s + u) * nc + c] * K[(long)(s + u) * ld + r];
        for (int u = 0; u < 8; u++) {
            *sum += term[u];
            *m += fabs(term[u]);
        }
    }
    for (; s < e; s++) {
        const double term = coef[(long)s * nc + c] * K[(long)s * ld + r];
        *sum += term;
        *m += fabs(term);
    }
}

/* pairs[p] (kernels/abi.h's gs_abi_pair): the SVs and coefficient column of the pair's first class,
 * the same for the second class (an empty range for one-class and regression). */
__kernel void pred_sum(__global const double *K, const int ld, const int row0, const int rows,
                       __global const gs_abi_pair *pairs, __global const double *coef, const int nc,
                       __global const double *rho, const int np, __global double *dec,
                       __global double *mag)
{
    const int r = get_global_id(0);
    const int p = get_global_id(1);
    if (r >= rows) return;
    double sum = 0, m = 0;
    for (int side = 0; side < 2; side++) {
        const gs_abi_pair_side q = pairs[p].side[side];
        add_terms(K, ld, r, coef, nc, q.col, q.first, q.end, &sum, &m);
    }
    dec[(long)(row0 + r) * np + p] = sum - rho[p];
    mag[(long)(row0 + r) * np + p] = m;
}

/* pred_sum's sums cut into nseg segments, for models whose pairs have many SVs and passes few rows
 * (covtype-gen's 258,000 SVs left 520 rows a pass: 520 work-items, each adding 258,000 terms one
 * after another). Work-item (r, p nseg + k) adds the terms of segment k of pair p's SVs (the first
 * class's, then the second's) and their magnitudes into part (sums, then magnitudes, each
 * [p][k][ld]); pred_fin adds the segments in order. Only where the decision values carry an error
 * bound (RBF, sigmoid): any order of the additions is within the bound's (2n + 64) u (see
 * predictor.c), the linear and polynomial kernels' exact bits need pred_sum's order. */
__kernel void pred_part(__global const double *K, const int ld, const int rows, __global const gs_abi_pair *pairs,
                        __global const double *coef, const int nc, const int nseg, const int np,
                        __global double *part)
{
    const int r = get_global_id(0), p = get_global_id(1) / nseg, k = get_global_id(1) % nseg;
    if (r >= rows) return;
    const gs_abi_pair_side a = pairs[p].side[0], b = pairs[p].side[1];
    const int na = a.end - a.first, nt = na + (b.end - b.first);
    const int len = (nt + nseg - 1) / nseg, t0 = min(nt, k * len), t1 = min(nt, t0 + len);
    double sum = 0, m = 0;
    for (int side = 0; side < 2; side++) {
        const gs_abi_pair_side q = side ? b : a;
        /* this segment's part of the side: terms [lo, hi) of the concatenation */
        const int base = side ? na : 0, lo = max(t0, base), hi = min(t1, base + (q.end - q.first));
        if (lo < hi) add_terms(K, ld, r, coef, nc, q.col, q.first + (lo - base), q.first + (hi - base), &sum, &m);
    }
    const long at = ((long)p * nseg + k) * ld + r;
    part[at] = sum;
    part[(long)np * nseg * ld + at] = m;
}

/* pred_part's segments added in order: the decision value (minus rho) and its magnitude. */
__kernel void pred_fin(__global const double *part, const int ld, const int row0, const int rows, const int nseg,
                       __global const double *rho, const int np, __global double *dec, __global double *mag)
{
    const int r = get_global_id(0), p = get_global_id(1);
    if (r >= rows) return;
    double sum = 0, m = 0;
    for (int k = 0; k < nseg; k++) {
        const long at = ((long)p * nseg + k) * ld + r;
        sum += part[at];
        m += part[(long)np * nseg * ld + at];
    }
    dec[(long)(row0 + r) * np + p] = sum - rho[p];
    mag[(long)(row0 + r) * np + p] = m;
}

/* Tells the host whether this compiler contracts a*b+c despite FP_CONTRACT OFF. */
__kernel void pred_probe(__global const double *in, __global double *out)
{
    out[0] = in[0] * in[1] + in[2];
}
