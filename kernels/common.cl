/* common.cl — prelude put in front of every kernels/<name>.cl by gs_ocl_build (also valid alone).
 * Programs are compiled as OpenCL C 1.2 (-cl-std=CL1.2) with double precision required; helper
 * names start with gs_ so they cannot clash with a kernel file's own. */
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#else
#error "gpusvm needs double precision on the OpenCL device (cl_khr_fp64)"
#endif

/* Loops marked `#pragma unroll 1` (scans, tree reductions, the working-set merge, the digit
 * picks: a few iterations each, between barriers, once a round) stay rolled: unrolled, they made
 * a third of the solver's code, which the driver compiles on a machine's first run (H100: the
 * solver's program in 3.6-3.8 s against 4.3-4.5 s, the same models and warm times;
 * docs/performance.md, twenty-ninth session). The loops that stream rows keep the compiler's
 * choice. */

/* Sum of v over the work-group, returned to every work-item. scratch holds get_local_size(0)
 * elements. All work-items of the group must call it (it has barriers); any local size works, not
 * only powers of two. Pairwise tree: the rounding error grows with log2(local size). */
static float gs_wg_sum_f(float v, __local float *scratch)
{
    const uint l = get_local_id(0);
    scratch[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint active = get_local_size(0); active > 1;) {
        const uint upper = (active + 1) / 2; /* "half" is a type in OpenCL C */
        if (l < active - upper)
            scratch[l] += scratch[l + upper];
        barrier(CLK_LOCAL_MEM_FENCE);
        active = upper;
    }
    const float r = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read scratch[0] before it is reused */
    return r;
}

#ifdef WG
/* Row-wise clusters (src/data/cluster.h): GS_WIDE 1 (wide data) keeps each row's entries as a run
 * from ell_off[position]; 0 in ELL slots, entry e of row t at ell_off[c] + e * WG + t (padding
 * slots hold 0). Row t of cluster c: its first entry, the step between entries, their count (w:
 * the cluster's ell_w). */
#ifndef GS_WIDE
#define GS_WIDE 0
#endif
#if GS_WIDE
#define GS_ROW_BASE(c, t) ell_off[(c) * WG + (t)]
#define GS_ROW_STEP 1
#define GS_ROW_LEN(c, t, w) (ell_off[(c) * WG + (t) + 1] - ell_off[(c) * WG + (t)])
#else
#define GS_ROW_BASE(c, t) (ell_off[c] + (t))
#define GS_ROW_STEP WG
#define GS_ROW_LEN(c, t, w) ((long)(w))
#endif
#if GS_WIDE
/* The row at clustered position p as a list: columns ix[0..n), values vx[0], vx[st], ... (a
 * dense cluster's row over its union, zeros included; a row-wise one's own entries). */
#define GS_ROW_AT(p, ix, vx, n, st)                                                                   \
    do {                                                                                             \
        const int c_ = (p) / WG;                                                                     \
        if (ell_w[c_] > 0) {                                                                         \
            const long b_ = ell_off[p];                                                              \
            ix = ell_idx + b_; vx = ell_val + b_; n = ell_off[(p) + 1] - b_; st = 1;                 \
        } else {                                                                                     \
            const long b_ = col_off[c_];                                                             \
            ix = cols + b_; vx = vals + b_ * WG + (p) % WG; n = col_off[c_ + 1] - b_; st = WG;       \
        }                                                                                            \
    } while (0)
/* Wide data's dot product <x_a, x_b> of the rows at positions pa and pb without a dense block of
 * x_b (the working-set vector): x_a's nonzeros in column order, each times x_b's value there,
 * added as gs_row_dots adds them (fma(x_a, x_b, acc), from 0). The terms it leaves out are those
 * with a zero factor, which add nothing to a finite sum (wide data is finite, cluster.c is_wide)
 * and the accumulator is never -0: the same bits as the block's sum. */
#define GS_SPARSE_DOT_DEF(NAME, ACC)                                                                 \
ACC NAME(int pa, int pb, __global const long *col_off, __global const int *cols,                    \
         __global const float *vals, __global const int *ell_w, __global const long *ell_off,       \
         __global const int *ell_idx, __global const float *ell_val)                                \
{                                                                                                    \
    __global const int *ia, *ib;                                                                     \
    __global const float *va, *vb;                                                                   \
    long na, nb;                                                                                     \
    int sa, sb;                                                                                      \
    GS_ROW_AT(pa, ia, va, na, sa);                                                                   \
    GS_ROW_AT(pb, ib, vb, nb, sb);                                                                   \
    ACC acc = (ACC)0;                                                                                \
    long j = 0;                                                                                      \
    for (long i = 0; i < na && j < nb; i++) {                                                        \
        const float x = va[i * sa];                                                                  \
        if (x == 0.0f) continue;                                                                     \
        const int col = ia[i];                                                                       \
        while (j < nb && ib[j] < col) j++;                                                           \
        if (j < nb && ib[j] == col) acc = fma((ACC)x, (ACC)vb[j * sb], acc);                         \
    }                                                                                                \
    return acc;                                                                                      \
}
GS_SPARSE_DOT_DEF(gs_sparse_dot_f, float)
GS_SPARSE_DOT_DEF(gs_sparse_dot_d, double)
#endif

/* Working-set block (solver.cl, cs.cl): the row at clustered position p into column k of U, U[col * q
 * + k] over compact columns (or zeros over the row's columns when clear). Dense clusters hold a
 * row's values over the cluster's union, row-wise clusters its own entries. Needs -DWG. */
static void gs_put_row(int p, int clear, __global const long *col_off, __global const int *cols,
                __global const float *vals, __global const int *ell_w, __global const long *ell_off,
                __global const int *ell_idx, __global const float *ell_val, __global float *U, int q, int k)
{
    const int c = p / WG, t = p % WG, lid = get_local_id(0);
    const int w = ell_w[c];
    if (w > 0) {
        const long b = GS_ROW_BASE(c, t), n = GS_ROW_LEN(c, t, w);
        for (long e = lid; e < n; e += WG) {
            const float x = ell_val[b + e * GS_ROW_STEP];
            const int col = ell_idx[b + e * GS_ROW_STEP]; /* -1: ELL padding */
            if (col >= 0 && (x != 0.0f || clear)) U[(long)col * q + k] = clear ? 0.0f : x;
        }
    } else {
        const long b = col_off[c], n = col_off[c + 1] - b;
        for (long j = lid; j < n; j += WG)
            U[(long)cols[b + j] * q + k] = clear ? 0.0f : vals[(b + j) * WG + t];
    }
}
#endif

#if defined(WG) && defined(WCH) && defined(CCH)
/* Kernel rows (solver.cl k_rows, cs.cl cs_rows): acc[w] = <x_t, u_(w0+w)> in float for row t of
 * cluster c and the working-set vectors w0 .. w0+WCH-1 (below nn) of the block U[col * q + w].
 * Dense clusters stage up to GS_RCOLS x WCH of U in lu (local, GS_LU_FLOAT4S float4s; every
 * work-item of the group must call this: it has barriers; WCH a multiple of 4); row-wise (ELL)
 * clusters gather U at each of the row's columns. */
#ifndef GS_RCOLS
#define GS_RCOLS 128 /* columns of U staged at once by gs_row_dots (a multiple of CCH) */
#endif
#define GS_LU_FLOAT4S (GS_RCOLS * WCH / 4)
/* GS_PRECISE 1: the dot products accumulate in double (float x float is exact in double), for data
 * whose norms make a float sum too coarse for the kernel (src/train/trainer.c decides); 0: in float. */
#ifndef GS_PRECISE
#define GS_PRECISE 0
#endif
#if GS_PRECISE
typedef double gs_acc_t;
#define gs_row_dots gs_row_dots_d
#define gs_sparse_dot gs_sparse_dot_d
#else
typedef float gs_acc_t;
#define gs_row_dots gs_row_dots_f
#define gs_sparse_dot gs_sparse_dot_f
#endif
/* A row-wise (ELL) cluster's row t of cluster c (width ew) against NW vectors w0 .. of the block U:
 * A4[NW / 4] += each of the row's values times the vectors' values at its column, the row's values
 * in order, one fma each (zeros skipped: they would not change a sum). FULL: all NW vectors there
 * and U's rows 16-byte aligned (float4 loads); else only the first M, the rest read as 0. Used by
 * gs_row_dots (NW = WCH) and the certification's wider pass (solver.cl, NW = CERT_CB), so both
 * give the same sums. */
#define GS_ELL_DOTS(NW, CONV4, A4, C, T, EW, FULL, M, U, Q, W0)                                                  \
    do {                                                                                                         \
        const long b_ = GS_ROW_BASE(C, T), ne_ = GS_ROW_LEN(C, T, EW);                                           \
        if (FULL) {                                                                                              \
            for (long e = 0; e < ne_; e++) {                                                                     \
                const int col = ell_idx[b_ + e * GS_ROW_STEP];                                                   \
                if (col < 0) break; /* the row's end: ELL padding follows it */                                  \
                const float xv = ell_val[b_ + e * GS_ROW_STEP];                                                  \
                if (xv == 0.0f) continue;                                                                        \
                __global const float4 *u4 = (__global const float4 *)((U) + (long)col * (Q) + (W0));             \
                for (int w = 0; w < (NW) / 4; w++) A4[w] = fma(CONV4((float4)(xv)), CONV4(u4[w]), A4[w]);        \
            }                                                                                                    \
        } else {                                                                                                 \
            for (long e = 0; e < ne_; e++) {                                                                     \
                const int col = ell_idx[b_ + e * GS_ROW_STEP];                                                   \
                if (col < 0) break;                                                                              \
                const float xv = ell_val[b_ + e * GS_ROW_STEP];                                                  \
                if (xv == 0.0f) continue;                                                                        \
                __global const float *u = (U) + (long)col * (Q) + (W0);                                          \
                for (int w = 0; w < (NW) / 4; w++) {                                                             \
                    const int k = 4 * w;                                                                         \
                    const float4 uv = (float4)(k < (M) ? u[k] : 0.0f, k + 1 < (M) ? u[k + 1] : 0.0f,             \
                                               k + 2 < (M) ? u[k + 2] : 0.0f, k + 3 < (M) ? u[k + 3] : 0.0f);    \
                    A4[w] = fma(CONV4((float4)(xv)), CONV4(uv), A4[w]);                                          \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    } while (0)
/* Defined twice: NAME over ACC (ACC4 accumulators, CONV4 widening a float4), float and double
 * (the certification's exact gradients use the double one whatever GS_PRECISE says). */
#define GS_ROW_DOTS_DEF(NAME, ACC, ACC4, CONV4)                                                     \
static void NAME(int c, int t, int w0, int nn, __global const long *col_off, __global const int *cols,           \
                 __global const float *vals, __global const int *ell_w, __global const long *ell_off,            \
                 __global const int *ell_idx, __global const float *ell_val, __global const float *U, int q,     \
                 __local float4 *lu, ACC *acc)                                                                   \
{                                                                                                                \
    /* WCH / 4 float4 accumulators: the staged U is read as float4 (one local load per four                      \
     * multiply-adds; read as scalars the local loads, not the arithmetic, bound the kernel) */                  \
    ACC4 a4[WCH / 4];                                                                                            \
    for (int w = 0; w < WCH / 4; w++) a4[w] = (ACC4)(0.0f);                                                      \
    const int ew = ell_w[c];                                                                                     \
    if (ew > 0) {                                                                                                \
        GS_ELL_DOTS(WCH, CONV4, a4, c, t, ew, w0 + WCH <= nn && (q & 3) == 0, nn - w0, U, q, w0);                \
    } else {                                                                                                     \
        __local float *lf = (__local float *)lu;                                                                 \
        const long b = col_off[c];                                                                               \
        const int ncol = (int)(col_off[c + 1] - b);                                                              \
        __global const float *x = vals + b * WG + t;                                                             \
        /* up to GS_RCOLS columns of U staged per pair of barriers (a9a's clusters in one); then                 \
         * CCH values of this row at a time, their loads all in flight together (one memory                      \
         * latency per CCH columns, not one per column). Past the staged columns x and lu are 0. */              \
        for (int j0 = 0; j0 < ncol; j0 += GS_RCOLS) {                                                            \
            const int jn = min(GS_RCOLS, ncol - j0), jr = (jn + CCH - 1) / CCH * CCH;                            \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                        \
            for (int i = t; i < jr * WCH; i += WG) {                                                             \
                const int jj = i / WCH, ww = i % WCH;                                                            \
                lf[i] = (jj < jn && w0 + ww < nn) ? U[(long)cols[b + j0 + jj] * q + w0 + ww] : 0.0f;             \
            }                                                                                                    \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                        \
            for (int c0 = 0; c0 < jn; c0 += CCH) {                                                               \
                float xr[CCH];                                                                                   \
                for (int jj = 0; jj < CCH; jj++) xr[jj] = c0 + jj < jn ? x[(long)(j0 + c0 + jj) * WG] : 0.0f;    \
                for (int jj = 0; jj < CCH; jj++) {                                                               \
                    const float4 xv = (float4)(xr[jj]);                                                          \
                    for (int w = 0; w < WCH / 4; w++)                                                            \
                        a4[w] = fma(CONV4(xv), CONV4(lu[(c0 + jj) * (WCH / 4) + w]), a4[w]);                     \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    }                                                                                                            \
    for (int w = 0; w < WCH / 4; w++) {                                                                          \
        acc[4 * w] = a4[w].s0;                                                                                   \
        acc[4 * w + 1] = a4[w].s1;                                                                               \
        acc[4 * w + 2] = a4[w].s2;                                                                               \
        acc[4 * w + 3] = a4[w].s3;                                                                               \
    }                                                                                                            \
}
GS_ROW_DOTS_DEF(gs_row_dots_f, float, float4, (float4))
GS_ROW_DOTS_DEF(gs_row_dots_d, double, double4, convert_double4)

/* gs_row_dots_d's sums (the same exact products, added in the same order: the same bits) with
 * dense clusters' U staged in local memory as double (lu: GS_LU_FLOAT4S double4s) and each row
 * value widened once per column: the certification (solver.cl k_cert) was bound by widening a
 * float for every multiply-add, not by the multiply-adds. */
static void gs_row_dots_dd(int c, int t, int w0, int nn, __global const long *col_off, __global const int *cols,
                    __global const float *vals, __global const int *ell_w, __global const long *ell_off,
                    __global const int *ell_idx, __global const float *ell_val, __global const float *U, int q,
                    __local double4 *lu, double *acc)
{
    if (ell_w[c] > 0) { /* row-wise clusters: gathered from global memory, as gs_row_dots_d */
        gs_row_dots_d(c, t, w0, nn, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val, U, q,
                      (__local float4 *)lu, acc);
        return;
    }
    double4 a4[WCH / 4];
    for (int w = 0; w < WCH / 4; w++) a4[w] = (double4)(0.0);
    __local double *lf = (__local double *)lu;
    const long b = col_off[c];
    const int ncol = (int)(col_off[c + 1] - b);
    __global const float *x = vals + b * WG + t;
    for (int j0 = 0; j0 < ncol; j0 += GS_RCOLS) {
        const int jn = min(GS_RCOLS, ncol - j0), jr = (jn + CCH - 1) / CCH * CCH;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = t; i < jr * WCH; i += WG) {
            const int jj = i / WCH, ww = i % WCH;
            lf[i] = (jj < jn && w0 + ww < nn) ? (double)U[(long)cols[b + j0 + jj] * q + w0 + ww] : 0.0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int c0 = 0; c0 < jn; c0 += CCH) {
            double xr[CCH];
            for (int jj = 0; jj < CCH; jj++) xr[jj] = c0 + jj < jn ? (double)x[(long)(j0 + c0 + jj) * WG] : 0.0;
            for (int jj = 0; jj < CCH; jj++) {
                const double4 xv = (double4)(xr[jj]);
                for (int w = 0; w < WCH / 4; w++) a4[w] = fma(xv, lu[(c0 + jj) * (WCH / 4) + w], a4[w]);
            }
        }
    }
    for (int w = 0; w < WCH / 4; w++) {
        acc[4 * w] = a4[w].s0;
        acc[4 * w + 1] = a4[w].s1;
        acc[4 * w + 2] = a4[w].s2;
        acc[4 * w + 3] = a4[w].s3;
    }
}
#endif

/* In-place inclusive scan (Hillis-Steele) of a[0..n) by the n work-items of a group, a[lid] each;
 * its barriers come first (a[] written just before is seen) and last. Counts only: no overflow.
 * gs_scan_u over uints, gs_scan_ul over ulongs (several counters packed in one). */
#define GS_SCAN_DEF(name, T)                                 \
    static void name(__local T *a, int lid, int n)           \
    {                                                        \
        barrier(CLK_LOCAL_MEM_FENCE);                        \
        _Pragma("unroll 1")                                  \
        for (int off = 1; off < n; off <<= 1) {              \
            const T x = lid >= off ? a[lid - off] : (T)0;    \
            barrier(CLK_LOCAL_MEM_FENCE);                    \
            a[lid] += x;                                     \
            barrier(CLK_LOCAL_MEM_FENCE);                    \
        }                                                    \
    }
GS_SCAN_DEF(gs_scan_u, uint)
GS_SCAN_DEF(gs_scan_ul, ulong)
#undef GS_SCAN_DEF

#if defined(QMAX) && defined(MWG)
/* Working-set merges (solver.cl k_merge, cs.cl cs_merge): in-place exclusive scan of v[QMAX] by one
 * work-group of MWG, each work-item owning QMAX / MWG consecutive entries (part: MWG ints of local
 * scratch); returns the total. */
/* not static: PoCL 3.1's LLVM 15 crashes inlining it into a work-group function */
int gs_block_scan(__local int *v, __local int *part, int lid)
{
    const int per = QMAX / MWG, b = lid * per;
    int s = 0;
    #pragma unroll 1
    for (int i = 0; i < per; i++) { const int x = v[b + i]; v[b + i] = s; s += x; }
    part[lid] = s;
    gs_scan_u((__local uint *)part, lid, MWG);
    const int add = lid ? part[lid - 1] : 0;
    #pragma unroll 1
    for (int i = 0; i < per; i++) v[b + i] += add;
    const int total = part[MWG - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}
#endif

/* LIBSVM's powi: base^times by squaring (the same products in the same order); times <= 0 gives 1.
 * The polynomial kernel of training (gs_kfun) and of prediction (predict.cl). */
static double gs_powi(double base, int times)
{
    double tmp = base, ret = 1.0;
    for (int t = times; t > 0; t /= 2) {
        if (t % 2 == 1) ret *= tmp;
        tmp = tmp * tmp;
    }
    return ret;
}

#ifdef KTYPE
/* K from the dot product and the squared norms, for -DKTYPE = 0 linear, 1 poly, 2 RBF, 3 sigmoid
 * (4, precomputed, reads K from the data instead: solver.cl gs_pre_serial; training's kernel rows;
 * prediction's, from the merged rows in LIBSVM's order, is predict.cl's). */
static double gs_kfun(double dot, double ni, double nj, double gamma, double coef0, int degree)
{
#if KTYPE == 0
    return dot;
#elif KTYPE == 1
    return gs_powi(gamma * dot + coef0, degree);
#elif KTYPE == 2
    return exp(-gamma * fmax(ni + nj - 2.0 * dot, 0.0));
#elif KTYPE == 4
    return dot;
#else
    return tanh(gamma * dot + coef0);
#endif
}
#endif
