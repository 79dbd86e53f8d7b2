/* fuzz_range.c — libFuzzer harness of the range-file reader (range.h). The input is written to a
 * file and read with gs_range_read. For a file it accepts:
 *  - svm-scale reads the same: its two readings (the first pass's whole-line skips and
 *    fscanf("%d %*f %*f\n") for the largest index, the second pass's fscanf token stream), redone
 *    here with the C library's fscanf on the same bytes, succeed, consume the whole file, find the
 *    same largest index and give the same numbers bit for bit, in the same order;
 *  - what gpusvm writes it reads: the range written back with gs_range_write reads again to the same
 *    numbers, and writing that gives the same bytes.
 * Any broken promise aborts (a finding). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/range.h"
#include "fuzz_util.h"

#define PROMISE(cond, ...)                                             \
    do {                                                               \
        if (!(cond)) {                                                 \
            fprintf(stderr, "fuzz_range: " __VA_ARGS__);               \
            fprintf(stderr, "\n");                                     \
            abort();                                                   \
        }                                                              \
    } while (0)

/* Bitwise equality, every NaN equal to every NaN (the text keeps only the sign). */
static int same_num(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return memcmp(&a, &b, sizeof a) == 0;
}

static int same_range(const gs_range *a, const gs_range *b)
{
    if (a->has_y != b->has_y || a->n != b->n || a->max_index != b->max_index) return 0;
    if (a->has_y && !(same_num(a->y_lower, b->y_lower) && same_num(a->y_upper, b->y_upper) &&
                      same_num(a->y_min, b->y_min) && same_num(a->y_max, b->y_max)))
        return 0;
    if (!same_num(a->lower, b->lower) || !same_num(a->upper, b->upper)) return 0;
    for (int64_t i = 0; i < a->n; i++)
        if (a->f[i].index != b->f[i].index || !same_num(a->f[i].min, b->f[i].min) ||
            !same_num(a->f[i].max, b->f[i].max))
            return 0;
    return 1;
}

/* svm-scale's first reading: skips the header by whole lines, then the largest index. */
static int svm_scale_max_index(FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    int max_index = 0, idx;
    if (fgetc(f) == 'y') {
        for (int i = 0; i < 3; i++) (void)getline(&line, &cap, f);
    }
    for (int i = 0; i < 2; i++) (void)getline(&line, &cap, f);
    while (fscanf(f, "%d %*f %*f\n", &idx) == 1)
        if (idx > max_index) max_index = idx;
    free(line);
    return max_index;
}

/* svm-scale's second reading into r (features appended). @return 0, or -1 where svm-scale says
 * "failed to read scaling parameters" or leaves the x section unread */
static int svm_scale_values(FILE *f, gs_range *r)
{
    int c = fgetc(f);
    if (c == 'y') {
        if (fscanf(f, "%lf %lf\n", &r->y_lower, &r->y_upper) != 2 ||
            fscanf(f, "%lf %lf\n", &r->y_min, &r->y_max) != 2)
            return -1;
        r->has_y = 1;
    } else {
        ungetc(c, f);
    }
    if (fgetc(f) != 'x') return -1;
    if (fscanf(f, "%lf %lf\n", &r->lower, &r->upper) != 2) return -1;
    int idx;
    double lo, hi;
    int64_t cap = 0;
    while (fscanf(f, "%d %lf %lf\n", &idx, &lo, &hi) == 3) {
        if (r->n == cap) {
            cap = cap ? cap * 2 : 16;
            r->f = realloc(r->f, (size_t)cap * sizeof *r->f);
            PROMISE(r->f, "out of memory");
        }
        r->f[r->n++] = (gs_range_feature){idx, lo, hi};
        if (idx > r->max_index) r->max_index = idx;
    }
    return 0;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            char *nb = realloc(buf, cap);
            PROMISE(nb, "out of memory");
            buf = nb;
        }
        const size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    *len = n;
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = gs_fuzz_write(data, size);
    gs_range r = {0}, s = {0}, back = {0};
    if (gs_range_read(path, &r) != GS_OK) {
        PROMISE(r.f == NULL && r.n == 0, "a refused file left data behind");
        return 0;
    }
    PROMISE(size > 0, "an empty file was accepted");

    /* svm-scale reads the same numbers, all of the file */
    FILE *f = fmemopen((void *)data, size, "r");
    PROMISE(f, "fmemopen failed");
    const int max1 = svm_scale_max_index(f);
    rewind(f);
    PROMISE(svm_scale_values(f, &s) == 0, "accepted, but svm-scale fails to read it");
    PROMISE(fgetc(f) == EOF, "accepted, but svm-scale stops before the end");
    fclose(f);
    PROMISE(max1 == r.max_index, "svm-scale sizes its arrays for index %d, the file has %d", max1,
            (int)r.max_index);
    PROMISE(same_range(&r, &s), "svm-scale reads other numbers");

    /* written, read back, written again: the same bytes */
    const char *out = gs_fuzz_extra_path();
    PROMISE(gs_range_write(out, &r) == GS_OK, "an accepted range cannot be written: %s", gs_last_error());
    size_t len1 = 0, len2 = 0;
    char *text1 = slurp(out, &len1);
    PROMISE(text1, "the written file vanished");
    PROMISE(gs_range_read(out, &back) == GS_OK, "a written range cannot be read: %s", gs_last_error());
    PROMISE(same_range(&r, &back), "the written range reads back as other numbers");
    PROMISE(gs_range_write(out, &back) == GS_OK, "the read-back range cannot be written");
    char *text2 = slurp(out, &len2);
    PROMISE(text2 && len1 == len2 && memcmp(text1, text2, len1) == 0,
            "writing the read-back range gives other bytes (%zu vs %zu)", len1, len2);
    free(text1);
    free(text2);
    gs_range_free(&back);
    gs_range_free(&s);
    gs_range_free(&r);
    return 0;
}
