/* test_glibc_rand.c — util/glibc_rand.c gives glibc's rand() stream: the published first values of
 * srand(1) (compat §6.9: 1804289383, 846930886, ...) everywhere, and, on glibc, the C library's own
 * rand() for a million draws after srand(1) and after other seeds. */
#include <stdlib.h>

#include "testlib.h"
#include "util/glibc_rand.h"

int main(void)
{
    gs_glibc_rand g;
    gs_glibc_rand_init(&g, 1);
    const int32_t first[4] = {1804289383, 846930886, 1681692777, 1714636915};
    for (int i = 0; i < 4; i++) {
        const int32_t v = gs_glibc_rand_next(&g);
        CHECK(v == first[i], "draw %d: %d, expected %d", i, v, first[i]);
    }
#ifdef __GLIBC__
    const unsigned seeds[3] = {1, 0, 4294967295u};
    for (int s = 0; s < 3; s++) {
        srand(seeds[s]);
        gs_glibc_rand_init(&g, seeds[s]);
        int bad = -1;
        for (int i = 0; i < 1000000 && bad < 0; i++)
            if (rand() != gs_glibc_rand_next(&g)) bad = i;
        CHECK(bad < 0, "seed %u: differs from rand() at draw %d", seeds[s], bad);
    }
#else
    SKIP("not glibc: the comparison with the C library's rand() does not apply");
#endif
    TEST_END();
}
