/* run.c — see run.h. */
#include "train/run.h"

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
                                                   sp->p_lin);
            it->res.rho = c.rho;
            it->res.obj = c.obj;
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
