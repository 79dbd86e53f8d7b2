/* parallel.c — see parallel.h. */
#include "util/parallel.h"

#include <pthread.h>
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

int gs_cpu_threads(int cap)
{
    long nt = sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1) nt = 1;
    if (nt > cap) nt = cap;
    return (int)nt;
}
