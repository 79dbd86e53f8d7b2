/* test_pinflate.c — io/pinflate.c and io/deflate.c against zlib's one-thread reading (the rules of
 * data.c's serial reader: members one after another, bytes after the last member that do not
 * start another ignored, the bytes before an error, then the error's text). Inputs: LIBSVM-like
 * text, repetitive text, random bytes and runs, compressed by zlib at levels 0-9 with each
 * strategy (stored, fixed, dynamic and Huffman-only blocks), with and without a file name,
 * several members, trailing bytes; then damaged copies (bytes flipped, cut short). Each is read
 * with 1-4 workers and chunks of 2-64 KiB (so chunks are many and the serial fallback and the
 * resync run often) and in reads of odd sizes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "io/deflate.h"
#include "io/pinflate.h"
#include "testlib.h"

static uint64_t g_rng = 88172645463325252ull;
static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 11);
}

typedef struct buf {
    uint8_t *b;
    size_t n, cap;
} buf;

static void put(buf *o, const void *p, size_t n)
{
    if (n == 0) return;
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2 + 1024;
        o->b = realloc(o->b, o->cap);
    }
    memcpy(o->b + o->n, p, n);
    o->n += n;
}

/* kind 0: LIBSVM-like rows; 1: a few lines repeated with changes; 2: random bytes; 3: runs */
static buf make_text(int kind, size_t want)
{
    buf o = {0};
    char line[4096];
    while (o.n < want) {
        int n = 0;
        if (kind == 0) {
            n = snprintf(line, sizeof line, "%s", rnd() % 2 ? "+1" : "-1");
            int idx = 0;
            const int nnz = 5 + (int)(rnd() % 40);
            for (int k = 0; k < nnz; k++) {
                idx += 1 + (int)(rnd() % 300);
                n += snprintf(line + n, sizeof line - (size_t)n, " %d:%.6g", idx, (rnd() % 100000) / 99991.0);
            }
            line[n++] = '\n';
        } else if (kind == 1) {
            n = snprintf(line, sizeof line, "1 1:0.5 2:0.25 3:%u 17:1\n", rnd() % 4);
        } else if (kind == 2) {
            n = 1 + (int)(rnd() % 200);
            for (int k = 0; k < n; k++) line[k] = (char)rnd();
        } else {
            n = 1 + (int)(rnd() % 3000);
            memset(line, 'a' + (int)(rnd() % 3), (size_t)n);
        }
        put(&o, line, (size_t)n);
    }
    return o;
}

/* A gzip member of t at the level and strategy, with a file name when named (2: also a comment,
 * an extra field and a header CRC, which zlib reads for the whole file). */
static void gz_member(buf *o, const buf *t, int level, int strategy, int named)
{
    z_stream z = {0};
    deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, strategy);
    gz_header h = {0};
    if (named) {
        h.name = (Bytef *)"data.txt";
        if (named == 2) {
            h.comment = (Bytef *)"a comment";
            h.extra = (Bytef *)"AB\004\000xyzw";
            h.extra_len = 8;
            h.hcrc = 1;
        }
        deflateSetHeader(&z, &h);
    }
    const size_t cap = deflateBound(&z, (uLong)t->n) + 64;
    uint8_t *c = malloc(cap);
    z.next_in = t->b;
    z.avail_in = (uInt)t->n;
    z.next_out = c;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    put(o, c, cap - z.avail_out);
    deflateEnd(&z);
    free(c);
}

/* The serial reading: bytes, and the error text ("" when none). */
static buf ref_read(const buf *g, char *err, size_t errcap)
{
    buf o = {0};
    err[0] = 0;
    z_stream z = {0};
    inflateInit2(&z, 15 + 16);
    size_t at = 0;
    uint8_t out[65536];
    for (;;) {
        if (at >= g->n || g->b[at] != 0x1f) break;
        inflateReset(&z);
        z.next_in = g->b + at;
        z.avail_in = (uInt)(g->n - at);
        int rc;
        do {
            z.next_out = out;
            z.avail_out = sizeof out;
            rc = inflate(&z, Z_NO_FLUSH);
            put(&o, out, sizeof out - z.avail_out);
        } while (rc == Z_OK && (z.avail_in > 0 || z.avail_out == 0));
        if (rc == Z_STREAM_END) {
            at = (size_t)(z.next_in - g->b);
            continue;
        }
        if (rc == Z_OK || rc == Z_BUF_ERROR)
            snprintf(err, errcap, "can't read input file F: unexpected end of gzip data");
        else
            snprintf(err, errcap, "can't read input file F: bad gzip data (%s)", z.msg ? z.msg : "?");
        break;
    }
    inflateEnd(&z);
    return o;
}

static char g_path[256];

/* Reads g through pinflate; 1 when bytes and error agree with the serial reading. */
static gs_pinflate_stats g_last; /* the last reading's */

static int same_as_ref(const buf *g, int threads, size_t chunk, const char *what)
{
    FILE *f = fopen(g_path, "wb");
    fwrite(g->b, 1, g->n, f);
    fclose(f);
    char want_err[300];
    buf want = ref_read(g, want_err, sizeof want_err);
    FILE *r = fopen(g_path, "rb");
    gs_pinflate *p = NULL;
    const gs_pinflate_opts o = {.threads = threads, .chunk_bytes = chunk};
    const gs_status st = gs_pinflate_open(fileno(r), "F", &o, &p);
    fclose(r);
    int ok = st == GS_OK;
    buf got = {0};
    char err[300] = "";
    char tmp[70000];
    while (ok) {
        const size_t cap = 1 + rnd() % (sizeof tmp - 1);
        const ssize_t n = gs_pinflate_read(p, tmp, cap, err, sizeof err);
        if (n < 0) break;
        if (n == 0) {
            err[0] = 0;
            break;
        }
        put(&got, tmp, (size_t)n);
    }
    if (p) g_last = gs_pinflate_get_stats(p);
    gs_pinflate_close(p);
    const int same = ok && got.n == want.n && (got.n == 0 || memcmp(got.b, want.b, got.n) == 0) &&
                     strcmp(err, want_err) == 0;
    if (!same) {
        size_t d = 0;
        while (d < got.n && d < want.n && got.b[d] == want.b[d]) d++;
        printf("  %s, %d threads, chunk %zu: %zu bytes (serial %zu, first difference at %zu), "
               "error '%s' (serial '%s')\n", what, threads, chunk, got.n, want.n, d, err, want_err);
    }
    free(got.b);
    free(want.b);
    return same;
}

static void test_clean(void)
{
    static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED};
    int cases = 0, good = 0;
    for (int kind = 0; kind < 4; kind++) {
        buf t = make_text(kind, kind == 0 ? 600000 : 200000);
        static const int levels[] = {0, 1, 2, 4, 6, 9};
        for (int li = 0; li < 6; li++) {
            const int level = levels[li];
            for (int si = 0; si < 5; si++) {
                if (level == 0 && si > 0) continue;
                buf g = {0};
                gz_member(&g, &t, level, strategies[si], (level + si) & 1);
                char what[100];
                snprintf(what, sizeof what, "kind %d level %d strategy %d", kind, level, si);
                const int threads = 1 + (int)(rnd() % 4);
                const size_t chunk = kind == 0 && level == 6 && si == 0 ? 8192 : (size_t)2048 << (rnd() % 6);
                cases++;
                good += same_as_ref(&g, threads, chunk, what);
                if (kind == 0 && level == 6 && si == 0) {
                    /* dynamic blocks everywhere: nearly all from the chunks */
                    CHECK(g_last.chunks > 4 && g_last.chunk_bytes > 9 * g_last.zlib_bytes,
                          "%s: %d chunks, %llu bytes from them, %llu from zlib", what,
                          g_last.chunks, (unsigned long long)g_last.chunk_bytes,
                          (unsigned long long)g_last.zlib_bytes);
                    printf("%s, %zu-byte chunks: %d confirmed, %llu bytes from them, %llu from "
                           "zlib\n", what, chunk, g_last.chunks,
                           (unsigned long long)g_last.chunk_bytes,
                           (unsigned long long)g_last.zlib_bytes);
                }
                free(g.b);
            }
        }
        free(t.b);
    }
    CHECK(good == cases, "%d of %d whole files read as zlib reads them", good, cases);
    printf("clean: %d files read as zlib reads them\n", good);
}

static void test_members(void)
{
    buf t1 = make_text(0, 300000), t2 = make_text(1, 50000), g = {0};
    gz_member(&g, &t1, 6, Z_DEFAULT_STRATEGY, 1);
    gz_member(&g, &t2, 6, Z_DEFAULT_STRATEGY, 0);
    gz_member(&g, &t1, 1, Z_DEFAULT_STRATEGY, 0);
    CHECK(same_as_ref(&g, 3, 8192, "three members"), "three members");
    put(&g, "trailing bytes\n", 15);
    CHECK(same_as_ref(&g, 3, 8192, "trailing bytes"), "bytes after the last member are ignored");
    g.n -= 15;
    put(&g, "\x1f\x8b\x08", 3);
    CHECK(same_as_ref(&g, 2, 4096, "a cut member after"), "a member cut after its header's start");
    buf e = {0};
    buf none = {0};
    gz_member(&e, &none, 6, Z_DEFAULT_STRATEGY, 0);
    CHECK(same_as_ref(&e, 2, 4096, "empty"), "an empty member");
    buf h = {0};
    gz_member(&h, &t1, 6, Z_DEFAULT_STRATEGY, 2);
    CHECK(same_as_ref(&h, 3, 8192, "comment, extra field, header CRC"), "a full gzip header");
    free(h.b);
    h = (buf){0};
    { /* without the header CRC (which sends the file to zlib): the chunks read past the rest */
        z_stream z = {0};
        deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
        gz_header hd = {0};
        hd.comment = (Bytef *)"c";
        hd.extra = (Bytef *)"AB\000\000";
        hd.extra_len = 4;
        deflateSetHeader(&z, &hd);
        const size_t cap = deflateBound(&z, (uLong)t1.n) + 64;
        uint8_t *c = malloc(cap);
        z.next_in = t1.b;
        z.avail_in = (uInt)t1.n;
        z.next_out = c;
        z.avail_out = (uInt)cap;
        deflate(&z, Z_FINISH);
        put(&h, c, cap - z.avail_out);
        deflateEnd(&z);
        free(c);
    }
    CHECK(same_as_ref(&h, 3, 8192, "comment and extra field"), "a comment and an extra field");
    CHECK(g_last.chunks > 2, "the chunks read past a comment and an extra field (%d)", g_last.chunks);
    free(h.b);
    free(t1.b);
    free(t2.b);
    free(g.b);
    free(e.b);
}

static void test_damaged(void)
{
    buf t = make_text(0, 400000), g = {0};
    gz_member(&g, &t, 6, Z_DEFAULT_STRATEGY, 0);
    uint8_t *orig = malloc(g.n);
    memcpy(orig, g.b, g.n);
    const size_t full = g.n;
    int cases = 0, good = 0;
    for (int k = 0; k < 60; k++) {
        memcpy(g.b, orig, full);
        g.n = full;
        char what[100];
        if (k % 3 == 2) {
            g.n = 1 + rnd() % (full - 1);
            snprintf(what, sizeof what, "cut at %zu of %zu", g.n, full);
        } else {
            const size_t at = 10 + rnd() % (full - 10);
            g.b[at] ^= (uint8_t)(1u << (rnd() % 8));
            snprintf(what, sizeof what, "bit flipped at byte %zu of %zu", at, full);
        }
        cases++;
        good += same_as_ref(&g, 1 + (int)(rnd() % 4), (size_t)2048 << (rnd() % 5), what);
    }
    CHECK(good == cases, "%d of %d damaged files read as zlib reads them", good, cases);
    printf("damaged: %d files read as zlib reads them (bytes before the error, its text)\n", good);
    free(orig);
    free(t.b);
    free(g.b);
}

/* The block finder finds the real dynamic blocks of a zlib stream (those it looks for). */
static void test_finder(void)
{
    buf t = make_text(0, 300000), g = {0};
    gz_member(&g, &t, 6, Z_DEFAULT_STRATEGY, 0);
    const uint64_t start = 8 * 10;
    gs_dfl_chunk c = {.in = g.b, .in_len = g.n, .start_bit = start, .stop_bit = start + 1,
                      .out_soft = 1u << 30, .out_hard = 1u << 30};
    CHECK(gs_dfl_decode_chunk(&c) == 0 && !c.final, "the first block decodes");
    const uint64_t second = c.end_bit;
    CHECK(gs_dfl_find_block(g.b, g.n, start + 1, 8 * (uint64_t)g.n) <= second,
          "the finder finds the second block (or a chance header before it)");
    gs_dfl_chunk_free(&c);
    free(t.b);
    free(g.b);
}

int main(void)
{
    snprintf(g_path, sizeof g_path, "%s/gs_pinflate_%d.gz", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid());
    test_finder();
    test_clean();
    test_members();
    test_damaged();
    remove(g_path);
    TEST_END();
}
