/* predict.cl — decision values for gpusvm-predict, in double with LIBSVM's operation order.
 *
 * pred_kvals: one work-group per block of WG support vectors (clustered by sparsity pattern; the
 * block stores the union of its SVs' columns, values column-major, zero padded) and RT test rows.
 * Every work-item walks the same merge of the block's columns with the row's columns, so control
 * flow is uniform; K(sv, x) is written once to K[sv * ld + row] and shared by every class pair.
 * pred_sum: one work-item per (row, pair) adds coef * K sequentially in model SV order (class i's
 * SVs, then class j's), subtracts rho, and also returns sum |coef * K| for the host's error bound.
 *
 * Exactness: contraction to fma would change roundings, hence FP_CONTRACT OFF. Zero padding only
 * adds exact zeros (d = 0 - 0 in RBF, x * 0 in dot products, for finite x), so the merge over the
 * block's union gives LIBSVM's bits for every kernel except exp/tanh, which come from the device's
 * libm (see predictor.c). */
#pragma OPENCL FP_CONTRACT OFF

#ifndef WG
#define WG 128 /* work-group size = SVs per block; the host reads the same value */
#endif
#ifndef RT
#define RT 8   /* test rows per work-group in pred_kvals */
#endif

#define KT_LINEAR 0
#define KT_POLY 1
#define KT_RBF 2
#define KT_SIGMOID 3

/* LIBSVM's powi: exponentiation by squaring; times <= 0 gives 1. */
static double pred_powi(double base, int times)
{
    double tmp = base, ret = 1.0;
    for (int t = times; t > 0; t /= 2) {
        if (t % 2 == 1) ret *= tmp;
        tmp = tmp * tmp;
    }
    return ret;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void pred_kvals(const int ktype, const double gamma, const double coef0, const int degree,
                __global const long *blk_off, __global const int *cols, __global const double *vals,
                __global const int *pos_sv,
                __global const long *x_ptr, __global const int *x_idx, __global const double *x_val,
                const int row0, const int rows, __global double *K, const int ld)
{
    const int b = get_group_id(0);
    const int t = get_local_id(0);
    const int s = pos_sv[b * WG + t];
    const long c0 = blk_off[b], c1 = blk_off[b + 1];
    __global const double *v = vals + t;
    const int rbeg = get_group_id(1) * RT;
    for (int rr = 0; rr < RT; rr++) {
        const int r = rbeg + rr;
        if (r >= rows) break;
        long a = c0, x = x_ptr[row0 + r];
        const long xe = x_ptr[row0 + r + 1];
        double sum = 0;
        double kv;
        if (ktype == KT_RBF) {
            while (a < c1 && x < xe) {
                const int ca = cols[a], cx = x_idx[x];
                double d;
                if (ca == cx) {
                    d = x_val[x] - v[a * WG];
                    a++;
                    x++;
                } else if (ca < cx) {
                    d = v[a * WG];
                    a++;
                } else {
                    d = x_val[x];
                    x++;
                }
                sum += d * d;
            }
            for (; a < c1; a++) {
                const double d = v[a * WG];
                sum += d * d;
            }
            for (; x < xe; x++) {
                const double d = x_val[x];
                sum += d * d;
            }
            kv = exp(-gamma * sum);
        } else {
            while (a < c1 && x < xe) {
                const int ca = cols[a], cx = x_idx[x];
                if (ca == cx) {
                    sum += x_val[x] * v[a * WG];
                    a++;
                    x++;
                } else if (ca < cx) {
                    a++;
                } else {
                    x++;
                }
            }
            if (ktype == KT_LINEAR) kv = sum;
            else if (ktype == KT_POLY) kv = pred_powi(gamma * sum + coef0, degree);
            else kv = tanh(gamma * sum + coef0);
        }
        if (s >= 0) K[(long)s * ld + r] = kv;
    }
}

/* pairs[6*p ..]: first SV, end, coefficient column of the pair's first class; the same for the
 * second class (an empty range for one-class and regression). */
__kernel void pred_sum(__global const double *K, const int ld, const int row0, const int rows,
                       __global const int *pairs, __global const double *coef, const int nc,
                       __global const double *rho, const int np, __global double *dec,
                       __global double *mag)
{
    const int r = get_global_id(0);
    const int p = get_global_id(1);
    if (r >= rows) return;
    __global const int *q = pairs + 6 * p;
    double sum = 0, m = 0;
    for (int side = 0; side < 2; side++) {
        const int e = q[3 * side + 1], c = q[3 * side + 2];
        int s = q[3 * side];
        /* Eight loads in flight, then the additions in SV order: the same sum, less waiting. */
        for (; s + 8 <= e; s += 8) {
            double term[8];
            for (int u = 0; u < 8; u++)
                term[u] = coef[(long)(s + u) * nc + c] * K[(long)(s + u) * ld + r];
            for (int u = 0; u < 8; u++) {
                sum += term[u];
                m += fabs(term[u]);
            }
        }
        for (; s < e; s++) {
            const double term = coef[(long)s * nc + c] * K[(long)s * ld + r];
            sum += term;
            m += fabs(term);
        }
    }
    dec[(long)(row0 + r) * np + p] = sum - rho[p];
    mag[(long)(row0 + r) * np + p] = m;
}

/* Tells the host whether this compiler contracts a*b+c despite FP_CONTRACT OFF. */
__kernel void pred_probe(__global const double *in, __global double *out)
{
    out[0] = in[0] * in[1] + in[2];
}
