/* test_parallel.c — parallel.c: gs_parallel_items runs every item once whatever the thread count,
 * and brings a failing item's status and message back; gs_parallel_ranges covers [0, n) once in
 * ranges of chunk (the last one shorter), and an empty n runs nothing. */
#include <stdatomic.h>
#include <string.h>

#include "util/parallel.h"
#include "testlib.h"

enum { NMAX = 1000 };

typedef struct seen {
    atomic_int count[NMAX];
    int fail_at; /* item or range start that fails, -1 none */
} seen;

static gs_status item(void *ctx, int i)
{
    seen *s = ctx;
    atomic_fetch_add(&s->count[i], 1);
    return i == s->fail_at ? GS_FAIL(GS_ERR_ARG, "item %d failed", i) : GS_OK;
}

static gs_status range(void *ctx, int64_t lo, int64_t hi)
{
    seen *s = ctx;
    for (int64_t r = lo; r < hi; r++) atomic_fetch_add(&s->count[r], 1);
    return lo == s->fail_at ? GS_FAIL(GS_ERR_ARG, "range at %d failed", (int)lo) : GS_OK;
}

static int all_once(seen *s, int n)
{
    for (int i = 0; i < n; i++)
        if (atomic_load(&s->count[i]) != 1) return 0;
    for (int i = n; i < NMAX; i++)
        if (atomic_load(&s->count[i]) != 0) return 0;
    return 1;
}

static void reset(seen *s, int fail_at)
{
    for (int i = 0; i < NMAX; i++) atomic_init(&s->count[i], 0);
    s->fail_at = fail_at;
}

int main(void)
{
    static seen s;
    const int threads[] = {1, 3, 16, 100};
    for (int k = 0; k < 4; k++) {
        reset(&s, -1);
        CHECK(gs_parallel_items(257, threads[k], item, &s) == GS_OK && all_once(&s, 257), "items, %d threads",
              threads[k]);
        const int64_t n[] = {1, 255, 256, 257, 1000}, chunk[] = {1, 7, 256, 5000};
        for (int a = 0; a < 5; a++)
            for (int c = 0; c < 4; c++) {
                reset(&s, -1);
                CHECK(gs_parallel_ranges(n[a], chunk[c], threads[k], range, &s) == GS_OK && all_once(&s, (int)n[a]),
                      "ranges of %d over %d, %d threads", (int)chunk[c], (int)n[a], threads[k]);
            }
    }
    reset(&s, -1);
    CHECK(gs_parallel_ranges(0, 16, 4, range, &s) == GS_OK && all_once(&s, 0), "no ranges for n = 0");
    reset(&s, 512);
    CHECK(gs_parallel_ranges(1000, 256, 4, range, &s) == GS_ERR_ARG && strstr(gs_last_error(), "range at 512"),
          "a failing range's status and message");
    reset(&s, 40);
    CHECK(gs_parallel_items(100, 1, item, &s) == GS_ERR_ARG && strstr(gs_last_error(), "item 40"),
          "a failing item's status and message");
    TEST_END();
}
