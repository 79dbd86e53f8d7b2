/* test_courier.c — courier.c: jobs run in posting order on one thread, drain waits for them, a
 * failure skips the later jobs and brings its status and message back, a NULL courier runs jobs
 * at once, and a courier that went to sleep (idle past its spin time) still runs the next job. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "util/courier.h"
#include "testlib.h"

typedef struct rec {
    int order[64];
    int n;
    pthread_t th[64];
} rec;

typedef struct arg {
    rec *r;
    int id;
    int fail; /* GS_FAIL with this job's id */
} arg;

static gs_status job(void *p)
{
    arg *a = p;
    a->r->th[a->r->n] = pthread_self();
    a->r->order[a->r->n++] = a->id;
    if (a->fail) return GS_FAIL(GS_ERR_OCL, "job %d failed", a->id);
    return GS_OK;
}

static void test_order(void)
{
    gs_courier *c = NULL;
    CHECK(gs_courier_create(&c) == GS_OK && c, "create");
    if (!c) return;
    rec r = {.n = 0};
    arg a[40];
    for (int i = 0; i < 40; i++) { /* more than the ring holds: posting waits for room */
        a[i] = (arg){&r, i, 0};
        CHECK(gs_courier_post(c, job, &a[i]) == GS_OK, "post %d", i);
    }
    CHECK(gs_courier_drain(c) == GS_OK, "drain");
    CHECK(r.n == 40, "%d jobs ran", r.n);
    int inorder = 1, samethread = 1;
    for (int i = 0; i < r.n; i++) {
        inorder &= r.order[i] == i;
        samethread &= pthread_equal(r.th[i], r.th[0]) != 0;
    }
    CHECK(inorder, "jobs ran in posting order");
    CHECK(samethread, "on one thread");
    CHECK(!pthread_equal(r.th[0], pthread_self()), "not the poster's");
    CHECK(gs_courier_busy(c) >= 0, "busy %g", gs_courier_busy(c));
    /* idle long past the spin time (SPIN_S, 5 ms): the thread sleeps, and a post wakes it */
    const struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    arg late = {&r, 99, 0};
    CHECK(gs_courier_post(c, job, &late) == GS_OK, "post after sleeping");
    CHECK(gs_courier_drain(c) == GS_OK && r.n == 41 && r.order[40] == 99, "ran after sleeping: %d", r.n);
    gs_courier_free(c);
}

static void test_failure(void)
{
    gs_courier *c = NULL;
    CHECK(gs_courier_create(&c) == GS_OK && c, "create");
    if (!c) return;
    rec r = {.n = 0};
    arg a[4] = {{&r, 0, 0}, {&r, 1, 1}, {&r, 2, 0}, {&r, 3, 0}};
    for (int i = 0; i < 4; i++) gs_courier_post(c, job, &a[i]);
    gs_clear_error();
    CHECK(gs_courier_drain(c) == GS_ERR_OCL, "the failure's status");
    CHECK(strcmp(gs_last_error(), "job 1 failed") == 0, "message here: '%s'", gs_last_error());
    CHECK(strncmp(gs_last_error_where(), "test_courier.c:", 15) == 0, "where: '%s'", gs_last_error_where());
    CHECK(r.n == 2, "the jobs after it were skipped: %d ran", r.n);
    gs_courier_free(c);
    gs_courier_free(NULL);
}

static void test_null(void)
{
    rec r = {.n = 0};
    arg a = {&r, 7, 0}, b = {&r, 8, 1};
    CHECK(gs_courier_post(NULL, job, &a) == GS_OK && r.n == 1, "ran at once");
    CHECK(pthread_equal(r.th[0], pthread_self()), "on the caller's thread");
    CHECK(gs_courier_post(NULL, job, &b) == GS_ERR_OCL, "its status");
    CHECK(gs_courier_drain(NULL) == GS_OK, "nothing to drain");
    CHECK(gs_courier_busy(NULL) == 0, "no thread");
}

int main(void)
{
    test_order();
    test_failure();
    test_null();
    TEST_END();
}
