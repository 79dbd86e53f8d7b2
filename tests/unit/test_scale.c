/* test_scale.c — gs_scaler (io/scale.h) gives the same answer however the file is cut and shared:
 * for each input (data/heart_scale, generated lines with odd tokens, falling and repeated
 * indices, index 0, indices past the workers' own arrays, NaN and -0 values that force the literal replay, a bad label, a negative
 * index) the summary, the saved range text, the scaled text and the nonzero count are compared
 * between one thread with whole chunks and 2..4 threads with chunks of 1..4096 bytes, so every
 * line crosses reads and chunk boundaries; the same for a restored range file; and a gzip copy and
 * a FIFO (copied to a temporary file while scanned) give the plain file's output. Agreement with
 * svm-scale itself is tests/cli/test_scale.sh's job. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "io/range.h"
#include "io/scale.h"
#include "testlib.h"

static char g_dir[64];

/* Writes text to g_dir/name. @return the path (static storage, one per name slot) */
static const char *put_file(const char *name, const char *text, size_t len)
{
    static char paths[8][128];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 128, "%s/%s", g_dir, name);
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
        perror(p);
        exit(2);
    }
    return p;
}

typedef struct result {
    gs_status scan_st, write_st;
    gs_scale_summary sum;
    char *ranges;  /* gs_range_format of gs_scaler_ranges */
    char *text;    /* pass 3 */
    size_t text_len;
    int64_t new_nnz;
    int64_t nwarn;
} result;

static void result_free(result *r)
{
    free(r->ranges);
    free(r->text);
    memset(r, 0, sizeof *r);
}

/* Runs the passes on path as gpusvm-scale does (restore when r is given). */
static result run(const char *path, int threads, size_t chunk, const gs_range *restore, gs_scale_param p)
{
    result res = {0};
    gs_scaler *sc = NULL;
    const gs_scale_opts o = {g_dir, threads, chunk};
    if (gs_scaler_open(path, &o, &sc) != GS_OK) {
        res.scan_st = GS_ERR_IO;
        return res;
    }
    res.scan_st = gs_scaler_scan(sc, restore ? restore->max_index : 0);
    if (res.scan_st == GS_OK) {
        res.sum = *gs_scaler_summary(sc);
        if (!res.sum.bad_label_line && !res.sum.neg_index_line) {
            if (restore) {
                int32_t *w = NULL;
                gs_scaler_restore(sc, restore, &p, &w, &res.nwarn);
                free(w);
            }
            gs_range rg;
            size_t len = 0;
            if (gs_scaler_ranges(sc, &p, &rg) == GS_OK) gs_range_format(&rg, &res.ranges, &len);
            gs_range_free(&rg);
            FILE *mem = open_memstream(&res.text, &res.text_len);
            res.write_st = gs_scaler_write(sc, &p, mem, &res.new_nnz);
            fclose(mem);
        }
    }
    gs_scaler_close(sc);
    return res;
}

static int same(const result *a, const result *b)
{
    return a->scan_st == b->scan_st && a->write_st == b->write_st && a->sum.lines == b->sum.lines &&
           a->sum.max_index == b->sum.max_index && a->sum.min_index == b->sum.min_index &&
           a->sum.nonzeros == b->sum.nonzeros && a->sum.bad_label_line == b->sum.bad_label_line &&
           a->sum.neg_index_line == b->sum.neg_index_line && a->sum.neg_index == b->sum.neg_index &&
           a->new_nnz == b->new_nnz && a->nwarn == b->nwarn && a->text_len == b->text_len &&
           (a->text_len == 0 || memcmp(a->text, b->text, a->text_len) == 0) &&
           ((!a->ranges && !b->ranges) || (a->ranges && b->ranges && strcmp(a->ranges, b->ranges) == 0));
}

/* The reference (1 thread, whole chunks) against cut and shared runs. */
static void check_cuts(const char *what, const char *path, const gs_range *restore, gs_scale_param p,
                       result *ref_out)
{
    static const struct { int threads; size_t chunk; } v[] = {{2, 1}, {3, 7}, {2, 64}, {4, 4096}, {1, 3}, {8, 0}};
    /* a file of millions of indices: two cuts are enough, each run fills arrays of ~100 MB */
    const size_t nv = strstr(what, "past 4M") ? 2 : sizeof v / sizeof v[0];
    result ref = run(path, 1, 0, restore, p);
    CHECK(ref.scan_st == GS_OK && ref.write_st == GS_OK, "%s: reference run failed (%s)", what, gs_last_error());
    for (size_t k = 0; k < nv; k++) {
        result r = run(path, v[k].threads, v[k].chunk, restore, p);
        CHECK(same(&ref, &r), "%s: %d threads, %zu-byte chunks differ from one whole-chunk thread", what,
              v[k].threads, v[k].chunk);
        result_free(&r);
    }
    if (ref_out) *ref_out = ref;
    else result_free(&ref);
}

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Lines like real data with, now and then, what svm-scale reads leniently. */
static char *gen_lines(uint64_t seed, int rows, size_t *len)
{
    static const char *odd[] = {"x", "1e400", "0x1p3", "inf", "1.5abc", "1e", "+.5", "1.",
                                "12345678901234567890", ":", "", "-", "00012", "2.5e-3"};
    size_t cap = (size_t)rows * 400 + 64, n = 0;
    char *t = malloc(cap);
    uint64_t s = seed | 1;
    for (int r = 0; r < rows; r++) {
        n += (size_t)snprintf(t + n, cap - n, "%s", rng(&s) % 2 ? "+1" : "-1");
        int idx = 0;
        const int k = (int)(rng(&s) % 12);
        for (int j = 0; j < k; j++) {
            idx += 1 + (int)(rng(&s) % 3);
            const unsigned c = (unsigned)(rng(&s) % 100);
            if (c < 80) n += (size_t)snprintf(t + n, cap - n, " %d:%.6g", idx, (double)(int)(rng(&s) % 20001 - 10000) / 997.0);
            else if (c < 90) n += (size_t)snprintf(t + n, cap - n, " %d:%s", idx, odd[rng(&s) % 14]);
            else if (c < 95) n += (size_t)snprintf(t + n, cap - n, "\t%d:%d", (int)(rng(&s) % (unsigned)(idx + 1)), (int)(rng(&s) % 9));
            else n += (size_t)snprintf(t + n, cap - n, " %d: %d", idx, (int)(rng(&s) % 9));
        }
        n += (size_t)snprintf(t + n, cap - n, "%s\n", rng(&s) % 20 == 0 ? " \r" : "");
    }
    *len = n;
    return t;
}

static void *fifo_writer(void *arg)
{
    const char **a = arg;
    FILE *f = fopen(a[0], "wb");
    if (f) {
        fwrite(a[1], 1, strlen(a[1]), f);
        fclose(f);
    }
    return NULL;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    *len = fread(b, 1, (size_t)n, f);
    b[*len] = '\0';
    fclose(f);
    return b;
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/gstscaleXXXXXX");
    if (!mkdtemp(g_dir)) return 2;
    const gs_scale_param def = {-1, 1, 0, 0, 0}, l0y = {0, 1, 1, -1, 1};

    size_t hlen = 0;
    char *heart = slurp("data/heart_scale", &hlen);
    if (!heart) SKIP("data/heart_scale not found (run from the repository root)");
    else {
        const char *hp = put_file("heart", heart, hlen);
        check_cuts("heart default", hp, NULL, def, NULL);
        check_cuts("heart -l 0 -y -1 1", hp, NULL, l0y, NULL);
        /* gzip: the plain file's output */
        char gzp[128];
        snprintf(gzp, sizeof gzp, "%s/heart.gz", g_dir);
        gzFile gz = gzopen(gzp, "wb");
        gzwrite(gz, heart, (unsigned)hlen);
        gzclose(gz);
        result a = run(hp, 1, 0, NULL, def), b = run(gzp, 2, 5, NULL, def);
        CHECK(a.scan_st == GS_OK && same(&a, &b), "gzip input differs from plain");
        result_free(&b);
        /* a FIFO is read once and copied while scanned */
        char fifo[128];
        snprintf(fifo, sizeof fifo, "%s/fifo", g_dir);
        if (mkfifo(fifo, 0600) == 0) {
            pthread_t t;
            const char *args[2] = {fifo, heart};
            pthread_create(&t, NULL, fifo_writer, args);
            b = run(fifo, 2, 100, NULL, def);
            pthread_join(t, NULL);
            CHECK(same(&a, &b), "FIFO input differs from the file");
            result_free(&b);
            unlink(fifo);
        }
        result_free(&a);
    }
    free(heart);

    for (uint64_t seed = 1; seed <= 6; seed++) {
        size_t len;
        char *t = gen_lines(seed, 300, &len);
        const char *gp = put_file("gen", t, len);
        char what[64];
        snprintf(what, sizeof what, "generated %d", (int)seed);
        result ref;
        check_cuts(what, gp, NULL, seed % 2 ? def : l0y, &ref);
        /* its range file restored onto other generated lines */
        gs_range rg;
        if (ref.ranges && gs_range_parse(ref.ranges, strlen(ref.ranges), "r", &rg) == GS_OK) {
            char *t2 = gen_lines(seed + 100, 200, &len);
            const char *gp2 = put_file("gen2", t2, len);
            snprintf(what, sizeof what, "generated %d restored", (int)seed);
            check_cuts(what, gp2, &rg, def, NULL);
            free(t2);
        } else {
            CHECK(0, "%s: its range text does not read back: %s", what, gs_last_error());
        }
        gs_range_free(&rg);
        result_free(&ref);
        free(t);
    }

    static const char *cases[][2] = {
        {"falling and repeated", "1 3:1 2:5 2:6\n2 1:2 2:3 3:7\n3 5:1 1:1\n-1 2:2 2:2 4:4\n"},
        {"index 0", "1 0:3 1:1\n2 0:1 1:2 3:1\n"},
        {"NaN values", "1 1:2\n2 1:nan 2:3\n3 1:3 2:nan\n4 2:1\n"},
        {"-0 values", "1 1:-0 2:0\n2 2:-0\n-0 1:0 3:1\n0 1:1\n"},
        {"NaN label", "nan 1:2\n2 1:1\n-0 1:3\n"},
        {"bad label", "1 1:1\n2 1:2\nx 1:3\n4 1:4\n\n"},
        {"negative index", "1 1:1\n2 1:2\n3 -1:3\n"},
        {"empty", ""},
        {"no newline at the end", "1 1:1 2:2\n2 1:3 2:1"},
        {"labels only", "1\n2\n3\n"},
        /* past the workers' own arrays (4194304 indices): logged, folded on the calling thread */
        {"indices past 4M", "1 1:1 4194303:2 4194304:3 5000000:4\n2 4194304:1 4194305:2\n"
                            "3 5000000:1 4194304:2 1:3\n-1 4194310:5 4194310:6\n4 4194306:-1\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *cp = put_file("case", cases[k][1], strlen(cases[k][1]));
        check_cuts(cases[k][0], cp, NULL, k % 2 ? def : l0y, NULL);
    }
    result r = run(put_file("bad", "1 1:1\n2 1:2\nx 1:3\n", 18), 2, 1, NULL, def);
    CHECK(r.sum.bad_label_line == 3, "bad label at line %lld, want 3", (long long)r.sum.bad_label_line);
    result_free(&r);
    r = run(put_file("neg", "1 1:1\n2 1:2\n3 -1:3\n", 19), 3, 2, NULL, def);
    CHECK(r.sum.neg_index_line == 3 && r.sum.neg_index == -1, "negative index at line %lld",
          (long long)r.sum.neg_index_line);
    result_free(&r);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) printf("could not remove %s\n", g_dir);
    TEST_END();
}
