/* readbench.c — times gs_data_read on one file and prints the rate. Built and run by
 * scripts/bench-reader.sh; by hand:
 *   cc -std=c11 -O2 -D_DEFAULT_SOURCE -Isrc scripts/readbench.c src/io/data.c src/io/pinflate.c \
 *      src/io/deflate.c src/util/status.c src/util/parallel.c -lz -lpthread -o rb
 *   ./rb FILE [TEXT_BYTES] [REPEATS] [INFLATE_THREADS]
 * TEXT_BYTES is the size of the decompressed text (default: the file's size, 0 too), so a gzip
 * file's rate is reported in MB of text per second. The best of REPEATS runs (default 3) is
 * printed. INFLATE_THREADS (gs_data_opts.inflate_threads): 0 (default) as gpusvm-train reads,
 * -1 zlib on one thread, N > 0 a gzip file inflated on N threads whatever the cores. */
#include "io/data.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [TEXT_BYTES] [REPEATS]\n", argv[0]);
        return 2;
    }
    struct stat sb;
    if (stat(argv[1], &sb) != 0) {
        fprintf(stderr, "can't open input file %s\n", argv[1]);
        return 1;
    }
    const double given = argc > 2 ? strtod(argv[2], NULL) : 0;
    const double bytes = given > 0 ? given : (double)sb.st_size;
    const int repeats = argc > 3 ? atoi(argv[3]) : 3;
    const gs_data_opts o = {.inflate_threads = argc > 4 ? atoi(argv[4]) : 0};
    double best = 0;
    gs_problem p = {0};
    for (int r = 0; r < repeats; r++) {
        gs_problem_free(&p);
        const double t0 = now();
        const gs_status st = gs_data_read_with(argv[1], &o, &p);
        const double dt = now() - t0;
        if (st != GS_OK) {
            fprintf(stderr, "%s\n", gs_last_error());
            return 1;
        }
        if (r == 0 || dt < best) best = dt;
        printf("run %d: %.3f s\n", r + 1, dt);
    }
    printf("%s (inflate threads %d): %d rows, %lld nonzeros, max_index %d, %.1f MB text (%.1f MB "
           "file) in %.3f s: %.0f MB/s\n",
           argv[1], o.inflate_threads, p.l, (long long)p.nnz, p.max_index, bytes / 1e6, (double)sb.st_size / 1e6, best,
           bytes / 1e6 / best);
    gs_problem_free(&p);
    return 0;
}
