/* parallel.h — one way to run independent jobs on threads: job 0 on the calling thread, the others
 * on their own threads (a job whose thread cannot be started runs on the caller instead), all
 * joined before returning. Used for rows on the CPU's cores (prediction's exact paths, held-out
 * rows) and for one thread per device (train/run.c). */
#ifndef GS_PARALLEL_H
#define GS_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

/* Runs fn(jobs + i * size) for i in [0, n), concurrently; returns when all are done. */
void gs_parallel_run(void *jobs, size_t size, int n, void *(*fn)(void *));

/* Runs fn(ctx, i) for every item i in [0, n) on up to nthreads threads, each thread taking the next
 * item in turn; a thread stops at its first failure.
 * @return GS_OK, or a failure's status with its message (gs_last_error of the failing thread) */
gs_status gs_parallel_items(int n, int nthreads, gs_status (*fn)(void *ctx, int i), void *ctx);

/* Runs fn(ctx, lo, hi) over [0, n) in ranges of chunk (the last one shorter) on up to nthreads
 * threads, as gs_parallel_items runs items (rows of a prediction, bytes to clear).
 * @return as gs_parallel_items */
gs_status gs_parallel_ranges(int64_t n, int64_t chunk, int nthreads,
                             gs_status (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx);

/* The CPU's online cores, at least 1 and at most cap. */
int gs_cpu_threads(int cap);

#endif
