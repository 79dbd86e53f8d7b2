/* probability.h — the probability information of svm-train -b 1 (LIBSVM 3.24, compat §6.8): for a
 * one-vs-one pair, Platt's sigmoid fitted to decision values from an internal 5-fold CV
 * (svm_binary_svc_probability) with Lin, Lin & Weng's Newton method (sigmoid_train); for
 * regression, the Laplace scale of 5-fold CV residuals (svm_svr_probability); and, behind
 * --one-class-prob, LIBSVM 3.30+'s one-class density marks. The internal folds
 * draw from the caller's glibc rand() stream, so they hold LIBSVM's rows when the caller's draws
 * came in LIBSVM's order; their trainings print their own lines as svm_train's do. */
#ifndef GS_TRAIN_PROBABILITY_H
#define GS_TRAIN_PROBABILITY_H

#include "train/trainer.h"
#include "util/glibc_rand.h"

/* What gs_prob_fit_sigmoid has to say (bits of *notes), printed by gs_prob_print_notes. */
enum { GS_PROB_LINE_SEARCH_FAILS = 1, GS_PROB_MAX_ITER = 2 };

/* Platt's A and B for the decision values dec[l] of rows labelled y[l] (> 0 positive): the
 * minimiser of the cross-entropy against Platt's regularised targets, by Newton's method with
 * backtracking (at most 100 iterations). Prints nothing, so pairs can be fitted on threads: *notes
 * gets the bits of LIBSVM's "Line search fails ..." / "Reaching maximal iterations ..." lines.
 * @return GS_OK or GS_ERR_NOMEM */
gs_status gs_prob_fit_sigmoid(int l, const double *dec, const double *y, int *notes, double *A, double *B);
/* LIBSVM's lines for notes, in its order, through log. */
void gs_prob_print_notes(const gs_log *log, int notes);

/* The internal folds: positions 0..n-1 of a pair's rows in LIBSVM's order are shuffled
 * (gs_glibc_rand_shuffle, n draws, svm_binary_svc_probability's), and fold f holds the shuffled
 * positions [gs_prob_fold_start(n, f), gs_prob_fold_start(n, f + 1)). The draws depend on n alone,
 * so every pair's can be made before any is trained. */
#define GS_PROB_FOLDS 5
int gs_prob_fold_start(int n, int f);

/* A fold whose training rows hold npos rows of the +1 class and nneg of the -1 class, one of them
 * 0: LIBSVM trains nothing and gives each held-out row 1 (only +1 rows), -1 (only -1 rows) or 0. */
double gs_prob_lone_value(int npos, int nneg);

/* A fold's held-out decision values: rows[0..n) of prob by model (gs_cross_validation_dec, into
 * held[n]), each written to dec[dst[j]] signed so the pair's +1 class is positive (the fold's
 * model lists its classes as they came; label[0] is the class its values favour).
 * @return GS_OK or the error */
gs_status gs_prob_held_out(const gs_device_provider *dev, const gs_tuning *tuning, const gs_model *model,
                           const gs_problem *prob, const int *rows, int n, const int *dst, const gs_log *log,
                           double *held, double *dec);

/* held[0..n), a fold's held-out decision values by model, into dec[dst[j]], signed so the pair's
 * +1 class is positive (gs_prob_held_out's second half, for values computed elsewhere). */
void gs_prob_place_held(const gs_model *model, const double *held, const int *dst, int n, double *dec);

/* One pair's probA and probB. pair holds the pair's rows with y = +1 (the first class) or -1, in
 * LIBSVM's order (first class rows, then second class rows); Cp and Cn are their weighted C; perm
 * its shuffle (above). Each of the 5 folds is trained (C = 1, weights Cp / Cn, no
 * probability; printing its lines; the folds together in one device batch when
 * gs_svm_train_folds takes them, else one after another) and its held-out rows' decision values,
 * signed so the +1 class is positive, feed gs_prob_fit_sigmoid.
 * @return GS_OK or a training error */
gs_status gs_prob_train_pair(const gs_device_provider *dev, const gs_problem *pair, const gs_param *param, double Cp,
                             double Cn, const int *perm, const gs_log *log, double *probA, double *probB);

/* LIBSVM 3.30+'s one-class probability model (gpusvm-train --one-class-prob): m's decision values
 * on its training rows prob, sorted; with at least 5 below 0 and 5 at or above, *marks gets 10
 * prob_density_marks (malloc'd): the midpoints between 5 quantiles of the negative values, 0 and
 * 5 quantiles of the non-negative ones. With fewer, *marks is NULL and svm-train 3.37's warning
 * goes to stderr.
 * @return GS_OK or GS_ERR_NOMEM */
gs_status gs_prob_one_class_marks(const gs_model *m, const gs_problem *prob, double **marks);

/* A regression model's probA: sigma of the Laplace distribution fitted to the residuals of a
 * 5-fold cross-validation (rows whose residual exceeds 5 times the first estimate's std left out),
 * printed in LIBSVM's "Prob. model for test data" lines.
 * @return GS_OK, GS_ERR_ARG for an empty problem, or a training error */
gs_status gs_prob_train_svr(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                            gs_glibc_rand *rng, const gs_log *log, double *sigma);

#endif
