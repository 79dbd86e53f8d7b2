/* parallel.c — see parallel.h. */
#include "util/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void gs_parallel_run(void *jobs, size_t size, int n, void *(*fn)(void *))
{
    char *const base = jobs;
    pthread_t *th = n > 1 ? malloc(sizeof *th * (size_t)n) : NULL;
    char *started = n > 1 ? calloc((size_t)n, 1) : NULL;
    for (int i = 1; i < n; i++)
        if (th && started) started[i] = pthread_create(&th[i], NULL, fn, base + (size_t)i * size) == 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || !started || !started[i]) fn(base + (size_t)i * size);
    for (int i = 1; i < n; i++)
        if (started && started[i]) pthread_join(th[i], NULL);
    free(th);
    free(started);
}

/* One thread of gs_parallel_items. */
typedef struct items_job {
    gs_status (*fn)(void *ctx, int i);
    void *ctx;
    int n;
    atomic_int *next;
    gs_status st;
    char err[256];
} items_job;

static void *items_run(void *arg)
{
    items_job *j = arg;
    j->st = GS_OK;
    for (int i; j->st == GS_OK && (i = atomic_fetch_add(j->next, 1)) < j->n;)
        if ((j->st = j->fn(j->ctx, i)) != GS_OK) snprintf(j->err, sizeof j->err, "%s", gs_last_error());
    return NULL;
}

gs_status gs_parallel_items(int n, int nthreads, gs_status (*fn)(void *ctx, int i), void *ctx)
{
    items_job jobs[64];
    const int nt = nthreads < 1 ? 1 : nthreads > 64 ? 64 : nthreads > n ? (n > 0 ? n : 1) : nthreads;
    atomic_int next;
    atomic_init(&next, 0);
    for (int t = 0; t < nt; t++) jobs[t] = (items_job){.fn = fn, .ctx = ctx, .n = n, .next = &next};
    gs_parallel_run(jobs, sizeof jobs[0], nt, items_run);
    for (int t = 0; t < nt; t++)
        if (jobs[t].st != GS_OK) return GS_FAIL(jobs[t].st, "%s", jobs[t].err);
    return GS_OK;
}

/* gs_parallel_ranges' items: range i of the caller's. */
typedef struct ranges_job {
    int64_t n, chunk;
    gs_status (*fn)(void *ctx, int64_t lo, int64_t hi);
    void *ctx;
} ranges_job;

static gs_status range_item(void *ctx, int i)
{
    const ranges_job *r = ctx;
    const int64_t lo = (int64_t)i * r->chunk, hi = r->n - lo < r->chunk ? r->n : lo + r->chunk;
    return r->fn(r->ctx, lo, hi);
}

gs_status gs_parallel_ranges(int64_t n, int64_t chunk, int nthreads,
                             gs_status (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
    if (n <= 0) return GS_OK;
    ranges_job r = {.n = n, .chunk = chunk > 0 ? chunk : n, .fn = fn, .ctx = ctx};
    return gs_parallel_items((int)((n + r.chunk - 1) / r.chunk), nthreads, range_item, &r);
}

int gs_cpu_threads(int cap)
{
    long nt = sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1) nt = 1;
    if (nt > cap) nt = cap;
    return (int)nt;
}
