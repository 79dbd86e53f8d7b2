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

#endif
