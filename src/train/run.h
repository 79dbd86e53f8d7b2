/* run.h — a batch of problems solved to a certified optimum: the device solver (solver.h) runs
 * them together, its exact gradients at the end are checked with LIBSVM's stopping rule
 * (certify.h), and the problems that fail are resumed from those gradients. The drivers
 * (trainer.c: one-vs-one pairs; single.c: one-class, epsilon-SVR) describe their problems as
 * gs_run_item and read back certified alphas, rho and obj. */
#ifndef GS_RUN_H
#define GS_RUN_H

#include <stdint.h>

#include "train/solver.h"
#include "util/log.h"

/* The solvers of a run: one per device the provider gives (trainer.h gs_device_provider.all), a
 * batch's problems dealt out over them by estimated cost, each device's problems solved together
 * on its own thread. A problem's answer is the same on any device and beside any others. */
typedef struct gs_run_pool gs_run_pool;
/* NULL is fine. */
void gs_run_pool_free(gs_run_pool *p);
/* How many devices p uses. */
int gs_run_pool_devices(const gs_run_pool *p);

/* One problem. spec describes it for the solver (ranges, Cp/Cn, alpha, p_lin, g_init for a
 * non-zero start) and must have g_exact and g_err pointing at n doubles each (scratch that ends
 * holding the certified gradients); n variables of which the first ni have y = +1. */
typedef struct gs_run_item {
    gs_binary_spec spec;
    int32_t n, ni;
    char name[48];         /* in --verbose lines, e.g. "pair 1-2" */
    gs_binary_result res;  /* out: rounds and steps of every pass, the certified rho and obj;
                            * max_iter_hit when LIBSVM's iteration warning is due */
} gs_run_item;

/* Solves items[0..n) and certifies each (eps: LIBSVM's -e); a problem still above eps after the
 * resumption passes is flagged max_iter_hit (or cert_err, where the certification's rounding
 * bound alone reaches eps), never hidden. alone: each problem is solved by itself
 * (as a lone problem, which may take the split round form), else all together.
 * @return GS_OK or the solver's error */
gs_status gs_run_certified(gs_run_pool *p, const struct gs_clustered *cl, const int8_t *ysign, gs_run_item *items,
                           int n, double eps, int alone, const gs_log *log, gs_train_stats *stats);
/* Prints on stderr the warnings a problem's result calls for: LIBSVM's "reaching max number of
 * iterations" (max_iter_hit), or that it could not be certified (cert_err). */
void gs_run_warn(const gs_binary_result *res);

/* gs_run_certified's two halves. gs_run_solve: solves specs[0..n) (results in their res) without
 * certifying them; gs_run_certify: certifies items whose spec.alpha and spec.g_exact / g_err hold
 * a solve's answer and exact gradients (items[i].res its rounds and steps), resuming those at or
 * above eps. @return GS_OK or the solver's error */
gs_status gs_run_solve(gs_run_pool *p, const struct gs_clustered *cl, const int8_t *ysign, gs_binary_spec *specs,
                       int n, int alone, gs_train_stats *stats);
gs_status gs_run_certify(gs_run_pool *p, const struct gs_clustered *cl, const int8_t *ysign, gs_run_item *items,
                         int n, double eps, int alone, const gs_log *log, gs_train_stats *stats);

/* The working set gs_run_open_solver picks for k classes over l rows (--ws-size, else its rule). */
int gs_run_ws_size(const gs_param *param, int k, int l);

/* Waits for the device(s) (dev: see trainer.h), picks the working set (--ws-size / --ws-keep, or
 * automatic for k classes over l rows) and builds a solver on each device for the clustered rows
 * cl of the CSR with row_ptr. The kernel rows' dot products are summed in float where a float
 * sum's error (gs_solver_float_error, which the widest row decides) stays small; where it is
 * moderate the rounds start in float and a certification that fails resumes in double (the
 * solvers are rebuilt so); beyond that in double from the start. GPUSVM_PRECISE forces either.
 * @return GS_OK, GS_ERR_NODEVICE, or the solver's error */
gs_status gs_run_open_solver(const gs_device_provider *dev, const gs_param *param, int k, int32_t l,
                             const int64_t *row_ptr, const struct gs_clustered *cl, const gs_log *log,
                             gs_train_stats *stats, gs_run_pool **out);

/* For items that start at a non-zero alpha (one-class, nu-SVC, nu-SVR), or whose alphas a pass left
 * (shrink.h): computes each one's exact gradient p + Q alpha at spec.alpha into spec.g_exact and
 * makes it the start (spec.g_init). spec.g_init, when set, or else spec.p_lin must be non-NULL (any
 * gradient: the pass takes no step).
 * @return GS_OK or the solver's error */
gs_status gs_run_start_gradients(gs_run_pool *p, const struct gs_clustered *cl, const int8_t *ysign, gs_run_item *items,
                                 int n, gs_train_stats *stats);

#endif
