/* trainer.h — training entry point used by gpusvm-train: a problem and parameters in, a LIBSVM model
 * out, LIBSVM's stdout lines through the log. Dispatches to the device solver. */
#ifndef GS_TRAINER_H
#define GS_TRAINER_H

#include "io/data.h"
#include "util/log.h"
#include "io/model.h"
#include "device/ocl.h"
#include "api/param.h"
#include "util/glibc_rand.h"

/* Per-phase wall times of one training run (seconds), for --verbose and scripts/bench. */
typedef struct gs_train_stats {
    double cluster, setup, update, select, rows, subproblem, transfer, other, total;
    double certify;        /* the model's certification (certify.h), resumed passes' solving included */
    double overlap;        /* split rounds, profiled: device time that ran during the subproblems
                            * (counted in its device phase only, so the phases add up to the total) */
    long iterations, inner_steps;
    double update_bytes;   /* bytes the row/update kernels read, for achieved bandwidth */
    double duality_gap;    /* relative duality gap at the end (the paper's criterion) */
    double peak_gbps;      /* the device's nominal memory bandwidth (0 when unknown) */
    double t_on_device;    /* gs_now() when the first batch's data was on the device (0: never) */
    double t_model_ready;  /* gs_now() when the model was complete in memory, before clean-up */
} gs_train_stats;

/* Where the trainer gets its device. wait() returns the open device, blocking until it is ready
 * (it is opened concurrently with reading and clustering); NULL with the error recorded when there
 * is none. The trainer calls it only once the host-side preparation is done, and not at all for
 * problems that need no device (no rows, one class). */
typedef struct gs_device_provider {
    gs_ocl *(*wait)(void *ctx);
    void *ctx;
    /* NULL (one device), or, once wait() has returned a device: every device the run may use
     * (--device's list, device/devset.h), wait()'s first, into devs[0..max); returns how many.
     * Independent problems (pairs, folds, C values) are dealt out over them (train/run.h). */
    int (*all)(void *ctx, gs_ocl **devs, int max);
} gs_device_provider;

/* Trains per param (gamma already defaulted by the caller); with param->probability (-b 1) the
 * model gets probA/probB (classification) or probA (regression) from internal 5-fold
 * cross-validations whose folds come from glibc's rand() stream started at seed 1 for this call
 * (compat §6.8, 6.9), their training lines printed where svm-train prints them.
 * @return GS_OK with *model filled, or the error */
gs_status gs_svm_train(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                       const gs_log *log, gs_model *model, gs_train_stats *stats);

/* The same with -b 1's folds drawn from rng, continuing it (a -v fold's training continues the
 * stream the folds were drawn from, as in LIBSVM's one process-wide rand()). */
gs_status gs_svm_train_rand(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                            gs_glibc_rand *rng, const gs_log *log, gs_model *model, gs_train_stats *stats);

/* C-SVC trained at nc values of C at once (the rest of param shared): one grouping and clustering,
 * every pair at every C value in one device batch. models[c] is what gs_svm_train gives with
 * param->C = C[c], and the log gets its lines model after model. (nu-SVC takes nc = 1.)
 * @return GS_OK with models[0..nc) filled, or the error (every model empty) */
gs_status gs_svm_train_c_values(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                                const double *C, int nc, const gs_log *log, gs_model *models, gs_train_stats *stats);

/* Cross-validation's training (cv.c): the models of nr_fold folds, fold f
 * trained without the rows perm[start[f] .. start[f+1]) and laid out as gs_svm_train lays out the
 * model of the other folds' rows in perm order (svm_cross_validation's subset), printing each
 * fold's lines in fold order. With C (C-SVC only), at each of the nc values C[c]: every value's
 * folds in the same batch, models[c * nr_fold + f] (each the model C = C[c] alone gives), the
 * lines fold by fold, each fold's C values in turn; C NULL: param->C, nc taken as 1. Every fold's one-vs-one pairs are solved together as problems over
 * one clustered upload of prob, each fold's held-out rows left out (solver.h spec->skip);
 * one-class and SVR likewise, one problem a fold (single.h gs_train_single_folds).
 * models[nr_fold] start zeroed; free each with gs_model_free.
 * @return GS_OK; GS_ERR_UNSUPPORTED, nothing printed, for Crammer-Singer, non-finite values, a
 *         one-problem fold without rows or C values for another type (the caller trains fold by
 *         fold); or the error */
gs_status gs_svm_train_folds(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                             const double *C, int nc, const gs_log *log, int nr_fold, const int *perm,
                             const int *start, gs_model *models);

#endif
