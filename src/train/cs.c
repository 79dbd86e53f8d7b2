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
#include "device/ocl.h"

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
#define NPASS 6 /* radix passes over the 64-bit keys (kernels/cs.cl) */

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

/* Device buffers, released together. */
typedef struct bufs {
    cl_mem cols, col_off, vals, ell_w, ell_off, ell_idx, ell_val, norm2, cls, G, A, key, gmax, state,
        hist, gap, count, cand, ws_pos, slot_of, last, new_slots, n_new, u_pos, U, K, upd, rb;
} bufs;
#define N_BUFS (sizeof(bufs) / sizeof(cl_mem))

typedef struct run {
    gs_ocl *ocl;
    cl_command_queue queue; /* the device's queue (in order) */
    cl_program prog;
    cl_kernel k[K_N];
    bufs b;
    cl_mem pin[2];          /* pinned, mapped host memory: readback and update */
    void *pin_host[2];
    int profile;
    cl_event ev[40];
    int ev_kern[40], n_ev;
} run;

static void run_release(run *r)
{
    for (int i = 0; i < r->n_ev; i++) clReleaseEvent(r->ev[i]);
    r->n_ev = 0;
    for (int i = 0; i < 2; i++)
        if (r->pin[i]) {
            if (r->pin_host[i]) clEnqueueUnmapMemObject(r->queue, r->pin[i], r->pin_host[i], 0, NULL, NULL);
            clReleaseMemObject(r->pin[i]);
        }
    if (r->queue) clFinish(r->queue);
    cl_mem *m = (cl_mem *)&r->b;
    for (size_t i = 0; i < N_BUFS; i++)
        if (m[i]) clReleaseMemObject(m[i]);
    for (int i = 0; i < K_N; i++)
        if (r->k[i]) clReleaseKernel(r->k[i]);
    if (r->prog) clReleaseProgram(r->prog);
    memset(r, 0, sizeof *r);
}

/* A device buffer of `bytes` (at least 16: OpenCL refuses empty ones), uploaded from host when
 * given (blocking: host arrays are freed early). */
static gs_status buf(run *r, cl_mem *m, size_t bytes, const void *host, const char *what)
{
    const size_t n = bytes < 16 ? 16 : bytes;
    gs_status st = gs_ocl_alloc(r->ocl, CL_MEM_READ_WRITE, n, NULL, what, m);
    if (st != GS_OK) return st;
    if (host && bytes > 0) {
        const cl_int e = clEnqueueWriteBuffer(r->queue, *m, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
        if (e != CL_SUCCESS)
            return GS_FAIL(GS_ERR_OCL, "clEnqueueWriteBuffer(%s, %zu bytes) failed: %s", what, bytes,
                           gs_cl_error_name(e));
    }
    return GS_OK;
}

static gs_status fill_int(run *r, cl_mem m, int pattern, size_t bytes)
{
    const cl_int e = clEnqueueFillBuffer(r->queue, m, &pattern, sizeof pattern, 0, bytes, 0, NULL, NULL);
    if (e != CL_SUCCESS) return GS_FAIL(GS_ERR_OCL, "clEnqueueFillBuffer failed: %s", gs_cl_error_name(e));
    return GS_OK;
}

static gs_status pinned(run *r, int i, size_t bytes, void **host)
{
    cl_int e;
    r->pin[i] = clCreateBuffer(r->ocl->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &e);
    if (e != CL_SUCCESS)
        return GS_FAIL(GS_ERR_OCL, "clCreateBuffer(pinned, %zu bytes) failed: %s", bytes, gs_cl_error_name(e));
    r->pin_host[i] = clEnqueueMapBuffer(r->queue, r->pin[i], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                        NULL, NULL, &e);
    if (e != CL_SUCCESS) {
        r->pin_host[i] = NULL;
        return GS_FAIL(GS_ERR_OCL, "clEnqueueMapBuffer(pinned, %zu bytes) failed: %s", bytes, gs_cl_error_name(e));
    }
    *host = r->pin_host[i];
    return GS_OK;
}

static gs_status arg(run *r, int kern, cl_uint i, size_t size, const void *v)
{
    const cl_int e = clSetKernelArg(r->k[kern], i, size, v);
    if (e != CL_SUCCESS)
        return GS_FAIL(GS_ERR_OCL, "clSetKernelArg(%s, %u) failed: %s", k_names[kern], i, gs_cl_error_name(e));
    return GS_OK;
}

/* Sets consecutive arguments from 0: each entry is (size, pointer). */
typedef struct karg {
    size_t size;
    const void *v;
} karg;

static gs_status args(run *r, int kern, const karg *a, int n)
{
    for (int i = 0; i < n; i++) {
        const gs_status st = arg(r, kern, (cl_uint)i, a[i].size, a[i].v);
        if (st != GS_OK) return st;
    }
    return GS_OK;
}
#define M(x) {sizeof(cl_mem), &(x)}
#define V(x) {sizeof(x), &(x)}

static gs_status launch(run *r, int kern, size_t g0, size_t g1, size_t local)
{
    cl_event *evp = NULL;
    if (r->profile && r->n_ev < 40) {
        r->ev_kern[r->n_ev] = kern;
        evp = &r->ev[r->n_ev++];
    }
    const size_t global[2] = {g0, g1}, loc[2] = {local, 1};
    const cl_int e = clEnqueueNDRangeKernel(r->queue, r->k[kern], g1 > 1 ? 2 : 1, NULL, global, loc, 0, NULL, evp);
    if (e != CL_SUCCESS) {
        if (evp) r->n_ev--;
        return GS_FAIL(GS_ERR_OCL, "clEnqueueNDRangeKernel(%s, %zu x %zu, local %zu) failed: %s", k_names[kern], g0,
                       g1, local, gs_cl_error_name(e));
    }
    return GS_OK;
}

static void collect_profile(run *r, double *ph)
{
    for (int i = 0; i < r->n_ev; i++) {
        cl_ulong a = 0, b = 0;
        clGetEventProfilingInfo(r->ev[i], CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
        clGetEventProfilingInfo(r->ev[i], CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
        if (b > a) ph[k_phase[r->ev_kern[i]]] += (double)(b - a) * 1e-9;
        clReleaseEvent(r->ev[i]);
    }
    r->n_ev = 0;
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

/* Clusters are given; builds the program, uploads, runs the rounds, and fills out. */
static gs_status train_device(gs_ocl *ocl, const gs_clustered *cl, const gs_classes *cls, const gs_param *param,
                              const gs_log *log, outcome *out, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    run r;
    memset(&r, 0, sizeof r);
    const int k = cls->k, wg = cl->cluster_size, npos = cl->n_pos, ncl = cl->n_clusters;
    const int q = param->ws_size > 0 ? param->ws_size : GS_CS_WS_SIZE; /* 0: automatic */
    const double C = param->C, eps = param->eps;
    int *cls_pos = NULL, *wsp = NULL, *act = NULL, *ys = NULL, *nz = NULL, *chg = NULL, *ns = NULL;
    double *ah = NULL, *gsub = NULL, *asub = NULL, *dsub = NULL, *scratch = NULL, *Gh = NULL;
    float *Kq = NULL;
    double ph[PH_N] = {0};
    double t_sub = 0, t_wait = 0;
    const double t_setup = gs_now();

    r.ocl = ocl;
    r.queue = ocl->queue;
    cl_command_queue_properties props = 0;
    clGetCommandQueueInfo(ocl->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    r.profile = (props & CL_QUEUE_PROFILING_ENABLE) != 0;

    if ((size_t)wg > ocl->max_wg) {
        st = GS_FAIL(GS_ERR_ARG, "--cluster-size %d exceeds the device's work-group limit %zu", wg, ocl->max_wg);
        goto cleanup;
    }
    int mwg = MWG_MAX;
    while ((size_t)mwg > ocl->max_wg) mwg /= 2;
    const int qmax = pow2_at_least(q > mwg ? q : mwg);
    char opts[256];
    snprintf(opts, sizeof opts, "-DWG=%d -DKTYPE=%d -DCB=%d -DWCH=%d -DCCH=%d -DQMAX=%d -DMWG=%d", wg,
             param->kernel_type, CB, WCH, CCH, qmax, mwg);
    if ((st = gs_ocl_build(ocl, "cs", opts, &r.prog))) goto cleanup;
    for (int i = 0; i < K_N; i++) {
        if ((st = gs_ocl_kernel(r.prog, k_names[i], &r.k[i]))) goto cleanup;
        size_t kw = 0;
        if ((st = gs_ocl_kernel_wg(ocl, r.k[i], &kw))) goto cleanup;
        const size_t need = (i == K_MERGE || i == K_PICK || i == K_GAP) ? (size_t)mwg : (i == K_READBACK ? 256 : (size_t)wg);
        if (kw < need) {
            st = GS_FAIL(GS_ERR_UNSUPPORTED, "the device runs %s with at most %zu work-items (%zu needed; try a "
                         "smaller --cluster-size)", k_names[i], kw, need);
            goto cleanup;
        }
    }

    /* host arrays */
    const size_t qk = (size_t)q * (size_t)k;
    const size_t rb_doubles = 4 + 2 * (size_t)q + qk;
    const size_t rb_bytes = rb_doubles * sizeof(double) + (size_t)q * (size_t)q * sizeof(float);
    const size_t upd_bytes = (2 * qk + (size_t)q) * sizeof(double);
    cls_pos = malloc(sizeof *cls_pos * (size_t)npos);
    ah = calloc((size_t)npos * (size_t)k, sizeof *ah);
    wsp = malloc(sizeof *wsp * (size_t)q);
    act = malloc(sizeof *act * (size_t)q);
    chg = malloc(sizeof *chg * (size_t)q);
    ns = malloc(sizeof *ns * (size_t)q);
    ys = malloc(sizeof *ys * (size_t)q);
    nz = malloc(sizeof *nz * (size_t)k);
    gsub = calloc(qk, sizeof *gsub);
    asub = malloc(sizeof *asub * qk);
    dsub = malloc(sizeof *dsub * qk);
    scratch = malloc(sizeof *scratch * 4 * (size_t)k);
    Kq = calloc((size_t)q * (size_t)q, sizeof *Kq);
    if (!cls_pos || !ah || !wsp || !act || !chg || !ns || !ys || !nz || !gsub || !asub || !dsub || !scratch || !Kq) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory for the Crammer-Singer host arrays (%d rows, %d classes)", npos, k);
        goto cleanup;
    }
    for (int p = 0; p < npos; p++) cls_pos[p] = cl->perm[p] >= 0 ? cls->of_row[cl->perm[p]] : -1;

    /* device buffers */
    bufs *b = &r.b;
    const size_t ncols = (size_t)cl->col_off[ncl], nell = (size_t)cl->ell_off[ncl];
    const size_t ucols = (size_t)cl->n_ucols + 1;
    const int nhist = ncl < 256 ? ncl : 256;
    if ((st = buf(&r, &b->cols, ncols * sizeof(int32_t), cl->cols, "cols")) ||
        (st = buf(&r, &b->col_off, ((size_t)ncl + 1) * sizeof(int64_t), cl->col_off, "col_off")) ||
        (st = buf(&r, &b->vals, ncols * (size_t)wg * sizeof(float), cl->vals, "vals")) ||
        (st = buf(&r, &b->ell_w, (size_t)ncl * sizeof(int32_t), cl->ell_w, "ell_w")) ||
        (st = buf(&r, &b->ell_off, ((size_t)ncl + 1) * sizeof(int64_t), cl->ell_off, "ell_off")) ||
        (st = buf(&r, &b->ell_idx, nell * sizeof(int32_t), nell ? cl->ell_idx : NULL, "ell_idx")) ||
        (st = buf(&r, &b->ell_val, nell * sizeof(float), nell ? cl->ell_val : NULL, "ell_val")) ||
        (st = buf(&r, &b->norm2, (size_t)npos * sizeof(double), cl->norm2, "norm2")) ||
        (st = buf(&r, &b->cls, (size_t)npos * sizeof(int), cls_pos, "classes")) ||
        (st = buf(&r, &b->G, (size_t)npos * (size_t)k * sizeof(double), NULL, "gradients")) ||
        (st = buf(&r, &b->A, (size_t)npos * (size_t)k * sizeof(double), NULL, "alphas")) ||
        (st = buf(&r, &b->key, (size_t)npos * sizeof(cl_ulong), NULL, "keys")) ||
        (st = buf(&r, &b->gmax, (size_t)ncl * sizeof(double), NULL, "group maxima")) ||
        (st = buf(&r, &b->state, 5 * sizeof(cl_ulong), NULL, "selection state")) ||
        (st = buf(&r, &b->hist, 2048 * sizeof(cl_uint), NULL, "histogram")) ||
        (st = buf(&r, &b->gap, sizeof(double), NULL, "violation")) ||
        (st = buf(&r, &b->count, sizeof(cl_uint), NULL, "count")) ||
        (st = buf(&r, &b->cand, (size_t)q * sizeof(int), NULL, "candidates")) ||
        (st = buf(&r, &b->ws_pos, (size_t)q * sizeof(int), NULL, "slot rows")) ||
        (st = buf(&r, &b->slot_of, (size_t)npos * sizeof(int), NULL, "row slots")) ||
        (st = buf(&r, &b->last, (size_t)q * sizeof(int), NULL, "slot ages")) ||
        (st = buf(&r, &b->new_slots, (size_t)q * sizeof(int), NULL, "new slots")) ||
        (st = buf(&r, &b->n_new, sizeof(int), NULL, "new slot count")) ||
        (st = buf(&r, &b->u_pos, (size_t)q * sizeof(int), NULL, "U rows")) ||
        (st = buf(&r, &b->U, ucols * (size_t)q * sizeof(float), NULL, "working-set vectors")) ||
        (st = buf(&r, &b->K, (size_t)q * (size_t)npos * sizeof(float), NULL, "kernel rows")) ||
        (st = buf(&r, &b->upd, upd_bytes, NULL, "alpha changes")) ||
        (st = buf(&r, &b->rb, rb_bytes, NULL, "readback")))
        goto cleanup;
    if ((st = fill_int(&r, b->hist, 0, 2048 * sizeof(cl_uint))) || (st = fill_int(&r, b->count, 0, sizeof(cl_uint))) ||
        (st = fill_int(&r, b->ws_pos, -1, (size_t)q * sizeof(int))) ||
        (st = fill_int(&r, b->slot_of, -1, (size_t)npos * sizeof(int))) ||
        (st = fill_int(&r, b->u_pos, -1, (size_t)q * sizeof(int))) ||
        (st = fill_int(&r, b->last, 0, (size_t)q * sizeof(int))) ||
        (st = fill_int(&r, b->U, 0, ucols * (size_t)q * sizeof(float))))
        goto cleanup;
    double *rb = NULL, *upd = NULL;
    {
        void *h0 = NULL, *h1 = NULL;
        if ((st = pinned(&r, 0, rb_bytes, &h0)) || (st = pinned(&r, 1, upd_bytes, &h1))) goto cleanup;
        rb = h0;
        upd = h1;
    }

    /* fixed arguments */
    int nupd = 0, pass = 0;
    const int degree = param->degree;
    const double gamma = param->gamma, coef0 = param->coef0;
    const double sel = CS_REL;
    {
        const karg a_init[] = {M(b->G), M(b->A), M(b->cls), V(npos), V(k)};
        const karg a_upd[] = {M(b->G), M(b->A), M(b->cls), M(b->K), M(b->upd), V(nupd), V(q), M(b->slot_of),
                              V(npos), V(C), V(eps), M(b->key), M(b->gmax), M(b->state), V(k)};
        const karg a_hist[] = {M(b->key), M(b->state), M(b->hist), V(pass), V(npos)};
        const karg a_gap[] = {M(b->gmax), V(ncl), M(b->gap), M(b->state), V(eps), V(sel)};
        const karg a_pick[] = {M(b->state), M(b->hist), V(pass), V(q)};
        const karg a_coll[] = {M(b->key), M(b->state), M(b->count), M(b->cand), V(npos)};
        const karg a_merge[] = {M(b->state), M(b->cand), M(b->count), M(b->ws_pos), M(b->slot_of),
                                M(b->last), M(b->new_slots), M(b->n_new), V(q)};
        const karg a_gather[] = {M(b->ws_pos), M(b->new_slots), M(b->n_new), M(b->u_pos), M(b->col_off),
                                 M(b->cols), M(b->vals), M(b->U), V(q), M(b->ell_w), M(b->ell_off),
                                 M(b->ell_idx), M(b->ell_val)};
        const karg a_rows[] = {M(b->col_off), M(b->cols), M(b->vals), M(b->norm2), M(b->U), M(b->ws_pos),
                               M(b->new_slots), M(b->n_new), M(b->K), V(q), V(npos), V(gamma), V(coef0),
                               V(degree), M(b->ell_w), M(b->ell_off), M(b->ell_idx), M(b->ell_val)};
        const karg a_rb[] = {M(b->gap), M(b->state), M(b->n_new), M(b->ws_pos), M(b->new_slots), M(b->G),
                             M(b->K), M(b->rb), V(q), V(npos), V(k)};
        if ((st = args(&r, K_INIT, a_init, 5)) || (st = args(&r, K_UPDATE, a_upd, 15)) ||
            (st = args(&r, K_HIST, a_hist, 5)) || (st = args(&r, K_PICK, a_pick, 4)) || (st = args(&r, K_GAP, a_gap, 6)) ||
            (st = args(&r, K_COLLECT, a_coll, 5)) || (st = args(&r, K_MERGE, a_merge, 9)) ||
            (st = args(&r, K_GATHER, a_gather, 13)) || (st = args(&r, K_ROWS, a_rows, 18)) ||
            (st = args(&r, K_READBACK, a_rb, 11)))
            goto cleanup;
    }
    if ((st = launch(&r, K_INIT, (size_t)npos, 1, (size_t)wg))) goto cleanup;
    for (int i = 0; i < q; i++) wsp[i] = -1;
    if (stats) stats->setup += gs_now() - t_setup;
    if (stats && stats->t_on_device == 0) stats->t_on_device = gs_now();

    const int32_t n = cl->n;
    const long max_steps = n > 100000 ? 100L * n : 10000000L;
    const double t_loop = gs_now();
    long rounds = 0, steps = 0, sum_new = 0, sum_upd = 0;
    double gap = INFINITY;
    for (;;) {
        /* ---- queue one round ---- */
        if (rounds > 0) { /* every round after the first: the rows holding a slot take its alphas */
            const size_t nd = (size_t)nupd * k + (size_t)nupd + qk;
            GS_CL_CHECK(clEnqueueWriteBuffer(r.queue, b->upd, CL_FALSE, 0, nd * sizeof(double), upd, 0, NULL, NULL));
        }
        if ((st = arg(&r, K_UPDATE, 5, sizeof nupd, &nupd)) ||
            (st = launch(&r, K_UPDATE, (size_t)npos, 1, (size_t)wg)) ||
            (st = launch(&r, K_GAP, (size_t)mwg, 1, (size_t)mwg)))
            goto cleanup;
        for (pass = 0; pass < NPASS; pass++) {
            if ((st = arg(&r, K_HIST, 3, sizeof pass, &pass)) || (st = arg(&r, K_PICK, 2, sizeof pass, &pass)) ||
                (st = launch(&r, K_HIST, (size_t)nhist * wg, 1, (size_t)wg)) ||
                (st = launch(&r, K_PICK, (size_t)mwg, 1, (size_t)mwg)))
                goto cleanup;
        }
        const int round_arg = (int)(rounds & 0x3FFFFFFF);
        if ((st = arg(&r, K_MERGE, 9, sizeof round_arg, &round_arg)) ||
            (st = launch(&r, K_COLLECT, (size_t)npos, 1, (size_t)wg)) ||
            (st = launch(&r, K_MERGE, (size_t)mwg, 1, (size_t)mwg)) ||
            (st = launch(&r, K_GATHER, (size_t)q * wg, 1, (size_t)wg)) ||
            (st = launch(&r, K_ROWS, (size_t)ncl * wg, (size_t)((q + WCH - 1) / WCH), (size_t)wg)) ||
            (st = launch(&r, K_READBACK, round_up((size_t)q * 16, 256), 1, 256)))
            goto cleanup;
        const double tw = gs_now();
        GS_CL_CHECK(clEnqueueReadBuffer(r.queue, b->rb, CL_TRUE, 0, rb_bytes, rb, 0, NULL, NULL));
        t_wait += gs_now() - tw;
        if (r.profile) collect_profile(&r, ph);

        /* ---- absorb: slots, new Gram rows and columns ---- */
        gap = rb[0];
        const int nn = (int)rb[2];
        sum_new += nn;
        for (int i = 0; i < q; i++) wsp[i] = (int)rb[4 + i];
        const float *gram = (const float *)(rb + rb_doubles);
        for (int e = 0; e < nn; e++) {
            ns[e] = (int)rb[4 + q + e];
            memcpy(Kq + (size_t)ns[e] * q, gram + (size_t)e * q, sizeof(float) * (size_t)q);
        }
        for (int e0 = 0; e0 < nn; e0 += 32) /* and the columns, in tiles (the matrix is symmetric) */
            for (int j0 = 0; j0 < q; j0 += 32)
                for (int e = e0; e < e0 + 32 && e < nn; e++)
                    for (int j = j0; j < j0 + 32 && j < q; j++) Kq[(size_t)j * q + ns[e]] = gram[(size_t)e * q + j];
        if (!(gap >= eps)) break; /* also stops on NaN or when nothing is eligible */
        if (steps >= max_steps) {
            out->max_iter_hit = 1;
            break;
        }

        /* ---- the subproblem ---- */
        const double ts = gs_now();
        int na = 0;
        double v0 = 0;
        for (int s = 0; s < q; s++) {
            const int p = wsp[s];
            if (p < 0) continue;
            act[na++] = s;
            ys[s] = cls_pos[p];
            const double *gr = rb + 4 + 2 * q + (size_t)s * k;
            for (int m = 0; m < k; m++) gsub[(size_t)m * q + s] = gr[m];
            memcpy(asub + (size_t)s * k, ah + (size_t)p * k, sizeof(double) * (size_t)k);
            memset(dsub + (size_t)s * k, 0, sizeof(double) * (size_t)k);
            const double v = violation(k, ys[s], C, asub + (size_t)s * k, gr);
            if (v > v0) v0 = v;
        }
        subproblem sp = {.k = k, .q = q, .na = na, .act = act, .y = ys, .Kq = Kq, .C = C,
                         .tol = fmax(0.5 * eps, CS_REL * v0), .g = gsub, .a = asub, .da = dsub,
                         .gs = scratch, .anew = scratch + k, .delta = scratch + 2 * k,
                         .sorted = scratch + 3 * k, .nz = nz,
                         .max_steps = 100L * q + 1000};
        steps += subproblem_solve(&sp);
        /* upd: [nupd*k changes][nupd slots][q*k alphas of every slot] */
        nupd = 0;
        for (int i = 0; i < na; i++) {
            const int s = act[i];
            int changed = 0;
            for (int m = 0; m < k; m++) changed |= dsub[(size_t)s * k + m] != 0;
            if (!changed) continue;
            memcpy(upd + (size_t)nupd * k, dsub + (size_t)s * k, sizeof(double) * (size_t)k);
            chg[nupd++] = s;
        }
        double *uslot = upd + (size_t)nupd * k, *anew = uslot + nupd;
        for (int u = 0; u < nupd; u++) uslot[u] = (double)chg[u];
        memset(anew, 0, sizeof(double) * qk);
        for (int i = 0; i < na; i++) {
            const int s = act[i];
            memcpy(anew + (size_t)s * k, asub + (size_t)s * k, sizeof(double) * (size_t)k);
            memcpy(ah + (size_t)wsp[s] * k, asub + (size_t)s * k, sizeof(double) * (size_t)k);
        }
        t_sub += gs_now() - ts;
        sum_upd += nupd;
        rounds++;
        if (nupd == 0 && nn == 0) { /* nothing moved and nothing new: no progress is possible */
            out->stalled = 1;
            break;
        }
    }

    /* final gradients: objective and duality gap */
    Gh = malloc(sizeof *Gh * (size_t)npos * (size_t)k);
    if (!Gh) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory reading the gradients");
        goto cleanup;
    }
    GS_CL_CHECK(clEnqueueReadBuffer(r.queue, b->G, CL_TRUE, 0, sizeof(double) * (size_t)npos * k, Gh, 0, NULL, NULL));
    {
        /* dual D = sum_i a_i^(y_i) - 1/2 sum a'Ka with Ka = delta - g; primal adds C * the multiclass
         * hinge loss, max_m (g_i^(y_i) - g_i^(m)) */
        double ay = 0, ag = 0, loss = 0;
        for (int p = 0; p < npos; p++) {
            const int y = cls_pos[p];
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
    }
    out->rounds = rounds;
    out->steps = steps;
    out->max_violation = gap;
    for (int p = 0; p < npos; p++)
        if (cl->perm[p] >= 0) memcpy(out->alpha + (size_t)cl->perm[p] * k, ah + (size_t)p * k, sizeof(double) * (size_t)k);
    gs_log_verbose(log, "gpusvm: cs: %ld rounds, %ld example steps, largest violation %g, blocking reads %.3f s, "
                   "subproblems %.3f s, %.1f new kernel rows and %.1f changed examples per round\n", rounds, steps,
                   gap, t_wait, t_sub, rounds ? (double)sum_new / rounds : 0.0, rounds ? (double)sum_upd / rounds : 0.0);
    if (stats) {
        const double loop = gs_now() - t_loop;
        stats->iterations = rounds;
        stats->inner_steps = steps;
        stats->subproblem += t_sub;
        if (r.profile) {
            stats->update += ph[PH_UPDATE];
            stats->select += ph[PH_SELECT];
            stats->rows += ph[PH_ROWS];
            stats->transfer += ph[PH_TRANSFER];
            stats->other += loop - t_sub - ph[PH_UPDATE] - ph[PH_SELECT] - ph[PH_ROWS] - ph[PH_TRANSFER];
        } else {
            stats->transfer += t_wait;
            stats->other += loop - t_sub - t_wait;
        }
        stats->peak_gbps = ocl->peak_gbps;
    }

cleanup:
    run_release(&r);
    free(cls_pos); free(ah); free(wsp); free(act); free(chg); free(ns); free(ys); free(nz); free(gsub); free(asub); free(dsub);
    free(scratch); free(Kq); free(Gh);
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
                       "nonzeros/row raw, %.2f per clustered row, %.4f s\n", (int)cl.n, cl.n_clusters,
                       cl.cluster_size, cl.n_ell, cl.raw_nnz_per_row, cl.clustered_nnz_per_row, cl.seconds);
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
