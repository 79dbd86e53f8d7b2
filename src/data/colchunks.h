/* colchunks.h — a clustered layout's rows again, by column: the positions in chunks of whole
 * clusters, each chunk's nonzero values stored column by column. The solver's by-column kernel
 * rows (kernels/solver.cl k_rows_col) take a working-set vector's columns one at a time and add
 * each column's entries of a chunk into the chunk's sums, so a sparse row costs the entries its
 * columns share with the vector instead of all its own (text: ~8x fewer multiply-adds). Only
 * nonzero values are kept; a column holds each position at most once, in no set order. */
#ifndef GS_COLCHUNKS_H
#define GS_COLCHUNKS_H

#include <stdint.h>

#include "data/cluster.h"
#include "util/status.h"

typedef struct gs_colchunks {
    int32_t chunk_clusters; /* clusters per chunk */
    int32_t chunk_rows;     /* positions per chunk: chunk_clusters * cluster_size (<= 65536) */
    int32_t n_chunks;       /* ceil(n_clusters / chunk_clusters) */
    int32_t *chunk_cols;    /* [n_chunks+1] chunk h's columns are cols[chunk_cols[h] .. chunk_cols[h+1]) */
    int32_t *cols;          /* [n_cols] compact column ids, ascending within a chunk */
    int32_t *col_off;       /* [n_cols+1] column k's entries are row/val[col_off[k] .. col_off[k+1]) */
    uint16_t *row;          /* [n_entries] the entry's position within its chunk */
    float *val;             /* [n_entries] its value, never 0 */
    int64_t n_cols, n_entries;
} gs_colchunks;

/* The by-column copy of cl (narrow or wide) in chunks of chunk_clusters clusters
 * (chunk_clusters * cl->cluster_size <= 65536).
 * @return GS_OK with *out filled (free with gs_colchunks_free); GS_ERR_ARG for a bad chunk size;
 * GS_ERR_UNSUPPORTED when the entries or columns reach 2^31 (32-bit offsets);
 * GS_ERR_NOMEM (*out empty on failure) */
gs_status gs_colchunks_build(const gs_clustered *cl, int32_t chunk_clusters, gs_colchunks *out);

/* cl's by-column copy in chunks of chunk_clusters clusters, made on the first call and kept with
 * the layout (cl->bycol; concurrent first calls each build one and all but one are dropped), so
 * every batch over the layout shares it. The copy lives until gs_colchunks_release.
 * @return as gs_colchunks_build; GS_ERR_INTERNAL when the kept copy has other chunks */
gs_status gs_colchunks_of(const gs_clustered *cl, int32_t chunk_clusters, const gs_colchunks **out);

/* Frees cl's kept copy, if any (gs_clustered_free calls it). */
void gs_colchunks_release(gs_clustered *cl);

/* Bytes of c's arrays (what their upload takes on a device). */
int64_t gs_colchunks_bytes(const gs_colchunks *c);

/* Frees and zeroes; c may be NULL. */
void gs_colchunks_free(gs_colchunks *c);

#endif
