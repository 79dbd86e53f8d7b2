/* certify.h — a trained C-SVC model checked before it is written. The device solver's gradients
 * drift from the true ones (float kernel rows, long accumulation), so at the end every training
 * row's gradient is recomputed from the model with LIBSVM's double arithmetic (the predictor's
 * decision values, which carry an error bound), and per class pair LIBSVM's stopping quantity
 * m(a) - M(a) is taken on those gradients, widened by their bounds. rho and the objective come from
 * the same gradients, as LIBSVM computes them. gs_svm_train resumes the pairs that fail. */
#ifndef GS_CERTIFY_H
#define GS_CERTIFY_H

#include <stdint.h>

#include "log.h"
#include "model.h"
#include "ocl.h"
#include "predictor.h"
#include "status.h"

/* The training rows grouped by class (class c's rows are [start[c], start[c+1])), values as the
 * trainer holds them (float); the model's SVs are among them. */
typedef struct gs_cert_rows {
    int32_t l, k;
    const int64_t *row_ptr;
    const int32_t *idx;
    const float *val;
    const int32_t *start;  /* [k+1] */
} gs_cert_rows;

/* One pair's verdict. */
typedef struct gs_cert_pair {
    double gap;      /* m - M on the recomputed gradients, widened by their error bounds */
    double raw_gap;  /* m - M without the bounds */
    double err;      /* the largest error bound of the pair's gradients */
    double rho, obj; /* LIBSVM's rho and objective from the recomputed gradients */
} gs_cert_pair;

/* Recomputes the gradients of every pair p (pairs in LIBSVM's order (0,1), (0,2), ...) for which
 * want[p] is non-zero: G[p][t] = y_t sum_s coef_s K(s, x_t) - 1 over the pair's rows in pair order
 * (class i's rows, then class j's), y = +1 for class i. m is the model as it will be written, with
 * every rho 0 (so a decision value is the bare sum); its SVs take their values through
 * gs_model_sv_values, and so do the rows here, so an SV and its row are the same vector.
 * err[p][t] receives each gradient's error bound against LIBSVM's double arithmetic. prog: the
 * predictor's program, built beforehand (gs_svm_train builds it while the solver runs); kept.
 * @return GS_OK, GS_ERR_NOMEM or the device's error */
gs_status gs_certify_gradients(gs_ocl *ocl, const gs_pred_program *prog, const gs_model *m, const gs_cert_rows *rows,
                               const int *want, double *const *G, double *const *err, const gs_log *log);

/* LIBSVM's stopping quantity, rho and objective for one pair from its gradients (see above):
 * n rows, the first ni of class i (y = +1, C = Cp), the rest of class j (y = -1, C = Cn). */
gs_cert_pair gs_certify_pair(const double *alpha, const double *G, const double *err, int32_t n, int32_t ni,
                             double Cp, double Cn);

#endif
