/* parallel.h — one way to run independent jobs on threads: job 0 on the calling thread, the others
 * on their own threads (a job whose thread cannot be started runs on the caller instead), all
 * joined before returning. Used for rows on the CPU's cores (prediction's exact paths, held-out
 * rows) and for one thread per device (train/run.c). */
#ifndef GS_PARALLEL_H
#define GS_PARALLEL_H

#include <stddef.h>

/* Runs fn(jobs + i * size) for i in [0, n), concurrently; returns when all are done. */
void gs_parallel_run(void *jobs, size_t size, int n, void *(*fn)(void *));

/* The CPU's online cores, at least 1 and at most cap. */
int gs_cpu_threads(int cap);

#endif
