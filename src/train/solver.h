/* solver.h — the GTSVM working-set loop on the device for LIBSVM's general problem
 *   min 1/2 a'Qa + p'a,  0 <= a_i <= C_i,  y'a = y'a0,  Q_ij = y_i y_j K(x_r(i), x_r(j))
 * (LIBSVM's Solver with its C rule; Cotter, Srebro, Keshet, KDD 2011, Algorithms 1-2, with a
 * working set of --ws-size rows of which --ws-keep are kept from the previous round together with
 * their kernel rows). Each variable has its own y_i = +-1, C_i (Cp or Cn by the sign of y_i), p_i
 * and data row r(i): a problem's variables are the rows of its cluster range A followed by those
 * of range B, and A and B may be the same clusters (epsilon-SVR's alpha and alpha* over one row).
 * C-SVC has p = -1 and a0 = 0; one-class p = 0 and a0 != 0; epsilon-SVR p = eps -+ z. Stops on
 * LIBSVM's criterion m(a) - M(a) < eps, so the answer matches LIBSVM's. Several such problems
 * over one clustered data set (the one-vs-one pairs of a multiclass set) are solved together. */
#ifndef GS_SOLVER_H
#define GS_SOLVER_H

#include <stdint.h>

#include "io/data.h"
#include "util/log.h"
#include "device/ocl.h"
#include "api/param.h"
#include "train/trainer.h"

typedef struct gs_solver gs_solver;

/* Builds the device program for param's kernel and working-set size; precise: kernel rows from
 * dot products summed in double (see gs_solver_float_error); wide: for a gs_clustered whose wide
 * flag is set (gs_solver_batch refuses the other kind); rowwise: most of its clusters are row-wise
 * (on a GPU the certification then takes their SVs 64 at a time, and kernel rows go by column);
 * max_npos: the most positions (cluster slots
 * of ranges A and B) any problem given to it will have, 0 when not known: a bound small enough lets
 * the program leave out the selection kernels of large problems, which shortens its build.
 * @return GS_OK or GS_ERR_OCL/GS_ERR_ARG */
gs_status gs_solver_create(gs_ocl *ocl, const gs_param *param, int precise, int wide, int rowwise,
                           int64_t max_npos, const gs_log *log, gs_solver **out);
/* NULL is fine. */
void gs_solver_free(gs_solver *s);
/* Hands the layouts src keeps on its device (its data and copy-by-column buffers, both slots) to
 * dst, a solver on the same device and context made after it (the certification's resumes
 * rebuilt in double), whose own are released; src keeps none. Nothing when the devices differ. */
void gs_solver_take_layouts(gs_solver *dst, gs_solver *src);
/* The rows of a cluster (--cluster-size). */
int gs_solver_cluster_size(const gs_solver *s);

typedef struct gs_binary_result {
    double rho, obj;
    double r;          /* the nu rule's r (certify.h), 0 otherwise */
    long iterations;   /* working-set rounds */
    long inner_steps;  /* 2-variable steps of the subproblems */
    int max_iter_hit;
    /* cert_err > 0: not certified, and its gradients' largest error bound, this value, is at least
     * eps / 2: kernel values so large that double sums cannot show a gap below eps (run.c);
     * cert_gap the certified gap then. Said by gs_run_warn instead of LIBSVM's warning. */
    double cert_err, cert_gap;
} gs_binary_result;

struct gs_clustered;
/* Clusters rows [0,n) of a CSR the way the solver lays them out, rows [seg[s], seg[s+1]) apart
 * (nseg = 1, seg = {0, n} for one segment). Host only, so it can run before the device is ready. */
gs_status gs_solver_cluster(const gs_param *param, const int64_t *row_ptr, const int32_t *idx,
                            const float *val, int32_t n, int32_t nseg, const int32_t *seg,
                            struct gs_clustered *out);
/* The same with the wide form given (0 / 1, or -1: decided by the data): a subset of the rows laid
 * out for the solvers built for the whole set (shrink.h). */
gs_status gs_solver_cluster_wide(const gs_param *param, const int64_t *row_ptr, const int32_t *idx,
                                 const float *val, int32_t n, int32_t nseg, const int32_t *seg, int wide,
                                 struct gs_clustered *out);

/* How far a float sum of a row's products may err in the kernel's argument: about
 * sqrt(nnz) * 2^-24 * |x|^2 (rounding errors of random sign), times gamma for RBF, polynomial and
 * sigmoid; 0 for the linear kernel (K's relative error is the sum's: double gains nothing) and a
 * precomputed one (K is read, not summed). Scaled data stays small (a9a: 0.05 * 14 * sqrt(14) *
 * 2^-24 = 1.6e-7; mnist10k 2e-7); covtype-gen at gamma 1 has 5e-6, svmguide1 unscaled 3e-3. Above
 * ~1e-6 the device's gradients drift from the true ones and the certification may have to resume
 * (gs_run_open_solver decides what runs in double). */
double gs_solver_float_error(const gs_param *param, const struct gs_clustered *cl, int32_t max_row_nnz);

/* One binary problem over the clustered rows: the clusters [a0, a0+na) (range A) and [b0, b0+nb)
 * (range B, nb may be 0). Row r's label is ysign[r] in range A and -ysign[r] in range B; C is Cp
 * for +1 rows and Cn for -1 rows. Range A holds the CSR rows [rowA0, rowA0+nrowA) and range B the
 * rows from rowB0: alpha receives row r's solution at r - rowA0 (A) or nrowA + r - rowB0 (B). */
typedef struct gs_binary_spec {
    int32_t a0, na, b0, nb;
    int32_t rowA0, nrowA, rowB0;
    double Cp, Cn;
    double *alpha;         /* out; with g_init also in: the starting point */
    const double *g_init;  /* NULL: start from alpha = 0 (G = p = -1); else the gradient
                            * p + Q alpha at alpha, indexed as alpha (a problem with another p or
                            * a non-zero start, or one resumed after its certification, certify.h) */
    const double *p_lin;   /* NULL: p_i = -1 for every variable (C-SVC); else p, indexed as alpha.
                            * Only the exact gradients (g_exact) use it: the rounds move G by Q. */
    double eps;            /* stopping tolerance; 0: the parameters' -e */
    double stop_gap;       /* 0, or above eps: the rounds stop once the gap is below it, while the
                            * subproblems still solve as for eps (a stage of shrink.h) */
    int nu_rule;           /* LIBSVM's Solver_NU (nu-SVC, nu-SVR): pairs within one sign, gap the
                            * larger of the two signs'; 0: its C rule */
    const uint8_t *skip;   /* NULL, or [alpha order] nonzero for the variables left out of the problem
                            * (the held-out rows of -v): alpha stays 0, never selected, their
                            * g_exact / g_err not written; the kernel rows still span them */
    double *g_exact;       /* NULL, or out (alpha order): the gradient at the final alphas recomputed
                            * in double from the support vectors (the certification, certify.h) */
    double *g_err;         /* with g_exact: a bound on each one's rounding error */
    double *g_out;         /* NULL, or out (alpha order): the rounds' own gradients at the final
                            * alphas, as the device kept them (not recomputed; shrink.h) */
    int cert_delta;        /* with g_init == g_exact (a problem resumed after its certification):
                            * g_exact / g_err hold the exact gradients and bounds at the starting
                            * alphas, and the certification adds the terms of the alphas that
                            * changed instead of summing every support vector again (text-gen's
                            * 63,000 SVs took 5.3 s a pass) */
    long steps_before;     /* 2-variable steps this problem took in its earlier solves (a problem
                            * resumed after its certification): LIBSVM's step limit, max_iter, counts
                            * every step of the training, so the resumed solve may take the rest */
    gs_binary_result res;  /* out */
} gs_binary_spec;

/* Solves every problem of specs over the clustered rows cl (from gs_solver_cluster), all advancing
 * together in the same launches (in batches that fit the device). whole: how many problems the
 * caller solves together with these, on this device and others (>= nspec; train/run.c deals a
 * batch out over devices): the round form is chosen for all of them, so a problem's answer does
 * not depend on where it runs or beside which others. stats (may be NULL) accumulates per-phase
 * times. @return GS_OK or the error */
gs_status gs_solver_batch(gs_solver *s, const struct gs_clustered *cl, const int8_t *ysign,
                          gs_binary_spec *specs, int nspec, int whole, gs_train_stats *stats);

/* One problem (*spec) split by rows over the nd solvers ss, each on its own device and built from
 * the same parameters: every device holds the clustered data and computes its slice of every
 * kernel row, gradient update and selection; the host merges the devices' picks into the ones a
 * single device makes, so the answer is gs_solver_batch's on ss[0] alone, byte for byte. A problem
 * that would not take split rounds on ss[0] (the nu rule, memory), has fewer chunks of rows than
 * devices, or does not fit a device, runs on ss[0] alone. @return GS_OK or the error */
gs_status gs_solver_batch_rows(gs_solver *const *ss, int nd, const struct gs_clustered *cl, const int8_t *ysign,
                               gs_binary_spec *spec, gs_train_stats *stats);

#endif
