/* solver.c — host side of the working-set loop (see solver.h and kernels/solver.cl).
 * Per round: one non-blocking write (the alpha changes), 13 queued kernels, one blocking read
 * (gap, working set, its gradients and the new kernel rows' Gram entries); the CPU solves the
 * subproblem between reads. Nothing is allocated inside the loop. */
#include "solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "subproblem.h"

#define ITEMS 16
#define WCH 16
#define CCH 16
#define MWG 256 /* work-group of the merge kernel */

enum { K_INIT, K_UPDATE, K_HIST, K_PICK, K_COUNT, K_SCAN, K_WRITE, K_MERGE, K_GATHER, K_ROWS,
       K_READBACK, K_COUNT_ALL };
static const char *const k_names[K_COUNT_ALL] = {"k_init", "k_update", "k_hist", "k_pick",
    "k_count", "k_scan", "k_write", "k_merge", "k_gather_u", "k_rows", "k_readback"};
/* phase of each kernel for the --verbose breakdown */
enum { PH_UPDATE, PH_SELECT, PH_ROWS, PH_TRANSFER, PH_N };
static const int k_phase[K_COUNT_ALL] = {PH_UPDATE, PH_UPDATE, PH_SELECT, PH_SELECT, PH_SELECT,
    PH_SELECT, PH_SELECT, PH_SELECT, PH_ROWS, PH_ROWS, PH_TRANSFER};

/* Device buffers of a binary problem, kept by the solver and reused (grown when needed) from one
 * problem to the next: NVIDIA allocations synchronise the device, and one-vs-one runs many pairs. */
typedef struct dev {
    cl_mem cols, col_off, vals, ell_w, ell_off, ell_idx, ell_val, norm2, y, cb, G, alpha, in_ws, slot_of, state, hist, gmax, gap,
        gcnt, cand, ws_pos, new_slots, n_new, u_pos, U, K, upd, rb;
} dev;

#define N_BUFS (sizeof(dev) / sizeof(cl_mem))

static void dev_release(dev *d, size_t *cap)
{
    cl_mem *m = (cl_mem *)d;
    for (size_t i = 0; i < N_BUFS; i++)
        if (m[i]) clReleaseMemObject(m[i]);
    memset(d, 0, sizeof *d);
    memset(cap, 0, sizeof(size_t) * N_BUFS);
}

struct gs_solver {
    gs_ocl *ocl;
    const gs_log *log;
    int kernel_type, degree;
    double gamma, coef0, eps;
    int q, keep, wg;
    int profile;
    cl_command_queue queue; /* each solver has its own, so pairs can run on several threads */
    cl_program prog;
    cl_kernel k[K_COUNT_ALL];
    double build_seconds;
    dev d;                 /* this solver's buffers (see dev) */
    size_t cap[N_BUFS];    /* their sizes in bytes */
    /* pinned, persistently mapped host memory for the per-round readback and update: transfers
     * from pageable memory go through a staging copy in the driver */
    cl_mem pin[2];
    void *pin_host[2];
    size_t pin_cap[2];
};

static gs_status make_queue(gs_solver *s)
{
    cl_int e;
    s->queue = clCreateCommandQueue(s->ocl->ctx, s->ocl->device, s->profile ? CL_QUEUE_PROFILING_ENABLE : 0, &e);
    if (e != CL_SUCCESS) return GS_FAIL(GS_ERR_OCL, "clCreateCommandQueue failed: %s", gs_cl_error_name(e));
    return GS_OK;
}

void gs_solver_free(gs_solver *s)
{
    if (!s) return;
    for (int i = 0; i < K_COUNT_ALL; i++)
        if (s->k[i]) clReleaseKernel(s->k[i]);
    if (s->prog) clReleaseProgram(s->prog);
    dev_release(&s->d, s->cap);
    for (int i = 0; i < 2; i++)
        if (s->pin[i]) {
            if (s->pin_host[i]) clEnqueueUnmapMemObject(s->queue, s->pin[i], s->pin_host[i], 0, NULL, NULL);
            clReleaseMemObject(s->pin[i]);
        }
    if (s->queue) { clFinish(s->queue); clReleaseCommandQueue(s->queue); }
    free(s);
}

gs_status gs_solver_create(gs_ocl *ocl, const gs_param *param, const gs_log *log, gs_solver **out)
{
    gs_status st = GS_OK;
    gs_solver *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    s->ocl = ocl;
    s->log = log;
    s->kernel_type = param->kernel_type;
    s->degree = param->degree;
    s->gamma = param->gamma;
    s->coef0 = param->coef0;
    s->eps = param->eps;
    s->q = param->ws_size;
    s->keep = param->ws_keep;
    s->wg = param->cluster_size;
    if (s->q < 2 || s->keep < 0 || s->keep > s->q - 2) {
        st = GS_FAIL(GS_ERR_ARG, "--ws-size %d / --ws-keep %d: need ws-size >= 2 and ws-keep <= ws-size - 2",
                     s->q, s->keep);
        goto cleanup;
    }
    if (s->q > 1024 || (size_t)s->wg > ocl->max_wg || ocl->max_wg < MWG) {
        st = GS_FAIL(GS_ERR_ARG, "--ws-size %d (at most 1024) / --cluster-size %d (device limit %zu)",
                     s->q, s->wg, ocl->max_wg);
        goto cleanup;
    }
    cl_command_queue_properties props = 0;
    clGetCommandQueueInfo(ocl->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    s->profile = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
    if ((st = make_queue(s))) goto cleanup;
    char opts[256];
    snprintf(opts, sizeof opts, "-DWG=%d -DKTYPE=%d -DWCH=%d -DCCH=%d -DITEMS=%d -DQMAX=%d -DMWG=%d", s->wg,
             s->kernel_type, WCH, CCH, ITEMS, (s->q + MWG - 1) / MWG * MWG, MWG);
    double t0 = gs_now();
    st = gs_ocl_build(ocl, "solver", opts, &s->prog);
    if (st != GS_OK) goto cleanup;
    for (int i = 0; i < K_COUNT_ALL; i++) {
        st = gs_ocl_kernel(s->prog, k_names[i], &s->k[i]);
        if (st != GS_OK) goto cleanup;
    }
    size_t wgk = 0;
    clGetKernelWorkGroupInfo(s->k[K_MERGE], ocl->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wgk, &wgk, NULL);
    if (wgk < MWG) {
        st = GS_FAIL(GS_ERR_UNSUPPORTED, "the device runs the merge kernel with at most %zu work-items (%d needed)", wgk, MWG);
        goto cleanup;
    }
    s->build_seconds = gs_now() - t0;
    *out = s;
    return GS_OK;
cleanup:
    gs_solver_free(s);
    return st;
}

gs_status gs_solver_clone(const gs_solver *base, gs_solver **out)
{
    gs_status st = GS_OK;
    gs_solver *s = malloc(sizeof *s);
    *out = NULL;
    if (!s) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    *s = *base;
    s->queue = NULL;
    memset(&s->d, 0, sizeof s->d);
    memset(s->cap, 0, sizeof s->cap);
    memset(s->pin, 0, sizeof s->pin);
    memset(s->pin_host, 0, sizeof s->pin_host);
    memset(s->pin_cap, 0, sizeof s->pin_cap);
    memset(s->k, 0, sizeof s->k);
    clRetainProgram(s->prog);
    if ((st = make_queue(s))) goto cleanup;
    for (int i = 0; i < K_COUNT_ALL; i++)
        if ((st = gs_ocl_kernel(s->prog, k_names[i], &s->k[i]))) goto cleanup;
    *out = s;
    return GS_OK;
cleanup:
    gs_solver_free(s);
    return st;
}

/* Makes *m hold at least `bytes` (reallocating only to grow) and, when host is given, queues a
 * non-blocking upload of it (host must stay valid until the queue passes that point). */
static gs_status ensure_buf(gs_solver *s, cl_mem *m, size_t bytes, const void *host, const char *what)
{
    const size_t i = (size_t)(m - (cl_mem *)&s->d);
    const size_t want = bytes;
    if (bytes == 0) bytes = 16; /* OpenCL refuses empty buffers */
    if (!*m || s->cap[i] < bytes) {
        if (*m) clReleaseMemObject(*m);
        *m = NULL;
        s->cap[i] = 0;
        cl_int e;
        *m = clCreateBuffer(s->ocl->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
        if (e != CL_SUCCESS)
            return GS_FAIL(GS_ERR_OCL, "clCreateBuffer(%s, %zu bytes) failed: %s", what, bytes, gs_cl_error_name(e));
        s->cap[i] = bytes;
    }
    if (host && want > 0) { /* only the caller's bytes: host may be shorter than the rounded size */
        cl_int e = clEnqueueWriteBuffer(s->queue, *m, CL_FALSE, 0, want, host, 0, NULL, NULL);
        if (e != CL_SUCCESS)
            return GS_FAIL(GS_ERR_OCL, "clEnqueueWriteBuffer(%s, %zu bytes) failed: %s", what, bytes, gs_cl_error_name(e));
    }
    return GS_OK;
}

/* Pinned host memory i of at least `bytes`, mapped for the solver's lifetime. */
static gs_status ensure_pinned(gs_solver *s, int i, size_t bytes, void **host)
{
    if (!s->pin[i] || s->pin_cap[i] < bytes) {
        if (s->pin[i]) {
            if (s->pin_host[i]) clEnqueueUnmapMemObject(s->queue, s->pin[i], s->pin_host[i], 0, NULL, NULL);
            clFinish(s->queue);
            clReleaseMemObject(s->pin[i]);
            s->pin[i] = NULL;
            s->pin_host[i] = NULL;
            s->pin_cap[i] = 0;
        }
        cl_int e;
        s->pin[i] = clCreateBuffer(s->ocl->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &e);
        if (e != CL_SUCCESS)
            return GS_FAIL(GS_ERR_OCL, "clCreateBuffer(pinned, %zu bytes) failed: %s", bytes, gs_cl_error_name(e));
        s->pin_host[i] = clEnqueueMapBuffer(s->queue, s->pin[i], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                            NULL, NULL, &e);
        if (e != CL_SUCCESS) {
            s->pin_host[i] = NULL;
            return GS_FAIL(GS_ERR_OCL, "clEnqueueMapBuffer(pinned, %zu bytes) failed: %s", bytes, gs_cl_error_name(e));
        }
        s->pin_cap[i] = bytes;
    }
    *host = s->pin_host[i];
    return GS_OK;
}

static gs_status fill(cl_command_queue q, cl_mem m, int pattern, size_t bytes)
{
    cl_int e = clEnqueueFillBuffer(q, m, &pattern, sizeof pattern, 0, bytes, 0, NULL, NULL);
    if (e != CL_SUCCESS) return GS_FAIL(GS_ERR_OCL, "clEnqueueFillBuffer failed: %s", gs_cl_error_name(e));
    return GS_OK;
}

#define SETARG(kern, i, v)                                                                 \
    do {                                                                                   \
        cl_int e_ = clSetKernelArg(s->k[kern], (i), sizeof(v), &(v));                      \
        if (e_ != CL_SUCCESS) {                                                            \
            st = GS_FAIL(GS_ERR_OCL, "clSetKernelArg(%s, %d) failed: %s", k_names[kern], i, \
                         gs_cl_error_name(e_));                                            \
            goto cleanup;                                                                  \
        }                                                                                  \
    } while (0)

/* Events of one round when profiling (--verbose with GPUSVM_PROFILE=1). */
typedef struct prof {
    cl_event ev[32];
    int kern[32];
    int n;
} prof;

static gs_status launch(gs_solver *s, prof *pf, int kern, size_t global, size_t local)
{
    cl_event *evp = NULL;
    if (s->profile && pf->n < 32) { pf->kern[pf->n] = kern; evp = &pf->ev[pf->n++]; }
    cl_int e = clEnqueueNDRangeKernel(s->queue, s->k[kern], 1, NULL, &global, local ? &local : NULL, 0,
                                      NULL, evp);
    if (e != CL_SUCCESS) {
        if (evp) pf->n--;
        return GS_FAIL(GS_ERR_OCL, "clEnqueueNDRangeKernel(%s, global %zu, local %zu) failed: %s",
                       k_names[kern], global, local, gs_cl_error_name(e));
    }
    return GS_OK;
}

static gs_status launch2(gs_solver *s, prof *pf, int kern, size_t g0, size_t g1, size_t local)
{
    cl_event *evp = NULL;
    if (s->profile && pf->n < 32) { pf->kern[pf->n] = kern; evp = &pf->ev[pf->n++]; }
    const size_t global[2] = {g0, g1}, loc[2] = {local, 1};
    cl_int e = clEnqueueNDRangeKernel(s->queue, s->k[kern], 2, NULL, global, loc, 0, NULL, evp);
    if (e != CL_SUCCESS) {
        if (evp) pf->n--;
        return GS_FAIL(GS_ERR_OCL, "clEnqueueNDRangeKernel(%s, %zu x %zu) failed: %s", k_names[kern], g0, g1,
                       gs_cl_error_name(e));
    }
    return GS_OK;
}

static void prof_collect(prof *pf, double *ph)
{
    for (int i = 0; i < pf->n; i++) {
        cl_ulong a = 0, b = 0;
        clGetEventProfilingInfo(pf->ev[i], CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
        clGetEventProfilingInfo(pf->ev[i], CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
        if (b > a) ph[k_phase[pf->kern[i]]] += (double)(b - a) * 1e-9;
        clReleaseEvent(pf->ev[i]);
    }
    pf->n = 0;
}

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

gs_status gs_solver_cluster(const gs_param *param, const int64_t *row_ptr, const int32_t *idx,
                            const float *val, int32_t n, gs_clustered *out)
{
    return gs_cluster_build(row_ptr, idx, val, n, param->cluster_size, param->clusters_active, param->seed, out);
}

gs_status gs_solver_binary(gs_solver *s, const gs_clustered *clp, const int8_t *y, double Cp,
                           double Cn, double *alpha, gs_binary_result *res, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    const gs_clustered cl = *clp;
    const int32_t n = cl.n;
    dev *const dp = &s->d;
    prof pf = {.n = 0};
    int8_t *yp = NULL;
    double *cb = NULL, *ah = NULL, *Gh = NULL, *rb = NULL, *upd = NULL, *asub = NULL, *gsub = NULL,
           *csub = NULL;
    float *Kslot = NULL;
    int *wsp = NULL;
    double *work = NULL;
    int8_t *ysub = NULL;
    double ph[PH_N] = {0};
    double t_sub = 0, t_wait = 0, t_setup0 = gs_now(), t_loop0 = 0, t_enq = 0, t_abs = 0;
    double bytes_rows = 0, bytes_update = 0;
    memset(res, 0, sizeof *res);

    gs_log_verbose(s->log, "gpusvm: clustering: %d rows into %d clusters of %d (%d stored row-wise), %.2f "
                   "nonzeros/row raw, %.2f per clustered row, %.4f s\n", n, cl.n_clusters, cl.cluster_size,
                   cl.n_ell, cl.raw_nnz_per_row, cl.clustered_nnz_per_row, cl.seconds);
    if (stats) stats->cluster += cl.seconds;
    t_setup0 = gs_now();

    const int q = s->q, keep = s->keep, wg = s->wg;
    const int npos = cl.n_pos;
    const int ncl = cl.n_clusters;
    const int nchunks = (npos + wg * ITEMS - 1) / (wg * ITEMS);
    int ng = nchunks < 1 ? 1 : nchunks;
    if (ng > 256) ng = 256;
    const size_t ucols = (size_t)cl.n_ucols + 1;
    const size_t rb_bytes = (4 + 3 * (size_t)q) * sizeof(double) + 2 * (size_t)q * (size_t)q * sizeof(float);

    yp = calloc((size_t)npos, sizeof *yp);
    cb = calloc((size_t)npos, sizeof *cb);
    ah = calloc((size_t)npos, sizeof *ah);
    Gh = calloc((size_t)npos, sizeof *Gh);
    {
        void *h0 = NULL, *h1 = NULL;
        if ((st = ensure_pinned(s, 0, rb_bytes, &h0)) || (st = ensure_pinned(s, 1, 4 * (size_t)q * sizeof(double), &h1)))
            goto cleanup;
        rb = h0;
        upd = h1;
    }
    Kslot = calloc((size_t)q * (size_t)q, sizeof *Kslot);
    wsp = malloc(sizeof *wsp * (size_t)q);
    work = malloc(sizeof *work * 4 * (size_t)q);
    ysub = malloc((size_t)q);
    asub = malloc(sizeof *asub * (size_t)q);
    gsub = malloc(sizeof *gsub * (size_t)q);
    csub = malloc(sizeof *csub * (size_t)q);
    if (!yp || !cb || !ah || !Gh || !rb || !upd || !Kslot || !wsp || !work || !ysub || !asub || !gsub || !csub) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory for the solver's host arrays");
        goto cleanup;
    }
    for (int p = 0; p < npos; p++) {
        const int r = cl.perm[p];
        if (r < 0) continue;
        yp[p] = y[r] > 0 ? 1 : -1;
        cb[p] = y[r] > 0 ? Cp : Cn;
    }
    for (int i = 0; i < q; i++) wsp[i] = -1;

    const size_t ncols_total = (size_t)cl.col_off[ncl];
    if ((st = ensure_buf(s, &dp->cols, ncols_total * sizeof(int32_t), cl.cols, "cols")) ||
        (st = ensure_buf(s, &dp->col_off, ((size_t)ncl + 1) * sizeof(int64_t), cl.col_off, "col_off")) ||
        (st = ensure_buf(s, &dp->vals, ncols_total * (size_t)wg * sizeof(float), cl.vals, "vals")) ||
        (st = ensure_buf(s, &dp->ell_w, (size_t)ncl * sizeof(int32_t), cl.ell_w, "ell_w")) ||
        (st = ensure_buf(s, &dp->ell_off, ((size_t)ncl + 1) * sizeof(int64_t), cl.ell_off, "ell_off")) ||
        (st = ensure_buf(s, &dp->ell_idx, (size_t)cl.ell_off[ncl] * sizeof(int32_t), cl.ell_off[ncl] ? cl.ell_idx : NULL, "ell_idx")) ||
        (st = ensure_buf(s, &dp->ell_val, (size_t)cl.ell_off[ncl] * sizeof(float), cl.ell_off[ncl] ? cl.ell_val : NULL, "ell_val")) ||
        (st = ensure_buf(s, &dp->norm2, (size_t)npos * sizeof(double), cl.norm2, "norm2")) ||
        (st = ensure_buf(s, &dp->y, (size_t)npos, yp, "y")) ||
        (st = ensure_buf(s, &dp->cb, (size_t)npos * sizeof(double), cb, "C")) ||
        (st = ensure_buf(s, &dp->G, (size_t)npos * sizeof(double), NULL, "G")) ||
        (st = ensure_buf(s, &dp->alpha, (size_t)npos * sizeof(double), NULL, "alpha")) ||
        (st = ensure_buf(s, &dp->in_ws, (size_t)npos, NULL, "in_ws")) ||
        (st = ensure_buf(s, &dp->slot_of, (size_t)npos * sizeof(int), NULL, "slot_of")) ||
        (st = ensure_buf(s, &dp->state, 8 * sizeof(cl_uint), NULL, "state")) ||
        (st = ensure_buf(s, &dp->hist, 2 * 2048 * sizeof(cl_uint), NULL, "hist")) ||
        (st = ensure_buf(s, &dp->gmax, 2 * (size_t)ng * sizeof(double), NULL, "gmax")) ||
        (st = ensure_buf(s, &dp->gap, 2 * sizeof(double), NULL, "gap")) ||
        (st = ensure_buf(s, &dp->gcnt, 4 * (size_t)nchunks * sizeof(cl_uint), NULL, "gcnt")) ||
        (st = ensure_buf(s, &dp->cand, 2 * (size_t)q * sizeof(int), NULL, "cand")) ||
        (st = ensure_buf(s, &dp->ws_pos, (size_t)q * sizeof(int), wsp, "ws_pos")) ||
        (st = ensure_buf(s, &dp->new_slots, (size_t)q * sizeof(int), NULL, "new_slots")) ||
        (st = ensure_buf(s, &dp->n_new, sizeof(int), NULL, "n_new")) ||
        (st = ensure_buf(s, &dp->u_pos, (size_t)q * sizeof(int), wsp, "u_pos")) ||
        (st = ensure_buf(s, &dp->U, ucols * (size_t)q * sizeof(float), NULL, "U")) ||
        (st = ensure_buf(s, &dp->K, (size_t)q * (size_t)npos * sizeof(float), NULL, "kernel rows")) ||
        (st = ensure_buf(s, &dp->upd, 4 * (size_t)q * sizeof(double), NULL, "upd")) ||
        (st = ensure_buf(s, &dp->rb, rb_bytes, NULL, "readback")))
        goto cleanup;
    if ((st = fill(s->queue, dp->hist, 0, 2 * 2048 * sizeof(cl_uint))) ||
        (st = fill(s->queue, dp->U, 0, ucols * (size_t)q * sizeof(float))))
        goto cleanup;

    /* fixed kernel arguments */
    SETARG(K_INIT, 0, dp->G); SETARG(K_INIT, 1, dp->alpha); SETARG(K_INIT, 2, dp->in_ws);
    SETARG(K_INIT, 3, dp->slot_of); SETARG(K_INIT, 4, dp->y); SETARG(K_INIT, 5, npos);
    SETARG(K_UPDATE, 0, dp->G); SETARG(K_UPDATE, 1, dp->alpha); SETARG(K_UPDATE, 2, dp->y);
    SETARG(K_UPDATE, 3, dp->K); SETARG(K_UPDATE, 4, dp->upd); SETARG(K_UPDATE, 6, npos);
    SETARG(K_UPDATE, 7, dp->state);
    SETARG(K_HIST, 0, dp->y); SETARG(K_HIST, 1, dp->G); SETARG(K_HIST, 2, dp->alpha); SETARG(K_HIST, 3, dp->cb);
    SETARG(K_HIST, 4, dp->in_ws); SETARG(K_HIST, 5, dp->state); SETARG(K_HIST, 6, dp->hist);
    SETARG(K_HIST, 7, dp->gmax); SETARG(K_HIST, 9, npos);
    SETARG(K_PICK, 0, dp->state); SETARG(K_PICK, 1, dp->hist); SETARG(K_PICK, 2, dp->gmax);
    SETARG(K_PICK, 3, dp->gap); SETARG(K_PICK, 5, ng);
    SETARG(K_COUNT, 0, dp->y); SETARG(K_COUNT, 1, dp->G); SETARG(K_COUNT, 2, dp->alpha); SETARG(K_COUNT, 3, dp->cb);
    SETARG(K_COUNT, 4, dp->in_ws); SETARG(K_COUNT, 5, dp->state); SETARG(K_COUNT, 6, dp->gcnt);
    SETARG(K_COUNT, 7, npos);
    SETARG(K_SCAN, 0, dp->gcnt); SETARG(K_SCAN, 1, nchunks);
    SETARG(K_WRITE, 0, dp->y); SETARG(K_WRITE, 1, dp->G); SETARG(K_WRITE, 2, dp->alpha); SETARG(K_WRITE, 3, dp->cb);
    SETARG(K_WRITE, 4, dp->in_ws); SETARG(K_WRITE, 5, dp->state); SETARG(K_WRITE, 6, dp->gcnt);
    SETARG(K_WRITE, 7, dp->cand); SETARG(K_WRITE, 8, q); SETARG(K_WRITE, 9, npos);
    SETARG(K_MERGE, 0, dp->state); SETARG(K_MERGE, 1, dp->cand); SETARG(K_MERGE, 2, q);
    SETARG(K_MERGE, 3, dp->ws_pos); SETARG(K_MERGE, 4, dp->slot_of); SETARG(K_MERGE, 5, dp->in_ws);
    SETARG(K_MERGE, 6, dp->new_slots); SETARG(K_MERGE, 7, dp->n_new); SETARG(K_MERGE, 8, q);
    SETARG(K_GATHER, 0, dp->ws_pos); SETARG(K_GATHER, 1, dp->new_slots); SETARG(K_GATHER, 2, dp->n_new);
    SETARG(K_GATHER, 3, dp->u_pos); SETARG(K_GATHER, 4, dp->col_off); SETARG(K_GATHER, 5, dp->cols);
    SETARG(K_GATHER, 6, dp->vals); SETARG(K_GATHER, 7, dp->U); SETARG(K_GATHER, 8, q);
    SETARG(K_GATHER, 9, dp->ell_w); SETARG(K_GATHER, 10, dp->ell_off); SETARG(K_GATHER, 11, dp->ell_idx);
    SETARG(K_GATHER, 12, dp->ell_val);
    SETARG(K_ROWS, 0, dp->col_off); SETARG(K_ROWS, 1, dp->cols); SETARG(K_ROWS, 2, dp->vals);
    SETARG(K_ROWS, 3, dp->norm2); SETARG(K_ROWS, 4, dp->U); SETARG(K_ROWS, 5, dp->ws_pos);
    SETARG(K_ROWS, 6, dp->new_slots); SETARG(K_ROWS, 7, dp->n_new); SETARG(K_ROWS, 8, dp->K);
    SETARG(K_ROWS, 9, q); SETARG(K_ROWS, 10, npos); SETARG(K_ROWS, 11, s->gamma);
    SETARG(K_ROWS, 12, s->coef0); SETARG(K_ROWS, 13, s->degree);
    SETARG(K_ROWS, 14, dp->ell_w); SETARG(K_ROWS, 15, dp->ell_off); SETARG(K_ROWS, 16, dp->ell_idx);
    SETARG(K_ROWS, 17, dp->ell_val);
    SETARG(K_READBACK, 0, dp->gap); SETARG(K_READBACK, 1, dp->n_new); SETARG(K_READBACK, 2, dp->ws_pos);
    SETARG(K_READBACK, 3, dp->new_slots); SETARG(K_READBACK, 4, dp->G); SETARG(K_READBACK, 5, dp->K);
    SETARG(K_READBACK, 6, dp->rb); SETARG(K_READBACK, 7, q); SETARG(K_READBACK, 8, npos);

    if ((st = launch(s, &pf, K_INIT, (size_t)npos, 0))) goto cleanup;
    if (stats) stats->setup += gs_now() - t_setup0;
    t_loop0 = gs_now();

    const long max_inner = n > 100000 ? 100L * n : 10000000L;
    const double clustered_bytes = ((double)ncols_total * wg + (double)cl.ell_off[ncl]) * sizeof(float);
    int head = 0, nupd = 0;
    long round = 0;
    for (;;) {
        /* ---- queue one round: update, select, merge, rows, readback ---- */
        const double te = gs_now();
        const int q_new = round == 0 ? q : q - keep;
        const int q_next = q - keep;
        const cl_uint kup = (cl_uint)(q_new / 2), klow = (cl_uint)(q_new - q_new / 2);
        if (nupd > 0) {
            GS_CL_CHECK(clEnqueueWriteBuffer(s->queue, dp->upd, CL_FALSE, 0, 4 * (size_t)nupd * sizeof(double),
                                             upd, 0, NULL, NULL));
        }
        SETARG(K_UPDATE, 5, nupd); SETARG(K_UPDATE, 8, kup); SETARG(K_UPDATE, 9, klow);
        if ((st = launch(s, &pf, K_UPDATE, round_up((size_t)(npos > nupd ? npos : nupd), (size_t)wg), (size_t)wg)))
            goto cleanup;
        bytes_update += (double)nupd * npos * sizeof(float) + (double)npos * 16;
        for (int r = 0; r < 3; r++) {
            SETARG(K_HIST, 8, r);
            SETARG(K_PICK, 4, r);
            if ((st = launch(s, &pf, K_HIST, (size_t)ng * wg, (size_t)wg)) ||
                (st = launch(s, &pf, K_PICK, (size_t)wg, (size_t)wg)))
                goto cleanup;
        }
        if ((st = launch(s, &pf, K_COUNT, (size_t)nchunks * wg, (size_t)wg)) ||
            (st = launch(s, &pf, K_SCAN, (size_t)wg, (size_t)wg)) ||
            (st = launch(s, &pf, K_WRITE, (size_t)nchunks * wg, (size_t)wg)))
            goto cleanup;
        SETARG(K_MERGE, 9, head); SETARG(K_MERGE, 10, q_new); SETARG(K_MERGE, 11, q_next);
        SETARG(K_READBACK, 9, head); SETARG(K_READBACK, 10, q_new);
        if ((st = launch(s, &pf, K_MERGE, MWG, MWG)) ||
            (st = launch(s, &pf, K_GATHER, (size_t)q_new * wg, (size_t)wg)) ||
            (st = launch2(s, &pf, K_ROWS, (size_t)ncl * wg, (size_t)((q_new + WCH - 1) / WCH), (size_t)wg)) ||
            (st = launch(s, &pf, K_READBACK, round_up((size_t)q * 16, 256), 256)))
            goto cleanup;
        const int e_head = head;
        head = (head + q_new) % q;
        const size_t rd = (4 + 3 * (size_t)q) * sizeof(double) + 2 * (size_t)q_new * q * sizeof(float);
        double tw = gs_now();
        t_enq += tw - te;
        GS_CL_CHECK(clEnqueueReadBuffer(s->queue, dp->rb, CL_TRUE, 0, rd, rb, 0, NULL, NULL));
        const double ta = gs_now();
        t_wait += ta - tw;
        if (s->profile) prof_collect(&pf, ph);

        /* ---- host: absorb the readback ---- */
        const int nn = (int)rb[2];
        const double *Gs = rb + 4;
        const float *gram = (const float *)(rb + 4 + 3 * q);
        for (int i = 0; i < q; i++) wsp[i] = (int)rb[4 + q + i];
        bytes_rows += clustered_bytes * (double)((nn + WCH - 1) / WCH);
        {
            /* rows and columns of the replaced ring range [e_head, e_head + q_new) */
            const float *gramT = gram + (size_t)q_new * q;
            for (int e = 0; e < q_new; e++)
                memcpy(Kslot + (size_t)((e_head + e) % q) * q, gram + (size_t)e * q, sizeof(float) * (size_t)q);
            const int first = q_new < q - e_head ? q_new : q - e_head;
            for (int j = 0; j < q; j++) {
                float *row = Kslot + (size_t)j * q;
                const float *src = gramT + (size_t)j * q_new;
                memcpy(row + e_head, src, sizeof(float) * (size_t)first);
                if (q_new > first) memcpy(row, src + first, sizeof(float) * (size_t)(q_new - first));
            }
        }
        t_abs += gs_now() - ta;
        const double gap = rb[0] + rb[1];
        if (!(gap >= s->eps)) break; /* also stops on NaN or an empty side */
        if (res->inner_steps >= max_inner) { res->max_iter_hit = 1; break; }

        /* ---- host: the subproblem, in slot space ---- */
        double ts = gs_now();
        for (int i = 0; i < q; i++) {
            const int p = wsp[i];
            ysub[i] = p >= 0 ? yp[p] : 0;
            csub[i] = p >= 0 ? cb[p] : 0;
            asub[i] = p >= 0 ? ah[p] : 0;
            gsub[i] = p >= 0 ? Gs[i] : 0;
        }
        gs_subproblem sp = {.n = q, .K = Kslot, .ld = q, .y = ysub, .C = csub, .alpha = asub,
                            .g = gsub, .work = work, .eps = s->eps, .rel = 0.1,
                            .max_steps = 100L * q + 1000};
        double g0;
        res->inner_steps += gs_subproblem_solve(&sp, &g0);
        nupd = 0;
        for (int i = 0; i < q; i++)
            if (wsp[i] >= 0 && asub[i] != ah[wsp[i]]) nupd++;
        int u = 0;
        for (int i = 0; i < q; i++) {
            const int p = wsp[i];
            if (p < 0 || asub[i] == ah[p]) continue;
            upd[u] = (double)ysub[i] * (asub[i] - ah[p]);
            upd[nupd + u] = asub[i];
            upd[2 * nupd + u] = (double)i;
            upd[3 * nupd + u] = (double)p;
            ah[p] = asub[i];
            u++;
        }
        t_sub += gs_now() - ts;
        round++;
        if (nupd == 0 && nn == 0) break; /* nothing moved and nothing new: no progress is possible */
    }
    res->iterations = round;
    GS_CL_CHECK(clEnqueueReadBuffer(s->queue, dp->G, CL_TRUE, 0, (size_t)npos * sizeof(double), Gh, 0, NULL, NULL));

    /* rho as LIBSVM: mean of y G over free variables, else the midpoint of the bounds */
    {
        double ub = INFINITY, lb = -INFINITY, sum_free = 0, obj2 = 0;
        long nfree = 0;
        for (int p = 0; p < npos; p++) {
            if (!yp[p]) continue;
            const double yg = yp[p] * Gh[p];
            const double a = ah[p];
            if (a >= cb[p]) { if (yp[p] < 0) ub = fmin(ub, yg); else lb = fmax(lb, yg); }
            else if (a <= 0) { if (yp[p] > 0) ub = fmin(ub, yg); else lb = fmax(lb, yg); }
            else { nfree++; sum_free += yg; }
            obj2 += a * (Gh[p] - 1.0);
        }
        res->rho = nfree > 0 ? sum_free / (double)nfree : (ub + lb) / 2;
        res->obj = obj2 / 2;
        /* relative duality gap (the paper's criterion), for --verbose */
        double wtw = 0, suma = 0, hinge = 0;
        for (int p = 0; p < npos; p++) {
            if (!yp[p]) continue;
            wtw += ah[p] * (Gh[p] + 1.0);
            suma += ah[p];
            const double h = yp[p] * res->rho - Gh[p];
            if (h > 0) hinge += cb[p] * h;
        }
        const double primal = 0.5 * wtw + hinge, dual = suma - 0.5 * wtw;
        if (stats) stats->duality_gap = primal != 0 ? (primal - dual) / fabs(primal) : 0;
    }
    gs_log_verbose(s->log, "gpusvm: host per problem: enqueue %.4f s, blocking read %.4f s, readback absorb %.4f s, "
                   "subproblem %.4f s (%ld rounds)\n", t_enq, t_wait, t_abs, t_sub, round);
    for (int p = 0; p < npos; p++)
        if (cl.perm[p] >= 0) alpha[cl.perm[p]] = ah[p];
    if (stats) {
        const double loop = gs_now() - t_loop0;
        stats->subproblem += t_sub;
        if (s->profile) {
            stats->update += ph[PH_UPDATE];
            stats->select += ph[PH_SELECT];
            stats->rows += ph[PH_ROWS];
            stats->transfer += ph[PH_TRANSFER];
            stats->other += loop - t_sub - ph[PH_UPDATE] - ph[PH_SELECT] - ph[PH_ROWS] - ph[PH_TRANSFER];
        } else {
            stats->transfer += t_wait; /* device work and transfers, not separable without profiling */
            stats->other += loop - t_sub - t_wait;
        }
        stats->iterations += res->iterations;
        stats->inner_steps += res->inner_steps;
        stats->update_bytes += bytes_rows + bytes_update;
    }

cleanup:
    if (pf.n) for (int i = 0; i < pf.n; i++) clReleaseEvent(pf.ev[i]);
    free(yp); free(cb); free(ah); free(Gh); free(Kslot); free(wsp); free(work);
    free(ysub); free(asub); free(gsub); free(csub);
    return st;
}
