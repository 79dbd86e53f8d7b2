/* fuzz_data.c — libFuzzer harness of the LIBSVM data reader (data.h). The input is written to a
 * file and read twice: whole with gs_data_read, and in chunks of 1..5 rows (by the input's size)
 * with gs_data_stream_open/next (a gzip input inflated on threads for some sizes, io/pinflate.c). Both must give the same rows, labels, indices and values (bit for
 * bit), or the same status and message; any difference aborts (a finding). The sanitizers catch
 * the rest: memory errors, leaks, undefined behaviour. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/data.h"
#include "fuzz_util.h"

/* A difference between the two readings: print what differs and abort so libFuzzer keeps the
 * input. */
#define AGREE(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "fuzz_data: whole and chunked reads disagree: " __VA_ARGS__); \
            fprintf(stderr, "\n");                                                        \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = gs_fuzz_write(data, size);
    gs_problem whole = {0}, chunk = {0};
    gs_data_stream *s = NULL;
    char whole_msg[512];

    /* for a quarter of the inputs, a gzip one is inflated on threads and parsed in pieces */
    const gs_data_opts wo = {.inflate_threads = size % 4 == 1 ? 3 : 0,
                             .inflate_chunk = 64 + size % 997,
                             .block_bytes = size % 4 == 1 ? 100 + size % 5000 : 0};
    const gs_status st_whole = gs_data_read_with(path, &wo, &whole);
    snprintf(whole_msg, sizeof whole_msg, "%s", gs_last_error());
    if (st_whole == GS_OK) {
        /* CSR invariants the solver and predictor rely on */
        AGREE(whole.row_ptr[0] == 0 && whole.row_ptr[whole.l] == whole.nnz, "row_ptr ends");
        for (int32_t i = 0; i < whole.l; i++) {
            AGREE(whole.row_ptr[i] <= whole.row_ptr[i + 1], "row_ptr not ascending at row %d", (int)i);
            for (int64_t k = whole.row_ptr[i]; k < whole.row_ptr[i + 1]; k++) {
                AGREE(whole.idx[k] >= 0 && whole.idx[k] <= whole.max_index, "index out of range");
                AGREE(k == whole.row_ptr[i] || whole.idx[k] > whole.idx[k - 1], "indices not ascending");
            }
        }
    }

    const int32_t rows_per_chunk = (int32_t)(1 + size % 5);
    /* small input blocks for some inputs: every token also meets a block boundary */
    /* and, for half of them, gzip inflated on two threads in small chunks (io/pinflate.c) */
    const gs_data_opts o = {.block_bytes = size % 3 ? 0 : 1 + size % 61,
                            .inflate_threads = size % 2 ? 2 : -1, .inflate_chunk = 64 + size % 997};
    gs_status st = gs_data_stream_open(path, &o, &s);
    AGREE(st == GS_OK, "stream open failed: %s", gs_last_error());
    int32_t row = 0;
    int64_t nnz = 0;
    int32_t max_index = 0;
    for (;;) {
        st = gs_data_stream_next(s, rows_per_chunk, &chunk);
        if (st != GS_OK) break;
        if (chunk.l == 0) break;
        AGREE(chunk.l <= rows_per_chunk, "chunk of %d rows, asked for %d", (int)chunk.l, (int)rows_per_chunk);
        if (chunk.max_index > max_index) max_index = chunk.max_index;
        if (st_whole != GS_OK) continue; /* the stream must fail later, at the same line */
        AGREE(row + chunk.l <= whole.l, "more rows chunked than whole (%d)", (int)whole.l);
        for (int32_t i = 0; i < chunk.l; i++, row++) {
            AGREE(memcmp(&chunk.y[i], &whole.y[row], sizeof(double)) == 0, "label of row %d", (int)row);
            const int64_t n = chunk.row_ptr[i + 1] - chunk.row_ptr[i];
            AGREE(n == whole.row_ptr[row + 1] - whole.row_ptr[row], "pairs of row %d", (int)row);
            const int64_t a = chunk.row_ptr[i], b = whole.row_ptr[row];
            AGREE(n == 0 || memcmp(chunk.idx + a, whole.idx + b, (size_t)n * sizeof *chunk.idx) == 0,
                  "indices of row %d", (int)row);
            AGREE(n == 0 || memcmp(chunk.val + a, whole.val + b, (size_t)n * sizeof *chunk.val) == 0,
                  "values of row %d", (int)row);
            nnz += n;
        }
    }
    if (st_whole == GS_OK) {
        AGREE(st == GS_OK, "chunked read failed (%s) where the whole read did not", gs_last_error());
        AGREE(row == whole.l && nnz == whole.nnz && max_index == whole.max_index,
              "totals: rows %d/%d nnz %lld/%lld max_index %d/%d", (int)row, (int)whole.l,
              (long long)nnz, (long long)whole.nnz, (int)max_index, (int)whole.max_index);
    } else {
        AGREE(st == st_whole, "status %d chunked, %d whole (%s)", (int)st, (int)st_whole, whole_msg);
        AGREE(strcmp(gs_last_error(), whole_msg) == 0, "message [%s] chunked, [%s] whole",
              gs_last_error(), whole_msg);
        /* a failed stream repeats its error */
        AGREE(gs_data_stream_next(s, rows_per_chunk, &chunk) == st_whole, "error not sticky");
    }
    gs_data_stream_close(s);
    gs_problem_free(&chunk);
    gs_problem_free(&whole);
    return 0;
}
