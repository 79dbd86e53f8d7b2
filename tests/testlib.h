/* testlib.h — minimal test macros for the C unit/device tests. Each test program prints FAIL lines
 * with positions and ends with "RESULT <passed> <failed> <skipped>", which tests/run.sh sums. */
#ifndef GS_TESTLIB_H
#define GS_TESTLIB_H

#include <stdio.h>

static int t_pass, t_fail, t_skip;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (cond) {                                                              \
            t_pass++;                                                            \
        } else {                                                                 \
            t_fail++;                                                            \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);               \
            printf(__VA_ARGS__);                                                 \
            printf("\n");                                                        \
        }                                                                        \
    } while (0)

#define SKIP(...)                                                                \
    do {                                                                         \
        t_skip++;                                                                \
        printf("SKIP %s:%d: ", __FILE__, __LINE__);                              \
        printf(__VA_ARGS__);                                                     \
        printf("\n");                                                            \
    } while (0)

#define TEST_END()                                                               \
    do {                                                                         \
        printf("RESULT %d %d %d\n", t_pass, t_fail, t_skip);                     \
        return t_fail ? 1 : 0;                                                   \
    } while (0)

/* ../shared/datasets beside the checkout, or NULL (tests that need it then SKIP). */
static inline const char *test_datasets_dir(void)
{
    static const char *const cands[] = {"../shared/datasets", "../../shared/datasets"};
    for (unsigned i = 0; i < sizeof cands / sizeof cands[0]; i++) {
        FILE *f = fopen(cands[i], "r");
        if (f) { fclose(f); return cands[i]; }
    }
    return NULL;
}

#endif
