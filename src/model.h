/* model.h — LIBSVM model files: byte-exact writer (compat §3.1) and a validating reader with
 * svm_load_model's tolerance (§3.5). Models are written to a temporary file and renamed. */
#ifndef GS_MODEL_H
#define GS_MODEL_H

#include <stdint.h>

#include "param.h"
#include "status.h"

typedef struct gs_model {
    int svm_type;        /* GS_C_SVC .. GS_NU_SVR; GS_CS_SVC for gpusvm's Crammer–Singer */
    int kernel_type;
    int degree;
    double gamma;
    double coef0;
    int nr_class;        /* k (2 for one-class and SVR) */
    int32_t l;           /* total_sv */
    double *rho;         /* [k(k-1)/2] (1 for one-class/SVR) */
    int *label;          /* [k] or NULL (classification only) */
    int *nSV;            /* [k] or NULL */
    double *probA;       /* NULL when absent */
    double *probB;       /* NULL when absent */
    double *prob_density_marks; /* [10] or NULL (3.30+ one-class -b 1) */
    int n_coef;          /* columns of sv_coef: nr_class-1 (1 for one-class/SVR) */
    double *sv_coef;     /* [n_coef * l], row-major by SV: sv_coef[s * n_coef + c] */
    /* support vectors, CSR with double values (exactly what the file holds) */
    int64_t *sv_ptr;     /* [l+1] */
    int32_t *sv_idx;     /* [nnz]; precomputed models hold only index 0 with the ID as value */
    double *sv_val;      /* [nnz] */
} gs_model;

#define GS_CS_SVC 5      /* gpusvm extension "cs_svc" (Crammer–Singer); svm-predict refuses it */

/* Reads and validates a model. Errors (GS_ERR_IO / GS_ERR_FORMAT) name the file and line, e.g.
 * "model.txt:12: SV section has 3 lines, total_sv says 5". *out is empty on error. */
gs_status gs_model_read(const char *path, gs_model *out);
/* Writes LIBSVM's exact format to path via "<path>.tmpXXXXXX" + rename.
 * @return GS_OK or GS_ERR_IO ("can't save model to file <path>") */
gs_status gs_model_write(const char *path, const gs_model *m);
/* Frees and zeroes; m may be NULL. */
void gs_model_free(gs_model *m);

#endif
