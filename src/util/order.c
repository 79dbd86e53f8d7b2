/* order.c — see order.h. */
#include "util/order.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct ranked {
    double cost;
    int i;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

gs_status gs_order_by_cost(const double *cost, int *order, int n)
{
    for (int i = 0; i < n; i++) order[i] = i;
    if (n < 2) return GS_OK;
    ranked *r = malloc(sizeof *r * (size_t)n);
    if (!r) return GS_FAIL(GS_ERR_NOMEM, "out of memory ordering %d items", n);
    for (int i = 0; i < n; i++) r[i] = (ranked){cost[i], i};
    qsort(r, (size_t)n, sizeof *r, cmp_ranked);
    for (int i = 0; i < n; i++) order[i] = r[i].i;
    free(r);
    return GS_OK;
}

int gs_cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}
