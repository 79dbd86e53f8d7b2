/* precomputed.h — the precomputed kernel (-t 4, compat §1.7): LIBSVM's checks of the serial
 * numbers, and the kernel matrix rows laid out for the device solver.
 *
 * A training row is "label 0:ID 1:K(x,x1) ... L:K(x,xL)" and LIBSVM reads K(i,j) at array position
 * ID_j of row i's pairs (not at index ID_j: a missing zero shifts the values). The layout below
 * therefore stores each row by position: column j holds the row's j-th stored value, column 0 its
 * (truncated) serial number. Row t's kernel value against working-set row u is then u's column
 * ID_t, which the device reads from u's gathered vector (kernels/solver.cl, KTYPE 4). */
#ifndef GS_PRECOMPUTED_H
#define GS_PRECOMPUTED_H

#include <stdint.h>

#include "data/cluster.h"
#include "io/data.h"
#include "util/status.h"

/* svm-train's checks of a -t 4 training set, row by row in file order: the row's first pair must
 * have index 0 (an empty row fails too), and (int)ID must lie in [1, max_index].
 * @return NULL, or LIBSVM's message without "\n": "Wrong input format: first column must be
 * 0:sample_serial_number" or "Wrong input format: sample_serial_number out of range" */
const char *gs_precomputed_check(const gs_problem *prob);

/* Rows [0,n) of a checked -t 4 CSR as the solver's clustered layout: each segment's rows in order,
 * cluster_size to a cluster, every cluster dense over the positions 0..S (S the largest serial
 * number among the n rows; compact column ids are the positions), column 0 holding (int)ID.
 * Nothing is clustered by sparsity: kernel rows are dense.
 * Errors: GS_ERR_FORMAT when a row has fewer than S+1 stored values (LIBSVM would read past it);
 * GS_ERR_NOMEM with the bytes the layout needs and the host's memory; GS_ERR_ARG for bad segments.
 * @return GS_OK with *out filled (free with gs_clustered_free), or the error (*out empty) */
gs_status gs_precomputed_cluster(const int64_t *row_ptr, const int32_t *idx, const float *val, int32_t n,
                                 int32_t nseg, const int32_t *seg, int32_t cluster_size, gs_clustered *out);

/* Where row r's pairs that a model keeps for its SV end: all of them, or with id_only (-t 4) the
 * first, 0:ID, all that svm-train writes and svm-predict reads. */
static inline int64_t gs_sv_end(const gs_problem *prob, int32_t r, int id_only)
{
    const int64_t b = prob->row_ptr[r], e = prob->row_ptr[r + 1];
    return id_only && e > b ? b + 1 : e;
}

#endif
