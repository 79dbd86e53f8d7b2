/* convert.h — svm.h's structs to gpusvm's and back: svm_parameter -> gs_param, svm_problem (rows
 * of svm_node) -> gs_problem (CSR, float values), gs_model <-> svm_model, one svm_node row ->
 * gs_rows. Each conversion checks what the other side relies on, so a bad struct is an error
 * message rather than an out-of-bounds read. */
#ifndef GS_API_CONVERT_H
#define GS_API_CONVERT_H

#include "svm.h"

#include "api/param.h"
#include "io/data.h"
#include "io/model.h"
#include "predict/predictor.h"

/* gs_param from LIBSVM's parameters and gpusvm's tunables (opt NULL = gpusvm-train's defaults).
 * The weight arrays are borrowed from sp, so *out must never be given to gs_param_free. */
void gs_api_param_from(const struct svm_parameter *sp, const struct gpusvm_options *opt, gs_param *out);

/* svm_check_parameter's answer: gs_param_check (LIBSVM's texts and order; prob may be NULL), then
 * the weight arrays' presence. NULL when svm_train can train. */
const char *gs_api_check(const struct svm_problem *prob, const gs_param *p);

/* The training rows as gs_problem, with gpusvm-train's reader's rules: indices ascend (0 allowed
 * first), labels finite, values within float's range (a finite value beyond FLT_MAX is refused).
 * @return GS_OK, GS_ERR_ARG (the row and the reason), GS_ERR_NOMEM; *out empty on error */
gs_status gs_api_problem_from(const struct svm_problem *prob, gs_problem *out);

/* A new svm_model holding copies of g's arrays (SV nodes in one block, free_sv = 1), with
 * param's fields set from g (param NULL: as svm_load_model sets them) or copied from *param (a
 * trained model, as LIBSVM's svm_train does). cs_svc models have no svm_model form: GS_ERR_UNSUPPORTED.
 * @return GS_OK, GS_ERR_NOMEM, GS_ERR_UNSUPPORTED; *out NULL on error */
gs_status gs_api_model_new(const gs_model *g, const struct svm_parameter *param, struct svm_model **out);
/* Frees what gs_api_model_new (or a caller following LIBSVM's layout) allocated; m may be NULL. */
void gs_api_model_free_content(struct svm_model *m);

/* gs_model from an svm_model (copies), checked for what gs_model_write and gs_pred_cpu_dec read:
 * known types, counts that agree (sum of nSV = l), arrays present.
 * @return GS_OK, GS_ERR_ARG (what is wrong), GS_ERR_NOMEM; *g empty on error */
gs_status gs_api_model_to(const struct svm_model *m, gs_model *g);

/* One row as a one-row gs_rows (every node before index -1, in array order, as svm_predict reads
 * it); label 0. @return GS_OK or GS_ERR_NOMEM; free with gs_rows_free */
gs_status gs_api_row_from(const struct svm_node *x, gs_rows *out);

#endif
