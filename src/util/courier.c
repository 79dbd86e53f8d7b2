/* courier.c — a one-thread job queue (see courier.h).
 * The thread spins while idle for up to SPIN_S, so a job posted between two parts of a round
 * starts within a microsecond or so instead of a futex wake-up (tens of microseconds on a VM);
 * after that it sleeps on a condition variable until the next post. Posting and draining spin
 * too: the jobs are short and the poster needs them done soon. */
#include "util/courier.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/log.h"

#define RING 8
#define SPIN_S 0.005

typedef struct job {
    gs_courier_fn fn;
    void *arg;
} job;

struct gs_courier {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    job ring[RING];
    atomic_ulong posted;  /* jobs posted (written by the poster) */
    atomic_ulong done;    /* jobs run or skipped (written by the thread) */
    atomic_int sleeping;  /* the thread waits on wake */
    atomic_int quit;
    gs_status failed;     /* the first failure (written by the thread before done moves past it) */
    char msg[1024], where[128];
    double busy;          /* read after a drain */
};

static void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void *courier_run(void *arg)
{
    gs_courier *c = arg;
    unsigned long next = 0;
    for (;;) {
        /* idle: spin, then sleep until a post (the post stores posted before reading sleeping,
         * this thread sets sleeping before its last look at posted: one of them sees the other) */
        double idle0 = 0;
        for (unsigned spins = 0; atomic_load(&c->posted) == next; spins++) {
            if (atomic_load(&c->quit)) return NULL;
            relax();
            if ((spins & 1023) != 1023) continue;
            const double t = gs_now();
            if (idle0 == 0) idle0 = t;
            else if (t - idle0 > SPIN_S) {
                pthread_mutex_lock(&c->mu);
                atomic_store(&c->sleeping, 1);
                while (atomic_load(&c->posted) == next && !atomic_load(&c->quit)) pthread_cond_wait(&c->wake, &c->mu);
                atomic_store(&c->sleeping, 0);
                pthread_mutex_unlock(&c->mu);
                idle0 = 0;
            }
        }
        const job j = c->ring[next % RING];
        if (c->failed == GS_OK) {
            const double t0 = gs_now();
            const gs_status st = j.fn(j.arg);
            c->busy += gs_now() - t0;
            if (st != GS_OK) {
                snprintf(c->msg, sizeof c->msg, "%s", gs_last_error());
                snprintf(c->where, sizeof c->where, "%s", gs_last_error_where());
                c->failed = st;
            }
        }
        atomic_store(&c->done, ++next);
    }
}

gs_status gs_courier_create(gs_courier **out)
{
    *out = NULL;
    gs_courier *c = calloc(1, sizeof *c);
    if (!c) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    atomic_init(&c->posted, 0);
    atomic_init(&c->done, 0);
    atomic_init(&c->sleeping, 0);
    atomic_init(&c->quit, 0);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->wake, NULL);
    if (pthread_create(&c->th, NULL, courier_run, c) != 0) {
        pthread_cond_destroy(&c->wake);
        pthread_mutex_destroy(&c->mu);
        free(c);
        return GS_FAIL(GS_ERR_INTERNAL, "could not start the enqueueing thread");
    }
    *out = c;
    return GS_OK;
}

static void wake(gs_courier *c)
{
    if (!atomic_load(&c->sleeping)) return;
    pthread_mutex_lock(&c->mu);
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->mu);
}

gs_status gs_courier_post(gs_courier *c, gs_courier_fn fn, void *arg)
{
    if (!c) return fn(arg);
    const unsigned long p = atomic_load(&c->posted);
    while (p - atomic_load(&c->done) >= RING) relax();
    c->ring[p % RING] = (job){fn, arg};
    atomic_store(&c->posted, p + 1);
    wake(c);
    return GS_OK;
}

gs_status gs_courier_drain(gs_courier *c)
{
    if (!c) return GS_OK;
    const unsigned long p = atomic_load(&c->posted);
    while (atomic_load(&c->done) != p) relax();
    if (c->failed == GS_OK) return GS_OK;
    /* the message was recorded on the courier's thread: record it here too */
    const char *colon = strrchr(c->where, ':');
    char file[128];
    snprintf(file, sizeof file, "%.*s", colon ? (int)(colon - c->where) : (int)strlen(c->where), c->where);
    return gs_fail_at(file, colon ? atoi(colon + 1) : 0, c->failed, "%s", c->msg);
}

double gs_courier_busy(const gs_courier *c) { return c ? c->busy : 0; }

void gs_courier_free(gs_courier *c)
{
    if (!c) return;
    gs_courier_drain(c);
    atomic_store(&c->quit, 1);
    pthread_mutex_lock(&c->mu);
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->th, NULL);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->mu);
    free(c);
}
