/* order.h — orderings shared by the layers: the one "dearest first" ordering (indices by a cost,
 * largest first, ties in index order: a stable, deterministic order), used to deal problems out to
 * devices (train/run.c) and gpusvm-grid's batches to its lanes (train/grid.c); and int32_t in
 * ascending order for qsort and bsearch (column ids: data/cluster.c, data/colchunks.c). */
#ifndef GS_ORDER_H
#define GS_ORDER_H

#include "util/status.h"

/* order[0..n) receives 0..n-1 sorted by cost[], largest first, equal costs in index order.
 * @return GS_OK, or GS_ERR_NOMEM with order[] = 0..n-1 */
gs_status gs_order_by_cost(const double *cost, int *order, int n);

/* qsort / bsearch comparator of int32_t, ascending. */
int gs_cmp_i32(const void *a, const void *b);

#endif
