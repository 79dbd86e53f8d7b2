/* predictor.c — decision values on the device, and LIBSVM's exact CPU arithmetic beside them.
 *
 * How the output stays identical to svm-predict (the design; see also kernels/predict.cl):
 * - Test values are kept in double exactly as strtod read them (predict.c's reader), the model's SV
 *   values in double as the model file holds them.
 * - pred_kvals computes every K(sv, x) in double with LIBSVM's formulas and summation order
 *   (merged sparse loop in increasing index order; zero padding only adds exact zeros), and
 *   pred_sum adds coef * K sequentially in model SV order per class pair, exactly like
 *   svm_predict_values. With FP_CONTRACT OFF (checked at start-up by pred_probe) the linear and
 *   polynomial kernels therefore give LIBSVM's bits on any IEEE device: err = 0.
 * - RBF and sigmoid need exp/tanh. The device's libm may differ from glibc's by a few ulp (OpenCL
 *   allows 3 ulp for exp, 5 for tanh), so their decision values carry an error bound
 *   err = ((2n + 64) u) (sum |coef K| + |rho|), u = 2^-53, n = the pair's SV count: the K values
 *   may differ by <= 32 u relative, and each of the two sequential sums rounds n times by at most
 *   u of a partial sum bounded by sum |coef K|.
 * - predict.c uses the bound per row: a label (sign, vote) or a monotone probability line whose
 *   printed text is the same at dec - err and dec + err is taken from the device; any other row is
 *   recomputed with gs_pred_cpu_dec (glibc's exp/tanh, i.e. svm-predict's own numbers). Regression
 *   (%.17g) and multiclass -b 1 with RBF/sigmoid models therefore run on the CPU for every row.
 * - Rows with a non-finite value get err = inf (x * 0 in a padded dot product would be NaN).
 * - Layout: SVs in blocks of PRED_WG (the clustering's permutation). A block is dense (the union of
 *   its SVs' columns, values column-major, zero padded) unless its union is over PRED_ROWS_RATIO
 *   times its widest SV (text-like data, where dense would be mostly zeros and the merge would walk
 *   the whole union for every SV; the trainer's ELL rule, cluster.h, is the same idea at 8x).
 *   Row-wise blocks keep each SV's own values in slots (column-major over slots, as the trainer's
 *   ELL clusters) and every work-item runs LIBSVM's merge of its SV with the test row, term for
 *   term: the same operations in the same order (branch-free selects; kernels/predict.cl shows the
 *   terms are unchanged), so the exactness argument above holds as it is, and the work is
 *   proportional to the nonzeros.
 *   GS_PRED_LAYOUT=rows or =dense forces one layout for every block (tests). */
#include "predict/predictor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/cluster.h"
#include "util/log.h"

#define PRED_WG 128 /* kernels/predict.cl's WG; passed as -DWG so the two cannot disagree */
#define PRED_RT 8
#define PRED_LX 1024 /* test values staged in local memory per work-group (kernels/predict.cl) */
/* A block is stored row-wise when its column union exceeds PRED_ROWS_MIN columns and
 * PRED_ROWS_RATIO times its widest SV. Measured on an H200 with every block forced row-wise:
 * a9a, w8a, letter, ijcnn1 as fast as dense; mnist10k (unions 1.5-2x the widest SV) 1.5x slower
 * whole-process; a text-like model (unions ~100x) 3.5x faster. 4 keeps mnist-like data dense. */
#define PRED_ROWS_RATIO 4
#define PRED_ROWS_MIN 64

void gs_rows_free(gs_rows *r)
{
    if (!r) return;
    free(r->row_ptr);
    free(r->idx);
    free(r->val);
    free(r->y);
    memset(r, 0, sizeof *r);
}

int gs_pred_n_dec(const gs_model *m)
{
    if (m->svm_type == GS_C_SVC || m->svm_type == GS_NU_SVC)
        return m->nr_class >= 2 ? m->nr_class * (m->nr_class - 1) / 2 : 0;
    if (m->svm_type == GS_CS_SVC) return m->nr_class > 0 ? m->nr_class : 0;
    return 1;
}

/* ---- CPU reference: svm_predict_values ---------------------------------------------------- */

static double cpu_dot(const int32_t *xi, const double *xv, int64_t xn, const int32_t *yi,
                      const double *yv, int64_t yn)
{
    double sum = 0;
    int64_t a = 0, b = 0;
    while (a < xn && b < yn) {
        if (xi[a] == yi[b]) {
            sum += xv[a] * yv[b];
            a++;
            b++;
        } else if (xi[a] > yi[b]) {
            b++;
        } else {
            a++;
        }
    }
    return sum;
}

static double cpu_powi(double base, int times)
{
    double tmp = base, ret = 1.0;
    for (int t = times; t > 0; t /= 2) {
        if (t % 2 == 1) ret *= tmp;
        tmp = tmp * tmp;
    }
    return ret;
}

static double cpu_kernel(const gs_model *m, const int32_t *xi, const double *xv, int64_t xn,
                         const int32_t *yi, const double *yv, int64_t yn)
{
    switch (m->kernel_type) {
    case GS_KERNEL_LINEAR:
        return cpu_dot(xi, xv, xn, yi, yv, yn);
    case GS_KERNEL_POLY:
        return cpu_powi(m->gamma * cpu_dot(xi, xv, xn, yi, yv, yn) + m->coef0, m->degree);
    case GS_KERNEL_SIGMOID:
        return tanh(m->gamma * cpu_dot(xi, xv, xn, yi, yv, yn) + m->coef0);
    default: { /* RBF: direct sum of squared differences over the merged vectors */
        double sum = 0;
        int64_t a = 0, b = 0;
        while (a < xn && b < yn) {
            if (xi[a] == yi[b]) {
                const double d = xv[a] - yv[b];
                sum += d * d;
                a++;
                b++;
            } else if (xi[a] > yi[b]) {
                sum += yv[b] * yv[b];
                b++;
            } else {
                sum += xv[a] * xv[a];
                a++;
            }
        }
        for (; a < xn; a++) sum += xv[a] * xv[a];
        for (; b < yn; b++) sum += yv[b] * yv[b];
        return exp(-m->gamma * sum);
    }
    }
}

gs_status gs_pred_cpu_dec(const gs_model *m, const gs_rows *rows, int32_t r, double *dec)
{
    const int64_t x0 = rows->row_ptr[r], xn = rows->row_ptr[r + 1] - x0;
    const int32_t *xi = rows->idx + x0;
    const double *xv = rows->val + x0;
    const int nd = gs_pred_n_dec(m);
    if (nd == 0) return GS_OK;
    const int nc = m->n_coef;
    const int classify = m->svm_type == GS_C_SVC || m->svm_type == GS_NU_SVC;
    const int k = classify ? m->nr_class : 1;
    double *kv = malloc(sizeof(double) * (m->l > 0 ? (size_t)m->l : 1));
    if (!kv) return GS_FAIL(GS_ERR_NOMEM, "out of memory for %d kernel values", (int)m->l);
    for (int32_t s = 0; s < m->l; s++) {
        const int64_t y0 = m->sv_ptr[s], yn = m->sv_ptr[s + 1] - y0;
        if (m->kernel_type == GS_KERNEL_PRECOMPUTED) {
            /* LIBSVM reads the test row's value at array position ID (compat §1.7). */
            const double id = yn > 0 ? m->sv_val[y0] : 0;
            if (!(id >= 0 && id < (double)xn)) {
                free(kv);
                return GS_FAIL(GS_ERR_FORMAT,
                               "precomputed kernel: the test row has %lld values but support vector "
                               "%d needs position %.17g",
                               (long long)xn, (int)s + 1, id);
            }
            kv[s] = xv[(int64_t)id];
        } else {
            kv[s] = cpu_kernel(m, xi, xv, xn, m->sv_idx + y0, m->sv_val + y0, yn);
        }
    }
    if (m->svm_type == GS_CS_SVC) { /* f_c(x) = sum_s coef[s][c] K(s, x) - rho[c], SVs in model order */
        for (int c = 0; c < nd; c++) {
            double sum = 0;
            for (int32_t s = 0; s < m->l; s++) sum += m->sv_coef[(int64_t)s * nc + c] * kv[s];
            dec[c] = sum - m->rho[c];
        }
        free(kv);
        return GS_OK;
    }
    if (!classify) {
        double sum = 0;
        for (int32_t s = 0; s < m->l; s++) sum += m->sv_coef[(int64_t)s * nc] * kv[s];
        dec[0] = sum - m->rho[0];
        free(kv);
        return GS_OK;
    }
    int p = 0;
    int32_t si = 0;
    for (int i = 0; i < k; i++) {
        int32_t sj = si + m->nSV[i];
        for (int j = i + 1; j < k; j++) {
            double sum = 0;
            for (int32_t s = si; s < si + m->nSV[i]; s++)
                sum += m->sv_coef[(int64_t)s * nc + (j - 1)] * kv[s];
            for (int32_t s = sj; s < sj + m->nSV[j]; s++)
                sum += m->sv_coef[(int64_t)s * nc + i] * kv[s];
            dec[p] = sum - m->rho[p];
            p++;
            sj += m->nSV[j];
        }
        si += m->nSV[i];
    }
    free(kv);
    return GS_OK;
}

/* ---- device engine ------------------------------------------------------------------------ */

struct gs_predictor {
    gs_ocl *ocl;
    gs_pred_program prg;
    const gs_model *m;
    int n_dec;
    int exact;             /* device bits == LIBSVM bits (err = 0) */
    int tile;              /* dense blocks take pred_kvals' tiled path (see kernels/predict.cl) */
    int force_blocks;      /* gs_tuning.pred_blocks: GS_PRED_BLOCKS_AUTO, _ROWS or _DENSE */
    int force_tile;        /* gs_tuning.pred_tile: 1 on, 0 off, GS_TUNE_AUTO (GPUs) */
    int prof;              /* the queue profiles: kernel times for --verbose */
    cl_event ev[64];       /* this chunk's kernel events (kvals, sum, ...) when profiling */
    int n_ev;
    gs_pred_times tm;      /* --verbose split (kernel seconds need a profiling queue) */
    int n_blocks;
    int32_t ld;            /* rows per pass (K buffer columns; 0 before the first chunk) */
    int32_t ld_max;        /* the most rows per pass the memory budget allows */
    double *pair_terms;    /* [n_dec] SV count per pair, for the bound */
    /* host layout, kept from gs_predictor_create until gs_predictor_attach uploads it */
    int64_t *h_off;
    int32_t *h_cols, *h_pos;
    double *h_vals;
    int *h_pairs;
    int64_t h_ncols;
    int32_t *h_ell_w, *h_ell_len, *h_ell_idx;
    int64_t *h_ell_off;
    double *h_ell_val;
    int n_ell;             /* blocks stored row-wise */
    cl_mem blk_off, cols, vals, pos_sv, pairs, coef, rho, K;
    cl_mem ell_w, ell_off, ell_idx, ell_val, ell_len;
    cl_mem x_ptr, x_idx, x_val, dec, mag;
    size_t cap_rows, cap_nnz; /* device capacities of the x and dec buffers */
    const gs_rows *cur;    /* chunk in flight */
    double t_device;
    double t_start;
};

gs_status gs_pred_program_build(gs_ocl *ocl, gs_pred_program *out)
{
    gs_status st = GS_OK;
    char opts[64];
    memset(out, 0, sizeof *out);
    snprintf(opts, sizeof opts, "-DWG=%d -DRT=%d -DLX=%d", PRED_WG, PRED_RT, PRED_LX);
    st = gs_ocl_build(ocl, "predict", opts, &out->prog);
    if (st != GS_OK) goto cleanup;
    if ((st = gs_ocl_kernel(out->prog, "pred_kvals", &out->k_kvals)) != GS_OK) goto cleanup;
    if ((st = gs_ocl_kernel(out->prog, "pred_sum", &out->k_sum)) != GS_OK) goto cleanup;
    if ((st = gs_ocl_kernel(out->prog, "pred_probe", &out->k_probe)) != GS_OK) goto cleanup;
cleanup:
    if (st != GS_OK) gs_pred_program_release(out);
    return st;
}

void gs_pred_program_release(gs_pred_program *p)
{
    if (!p) return;
    if (p->k_probe) clReleaseKernel(p->k_probe);
    if (p->k_sum) clReleaseKernel(p->k_sum);
    if (p->k_kvals) clReleaseKernel(p->k_kvals);
    if (p->prog) clReleaseProgram(p->prog);
    memset(p, 0, sizeof *p);
}

static void release_mem(cl_mem *m)
{
    if (*m) clReleaseMemObject(*m);
    *m = NULL;
}

/* Whether the compiler honoured FP_CONTRACT OFF: (1+2^-30)^2 - (1+2^-29) is 0 when the product is
 * rounded first and 2^-60 when fused. */
static gs_status probe_contraction(gs_predictor *p, int *contracts)
{
    gs_status st = GS_OK;
    cl_mem in = NULL, out = NULL;
    const double a = 1.0 + ldexp(1.0, -30);
    double host_in[3] = {a, a, -(1.0 + ldexp(1.0, -29))}, res = -1;
    st = gs_ocl_alloc(p->ocl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof host_in, host_in,
                      "probe input", &in);
    if (st != GS_OK) goto cleanup;
    st = gs_ocl_alloc(p->ocl, CL_MEM_WRITE_ONLY, sizeof(double), NULL, "probe output", &out);
    if (st != GS_OK) goto cleanup;
    GS_CL_CHECK(clSetKernelArg(p->prg.k_probe, 0, sizeof in, &in));
    GS_CL_CHECK(clSetKernelArg(p->prg.k_probe, 1, sizeof out, &out));
    size_t one = 1;
    GS_CL_CHECK(clEnqueueNDRangeKernel(p->ocl->queue, p->prg.k_probe, 1, NULL, &one, &one, 0, NULL,
                                       NULL));
    GS_CL_CHECK(clEnqueueReadBuffer(p->ocl->queue, out, CL_TRUE, 0, sizeof res, &res, 0, NULL, NULL));
    *contracts = res != 0.0;
cleanup:
    release_mem(&out);
    release_mem(&in);
    return st;
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The blocks' shapes, from the clustering's permutation: each block's SV positions (p->h_pos),
 * and either its column union (p->h_cols from p->h_off; dense blocks) or, where that union is far
 * wider than the block's widest SV (text-like data, where the dense block would be mostly zeros),
 * its widest SV (p->h_ell_w, slots from p->h_ell_off) and each SV's value count (p->h_ell_len).
 * Partial results stay in p (gs_predictor_free releases them). */
static gs_status plan_blocks(gs_predictor *p, const gs_clustered *cl)
{
    const gs_model *m = p->m;
    const int64_t nnz = m->sv_ptr[m->l];
    const int nb = cl->n_clusters;
    p->n_blocks = nb;
    /* The block unions are recomputed here (not taken from cl->cols) so the layout depends on the
     * clustering only through the permutation. */
    int64_t *off = p->h_off = malloc(sizeof(int64_t) * ((size_t)nb + 1));
    int32_t *pos = p->h_pos = malloc(sizeof(int32_t) * (size_t)nb * PRED_WG);
    int32_t *cols = p->h_cols = malloc(sizeof(int32_t) * (size_t)(nnz > 0 ? nnz : 1));
    int32_t *ell_w = p->h_ell_w = malloc(sizeof(int32_t) * (size_t)nb);
    int64_t *ell_off = p->h_ell_off = malloc(sizeof(int64_t) * ((size_t)nb + 1));
    int32_t *ell_len = p->h_ell_len = calloc((size_t)nb * PRED_WG, sizeof(int32_t));
    if (!off || !pos || !cols || !ell_w || !ell_off || !ell_len)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for the SV layout");
    /* GS_PRED_LAYOUT=rows / =dense (gs_tuning.pred_blocks) overrides the choice (tests run the
     * golden cases both ways). */
    const int force = p->force_blocks == GS_PRED_BLOCKS_ROWS ? 1 : p->force_blocks == GS_PRED_BLOCKS_DENSE ? -1 : 0;
    off[0] = 0;
    ell_off[0] = 0;
    p->n_ell = 0;
    for (int b = 0; b < nb; b++) {
        int64_t n = 0;
        int32_t widest = 0;
        for (int t = 0; t < PRED_WG; t++) {
            const int32_t s = cl->perm[(int64_t)b * PRED_WG + t];
            pos[(int64_t)b * PRED_WG + t] = s;
            if (s < 0) continue;
            const int32_t len = (int32_t)(m->sv_ptr[s + 1] - m->sv_ptr[s]);
            ell_len[(int64_t)b * PRED_WG + t] = len;
            if (len > widest) widest = len;
        }
        for (int t = 0; t < PRED_WG; t++) {
            const int32_t s = pos[(int64_t)b * PRED_WG + t];
            if (s < 0) continue;
            for (int64_t e = m->sv_ptr[s]; e < m->sv_ptr[s + 1]; e++) cols[off[b] + n++] = m->sv_idx[e];
        }
        int32_t *u = cols + off[b];
        qsort(u, (size_t)n, sizeof *u, cmp_i32);
        int64_t w = 0;
        for (int64_t e = 0; e < n; e++)
            if (w == 0 || u[w - 1] != u[e]) u[w++] = u[e];
        /* Row-wise where the union is much wider than the widest SV (the dense merge would walk
         * mostly padding); the block's union is dropped then. */
        const int row_wise = force > 0 || (force == 0 && widest > 0 && w > PRED_ROWS_MIN &&
                                           w > (int64_t)PRED_ROWS_RATIO * widest);
        ell_w[b] = row_wise ? widest : 0;
        ell_off[b + 1] = ell_off[b] + (int64_t)ell_w[b] * PRED_WG;
        if (ell_w[b] > 0) {
            p->n_ell++;
            off[b + 1] = off[b];
        } else {
            for (int t = 0; t < PRED_WG; t++) ell_len[(int64_t)b * PRED_WG + t] = 0;
            off[b + 1] = off[b] + w;
        }
    }
    p->h_ncols = off[nb];
    return GS_OK;
}

/* The SV values into plan_blocks' shapes: dense blocks column-major in double over their union
 * (p->h_vals), row-wise blocks slot by slot (p->h_ell_idx, p->h_ell_val). */
static gs_status fill_blocks(gs_predictor *p)
{
    const gs_model *m = p->m;
    const int nb = p->n_blocks;
    const int64_t *off = p->h_off, *ell_off = p->h_ell_off;
    const int32_t *pos = p->h_pos;
    const int64_t ncols = p->h_ncols, nell = ell_off[nb];
    double *vals = p->h_vals = calloc((size_t)(ncols > 0 ? ncols : 1) * PRED_WG, sizeof(double));
    int32_t *ell_idx = p->h_ell_idx = calloc((size_t)(nell > 0 ? nell : 1), sizeof(int32_t));
    double *ell_val = p->h_ell_val = calloc((size_t)(nell > 0 ? nell : 1), sizeof(double));
    if (!vals || !ell_idx || !ell_val) return GS_FAIL(GS_ERR_NOMEM, "out of memory for the SV layout");
    for (int b = 0; b < nb; b++) {
        if (p->h_ell_w[b] > 0) { /* the SV's values in order (the model reader checked they ascend) */
            for (int t = 0; t < PRED_WG; t++) {
                const int32_t s = pos[(int64_t)b * PRED_WG + t];
                if (s < 0) continue;
                const int64_t base = ell_off[b] + t;
                for (int64_t e = m->sv_ptr[s]; e < m->sv_ptr[s + 1]; e++) {
                    const int64_t k = base + (e - m->sv_ptr[s]) * PRED_WG;
                    ell_idx[k] = m->sv_idx[e];
                    ell_val[k] = m->sv_val[e];
                }
            }
            continue;
        }
        const int32_t *u = p->h_cols + off[b];
        const int64_t nu = off[b + 1] - off[b];
        for (int t = 0; t < PRED_WG; t++) {
            const int32_t s = pos[(int64_t)b * PRED_WG + t];
            if (s < 0) continue;
            int64_t j = 0;
            for (int64_t e = m->sv_ptr[s]; e < m->sv_ptr[s + 1]; e++) {
                while (j < nu && u[j] < m->sv_idx[e]) j++;
                if (j == nu || u[j] != m->sv_idx[e])
                    return GS_FAIL(GS_ERR_INTERNAL, "SV %d: indices not ascending", (int)s + 1);
                vals[(off[b] + j) * PRED_WG + t] = m->sv_val[e];
            }
        }
    }
    return GS_OK;
}

/* Pair table (p->h_pairs): [first, end, column] for the first and the second class of each
 * decision value's pair, and its SV count (p->pair_terms, for the bound). */
static gs_status build_pairs(gs_predictor *p)
{
    const gs_model *m = p->m;
    const int nd = p->n_dec;
    const int32_t l = m->l;
    int *pairs = p->h_pairs = malloc(sizeof(int) * 6 * (size_t)nd);
    p->pair_terms = malloc(sizeof(double) * (size_t)nd);
    if (!pairs || !p->pair_terms) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    if (m->svm_type == GS_C_SVC || m->svm_type == GS_NU_SVC) {
        int q = 0;
        int32_t si = 0;
        for (int i = 0; i < m->nr_class; i++) {
            int32_t sj = si + m->nSV[i];
            for (int j = i + 1; j < m->nr_class; j++, q++) {
                int *e = pairs + 6 * q;
                e[0] = si; e[1] = si + m->nSV[i]; e[2] = j - 1;
                e[3] = sj; e[4] = sj + m->nSV[j]; e[5] = i;
                p->pair_terms[q] = (double)m->nSV[i] + m->nSV[j];
                sj += m->nSV[j];
            }
            si += m->nSV[i];
        }
    } else if (m->svm_type == GS_CS_SVC) { /* one "pair" per class: all SVs, column c, no second side */
        for (int c = 0; c < nd; c++) {
            int *e = pairs + 6 * c;
            e[0] = 0; e[1] = l; e[2] = c; e[3] = 0; e[4] = 0; e[5] = 0;
            p->pair_terms[c] = l;
        }
    } else {
        int *e = pairs;
        e[0] = 0; e[1] = l; e[2] = 0; e[3] = 0; e[4] = 0; e[5] = 0;
        p->pair_terms[0] = l;
    }
    return GS_OK;
}

/* The host layout gs_predictor_attach uploads: blocks of PRED_WG SVs in clustered order (the SVs'
 * sparsity clustering, values rounded to float only for the clustering), then their values and
 * the pair table. On failure the parts made so far stay in p for gs_predictor_free. */
static gs_status build_layout(gs_predictor *p)
{
    gs_status st = GS_OK;
    const gs_model *m = p->m;
    const int64_t nnz = m->sv_ptr[m->l];
    gs_clustered cl;
    memset(&cl, 0, sizeof cl);
    float *fval = malloc(sizeof(float) * (size_t)(nnz > 0 ? nnz : 1));
    if (!fval) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for the support vectors"); goto cleanup; }
    for (int64_t e = 0; e < nnz; e++) fval[e] = (float)m->sv_val[e];
    st = gs_cluster_build(m->sv_ptr, m->sv_idx, fval, m->l, PRED_WG, 64, 1, &cl);
    if (st == GS_OK) st = plan_blocks(p, &cl);
    if (st == GS_OK) st = fill_blocks(p);
    if (st == GS_OK) st = build_pairs(p);
cleanup:
    free(fval);
    gs_clustered_free(&cl);
    return st;
}

/* Frees the host copy of the layout (after the upload, or on failure) and zeroes its pointers. */
static void free_host_layout(gs_predictor *p)
{
    free(p->h_off);
    free(p->h_cols);
    free(p->h_pos);
    free(p->h_vals);
    free(p->h_pairs);
    free(p->h_ell_w);
    free(p->h_ell_off);
    free(p->h_ell_idx);
    free(p->h_ell_val);
    free(p->h_ell_len);
    p->h_off = p->h_ell_off = NULL;
    p->h_cols = p->h_pos = p->h_ell_w = p->h_ell_idx = p->h_ell_len = NULL;
    p->h_vals = p->h_ell_val = NULL;
    p->h_pairs = NULL;
}

gs_status gs_predictor_create(const gs_model *m, const gs_tuning *tuning, gs_predictor **out)
{
    gs_status st = GS_OK;
    *out = NULL;
    gs_predictor *p = calloc(1, sizeof *p);
    if (!p) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    p->m = m;
    p->force_blocks = tuning ? tuning->pred_blocks : GS_PRED_BLOCKS_AUTO;
    p->force_tile = tuning ? tuning->pred_tile : GS_TUNE_AUTO;
    p->n_dec = gs_pred_n_dec(m);
    if (m->l < 1 || p->n_dec < 1 || m->kernel_type == GS_KERNEL_PRECOMPUTED) {
        st = GS_FAIL(GS_ERR_ARG, "the model has no support vectors to evaluate on a device");
        goto cleanup;
    }
    const double t0 = gs_now();
    st = build_layout(p);
    p->t_device += gs_now() - t0;
cleanup:
    if (st != GS_OK) {
        gs_predictor_free(p);
        return st;
    }
    *out = p;
    return GS_OK;
}

gs_status gs_predictor_attach(gs_predictor *p, gs_ocl *ocl, gs_pred_program *prog)
{
    gs_status st = GS_OK;
    const gs_model *m = p->m;
    const double t0 = gs_now();
    p->ocl = ocl;
    p->prg = *prog;
    memset(prog, 0, sizeof *prog);
    const size_t nb = (size_t)p->n_blocks, nc = (size_t)(p->h_ncols > 0 ? p->h_ncols : 1);
    const size_t nd = (size_t)p->n_dec;
    const cl_mem_flags ro = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    if ((st = gs_ocl_alloc(ocl, ro, sizeof(int64_t) * (nb + 1), p->h_off, "SV block offsets", &p->blk_off)))
        goto cleanup;
    if ((st = gs_ocl_alloc(ocl, ro, sizeof(int32_t) * nc, p->h_cols, "SV columns", &p->cols)))
        goto cleanup;
    if ((st = gs_ocl_alloc(ocl, ro, sizeof(double) * nc * PRED_WG, p->h_vals, "SV values", &p->vals)))
        goto cleanup;
    if ((st = gs_ocl_alloc(ocl, ro, sizeof(int32_t) * nb * PRED_WG, p->h_pos, "SV positions", &p->pos_sv)))
        goto cleanup;
    if ((st = gs_ocl_alloc(ocl, ro, sizeof(int) * 6 * nd, p->h_pairs, "pair table", &p->pairs)))
        goto cleanup;
    const size_t ne = (size_t)(p->h_ell_off[nb] > 0 ? p->h_ell_off[nb] : 1);
    if ((st = gs_ocl_alloc(ocl, ro, sizeof(int32_t) * nb, p->h_ell_w, "SV block widths", &p->ell_w)))
        goto cleanup;
    if ((st = gs_ocl_alloc(ocl, ro, sizeof(int64_t) * (nb + 1), p->h_ell_off, "SV slot offsets", &p->ell_off)))
        goto cleanup;
    if ((st = gs_ocl_alloc(ocl, ro, sizeof(int32_t) * ne, p->h_ell_idx, "SV slot columns", &p->ell_idx)))
        goto cleanup;
    if ((st = gs_ocl_alloc(ocl, ro, sizeof(double) * ne, p->h_ell_val, "SV slot values", &p->ell_val)))
        goto cleanup;
    if ((st = gs_ocl_alloc(ocl, ro, sizeof(int32_t) * nb * PRED_WG, p->h_ell_len, "SV lengths", &p->ell_len)))
        goto cleanup;
    if ((st = gs_ocl_alloc(ocl, ro, sizeof(double) * (size_t)m->l * (size_t)m->n_coef, m->sv_coef,
                           "SV coefficients", &p->coef)))
        goto cleanup;
    if ((st = gs_ocl_alloc(ocl, ro, sizeof(double) * nd, m->rho, "rho", &p->rho)))
        goto cleanup;
    cl_command_queue_properties qp = 0;
    if (clGetCommandQueueInfo(ocl->queue, CL_QUEUE_PROPERTIES, sizeof qp, &qp, NULL) == CL_SUCCESS)
        p->prof = (qp & CL_QUEUE_PROFILING_ENABLE) != 0;
    int contracts = 1;
    if ((st = probe_contraction(p, &contracts)) != GS_OK) goto cleanup;
    p->exact = !contracts && (m->kernel_type == GS_KERNEL_LINEAR || m->kernel_type == GS_KERNEL_POLY);
    /* The tiled path (GPUs by default: on a CPU device the merge is faster) adds x * 0 for the
     * dot kernels, which is exact only for finite SV values (RBF's (x - 0)^2 and (0 - v)^2 are
     * exact for any value). GS_PRED_LAYOUT=tile / =merge (gs_tuning.pred_tile) force it on / off
     * (the tests run the golden cases both ways). */
    p->tile = p->force_tile != GS_TUNE_AUTO ? p->force_tile == 1 : (ocl->device_type & CL_DEVICE_TYPE_GPU) != 0;
    if (p->tile && m->kernel_type != GS_KERNEL_RBF)
        for (int64_t e = 0; e < m->sv_ptr[m->l]; e++)
            if (!isfinite(m->sv_val[e])) { p->tile = 0; break; }
    /* K buffer: one column per row of a pass. A quarter of the device memory (at most 1 GiB, and
     * 16 MiB on CPU devices where it is host memory: a9a.t's 256 MiB there made gpusvm-predict's
     * peak 352 MB against svm-predict's 6 MB, and smaller passes cost no time on a CPU) bounds it. */
    cl_ulong budget = ocl->global_mem / 4;
    if (budget > ocl->max_alloc) budget = ocl->max_alloc;
    const cl_ulong cap = (ocl->device_type & CL_DEVICE_TYPE_GPU) ? (1ull << 30) : (16ull << 20);
    if (budget > cap) budget = cap;
    cl_ulong ld = budget / ((cl_ulong)m->l * sizeof(double));
    if (ld > 65536) ld = 65536;
    ld = ld / PRED_RT * PRED_RT;
    if (ld < PRED_RT) ld = PRED_RT;
    p->ld_max = (int32_t)ld; /* allocated per chunk (ensure_capacity): no more than it needs */
cleanup:
    free_host_layout(p);
    p->t_device += gs_now() - t0;
    return st;
}

int gs_predictor_exact(const gs_predictor *p)
{
    return p->exact;
}

gs_pred_times gs_predictor_times(const gs_predictor *p) { return p->tm; }

double gs_predictor_device_seconds(const gs_predictor *p)
{
    return p->t_device;
}

int gs_predictor_row_wise_blocks(const gs_predictor *p, int *n_blocks)
{
    if (n_blocks) *n_blocks = p->n_blocks;
    return p->n_ell;
}

static gs_status ensure_capacity(gs_predictor *p, const gs_rows *rows)
{
    gs_status st = GS_OK;
    const size_t nr = (size_t)rows->l, nz = (size_t)rows->row_ptr[rows->l];
    const int32_t want = nr >= (size_t)p->ld_max ? p->ld_max : (int32_t)((nr + PRED_RT - 1) / PRED_RT * PRED_RT);
    if (want > p->ld) {
        release_mem(&p->K);
        p->ld = 0;
        if ((st = gs_ocl_alloc(p->ocl, CL_MEM_READ_WRITE, sizeof(double) * (size_t)want * (size_t)p->m->l, NULL,
                               "kernel values", &p->K)))
            return st;
        p->ld = want;
    }
    if (nr > p->cap_rows) {
        release_mem(&p->x_ptr);
        release_mem(&p->dec);
        release_mem(&p->mag);
        const size_t c = nr;
        if ((st = gs_ocl_alloc(p->ocl, CL_MEM_READ_ONLY, sizeof(int64_t) * (c + 1), NULL, "row offsets", &p->x_ptr)))
            return st;
        if ((st = gs_ocl_alloc(p->ocl, CL_MEM_WRITE_ONLY, sizeof(double) * c * (size_t)p->n_dec, NULL, "decision values", &p->dec)))
            return st;
        if ((st = gs_ocl_alloc(p->ocl, CL_MEM_WRITE_ONLY, sizeof(double) * c * (size_t)p->n_dec, NULL, "decision magnitudes", &p->mag)))
            return st;
        p->cap_rows = c;
    }
    if (nz > p->cap_nnz || !p->x_idx) {
        release_mem(&p->x_idx);
        release_mem(&p->x_val);
        const size_t c = nz + nz / 4 + 1024;
        if ((st = gs_ocl_alloc(p->ocl, CL_MEM_READ_ONLY, sizeof(int32_t) * c, NULL, "test indices", &p->x_idx)))
            return st;
        if ((st = gs_ocl_alloc(p->ocl, CL_MEM_READ_ONLY, sizeof(double) * c, NULL, "test values", &p->x_val)))
            return st;
        p->cap_nnz = c;
    }
    return st;
}

gs_status gs_predictor_start(gs_predictor *p, const gs_rows *rows)
{
    gs_status st = GS_OK;
    cl_command_queue q = p->ocl->queue;
    const gs_model *m = p->m;
    p->cur = rows;
    p->t_start = gs_now();
    if (rows->l == 0) return GS_OK;
    if ((st = ensure_capacity(p, rows)) != GS_OK) return st;
    p->tm.alloc += gs_now() - p->t_start;
    const size_t nz = (size_t)rows->row_ptr[rows->l];
    GS_CL_CHECK(clEnqueueWriteBuffer(q, p->x_ptr, CL_FALSE, 0, sizeof(int64_t) * ((size_t)rows->l + 1),
                                     rows->row_ptr, 0, NULL, NULL));
    if (nz > 0) {
        GS_CL_CHECK(clEnqueueWriteBuffer(q, p->x_idx, CL_FALSE, 0, sizeof(int32_t) * nz, rows->idx, 0, NULL, NULL));
        GS_CL_CHECK(clEnqueueWriteBuffer(q, p->x_val, CL_FALSE, 0, sizeof(double) * nz, rows->val, 0, NULL, NULL));
    }
    const int kt = m->kernel_type, deg = m->degree, nc = m->n_coef, nd = p->n_dec;
    const double gamma = m->gamma, coef0 = m->coef0;
    cl_kernel kk = p->prg.k_kvals, ks = p->prg.k_sum;
    int a = 0;
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof kt, &kt));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof gamma, &gamma));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof coef0, &coef0));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof deg, &deg));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->blk_off));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->cols));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->vals));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->pos_sv));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->x_ptr));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->x_idx));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->x_val));
    const int a_row0 = a++, a_rows = a++;
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->K));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof p->ld, &p->ld));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->ell_w));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->ell_off));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->ell_idx));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->ell_val));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof(cl_mem), &p->ell_len));
    GS_CL_CHECK(clSetKernelArg(kk, a++, sizeof p->tile, &p->tile));
    a = 0;
    GS_CL_CHECK(clSetKernelArg(ks, a++, sizeof(cl_mem), &p->K));
    GS_CL_CHECK(clSetKernelArg(ks, a++, sizeof p->ld, &p->ld));
    const int s_row0 = a++, s_rows = a++;
    GS_CL_CHECK(clSetKernelArg(ks, a++, sizeof(cl_mem), &p->pairs));
    GS_CL_CHECK(clSetKernelArg(ks, a++, sizeof(cl_mem), &p->coef));
    GS_CL_CHECK(clSetKernelArg(ks, a++, sizeof nc, &nc));
    GS_CL_CHECK(clSetKernelArg(ks, a++, sizeof(cl_mem), &p->rho));
    GS_CL_CHECK(clSetKernelArg(ks, a++, sizeof nd, &nd));
    GS_CL_CHECK(clSetKernelArg(ks, a++, sizeof(cl_mem), &p->dec));
    GS_CL_CHECK(clSetKernelArg(ks, a++, sizeof(cl_mem), &p->mag));
    for (int32_t r0 = 0; r0 < rows->l; r0 += p->ld) {
        const int n = rows->l - r0 < p->ld ? rows->l - r0 : p->ld;
        GS_CL_CHECK(clSetKernelArg(kk, a_row0, sizeof r0, &r0));
        GS_CL_CHECK(clSetKernelArg(kk, a_rows, sizeof n, &n));
        const size_t lk[2] = {PRED_WG, 1};
        const size_t gk[2] = {(size_t)p->n_blocks * PRED_WG, (size_t)((n + PRED_RT - 1) / PRED_RT)};
        GS_CL_CHECK(clEnqueueNDRangeKernel(q, kk, 2, NULL, gk, lk, 0, NULL,
                                           p->prof && p->n_ev < 63 ? &p->ev[p->n_ev++] : NULL));
        GS_CL_CHECK(clSetKernelArg(ks, s_row0, sizeof r0, &r0));
        GS_CL_CHECK(clSetKernelArg(ks, s_rows, sizeof n, &n));
        const size_t ls[2] = {64, 1};
        const size_t gs[2] = {(size_t)(n + 63) / 64 * 64, (size_t)nd};
        GS_CL_CHECK(clEnqueueNDRangeKernel(q, ks, 2, NULL, gs, ls, 0, NULL,
                                           p->prof && p->n_ev < 64 ? &p->ev[p->n_ev++] : NULL));
    }
    GS_CL_CHECK(clFlush(q));
    p->tm.enqueue += gs_now() - p->t_start;
cleanup:
    return st;
}

gs_status gs_predictor_finish(gs_predictor *p, double *dec, double *err)
{
    gs_status st = GS_OK;
    const gs_rows *rows = p->cur;
    const int nd = p->n_dec;
    if (!rows || rows->l == 0) return GS_OK;
    const size_t n = (size_t)rows->l * (size_t)nd;
    GS_CL_CHECK(clEnqueueReadBuffer(p->ocl->queue, p->dec, CL_FALSE, 0, sizeof(double) * n, dec, 0, NULL, NULL));
    const double tw = gs_now();
    GS_CL_CHECK(clEnqueueReadBuffer(p->ocl->queue, p->mag, CL_TRUE, 0, sizeof(double) * n, err, 0, NULL, NULL));
    p->tm.wait += gs_now() - tw;
    const double u = ldexp(1.0, -53);
    for (int32_t r = 0; r < rows->l; r++) {
        int finite = 1;
        for (int64_t e = rows->row_ptr[r]; e < rows->row_ptr[r + 1]; e++)
            if (!isfinite(rows->val[e])) finite = 0;
        for (int q = 0; q < nd; q++) {
            double *e = err + (size_t)r * nd + q;
            if (!finite) *e = INFINITY;
            else if (p->exact) *e = 0;
            else *e = (2 * p->pair_terms[q] + 64) * u * (*e + fabs(p->m->rho[q])) * 1.0001 + 1e-300;
        }
    }
    p->t_device += gs_now() - p->t_start;
    for (int i = 0; i < p->n_ev; i++) { /* kvals, sum, kvals, sum, ... */
        cl_ulong b = 0, e = 0;
        if (clGetEventProfilingInfo(p->ev[i], CL_PROFILING_COMMAND_START, sizeof b, &b, NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(p->ev[i], CL_PROFILING_COMMAND_END, sizeof e, &e, NULL) == CL_SUCCESS)
            *(i % 2 ? &p->tm.sum : &p->tm.kvals) += (double)(e - b) * 1e-9;
        clReleaseEvent(p->ev[i]);
    }
    p->n_ev = 0;
cleanup:
    p->cur = NULL;
    return st;
}

void gs_predictor_free(gs_predictor *p)
{
    if (!p) return;
    /* A chunk may still be in flight (an error elsewhere ended the run): its non-blocking writes
     * read the caller's rows and its read fills the caller's buffer, so wait for them before the
     * caller frees those. */
    if (p->ocl && p->ocl->queue) clFinish(p->ocl->queue);
    for (int i = 0; i < p->n_ev; i++) clReleaseEvent(p->ev[i]);
    release_mem(&p->mag);
    release_mem(&p->dec);
    release_mem(&p->x_val);
    release_mem(&p->x_idx);
    release_mem(&p->x_ptr);
    release_mem(&p->K);
    release_mem(&p->ell_len);
    release_mem(&p->ell_val);
    release_mem(&p->ell_idx);
    release_mem(&p->ell_off);
    release_mem(&p->ell_w);
    release_mem(&p->rho);
    release_mem(&p->coef);
    release_mem(&p->pairs);
    release_mem(&p->pos_sv);
    release_mem(&p->vals);
    release_mem(&p->cols);
    release_mem(&p->blk_off);
    gs_pred_program_release(&p->prg);
    free(p->pair_terms);
    free_host_layout(p);
    free(p);
}
