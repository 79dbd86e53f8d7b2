/* test_data.c — the LIBSVM data reader: every golden bad-input case (accept, or LIBSVM's exact
 * message), CSR contents, gzip = plain, stdin and pipes, the chunked stream API with line numbers
 * across chunk and block boundaries, the decimal fast path against (float)strtod, and heart_scale.
 * Run from the repository root; cases that need ../shared SKIP when it is absent. */
#include "io/data.h"
#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char g_tmp[64]; /* temp dir of this run */

static const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_tmp, name);
    return buf[k];
}

static void write_file(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) { printf("FAIL cannot write %s\n", path); exit(1); }
    if (n) fwrite(data, 1, n, f);
    fclose(f);
}

static void write_gz(const char *path, const char *data, size_t n, int members)
{
    FILE *f = fopen(path, "wb");
    if (!f) { printf("FAIL cannot write %s\n", path); exit(1); }
    size_t done = 0;
    for (int m = 0; m < members; m++) {
        const size_t part = m == members - 1 ? n - done : n / (size_t)members;
        z_stream z;
        memset(&z, 0, sizeof z);
        deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
        const uLong bound = deflateBound(&z, (uLong)part);
        unsigned char *out = malloc(bound);
        z.next_in = (unsigned char *)(uintptr_t)(data + done);
        z.avail_in = (unsigned)part;
        z.next_out = out;
        z.avail_out = (unsigned)bound;
        deflate(&z, Z_FINISH);
        fwrite(out, 1, bound - z.avail_out, f);
        deflateEnd(&z);
        free(out);
        done += part;
    }
    fclose(f);
}

static char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap + 1);
    size_t r;
    while ((r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) { cap *= 2; buf = realloc(buf, cap + 1); }
    }
    fclose(f);
    buf[len] = '\0';
    if (n) *n = len;
    return buf;
}

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Exact equality, values bitwise (NaN payloads included). */
static int same_problem(const gs_problem *a, const gs_problem *b)
{
    if (a->l != b->l || a->nnz != b->nnz || a->max_index != b->max_index) return 0;
    if (a->l && memcmp(a->y, b->y, (size_t)a->l * sizeof *a->y)) return 0;
    if (memcmp(a->row_ptr, b->row_ptr, (size_t)(a->l + 1) * sizeof *a->row_ptr)) return 0;
    if (a->nnz && memcmp(a->idx, b->idx, (size_t)a->nnz * sizeof *a->idx)) return 0;
    if (a->nnz && memcmp(a->val, b->val, (size_t)a->nnz * sizeof *a->val)) return 0;
    return 1;
}

static gs_status read_text(const char *name, const char *text, gs_problem *p)
{
    const char *path = tmp_path(name);
    write_file(path, text, strlen(text));
    return gs_data_read(path, p);
}

/* ---- golden bad-input matrix ---------------------------------------------------------------- */

static void test_golden_badinput(void)
{
    const char *dir = "../shared/reference/golden/badinput";
    char path[512];
    snprintf(path, sizeof path, "%s/transcript.txt", dir);
    char *tr = read_all(path, NULL);
    if (!tr) {
        SKIP("no %s (../shared absent): golden bad-input cases not run", path);
        return;
    }
    int cases = 0;
    for (char *line = strtok(tr, "\n"); line; line = strtok(NULL, "\n")) {
        char name[128];
        if (sscanf(line, "### [train_%127[^]]]", name) != 1) continue;
        /* the data file is the argument ending in .txt */
        char file[128] = "";
        const char *dollar = strstr(line, "$ ");
        char args[512];
        snprintf(args, sizeof args, "%s", dollar ? dollar + 2 : "");
        char *save = NULL;
        for (char *w = strtok_r(args, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            const size_t n = strlen(w);
            if (n > 4 && strcmp(w + n - 4, ".txt") == 0) snprintf(file, sizeof file, "%s", w);
        }
        if (!file[0]) {
            CHECK(0, "train_%s: no data file in the transcript line", name);
            continue;
        }
        snprintf(path, sizeof path, "%s/train_%s.rc", dir, name);
        char *rc_text = read_all(path, NULL);
        snprintf(path, sizeof path, "%s/train_%s.stderr", dir, name);
        char *err_text = read_all(path, NULL);
        if (!rc_text || !err_text) {
            CHECK(0, "train_%s: missing .rc or .stderr", name);
            free(rc_text);
            free(err_text);
            continue;
        }
        const int rc = atoi(rc_text);
        snprintf(path, sizeof path, "%s/%s", dir, file);
        gs_problem p = {0};
        gs_clear_error();
        const gs_status st = gs_data_read(path, &p);
        if (strcmp(file, "label_inf.txt") == 0 || strcmp(file, "label_nan.txt") == 0) {
            /* svm-train accepts a NaN or infinite label and writes a meaningless model; we stop
             * with LIBSVM's message for the line and the reason below it, on purpose */
            CHECK(rc == 0 && st == GS_ERR_FORMAT &&
                      strncmp(gs_last_error(), "Wrong input format at line 3\nlabel ", 35) == 0 &&
                      strstr(gs_last_error(), "is not a finite number"),
                  "train_%s (%s): want the label refused, got status %d \"%s\"", name, file,
                  (int)st, gs_last_error());
        } else if (rc == 1) {
            char want[256];
            snprintf(want, sizeof want, "%s", err_text);
            want[strcspn(want, "\n")] = '\0';
            CHECK(st == GS_ERR_FORMAT && strcmp(gs_last_error(), want) == 0,
                  "train_%s (%s): want \"%s\", got status %d \"%s\"", name, file, want, (int)st,
                  gs_last_error());
            CHECK(p.l == 0 && p.y == NULL && p.row_ptr == NULL && p.idx == NULL,
                  "train_%s: problem not empty after an error", name);
        } else {
            /* 0, or a crash later in training (empty file with -v): the reader accepts */
            CHECK(st == GS_OK, "train_%s (%s): rejected: %s", name, file, gs_last_error());
        }
        gs_problem_free(&p);
        free(rc_text);
        free(err_text);
        cases++;
    }
    free(tr);
    CHECK(cases >= 50, "only %d golden train cases found", cases);

    /* a few cases' contents, from compat §1.4 */
    gs_problem p = {0};
    snprintf(path, sizeof path, "%s/index_huge_4294967297.txt", dir);
    if (gs_data_read(path, &p) == GS_OK) {
        CHECK(p.l == 4 && p.row_ptr[3] - p.row_ptr[2] == 1 && p.idx[p.row_ptr[2]] == 1,
              "4294967297 must wrap to index 1");
    } else {
        CHECK(0, "index_huge_4294967297: %s", gs_last_error());
    }
    gs_problem_free(&p);
    snprintf(path, sizeof path, "%s/empty_file.txt", dir);
    CHECK(gs_data_read(path, &p) == GS_OK && p.l == 0 && p.nnz == 0 && p.max_index == 0 &&
              p.row_ptr && p.row_ptr[0] == 0,
          "empty file: 0 rows, row_ptr[0] = 0");
    gs_problem_free(&p);
}

/* ---- CSR contents and borderline inputs ----------------------------------------------------- */

static void test_csr_small(void)
{
    const char *text = "+1 1:0.5 3:-2\n"
                       "-1\n"
                       "  2\t0:1e1 \t 4294967297:0x10 7:-0\r\n"
                       "3 2:.25 5:1.5e-3 # note\n"
                       "-7e0 1:nan 2:-inf 3:+7. 2147483647:3.4028235e38";
    gs_problem p = {0};
    const gs_status st = read_text("small.txt", text, &p);
    CHECK(st == GS_OK, "small file: %s", gs_last_error());
    if (st != GS_OK) return;
    CHECK(p.l == 5 && p.nnz == 11 && p.max_index == 2147483647, "l %d nnz %lld max %d", p.l,
          (long long)p.nnz, p.max_index);
    const int64_t rp[] = {0, 2, 2, 5, 7, 11};
    const int32_t ix[] = {1, 3, 0, 1, 7, 2, 5, 1, 2, 3, 2147483647};
    const double y[] = {1, -1, 2, 3, -7};
    for (int i = 0; i <= 5 && p.l == 5; i++) CHECK(p.row_ptr[i] == rp[i], "row_ptr[%d] %lld", i, (long long)p.row_ptr[i]);
    for (int i = 0; i < 5 && p.l == 5; i++) CHECK(p.y[i] == y[i], "y[%d] = %g", i, p.y[i]);
    for (int i = 0; i < 11 && p.nnz == 11; i++) CHECK(p.idx[i] == ix[i], "idx[%d] = %d", i, p.idx[i]);
    if (p.nnz == 11) {
        CHECK(p.val[0] == 0.5f && p.val[1] == -2.0f && p.val[2] == 10.0f && p.val[3] == 16.0f,
              "values of rows 0 and 2");
        CHECK(p.val[4] == 0.0f && signbit(p.val[4]), "-0 stays negative zero");
        CHECK(p.val[5] == 0.25f && p.val[6] == (float)1.5e-3, "values of row 3");
        CHECK(isnan(p.val[7]) && isinf(p.val[8]) && p.val[8] < 0 && p.val[9] == 7.0f,
              "nan, -inf, +7.");
        CHECK(p.val[10] == FLT_MAX, "3.4028235e38 is FLT_MAX: %a", (double)p.val[10]);
    }
    gs_problem_free(&p);
    CHECK(p.y == NULL && p.l == 0, "gs_problem_free zeroes");
    gs_problem_free(NULL);
}

/* Each verified against Debian's svm-train 3.24. bad_line 0: accepted. why: NULL for LIBSVM's bare
 * message, else a text the second line of ours must hold (where we refuse what LIBSVM accepts). */
typedef struct { const char *text; int bad_line; const char *why; } edge_case;

static const edge_case edge_cases[] = {
    {"+1 1:0.5\n-1 1:", 0, NULL},                /* "1:" at EOF without newline: no value token */
    {"+1 1:0.5\n-1 1:\n", 2, NULL},              /* ... with a newline: value token "\n" */
    {"+1 1:0.5\n-1 1:  ", 0, NULL},
    {"+1 1:0.5\n-1 1:\r\n", 2, NULL},
    {"+1 1:0.5 :2:3\n-1 1:1\n", 0, NULL},        /* strtok skips leading ':' of the index */
    {"+1 ::1:0.5\n-1 1:1\n", 0, NULL},
    {"+1 1:0.5\v2:3\n-1 1:1\n", 0, NULL},        /* \v ends the number; rest of the token ignored */
    {"+1 1:\v0.5\n-1 1:1\n", 0, NULL},           /* strtod skips the leading \v */
    {"\v+1 1:0.5\n-1 1:1\n", 0, NULL},
    {"+1 1:0.5 abc:", 0, NULL},                   /* index garbage, but no value token */
    {"+1 1:0.5 abc:\n", 1, NULL},
    {"+1 1:1e-310\n", 1, NULL},                   /* subnormal: ERANGE */
    /* svm-train takes 1e39 as a double; a float cannot hold it (it became inf and the model
     * rho nan): refused with the reason. The largest value that rounds to FLT_MAX is taken. */
    {"+1 1:1e39\n-1 1:1\n", 1, "value 1e+39 of index 1 does not fit in single precision"},
    {"+1 1:0.5 7:-1e39\n", 1, "value -1e+39 of index 7 does not fit in single precision"},
    {"+1 1:3.4028235e38\n-1 1:-3.4028235e38\n", 0, NULL},
    {"+1 1:3.4028236e38\n", 1, "does not fit in single precision"},
    {"+1 1:0x1p128\n", 1, "does not fit in single precision"},
    /* exactly halfway between FLT_MAX and 2^128 as a double: (float) rounds it to inf */
    {"+1 2147483647:3.4028235677973366e38\n", 1, "does not fit in single precision"},
    {"+1 1:1e-50\n", 0, NULL},                    /* a float rounds it to 0: a rounding, accepted */
    {"+1 1:inf 2:-inf 3:nan\n", 0, NULL},          /* written as such: kept, as in LIBSVM */
    {"+1 1:0.5 :\n-1 1:1\n", 0, NULL},
    {"+1 -0:1 1:2\n-1 1:1\n", 0, NULL},           /* -0 is index 0 */
    {"+1 1:0.5\n-1\t\n", 0, NULL},
    {"1e-400 1:1\n", 0, NULL},                    /* labels: no errno check */
    /* non-finite labels: svm-train accepts them; we refuse them (train_label_inf above) */
    {"1e400 1:1\n", 1, "label inf is not a finite number"},
    {"+1 1:1\n-inf 1:1\n", 2, "label -inf is not a finite number"},
    {"+1 1:1\nnan\n", 2, "label nan is not a finite number"},
    {"+1 1:1\n\v-nan 1:1", 2, "label -nan is not a finite number"},
    {"+1 1:1 1:2\n", 1, NULL},
    {"+1 2:1 1:2\n", 1, NULL},
    {"+1 1:1 0:2\n", 1, NULL},                    /* 0 only as the first index */
    {"+1 +0:1\n", 0, NULL},
    {"+1 1:0.5.5\n", 1, NULL},
    {"+1 1:-\n", 1, NULL},
    {"+1 1:.\n", 1, NULL},
    {"+1 1:5.\n", 0, NULL},
    {"+1 1:0x\n", 1, NULL},                       /* strtod stops at x */
    {"+1 1:1e\n", 1, NULL},
    {"+1 1:1e5\n", 0, NULL},
    {"+1 1:0.000000000000000000000000000000000000001\n", 0, NULL},
    {"+1 1:12345678901234567890123\n", 0, NULL},
    {"+1 9223372036854775807:1\n", 1, NULL},      /* fits long, wraps to -1 */
    {"+1 9223372036854775808:1\n", 1, NULL},      /* overflows long */
    {"+1 000000000000000000000000001:1\n", 0, NULL},
    {"+1 1:1 2\n", 0, NULL},
    {"+1 1:1 2 \n", 0, NULL},
    {"+1 1:1\t2\t3:4\n", 1, NULL},
    {"+1 1:1 2:\t\n", 1, NULL},
    {"a\n", 1, NULL},
    {"\n\n", 1, NULL},
    {" \t \n", 1, NULL},
    {"+1 1:1\n\n", 2, NULL},
    {"+1 1:1\n-1 1:1\n \n+1 1:1", 3, NULL},
    {"+1 1:1\r", 0, NULL},
    {"+1\r", 1, NULL},
    {"+1\n+1\n+1\n+1\n+1\n+1 1:1 1:1", 6, NULL},
};

static void test_edges(void)
{
    const edge_case *const cases = edge_cases;
    for (size_t i = 0; i < sizeof edge_cases / sizeof edge_cases[0]; i++) {
        gs_problem p = {0};
        gs_clear_error();
        const gs_status st = read_text("edge.txt", cases[i].text, &p);
        if (cases[i].bad_line == 0) {
            CHECK(st == GS_OK, "edge case %zu should be accepted: %s", i, gs_last_error());
        } else if (!cases[i].why) {
            char want[64];
            snprintf(want, sizeof want, "Wrong input format at line %d", cases[i].bad_line);
            CHECK(st == GS_ERR_FORMAT && strcmp(gs_last_error(), want) == 0,
                  "edge case %zu: want \"%s\", got \"%s\"", i, want, gs_last_error());
        } else {
            char want[64];
            snprintf(want, sizeof want, "Wrong input format at line %d\n", cases[i].bad_line);
            CHECK(st == GS_ERR_FORMAT && strncmp(gs_last_error(), want, strlen(want)) == 0 &&
                      strstr(gs_last_error() + strlen(want), cases[i].why),
                  "edge case %zu: want \"%s%s\", got \"%s\"", i, want, cases[i].why,
                  gs_last_error());
        }
        gs_problem_free(&p);
    }

    /* a NUL byte inside a token is rejected */
    gs_problem p = {0};
    const char nul[] = "+1 1:0.5\n-1 1:0\0.5\n";
    write_file(tmp_path("nul.txt"), nul, sizeof nul - 1);
    CHECK(gs_data_read(tmp_path("nul.txt"), &p) == GS_ERR_FORMAT &&
              strcmp(gs_last_error(), "Wrong input format at line 2") == 0,
          "NUL in a value: %s", gs_last_error());
    gs_problem_free(&p);

    /* unopenable inputs */
    CHECK(gs_data_read("/nonexistent/file", &p) == GS_ERR_IO &&
              strcmp(gs_last_error(), "can't open input file /nonexistent/file") == 0,
          "missing file: %s", gs_last_error());
    CHECK(gs_data_read(g_tmp, &p) == GS_ERR_IO, "a directory is not an input file");
    gs_problem_free(&p);
}

/* ---- the decimal fast path must equal (float)strtod ----------------------------------------- */

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_number_exactness(void)
{
    enum { N = 200000 };
    size_t cap = (size_t)N * 48, len = 0;
    char *text = malloc(cap);
    char (*tok)[40] = malloc(sizeof *tok * N);
    for (int i = 0; i < N; i++) {
        /* random digit strings of every length the fast path takes and some it does not */
        const int intd = (int)(rng() % 12), fracd = (int)(rng() % 24);
        char *t = tok[i];
        int k = 0;
        if (rng() % 3 == 0) t[k++] = '-';
        for (int d = 0; d < intd; d++) t[k++] = (char)('0' + rng() % 10);
        if (fracd || intd == 0) {
            t[k++] = '.';
            for (int d = 0; d < fracd || (intd == 0 && d == 0); d++) t[k++] = (char)('0' + rng() % 10);
        }
        t[k] = '\0';
        len += (size_t)snprintf(text + len, cap - len, "%s 1:%s\n", i % 2 ? "1" : "-1", t);
    }
    write_file(tmp_path("numbers.txt"), text, len);
    gs_problem p = {0};
    const gs_status st = gs_data_read(tmp_path("numbers.txt"), &p);
    CHECK(st == GS_OK && p.l == N && p.nnz == N, "numbers file: %s", gs_last_error());
    int bad = 0;
    for (int i = 0; st == GS_OK && i < N; i++) {
        const float want = (float)strtod(tok[i], NULL);
        if (memcmp(&want, &p.val[i], sizeof want) != 0 && bad++ < 5)
            CHECK(0, "value \"%s\": got %a want %a", tok[i], (double)p.val[i], (double)want);
    }
    CHECK(bad == 0, "%d values differ from (float)strtod", bad);
    gs_problem_free(&p);
    free(text);
    free(tok);
}

/* ---- gzip, stdin, pipes --------------------------------------------------------------------- */

/* A few MB of varied rows, so that several internal blocks are used. */
static char *make_text(int rows, size_t *n)
{
    size_t cap = (size_t)rows * 200 + 64, len = 0;
    char *t = malloc(cap);
    for (int r = 0; r < rows; r++) {
        len += (size_t)snprintf(t + len, cap - len, "%d", (int)(rng() % 3) - 1);
        int idx = 0;
        const int k = (int)(rng() % 12);
        for (int j = 0; j < k; j++) {
            idx += 1 + (int)(rng() % 9);
            len += (size_t)snprintf(t + len, cap - len, " %d:%.6g", idx,
                                    ((double)(rng() % 2000001) - 1000000.0) / 999983.0);
        }
        t[len++] = '\n';
    }
    t[len] = '\0';
    *n = len;
    return t;
}

typedef struct { int fd; const char *data; size_t n; } writer_arg;

static void *pipe_writer(void *a)
{
    const writer_arg *w = a;
    size_t off = 0;
    while (off < w->n) { /* small, uneven writes: the reader sees short reads mid-line */
        size_t step = 1 + (size_t)(rng() % 70000);
        if (step > w->n - off) step = w->n - off;
        const ssize_t r = write(w->fd, w->data + off, step);
        if (r <= 0) break;
        off += (size_t)r;
    }
    close(w->fd);
    return NULL;
}

/* gs_data_read("-") with standard input fed from data through a pipe. */
static gs_status read_stdin_pipe(const char *data, size_t n, gs_problem *p)
{
    int fds[2];
    if (pipe(fds) != 0) return GS_ERR_IO;
    const int saved = dup(0);
    dup2(fds[0], 0);
    close(fds[0]);
    writer_arg w = {fds[1], data, n};
    pthread_t th;
    pthread_create(&th, NULL, pipe_writer, &w);
    const gs_status st = gs_data_read("-", p);
    pthread_join(th, NULL);
    dup2(saved, 0);
    close(saved);
    return st;
}

/* The whole file through the stream API with inflate_threads (io/pinflate.c when > 0). */
static gs_status read_inflating(const char *path, int threads, gs_problem *p, char *msg, size_t cap)
{
    const gs_data_opts o = {.inflate_threads = threads};
    gs_data_stream *s = NULL;
    memset(p, 0, sizeof *p);
    gs_status st = gs_data_stream_open(path, &o, &s);
    if (st == GS_OK) st = gs_data_stream_next(s, INT32_MAX, p);
    snprintf(msg, cap, "%s", st == GS_OK ? "" : gs_last_error());
    gs_data_stream_close(s);
    return st;
}

/* Read on threads as read by zlib alone: the same problem, or the same error and message. */
static void check_threads_same(const char *path, const char *what)
{
    gs_problem a = {0}, b = {0};
    char ma[512], mb[512];
    const gs_status sa = read_inflating(path, -1, &a, ma, sizeof ma);
    for (int t = 1; t <= 4; t += 3) {
        const gs_status sb = read_inflating(path, t, &b, mb, sizeof mb);
        CHECK(sa == sb && strcmp(ma, mb) == 0 && (sa != GS_OK || same_problem(&a, &b)),
              "%s inflated on %d threads: status %d '%s', by zlib alone %d '%s'", what, t, (int)sb,
              mb, (int)sa, ma);
        gs_problem_free(&b);
        /* the whole-file read: inflated on threads, parsed in pieces (small segments, so that
         * lines are carried over and a long one grows the segment) */
        for (size_t seg = 0; seg <= 70000; seg += 70000 - 999) {
            const gs_data_opts o = {.inflate_threads = t, .inflate_chunk = 30000, .block_bytes = seg};
            const gs_status sc = gs_data_read_with(path, &o, &b);
            snprintf(mb, sizeof mb, "%s", sc == GS_OK ? "" : gs_last_error());
            CHECK(sa == sc && strcmp(ma, mb) == 0 && (sa != GS_OK || same_problem(&a, &b)),
                  "%s read whole on %d threads, %zu-byte segments: status %d '%s', by zlib alone "
                  "%d '%s'", what, t, seg, (int)sc, mb, (int)sa, ma);
            gs_problem_free(&b);
        }
    }
    gs_problem_free(&a);
}

static void test_gzip_stdin(void)
{
    size_t n;
    char *text = make_text(60000, &n);
    const char *plain = tmp_path("big.txt");
    write_file(plain, text, n);
    gs_problem a = {0}, b = {0};
    CHECK(gs_data_read(plain, &a) == GS_OK && a.l == 60000, "big plain: %s", gs_last_error());

    write_gz(tmp_path("big.gz"), text, n, 1);
    CHECK(gs_data_read(tmp_path("big.gz"), &b) == GS_OK && same_problem(&a, &b), "gzip = plain: %s",
          gs_last_error());
    gs_problem_free(&b);

    write_gz(tmp_path("multi.bin"), text, n, 3); /* no .gz suffix: detection by magic bytes */
    CHECK(gs_data_read(tmp_path("multi.bin"), &b) == GS_OK && same_problem(&a, &b),
          "concatenated gzip members = plain: %s", gs_last_error());
    gs_problem_free(&b);

    write_file(tmp_path("plain.gz"), text, n); /* a .gz name holding plain text */
    CHECK(gs_data_read(tmp_path("plain.gz"), &b) == GS_OK && same_problem(&a, &b),
          "plain text named .gz: %s", gs_last_error());
    gs_problem_free(&b);

    CHECK(read_stdin_pipe(text, n, &b) == GS_OK && same_problem(&a, &b), "stdin pipe = plain: %s",
          gs_last_error());
    gs_problem_free(&b);

    size_t gzn;
    char *gz = read_all(tmp_path("big.gz"), &gzn);
    CHECK(read_stdin_pipe(gz, gzn, &b) == GS_OK && same_problem(&a, &b), "gzip on stdin = plain: %s",
          gs_last_error());
    gs_problem_free(&b);

    /* stdin redirected from a regular file */
    const int saved = dup(0);
    FILE *f = fopen(plain, "rb");
    dup2(fileno(f), 0);
    CHECK(gs_data_read("-", &b) == GS_OK && same_problem(&a, &b), "stdin file = plain");
    dup2(saved, 0);
    close(saved);
    fclose(f);
    gs_problem_free(&b);

    /* truncated and corrupt gzip are read errors, not silent truncation */
    write_file(tmp_path("trunc.gz"), gz, gzn / 2);
    CHECK(gs_data_read(tmp_path("trunc.gz"), &b) == GS_ERR_IO && b.l == 0, "truncated gzip: %s",
          gs_last_error());
    gz[gzn / 3] ^= 0x55;
    gz[gzn / 3 + 1] ^= 0x55;
    write_file(tmp_path("bad.gz"), gz, gzn);
    const gs_status st = gs_data_read(tmp_path("bad.gz"), &b);
    CHECK(st == GS_ERR_IO || st == GS_ERR_FORMAT, "corrupt gzip: status %d %s", (int)st, gs_last_error());
    gs_problem_free(&b);
    free(gz);

    /* an error deep in a gzip file: line numbers across blocks */
    char *bad = malloc(n + 64);
    memcpy(bad, text, n);
    int line = 1;
    size_t pos = 0;
    while (line < 45678) if (bad[pos++] == '\n') line++;
    bad[pos] = 'x';
    write_gz(tmp_path("badline.gz"), bad, n, 1);
    CHECK(gs_data_read(tmp_path("badline.gz"), &b) == GS_ERR_FORMAT &&
              strcmp(gs_last_error(), "Wrong input format at line 45678") == 0,
          "error in gzip at line 45678: %s", gs_last_error());
    free(bad);
    check_threads_same(tmp_path("big.gz"), "gzip");
    check_threads_same(tmp_path("multi.bin"), "three members");
    check_threads_same(tmp_path("trunc.gz"), "gzip cut short");
    check_threads_same(tmp_path("bad.gz"), "gzip damaged");
    check_threads_same(tmp_path("badline.gz"), "gzip with a bad line");
    write_gz(tmp_path("empty.gz"), "", 0, 1);
    check_threads_same(tmp_path("empty.gz"), "gzip of nothing");
    write_gz(tmp_path("blank.gz"), "1 1:1\n\n-1 2:1\n", 15, 1);
    check_threads_same(tmp_path("blank.gz"), "gzip with an empty line");
    write_gz(tmp_path("nonl.gz"), "1 1:1\n-1 2:1", 13, 2);
    check_threads_same(tmp_path("nonl.gz"), "gzip without a last newline, two members");

    /* one line longer than a block */
    size_t big = 3u << 20, len = 0;
    char *lng = malloc(big + 64);
    len += (size_t)snprintf(lng, big, "+1");
    int k = 0;
    while (len < big) len += (size_t)snprintf(lng + len, big + 64 - len, " %d:0.5", ++k);
    len += (size_t)snprintf(lng + len, big + 64 - len, "\n-1 1:2\n");
    write_file(tmp_path("long.txt"), lng, len);
    write_gz(tmp_path("long.gz"), lng, len, 1);
    check_threads_same(tmp_path("long.gz"), "gzip with a 3 MB line");
    CHECK(gs_data_read(tmp_path("long.txt"), &b) == GS_OK && b.l == 2 && b.row_ptr[1] == k &&
              b.max_index == k && b.val[b.nnz - 1] == 2.0f,
          "a %zu-byte line: %s", len, gs_last_error());
    gs_problem_free(&b);
    free(lng);

    gs_problem_free(&a);
    free(text);
}

/* ---- stream API ---------------------------------------------------------------------------- */

static void test_stream(void)
{
    size_t n;
    char *text = make_text(50000, &n);
    write_file(tmp_path("stream.txt"), text, n);
    gs_problem all = {0}, chunk = {0};
    CHECK(gs_data_read(tmp_path("stream.txt"), &all) == GS_OK, "stream file: %s", gs_last_error());

    /* chunks of 777 rows reassemble to the whole */
    gs_data_stream *s = NULL;
    CHECK(gs_data_stream_open(tmp_path("stream.txt"), NULL, &s) == GS_OK, "open: %s", gs_last_error());
    int32_t rows = 0, chunks = 0, mismatch = 0;
    while (s && gs_data_stream_next(s, 777, &chunk) == GS_OK && chunk.l > 0) {
        chunks++;
        if (chunk.l > 777) mismatch++;
        for (int32_t i = 0; i < chunk.l && rows + i < all.l; i++) {
            const int32_t r = rows + i;
            const int64_t len = chunk.row_ptr[i + 1] - chunk.row_ptr[i];
            if (chunk.y[i] != all.y[r] || len != all.row_ptr[r + 1] - all.row_ptr[r] ||
                (len && (memcmp(chunk.idx + chunk.row_ptr[i], all.idx + all.row_ptr[r], (size_t)len * 4) ||
                         memcmp(chunk.val + chunk.row_ptr[i], all.val + all.row_ptr[r], (size_t)len * 4))))
                mismatch++;
        }
        rows += chunk.l;
    }
    CHECK(rows == all.l && mismatch == 0 && chunks == (all.l + 776) / 777,
          "chunked read: %d rows in %d chunks, %d mismatches", rows, chunks, mismatch);
    CHECK(s && gs_data_stream_next(s, 777, &chunk) == GS_OK && chunk.l == 0, "EOF repeats");
    gs_data_stream_close(s);
    gs_problem_free(&chunk);

    /* an error in the 3rd chunk reports the physical line, after two good chunks */
    const char *small = "1 1:1\n2 2:2\n3 3:3\n4 4:4\n5 5:5\n6 6:6\n7 7:7\n8 8:x\n9 9:9\n";
    write_file(tmp_path("s.txt"), small, strlen(small));
    s = NULL;
    CHECK(gs_data_stream_open(tmp_path("s.txt"), NULL, &s) == GS_OK, "open small");
    if (s) {
        CHECK(gs_data_stream_next(s, 3, &chunk) == GS_OK && chunk.l == 3 && chunk.y[0] == 1 &&
                  chunk.max_index == 3 && chunk.idx[2] == 3,
              "chunk 1");
        CHECK(gs_data_stream_next(s, 3, &chunk) == GS_OK && chunk.l == 3 && chunk.y[0] == 4 &&
                  chunk.row_ptr[3] == 3 && chunk.max_index == 6,
              "chunk 2");
        CHECK(gs_data_stream_next(s, 3, &chunk) == GS_ERR_FORMAT &&
                  strcmp(gs_last_error(), "Wrong input format at line 8") == 0 && chunk.l == 0,
              "chunk 3: %s", gs_last_error());
        gs_clear_error();
        CHECK(gs_data_stream_next(s, 3, &chunk) == GS_ERR_FORMAT &&
                  strcmp(gs_last_error(), "Wrong input format at line 8") == 0,
              "the error repeats: %s", gs_last_error());
        CHECK(gs_data_stream_next(s, 0, &chunk) == GS_ERR_ARG, "max_rows 0");
        gs_data_stream_close(s);
    }
    gs_problem_free(&chunk);

    /* error far into a multi-block file, read in chunks of 1000 */
    int line = 1;
    size_t pos = 0;
    while (line < 43210) if (text[pos++] == '\n') line++;
    text[pos] = ':';
    write_file(tmp_path("stream_bad.txt"), text, n);
    s = NULL;
    CHECK(gs_data_stream_open(tmp_path("stream_bad.txt"), NULL, &s) == GS_OK, "open bad");
    rows = 0;
    gs_status st = GS_OK;
    while (s && (st = gs_data_stream_next(s, 1000, &chunk)) == GS_OK && chunk.l > 0) rows += chunk.l;
    CHECK(st == GS_ERR_FORMAT && rows == 43000 && strcmp(gs_last_error(), "Wrong input format at line 43210") == 0,
          "error at line 43210 after %d rows: %s", rows, gs_last_error());
    gs_data_stream_close(s);
    gs_problem_free(&chunk);

    /* closing early, including while the reader waits on an idle pipe */
    s = NULL;
    CHECK(gs_data_stream_open(tmp_path("stream.txt"), NULL, &s) == GS_OK, "open");
    CHECK(s && gs_data_stream_next(s, 10, &chunk) == GS_OK && chunk.l == 10, "10 rows");
    gs_data_stream_close(s);
    gs_problem_free(&chunk);
    int fds[2];
    if (pipe(fds) == 0) {
        const int saved = dup(0);
        dup2(fds[0], 0);
        close(fds[0]);
        const char *part = "1 1:1\n2 2:2\n3 3:";
        CHECK(write(fds[1], part, strlen(part)) == (ssize_t)strlen(part), "pipe write");
        s = NULL;
        CHECK(gs_data_stream_open("-", NULL, &s) == GS_OK, "open stdin");
        CHECK(s && gs_data_stream_next(s, 2, &chunk) == GS_OK && chunk.l == 2, "2 rows from an open pipe");
        gs_data_stream_close(s); /* must not hang: the writer never closes before this */
        close(fds[1]);
        dup2(saved, 0);
        close(saved);
        gs_problem_free(&chunk);
    }
    gs_data_stream_close(NULL);

    gs_problem_free(&all);
    free(text);
}

/* ---- rows as streams: any block size, long lines, long tokens (issue "Never a wrong answer") -- */

/* Reads path whole through the stream API with the given options. */
static gs_status read_opts(const char *path, const gs_data_opts *o, gs_problem *p)
{
    gs_data_stream *s = NULL;
    memset(p, 0, sizeof *p);
    gs_status st = gs_data_stream_open(path, o, &s);
    if (st == GS_OK) st = gs_data_stream_next(s, INT32_MAX, p);
    gs_data_stream_close(s);
    return st;
}

static int same_dvals(const gs_problem *a, const gs_problem *b)
{
    return a->nnz == b->nnz && (a->nnz == 0 || memcmp(a->dval, b->dval, (size_t)a->nnz * 8) == 0);
}

/* Every text read with blocks of 1, 2, 3, ... bytes (so that every token, blank run and line end
 * crosses a block boundary somewhere) must give exactly what the default 1 MiB blocks give: the
 * same rows, or the same message. Float and double values both. */
static void check_block_sizes(const char *name, const char *text, size_t n)
{
    static const size_t sizes[] = {1, 2, 3, 4, 5, 7, 11, 16, 61, 4093};
    const char *path = tmp_path("blocks.txt");
    write_file(path, text, n);
    for (int dbl = 0; dbl <= 1; dbl++) {
        gs_data_opts o = {.double_values = dbl};
        gs_problem ref = {0};
        gs_clear_error();
        const gs_status st0 = read_opts(path, &o, &ref);
        char msg0[600];
        snprintf(msg0, sizeof msg0, "%s", gs_last_error());
        int bad = 0;
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            if (n / sizes[k] > 20000) continue; /* a handoff per block: keep the test quick */
            o.block_bytes = sizes[k];
            gs_problem p = {0};
            gs_clear_error();
            const gs_status st = read_opts(path, &o, &p);
            const int same = st == st0 && (st != GS_OK ? strcmp(gs_last_error(), msg0) == 0
                                                       : dbl ? same_dvals(&p, &ref) &&
                                                                   p.l == ref.l && p.val == NULL
                                                             : same_problem(&p, &ref));
            if (!same && bad++ == 0)
                CHECK(0, "%s, %s values, %zu-byte blocks: status %d \"%s\", want %d \"%s\"", name,
                      dbl ? "double" : "float", sizes[k], (int)st, gs_last_error(), (int)st0, msg0);
            gs_problem_free(&p);
        }
        CHECK(bad == 0, "%s: %d block sizes differ", name, bad);
        gs_problem_free(&ref);
    }
}

/* text (malloc'ed, freed here) of n bytes is refused with exactly msg, whatever the block size. */
static void check_refused(const char *name, char *text, size_t n, const char *msg)
{
    gs_problem p = {0};
    CHECK(read_text(name, text, &p) == GS_ERR_FORMAT && strcmp(gs_last_error(), msg) == 0, "%s: %s", name,
          gs_last_error());
    gs_problem_free(&p);
    check_block_sizes(name, text, n);
    free(text);
}

static char *repeat(const char *head, char c, size_t count, const char *tail, size_t *n)
{
    const size_t h = strlen(head), t = strlen(tail);
    char *b = malloc(h + count + t + 1);
    memcpy(b, head, h);
    memset(b + h, c, count);
    memcpy(b + h + count, tail, t + 1);
    *n = h + count + t;
    return b;
}

static void test_streamed_rows(void)
{
    for (size_t i = 0; i < sizeof edge_cases / sizeof edge_cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "edge case %zu", i);
        check_block_sizes(name, edge_cases[i].text, strlen(edge_cases[i].text));
    }
    const char nul[] = "+1 1:0.5 2:x\0y\n-1 1:0\0.5\n";
    check_block_sizes("NUL bytes", nul, sizeof nul - 1);
    const char nul_ignored[] = "+1 1:0.5\v\0 2:1 ab\0c\n-1 1:1\n";
    check_block_sizes("NUL bytes in ignored text", nul_ignored, sizeof nul_ignored - 1);
    size_t n;
    char *text = make_text(3000, &n);
    check_block_sizes("3000 rows", text, n);
    free(text);
    const char *odd = "1e0 1:0x1p-3 2:+.5e+1 3:-0.0000000000000000000000000000123456789012345 "
                      "4:123456789012345678901234567890 5:nan(0x1) 6:INF\n"
                      "-1 000000000000000000000000000000000007:1 8:0.1\r\n"
                      "  +2 \t 1:\v\f 2 3:4\rjunk\v 5:6 tail text\n";
    check_block_sizes("odd numbers", odd, strlen(odd));

    /* tokens up to GS_TOKEN_MAX (4096) characters are numbers like any other; longer ones are
     * refused with the reason, except index text that no ':' follows (ignored, as in LIBSVM) */
    gs_problem p = {0};
    char *t;
    t = repeat("", '0', 4095, "1 1:2\n", &n);
    CHECK(read_text("label4096.txt", t, &p) == GS_OK && p.l == 1 && p.y[0] == 1,
          "a 4096-character label: %s", gs_last_error());
    gs_problem_free(&p);
    check_block_sizes("4096-character label", t, n);
    free(t);
    t = repeat("-1 1:1\n", '0', 4096, "1 1:2\n", &n);
    check_refused("label4097.txt", t, n, "Wrong input format at line 2\nthe label has more than 4096 characters");
    t = repeat("+1 3:", '0', 4094, ".5 4:1\n", &n);
    CHECK(read_text("value4096.txt", t, &p) == GS_OK && p.nnz == 2 && p.val[0] == 0.5f,
          "a 4096-character value: %s", gs_last_error());
    gs_problem_free(&p);
    free(t);
    t = repeat("+1 3:", '0', 4095, ".5 4:1\n", &n);
    check_refused("value4097.txt", t, n,
                  "Wrong input format at line 1\nthe value of index 3 has more than 4096 characters");
    t = repeat("+1 1:1 ", '0', 4096, "2:1\n", &n);
    check_refused("index4097.txt", t, n, "Wrong input format at line 1\nan index has more than 4096 characters");
    t = repeat("+1 1:1 ", '7', 100000, ":", &n); /* no value token after it: ignored */
    CHECK(read_text("index_eof.txt", t, &p) == GS_OK && p.l == 1 && p.nnz == 1,
          "a long index without a value at the end: %s", gs_last_error());
    gs_problem_free(&p);
    free(t);

    /* a line of several MB whose text is mostly ignorable: blank runs before an index, a value's
     * tail after \r, text with no ':' at the end. Its rows come out right, with small blocks too. */
    const size_t big = 3u << 20;
    t = repeat("+1 1:0.5", ' ', big, "2:0.25\n-1 1:1\n", &n);
    CHECK(read_text("blanks.txt", t, &p) == GS_OK && p.l == 2 && p.nnz == 3 && p.idx[1] == 2 &&
              p.val[1] == 0.25f && p.row_ptr[1] == 2,
          "3 MB of blanks inside a row: %s", gs_last_error());
    gs_problem_free(&p);
    write_file(tmp_path("blanks.txt"), t, n);
    gs_data_opts o = {.block_bytes = 4096};
    CHECK(read_opts(tmp_path("blanks.txt"), &o, &p) == GS_OK && p.l == 2 && p.nnz == 3,
          "... with 4 KiB blocks: %s", gs_last_error());
    gs_problem_free(&p);
    free(t);
    t = repeat("+1 1:5\r", 'x', big, " 2:1\n-1 1:1\n", &n);
    CHECK(read_text("tail.txt", t, &p) == GS_OK && p.l == 2 && p.nnz == 3 && p.val[0] == 5.0f &&
              p.idx[1] == 2,
          "a 3 MB value tail after \\r: %s", gs_last_error());
    gs_problem_free(&p);
    free(t);
    t = repeat("+1 1:5 ", 'x', big, "\n-1 1:1\n", &n);
    CHECK(read_text("junk.txt", t, &p) == GS_OK && p.l == 2 && p.nnz == 2,
          "3 MB of text with no ':' at the end of a row: %s", gs_last_error());
    gs_problem_free(&p);
    free(t);
}

/* Values in double (gpusvm-predict): exactly strtod's, beyond FLT_MAX too; labels as they are. */
static void test_double_values(void)
{
    enum { N = 20000 };
    char *text = malloc((size_t)N * 80), (*tok)[64] = malloc(sizeof *tok * N);
    size_t len = 0;
    for (int i = 0; i < N; i++) {
        const int intd = (int)(rng() % 12), fracd = (int)(rng() % 24);
        char *t = tok[i];
        int k = 0;
        if (rng() % 3 == 0) t[k++] = '-';
        for (int d = 0; d < intd; d++) t[k++] = (char)('0' + rng() % 10);
        t[k++] = '.';
        for (int d = 0; d < fracd || (intd == 0 && d == 0); d++) t[k++] = (char)('0' + rng() % 10);
        if (i % 7 == 0) k += sprintf(t + k, "e%d", (int)(rng() % 400) - 200);
        t[k] = '\0';
        len += (size_t)sprintf(text + len, "%d 1:%s\n", i % 3 - 1, t);
    }
    write_file(tmp_path("dnumbers.txt"), text, len);
    gs_data_opts o = {.double_values = 1};
    gs_problem p = {0};
    const gs_status st = read_opts(tmp_path("dnumbers.txt"), &o, &p);
    CHECK(st == GS_OK && p.l == N && p.val == NULL && p.dval, "double read: %s", gs_last_error());
    int bad = 0;
    for (int i = 0; st == GS_OK && i < N && p.nnz == N; i++) {
        const double want = strtod(tok[i], NULL);
        if (memcmp(&want, &p.dval[i], sizeof want) != 0 && bad++ < 5)
            CHECK(0, "value \"%s\": got %a want %a", tok[i], p.dval[i], want);
    }
    CHECK(bad == 0 && p.nnz == N, "%d values differ from strtod", bad);
    gs_problem_free(&p);
    free(text);
    free(tok);

    const char *wide = "+1 1:1e39 2:-3.4028235677973366e38 3:1e308\n-1 1:0.1\n";
    write_file(tmp_path("wide.txt"), wide, strlen(wide));
    CHECK(read_opts(tmp_path("wide.txt"), &o, &p) == GS_OK && p.dval[0] == 1e39 &&
              p.dval[1] == -3.4028235677973366e38 && p.dval[2] == 1e308 && p.dval[3] == 0.1,
          "values beyond FLT_MAX in double: %s", gs_last_error());
    gs_problem_free(&p);
    const char *labels = "nan 1:1\ninf 1:1\n-1e400 1:1\n";
    write_file(tmp_path("labels.txt"), labels, strlen(labels));
    o.any_label = 1;
    CHECK(read_opts(tmp_path("labels.txt"), &o, &p) == GS_OK && p.l == 3 && isnan(p.y[0]) &&
              isinf(p.y[1]) && p.y[2] < 0 && isinf(p.y[2]),
          "any_label reads NaN and infinite labels: %s", gs_last_error());
    gs_problem_free(&p);
    o.any_label = 0;
    CHECK(read_opts(tmp_path("labels.txt"), &o, &p) == GS_ERR_FORMAT &&
              strncmp(gs_last_error(), "Wrong input format at line 1\nlabel nan", 38) == 0,
          "without any_label: %s", gs_last_error());
}

/* A gzip file cut short is a read error in every chunk size and value type (gpusvm-predict read
 * one up to the cut and predicted it, the last row short of features, with exit 0). */
static void test_truncated_gzip_stream(void)
{
    size_t n;
    char *text = make_text(20000, &n);
    write_gz(tmp_path("t.gz"), text, n, 1);
    size_t gzn;
    char *gz = read_all(tmp_path("t.gz"), &gzn);
    static const size_t cuts[] = {10, 100, 1000, 50000};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        const size_t keep = cuts[c] < gzn ? gzn - cuts[c] : gzn / 2;
        write_file(tmp_path("cut.gz"), gz, keep);
        for (int dbl = 0; dbl <= 1; dbl++) {
            gs_data_opts o = {.double_values = dbl, .any_label = dbl};
            gs_data_stream *s = NULL;
            gs_problem chunk = {0};
            gs_status st = gs_data_stream_open(tmp_path("cut.gz"), &o, &s);
            int32_t rows = 0;
            while (st == GS_OK && (st = gs_data_stream_next(s, 1000, &chunk)) == GS_OK && chunk.l > 0)
                rows += chunk.l;
            char want[600];
            snprintf(want, sizeof want, "can't read input file %s: unexpected end of gzip data",
                     tmp_path("cut.gz"));
            CHECK(st == GS_ERR_IO && strcmp(gs_last_error(), want) == 0,
                  "cut %zu bytes short (%s): status %d after %d rows: %s", cuts[c],
                  dbl ? "double" : "float", (int)st, rows, gs_last_error());
            gs_data_stream_close(s);
            gs_problem_free(&chunk);
        }
    }
    free(gz);
    free(text);
}

/* ---- a real data set ------------------------------------------------------------------------ */

/* An independent strtok/strtod parse of a well-formed file, for comparison. */
static int reference_parse(char *text, gs_problem *p)
{
    int32_t l = 0;
    int64_t nnz = 0;
    for (char *c = text; *c; c++) l += *c == '\n';
    p->y = calloc((size_t)l + 1, sizeof *p->y);
    p->row_ptr = calloc((size_t)l + 2, sizeof *p->row_ptr);
    p->idx = calloc(strlen(text) / 2 + 1, sizeof *p->idx);
    p->val = calloc(strlen(text) / 2 + 1, sizeof *p->val);
    char *save_line = NULL;
    int32_t r = 0;
    for (char *line = strtok_r(text, "\n", &save_line); line; line = strtok_r(NULL, "\n", &save_line)) {
        char *save = NULL;
        p->y[r] = strtod(strtok_r(line, " \t", &save), NULL);
        for (char *pair = strtok_r(NULL, " \t", &save); pair; pair = strtok_r(NULL, " \t", &save)) {
            char *colon = strchr(pair, ':');
            if (!colon) return 0;
            p->idx[nnz] = (int32_t)strtol(pair, NULL, 10);
            p->val[nnz] = (float)strtod(colon + 1, NULL);
            if (p->idx[nnz] > p->max_index) p->max_index = p->idx[nnz];
            nnz++;
        }
        p->row_ptr[++r] = nnz;
    }
    p->l = r;
    p->nnz = nnz;
    return 1;
}

static void test_heart_scale(void)
{
    const char *ds = test_datasets_dir();
    const char *golden = "../shared/reference/golden/heart/heart_scale";
    if (!ds || !file_exists(golden)) {
        SKIP("../shared datasets/golden absent: heart_scale comparison not run");
        return;
    }
    char gz[512];
    snprintf(gz, sizeof gz, "%s/heart_scale/heart_scale.gz", ds);
    gs_problem a = {0}, b = {0}, ref = {0};
    CHECK(gs_data_read(gz, &a) == GS_OK, "%s: %s", gz, gs_last_error());
    CHECK(a.l == 270 && a.max_index == 13, "heart_scale.gz: l %d max_index %d", a.l, a.max_index);
    CHECK(gs_data_read(golden, &b) == GS_OK && same_problem(&a, &b), "heart_scale.gz = plain golden");
    char *text = read_all(golden, NULL);
    CHECK(text && reference_parse(text, &ref) && same_problem(&ref, &b), "heart_scale = strtok/strtod parse");
    free(text);
    gs_problem_free(&a);
    gs_problem_free(&b);
    gs_problem_free(&ref);
}

/* ---- gs_data_read's parallel parse of a large plain file (64 MiB and more) ------------------ */

/* Writes a ~89 MB file of rows (row r: label, then its columns) with the text bad put in place of
 * rows bad_at[0..nbad) (bad == NULL: none), and checks gs_data_read (ranges on threads) against
 * the stream read from the start: the same rows, or the same message. */
static void check_parallel(const char *name, const char *bad, const int64_t *bad_at, int nbad)
{
    const char *path = tmp_path("big.txt");
    FILE *f = fopen(path, "w");
    if (!f) { CHECK(0, "%s: cannot write %s", name, path); return; }
    const int64_t nrows = 300000;
    for (int64_t r = 0; r < nrows; r++) {
        int hit = 0;
        for (int k = 0; k < nbad; k++) hit |= bad_at[k] == r;
        if (hit) { fputs(bad, f); continue; }
        fprintf(f, "%s", r % 3 ? "+1" : "-1");
        for (int c = 1 + (int)(r % 5); c < 200; c += 1 + (int)((r * 7 + c) % 13))
            fprintf(f, " %d:%.3g", c, (double)((r * 31 + c * 17) % 2001 - 1000) / 997.0);
        fputc('\n', f);
    }
    fclose(f);
    gs_problem a, b;
    const gs_status sa = gs_data_read(path, &a);
    char ma[512];
    snprintf(ma, sizeof ma, "%s", sa == GS_OK ? "" : gs_last_error());
    const gs_data_opts o = {0};
    const gs_status sb = read_opts(path, &o, &b);
    const char *mb = sb == GS_OK ? "" : gs_last_error();
    CHECK(sa == sb && strcmp(ma, mb) == 0, "%s: status %d [%s] against one thread's %d [%s]", name, (int)sa, ma,
          (int)sb, mb);
    if (sa == GS_OK && sb == GS_OK) {
        const int same = a.l == b.l && a.nnz == b.nnz && a.max_index == b.max_index &&
                         memcmp(a.y, b.y, sizeof *a.y * (size_t)a.l) == 0 &&
                         memcmp(a.row_ptr, b.row_ptr, sizeof *a.row_ptr * (size_t)(a.l + 1)) == 0 &&
                         memcmp(a.idx, b.idx, sizeof *a.idx * (size_t)a.nnz) == 0 &&
                         memcmp(a.val, b.val, sizeof *a.val * (size_t)a.nnz) == 0;
        CHECK(same, "%s: %d rows, %lld pairs against one thread's %d rows, %lld pairs", name, (int)a.l,
              (long long)a.nnz, (int)b.l, (long long)b.nnz);
        CHECK(a.l == (int32_t)300000, "%s: %d rows", name, (int)a.l);
    }
    gs_problem_free(&a);
    gs_problem_free(&b);
    unlink(path);
}

static void test_parallel_read(void)
{
    check_parallel("large file", NULL, NULL, 0);
    const int64_t late[2] = {225000, 260000}, early[2] = {3, 299999};
    check_parallel("bad rows in the third and fourth quarters", "+1 3:x\n", late, 2);
    check_parallel("bad rows at both ends", "+1 5:1 4:2\n", early, 2);
    const int64_t mid[1] = {150000};
    check_parallel("an empty line in the middle", "\n", mid, 1);
}

/* gs_problem_subset: a subset large enough to be copied on threads (over 2^20 values), rows in a
 * shuffled order with some left out and some rows empty, against the copy made here row by row. */
static void test_subset(void)
{
    enum { L = 60000 };
    gs_problem p;
    memset(&p, 0, sizeof p);
    p.l = L;
    p.row_ptr = malloc(sizeof *p.row_ptr * (L + 1));
    p.y = malloc(sizeof *p.y * L);
    uint64_t r = 0x2545F4914F6CDD1Dull;
#define NEXT() (r ^= r << 13, r ^= r >> 7, r ^= r << 17, r)
    p.row_ptr[0] = 0;
    for (int i = 0; i < L; i++) p.row_ptr[i + 1] = p.row_ptr[i] + (i % 97 == 0 ? 0 : (int64_t)(NEXT() % 60));
    p.nnz = p.row_ptr[L];
    p.idx = malloc(sizeof *p.idx * (size_t)p.nnz);
    p.val = malloc(sizeof *p.val * (size_t)p.nnz);
    for (int i = 0; i < L; i++) {
        p.y[i] = (double)(NEXT() % 5);
        int32_t c = 0;
        for (int64_t e = p.row_ptr[i]; e < p.row_ptr[i + 1]; e++) {
            c += 1 + (int32_t)(NEXT() % 100);
            p.idx[e] = c;
            p.val[e] = (float)(NEXT() % 1000) / 7.0f;
        }
        if (p.row_ptr[i + 1] > p.row_ptr[i] && c > p.max_index) p.max_index = c;
    }
    int32_t *rows = malloc(sizeof *rows * L), n = 0;
    for (int i = 0; i < L; i++)
        if (i % 11 != 3) rows[n++] = i;
    for (int32_t i = n - 1; i > 0; i--) {
        const int32_t j = (int32_t)(NEXT() % (uint64_t)(i + 1)), t = rows[i];
        rows[i] = rows[j];
        rows[j] = t;
    }
#undef NEXT
    gs_problem q;
    CHECK(gs_problem_subset(&p, rows, n, &q) == GS_OK, "subset: %s", gs_last_error());
    int ok = q.l == n, maxi = 0;
    int64_t o = 0;
    for (int32_t i = 0; i < n && ok; i++) {
        const int64_t b = p.row_ptr[rows[i]], e = p.row_ptr[rows[i] + 1];
        ok = q.row_ptr[i] == o && q.row_ptr[i + 1] == o + (e - b) && q.y[i] == p.y[rows[i]] &&
             memcmp(q.idx + o, p.idx + b, sizeof *p.idx * (size_t)(e - b)) == 0 &&
             memcmp(q.val + o, p.val + b, sizeof *p.val * (size_t)(e - b)) == 0;
        if (e > b && p.idx[e - 1] > maxi) maxi = p.idx[e - 1];
        o += e - b;
    }
    CHECK(ok && q.nnz == o && o > (1 << 20) && q.max_index == maxi, "subset of %d rows, %lld values: rows, labels, "
          "max_index %d (want %d)", (int)n, (long long)o, (int)q.max_index, maxi);
    gs_problem_free(&q);
    CHECK(gs_problem_subset(&p, rows, 0, &q) == GS_OK && q.l == 0 && q.nnz == 0 && q.max_index == 0, "empty subset");
    gs_problem_free(&q);
    gs_problem_free(&p);
    free(rows);
}

int main(void)
{
    snprintf(g_tmp, sizeof g_tmp, "%s", "/tmp/gs_test_data.XXXXXX");
    if (!mkdtemp(g_tmp)) {
        printf("FAIL mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    test_golden_badinput();
    test_csr_small();
    test_edges();
    test_number_exactness();
    test_gzip_stdin();
    test_stream();
    test_streamed_rows();
    test_double_values();
    test_truncated_gzip_stream();
    test_heart_scale();
    test_parallel_read();
    test_subset();

    DIR *d = opendir(g_tmp);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            if (de->d_name[0] == '.') continue;
            unlink(tmp_path(de->d_name));
        }
        closedir(d);
    }
    rmdir(g_tmp);
    TEST_END();
}
