/* cv.h — LIBSVM's n-fold cross-validation (svm_cross_validation, 3.24): the same folds (glibc's
 * rand() stream from seed 1, stratified by class for C-SVC when n < l, compat §6.9), each fold's
 * model trained by gs_svm_train on the other folds' rows in LIBSVM's order (printing its usual
 * lines), and each held-out row predicted as svm_predict would (svm_predict_probability for a
 * C-SVC / nu-SVC probability model, -b 1). */
#ifndef GS_CV_H
#define GS_CV_H

#include "train/trainer.h"

/* target[l] receives each row's prediction (a label, a one-class +-1, or a regression value) by
 * the model trained without its fold. nr_fold > l is taken as l with LIBSVM's warning on stderr.
 * @return GS_OK or the first fold's training error */
gs_status gs_cross_validation(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                              int nr_fold, const gs_log *log, double *target);

/* The same drawing the folds from rng and passing it on to the folds' trainings (with -b 1 they
 * draw their own internal folds from it), as LIBSVM's one rand() stream runs through them.
 * @return GS_OK or the first fold's training error */
gs_status gs_cross_validation_rand(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                                   int nr_fold, gs_glibc_rand *rng, const gs_log *log, double *target);

/* The decision values of prob's rows rows[0..n) by m, LIBSVM's (svm_predict_values') bits, into
 * dec[n * gs_pred_n_dec(m)] (row by row): on dev's device where its exact paths give them (NULL:
 * none; tuning may be NULL), the others on the CPU on a few threads; log (may be NULL) has --verbose's
 * line of where they were computed.
 * @return GS_OK, GS_ERR_NOMEM or the device's error */
gs_status gs_cross_validation_dec(const gs_device_provider *dev, const gs_tuning *tuning, const gs_model *m,
                                  const gs_problem *prob, const int *rows, int n, const gs_log *log, double *dec);

/* One model's held-out rows for gs_cross_validation_dec_many: rows[0..n) of the problem, their
 * decision values into dec[n * gs_pred_n_dec(m)]. */
typedef struct gs_cv_dec_item {
    const gs_model *m;
    const int *rows;
    int n;
    double *dec;
} gs_cv_dec_item;

/* gs_cross_validation_dec for n models at once, the same values: the device's predictor layouts
 * made on threads for several models together (-b 1's folds of every class pair). */
gs_status gs_cross_validation_dec_many(const gs_device_provider *dev, const gs_tuning *tuning, const gs_problem *prob,
                                       const gs_cv_dec_item *items, int n, const gs_log *log);

/* C-SVC's cross-validation at nc values of C at once (the rest of param shared): the same folds,
 * each fold's models trained together by gs_svm_train_c_values. target[c * l + i] is row i's
 * prediction at C[c], what gs_cross_validation gives with param->C = C[c].
 * @return GS_OK, GS_ERR_UNSUPPORTED (not C-SVC) or the first fold's training error */
gs_status gs_cross_validation_c_values(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                                       int nr_fold, const double *C, int nc, const gs_log *log, double *target);

/* What svm-train -v prints for target (plain stdout lines, not silenced by -q): classification and
 * one-class "Cross Validation Accuracy = X%", regression the mean squared error and the squared
 * correlation coefficient, computed as LIBSVM does. */
void gs_cross_validation_print(const gs_problem *prob, const gs_param *param, const double *target);

#endif
