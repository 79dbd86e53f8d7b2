/* single.h — one-class, epsilon-SVR and nu-SVR training: one problem over every row on the device solver,
 * certified (run.h), LIBSVM 3.24's set-up, printed lines and model (single.c says how). */
#ifndef GS_SINGLE_H
#define GS_SINGLE_H

#include "train/trainer.h"

/* Trains param->svm_type GS_ONE_CLASS, GS_EPSILON_SVR or GS_NU_SVR (gamma already defaulted) on prob, whose
 * labels are the regression targets (ignored by one-class); regression with param->probability
 * draws its probability folds from rng (see gs_svm_train_rand).
 * @return GS_OK with *model filled, or the error (*model left empty) */
gs_status gs_train_single(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                          gs_glibc_rand *rng, const gs_log *log, gs_model *model, gs_train_stats *stats);

/* Cross-validation's training of those types (trainer.h gs_svm_train_folds): fold f's model is
 * gs_train_single's on the rows outside perm[start[f] .. start[f+1]) in perm order, and every
 * fold is a problem of one batch over one clustered upload of prob, its held-out rows left out.
 * @return GS_OK; GS_ERR_UNSUPPORTED, nothing printed, for non-finite values or a fold without
 *         training rows; or the error */
gs_status gs_train_single_folds(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                                const gs_log *log, int nr_fold, const int *perm, const int *start, gs_model *models);

#endif
