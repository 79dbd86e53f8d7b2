/* run.c — see run.h. */
#include "train/run.h"

#include "data/cluster.h"

#include <float.h>
#include <stdlib.h>

#include "train/certify.h"

/* Resumes after a failed certification, each pass from the exact gradients: a few passes are
 * enough when the device's drift is small (the resumed part is short); more means the device's
 * arithmetic cannot reach eps on this data, which is reported rather than hidden. */
#define CERT_PASSES 8

/* Certifies every item from the exact gradients the solver computed at its end and resumes the
 * failing ones from them, until all pass or CERT_PASSES are spent. rs: scratch specs, rs_item
 * their items. */
static gs_status certify_and_resume(gs_solver *s, const struct gs_clustered *cl, const int8_t *ysign,
                                    gs_run_item *items, int n, double eps, gs_binary_spec *rs, int *rs_item,
                                    const gs_log *log, gs_train_stats *stats)
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
            if (c.gap < eps) continue;
            nfail++;
            /* the solver's own step limit ends it too (LIBSVM's warning is printed for it) */
            if (it->res.max_iter_hit) continue;
            if (pass + 1 >= CERT_PASSES) {
                it->res.max_iter_hit = 1;
                gs_log_verbose(log, "gpusvm: %s not certified after %d passes: gap %g (eps %g)\n", it->name,
                               CERT_PASSES, c.gap, eps);
                continue;
            }
            /* resume from the exact gradients, to a tolerance that leaves room for their bounds */
            rs_item[ns] = i;
            gs_binary_spec *r = &rs[ns++];
            *r = *sp;
            const double margin = 2 * c.err;
            r->eps = margin < eps / 2 ? eps - margin : eps / 2;
            r->g_init = sp->g_exact;
        }
        gs_log_verbose(log, "gpusvm: certification %d: %d problem(s) at or above eps, largest gap %g\n", pass + 1,
                       nfail, worst);
        if (ns == 0) return GS_OK;
        gs_status st = gs_solver_batch(s, cl, ysign, rs, ns, stats);
        if (st != GS_OK) return st;
        for (int r = 0; r < ns; r++) {
            gs_binary_result *res = &items[rs_item[r]].res;
            res->iterations += rs[r].res.iterations;
            res->inner_steps += rs[r].res.inner_steps;
            res->max_iter_hit |= rs[r].res.max_iter_hit;
        }
    }
}

gs_status gs_run_certified(gs_solver *s, const struct gs_clustered *cl, const int8_t *ysign, gs_run_item *items,
                           int n, double eps, const gs_log *log, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    gs_binary_spec *specs = malloc(sizeof *specs * (size_t)(n ? n : 1));
    int *idx = malloc(sizeof *idx * (size_t)(n ? n : 1));
    if (!specs || !idx) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d problems", n); goto cleanup; }
    for (int i = 0; i < n; i++) specs[i] = items[i].spec;
    if ((st = gs_solver_batch(s, cl, ysign, specs, n, stats))) goto cleanup;
    for (int i = 0; i < n; i++) items[i].res = specs[i].res;
    st = certify_and_resume(s, cl, ysign, items, n, eps, specs, idx, log, stats);
cleanup:
    free(specs);
    free(idx);
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

gs_status gs_run_open_solver(const gs_device_provider *dev, const gs_param *param, int k, int32_t l,
                             const int64_t *row_ptr, const struct gs_clustered *cl, const gs_log *log,
                             gs_train_stats *stats, gs_solver **out)
{
    *out = NULL;
    gs_ocl *ocl = dev ? dev->wait(dev->ctx) : NULL;
    const double t_dev = gs_now();
    if (!ocl) return dev ? GS_ERR_NODEVICE : GS_FAIL(GS_ERR_NODEVICE, "no OpenCL device");
    gs_param sp = *param; /* shallow: only the working-set fields change */
    pick_ws(param, k, l, &sp.ws_size, &sp.ws_keep);
    gs_log_verbose(log, "gpusvm: working set %d, %d kept\n", sp.ws_size, sp.ws_keep);
    int32_t max_nnz = 0;
    for (int32_t g = 0; g < l; g++)
        if (row_ptr[g + 1] - row_ptr[g] > max_nnz) max_nnz = (int32_t)(row_ptr[g + 1] - row_ptr[g]);
    const int precise = gs_solver_needs_precise(param, cl, max_nnz);
    gs_log_verbose(log, "gpusvm: kernel rows' dot products in %s\n", precise ? "double" : "float");
    gs_status st = gs_solver_create(ocl, &sp, precise, cl->wide, log, out);
    if (st == GS_OK && stats) { stats->setup += gs_now() - t_dev; stats->peak_gbps = ocl->peak_gbps; }
    return st;
}

/* A pass that stops before its first step (eps = DBL_MAX) and ends with the certification's exact
 * gradients: p + Q a0 at each item's start, in double. */
gs_status gs_run_start_gradients(gs_solver *solver, const struct gs_clustered *cl, const int8_t *ysign, gs_run_item *items,
                                 int n, gs_train_stats *stats)
{
    gs_binary_spec *g = malloc(sizeof *g * (size_t)(n ? n : 1));
    if (!g) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        g[i] = items[i].spec;
        g[i].g_init = items[i].spec.p_lin; /* any gradient: no step is taken */
        g[i].eps = DBL_MAX;
    }
    const gs_status st = gs_solver_batch(solver, cl, ysign, g, n, stats);
    for (int i = 0; i < n; i++) items[i].spec.g_init = items[i].spec.g_exact;
    free(g);
    return st;
}

