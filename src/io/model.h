/* model.h — LIBSVM model files: byte-exact writer (compat §3.1) and a validating reader with
 * svm_load_model's tolerance (§3.5). Models are written to a temporary file and renamed. */
#ifndef GS_MODEL_H
#define GS_MODEL_H

#include <stdint.h>

#include "api/param.h"
#include "util/status.h"

/* Layout of gpusvm's "cs_svc" (Crammer–Singer) models, which LIBSVM has no format for: the same
 * header as C-SVC (label and nr_sv required), but one decision function per class,
 * f_m(x) = sum_s sv_coef[s][m] K(s,x) - rho[m], so rho has nr_class values and every SV line has
 * nr_class coefficients. gs_model_rho_count/gs_model_coef_count encode this; use them. */
typedef struct gs_model {
    int svm_type;        /* GS_C_SVC .. GS_NU_SVR; GS_CS_SVC for gpusvm's Crammer–Singer */
    int kernel_type;
    int degree;
    double gamma;
    double coef0;
    int nr_class;        /* k (2 for one-class and SVR) */
    int32_t l;           /* total_sv */
    double *rho;         /* [gs_model_rho_count()]: k(k-1)/2, 1 for one-class/SVR, k for cs_svc */
    int *label;          /* [k] or NULL (classification only) */
    int *nSV;            /* [k] or NULL */
    double *probA;       /* [k(k-1)/2] or NULL when absent */
    double *probB;       /* [k(k-1)/2] or NULL when absent */
    double *prob_density_marks; /* [10] or NULL (3.30+ one-class -b 1) */
    int n_coef;          /* columns of sv_coef = gs_model_coef_count(): k-1 (1 for one-class/SVR,
                            0 when k <= 1), k for cs_svc */
    double *sv_coef;     /* [n_coef * l], row-major by SV: sv_coef[s * n_coef + c] */
    /* support vectors, CSR with double values (exactly what the file holds) */
    int64_t *sv_ptr;     /* [l+1] */
    int32_t *sv_idx;     /* [nnz]; precomputed models hold only index 0 with the ID as value */
    double *sv_val;      /* [nnz] */
    int32_t *sv_indices; /* [l] 1-based training row of each SV (gs_svm_train), NULL when read from
                            a file; not part of the file format (svm.h's svm_get_sv_indices) */
} gs_model;

/* The largest polynomial degree gs_model_read accepts (model.c says why). */
#define GS_MODEL_MAX_DEGREE 1000000

#define GS_CS_SVC 5      /* gpusvm extension "cs_svc" (Crammer–Singer); svm-predict refuses it */

/* Reads and validates a model. Errors (GS_ERR_IO / GS_ERR_FORMAT) name the file and line, e.g.
 * "model.txt:9: expected 132 SV lines, found 57". GS_ERR_IO says "can't open model file <path>".
 * Stricter than svm_load_model on purpose: non-finite gamma, coef0, probA, probB, a NaN rho,
 * prob_density_marks or SV coefficients, a polynomial degree outside 0..GS_MODEL_MAX_DEGREE, and
 * an SV section whose last line has no newline (a cut file) are errors.
 * *out is zeroed first and stays zeroed on error (gs_model_free on it is still fine). */
gs_status gs_model_read(const char *path, gs_model *out);
/* Writes LIBSVM's exact format to path through gs_atomic_open (util/atomic_file.h): a temporary
 * "<path>.tmpXXXXXX" in the same folder renamed at the end, so an existing model is never left
 * half-written; a path that exists and is not a regular file (/dev/stdout, a FIFO) is written
 * directly. A new file gets 0666 & ~umask, a replaced one keeps its mode (one we may not write is
 * refused, as by svm_save_model's fopen); a symlink is followed.
 * @return GS_OK; GS_ERR_IO ("can't save model to file <path>", no temporary file left behind);
 *         GS_ERR_ARG when m is inconsistent (a caller bug: wrong n_coef, NULL arrays, ...). */
gs_status gs_model_write(const char *path, const gs_model *m);
/* Frees and zeroes; m may be NULL. */
void gs_model_free(gs_model *m);

/* 1 for the types with labels and nr_sv: c_svc, nu_svc, cs_svc. */
int gs_model_is_classification(int svm_type);
/* Number of rho values (also of probA/probB pairs for the one-vs-one types): nr_class*(nr_class-1)/2,
 * nr_class for cs_svc; 0 when nr_class <= 1. */
int64_t gs_model_rho_count(int svm_type, int nr_class);
/* Coefficient columns per SV: nr_class-1 (0 when nr_class <= 1), nr_class for cs_svc. */
int gs_model_coef_count(int svm_type, int nr_class);
/* The names in model files ("c_svc", "rbf", ...), or NULL for an unknown value. */
const char *gs_svm_type_name(int svm_type);
const char *gs_kernel_type_name(int kernel_type);

/* SV values for a model file: v[i] holds a float (the training data's value, widened) and becomes
 * the shortest decimal that reads back as that float (LIBSVM keeps the file's doubles and writes
 * them with %.8g; printing the float's exact value would turn 0.3 into 0.30000001). Cached by value
 * and run on up to 16 threads for large models. */
void gs_model_sv_values(double *v, int64_t n);

/* The double whose %.8g text is the shortest decimal (at most 8 digits) that reads back as f, the
 * value gs_model_sv_values gives each SV value (exposed for the tests). */
double gs_model_shortest_decimal(float f);

#endif
