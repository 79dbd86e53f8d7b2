/* predictor.h — the prediction engine: a LIBSVM model's support vectors clustered by sparsity
 * pattern and uploaded once; test rows (double CSR) in chunks; every decision value of every class
 * pair computed on the OpenCL device with LIBSVM's arithmetic, plus an exact CPU reference used for
 * precomputed kernels and for the rows whose printed output the device cannot guarantee. */
#ifndef GS_PREDICTOR_H
#define GS_PREDICTOR_H

#include <stdint.h>

#include "io/model.h"
#include "device/dev.h"
#include "device/ocl.h"
#include "util/status.h"

/* Test rows as svm-predict holds them: values in double, exactly as strtod read them. */
typedef struct gs_rows {
    int32_t l;          /* rows */
    int64_t *row_ptr;   /* [l+1] */
    int32_t *idx;       /* [nnz] ascending per row (0 allowed first) */
    double *val;        /* [nnz] */
    double *y;          /* [l] labels */
    int64_t cap_rows, cap_nnz; /* allocated sizes (the reader reuses the arrays) */
} gs_rows;

/* Frees and zeroes; r may be NULL. */
void gs_rows_free(gs_rows *r);

/* Number of decision values per row: k(k-1)/2 for C-SVC and nu-SVC (0 for k < 2), k for cs_svc
 * (f_c(x) = sum_s coef[s][c] K(s,x) - rho[c] per class, SVs in model order), 1 otherwise. */
int gs_pred_n_dec(const gs_model *m);

/* K(x, y) of m's kernel (not precomputed) for the sparse rows x (xn values at columns xi, ascending)
 * and y, computed as LIBSVM's k_function does (the merged loop, powi, exp and tanh of glibc): the
 * host's one kernel function. */
double gs_pred_kernel(const gs_model *m, const int32_t *xi, const double *xv, int64_t xn, const int32_t *yi,
                      const double *yv, int64_t yn);

/* LIBSVM's decision values for row r of rows, in double exactly as svm_predict_values computes them
 * (merged sparse kernels, sequential sums in SV order, minus rho). dec has gs_pred_n_dec(m) slots.
 * Precomputed kernels read the row's value at array position ID.
 * @return GS_OK, or GS_ERR_FORMAT when a precomputed row lacks the position an SV asks for */
gs_status gs_pred_cpu_dec(const gs_model *m, const gs_rows *rows, int32_t r, double *dec);

/* The index of the one-vs-one vote's winner over k classes: pair (i,j) (in dec's order) votes i
 * when dec > 0, else j; ties go to the earliest class. votes holds k ints of scratch. */
int gs_pred_vote(int k, const double *dec, int *votes);

/* What svm_predict returns for m's decision values dec: one-class +1 / -1 (0 is -1), regression
 * the value, C-SVC / nu-SVC the vote's label (one class: its label; none: 0). votes holds
 * nr_class ints of scratch. Not for cs_svc (its argmax is gpusvm-predict's). */
double gs_pred_outcome(const gs_model *m, const double *dec, int *votes);

/* The device engine. */
typedef struct gs_predictor gs_predictor;

/* Device program and kernels, buildable before the model is known (predict.c builds them in the
 * device-opening thread). */
typedef struct gs_pred_program {
    gs_dev_kernels ks; /* pred_kvals, pred_sum, pred_probe */
} gs_pred_program;
/* @return GS_OK or the build/kernel error */
gs_status gs_pred_program_build(gs_ocl *ocl, gs_pred_program *out);
/* o may be NULL or half-built. */
void gs_pred_program_release(gs_pred_program *p);

/* Clusters m's support vectors by sparsity pattern and lays them out for the device, on the host
 * (so it can run while the device is still starting). m must outlive the predictor, have SVs and
 * decision values, and not use a precomputed kernel. tuning (NULL: defaults) may force the block
 * storage (pred_blocks) and the tiled path (pred_tile, applied at attach); it is copied.
 * @return GS_OK, GS_ERR_ARG (nothing to evaluate on a device), GS_ERR_NOMEM */
gs_status gs_predictor_create(const gs_model *m, const gs_tuning *tuning, gs_predictor **out);
/* Asks (before gs_predictor_attach) for the host exact path where every row must print LIBSVM's
 * bits: for RBF and sigmoid models the device computes the arguments of exp / tanh (bit for bit
 * LIBSVM's, when the compiler honours FP_CONTRACT OFF) and the host applies its C library and
 * svm_predict_values' sums, so err is 0. Other kernels are exact on the device already. */
void gs_predictor_host_exact(gs_predictor *p, int on);
/* Uploads the layout to an open device, once. Takes ownership of *prog (zeroed on return), also on
 * failure (gs_predictor_free releases it).
 * @return GS_OK, GS_ERR_NOMEM, GS_ERR_OCL */
gs_status gs_predictor_attach(gs_predictor *p, gs_ocl *ocl, gs_pred_program *prog);
/* Starts the device work for rows (uploads the chunk, enqueues the kernels) without waiting;
 * rows must stay unchanged until gs_predictor_finish. */
gs_status gs_predictor_start(gs_predictor *p, const gs_rows *rows);
/* Waits for the work started last and writes dec[r*n_dec + q] and a bound err[r*n_dec + q] on
 * |dec - LIBSVM's value| (0 where the device result is bit-identical to LIBSVM's by construction).
 * A row whose printed output could change within its bounds must be recomputed with
 * gs_pred_cpu_dec. */
gs_status gs_predictor_finish(gs_predictor *p, double *dec, double *err);
/* Whether the device reproduces LIBSVM's bits exactly for this model's kernel (linear and
 * polynomial kernels, when the device compiler honours FP_CONTRACT OFF; RBF and sigmoid on the
 * host exact path). */
int gs_predictor_exact(const gs_predictor *p);
/* Blocks stored row-wise (very sparse SVs, see kernels/predict.cl); *n_blocks (may be NULL) gets
 * the number of blocks. */
int gs_predictor_row_wise_blocks(const gs_predictor *p, int *n_blocks);
/* Whether the row-wise blocks' values come from hash tables of the test rows (pred_khash; known
 * after gs_predictor_attach), not from the merge. */
int gs_predictor_hash(const gs_predictor *p);
/* Seconds spent so far in the layout, the upload and from each start to its finish (--verbose). */
double gs_predictor_device_seconds(const gs_predictor *p);

/* Where the device time went, for --verbose: buffer (re)allocation, enqueueing the uploads and
 * launches (both from the start of each chunk), the blocking read, and the device seconds of the
 * kernel-value and sum kernels (0 unless the queue profiles: GPUSVM_PROFILE=1); chunks started,
 * and those whose host exact path read 16-bit squared distances (predictor.c's codes). */
typedef struct gs_pred_times {
    double alloc, enqueue, wait, kvals, sum;
    long chunks, coded;
    long segmented;    /* chunks whose pair sums ran in segments (pred_part), and the last count */
    int nseg;
} gs_pred_times;
gs_pred_times gs_predictor_times(const gs_predictor *p);
/* Waits for any chunk still in flight (whose rows and decision buffer the caller must keep until
 * then), then releases everything; p may be NULL. */
void gs_predictor_free(gs_predictor *p);

#endif
