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
 *   u of a partial sum bounded by sum |coef K|. That holds for any order of the additions, so
 *   where a pass has few rows and the pairs many SVs the device adds them in segments (pred_part,
 *   then pred_fin adds the segments; seg_count): the bound is unchanged, the work parallel.
 * - predict.c uses the bound per row: a label (sign, vote) or a monotone probability line whose
 *   printed text is the same at dec - err and dec + err is taken from the device; any other row is
 *   recomputed with gs_pred_cpu_dec (glibc's exp/tanh, i.e. svm-predict's own numbers).
 * - Regression (%.17g) and multiclass -b 1 need every row's bits, so RBF/sigmoid models take the
 *   host exact path there (gs_predictor_host_exact, "hx"): pred_kvals stores the argument of
 *   exp / tanh (LIBSVM's -gamma * sum or gamma * dot + coef0, two roundings with contraction off)
 *   row-major, the host applies the C library's exp / tanh and svm_predict_values' sums on all
 *   cores while the device computes the next pass: err = 0, and no merge loop on the CPU.
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
 * - On a GPU the row-wise blocks' values come from hash tables of the test rows instead
 *   (pred_khash: each SV's values read once for PRED_HR rows, no merge; text-gen's model 4.4x
 *   faster). Dot products keep LIBSVM's bits (its terms in its order, +-0 for the others), so
 *   linear and polynomial stay exact and sigmoid's argument is LIBSVM's; RBF's distance is
 *   |sv|^2 + |x|^2 - 2 sv.x, whose difference from LIBSVM's widens each row's bound
 *   (rbf_hash_dz: by a few hundred u relative on scaled text, far below any label's margin).
 *   GS_PRED_LAYOUT=rows or =dense (gs_tuning.pred_blocks) forces one layout for every block,
 *   =hash / =nohash the tables on / off (tests). */
#include "predict/predictor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/cluster.h"
#include "kernels/abi.h"
#include "util/log.h"
#include "util/parallel.h"

#define PRED_WG 128 /* kernels/predict.cl's WG; passed as -DWG so the two cannot disagree */
#define PRED_RT 8
#define PRED_LX 1024 /* test values staged in local memory per work-group (kernels/predict.cl) */
/* pred_khash: test rows per work-group and their table slots (12 KiB of local memory; a row of
 * up to HP / 2 values fits). On an H100, text-gen's 20,000 test rows against its 63,284-SV model,
 * kernel values (the merge: 3.38 s): 8 rows in 3,072 slots 0.86 s, 4 in 2,048 0.82 s, 4 in 1,536
 * 0.78 s, 2 in 1,024 0.76 s, 2 in 768 0.73 s (rows of 385-512 values would take the merge). */
#ifndef PRED_HR
#define PRED_HR 2
#endif
#ifndef PRED_HP
#define PRED_HP 1024
#endif
/* The host exact path's pass (hx): its exp / tanh arguments read into pinned memory, two passes of
 * at most this many MiB. On an H100, a9a's -b 1 (five folds, 2.4 GB of arguments) took 0.33 s of
 * values with 16 MiB passes and 0.45 s with 64 (pinning costs the driver time per byte), against
 * 0.71 s read into unpinned memory (scripts/bench-costs.sh, part prob). */
#ifndef HX_PASS_MIB
#define HX_PASS_MIB 16
#endif
/* Passes smaller than this are read into plain memory: pinning each of mnist10k's 225 -b 1 folds'
 * two 2 MB buffers cost more than their reads gained */
#ifndef HX_PIN_MIN
#define HX_PIN_MIN ((size_t)4 << 20)
#endif
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

double gs_pred_kernel(const gs_model *m, const int32_t *xi, const double *xv, int64_t xn, const int32_t *yi,
                      const double *yv, int64_t yn)
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

/* svm_predict_values' sums from the kernel values kv[s] (model SV order), into dec. */
static void pred_sums(const gs_model *m, const double *kv, double *dec)
{
    const int nd = gs_pred_n_dec(m);
    const int nc = m->n_coef;
    const int classify = m->svm_type == GS_C_SVC || m->svm_type == GS_NU_SVC;
    const int k = classify ? m->nr_class : 1;
    if (m->svm_type == GS_CS_SVC) { /* f_c(x) = sum_s coef[s][c] K(s, x) - rho[c], SVs in model order */
        for (int c = 0; c < nd; c++) {
            double sum = 0;
            for (int32_t s = 0; s < m->l; s++) sum += m->sv_coef[(int64_t)s * nc + c] * kv[s];
            dec[c] = sum - m->rho[c];
        }
        return;
    }
    if (!classify) {
        double sum = 0;
        for (int32_t s = 0; s < m->l; s++) sum += m->sv_coef[(int64_t)s * nc] * kv[s];
        dec[0] = sum - m->rho[0];
        return;
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
}

gs_status gs_pred_cpu_dec(const gs_model *m, const gs_rows *rows, int32_t r, double *dec)
{
    const int64_t x0 = rows->row_ptr[r], xn = rows->row_ptr[r + 1] - x0;
    const int32_t *xi = rows->idx + x0;
    const double *xv = rows->val + x0;
    if (gs_pred_n_dec(m) == 0) return GS_OK;
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
            kv[s] = gs_pred_kernel(m, xi, xv, xn, m->sv_idx + y0, m->sv_val + y0, yn);
        }
    }
    pred_sums(m, kv, dec);
    free(kv);
    return GS_OK;
}


/* ---- device engine ------------------------------------------------------------------------ */

enum { PK_KVALS, PK_SUM, PK_PROBE, PK_PART, PK_FIN, PK_KHASH, PK_N };
static const char *const pk_names[PK_N] = {"pred_kvals", "pred_sum", "pred_probe", "pred_part", "pred_fin",
                                           "pred_khash"};

/* The SVs' layout on the host, from gs_predictor_create until gs_predictor_attach uploads it. */
typedef struct sv_layout {
    int64_t *off;        /* [nb+1] dense blocks: the block's union at cols[off[b] .. off[b+1]) */
    int32_t *cols;
    double *vals;        /* [ncols * PRED_WG] union column j, SV t: vals[(off[b] + j) * PRED_WG + t] */
    int64_t ncols;
    int32_t *pos;        /* [nb * PRED_WG] the SV at each position, -1 for padding */
    int32_t *ell_w;      /* [nb] row-wise blocks: slots per SV (0 for a dense block) */
    int64_t *ell_off;    /* [nb+1] where a block's slots start in ell_idx / ell_val; runs:
                            [nb * PRED_WG + 1], where each SV's run starts */
    int32_t *ell_idx;    /* SV t's e-th column at ell_off[b] + e * PRED_WG + t (runs:
                            ell_off[b * PRED_WG + t] + e) */
    double *ell_val;
    int32_t *ell_len;    /* [nb * PRED_WG] values of each SV of a row-wise block */
    double *n2;          /* [nb * PRED_WG] each SV's sum of squares (pred_khash's RBF) */
    gs_abi_pair *pairs;  /* [n_dec] pair table */
} sv_layout;

static void sv_layout_free(sv_layout *L)
{
    free(L->off); free(L->cols); free(L->vals); free(L->pos); free(L->ell_w); free(L->ell_off);
    free(L->ell_idx); free(L->ell_val); free(L->ell_len); free(L->n2); free(L->pairs);
    memset(L, 0, sizeof *L);
}

/* The layout on the device, uploaded once. */
typedef struct sv_bufs {
    gs_dev_buf blk_off, cols, vals, pos_sv, pairs, coef, rho, ell_w, ell_off, ell_idx, ell_val, ell_len, n2;
} sv_bufs;
/* A chunk's buffers, grown as chunks need. */
typedef struct chunk_bufs {
    gs_dev_buf K, x_ptr, x_idx, x_val, dec, mag, part;
} chunk_bufs;

struct gs_predictor {
    gs_ocl *ocl;
    int force_blocks;      /* gs_tuning.pred_blocks: GS_PRED_BLOCKS_AUTO, _ROWS or _DENSE */
    int force_tile;        /* gs_tuning.pred_tile: 1 on, 0 off, GS_TUNE_AUTO (GPUs) */
    int force_hash;        /* gs_tuning.pred_hash: 0 off, GS_TUNE_AUTO */
    int hash;              /* row-wise blocks take pred_khash (hash_wanted, every SV value finite) */
    int sv_finite;         /* every SV value finite (sv_summary) */
    int32_t sv_nmax;       /* the most values of an SV (rbf_hash_dz) */
    double sv_n2all;       /* the largest SV sum of squares (rbf_hash_dz) */
    gs_dev dev;
    gs_pred_program prg;
    const gs_model *m;
    int n_dec;
    int exact;             /* device bits == LIBSVM bits (err = 0) */
    int want_hx, hx;       /* host exact path asked for / in use (gs_predictor_host_exact) */
    int want_codes;        /* gs_tuning.pred_codes */
    double sv_n2max;       /* hx, RBF, every SV value a small integer (codes possible): the largest
                              SV's sum of squares; -1 otherwise */
    int codes;             /* hx: this chunk's passes read 16-bit squared distances (see codes_check) */
    double *ctab;          /* codes: exp(-gamma k) for k in [0, ctab_n) */
    int32_t ctab_n;
    double *kvs;           /* codes: a row of kernel values for each host thread [nkvs][l] */
    int nkvs;
    double *hk[2];         /* hx: two passes' exp/tanh arguments, [ld rows][l SVs] each (in hkp) */
    gs_dev_pinned hkp[2];  /* hx: their pinned memory (a9a's folds read 2.4 GB of it) */
    size_t hk_bytes;       /* hx: what each of hk[] holds */
    cl_event hk_ev[2];     /* hx: the read into hk[i] */
    int32_t hx_r0;         /* hx: first row of the pass in hk[hx_cur] */
    int hx_cur;
    int tile;              /* dense blocks take pred_kvals' tiled path (see kernels/predict.cl) */
    gs_dev_prof pf;        /* this chunk's kernel events when the queue profiles */
    gs_pred_times tm;      /* --verbose split (kernel seconds need a profiling queue) */
    int n_blocks;
    int n_ell;             /* blocks stored row-wise */
    int runs;              /* row-wise SVs as runs, not slots (a wide SV set, cluster.h's is_wide) */
    int32_t ld;            /* rows per pass (K buffer columns; 0 before the first chunk) */
    int32_t ld_max;        /* the most rows per pass the memory budget allows */
    int nseg;              /* > 1: the pairs' sums in nseg segments (pred_part, pred_fin; see
                              seg_count), else pred_sum's one sequential sum */
    double *pair_terms;    /* [n_dec] SV count per pair, for the bound */
    sv_layout h;           /* host layout until the upload */
    sv_bufs sv;
    chunk_bufs x;
    size_t cap_rows, cap_nnz; /* rows and values the x and dec buffers hold */
    const gs_rows *cur;    /* chunk in flight */
    double t_device;
    double t_start;
};

gs_status gs_pred_program_build(gs_ocl *ocl, gs_pred_program *out)
{
    char opts[64];
    snprintf(opts, sizeof opts, "-DWG=%d -DRT=%d -DLX=%d -DHR=%d -DHP=%d", PRED_WG, PRED_RT, PRED_LX, PRED_HR,
             PRED_HP);
    return gs_dev_kernels_build(ocl, "predict", opts, 1, pk_names, PK_N, &out->ks);
}

void gs_pred_program_release(gs_pred_program *p)
{
    if (!p) return;
    gs_dev_kernels_release(&p->ks);
}

/* Whether the compiler honoured FP_CONTRACT OFF: (1+2^-30)^2 - (1+2^-29) is 0 when the product is
 * rounded first and 2^-60 when fused. Blocking: every upload queued before it is done after it. */
static gs_status probe_contraction(gs_predictor *p, int *contracts)
{
    gs_status st = GS_OK;
    gs_dev_buf in = {0}, out = {0};
    const double a = 1.0 + ldexp(1.0, -30);
    double host_in[3] = {a, a, -(1.0 + ldexp(1.0, -29))}, res = -1;
    if ((st = gs_dev_buf_ensure(&p->dev, &in, sizeof host_in, host_in, "probe input")) ||
        (st = gs_dev_buf_ensure(&p->dev, &out, sizeof(double), NULL, "probe output")))
        goto cleanup;
    const gs_dev_karg args[] = {GS_KARG_BUF(in), GS_KARG_BUF(out)};
    if ((st = GS_DEV_ARGS(&p->prg.ks, PK_PROBE, args)) ||
        (st = gs_dev_launch(&p->dev, &p->prg.ks, PK_PROBE, NULL, 1, 1, 1, NULL)))
        goto cleanup;
    GS_CL_CHECK(clEnqueueReadBuffer(p->dev.queue, out.mem, CL_TRUE, 0, sizeof res, &res, 0, NULL, NULL));
    *contracts = res != 0.0;
cleanup:
    if (st != GS_OK) clFinish(p->dev.queue); /* host_in is read by the queue */
    gs_dev_buf_release(&out);
    gs_dev_buf_release(&in);
    return st;
}

/* The sorted union of the ascending index lists of a block's SVs (pos[t] >= 0) into out, by
 * pairwise merges (log2(PRED_WG) rounds over at most n entries; tmp has room for n); returns its
 * length. A qsort of the n indices took 25 s for 138,000 SVs of 2,000 values. */
static int64_t block_union(const gs_model *m, const int32_t *pos, int32_t *out, int32_t *tmp)
{
    int64_t st[PRED_WG], ln[PRED_WG], n = 0;
    int k = 0;
    for (int t = 0; t < PRED_WG; t++) {
        if (pos[t] < 0) continue;
        const int64_t e0 = m->sv_ptr[pos[t]], e1 = m->sv_ptr[pos[t] + 1];
        if (e1 == e0) continue;
        memcpy(out + n, m->sv_idx + e0, sizeof *out * (size_t)(e1 - e0));
        st[k] = n;
        ln[k++] = e1 - e0;
        n += e1 - e0;
    }
    int32_t *a = out, *b = tmp;
    while (k > 1) {
        int k2 = 0;
        int64_t w = 0;
        for (int i = 0; i < k; i += 2) {
            const int64_t o = w;
            if (i + 1 == k) {
                memcpy(b + w, a + st[i], sizeof *b * (size_t)ln[i]);
                w += ln[i];
            } else {
                const int32_t *x = a + st[i], *y = a + st[i + 1];
                int64_t p = 0, q = 0;
                while (p < ln[i] && q < ln[i + 1]) {
                    const int32_t v = x[p] < y[q] ? x[p] : y[q];
                    b[w++] = v;
                    p += x[p] == v;
                    q += y[q] == v;
                }
                while (p < ln[i]) b[w++] = x[p++];
                while (q < ln[i + 1]) b[w++] = y[q++];
            }
            st[k2] = o;
            ln[k2++] = w - o;
        }
        int32_t *sw = a;
        a = b;
        b = sw;
        k = k2;
    }
    if (k == 0) return 0;
    if (a != out) memcpy(out, a + st[0], sizeof *out * (size_t)ln[0]);
    return ln[0];
}

/* plan_blocks' and fill_blocks' work, block by block on the host's cores. */
typedef struct layout_job {
    const gs_model *m;
    const gs_clustered *cl;
    sv_layout *L;
    const int64_t *at;   /* plan: where block b's indices go before the compaction */
    int64_t *w;          /* plan: block b's union length */
    int runs;            /* fill */
} layout_job;

static gs_status plan_block(void *ctx, int b)
{
    const layout_job *j = ctx;
    const gs_model *m = j->m;
    const int32_t *perm = j->cl->perm + (int64_t)b * PRED_WG;
    const int64_t n = j->at[b + 1] - j->at[b];
    int32_t *tmp = malloc(sizeof *tmp * (size_t)(n > 0 ? n : 1));
    if (!tmp) return GS_FAIL(GS_ERR_NOMEM, "out of memory for the SV layout");
    j->w[b] = block_union(m, perm, j->L->cols + j->at[b], tmp);
    free(tmp);
    return GS_OK;
}

/* The SVs clustered by sparsity pattern into blocks of PRED_WG (values as float for the
 * clustering's cost only; the layout keeps the model's doubles). */
static gs_status cluster_svs(const gs_model *m, gs_clustered *cl)
{
    const int64_t nnz = m->sv_ptr[m->l];
    float *fval = malloc(sizeof(float) * (size_t)(nnz > 0 ? nnz : 1));
    if (!fval) return GS_FAIL(GS_ERR_NOMEM, "out of memory for the support vectors");
    for (int64_t e = 0; e < nnz; e++) fval[e] = (float)m->sv_val[e];
    const gs_status st = gs_cluster_build(m->sv_ptr, m->sv_idx, fval, m->l, PRED_WG, 64, 1, cl);
    free(fval);
    return st;
}

/* Each block's SVs (the clustering's order), its column union and whether it is stored row-wise
 * (force: 1 every block, -1 none, 0 by PRED_ROWS_RATIO): off, cols, pos, ell_w, ell_off, ell_len.
 * The unions are recomputed here (not taken from cl.cols) so the layout depends on the clustering
 * only through the permutation. */
static gs_status plan_blocks(gs_predictor *p, const gs_clustered *cl, int force, sv_layout *L)
{
    const gs_model *m = p->m;
    const int nb = p->n_blocks;
    const int64_t nnz = m->sv_ptr[m->l];
    L->off = malloc(sizeof(int64_t) * ((size_t)nb + 1));
    L->pos = malloc(sizeof(int32_t) * (size_t)nb * PRED_WG);
    L->cols = malloc(sizeof(int32_t) * (size_t)(nnz > 0 ? nnz : 1));
    L->ell_w = malloc(sizeof(int32_t) * (size_t)nb);
    L->ell_off = malloc(sizeof(int64_t) * ((size_t)(p->runs ? nb * PRED_WG : nb) + 1));
    L->ell_len = calloc((size_t)nb * PRED_WG, sizeof(int32_t));
    if (!L->off || !L->pos || !L->cols || !L->ell_w || !L->ell_off || !L->ell_len)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for the SV layout");
    L->off[0] = 0;
    L->ell_off[0] = 0;
    p->n_ell = 0;
    /* every block's union (on threads), each first at the offset of its indices' total */
    int64_t *at = malloc(sizeof *at * ((size_t)nb + 1)), *wb = malloc(sizeof *wb * ((size_t)nb + 1));
    if (!at || !wb) {
        free(at);
        free(wb);
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for the SV layout");
    }
    at[0] = 0;
    for (int b = 0; b < nb; b++) {
        int64_t n = 0;
        for (int t = 0; t < PRED_WG; t++) {
            const int32_t s = cl->perm[(int64_t)b * PRED_WG + t];
            if (s >= 0) n += m->sv_ptr[s + 1] - m->sv_ptr[s];
        }
        at[b + 1] = at[b] + n;
    }
    layout_job job = {.m = m, .cl = cl, .L = L, .at = at, .w = wb};
    const gs_status ust = gs_parallel_items(nb, nnz < (1 << 20) ? 1 : gs_cpu_threads(32), plan_block, &job);
    if (ust != GS_OK) {
        free(at);
        free(wb);
        return ust;
    }
    for (int b = 0; b < nb; b++) {
        int32_t *pos = L->pos + (int64_t)b * PRED_WG, *len = L->ell_len + (int64_t)b * PRED_WG;
        const int64_t n = at[b + 1] - at[b], w = wb[b];
        int32_t widest = 0;
        for (int t = 0; t < PRED_WG; t++) {
            const int32_t s = cl->perm[(int64_t)b * PRED_WG + t];
            pos[t] = s;
            if (s < 0) continue;
            len[t] = (int32_t)(m->sv_ptr[s + 1] - m->sv_ptr[s]);
            if (len[t] > widest) widest = len[t];
        }
        /* the union to its place (off[b] <= at[b]: blocks in order, each union no longer than its
         * indices) */
        memmove(L->cols + L->off[b], L->cols + at[b], sizeof *L->cols * (size_t)w);
        /* Row-wise where the union is much wider than the widest SV (the dense merge would walk
         * mostly padding), or, for runs, where the dense block would hold over 16 times the
         * block's values (a few wide SVs); the block's union is dropped then. */
        const int row_wise = force > 0 || (force == 0 && widest > 0 && w > PRED_ROWS_MIN &&
                                           w > (int64_t)PRED_ROWS_RATIO * widest) ||
                             (force == 0 && p->runs && w * PRED_WG > 16 * n);
        L->ell_w[b] = row_wise ? widest : 0;
        if (!p->runs) {
            L->ell_off[b + 1] = L->ell_off[b] + (int64_t)L->ell_w[b] * PRED_WG;
        } else { /* runs: SV t's values from ell_off[b * PRED_WG + t], none padded */
            const int64_t b0 = (int64_t)b * PRED_WG;
            for (int t = 0; t < PRED_WG; t++) L->ell_off[b0 + t + 1] = L->ell_off[b0 + t] + (row_wise ? len[t] : 0);
        }
        if (row_wise) {
            p->n_ell++;
            L->off[b + 1] = L->off[b];
        } else {
            memset(len, 0, sizeof *len * PRED_WG);
            L->off[b + 1] = L->off[b] + w;
        }
    }
    L->ncols = L->off[nb];
    free(at);
    free(wb);
    return GS_OK;
}

static gs_status fill_block(void *ctx, int b)
{
    const layout_job *j = ctx;
    const gs_model *m = j->m;
    sv_layout *L = j->L;
    const int64_t step = j->runs ? 1 : PRED_WG;
    const int32_t *pos = L->pos + (int64_t)b * PRED_WG;
    for (int t = 0; t < PRED_WG; t++) {
        const int32_t s = pos[t];
        if (s < 0) continue;
        double n2 = 0;
        for (int64_t e = m->sv_ptr[s]; e < m->sv_ptr[s + 1]; e++) n2 += m->sv_val[e] * m->sv_val[e];
        L->n2[(int64_t)b * PRED_WG + t] = n2;
        if (L->ell_w[b] > 0) {
            const int64_t base = j->runs ? L->ell_off[(int64_t)b * PRED_WG + t] : L->ell_off[b] + t;
            for (int64_t e = m->sv_ptr[s]; e < m->sv_ptr[s + 1]; e++) {
                const int64_t k = base + (e - m->sv_ptr[s]) * step;
                L->ell_idx[k] = m->sv_idx[e];
                L->ell_val[k] = m->sv_val[e];
            }
            continue;
        }
        const int32_t *u = L->cols + L->off[b];
        const int64_t nu = L->off[b + 1] - L->off[b];
        int64_t jj = 0;
        for (int64_t e = m->sv_ptr[s]; e < m->sv_ptr[s + 1]; e++) {
            while (jj < nu && u[jj] < m->sv_idx[e]) jj++;
            if (jj == nu || u[jj] != m->sv_idx[e])
                return GS_FAIL(GS_ERR_INTERNAL, "SV %d: indices not ascending", (int)s + 1);
            L->vals[(L->off[b] + jj) * PRED_WG + t] = m->sv_val[e];
        }
    }
    return GS_OK;
}

/* The SVs' values: column-major over the union in dense blocks (zero padded), in their slots in
 * row-wise blocks (in order: the model reader checked that indices ascend); blocks on threads. */
static gs_status fill_blocks(const gs_model *m, int nb, int runs, sv_layout *L)
{
    const int64_t nell = L->ell_off[runs ? (int64_t)nb * PRED_WG : nb];
    L->vals = calloc((size_t)(L->ncols > 0 ? L->ncols : 1) * PRED_WG, sizeof(double));
    L->ell_idx = calloc((size_t)(nell > 0 ? nell : 1), sizeof(int32_t));
    L->ell_val = calloc((size_t)(nell > 0 ? nell : 1), sizeof(double));
    L->n2 = calloc((size_t)nb * PRED_WG, sizeof(double));
    if (!L->vals || !L->ell_idx || !L->ell_val || !L->n2) return GS_FAIL(GS_ERR_NOMEM, "out of memory for the SV layout");
    layout_job job = {.m = m, .L = L, .runs = runs};
    return gs_parallel_items(nb, m->sv_ptr[m->l] < (1 << 20) ? 1 : gs_cpu_threads(32), fill_block, &job);
}

/* The pair table (gs_abi_pair: the SVs and coefficient column of each side of each decision
 * value) and each pair's SV count for the error bound. */
static gs_status build_pairs(gs_predictor *p, sv_layout *L)
{
    const gs_model *m = p->m;
    const int nd = p->n_dec, l = (int)m->l;
    L->pairs = calloc((size_t)nd, sizeof *L->pairs);
    p->pair_terms = malloc(sizeof(double) * (size_t)nd);
    if (!L->pairs || !p->pair_terms) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    if (m->svm_type == GS_C_SVC || m->svm_type == GS_NU_SVC) {
        int q = 0;
        int32_t si = 0;
        for (int i = 0; i < m->nr_class; i++) {
            int32_t sj = si + m->nSV[i];
            for (int j = i + 1; j < m->nr_class; j++, q++) {
                L->pairs[q].side[0] = (gs_abi_pair_side){si, si + m->nSV[i], j - 1};
                L->pairs[q].side[1] = (gs_abi_pair_side){sj, sj + m->nSV[j], i};
                p->pair_terms[q] = (double)m->nSV[i] + m->nSV[j];
                sj += m->nSV[j];
            }
            si += m->nSV[i];
        }
    } else { /* one "pair" per value: all SVs, column c (Crammer-Singer's classes, else 0), no second side */
        for (int c = 0; c < nd; c++) {
            L->pairs[c].side[0] = (gs_abi_pair_side){0, l, c};
            p->pair_terms[c] = l;
        }
    }
    return GS_OK;
}

/* Blocks of PRED_WG SVs in clustered order: the union of each block's columns and the values
 * column-major in double (dense blocks), or, for the blocks the clustering stores row-wise (union
 * far wider than the block's widest SV: text-like data, where the dense block would be mostly
 * zeros), each SV's own values in slots, column-major over slots, with its value count. */
static gs_status build_layout(gs_predictor *p)
{
    gs_status st = GS_OK;
    gs_clustered cl;
    memset(&cl, 0, sizeof cl);
    if ((st = cluster_svs(p->m, &cl))) goto cleanup;
    p->n_blocks = cl.n_clusters;
    p->runs = cl.wide; /* two SVs of 1M values in slots took 3 GB */
    /* GS_PRED_LAYOUT=rows / =dense (gs_tuning.pred_blocks) overrides the choice (tests run the
     * golden cases both ways). */
    const int force = p->force_blocks == GS_PRED_BLOCKS_ROWS ? 1 : p->force_blocks == GS_PRED_BLOCKS_DENSE ? -1 : 0;
    if ((st = plan_blocks(p, &cl, force, &p->h)) || (st = fill_blocks(p->m, p->n_blocks, p->runs, &p->h)) ||
        (st = build_pairs(p, &p->h)))
        goto cleanup;
cleanup:
    if (st != GS_OK) sv_layout_free(&p->h);
    gs_clustered_free(&cl);
    return st;
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
    p->force_hash = tuning ? tuning->pred_hash : GS_TUNE_AUTO;
    p->want_codes = tuning ? tuning->pred_codes : 1;
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

/* Queues the upload of the host layout, the coefficients and rho (the host layout must stay until
 * the queue has passed them). */
static gs_status upload_layout(gs_predictor *p)
{
    const gs_dev *d = &p->dev;
    const sv_layout *L = &p->h;
    sv_bufs *b = &p->sv;
    const gs_model *m = p->m;
    const size_t nb = (size_t)p->n_blocks, nc = (size_t)L->ncols, nd = (size_t)p->n_dec;
    const size_t noff = p->runs ? nb * PRED_WG : nb, ne = (size_t)L->ell_off[noff];
    gs_status st = GS_OK;
    if ((st = gs_dev_buf_ensure(d, &b->blk_off, sizeof(int64_t) * (nb + 1), L->off, "SV block offsets")) ||
        (st = gs_dev_buf_ensure(d, &b->cols, sizeof(int32_t) * nc, L->cols, "SV columns")) ||
        (st = gs_dev_buf_ensure(d, &b->vals, sizeof(double) * nc * PRED_WG, L->vals, "SV values")) ||
        (st = gs_dev_buf_ensure(d, &b->pos_sv, sizeof(int32_t) * nb * PRED_WG, L->pos, "SV positions")) ||
        (st = gs_dev_buf_ensure(d, &b->pairs, sizeof(gs_abi_pair) * nd, L->pairs, "pair table")) ||
        (st = gs_dev_buf_ensure(d, &b->ell_w, sizeof(int32_t) * nb, L->ell_w, "SV block widths")) ||
        (st = gs_dev_buf_ensure(d, &b->ell_off, sizeof(int64_t) * (noff + 1), L->ell_off, "SV slot offsets")) ||
        (st = gs_dev_buf_ensure(d, &b->ell_idx, sizeof(int32_t) * ne, L->ell_idx, "SV slot columns")) ||
        (st = gs_dev_buf_ensure(d, &b->ell_val, sizeof(double) * ne, L->ell_val, "SV slot values")) ||
        (st = gs_dev_buf_ensure(d, &b->ell_len, sizeof(int32_t) * nb * PRED_WG, L->ell_len, "SV lengths")) ||
        (st = gs_dev_buf_ensure(d, &b->n2, sizeof(double) * nb * PRED_WG, L->n2, "SV sums of squares")) ||
        (st = gs_dev_buf_ensure(d, &b->coef, sizeof(double) * (size_t)m->l * (size_t)m->n_coef, m->sv_coef,
                                "SV coefficients")) ||
        (st = gs_dev_buf_ensure(d, &b->rho, sizeof(double) * nd, m->rho, "rho")))
        return st;
    return GS_OK;
}

/* Rows per pass: the K buffer (one column per row of a pass) takes at most a quarter of the device
 * memory, at most 1 GiB, and 4 MiB on CPU devices, where it is host memory: a9a.t's 256 MiB there
 * made gpusvm-predict's peak 352 MB against svm-predict's 6 MB (16 MiB still put news20.t 12 MB
 * over its bound), and smaller passes cost no time on a CPU. */
static int32_t rows_per_pass(const gs_ocl *ocl, int32_t n_sv)
{
    cl_ulong budget = ocl->global_mem / 4;
    if (budget > ocl->max_alloc) budget = ocl->max_alloc;
    const cl_ulong cap = (ocl->device_type & CL_DEVICE_TYPE_GPU) ? (1ull << 30) : (4ull << 20);
    if (budget > cap) budget = cap;
    cl_ulong ld = budget / ((cl_ulong)n_sv * sizeof(double));
    if (ld > 65536) ld = 65536;
    ld = ld / PRED_RT * PRED_RT;
    if (ld < PRED_RT) ld = PRED_RT;
    return (int32_t)ld;
}

/* The host exact path on integer data ("codes"): where every value of the SVs and of a chunk's
 * rows is an integer and 2 (|sv|^2 + |x|^2) <= CODE_MAX for all of them, every squared distance
 * LIBSVM's RBF loop adds up is an integer in [0, CODE_MAX], and so is each partial sum
 * ((a - b)^2 <= 2a^2 + 2b^2): exact in double in any order. The device then stores it in 16 bits
 * (kernels/predict.cl pred_store) and the host takes exp(-gamma k) from a table of the C library's
 * own values: LIBSVM's bits, a quarter of the bytes to read and no exp per value (binary and
 * one-hot sets: a9a, w8a, mushrooms, dna). GS_PRED_LAYOUT=args (gs_tuning.pred_codes = 0) reads
 * the arguments in double always. */
#define CODE_MAX 65535

/* A value a code can hold: an integer of at most 2^14 in magnitude (NaN and inf are not). */
static int small_int(double v) { return v == floor(v) && fabs(v) <= 16384.0; }

/* The largest sum of squares of the CSR rows [0, n), or -1 when a value is not a small integer or
 * a sum passes CODE_MAX. */
static double int_norm2_max(const int64_t *ptr, const double *val, int32_t n)
{
    double mx = 0;
    for (int32_t r = 0; r < n; r++) {
        double sum = 0;
        for (int64_t e = ptr[r]; e < ptr[r + 1]; e++) {
            if (!small_int(val[e])) return -1;
            sum += val[e] * val[e];
            if (sum > CODE_MAX) return -1;
        }
        if (sum > mx) mx = sum;
    }
    return mx;
}

/* Whether the chunk's passes read codes; if so the table covers every code they can hold and
 * each host thread has a row of kernel values. */
static gs_status codes_check(gs_predictor *p, const gs_rows *rows)
{
    p->codes = 0;
    if (!p->hx || p->sv_n2max < 0) return GS_OK;
    const double xn = int_norm2_max(rows->row_ptr, rows->val, rows->l);
    if (xn < 0 || 2 * (p->sv_n2max + xn) > CODE_MAX) return GS_OK;
    const int32_t want = (int32_t)(2 * (p->sv_n2max + xn)) + 1;
    if (want > p->ctab_n) {
        double *t = realloc(p->ctab, sizeof *t * (size_t)want);
        if (!t) return GS_FAIL(GS_ERR_NOMEM, "out of memory for a table of %d kernel values", (int)want);
        p->ctab = t;
        for (int32_t k = p->ctab_n; k < want; k++) t[k] = exp(-p->m->gamma * (double)k); /* LIBSVM's exp(-gamma*sum) */
        p->ctab_n = want;
    }
    if (!p->kvs) {
        const int nt = gs_cpu_threads(64);
        if (!(p->kvs = malloc(sizeof(double) * (size_t)nt * (size_t)p->m->l)))
            return GS_FAIL(GS_ERR_NOMEM, "out of memory for the host's kernel values");
        p->nkvs = nt;
    }
    p->codes = 1;
    return GS_OK;
}

/* What the tiled path and pred_khash ask of the SVs, from the model and the host layout's sums of
 * squares (p->h.n2, while it is still there): whether every value is finite, the most values of an
 * SV and the largest sum of squares. */
static void sv_summary(gs_predictor *p)
{
    const gs_model *m = p->m;
    p->sv_finite = 1;
    p->sv_nmax = 0;
    p->sv_n2all = 0;
    for (int32_t s = 0; s < m->l; s++) {
        if (m->sv_ptr[s + 1] - m->sv_ptr[s] > p->sv_nmax) p->sv_nmax = (int32_t)(m->sv_ptr[s + 1] - m->sv_ptr[s]);
        for (int64_t e = m->sv_ptr[s]; e < m->sv_ptr[s + 1] && p->sv_finite; e++)
            if (!isfinite(m->sv_val[e])) p->sv_finite = 0;
    }
    for (int64_t k = 0; k < (int64_t)p->n_blocks * PRED_WG; k++)
        if (p->h.n2[k] > p->sv_n2all) p->sv_n2all = p->h.n2[k];
}

/* Whether the row-wise blocks take pred_khash: on a GPU (on PoCL's CPU device the merge was
 * faster: text-gen's first 8,000 rows' model on 2,000 test rows, values 3.0 s against 1.9 s)
 * or where gs_tuning.pred_hash says, where there are row-wise blocks, every row's bits are not needed
 * (the host exact path reads pred_kvals' arguments), the device has the local memory for the
 * tables; then, if every SV value is finite (its dot product adds sv * 0 where the row lacks a
 * column: sv_summary), it does. */
static int hash_wanted(const gs_predictor *p, const gs_ocl *ocl)
{
    const int on = p->force_hash != GS_TUNE_AUTO ? p->force_hash : (ocl->device_type & CL_DEVICE_TYPE_GPU) != 0;
    return on && p->n_ell > 0 && !p->hx &&
           ocl->local_mem >= (cl_ulong)PRED_HP * (sizeof(int32_t) + sizeof(double)) + 1024;
}

/* pred_khash's RBF distances are |sv|^2 + |x|^2 - 2 sv.x, not LIBSVM's sequential sum d_L of the
 * (x_c - sv_c)^2: by how much the argument of exp may then differ from LIBSVM's for a test row
 * of nx values whose sum of squares is x2 (u = 2^-53; A, B, P the exact |sv|^2, |x|^2, sv.x;
 * D = A + B - 2P; ns the SV's values):
 *   |a - A| <= ns u' A, |b - B| <= nx u' B (sums of squares), |p - P| <= ns u' (A + B) / 2 (its
 *   zero terms add nothing), then a + b and the subtraction round once each: the device's d
 *   is within (2 ns + nx + 2) u' (A + B) of D, and so is max(0, d) (D >= 0);
 *   LIBSVM's terms carry 3 roundings, its sum ns + nx more: |d_L - D| <= (ns + nx + 2) u' D;
 *   -gamma d and -gamma d_L round once each (u gamma (A + B) apiece),
 * u' = 1.01 u covering the k u / (1 - k u) of these counts: |z - z_L| <= gamma (A + B)
 * (3 ns + 2 nx + 6) 1.01 u. Taken here with ns the model's most values, A its largest sum of
 * squares, and margin: 13 for 6, 1.02 for 1.01. K = exp(z) then differs from LIBSVM's
 * exp(z_L), beyond the two libms' few ulp the bound already has, by at most
 * K expm1(|z - z_L|): gs_predictor_finish adds mag expm1(dz) 1.01 to the bound (1.01 also
 * covers that bound's own terms taken at LIBSVM's larger K). Infinite where it overflows. */
static double rbf_hash_dz(const gs_predictor *p, int64_t nx, double x2)
{
    const double u = ldexp(1.0, -53);
    return fabs(p->m->gamma) * (p->sv_n2all + x2) * (3.0 * p->sv_nmax + 2.0 * (double)nx + 13.0) * 1.02 * u;
}

gs_status gs_predictor_attach(gs_predictor *p, gs_ocl *ocl, gs_pred_program *prog)
{
    gs_status st = GS_OK;
    const gs_model *m = p->m;
    const double t0 = gs_now();
    p->ocl = ocl;
    p->prg = *prog;
    memset(prog, 0, sizeof *prog);
    if ((st = gs_dev_init(&p->dev, ocl, NULL)) || (st = upload_layout(p))) goto cleanup;
    int contracts = 1;
    if ((st = probe_contraction(p, &contracts)) != GS_OK) goto cleanup;
    p->exact = !contracts && (m->kernel_type == GS_KERNEL_LINEAR || m->kernel_type == GS_KERNEL_POLY);
    /* The tiled path (GPUs by default: on a CPU device the merge is faster) adds x * 0 for the
     * dot kernels, which is exact only for finite SV values (RBF's (x - 0)^2 and (0 - v)^2 are
     * exact for any value). GS_PRED_LAYOUT=tile / =merge (gs_tuning.pred_tile) force it on / off
     * (the tests run the golden cases both ways). */
    p->tile = p->force_tile != GS_TUNE_AUTO ? p->force_tile == 1 : (ocl->device_type & CL_DEVICE_TYPE_GPU) != 0;
    p->ld_max = rows_per_pass(ocl, m->l); /* allocated per chunk (ensure_capacity): no more than it needs */
    p->hx = p->want_hx && !contracts && (m->kernel_type == GS_KERNEL_RBF || m->kernel_type == GS_KERNEL_SIGMOID);
    if (p->hx) { /* two host buffers of a pass each: HX_PASS_MIB at most */
        int64_t cap = ((int64_t)HX_PASS_MIB << 20) / ((int64_t)m->l * (int64_t)sizeof(double)) / PRED_RT * PRED_RT;
        if (cap < PRED_RT) cap = PRED_RT;
        if (cap < p->ld_max) p->ld_max = (int32_t)cap;
    }
    /* the SVs' summary only where a path asks for it (a pass over every SV value) */
    const int tile_dots = p->tile && m->kernel_type != GS_KERNEL_RBF, hash = hash_wanted(p, ocl);
    if (tile_dots || hash) sv_summary(p);
    if (tile_dots && !p->sv_finite) p->tile = 0;
    p->hash = hash && p->sv_finite;
    const int codes_ok = p->hx && p->want_codes && m->kernel_type == GS_KERNEL_RBF;
    p->sv_n2max = codes_ok ? int_norm2_max(m->sv_ptr, m->sv_val, m->l) : -1;
cleanup:
    if (st != GS_OK && p->dev.queue) clFinish(p->dev.queue); /* uploads may still read the host layout */
    sv_layout_free(&p->h);
    p->t_device += gs_now() - t0;
    return st;
}

void gs_predictor_host_exact(gs_predictor *p, int on) { p->want_hx = on != 0; }

int gs_predictor_exact(const gs_predictor *p)
{
    return p->exact || p->hx;
}

gs_pred_times gs_predictor_times(const gs_predictor *p) { return p->tm; }

double gs_predictor_device_seconds(const gs_predictor *p)
{
    return p->t_device;
}

int gs_predictor_hash(const gs_predictor *p) { return p->hash; }

int gs_predictor_row_wise_blocks(const gs_predictor *p, int *n_blocks)
{
    if (n_blocks) *n_blocks = p->n_blocks;
    return p->n_ell;
}

/* hx's pass buffer i released: pinned memory, or plain memory when the pass was small. */
static void hk_release(gs_predictor *p, int i)
{
    if (!p->hkp[i].mem) free(p->hk[i]);
    gs_dev_pinned_release(&p->dev, &p->hkp[i]);
    p->hk[i] = NULL;
    p->hk_bytes = 0;
}

/* Segments of the pairs' sums (pred_part): where the decision values carry an error bound (not
 * exact, not the host exact path) and a pass's rows times pairs leave the device mostly idle
 * (under SEG_ITEMS_MAX work-items), as many as bring the work-items to ~65,536, each at least 2,048
 * SVs long, at most 64; 1: pred_sum. covtype-gen's model (258,000 SVs, 520 rows a pass) gets 64,
 * text-gen's (63,000 SVs, 2,130 rows) 30; a9a.t's 16,281 rows keep pred_sum, as measured before. */
#define SEG_ITEMS_MAX 8192
static int seg_count(const gs_predictor *p)
{
    if (p->exact || p->hx || p->ld <= 0) return 1;
    double most = 0;
    for (int q = 0; q < p->n_dec; q++) most = p->pair_terms[q] > most ? p->pair_terms[q] : most;
    const double items = (double)p->ld * p->n_dec;
    if (items >= SEG_ITEMS_MAX) return 1;
    double n = ceil(65536.0 / items);
    if (n > most / 2048) n = floor(most / 2048);
    if (n > 64) n = 64;
    return n >= 2 ? (int)n : 1;
}

/* Grows the chunk's buffers to its rows and values (the x buffers with room to spare, K to the
 * rows of one pass). */
static gs_status ensure_capacity(gs_predictor *p, const gs_rows *rows)
{
    gs_status st = GS_OK;
    const gs_dev *d = &p->dev;
    chunk_bufs *x = &p->x;
    const size_t nr = (size_t)rows->l, nz = (size_t)rows->row_ptr[rows->l], nd = (size_t)p->n_dec;
    const int32_t want = nr >= (size_t)p->ld_max ? p->ld_max : (int32_t)((nr + PRED_RT - 1) / PRED_RT * PRED_RT);
    if (want > p->ld) {
        p->ld = 0;
        if ((st = gs_dev_buf_ensure(d, &x->K, sizeof(double) * (size_t)want * (size_t)p->m->l, NULL, "kernel values")))
            return st;
        p->ld = want;
    }
    p->nseg = seg_count(p);
    if (p->nseg > 1 &&
        (st = gs_dev_buf_ensure(d, &x->part, 2 * sizeof(double) * (size_t)p->nseg * nd * (size_t)p->ld, NULL,
                                "partial decision values")))
        return st;
    /* hx: a pass of arguments, or of codes (a quarter of the bytes: pinning costs the driver time
     * per byte, 18 ms for each of a9a's -b 1 folds' two 16 MiB buffers). Pinned where a pass in
     * double would take HX_PIN_MIN or more, so the choice does not depend on the codes. */
    const size_t dbytes = sizeof(double) * (size_t)p->ld * (size_t)p->m->l;
    const size_t need = p->codes ? dbytes / sizeof(double) * sizeof(uint16_t) : dbytes;
    for (int i = 0; i < 2 && p->hx && need > p->hk_bytes; i++) {
        hk_release(p, i);
        void *h = NULL;
        if (dbytes >= HX_PIN_MIN) {
            if ((st = gs_dev_pinned_ensure(d, &p->hkp[i], need, &h))) return st;
        } else if (!(h = malloc(need))) {
            return GS_FAIL(GS_ERR_NOMEM, "out of memory for %d rows of kernel values", (int)p->ld);
        }
        p->hk[i] = h;
        if (i == 1) p->hk_bytes = need;
    }
    if (nr > p->cap_rows) {
        p->cap_rows = 0;
        if ((st = gs_dev_buf_ensure(d, &x->x_ptr, sizeof(int64_t) * (nr + 1), NULL, "row offsets")) ||
            (st = gs_dev_buf_ensure(d, &x->dec, sizeof(double) * nr * nd, NULL, "decision values")) ||
            (st = gs_dev_buf_ensure(d, &x->mag, sizeof(double) * nr * nd, NULL, "decision magnitudes")))
            return st;
        p->cap_rows = nr;
    }
    if (nz > p->cap_nnz || !x->x_idx.mem) {
        const size_t c = nz + nz / 4 + 1024;
        p->cap_nnz = 0;
        if ((st = gs_dev_buf_ensure(d, &x->x_idx, sizeof(int32_t) * c, NULL, "test indices")) ||
            (st = gs_dev_buf_ensure(d, &x->x_val, sizeof(double) * c, NULL, "test values")))
            return st;
        p->cap_nnz = c;
    }
    return st;
}

#define KV_ROW0 11 /* pred_kvals' and pred_sum's arguments set per pass */
#define KV_ROWS 12
#define KH_ROW0 8 /* pred_khash's */
#define KH_ROWS 9
#define SUM_ROW0 2
#define SUM_ROWS 3
#define PART_ROWS 2 /* pred_part's rows, and pred_fin's first row and rows, set per pass */
#define FIN_ROW0 2
#define FIN_ROWS 3

/* The chunk's kernel arguments (its buffers may have been reallocated), but for the passes' rows. */
static gs_status set_chunk_args(gs_predictor *p)
{
    gs_status st = GS_OK;
    const gs_model *m = p->m;
    const sv_bufs *b = &p->sv;
    const chunk_bufs *x = &p->x;
    const int kt = m->kernel_type, deg = m->degree, nc = m->n_coef, nd = p->n_dec, zero = 0;
    const int32_t kld = p->hx ? m->l : p->ld; /* K's leading dimension: SVs in rows for hx */
    const int arg_out = p->codes ? 2 : p->hx;
    const double gamma = m->gamma, coef0 = m->coef0;
    const gs_dev_karg kv[] = {GS_KARG(kt), GS_KARG(gamma), GS_KARG(coef0), GS_KARG(deg), GS_KARG_BUF(b->blk_off),
                              GS_KARG_BUF(b->cols), GS_KARG_BUF(b->vals), GS_KARG_BUF(b->pos_sv),
                              GS_KARG_BUF(x->x_ptr), GS_KARG_BUF(x->x_idx), GS_KARG_BUF(x->x_val),
                              GS_KARG(zero) /* KV_ROW0 */, GS_KARG(zero) /* KV_ROWS */, GS_KARG_BUF(x->K),
                              GS_KARG(kld), GS_KARG_BUF(b->ell_w), GS_KARG_BUF(b->ell_off),
                              GS_KARG_BUF(b->ell_idx), GS_KARG_BUF(b->ell_val), GS_KARG_BUF(b->ell_len),
                              GS_KARG(p->tile), GS_KARG(arg_out), GS_KARG(p->runs), GS_KARG(p->hash)};
    const gs_dev_karg sum[] = {GS_KARG_BUF(x->K), GS_KARG(p->ld), GS_KARG(zero) /* SUM_ROW0 */,
                               GS_KARG(zero) /* SUM_ROWS */, GS_KARG_BUF(b->pairs), GS_KARG_BUF(b->coef),
                               GS_KARG(nc), GS_KARG_BUF(b->rho), GS_KARG(nd), GS_KARG_BUF(x->dec),
                               GS_KARG_BUF(x->mag)};
    if ((st = GS_DEV_ARGS(&p->prg.ks, PK_KVALS, kv)) || (st = GS_DEV_ARGS(&p->prg.ks, PK_SUM, sum))) return st;
    if (p->hash) {
        const gs_dev_karg kh[] = {GS_KARG(kt), GS_KARG(gamma), GS_KARG(coef0), GS_KARG(deg), GS_KARG_BUF(b->pos_sv),
                                  GS_KARG_BUF(x->x_ptr), GS_KARG_BUF(x->x_idx), GS_KARG_BUF(x->x_val),
                                  GS_KARG(zero) /* KH_ROW0 */, GS_KARG(zero) /* KH_ROWS */, GS_KARG_BUF(x->K),
                                  GS_KARG(kld), GS_KARG_BUF(b->ell_w), GS_KARG_BUF(b->ell_off),
                                  GS_KARG_BUF(b->ell_idx), GS_KARG_BUF(b->ell_val), GS_KARG_BUF(b->ell_len),
                                  GS_KARG(p->runs), GS_KARG_BUF(b->n2)};
        if ((st = GS_DEV_ARGS(&p->prg.ks, PK_KHASH, kh))) return st;
    }
    if (p->nseg > 1) {
        const gs_dev_karg part[] = {GS_KARG_BUF(x->K), GS_KARG(p->ld), GS_KARG(zero) /* PART_ROWS */,
                                    GS_KARG_BUF(b->pairs), GS_KARG_BUF(b->coef), GS_KARG(nc), GS_KARG(p->nseg),
                                    GS_KARG(nd), GS_KARG_BUF(x->part)};
        const gs_dev_karg fin[] = {GS_KARG_BUF(x->part), GS_KARG(p->ld), GS_KARG(zero) /* FIN_ROW0 */,
                                   GS_KARG(zero) /* FIN_ROWS */, GS_KARG(p->nseg), GS_KARG_BUF(b->rho), GS_KARG(nd),
                                   GS_KARG_BUF(x->dec), GS_KARG_BUF(x->mag)};
        if ((st = GS_DEV_ARGS(&p->prg.ks, PK_PART, part)) || (st = GS_DEV_ARGS(&p->prg.ks, PK_FIN, fin))) return st;
    }
    return GS_OK;
}

/* hx: the pass of rows [r0, r0 + ld) into hk[hx_cur]: its arguments on the device, then the read
 * (non-blocking, hk_ev[hx_cur]). */
static gs_status hx_enqueue(gs_predictor *p, int32_t r0)
{
    gs_status st = GS_OK;
    const gs_dev *d = &p->dev;
    const gs_dev_kernels *ks = &p->prg.ks;
    const int32_t n = p->cur->l - r0 < p->ld ? p->cur->l - r0 : p->ld;
    p->hx_r0 = r0;
    if ((st = gs_dev_arg(ks, PK_KVALS, KV_ROW0, sizeof r0, &r0)) || (st = gs_dev_arg(ks, PK_KVALS, KV_ROWS, sizeof n, &n)) ||
        (st = gs_dev_launch(d, ks, PK_KVALS, &p->pf, (size_t)p->n_blocks * PRED_WG, (size_t)((n + PRED_RT - 1) / PRED_RT),
                            PRED_WG, NULL)))
        return st;
    const size_t each = p->codes ? sizeof(uint16_t) : sizeof(double);
    GS_CL_CHECK(clEnqueueReadBuffer(d->queue, p->x.K.mem, CL_FALSE, 0, each * (size_t)n * (size_t)p->m->l,
                                    p->hk[p->hx_cur], 0, NULL, &p->hk_ev[p->hx_cur]));
cleanup:
    return st;
}

/* hx, on the host: rows [first, n) step `step` of a pass, exp / tanh of each argument with the C
 * library svm-predict uses, then svm_predict_values' sums: LIBSVM's bits. */
typedef struct hx_job {
    const gs_model *m;
    double *k;            /* [n][m->l] arguments, or with codes [n][m->l] uint16_t codes */
    const double *ctab;   /* codes: their kernel values; NULL: k holds arguments */
    double *kv;           /* codes: this thread's row of kernel values [m->l] */
    double *dec;          /* the pass's first row's values */
    int32_t n, first, step;
} hx_job;

static void *hx_rows(void *arg)
{
    const hx_job *j = arg;
    const gs_model *m = j->m;
    const int nd = gs_pred_n_dec(m), rbf = m->kernel_type == GS_KERNEL_RBF;
    for (int32_t r = j->first; r < j->n; r += j->step) {
        double *kv = j->k + (size_t)r * (size_t)m->l;
        if (j->ctab) {
            const uint16_t *c = (const uint16_t *)(void *)j->k + (size_t)r * (size_t)m->l;
            kv = j->kv;
            for (int32_t s = 0; s < m->l; s++) kv[s] = j->ctab[c[s]];
        } else if (rbf)
            for (int32_t s = 0; s < m->l; s++) kv[s] = exp(kv[s]);
        else
            for (int32_t s = 0; s < m->l; s++) kv[s] = tanh(kv[s]);
        pred_sums(m, kv, j->dec + (size_t)r * (size_t)nd);
    }
    return NULL;
}

static void hx_host(const gs_predictor *p, double *k, int32_t n, double *dec)
{
    int nt = gs_cpu_threads(64);
    if (nt > n) nt = n;
    if (p->codes && nt > p->nkvs) nt = p->nkvs;
    hx_job jobs[64];
    for (int t = 0; t < nt; t++)
        jobs[t] = (hx_job){p->m, k, p->codes ? p->ctab : NULL, p->codes ? p->kvs + (size_t)t * (size_t)p->m->l : NULL,
                           dec, n, (int32_t)t, (int32_t)nt};
    gs_parallel_run(jobs, sizeof jobs[0], nt, hx_rows);
}

/* hx: every pass of the chunk, the device computing the next pass's arguments while the host
 * finishes this one's. */
static gs_status hx_finish(gs_predictor *p, double *dec)
{
    gs_status st = GS_OK;
    const int nd = p->n_dec;
    const int32_t l = p->cur->l;
    for (;;) {
        const int cur = p->hx_cur;
        const int32_t r0 = p->hx_r0, n = l - r0 < p->ld ? l - r0 : p->ld;
        const double tw = gs_now();
        GS_CL_CHECK(clWaitForEvents(1, &p->hk_ev[cur]));
        p->tm.wait += gs_now() - tw;
        clReleaseEvent(p->hk_ev[cur]);
        p->hk_ev[cur] = NULL;
        if (r0 + n < l) {
            p->hx_cur = 1 - cur;
            if ((st = hx_enqueue(p, r0 + n))) goto cleanup;
            GS_CL_CHECK(clFlush(p->dev.queue));
        }
        hx_host(p, p->hk[cur], n, dec + (size_t)r0 * (size_t)nd);
        if (r0 + n >= l) break;
    }
cleanup:
    if (st != GS_OK) clFinish(p->dev.queue);
    for (int i = 0; i < 2; i++)
        if (p->hk_ev[i]) {
            clReleaseEvent(p->hk_ev[i]);
            p->hk_ev[i] = NULL;
        }
    return st;
}

gs_status gs_predictor_start(gs_predictor *p, const gs_rows *rows)
{
    gs_status st = GS_OK;
    const gs_dev *d = &p->dev;
    const gs_dev_kernels *ks = &p->prg.ks;
    p->cur = rows;
    p->t_start = gs_now();
    if (rows->l == 0) return GS_OK;
    if ((st = codes_check(p, rows)) != GS_OK || (st = ensure_capacity(p, rows)) != GS_OK) return st;
    p->tm.alloc += gs_now() - p->t_start;
    p->tm.chunks++;
    p->tm.coded += p->codes;
    if (p->nseg > 1 && !p->hx) {
        p->tm.segmented++;
        p->tm.nseg = p->nseg;
    }
    const size_t nz = (size_t)rows->row_ptr[rows->l];
    GS_CL_CHECK(clEnqueueWriteBuffer(d->queue, p->x.x_ptr.mem, CL_FALSE, 0, sizeof(int64_t) * ((size_t)rows->l + 1),
                                     rows->row_ptr, 0, NULL, NULL));
    if (nz > 0) {
        GS_CL_CHECK(clEnqueueWriteBuffer(d->queue, p->x.x_idx.mem, CL_FALSE, 0, sizeof(int32_t) * nz, rows->idx, 0,
                                         NULL, NULL));
        GS_CL_CHECK(clEnqueueWriteBuffer(d->queue, p->x.x_val.mem, CL_FALSE, 0, sizeof(double) * nz, rows->val, 0,
                                         NULL, NULL));
    }
    if ((st = set_chunk_args(p))) goto cleanup;
    if (p->hx) {
        p->hx_cur = 0;
        if ((st = hx_enqueue(p, 0))) goto cleanup;
        GS_CL_CHECK(clFlush(d->queue));
        p->tm.enqueue += gs_now() - p->t_start;
        goto cleanup;
    }
    for (int32_t r0 = 0; r0 < rows->l; r0 += p->ld) {
        const int n = rows->l - r0 < p->ld ? rows->l - r0 : p->ld;
        const size_t g0 = (size_t)p->n_blocks * PRED_WG, g1 = (size_t)((n + PRED_RT - 1) / PRED_RT);
        /* with hash, pred_kvals' groups of row-wise blocks return at once, and pred_khash's of dense ones */
        if ((!p->hash || p->n_ell < p->n_blocks) &&
            ((st = gs_dev_arg(ks, PK_KVALS, KV_ROW0, sizeof r0, &r0)) ||
             (st = gs_dev_arg(ks, PK_KVALS, KV_ROWS, sizeof n, &n)) ||
             (st = gs_dev_launch(d, ks, PK_KVALS, &p->pf, g0, g1, PRED_WG, NULL))))
            goto cleanup;
        if (p->hash && ((st = gs_dev_arg(ks, PK_KHASH, KH_ROW0, sizeof r0, &r0)) ||
                        (st = gs_dev_arg(ks, PK_KHASH, KH_ROWS, sizeof n, &n)) ||
                        (st = gs_dev_launch(d, ks, PK_KHASH, &p->pf, g0, (size_t)((n + PRED_HR - 1) / PRED_HR),
                                            PRED_WG, NULL))))
            goto cleanup;
        if (p->nseg > 1) {
            if ((st = gs_dev_arg(ks, PK_PART, PART_ROWS, sizeof n, &n)) ||
                (st = gs_dev_launch(d, ks, PK_PART, &p->pf, (size_t)(n + 63) / 64 * 64,
                                    (size_t)p->n_dec * (size_t)p->nseg, 64, NULL)) ||
                (st = gs_dev_arg(ks, PK_FIN, FIN_ROW0, sizeof r0, &r0)) ||
                (st = gs_dev_arg(ks, PK_FIN, FIN_ROWS, sizeof n, &n)) ||
                (st = gs_dev_launch(d, ks, PK_FIN, &p->pf, (size_t)(n + 63) / 64 * 64, (size_t)p->n_dec, 64, NULL)))
                goto cleanup;
        } else if ((st = gs_dev_arg(ks, PK_SUM, SUM_ROW0, sizeof r0, &r0)) ||
                   (st = gs_dev_arg(ks, PK_SUM, SUM_ROWS, sizeof n, &n)) ||
                   (st = gs_dev_launch(d, ks, PK_SUM, &p->pf, (size_t)(n + 63) / 64 * 64, (size_t)p->n_dec, 64, NULL))) {
            goto cleanup;
        }
    }
    GS_CL_CHECK(clFlush(d->queue));
    p->tm.enqueue += gs_now() - p->t_start;
cleanup:
    return st;
}

/* gs_predictor_finish's error bounds (the device's magnitudes in err made bounds in place) of rows
 * [r0, r1), by ranges of BOUND_ROWS on threads from BOUND_PAR values on (letter's -v 5: 3,000
 * held-out rows x 325 values a fold). */
#define BOUND_ROWS 256
#define BOUND_PAR 262144.0
typedef struct bounds_job {
    const gs_predictor *p;
    const gs_rows *rows;
    double *err;
} bounds_job;

static gs_status bounds_rows(void *ctx, int64_t r0, int64_t r1)
{
    const bounds_job *bj = ctx;
    const gs_predictor *p = bj->p;
    const gs_rows *rows = bj->rows;
    const int nd = p->n_dec;
    const double u = ldexp(1.0, -53);
    const int rbf_hash = p->hash && p->m->kernel_type == GS_KERNEL_RBF && !p->exact && !p->hx;
    for (int64_t r = r0; r < r1; r++) {
        int finite = 1;
        double x2 = 0;
        for (int64_t e = rows->row_ptr[r]; e < rows->row_ptr[r + 1]; e++) {
            if (!isfinite(rows->val[e])) finite = 0;
            if (rbf_hash) x2 += rows->val[e] * rows->val[e];
        }
        /* pred_khash's distances (rbf_hash_dz); x2 rounded up by far more than its error */
        const double wide =
            rbf_hash ? expm1(rbf_hash_dz(p, rows->row_ptr[r + 1] - rows->row_ptr[r], x2 * 1.000001)) * 1.01 : 0;
        for (int q = 0; q < nd; q++) {
            double *e = bj->err + (size_t)r * nd + q;
            if (!finite) *e = INFINITY;
            else if (p->exact || p->hx) *e = 0;
            else *e = (2 * p->pair_terms[q] + 64) * u * (*e + fabs(p->m->rho[q])) * 1.0001 + *e * wide + 1e-300;
            if (!(*e >= 0)) *e = INFINITY; /* NaN */
        }
    }
    return GS_OK;
}

gs_status gs_predictor_finish(gs_predictor *p, double *dec, double *err)
{
    gs_status st = GS_OK;
    const gs_rows *rows = p->cur;
    const int nd = p->n_dec;
    if (!rows || rows->l == 0) return GS_OK;
    const size_t n = (size_t)rows->l * (size_t)nd;
    if (p->hx) {
        if ((st = hx_finish(p, dec))) goto cleanup;
    } else {
        GS_CL_CHECK(clEnqueueReadBuffer(p->dev.queue, p->x.dec.mem, CL_FALSE, 0, sizeof(double) * n, dec, 0, NULL, NULL));
        const double tw = gs_now();
        GS_CL_CHECK(clEnqueueReadBuffer(p->dev.queue, p->x.mag.mem, CL_TRUE, 0, sizeof(double) * n, err, 0, NULL, NULL));
        p->tm.wait += gs_now() - tw;
    }
    {
        bounds_job bj = {.p = p, .rows = rows, .err = err};
        const int nt = (double)rows->l * nd >= BOUND_PAR ? gs_cpu_threads(16) : 1;
        if ((st = gs_parallel_ranges(rows->l, BOUND_ROWS, nt, bounds_rows, &bj))) goto cleanup;
    }
    p->t_device += gs_now() - p->t_start;
    double per[PK_N] = {0};
    gs_dev_prof_collect(&p->pf, NULL, NULL, per, 0);
    p->tm.kvals += per[PK_KVALS] + per[PK_KHASH];
    p->tm.sum += per[PK_SUM] + per[PK_PART] + per[PK_FIN];
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
    if (p->dev.queue) clFinish(p->dev.queue);
    gs_dev_prof_release(&p->pf);
    gs_dev_bufs_release((gs_dev_buf *)&p->x, sizeof p->x / sizeof(gs_dev_buf));
    gs_dev_bufs_release((gs_dev_buf *)&p->sv, sizeof p->sv / sizeof(gs_dev_buf));
    gs_pred_program_release(&p->prg);
    for (int i = 0; i < 2; i++) {
        if (p->hk_ev[i]) clReleaseEvent(p->hk_ev[i]);
        hk_release(p, i);
    }
    free(p->pair_terms);
    free(p->ctab);
    free(p->kvs);
    sv_layout_free(&p->h);
    free(p);
}

int gs_pred_vote(int k, const double *dec, int *votes)
{
    for (int i = 0; i < k; i++) votes[i] = 0;
    for (int i = 0, q = 0; i < k; i++)
        for (int j = i + 1; j < k; j++, q++) votes[dec[q] > 0 ? i : j]++;
    int best = 0;
    for (int i = 1; i < k; i++)
        if (votes[i] > votes[best]) best = i;
    return best;
}

double gs_pred_outcome(const gs_model *m, const double *dec, int *votes)
{
    if (m->svm_type == GS_ONE_CLASS) return dec[0] > 0 ? 1 : -1;
    if (m->svm_type == GS_EPSILON_SVR || m->svm_type == GS_NU_SVR) return dec[0];
    if (m->nr_class < 1) return 0;
    return m->label[gs_pred_vote(m->nr_class, dec, votes)];
}
