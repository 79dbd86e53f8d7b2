/* solver.h — the GTSVM working-set loop for one binary C-SVC problem on the device:
 *   min 1/2 a'Qa - e'a,  0 <= a_i <= C_{y_i},  y'a = 0,  Q_ij = y_i y_j K(x_i, x_j)
 * (Cotter, Srebro, Keshet, KDD 2011, Algorithms 1-2, with a working set of --ws-size rows of
 * which --ws-keep are kept from the previous round together with their kernel rows). Stops on
 * LIBSVM's criterion m(a) - M(a) < eps, so the answer matches LIBSVM's. */
#ifndef GS_SOLVER_H
#define GS_SOLVER_H

#include <stdint.h>

#include "data.h"
#include "log.h"
#include "ocl.h"
#include "param.h"
#include "svm.h"

typedef struct gs_solver gs_solver;

/* Builds the device program for param's kernel and working-set size. One solver serves every
 * binary problem of a training run. @return GS_OK or GS_ERR_OCL/GS_ERR_ARG */
gs_status gs_solver_create(gs_ocl *ocl, const gs_param *param, const gs_log *log, gs_solver **out);
/* A solver sharing base's built program, with its own kernels and command queue, for use on
 * another thread (OpenCL kernels are not safe to share across threads). */
gs_status gs_solver_clone(const gs_solver *base, gs_solver **out);
/* NULL is fine. */
void gs_solver_free(gs_solver *s);

typedef struct gs_binary_result {
    double rho, obj;
    long iterations;   /* working-set rounds */
    long inner_steps;  /* 2-variable steps of the subproblems */
    int max_iter_hit;
} gs_binary_result;

struct gs_clustered;
/* Clusters the rows of a binary problem the way gs_solver_binary lays them out (host only, so it can
 * run before the device is ready). */
gs_status gs_solver_cluster(const gs_param *param, const int64_t *row_ptr, const int32_t *idx,
                            const float *val, int32_t n, struct gs_clustered *out);

/* Solves one binary problem over the clustered rows cl (from gs_solver_cluster; labels y[n] = +1/-1
 * in the original row order, bounds Cp for +1 and Cn for -1). alpha[n] receives the solution.
 * stats (may be NULL) accumulates per-phase times. */
gs_status gs_solver_binary(gs_solver *s, const struct gs_clustered *cl, const int8_t *y, double Cp,
                           double Cn, double *alpha, gs_binary_result *res, gs_train_stats *stats);

#endif
