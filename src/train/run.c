/* run.c — see run.h. */
#include "train/run.h"

#include "data/cluster.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/devset.h"
#include "train/certify.h"
#include "util/order.h"
#include "util/parallel.h"

/* Float kernel rows err by at most FLOAT_EXACT in the kernel's argument: float, and a second resume
 * in double (a float resume that failed too drifts for another reason, e.g. a9a at C = 2^15); up to
 * FLOAT_START: the rounds start in float (1.4x faster kernel rows on covtype-gen, whose first float
 * pass missed eps by a hair) and the first resume is in double; beyond: double throughout
 * (unscaled data, where a float pass would be wasted). The linear and precomputed kernels stay in
 * float (gs_solver_float_error). */
#define FLOAT_EXACT 1e-6
#define FLOAT_START 1e-4
/* With several devices, a lone problem of at least this many rows is split by rows over them
 * (gs_solver_batch_rows; GPUSVM_ROWSPLIT forces either way): below it the devices' extra round
 * trip each round costs more than the divided kernel rows gain (on four H200s a9a's 32,561 rows
 * forced to split trained in 0.42 s on one GPU, 0.47 s on two, 0.67-0.72 s on four; covtype-gen's
 * shrinking stages on four, docs/performance.md M13: 1,000,000 rows 4.36 -> 2.58 s, 344,475 rows
 * 3.08 -> 2.65 s). */
#define GS_ROWSPLIT_MIN 200000

struct gs_run_pool {
    int n;                         /* devices */
    int cert_resume;               /* gs_tuning.cert_resume */
    int precise_from;              /* the resume (0: the first) before which the solvers are rebuilt in
                                    * double; -1: never */
    gs_param sp;                   /* the solvers' parameters (shallow), for that rebuild */
    int wide;
    int rowwise;                   /* most clusters row-wise (gs_solver_create) */
    int64_t max_npos;              /* gs_solver_create's bound */
    const gs_log *log;
    gs_ocl *devs[GS_DEVSET_MAX];
    gs_solver *s[GS_DEVSET_MAX];   /* one per device, each with its own queue and buffers */
};

void gs_run_pool_free(gs_run_pool *p)
{
    if (!p) return;
    for (int d = 0; d < p->n; d++) gs_solver_free(p->s[d]);
    free(p);
}

int gs_run_pool_devices(const gs_run_pool *p) { return p ? p->n : 0; }

/* ---- problems dealt out over the devices ------------------------------------------------------- */

/* One device's share of a batch: copies of its specs, solved on its own thread. */
typedef struct pool_share {
    gs_solver *s;
    const struct gs_clustered *cl;
    const int8_t *ysign;
    gs_binary_spec *specs;  /* [n] copies; res written back by the caller */
    int *from;              /* [n] index in the caller's specs */
    int n, whole, alone;
    gs_train_stats stats;   /* this device's share, zeroed first */
    gs_status st;
    char err[1024];
} pool_share;

/* Solves a share: together (one gs_solver_batch) or, alone, each problem by itself. */
static gs_status share_solve(pool_share *sh, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    for (int i = 0; st == GS_OK && i < sh->n; i += sh->alone ? 1 : sh->n)
        st = gs_solver_batch(sh->s, sh->cl, sh->ysign, sh->specs + i, sh->alone ? 1 : sh->n,
                             sh->alone ? 1 : sh->whole, stats);
    return st;
}

static void *share_thread(void *arg)
{
    pool_share *sh = arg;
    sh->st = share_solve(sh, &sh->stats);
    if (sh->st != GS_OK) snprintf(sh->err, sizeof sh->err, "%s", gs_last_error());
    return NULL;
}

/* A device's share of the time is its own; the run's phases take the slowest device's (the
 * devices work at once), its counts the sum. */
static double busy(const gs_train_stats *t)
{
    return t->update + t->select + t->rows + t->subproblem + t->transfer + t->other;
}

static void stats_merge(gs_train_stats *dst, const pool_share *sh, int n)
{
    int slow = 0;
    for (int d = 1; d < n; d++)
        if (busy(&sh[d].stats) > busy(&sh[slow].stats)) slow = d;
    const gs_train_stats *w = &sh[slow].stats;
    dst->cluster += w->cluster; dst->setup += w->setup; dst->update += w->update; dst->select += w->select;
    dst->rows += w->rows; dst->subproblem += w->subproblem; dst->transfer += w->transfer; dst->other += w->other;
    dst->certify += w->certify; dst->overlap += w->overlap;
    for (int d = 0; d < n; d++) {
        const gs_train_stats *x = &sh[d].stats;
        dst->iterations += x->iterations;
        dst->inner_steps += x->inner_steps;
        dst->update_bytes += x->update_bytes;
        if (x->duality_gap > dst->duality_gap) dst->duality_gap = x->duality_gap;
        if (x->t_on_device > 0 && (dst->t_on_device == 0 || x->t_on_device < dst->t_on_device))
            dst->t_on_device = x->t_on_device;
    }
}

/* An estimate of a problem's device work, to balance the shares: its rows times its rounds so far
 * (a resumed problem), or, before any, times rows / 16 (rounds grow with the rows). */
static double spec_cost(const gs_solver *s, const gs_binary_spec *sp)
{
    const double rows = (double)(sp->na + sp->nb) * gs_solver_cluster_size(s);
    const double rounds = sp->res.iterations > 0 ? (double)sp->res.iterations : rows / 16 + 1;
    return rows * rounds;
}

/* Deals specs out (largest first, each to the least loaded device; a share keeps the caller's
 * order), solves the shares on one thread each, and writes each problem's result back. */
static gs_status pool_deal(gs_run_pool *p, const struct gs_clustered *cl, const int8_t *ysign,
                           gs_binary_spec *specs, int n, int alone, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    const int nd = p->n < n ? p->n : n;
    pool_share *sh = calloc((size_t)nd, sizeof *sh);
    int *owner = malloc(sizeof *owner * (size_t)n), *order = malloc(sizeof *order * (size_t)n);
    double *cost = malloc(sizeof *cost * (size_t)n), load[GS_DEVSET_MAX] = {0};
    if (!sh || !owner || !order || !cost) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d problems", n); goto cleanup; }
    for (int i = 0; i < n; i++) cost[i] = spec_cost(p->s[0], &specs[i]);
    gs_order_by_cost(cost, order, n); /* out of memory: the caller's order */
    for (int k = 0; k < n; k++) {
        int best = 0;
        for (int d = 1; d < nd; d++) if (load[d] < load[best]) best = d;
        owner[order[k]] = best;
        load[best] += cost[order[k]];
    }
    for (int d = 0; d < nd; d++) {
        pool_share *h = &sh[d];
        *h = (pool_share){.s = p->s[d], .cl = cl, .ysign = ysign, .whole = n, .alone = alone};
        h->specs = malloc(sizeof *h->specs * (size_t)n);
        h->from = malloc(sizeof *h->from * (size_t)n);
        if (!h->specs || !h->from) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d problems", n); goto cleanup; }
        for (int i = 0; i < n; i++)
            if (owner[i] == d) { h->from[h->n] = i; h->specs[h->n++] = specs[i]; }
    }
    gs_parallel_run(sh, sizeof *sh, nd, share_thread);
    for (int d = 0; d < nd && st == GS_OK; d++) /* the first failure, its message re-recorded here */
        if (sh[d].st != GS_OK) st = GS_FAIL(sh[d].st, "%s", sh[d].err);
    if (st != GS_OK) goto cleanup;
    for (int d = 0; d < nd; d++)
        for (int k = 0; k < sh[d].n; k++) specs[sh[d].from[k]].res = sh[d].specs[k].res;
    if (stats) stats_merge(stats, sh, nd);
cleanup:
    if (sh)
        for (int d = 0; d < nd; d++) { free(sh[d].specs); free(sh[d].from); }
    free(sh); free(owner); free(order); free(cost);
    return st;
}

/* Whether a lone problem of npos positions is split by rows over the pool's devices (each device
 * computing its slice's kernel rows by row or by column, as one device would). */
static int rowsplit_wanted(const gs_run_pool *p, int64_t npos)
{
    const int t = p->sp.tuning.rowsplit;
    return t == 1 || (t == GS_TUNE_AUTO && npos >= GS_ROWSPLIT_MIN);
}

/* Solves specs[0..n) as one batch (alone: each problem by itself) on the pool's devices: on one
 * device as gs_solver_batch does, else dealt out (several problems) or split by rows (a large lone
 * one); either way each problem's answer is the one device's (gs_solver_batch's whole). */
static gs_status pool_batch(gs_run_pool *p, const struct gs_clustered *cl, const int8_t *ysign,
                            gs_binary_spec *specs, int n, int alone, gs_train_stats *stats)
{
    if (n <= 0) return GS_OK;
    if (p->n > 1 && n > 1) return pool_deal(p, cl, ysign, specs, n, alone, stats);
    if (p->n > 1 && rowsplit_wanted(p, (int64_t)(specs[0].na + specs[0].nb) * gs_solver_cluster_size(p->s[0])))
        return gs_solver_batch_rows(p->s, p->n, cl, ysign, specs, stats);
    pool_share one = {.s = p->s[0], .cl = cl, .ysign = ysign, .specs = specs, .n = n, .whole = n, .alone = alone};
    return share_solve(&one, stats);
}

/* Resumes after a failed certification, each pass from the exact gradients: a few passes are
 * enough when the device's drift is small (the resumed part is short); more means the device's
 * arithmetic cannot reach eps on this data, which is reported rather than hidden. */
#define CERT_PASSES 8

/* Before resume number `pass` (0: the first) of a pool in float: from p->precise_from on, the
 * solvers rebuilt with double dot products, each taking the layouts its float one kept on the
 * device before that one is freed (with its other buffers). */
static gs_status go_precise(gs_run_pool *p, int pass)
{
    if (p->precise_from < 0 || pass < p->precise_from) return GS_OK;
    p->precise_from = -1;
    gs_log_verbose(p->log, "gpusvm: resuming with kernel rows' dot products in double\n");
    for (int d = 0; d < p->n; d++) {
        gs_solver *dbl = NULL;
        const gs_status st = gs_solver_create(p->devs[d], &p->sp, 1, p->wide, p->rowwise, p->max_npos, p->log, &dbl);
        gs_solver_take_layouts(dbl, p->s[d]);
        gs_solver_free(p->s[d]);
        p->s[d] = dbl;
        if (st != GS_OK) return st;
    }
    return GS_OK;
}

/* Certifies every item from the exact gradients the solver computed at its end and resumes the
 * failing ones from them, until all pass or CERT_PASSES are spent. rs: scratch specs, rs_item
 * their items. */
static gs_status certify_and_resume(gs_run_pool *p, const struct gs_clustered *cl, const int8_t *ysign,
                                    gs_run_item *items, int n, double eps, int alone, gs_binary_spec *rs,
                                    int *rs_item, const gs_log *log, gs_train_stats *stats)
{
    for (int pass = 0;; pass++) {
        int ns = 0, nfail = 0;
        double worst = 0;
        for (int i = 0; i < n; i++) {
            gs_run_item *it = &items[i];
            const gs_binary_spec *sp = &it->spec;
            const gs_cert_pair c = gs_certify_pair(sp->alpha, sp->g_exact, sp->g_err, it->n, it->ni, sp->Cp, sp->Cn,
                                                   sp->p_lin, sp->nu_rule, sp->skip);
            it->res.rho = c.rho;
            it->res.obj = c.obj;
            it->res.r = c.r;
            if (!(c.gap <= worst)) worst = c.gap; /* NaN too */
            const int forced = pass < p->cert_resume; /* gs_tuning.cert_resume (tests) */
            if (c.gap < eps && !forced) continue;
            nfail++;
            /* the solver's own step limit ends it too (LIBSVM's warning is printed for it) */
            if (it->res.max_iter_hit) continue;
            if (pass + 1 >= CERT_PASSES) {
                /* where the bound alone reaches eps no pass could certify it: say that, not that
                 * the step limit was reached */
                if (2 * c.err >= eps) { it->res.cert_err = c.err; it->res.cert_gap = c.gap; }
                else it->res.max_iter_hit = 1;
                gs_log_verbose(log, "gpusvm: %s not certified after %d passes: gap %g (eps %g, rounding bound %g)\n",
                               it->name, CERT_PASSES, c.gap, eps, 2 * c.err);
                continue;
            }
            /* resume from the exact gradients, to a tolerance that leaves room for their bounds: the
             * certified gap is the exact one widened by up to 2 err, so the exact gap must end below
             * eps - 2 err (eps / 2 there let a pair whose bounds take over half of eps stop where it
             * was, pass after pass: pendigits nu-SVC, unscaled, gamma 0.19), at least eps / 10; where
             * the bounds alone reach eps no target can do it (the last pass says so), eps / 2 */
            rs_item[ns] = i;
            gs_binary_spec *r = &rs[ns++];
            *r = *sp;
            const double margin = 2 * c.err, room = eps - margin;
            r->eps = forced ? eps / 10
                   : margin < eps / 2 ? room
                   : margin < eps ? fmax(0.9 * room, eps / 10)
                   : eps / 2;
            r->g_init = sp->g_exact;
            r->cert_delta = 1; /* the next certification adds the changes to these */
            r->res = it->res; /* its rounds so far: the deal's cost estimate */
            r->steps_before = it->res.inner_steps; /* the step limit is the whole training's */
        }
        gs_log_verbose(log, "gpusvm: certification %d: %d problem(s) at or above eps, largest gap %g\n", pass + 1,
                       nfail, worst);
        if (ns == 0) return GS_OK;
        gs_status st = go_precise(p, pass);
        if (st == GS_OK) st = pool_batch(p, cl, ysign, rs, ns, alone, stats);
        if (st != GS_OK) return st;
        for (int r = 0; r < ns; r++) {
            gs_binary_result *res = &items[rs_item[r]].res;
            res->iterations += rs[r].res.iterations;
            res->inner_steps += rs[r].res.inner_steps;
            res->max_iter_hit |= rs[r].res.max_iter_hit;
        }
    }
}

void gs_run_warn(const gs_binary_result *res)
{
    if (res->max_iter_hit) fprintf(stderr, "\nWARNING: reaching max number of iterations\n");
    if (res->cert_err > 0)
        fprintf(stderr, "\nWARNING: optimality not certified: the gap the gradients show is %g with their "
                        "rounding bound (%g each), not below -e; the feature values are too large for this "
                        "kernel: scale them (gpusvm-scale)\n",
                res->cert_gap, res->cert_err);
}

gs_status gs_run_solve(gs_run_pool *p, const struct gs_clustered *cl, const int8_t *ysign, gs_binary_spec *specs,
                       int n, int alone, gs_train_stats *stats)
{
    return pool_batch(p, cl, ysign, specs, n, alone, stats);
}

gs_status gs_run_certify(gs_run_pool *p, const struct gs_clustered *cl, const int8_t *ysign, gs_run_item *items,
                         int n, double eps, int alone, const gs_log *log, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    gs_binary_spec *specs = malloc(sizeof *specs * (size_t)(n ? n : 1));
    int *idx = malloc(sizeof *idx * (size_t)(n ? n : 1));
    if (!specs || !idx) st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d problems", n);
    else st = certify_and_resume(p, cl, ysign, items, n, eps, alone, specs, idx, log, stats);
    free(specs);
    free(idx);
    return st;
}

gs_status gs_run_certified(gs_run_pool *p, const struct gs_clustered *cl, const int8_t *ysign, gs_run_item *items,
                           int n, double eps, int alone, const gs_log *log, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    gs_binary_spec *specs = malloc(sizeof *specs * (size_t)(n ? n : 1));
    if (!specs) return GS_FAIL(GS_ERR_NOMEM, "out of memory for %d problems", n);
    for (int i = 0; i < n; i++) { specs[i] = items[i].spec; memset(&specs[i].res, 0, sizeof specs[i].res); }
    st = pool_batch(p, cl, ysign, specs, n, alone, stats);
    for (int i = 0; i < n && st == GS_OK; i++) items[i].res = specs[i].res;
    free(specs);
    if (st == GS_OK) st = gs_run_certify(p, cl, ysign, items, n, eps, alone, log, stats);
    return st;
}

/* The working set when --ws-size / --ws-keep are not given (0 / -1): 768 keeping 384 for a
 * two-class set (H100, 7 interleaved runs each: a9a 0.073 s against 0.086 s with 512 and 0.071 s
 * with 1024; ijcnn1 0.035 s with both 512 and 768, 0.039 s with 1024; w8a 0.016 / 0.017 / 0.019 s);
 * for one-vs-one pairs, which are smaller and all run together, the power of two nearest to the
 * mean pair's rows / 16, within 128..512, keeping half (letter 128, mnist10k 128, Fashion-MNIST
 * 512 measured fastest or within noise of it). */
static void pick_ws(const gs_param *param, int k, int l, int *q, int *keep)
{
    int qa = 768;
    if (k > 2) {
        const double rows = 2.0 * l / k;
        qa = 128;
        while (qa < 512 && rows / 16 > qa * 1.41421356) qa *= 2;
    }
    *q = param->ws_size > 0 ? param->ws_size : qa;
    *keep = param->ws_keep >= 0 ? param->ws_keep : (param->ws_size > 0 ? *q / 2 : qa / 2);
}

int gs_run_ws_size(const gs_param *param, int k, int l)
{
    int q, keep;
    pick_ws(param, k, l, &q, &keep);
    return q;
}

/* One device's solver, made on a thread of its own (create_solvers). */
typedef struct solver_job {
    gs_run_pool *p;
    int d, precise;
    const gs_log *log;
    gs_status st;
    char err[1024];
} solver_job;

static void *create_one(void *arg)
{
    solver_job *j = arg;
    gs_run_pool *p = j->p;
    j->st = gs_solver_create(p->devs[j->d], &p->sp, j->precise, p->wide, p->rowwise, p->max_npos, j->log, &p->s[j->d]);
    if (j->st != GS_OK) snprintf(j->err, sizeof j->err, "%s", gs_last_error());
    return NULL;
}

/* The pool's nd solvers: device 0's first (on a machine's first run it compiles the programs, which
 * the others then find in the kernel cache when their devices are alike: NVIDIA's driver builds one
 * program at a time), then the others at once (GPUs; CPU devices in turn). On failure p->n covers
 * every one made, for gs_run_pool_free. @return GS_OK or the first device's failure */
static gs_status create_solvers(gs_run_pool *p, int nd, int precise, const gs_log *log)
{
    solver_job jobs[GS_DEVSET_MAX];
    for (int d = 0; d < nd; d++) jobs[d] = (solver_job){.p = p, .d = d, .precise = precise, .log = log};
    create_one(&jobs[0]);
    if (jobs[0].st != GS_OK) return GS_FAIL(jobs[0].st, "%s", jobs[0].err);
    p->n = 1;
    int gpus = 1; /* CPU devices (PoCL) one at a time: see solver.c's rsplit.serial */
    for (int d = 0; d < nd; d++) gpus &= (p->devs[d]->device_type & CL_DEVICE_TYPE_GPU) != 0;
    if (gpus) {
        gs_parallel_run(jobs + 1, sizeof *jobs, nd - 1, create_one);
        p->n = nd;
    } else {
        for (int d = 1; d < nd && jobs[d - 1].st == GS_OK; d++) { create_one(&jobs[d]); p->n = d + 1; }
    }
    for (int d = 1; d < nd; d++)
        if (jobs[d].st != GS_OK) return GS_FAIL(jobs[d].st, "%s", jobs[d].err);
    return GS_OK;
}

gs_status gs_run_open_solver(const gs_device_provider *dev, const gs_param *param, int k, int32_t l,
                             const int64_t *row_ptr, const struct gs_clustered *cl, const gs_log *log,
                             gs_train_stats *stats, gs_run_pool **out)
{
    *out = NULL;
    gs_ocl *devs[GS_DEVSET_MAX] = {dev ? dev->wait(dev->ctx) : NULL};
    const double t_dev = gs_now();
    if (!devs[0]) return dev ? GS_ERR_NODEVICE : GS_FAIL(GS_ERR_NODEVICE, "no OpenCL device");
    int nd = dev->all ? dev->all(dev->ctx, devs, GS_DEVSET_MAX) : 1;
    if (nd < 1) nd = 1;
    /* the clustering's figures once per clustered set (its batches, resumes and devices share it) */
    if (stats) stats->cluster += cl->seconds;
    gs_log_verbose(log, "gpusvm: clustering: %d rows into %d clusters of %d (%d stored row-wise), %.2f "
                   "nonzeros/row raw, %.2f per clustered row, %.4f s (layout %.4f s)\n", cl->n, cl->n_clusters,
                   cl->cluster_size, cl->n_ell, cl->raw_nnz_per_row, cl->clustered_nnz_per_row, cl->seconds,
                   cl->layout_seconds);
    gs_param sp = *param; /* shallow: only the working-set fields change */
    pick_ws(param, k, l, &sp.ws_size, &sp.ws_keep);
    gs_log_verbose(log, "gpusvm: working set %d, %d kept\n", sp.ws_size, sp.ws_keep);
    int32_t max_nnz = 0;
    for (int32_t g = 0; g < l; g++)
        if (row_ptr[g + 1] - row_ptr[g] > max_nnz) max_nnz = (int32_t)(row_ptr[g + 1] - row_ptr[g]);
    const double ferr = gs_solver_float_error(param, cl, max_nnz);
    const int forced = param->tuning.precise != GS_TUNE_AUTO;
    const int precise = forced ? param->tuning.precise != 0 : ferr > FLOAT_START;
    gs_status st = GS_OK;
    gs_run_pool *p = calloc(1, sizeof *p);
    if (!p) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    p->precise_from = forced || precise || ferr == 0 ? -1 : ferr > FLOAT_EXACT ? 0 : 1;
    p->sp = sp;
    p->wide = cl->wide;
    p->rowwise = 2 * cl->n_ell > cl->n_clusters;
    /* every problem's positions at most: ranges A and B are disjoint sets of clusters (a pair's two
     * classes, a subset of them for folds and stages), except SVR's, which both hold all */
    const int svr = param->svm_type == GS_EPSILON_SVR || param->svm_type == GS_NU_SVR;
    p->max_npos = (svr ? 2 : 1) * (int64_t)cl->n_clusters * cl->cluster_size;
    /* a split by rows needs the multi-kernel selection's kernels (k_merge places the merged picks,
     * and large slices take the chain), whatever the problem's size */
    if (nd > 1 && rowsplit_wanted(p, p->max_npos)) p->max_npos = 0;
    p->log = log;
    memcpy(p->devs, devs, sizeof devs);
    gs_log_verbose(log, "gpusvm: kernel rows' dot products in %s%s (a float sum errs by %.2g)\n",
                   precise ? "double" : "float", p->precise_from == 0 ? ", resumes in double" : "", ferr);
    if ((st = create_solvers(p, nd, precise, log)) != GS_OK) { gs_run_pool_free(p); return st; }
    if (nd > 1) gs_log_verbose(log, "gpusvm: %d devices\n", nd);
    p->cert_resume = param->tuning.cert_resume;
    if (stats) { stats->setup += gs_now() - t_dev; stats->peak_gbps = devs[0]->peak_gbps; }
    *out = p;
    return GS_OK;
}

/* A pass that stops before its first step (eps = DBL_MAX) and ends with the certification's exact
 * gradients: p + Q a at each item's alphas, in double. */
gs_status gs_run_start_gradients(gs_run_pool *p, const struct gs_clustered *cl, const int8_t *ysign, gs_run_item *items,
                                 int n, gs_train_stats *stats)
{
    gs_binary_spec *g = malloc(sizeof *g * (size_t)(n ? n : 1));
    if (!g) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        g[i] = items[i].spec;
        /* any gradient (no step is taken), so that the alphas are loaded */
        g[i].g_init = items[i].spec.g_init ? items[i].spec.g_init : items[i].spec.p_lin;
        g[i].eps = DBL_MAX;
    }
    const gs_status st = pool_batch(p, cl, ysign, g, n, 0, stats);
    for (int i = 0; i < n; i++) items[i].spec.g_init = items[i].spec.g_exact;
    free(g);
    return st;
}

