/* cluster.h — sparsity-pattern clustering (GTSVM Algorithm 2) and the clustered, column-major layout
 * the device kernels read: rows are grouped into clusters of cluster_size (= work-group size); each
 * cluster stores the union of its rows' columns, and values column-major over that union (zero
 * padded), so neighbouring work-items read neighbouring addresses. Dense data gives dense blocks. */
#ifndef GS_CLUSTER_H
#define GS_CLUSTER_H

#include <stdatomic.h>
#include <stdint.h>

#include "util/status.h"

typedef struct gs_clustered {
    int32_t n;             /* rows clustered */
    int32_t cluster_size;  /* rows per cluster (work-group size) */
    int32_t n_clusters;
    int32_t n_pos;         /* n_clusters * cluster_size: positions, padding included */
    int32_t *perm;         /* [n_pos] original row at each position, -1 for padding */
    int32_t *inv;          /* [n] position of original row i */
    int64_t *col_off;      /* [n_clusters+1] offsets into cols */
    int32_t *cols;         /* union columns per cluster, ascending, as compact ids (see ucol) */
    float *vals;           /* vals[col_off[c]*cluster_size + j*cluster_size + t]: column j of the
                              cluster's union, row t of the cluster (0 where the row lacks it) */
    double *norm2;         /* [n_pos] squared norms in double (0 for padding) */
    /* Clusters whose union is much wider than their rows (random-sparse data such as text, where
     * the dense block would be mostly zeros), or whose few rows would leave the block mostly
     * padding, are stored row-wise instead: ELL slots, or for wide data (see wide) each row's own
     * entries, so they take O(nnz): */
    int32_t *ell_w;        /* [n_clusters] the widest row of a row-wise cluster, 0 for a dense one */
    int64_t *ell_off;      /* ELL: [n_clusters+1]; row t's e-th entry of cluster c at ell_off[c] +
                              e*cluster_size + t (column -1 and value 0 in padding slots, which
                              follow a row's entries).
                              wide: [n_pos+1]; position p's entries are [ell_off[p], ell_off[p+1])
                              (none for dense clusters' positions and padding) */
    int32_t *ell_idx;      /* compact columns of a row's entries, ascending */
    float *ell_val;        /* matching values */
    int64_t ell_nnz;       /* entries (slots) stored row-wise */
    int wide;              /* wide data (cluster.c is_wide): row-wise clusters as runs, and the
                              solver reads working-set vectors from the layout (no dense block) */
    int32_t max_col;       /* largest column index (0 when none) */
    int32_t n_ucols;       /* distinct columns present: compact ids are 0..n_ucols-1 */
    int32_t *ucol;         /* [n_ucols] original column index of each compact id, ascending */
    double raw_nnz_per_row;       /* average stored pairs per input row */
    double clustered_nnz_per_row; /* average stored values per row (union size, or ELL width) */
    int32_t n_ell;         /* clusters stored row-wise */
    int32_t n_seg;         /* row segments clustered separately (gs_cluster_build_seg), 1 otherwise */
    int32_t *seg_cl;       /* [n_seg+1] first cluster of each segment (cluster ids are in segment order) */
    double seconds;        /* clustering time */
    double layout_seconds; /* of which filling the layout (values, padding, norms) */
    /* CLOCK_MONOTONIC nanoseconds when the layout was made (gs_clustered_stamp; 0: unknown): with
     * the layout's address, what tells a solver that its device already holds this layout (a
     * layout made later at the same address has a later stamp) */
    uint64_t stamp;
    int exact_float_dots;  /* set by gs_solver_cluster: float sums of the rows' products are exact */
    /* The layout by column (data/colchunks.h), made by the first batch of the solver that computes
     * kernel rows by column (gs_colchunks_of: the one field changed through a const layout, once,
     * atomically) and freed with the layout; NULL until then. */
    _Atomic(struct gs_colchunks *) bycol;
} gs_clustered;

/* Clusters rows [0,n) of a CSR matrix (row_ptr[n+1], idx, val) greedily in an order shuffled by
 * seed, with `active` candidate clusters (Algorithm 2's k, e.g. 64) of cluster_size rows.
 * @return GS_OK or GS_ERR_NOMEM / GS_ERR_ARG */
gs_status gs_cluster_build(const int64_t *row_ptr, const int32_t *idx, const float *val, int32_t n,
                           int32_t cluster_size, int32_t active, uint64_t seed, gs_clustered *out);
/* The same with rows [seg[s], seg[s+1]) (s < nseg, seg[0] = 0, seg[nseg] = n) clustered apart, so no
 * cluster mixes segments (e.g. classes, for one-vs-one pairs that each take two classes' clusters);
 * segment s gets clusters [seg_cl[s], seg_cl[s+1]), in its own seeded order. Columns are shared. */
gs_status gs_cluster_build_seg(const int64_t *row_ptr, const int32_t *idx, const float *val, int32_t n,
                               int32_t nseg, const int32_t *seg, int32_t cluster_size, int32_t active,
                               uint64_t seed, gs_clustered *out);
/* The same with the wide form given (wide 0 or 1; -1: decided as above), e.g. for a subset of rows
 * laid out for the solvers built for the whole set's form. Wide (1) needs every value finite. */
gs_status gs_cluster_build_seg_wide(const int64_t *row_ptr, const int32_t *idx, const float *val, int32_t n,
                                    int32_t nseg, const int32_t *seg, int32_t cluster_size, int32_t active,
                                    uint64_t seed, int wide, gs_clustered *out);
/* Frees and zeroes; c may be NULL. */
void gs_clustered_free(gs_clustered *c);
/* The stamp a layout's maker gives it when done (never 0). */
uint64_t gs_clustered_stamp(void);

#endif
