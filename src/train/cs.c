/* cs.c — Crammer–Singer training (see cs.h): classes, the round loop around kernels/cs.cl, the
 * working-set subproblem on the CPU, and the cs_svc model.
 *
 * Per round: one non-blocking write (the changed alphas), 19 queued kernels, one blocking read
 * (largest violation, the working set, its gradients and the new Gram entries). Each example's KKT
 * violation is v_i = max_{m: a_i^(m) < B_m} g_i^(m) - min_m g_i^(m) (g = the dual's gradient,
 * B_m = C [m = y_i]), the paper's §5.1 heuristic; training stops when the largest v is below eps.
 * Each round selects the (up to) q examples of largest v among those with v >= max(eps, CS_REL *
 * the largest), and they join the q working-set slots, replacing the examples selected longest
 * ago, so examples of earlier rounds stay in the set while there is room (without that, two groups
 * of examples that disturb each other are solved in alternate rounds, and glass needs 428 rounds
 * instead of 3).
 *
 * The subproblem sweeps the set, moving one example's k variables at a time to their exact optimum
 * with the others fixed (a projection found by sorting, example_step), until every member's v is
 * at most max(eps/2, CS_REL * the set's largest initial v). Why loose: fresh gradients for the
 * rest of the data are worth more than a tight solve of the set, and examples far below the
 * largest violation would mostly be moved again later, so their kernel rows are not computed yet.
 * Measured on PoCL (rounds, seconds) with -c 10: satimage 20 / 3.6 s selecting every violator and
 * solving to 0.8 (while the selection was full, 0.1 otherwise) vs 32 / 1.35 s with CS_REL 0.5 for
 * both; pendigits 34 / 2.8 s vs 38 / 1.3 s; the first 5000 rows of letter 173 / 14.4 s vs 72 /
 * 8.2 s; solving each set fully took 395 rounds on satimage at -c 1. Larger sets help a lot too
 * (pendigits, -c 1: 730 rounds at q = 256, 189 at 512, 47 at 1024), hence the 1024 default of
 * gpusvm-train --multiclass cs. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3") /* GCC 12's -O2 leaves the subproblem's loops scalar */
#endif
#include "train/cs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/classes.h"
#include "data/cluster.h"
#include "device/dev.h"
#include "device/ocl.h"
#include "kernels/abi.h"

#define WCH 16      /* kernels/cs.cl tunables, passed with -D so host and device agree */
#define CCH 16
#define CB 16
#define MWG_MAX 256
#define CS_REL 0.5   /* selection threshold and subproblem tolerance, relative to the largest violation */
#define CS_TAU 1e-12 /* smallest K(x,x) used in a step (LIBSVM's TAU; non-PSD sigmoid kernels) */

enum { K_INIT, K_UPDATE, K_GAP, K_HIST, K_PICK, K_COLLECT, K_MERGE, K_GATHER, K_ROWS, K_READBACK, K_N };
static const char *const k_names[K_N] = {"cs_init", "cs_update", "cs_gap", "cs_hist", "cs_pick",
                                         "cs_collect", "cs_merge", "cs_gather", "cs_rows", "cs_readback"};
enum { PH_UPDATE, PH_SELECT, PH_ROWS, PH_TRANSFER, PH_N };
static const int k_phase[K_N] = {PH_UPDATE, PH_UPDATE, PH_SELECT, PH_SELECT, PH_SELECT, PH_SELECT,
                                 PH_SELECT, PH_ROWS, PH_ROWS, PH_TRANSFER};

/* ---- the subproblem on the CPU ------------------------------------------------------------- */

/* KKT violation of one example: the largest gradient among the variables below their bound minus
 * the smallest gradient (0 exactly at the example's optimum with the others fixed). */
static double violation(int k, int y, double C, const double *a, const double *g)
{
    double up = -INFINITY, lo = INFINITY; /* comparisons, not fmax/fmin: those are calls at -O2 */
    for (int m = 0; m < k; m++) {
        if (a[m] < (m == y ? C : 0.0) && g[m] > up) up = g[m];
        if (g[m] < lo) lo = g[m];
    }
    return up - lo;
}

/* g[t] -= k[t] * d for t < n: the subproblem's inner loop (vectorised: see the pragma above). On
 * x86-64 an AVX2 copy is picked at run time where the CPU has it. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
static void sub_scaled(double *restrict g, const float *restrict kf, double d, int n)
{
    for (int t = 0; t < n; t++) g[t] -= (double)kf[t] * d;
}

static void sort_ascending(double *v, int n)
{
    for (int i = 1; i < n; i++) { /* insertion sort: k is small */
        const double x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
}

static int cmp_double(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The exact optimum of one example's k variables with every other example fixed. With h = K(x,x),
 * the dual changes by g'd - h/2 |d|^2 for a step d, so the new point is the Euclidean projection of
 * v = a + g/h onto {sum_m a'_m = 0, a'_m <= B_m}: a'_m = B_m - max(0, theta - b_m) with
 * b_m = v_m - B_m and theta solving sum_m max(0, theta - b_m) = sum_m B_m = C. That sum is
 * increasing and piecewise linear in theta; with b sorted ascending, on [b_(r), b_(r+1)] it is
 * r*theta - (b_(1) + ... + b_(r)), so theta = (C + b_(1) + ... + b_(r)) / r for the first r with
 * theta <= b_(r+1). Variables clipped to their bound come out exactly 0 or C. sorted: [k] scratch. */
static void example_step(int k, int y, double C, double h, const double *a, const double *g,
                         double *anew, double *sorted)
{
    if (!(h > CS_TAU)) h = CS_TAU;
    for (int m = 0; m < k; m++) {
        anew[m] = a[m] + g[m] / h - (m == y ? C : 0.0); /* b_m, kept in anew for now */
        sorted[m] = anew[m];
    }
    if (k <= 32) sort_ascending(sorted, k);
    else qsort(sorted, (size_t)k, sizeof *sorted, cmp_double);
    double sum = 0, theta = 0;
    for (int r = 1; r <= k; r++) {
        sum += sorted[r - 1];
        theta = (C + sum) / r;
        if (r == k || theta <= sorted[r]) break;
    }
    for (int m = 0; m < k; m++) anew[m] = (m == y ? C : 0.0) - fmax(0.0, theta - anew[m]);
}

/* The working set in slot space: na occupied slots act[] (of q), their classes y[], the slot Gram
 * matrix Kq (q x q, float like the device's kernel rows), gradients g class-major ([k][q], so that
 * a step updates every slot's gradient with contiguous loops; empty slots just get unused values),
 * alphas a and accumulated changes da slot-major ([q][k]). */
typedef struct subproblem {
    int k, q, na;
    const int *act, *y;
    const float *Kq;
    double C, tol;
    double *g, *a, *da;
    double *gs, *anew, *delta, *sorted; /* [k] scratch each */
    int *nz;                            /* [k] scratch */
    long max_steps;
} subproblem;

/* Sweeps the set until no member violates by more than tol (or max_steps example steps).
 * @return the example steps taken */
static long subproblem_solve(subproblem *sp)
{
    const int k = sp->k, q = sp->q;
    long steps = 0;
    for (;;) {
        int moved = 0;
        for (int i = 0; i < sp->na; i++) {
            const int s = sp->act[i];
            double *as = sp->a + (size_t)s * k;
            for (int m = 0; m < k; m++) sp->gs[m] = sp->g[(size_t)m * q + s];
            if (!(violation(k, sp->y[s], sp->C, as, sp->gs) > sp->tol)) continue;
            example_step(k, sp->y[s], sp->C, (double)sp->Kq[(size_t)s * q + s], as, sp->gs, sp->anew, sp->sorted);
            int nnz = 0;
            for (int m = 0; m < k; m++) {
                sp->delta[m] = sp->anew[m] - as[m];
                if (sp->delta[m] != 0) sp->nz[nnz++] = m;
            }
            if (nnz == 0) continue;
            const float *ks = sp->Kq + (size_t)s * q; /* symmetric: row s = column s */
            for (int e = 0; e < nnz; e++) {
                const int m = sp->nz[e];
                const double d = sp->delta[m];
                as[m] = sp->anew[m];
                sp->da[(size_t)s * k + m] += d;
                sub_scaled(sp->g + (size_t)m * q, ks, d, q);
            }
            moved = 1;
            if (++steps >= sp->max_steps) return steps;
        }
        if (!moved) return steps;
    }
}

/* ---- the device loop ------------------------------------------------------------------------ */

/* Device buffers of a run (the clustered layout first), released together. */
typedef struct bufs {
    gs_dev_clustered data;
    gs_dev_buf cls, G, A, key, gmax, state, hist, gap, count, cand, ws_pos, slot_of, last, new_slots, n_new,
        u_pos, U, K, upd, rb;
} bufs;
#define N_BUFS (sizeof(bufs) / sizeof(gs_dev_buf))

/* One training run on the device: its queue, kernels and buffers, the host's copies of what the
 * rounds exchange, and the counters for --verbose. */
typedef struct run {
    gs_dev dev;
    gs_dev_kernels ks;
    bufs b;
    gs_dev_pinned pin_rb, pin_upd; /* pinned, mapped host memory: readback and update */
    gs_dev_prof pf;
    int k, q, wg, npos, ncl, mwg, nhist;
    int wide;              /* cl->wide: -DGS_WIDE */
    size_t qk, rb_doubles, rb_bytes, upd_bytes;
    double *rb, *upd;              /* the pinned memory */
    int nupd;                      /* changed slots, sent at the start of the next round */
    int *cls_pos;                  /* [npos] class of each position, -1 for padding */
    double *ah;                    /* [npos * k] alphas, position-major */
    int *wsp;                      /* [q] position in each slot, -1 when empty */
    int *act, *ys, *chg, *ns, *nz; /* [q] occupied slots, slot classes, changed slots, new slots; [k] */
    double *gsub, *asub, *dsub;    /* [q * k] the subproblem's gradients (class-major), alphas, changes */
    double *scratch;               /* [4k] */
    float *Kq;                     /* [q * q] the slots' Gram matrix */
    double ph[PH_N];               /* device seconds per phase (profiling queue) */
    double t_sub, t_wait;          /* subproblems, blocking reads */
    long sum_new, sum_upd;         /* new kernel rows, changed examples */
} run;

static void run_release(run *r)
{
    gs_dev_prof_release(&r->pf);
    if (r->dev.queue) {
        gs_dev_pinned_release(&r->dev, &r->pin_rb);
        gs_dev_pinned_release(&r->dev, &r->pin_upd);
        clFinish(r->dev.queue);
    }
    gs_dev_bufs_release((gs_dev_buf *)&r->b, N_BUFS);
    gs_dev_kernels_release(&r->ks);
    free(r->cls_pos); free(r->ah); free(r->wsp); free(r->act); free(r->ys); free(r->chg); free(r->ns); free(r->nz);
    free(r->gsub); free(r->asub); free(r->dsub); free(r->scratch); free(r->Kq);
    memset(r, 0, sizeof *r);
}

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

static int pow2_at_least(int x)
{
    int p = 1;
    while (p < x) p *= 2;
    return p;
}

/* What one training run leaves for the model. */
typedef struct outcome {
    double *alpha;   /* [l * k] by original row */
    long rounds, steps;
    double obj, primal, max_violation;
    int max_iter_hit, stalled;
} outcome;

/* Builds kernels/cs.cl for this run and checks that the device launches every kernel as wide as
 * it is used. */
static gs_status build_kernels(run *r, gs_ocl *ocl, const gs_param *param)
{
    gs_status st = GS_OK;
    if ((size_t)r->wg > ocl->max_wg)
        return GS_FAIL(GS_ERR_ARG, "--cluster-size %d exceeds the device's work-group limit %zu", r->wg, ocl->max_wg);
    r->mwg = MWG_MAX;
    while ((size_t)r->mwg > ocl->max_wg) r->mwg /= 2;
    const int qmax = pow2_at_least(r->q > r->mwg ? r->q : r->mwg);
    char opts[256];
    snprintf(opts, sizeof opts, "-DWG=%d -DKTYPE=%d -DCB=%d -DWCH=%d -DCCH=%d -DQMAX=%d -DMWG=%d -DGS_WIDE=%d",
             r->wg, param->kernel_type, CB, WCH, CCH, qmax, r->mwg, r->wide);
    if ((st = gs_dev_kernels_build(ocl, "cs", opts, 1, k_names, K_N, &r->ks))) return st;
    for (int i = 0; i < K_N; i++) {
        size_t kw = 0;
        if ((st = gs_ocl_kernel_wg(ocl, r->ks.k[i], &kw))) return st;
        const size_t need = (i == K_MERGE || i == K_PICK || i == K_GAP) ? (size_t)r->mwg
                            : (i == K_READBACK ? 256 : (size_t)r->wg);
        if (kw < need)
            return GS_FAIL(GS_ERR_UNSUPPORTED, "the device runs %s with at most %zu work-items (%zu needed; try a "
                           "smaller --cluster-size)", k_names[i], kw, need);
    }
    return GS_OK;
}

/* The host's arrays, and each position's class. */
static gs_status alloc_host(run *r, const gs_clustered *cl, const gs_classes *cls)
{
    const int k = r->k, q = r->q, npos = r->npos;
    const size_t qk = r->qk;
    r->cls_pos = malloc(sizeof *r->cls_pos * (size_t)npos);
    r->ah = calloc((size_t)npos * (size_t)k, sizeof *r->ah);
    r->wsp = malloc(sizeof *r->wsp * (size_t)q);
    r->act = malloc(sizeof *r->act * (size_t)q);
    r->chg = malloc(sizeof *r->chg * (size_t)q);
    r->ns = malloc(sizeof *r->ns * (size_t)q);
    r->ys = malloc(sizeof *r->ys * (size_t)q);
    r->nz = malloc(sizeof *r->nz * (size_t)k);
    r->gsub = calloc(qk, sizeof *r->gsub);
    r->asub = malloc(sizeof *r->asub * qk);
    r->dsub = malloc(sizeof *r->dsub * qk);
    r->scratch = malloc(sizeof *r->scratch * 4 * (size_t)k);
    r->Kq = calloc((size_t)q * (size_t)q, sizeof *r->Kq);
    if (!r->cls_pos || !r->ah || !r->wsp || !r->act || !r->chg || !r->ns || !r->ys || !r->nz || !r->gsub ||
        !r->asub || !r->dsub || !r->scratch || !r->Kq)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for the Crammer-Singer host arrays (%d rows, %d classes)", npos, k);
    for (int p = 0; p < npos; p++) r->cls_pos[p] = cl->perm[p] >= 0 ? cls->of_row[cl->perm[p]] : -1;
    for (int i = 0; i < q; i++) r->wsp[i] = -1;
    return GS_OK;
}

/* The device buffers (the clustered layout and the classes uploaded, the selection state
 * cleared) and the pinned readback and update memory. */
static gs_status alloc_device(run *r, const gs_clustered *cl)
{
    gs_status st = GS_OK;
    const gs_dev *d = &r->dev;
    bufs *b = &r->b;
    const size_t k = (size_t)r->k, q = (size_t)r->q, npos = (size_t)r->npos, ncl = (size_t)r->ncl;
    const size_t ucols = (size_t)cl->n_ucols + 1;
    if ((st = gs_dev_upload_clustered(d, cl, &b->data)) ||
        (st = gs_dev_buf_ensure(d, &b->cls, npos * sizeof(int), r->cls_pos, "classes")) ||
        (st = gs_dev_buf_ensure(d, &b->G, npos * k * sizeof(double), NULL, "gradients")) ||
        (st = gs_dev_buf_ensure(d, &b->A, npos * k * sizeof(double), NULL, "alphas")) ||
        (st = gs_dev_buf_ensure(d, &b->key, npos * sizeof(cl_ulong), NULL, "keys")) ||
        (st = gs_dev_buf_ensure(d, &b->gmax, ncl * sizeof(double), NULL, "group maxima")) ||
        (st = gs_dev_buf_ensure(d, &b->state, sizeof(gs_abi_cs_state), NULL, "selection state")) ||
        (st = gs_dev_buf_ensure(d, &b->hist, GS_CS_NBINS * sizeof(cl_uint), NULL, "histogram")) ||
        (st = gs_dev_buf_ensure(d, &b->gap, sizeof(double), NULL, "violation")) ||
        (st = gs_dev_buf_ensure(d, &b->count, sizeof(cl_uint), NULL, "count")) ||
        (st = gs_dev_buf_ensure(d, &b->cand, q * sizeof(int), NULL, "candidates")) ||
        (st = gs_dev_buf_ensure(d, &b->ws_pos, q * sizeof(int), NULL, "slot rows")) ||
        (st = gs_dev_buf_ensure(d, &b->slot_of, npos * sizeof(int), NULL, "row slots")) ||
        (st = gs_dev_buf_ensure(d, &b->last, q * sizeof(int), NULL, "slot ages")) ||
        (st = gs_dev_buf_ensure(d, &b->new_slots, q * sizeof(int), NULL, "new slots")) ||
        (st = gs_dev_buf_ensure(d, &b->n_new, sizeof(int), NULL, "new slot count")) ||
        (st = gs_dev_buf_ensure(d, &b->u_pos, q * sizeof(int), NULL, "U rows")) ||
        (st = gs_dev_buf_ensure(d, &b->U, ucols * q * sizeof(float), NULL, "working-set vectors")) ||
        (st = gs_dev_buf_ensure(d, &b->K, q * npos * sizeof(float), NULL, "kernel rows")) ||
        (st = gs_dev_buf_ensure(d, &b->upd, r->upd_bytes, NULL, "alpha changes")) ||
        (st = gs_dev_buf_ensure(d, &b->rb, r->rb_bytes, NULL, "readback")))
        return st;
    if ((st = gs_dev_buf_fill(d, &b->hist, 0, GS_CS_NBINS * sizeof(cl_uint))) ||
        (st = gs_dev_buf_fill(d, &b->count, 0, sizeof(cl_uint))) ||
        (st = gs_dev_buf_fill(d, &b->ws_pos, -1, q * sizeof(int))) ||
        (st = gs_dev_buf_fill(d, &b->slot_of, -1, npos * sizeof(int))) ||
        (st = gs_dev_buf_fill(d, &b->u_pos, -1, q * sizeof(int))) ||
        (st = gs_dev_buf_fill(d, &b->last, 0, q * sizeof(int))) ||
        (st = gs_dev_buf_fill(d, &b->U, 0, ucols * q * sizeof(float))))
        return st;
    void *h0 = NULL, *h1 = NULL;
    if ((st = gs_dev_pinned_ensure(d, &r->pin_rb, r->rb_bytes, &h0)) ||
        (st = gs_dev_pinned_ensure(d, &r->pin_upd, r->upd_bytes, &h1)))
        return st;
    r->rb = h0;
    r->upd = h1;
    return GS_OK;
}

/* The kernels' arguments that stay the same for the whole run (those set per round are there as
 * placeholders). */
static gs_status set_args(run *r, const gs_param *param)
{
    gs_status st = GS_OK;
    const bufs *b = &r->b;
    const gs_dev_clustered *x = &b->data;
    const int k = r->k, q = r->q, npos = r->npos, ncl = r->ncl, nupd = 0, pass = 0, degree = param->degree;
    const double C = param->C, eps = param->eps, gamma = param->gamma, coef0 = param->coef0, sel = CS_REL;
    const gs_dev_karg a_init[] = {GS_KARG_BUF(b->G), GS_KARG_BUF(b->A), GS_KARG_BUF(b->cls), GS_KARG(npos), GS_KARG(k)};
    const gs_dev_karg a_upd[] = {GS_KARG_BUF(b->G), GS_KARG_BUF(b->A), GS_KARG_BUF(b->cls), GS_KARG_BUF(b->K),
                                 GS_KARG_BUF(b->upd), GS_KARG(nupd), GS_KARG(q), GS_KARG_BUF(b->slot_of),
                                 GS_KARG(npos), GS_KARG(C), GS_KARG(eps), GS_KARG_BUF(b->key), GS_KARG_BUF(b->gmax),
                                 GS_KARG_BUF(b->state), GS_KARG(k)};
    const gs_dev_karg a_hist[] = {GS_KARG_BUF(b->key), GS_KARG_BUF(b->state), GS_KARG_BUF(b->hist), GS_KARG(pass),
                                  GS_KARG(npos)};
    const gs_dev_karg a_gap[] = {GS_KARG_BUF(b->gmax), GS_KARG(ncl), GS_KARG_BUF(b->gap), GS_KARG_BUF(b->state),
                                 GS_KARG(eps), GS_KARG(sel)};
    const gs_dev_karg a_pick[] = {GS_KARG_BUF(b->state), GS_KARG_BUF(b->hist), GS_KARG(pass), GS_KARG(q)};
    const gs_dev_karg a_coll[] = {GS_KARG_BUF(b->key), GS_KARG_BUF(b->state), GS_KARG_BUF(b->count),
                                  GS_KARG_BUF(b->cand), GS_KARG(npos)};
    const gs_dev_karg a_merge[] = {GS_KARG_BUF(b->state), GS_KARG_BUF(b->cand), GS_KARG_BUF(b->count),
                                   GS_KARG_BUF(b->ws_pos), GS_KARG_BUF(b->slot_of), GS_KARG_BUF(b->last),
                                   GS_KARG_BUF(b->new_slots), GS_KARG_BUF(b->n_new), GS_KARG(q), GS_KARG(pass)};
    const gs_dev_karg a_gather[] = {GS_KARG_BUF(b->ws_pos), GS_KARG_BUF(b->new_slots), GS_KARG_BUF(b->n_new),
                                    GS_KARG_BUF(b->u_pos), GS_KARG_BUF(x->col_off), GS_KARG_BUF(x->cols),
                                    GS_KARG_BUF(x->vals), GS_KARG_BUF(b->U), GS_KARG(q), GS_KARG_BUF(x->ell_w),
                                    GS_KARG_BUF(x->ell_off), GS_KARG_BUF(x->ell_idx), GS_KARG_BUF(x->ell_val)};
    const gs_dev_karg a_rows[] = {GS_KARG_BUF(x->col_off), GS_KARG_BUF(x->cols), GS_KARG_BUF(x->vals),
                                  GS_KARG_BUF(x->norm2), GS_KARG_BUF(b->U), GS_KARG_BUF(b->ws_pos),
                                  GS_KARG_BUF(b->new_slots), GS_KARG_BUF(b->n_new), GS_KARG_BUF(b->K), GS_KARG(q),
                                  GS_KARG(npos), GS_KARG(gamma), GS_KARG(coef0), GS_KARG(degree),
                                  GS_KARG_BUF(x->ell_w), GS_KARG_BUF(x->ell_off), GS_KARG_BUF(x->ell_idx),
                                  GS_KARG_BUF(x->ell_val)};
    const gs_dev_karg a_rb[] = {GS_KARG_BUF(b->gap), GS_KARG_BUF(b->state), GS_KARG_BUF(b->n_new),
                                GS_KARG_BUF(b->ws_pos), GS_KARG_BUF(b->new_slots), GS_KARG_BUF(b->G),
                                GS_KARG_BUF(b->K), GS_KARG_BUF(b->rb), GS_KARG(q), GS_KARG(npos), GS_KARG(k)};
    const gs_dev_kernels *ks = &r->ks;
    if ((st = GS_DEV_ARGS(ks, K_INIT, a_init)) || (st = GS_DEV_ARGS(ks, K_UPDATE, a_upd)) ||
        (st = GS_DEV_ARGS(ks, K_HIST, a_hist)) || (st = GS_DEV_ARGS(ks, K_PICK, a_pick)) ||
        (st = GS_DEV_ARGS(ks, K_GAP, a_gap)) || (st = GS_DEV_ARGS(ks, K_COLLECT, a_coll)) ||
        (st = GS_DEV_ARGS(ks, K_MERGE, a_merge)) || (st = GS_DEV_ARGS(ks, K_GATHER, a_gather)) ||
        (st = GS_DEV_ARGS(ks, K_ROWS, a_rows)) || (st = GS_DEV_ARGS(ks, K_READBACK, a_rb)))
        return st;
    return GS_OK;
}

static gs_status launch(run *r, int kern, size_t g0, size_t g1, size_t local)
{
    return gs_dev_launch(&r->dev, &r->ks, kern, &r->pf, g0, g1, local, NULL);
}

/* Queues round `round` (the alphas changed by the last subproblem, update, selection, new kernel
 * rows, readback) and reads its results back (blocking). */
static gs_status run_round(run *r, long round)
{
    gs_status st = GS_OK;
    const gs_dev_kernels *ks = &r->ks;
    const int k = r->k, q = r->q, wg = r->wg, mwg = r->mwg;
    if (round > 0) { /* every round after the first: the rows holding a slot take its alphas */
        const size_t nd = GS_CS_UPD_DOUBLES((size_t)r->nupd, (size_t)q, (size_t)k);
        GS_CL_CHECK(clEnqueueWriteBuffer(r->dev.queue, r->b.upd.mem, CL_FALSE, 0, nd * sizeof(double), r->upd, 0,
                                         NULL, NULL));
    }
    if ((st = gs_dev_arg(ks, K_UPDATE, 5, sizeof r->nupd, &r->nupd)) ||
        (st = launch(r, K_UPDATE, (size_t)r->npos, 1, (size_t)wg)) ||
        (st = launch(r, K_GAP, (size_t)mwg, 1, (size_t)mwg)))
        goto cleanup;
    for (int pass = 0; pass < GS_CS_NPASS; pass++) {
        if ((st = gs_dev_arg(ks, K_HIST, 3, sizeof pass, &pass)) || (st = gs_dev_arg(ks, K_PICK, 2, sizeof pass, &pass)) ||
            (st = launch(r, K_HIST, (size_t)r->nhist * wg, 1, (size_t)wg)) ||
            (st = launch(r, K_PICK, (size_t)mwg, 1, (size_t)mwg)))
            goto cleanup;
    }
    const int round_arg = (int)(round & 0x3FFFFFFF);
    if ((st = gs_dev_arg(ks, K_MERGE, 9, sizeof round_arg, &round_arg)) ||
        (st = launch(r, K_COLLECT, (size_t)r->npos, 1, (size_t)wg)) ||
        (st = launch(r, K_MERGE, (size_t)mwg, 1, (size_t)mwg)) ||
        (st = launch(r, K_GATHER, (size_t)q * wg, 1, (size_t)wg)) ||
        (st = launch(r, K_ROWS, (size_t)r->ncl * wg, (size_t)((q + WCH - 1) / WCH), (size_t)wg)) ||
        (st = launch(r, K_READBACK, round_up((size_t)q * 16, 256), 1, 256)))
        goto cleanup;
    const double tw = gs_now();
    GS_CL_CHECK(clEnqueueReadBuffer(r->dev.queue, r->b.rb.mem, CL_TRUE, 0, r->rb_bytes, r->rb, 0, NULL, NULL));
    r->t_wait += gs_now() - tw;
    if (r->dev.profile) gs_dev_prof_collect(&r->pf, k_phase, r->ph, NULL, 0);
cleanup:
    return st;
}

/* Takes the readback in: the slots' positions and the new Gram rows and columns.
 * @return the new slots */
static int absorb(run *r)
{
    const int q = r->q;
    const double *rb = r->rb;
    const int nn = (int)rb[GS_CS_RB_NNEW];
    r->sum_new += nn;
    for (int i = 0; i < q; i++) r->wsp[i] = (int)rb[GS_CS_RB_WS_POS(q) + i];
    const float *gram = (const float *)(rb + r->rb_doubles);
    float *Kq = r->Kq;
    for (int e = 0; e < nn; e++) {
        r->ns[e] = (int)rb[GS_CS_RB_NEW_SLOTS(q) + e];
        memcpy(Kq + (size_t)r->ns[e] * q, gram + (size_t)e * q, sizeof(float) * (size_t)q);
    }
    for (int e0 = 0; e0 < nn; e0 += 32) /* and the columns, in tiles (the matrix is symmetric) */
        for (int j0 = 0; j0 < q; j0 += 32)
            for (int e = e0; e < e0 + 32 && e < nn; e++)
                for (int j = j0; j < j0 + 32 && j < q; j++) Kq[(size_t)j * q + r->ns[e]] = gram[(size_t)e * q + j];
    return nn;
}

/* Solves the working set's subproblem and packs the changes for the next round's update buffer
 * (GS_CS_UPD_*); the host's alphas follow.
 * @return the example steps taken */
static long solve_set(run *r, double C, double eps)
{
    const int k = r->k, q = r->q;
    const double ts = gs_now();
    int na = 0;
    double v0 = 0;
    for (int s = 0; s < q; s++) {
        const int p = r->wsp[s];
        if (p < 0) continue;
        r->act[na++] = s;
        r->ys[s] = r->cls_pos[p];
        const double *gr = r->rb + GS_CS_RB_G(q) + (size_t)s * k;
        for (int m = 0; m < k; m++) r->gsub[(size_t)m * q + s] = gr[m];
        memcpy(r->asub + (size_t)s * k, r->ah + (size_t)p * k, sizeof(double) * (size_t)k);
        memset(r->dsub + (size_t)s * k, 0, sizeof(double) * (size_t)k);
        const double v = violation(k, r->ys[s], C, r->asub + (size_t)s * k, gr);
        if (v > v0) v0 = v;
    }
    subproblem sp = {.k = k, .q = q, .na = na, .act = r->act, .y = r->ys, .Kq = r->Kq, .C = C,
                     .tol = fmax(0.5 * eps, CS_REL * v0), .g = r->gsub, .a = r->asub, .da = r->dsub,
                     .gs = r->scratch, .anew = r->scratch + k, .delta = r->scratch + 2 * k,
                     .sorted = r->scratch + 3 * k, .nz = r->nz, .max_steps = 100L * q + 1000};
    const long steps = subproblem_solve(&sp);
    int nupd = 0;
    for (int i = 0; i < na; i++) {
        const int s = r->act[i];
        int changed = 0;
        for (int m = 0; m < k; m++) changed |= r->dsub[(size_t)s * k + m] != 0;
        if (!changed) continue;
        memcpy(r->upd + (size_t)nupd * k, r->dsub + (size_t)s * k, sizeof(double) * (size_t)k);
        r->chg[nupd++] = s;
    }
    double *uslot = r->upd + GS_CS_UPD_SLOTS((size_t)nupd, (size_t)k);
    double *anew = r->upd + GS_CS_UPD_ALPHAS((size_t)nupd, (size_t)k);
    for (int u = 0; u < nupd; u++) uslot[u] = (double)r->chg[u];
    memset(anew, 0, sizeof(double) * r->qk);
    for (int i = 0; i < na; i++) {
        const int s = r->act[i];
        memcpy(anew + (size_t)s * k, r->asub + (size_t)s * k, sizeof(double) * (size_t)k);
        memcpy(r->ah + (size_t)r->wsp[s] * k, r->asub + (size_t)s * k, sizeof(double) * (size_t)k);
    }
    r->nupd = nupd;
    r->sum_upd += nupd;
    r->t_sub += gs_now() - ts;
    return steps;
}

/* The final gradients: the objective, the primal, and the alphas by original row. */
static gs_status finish(run *r, const gs_clustered *cl, double C, outcome *out)
{
    gs_status st = GS_OK;
    const int k = r->k, npos = r->npos;
    const double *ah = r->ah;
    double *Gh = malloc(sizeof *Gh * (size_t)npos * (size_t)k);
    if (!Gh) return GS_FAIL(GS_ERR_NOMEM, "out of memory reading the gradients");
    GS_CL_CHECK(clEnqueueReadBuffer(r->dev.queue, r->b.G.mem, CL_TRUE, 0, sizeof(double) * (size_t)npos * k, Gh, 0,
                                    NULL, NULL));
    /* dual D = sum_i a_i^(y_i) - 1/2 sum a'Ka with Ka = delta - g; primal adds C * the multiclass
     * hinge loss, max_m (g_i^(y_i) - g_i^(m)) */
    double ay = 0, ag = 0, loss = 0;
    for (int p = 0; p < npos; p++) {
        const int y = r->cls_pos[p];
        if (y < 0) continue;
        double gmin = INFINITY;
        for (int m = 0; m < k; m++) {
            const double g = Gh[(size_t)m * npos + p];
            ag += ah[(size_t)p * k + m] * g;
            gmin = fmin(gmin, g);
        }
        ay += ah[(size_t)p * k + y];
        loss += Gh[(size_t)y * npos + p] - gmin;
    }
    const double half_wtw = 0.5 * (ay - ag);
    out->obj = half_wtw - ay; /* LIBSVM's sign: the minimised form */
    out->primal = half_wtw + C * loss;
    for (int p = 0; p < npos; p++)
        if (cl->perm[p] >= 0)
            memcpy(out->alpha + (size_t)cl->perm[p] * k, ah + (size_t)p * k, sizeof(double) * (size_t)k);
cleanup:
    free(Gh);
    return st;
}

/* --verbose's line and the phase times. */
static void report(const run *r, const gs_ocl *ocl, const gs_log *log, const outcome *out, double t_loop,
                   gs_train_stats *stats)
{
    const long rounds = out->rounds;
    gs_log_verbose(log, "gpusvm: cs: %ld rounds, %ld example steps, largest violation %g, blocking reads %.3f s, "
                   "subproblems %.3f s, %.1f new kernel rows and %.1f changed examples per round\n", rounds,
                   out->steps, out->max_violation, r->t_wait, r->t_sub,
                   rounds ? (double)r->sum_new / rounds : 0.0, rounds ? (double)r->sum_upd / rounds : 0.0);
    if (!stats) return;
    const double loop = gs_now() - t_loop;
    const double *ph = r->ph;
    stats->iterations = rounds;
    stats->inner_steps = out->steps;
    stats->subproblem += r->t_sub;
    if (r->dev.profile) {
        stats->update += ph[PH_UPDATE];
        stats->select += ph[PH_SELECT];
        stats->rows += ph[PH_ROWS];
        stats->transfer += ph[PH_TRANSFER];
        stats->other += loop - r->t_sub - ph[PH_UPDATE] - ph[PH_SELECT] - ph[PH_ROWS] - ph[PH_TRANSFER];
    } else {
        stats->transfer += r->t_wait;
        stats->other += loop - r->t_sub - r->t_wait;
    }
    stats->peak_gbps = ocl->peak_gbps;
}

/* Sets up the run: sizes, program, host arrays, device buffers, arguments, and the first kernel. */
static gs_status setup(run *r, gs_ocl *ocl, const gs_clustered *cl, const gs_classes *cls, const gs_param *param)
{
    gs_status st = GS_OK;
    r->k = cls->k;
    r->wg = cl->cluster_size;
    r->npos = cl->n_pos;
    r->ncl = cl->n_clusters;
    r->wide = cl->wide; /* the row-wise clusters' form (cluster.h); cs keeps its dense block U */
    r->q = param->ws_size > 0 ? param->ws_size : GS_CS_WS_SIZE; /* 0: automatic */
    r->nhist = r->ncl < 256 ? r->ncl : 256;
    r->qk = (size_t)r->q * (size_t)r->k;
    r->rb_doubles = GS_CS_RB_DOUBLES((size_t)r->q, (size_t)r->k);
    r->rb_bytes = r->rb_doubles * sizeof(double) + (size_t)r->q * (size_t)r->q * sizeof(float);
    r->upd_bytes = GS_CS_UPD_DOUBLES((size_t)r->q, (size_t)r->q, (size_t)r->k) * sizeof(double);
    if ((st = gs_dev_init(&r->dev, ocl, NULL)) || (st = build_kernels(r, ocl, param)) ||
        (st = alloc_host(r, cl, cls)) || (st = alloc_device(r, cl)) || (st = set_args(r, param)) ||
        (st = launch(r, K_INIT, (size_t)r->npos, 1, (size_t)r->wg)))
        return st;
    return GS_OK;
}

/* Clusters are given; builds the program, uploads, runs the rounds, and fills out. */
static gs_status train_device(gs_ocl *ocl, const gs_clustered *cl, const gs_classes *cls, const gs_param *param,
                              const gs_log *log, outcome *out, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    run r;
    memset(&r, 0, sizeof r);
    const double C = param->C, eps = param->eps;
    const double t_setup = gs_now();
    if ((st = setup(&r, ocl, cl, cls, param))) goto cleanup;
    if (stats) stats->setup += gs_now() - t_setup;
    if (stats && stats->t_on_device == 0) stats->t_on_device = gs_now();

    const int32_t n = cl->n;
    const long max_steps = n > 100000 ? 100L * n : 10000000L;
    const double t_loop = gs_now();
    long rounds = 0, steps = 0;
    double gap = INFINITY;
    for (;;) {
        if ((st = run_round(&r, rounds))) goto cleanup;
        gap = r.rb[GS_CS_RB_GAP];
        const int nn = absorb(&r);
        if (!(gap >= eps)) break; /* also stops on NaN or when nothing is eligible */
        if (steps >= max_steps) {
            out->max_iter_hit = 1;
            break;
        }
        steps += solve_set(&r, C, eps);
        rounds++;
        if (r.nupd == 0 && nn == 0) { /* nothing moved and nothing new: no progress is possible */
            out->stalled = 1;
            break;
        }
    }
    if ((st = finish(&r, cl, C, out))) goto cleanup;
    out->rounds = rounds;
    out->steps = steps;
    out->max_violation = gap;
    report(&r, ocl, log, out, t_loop, stats);

cleanup:
    run_release(&r);
    return st;
}

/* ---- model ------------------------------------------------------------------------------- */

static gs_status build_model(const gs_problem *prob, const gs_param *param, const gs_classes *cls,
                             const double *alpha, gs_model *model, int *nbsv)
{
    const int k = cls->k;
    const int32_t l = prob->l;
    model->svm_type = GS_CS_SVC;
    model->kernel_type = param->kernel_type;
    model->degree = param->degree;
    model->gamma = param->gamma;
    model->coef0 = param->coef0;
    model->nr_class = k;
    model->n_coef = gs_model_coef_count(GS_CS_SVC, k);
    const size_t kk = k > 0 ? (size_t)k : 1;
    model->rho = calloc(kk, sizeof(double)); /* no bias: 0 for every class */
    model->label = malloc(sizeof(int) * kk);
    model->nSV = calloc(kk, sizeof(int));
    if (!model->rho || !model->label || !model->nSV) return GS_FAIL(GS_ERR_NOMEM, "out of memory for the model");
    if (k > 0) memcpy(model->label, cls->label, sizeof(int) * (size_t)k);
    /* SVs: grouped by class, file order within a class */
    int32_t total = 0;
    int64_t nnz = 0;
    *nbsv = 0;
    for (int32_t i = 0; alpha && i < l; i++) {
        int nonzero = 0;
        for (int m = 0; m < k; m++) nonzero |= alpha[(size_t)i * k + m] != 0;
        if (!nonzero) continue;
        total++;
        model->nSV[cls->of_row[i]]++;
        nnz += prob->row_ptr[i + 1] - prob->row_ptr[i];
        if (alpha[(size_t)i * k + cls->of_row[i]] >= param->C) (*nbsv)++;
    }
    model->l = total;
    model->sv_coef = malloc(sizeof(double) * (size_t)(total ? total : 1) * (size_t)(k ? k : 1));
    model->sv_ptr = malloc(sizeof(int64_t) * ((size_t)total + 1));
    model->sv_idx = malloc(sizeof(int32_t) * (size_t)(nnz ? nnz : 1));
    model->sv_val = malloc(sizeof(double) * (size_t)(nnz ? nnz : 1));
    if (!model->sv_coef || !model->sv_ptr || !model->sv_idx || !model->sv_val)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for the model's %d support vectors", (int)total);
    model->sv_ptr[0] = 0;
    int32_t s = 0;
    int64_t o = 0;
    for (int c = 0; c < k && alpha; c++) {
        for (int32_t i = 0; i < l; i++) {
            if (cls->of_row[i] != c) continue;
            int nonzero = 0;
            for (int m = 0; m < k; m++) nonzero |= alpha[(size_t)i * k + m] != 0;
            if (!nonzero) continue;
            memcpy(model->sv_coef + (size_t)s * k, alpha + (size_t)i * k, sizeof(double) * (size_t)k);
            for (int64_t e = prob->row_ptr[i]; e < prob->row_ptr[i + 1]; e++, o++) {
                model->sv_idx[o] = prob->idx[e];
                model->sv_val[o] = prob->val[e]; /* made decimal below */
            }
            model->sv_ptr[++s] = o;
        }
    }
    gs_model_sv_values(model->sv_val, o);
    return GS_OK;
}

gs_status gs_cs_train(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                      const gs_log *log, gs_model *model, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    gs_classes cls;
    memset(&cls, 0, sizeof cls);
    gs_clustered cl;
    memset(&cl, 0, sizeof cl);
    outcome out;
    memset(&out, 0, sizeof out);
    const double t_start = gs_now();
    memset(model, 0, sizeof *model);
    if (stats) memset(stats, 0, sizeof *stats);
    const char *msg = gs_param_check(param, NULL);
    if (msg || param->svm_type != GS_C_SVC) {
        st = GS_FAIL(GS_ERR_ARG, "--multiclass cs: %s", msg ? msg : "needs -s 0 (C-SVC)");
        goto cleanup;
    }
    for (int64_t e = 0; e < prob->nnz; e++)
        if (!isfinite(prob->val[e])) {
            st = GS_FAIL(GS_ERR_FORMAT, "--multiclass cs: the training data holds a non-finite feature value "
                         "(nan or inf)");
            goto cleanup;
        }
    if ((st = gs_classes_group(prob, &cls))) goto cleanup;
    const int k = cls.k;
    if (k == 1) gs_log_info(log, "WARNING: training data in only one class. See README for details.\n");
    if (k >= 2) {
        out.alpha = calloc((size_t)prob->l * (size_t)k, sizeof *out.alpha);
        if (!out.alpha) {
            st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d x %d coefficients", (int)prob->l, k);
            goto cleanup;
        }
        if ((st = gs_cluster_build(prob->row_ptr, prob->idx, prob->val, prob->l, param->cluster_size,
                                   param->clusters_active, param->seed, &cl)))
            goto cleanup;
        if (stats) stats->cluster += cl.seconds;
        gs_log_verbose(log, "gpusvm: clustering: %d rows into %d clusters of %d (%d stored row-wise), %.2f "
                       "nonzeros/row raw, %.2f per clustered row, %.4f s (layout %.4f s)\n", (int)cl.n,
                       cl.n_clusters, cl.cluster_size, cl.n_ell, cl.raw_nnz_per_row, cl.clustered_nnz_per_row,
                       cl.seconds, cl.layout_seconds);
        gs_ocl *ocl = dev ? dev->wait(dev->ctx) : NULL;
        if (!ocl) {
            st = dev ? GS_ERR_NODEVICE : GS_FAIL(GS_ERR_NODEVICE, "no OpenCL device");
            goto cleanup;
        }
        if ((st = train_device(ocl, &cl, &cls, param, log, &out, stats))) goto cleanup;
        if (out.max_iter_hit) fprintf(stderr, "\nWARNING: reaching max number of iterations\n");
        if (out.stalled)
            fprintf(stderr, "WARNING: Crammer-Singer training made no progress with the largest violation at "
                    "%g (-e %g); the model may be less accurate\n", out.max_violation, param->eps);
    }
    int nbsv = 0;
    if ((st = build_model(prob, param, &cls, out.alpha, model, &nbsv))) goto cleanup;
    if (k >= 2) {
        gs_log_info(log, "optimization finished, #iter = %ld\n", out.rounds);
        gs_log_info(log, "obj = %f\n", out.obj);
        gs_log_info(log, "nSV = %d, nBSV = %d\n", (int)model->l, nbsv);
        if (stats) {
            const double dual = -out.obj;
            stats->duality_gap = out.primal != 0 ? (out.primal - dual) / fabs(out.primal) : 0;
        }
    }
    gs_log_info(log, "Total nSV = %d\n", (int)model->l);
    if (stats) {
        stats->t_model_ready = gs_now();
        stats->total = stats->t_model_ready - t_start;
    }

cleanup:
    if (st != GS_OK) gs_model_free(model);
    gs_clustered_free(&cl);
    gs_classes_free(&cls);
    free(out.alpha);
    return st;
}
