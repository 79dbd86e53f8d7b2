/* data.c — the LIBSVM sparse reader. A reader thread turns the input (a file, or "-" for standard
 * input; gzip detected by its magic bytes 1f 8b and inflated with zlib) into blocks that end at a
 * line boundary; the calling thread parses those blocks into CSR. One pass, so pipes work, and the
 * queue of blocks is bounded, so streaming huge test files needs bounded memory.
 *
 * Tokenizing follows LIBSVM's strtok-based loader exactly (compat §1.2); the comments at
 * gs_parse_line say how each strtok step maps onto the code here. Numbers in the plain decimal
 * shape ("-0.125", "17") take a fast path that gives the same result as strtod; anything else is
 * copied out and handed to the C library's strtod/strtol themselves, so odd inputs (hex, inf,
 * exponents, long mantissas, leading \v...) behave exactly as in LIBSVM. */
#include "data.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum {
    GS_NBLOCKS = 4,            /* blocks in flight between the reader thread and the parser */
    GS_BLOCK_BYTES = 1 << 20,  /* initial block size; a longer line grows its block */
    GS_RAW_BYTES = 1 << 18,    /* compressed input read per read() when inflating */
    GS_SCRATCH_INIT = 128
};

/* A run of whole lines (the last block of the input may end without '\n'). */
typedef struct gs_block {
    char *data;
    size_t cap;
    size_t len;
    bool last;     /* nothing follows this block */
    gs_status err; /* reading failed after this block's data; message in the stream's rd_msg */
} gs_block;

struct gs_data_stream {
    char *path; /* for messages */

    /* shared between the threads, guarded by mu */
    pthread_mutex_t mu;
    pthread_cond_t cv_full;  /* a block was published */
    pthread_cond_t cv_free;  /* a block was released, or closing */
    gs_block blocks[GS_NBLOCKS];
    int fill;   /* next block the reader fills */
    int take;   /* next block the parser takes */
    int nfull;  /* published, not yet released */
    bool closing;
    char rd_msg[256]; /* the reader's error text (status.h's record is per thread) */

    /* reader thread only */
    int fd;
    int wake[2];            /* close() writes to wake[1] so a reader blocked on a pipe returns */
    bool gzip;
    bool gz_member_done;    /* the last gzip member ended; more input must start a new one */
    bool raw_eof;
    z_stream z;
    bool z_init;
    unsigned char *raw;     /* compressed input, or the first bytes of plain input */
    size_t raw_len;         /* plain mode: bytes of raw not yet handed out */
    size_t raw_off;
    char *carry;            /* the unfinished last line of the previous block */
    size_t carry_len, carry_cap;

    /* parser (calling thread) only */
    pthread_t thread;
    bool thread_started;
    gs_block *cur;          /* block being parsed, or NULL */
    const char *pos, *bend; /* parse position in cur */
    bool eof;               /* the last block has been parsed */
    int64_t line;           /* physical lines parsed so far */
    gs_status failed;       /* sticky: once a call failed, later calls repeat its error */
    char fail_msg[256];
    char *scratch;          /* NUL-terminated copy of a token for strtod/strtol */
    size_t scratch_cap;
};

/* ------------------------------------------------------------------------------------------ */
/* Input side (reader thread)                                                                  */

/* Raw bytes from the descriptor. Polls the wake pipe too, so close() never waits on a pipe that
 * has no writer activity. @return bytes read, 0 at EOF, -1 on error (rd_msg set), -2 when closing */
static ssize_t gs_raw_read(gs_data_stream *s, void *buf, size_t cap)
{
    for (;;) {
        struct pollfd pf[2] = {{.fd = s->fd, .events = POLLIN}, {.fd = s->wake[0], .events = POLLIN}};
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR) continue;
            snprintf(s->rd_msg, sizeof s->rd_msg, "can't read input file %s: %s", s->path, strerror(errno));
            return -1;
        }
        if (pf[1].revents) return -2;
        const ssize_t n = read(s->fd, buf, cap);
        if (n >= 0) return n;
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
        snprintf(s->rd_msg, sizeof s->rd_msg, "can't read input file %s: %s", s->path, strerror(errno));
        return -1;
    }
}

/* Inflated bytes. Concatenated gzip members are read one after another (as gzip -d does); bytes
 * after the last member that do not start another member are ignored (as zlib's gzread does).
 * Returns as soon as some output exists and more input would be needed, so a slow pipe still
 * yields lines promptly. @return as gs_raw_read */
static ssize_t gs_gz_read(gs_data_stream *s, char *buf, size_t cap)
{
    s->z.next_out = (unsigned char *)buf;
    s->z.avail_out = cap > UINT_MAX ? UINT_MAX : (unsigned)cap;
    const unsigned want = s->z.avail_out;
    while (s->z.avail_out > 0) {
        if (s->z.avail_in == 0) {
            if (s->raw_eof || s->z.avail_out < want) break;
            const ssize_t n = gs_raw_read(s, s->raw, GS_RAW_BYTES);
            if (n < 0) return n;
            if (n == 0) { s->raw_eof = true; break; }
            s->z.next_in = s->raw;
            s->z.avail_in = (unsigned)n;
        }
        if (s->gz_member_done) {
            if (s->z.next_in[0] != 0x1f) { /* trailing garbage: ignored */
                s->z.avail_in = 0;
                s->raw_eof = true;
                break;
            }
            if (inflateReset(&s->z) != Z_OK) goto bad;
            s->gz_member_done = false;
        }
        const int rc = inflate(&s->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            s->gz_member_done = true;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            goto bad;
        }
    }
    const size_t got = want - s->z.avail_out;
    if (got == 0 && s->raw_eof && !s->gz_member_done) {
        snprintf(s->rd_msg, sizeof s->rd_msg, "can't read input file %s: unexpected end of gzip data",
                 s->path);
        return -1;
    }
    return (ssize_t)got;
bad:
    snprintf(s->rd_msg, sizeof s->rd_msg, "can't read input file %s: bad gzip data (%s)", s->path,
             s->z.msg ? s->z.msg : "inflate failed");
    return -1;
}

/* Decoded input bytes: plain (the sniffed first bytes first) or inflated. */
static ssize_t gs_source_read(gs_data_stream *s, char *buf, size_t cap)
{
    if (s->gzip) return gs_gz_read(s, buf, cap);
    if (s->raw_off < s->raw_len) {
        size_t n = s->raw_len - s->raw_off;
        if (n > cap) n = cap;
        memcpy(buf, s->raw + s->raw_off, n);
        s->raw_off += n;
        return (ssize_t)n;
    }
    if (s->raw_eof) return 0;
    return gs_raw_read(s, buf, cap);
}

/* Reads the first two bytes (fewer at EOF) and chooses plain or gzip. @return as gs_raw_read */
static ssize_t gs_sniff(gs_data_stream *s)
{
    while (s->raw_len < 2) {
        const ssize_t n = gs_raw_read(s, s->raw + s->raw_len, GS_RAW_BYTES - s->raw_len);
        if (n < 0) return n;
        if (n == 0) { s->raw_eof = true; break; }
        s->raw_len += (size_t)n;
    }
    if (s->raw_len >= 2 && s->raw[0] == 0x1f && s->raw[1] == 0x8b) {
        memset(&s->z, 0, sizeof s->z);
        if (inflateInit2(&s->z, 15 + 16) != Z_OK) {
            snprintf(s->rd_msg, sizeof s->rd_msg, "can't read input file %s: zlib init failed", s->path);
            return -1;
        }
        s->z_init = true;
        s->gzip = true;
        s->z.next_in = s->raw;
        s->z.avail_in = (unsigned)s->raw_len;
        s->raw_len = 0;
    }
    return 1;
}

/* Grows a byte buffer to hold at least need bytes, plus one more past the end: the parser puts a
 * sentinel there. */
static bool gs_grow_bytes(char **p, size_t *cap, size_t need)
{
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap : GS_BLOCK_BYTES;
    while (nc < need) {
        if (nc > SIZE_MAX / 4) return false;
        nc *= 2;
    }
    char *q = realloc(*p, nc + 1);
    if (!q) return false;
    *p = q;
    *cap = nc;
    return true;
}

/* Fills b with whole lines: the carried-over partial line, then input up to the last '\n'. A
 * block is published early after a short read that completed a line (pipes), else when full. */
static void gs_fill_block(gs_data_stream *s, gs_block *b)
{
    b->len = 0;
    b->last = false;
    b->err = GS_OK;
    if (!gs_grow_bytes(&b->data, &b->cap, s->carry_len + GS_BLOCK_BYTES / 2)) goto nomem;
    if (s->carry_len > 0) memcpy(b->data, s->carry, s->carry_len);
    b->len = s->carry_len;
    s->carry_len = 0;
    for (;;) {
        if (b->len == b->cap) {
            if (memchr(b->data, '\n', b->len)) break;
            if (!gs_grow_bytes(&b->data, &b->cap, b->cap + 1)) goto nomem;
        }
        const size_t room = b->cap - b->len;
        const ssize_t n = gs_source_read(s, b->data + b->len, room);
        if (n == -2) { b->last = true; return; }
        if (n < 0) {
            b->err = GS_ERR_IO;
            goto truncate;
        }
        if (n == 0) { b->last = true; return; }
        const size_t old = b->len;
        b->len += (size_t)n;
        if ((size_t)n < room && memchr(b->data + old, '\n', (size_t)n)) break;
    }
    size_t keep = b->len;
    while (b->data[keep - 1] != '\n') keep--;
    if (!gs_grow_bytes(&s->carry, &s->carry_cap, b->len - keep)) goto nomem;
    s->carry_len = b->len - keep;
    if (s->carry_len > 0) memcpy(s->carry, b->data + keep, s->carry_len);
    b->len = keep;
    return;
nomem:
    b->err = GS_ERR_NOMEM;
    snprintf(s->rd_msg, sizeof s->rd_msg, "out of memory reading %s", s->path);
truncate: /* hand over the whole lines read before the failure, then the error */
    while (b->len > 0 && b->data[b->len - 1] != '\n') b->len--;
    b->last = true;
}

static void *gs_reader_main(void *arg)
{
    gs_data_stream *s = arg;
    const ssize_t sn = gs_sniff(s);
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (s->nfull == GS_NBLOCKS && !s->closing) pthread_cond_wait(&s->cv_free, &s->mu);
        if (s->closing) {
            pthread_mutex_unlock(&s->mu);
            break;
        }
        gs_block *b = &s->blocks[s->fill];
        pthread_mutex_unlock(&s->mu);

        if (sn < 0) { /* sniffing failed: an empty last block carrying the error */
            b->len = 0;
            b->last = true;
            b->err = sn == -2 ? GS_OK : GS_ERR_IO;
        } else {
            gs_fill_block(s, b);
        }

        pthread_mutex_lock(&s->mu);
        s->fill = (s->fill + 1) % GS_NBLOCKS;
        s->nfull++;
        pthread_cond_signal(&s->cv_full);
        pthread_mutex_unlock(&s->mu);
        if (b->last) break;
    }
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Open / close                                                                                */

gs_status gs_data_stream_open(const char *path, gs_data_stream **out)
{
    gs_status st = GS_OK;
    gs_data_stream *s = NULL;
    *out = NULL;

    s = calloc(1, sizeof *s);
    if (!s) return GS_FAIL(GS_ERR_NOMEM, "out of memory opening %s", path);
    s->fd = -1;
    s->wake[0] = s->wake[1] = -1;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv_full, NULL);
    pthread_cond_init(&s->cv_free, NULL);
    s->path = strdup(path);
    s->raw = malloc(GS_RAW_BYTES);
    s->scratch = malloc(GS_SCRATCH_INIT);
    s->scratch_cap = GS_SCRATCH_INIT;
    if (!s->path || !s->raw || !s->scratch) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory opening %s", path);
        goto cleanup;
    }

    if (strcmp(path, "-") == 0) {
        s->fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
    } else {
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat sb;
        if (s->fd >= 0 && fstat(s->fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            close(s->fd);
            s->fd = -1;
        }
    }
    if (s->fd < 0) {
        st = GS_FAIL(GS_ERR_IO, "can't open input file %s", path);
        goto cleanup;
    }
    if (pipe(s->wake) != 0) {
        s->wake[0] = s->wake[1] = -1;
        st = GS_FAIL(GS_ERR_IO, "can't open input file %s (pipe: %s)", path, strerror(errno));
        goto cleanup;
    }
    const int rc = pthread_create(&s->thread, NULL, gs_reader_main, s);
    if (rc != 0) {
        st = GS_FAIL(GS_ERR_NOMEM, "can't start the reader thread for %s (error %d)", path, rc);
        goto cleanup;
    }
    s->thread_started = true;
    *out = s;
    s = NULL;
cleanup:
    gs_data_stream_close(s);
    return st;
}

void gs_data_stream_close(gs_data_stream *s)
{
    if (!s) return;
    if (s->thread_started) {
        pthread_mutex_lock(&s->mu);
        s->closing = true;
        pthread_cond_broadcast(&s->cv_free);
        pthread_mutex_unlock(&s->mu);
        const char one = 1;
        ssize_t w;
        do { w = write(s->wake[1], &one, 1); } while (w < 0 && errno == EINTR);
        pthread_join(s->thread, NULL);
    }
    for (int i = 0; i < GS_NBLOCKS; i++) free(s->blocks[i].data);
    if (s->z_init) inflateEnd(&s->z);
    if (s->wake[0] >= 0) close(s->wake[0]);
    if (s->wake[1] >= 0) close(s->wake[1]);
    if (s->fd >= 0) close(s->fd);
    pthread_cond_destroy(&s->cv_free);
    pthread_cond_destroy(&s->cv_full);
    pthread_mutex_destroy(&s->mu);
    free(s->carry);
    free(s->raw);
    free(s->scratch);
    free(s->path);
    free(s);
}

/* ------------------------------------------------------------------------------------------ */
/* Number parsing                                                                              */

/* C-locale isspace: ' ', \t \n \v \f \r. (The CLIs never call setlocale.) */
static inline bool gs_is_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static inline bool gs_is_digit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

/* Exactly representable powers of ten (10^22 is the last one a double holds exactly). */
static const double gs_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Parses "[+-]digits[.digits]" at p when it is exactly what strtod would return: the digits form
 * an integer m <= 2^53 and there are at most 22 after the point, so m and 10^k are exact doubles
 * and the one rounding in m / 10^k is the correctly rounded result (Clinger's fast path), which is
 * what glibc's strtod returns. Outside that shape it returns NULL and the caller asks strtod, so it
 * never gives a different answer. Whether the number ends where it must is the caller's check.
 * The text must be followed by a non-digit (the parser's '\n' sentinel guarantees it).
 * @return the end of the number, or NULL */
static inline const char *gs_fast_decimal(const char *p, double *out)
{
    const bool neg = *p == '-';
    if (*p == '-' || *p == '+') p++;
    const char *const int_start = p;
    uint64_t m = 0; /* wraps for > 19 digits, which are rejected below */
    while (gs_is_digit(*p)) m = m * 10 + (uint64_t)(*p++ - '0');
    const ptrdiff_t int_digits = p - int_start;
    ptrdiff_t frac = 0;
    if (*p == '.') {
        const char *const frac_start = ++p;
        while (gs_is_digit(*p)) m = m * 10 + (uint64_t)(*p++ - '0');
        frac = p - frac_start;
    }
    const ptrdiff_t nd = int_digits + frac;
    if (nd == 0 || nd > 19 || frac > 22 || m > ((uint64_t)1 << 53)) return NULL;
    double d = (double)m;
    if (frac) d /= gs_pow10[frac];
    *out = neg ? -d : d;
    return p;
}

/* A NUL-terminated copy of [p, e) in the stream's scratch buffer; NULL when memory runs out or the
 * text holds a NUL byte (LIBSVM's line reader mangles such lines; we call them malformed). */
static const char *gs_scratch_copy(gs_data_stream *s, const char *p, const char *e, bool *nomem)
{
    const size_t n = (size_t)(e - p);
    *nomem = false;
    if (n + 1 > s->scratch_cap) {
        size_t nc = s->scratch_cap;
        while (nc < n + 1) nc *= 2;
        char *q = realloc(s->scratch, nc);
        if (!q) { *nomem = true; return NULL; }
        s->scratch = q;
        s->scratch_cap = nc;
    }
    if (memchr(p, '\0', n)) return NULL;
    memcpy(s->scratch, p, n);
    s->scratch[n] = '\0';
    return s->scratch;
}

/* LIBSVM casts strtol's long to int; that wraps modulo 2^32 (4294967297 -> 1). Written out so it
 * does not rely on implementation-defined conversion. */
static inline int32_t gs_wrap_int32(int64_t v)
{
    const uint32_t u = (uint32_t)(uint64_t)v;
    return u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - 2147483648u) + INT32_MIN;
}

/* ------------------------------------------------------------------------------------------ */
/* CSR building                                                                                */

typedef struct gs_build {
    gs_problem p;
    int64_t rows_cap; /* capacity of y (row_ptr has one more) */
    int64_t nnz_cap;  /* capacity of idx and val */
} gs_build;

static bool gs_realloc_array(void **p, int64_t count, size_t elem)
{
    if (count < 0 || (uint64_t)count > SIZE_MAX / elem) return false;
    void *q = realloc(*p, (size_t)count * elem);
    if (!q) return false;
    *p = q;
    return true;
}

static int64_t gs_next_cap(int64_t cap, int64_t need)
{
    int64_t nc = cap < 256 ? 256 : cap;
    while (nc < need) nc = nc > INT64_MAX / 2 ? INT64_MAX : nc + nc / 2;
    return nc;
}

static gs_status gs_build_reserve(gs_build *b, const char *path, int64_t rows, int64_t nnz)
{
    if (rows > b->rows_cap) {
        const int64_t nc = gs_next_cap(b->rows_cap, rows);
        if (!gs_realloc_array((void **)&b->p.y, nc, sizeof *b->p.y) ||
            !gs_realloc_array((void **)&b->p.row_ptr, nc + 1, sizeof *b->p.row_ptr))
            return GS_FAIL(GS_ERR_NOMEM, "out of memory reading %s (%" PRId64 " rows)", path, rows);
        b->rows_cap = nc;
    }
    if (nnz > b->nnz_cap) {
        const int64_t nc = gs_next_cap(b->nnz_cap, nnz);
        if (!gs_realloc_array((void **)&b->p.idx, nc, sizeof *b->p.idx) ||
            !gs_realloc_array((void **)&b->p.val, nc, sizeof *b->p.val))
            return GS_FAIL(GS_ERR_NOMEM, "out of memory reading %s (%" PRId64 " values)", path, nnz);
        b->nnz_cap = nc;
    }
    return GS_OK;
}

/* Gives back the unused tail of the arrays (realloc to a smaller size does not fail in practice;
 * when it does, the larger block is simply kept). */
static void gs_build_shrink(gs_build *b)
{
    const int64_t l = b->p.l, nnz = b->p.nnz;
    if (l > 0 && l < b->rows_cap) gs_realloc_array((void **)&b->p.y, l, sizeof *b->p.y);
    gs_realloc_array((void **)&b->p.row_ptr, l + 1, sizeof *b->p.row_ptr);
    if (nnz > 0 && nnz < b->nnz_cap) {
        gs_realloc_array((void **)&b->p.idx, nnz, sizeof *b->p.idx);
        gs_realloc_array((void **)&b->p.val, nnz, sizeof *b->p.val);
    }
    if (nnz == 0) {
        free(b->p.idx);
        free(b->p.val);
        b->p.idx = NULL;
        b->p.val = NULL;
    }
    if (l == 0) {
        free(b->p.y);
        b->p.y = NULL;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Line parsing                                                                                */

typedef enum { GS_LINE_OK, GS_LINE_BAD, GS_LINE_NOMEM } gs_line_result;

/* Parses one line [p, e) (e is at its '\n', or at the end of the input when has_nl is false) and
 * appends the row. LIBSVM reads the line including its '\n' and tokenizes it with strtok:
 *   label = strtok(line, " \t\n")  -> skip blanks; no token is an error (blank line);
 *   idx   = strtok(NULL, ":")      -> skip ':'s, text up to the next ':' (or the end);
 *   val   = strtok(NULL, " \t")    -> skip blanks, text up to the next blank (or the end);
 *   val == NULL ends the line silently, so trailing text with no ':' is ignored.
 * '\n' is not a value delimiter, so "1:" before a '\n' gives the value token "\n" (an error) while
 * "1:" at the very end of an input without a final newline gives no token (accepted). The '\n'
 * itself never changes a strtod/strtol result, so the copies handed to them leave it out. */
static gs_line_result gs_parse_line(gs_data_stream *s, gs_build *b, const char *p, const char *e,
                                    bool has_nl)
{
    /* *e is '\n' (the line's own, or the sentinel after the input), so the scans below that stop
     * at anything but a digit, blank or ':' need no bounds check. */
    bool nomem = false;

    /* label */
    while (*p == ' ' || *p == '\t') p++;
    if (p == e) return GS_LINE_BAD;
    const char *tok = p;
    double label;
    const char *q = gs_fast_decimal(tok, &label);
    if (!q || (*q != ' ' && *q != '\t' && q != e)) {
        while (p < e && *p != ' ' && *p != '\t') p++;
        const char *txt = gs_scratch_copy(s, tok, p, &nomem);
        if (!txt) return nomem ? GS_LINE_NOMEM : GS_LINE_BAD;
        char *end;
        label = strtod(txt, &end);
        if (end == txt || *end != '\0') return GS_LINE_BAD;
        q = p;
    }
    p = q < e ? q + 1 : e;

    int32_t *const idx = b->p.idx;
    float *const val = b->p.val;
    int64_t nnz = b->p.nnz;
    int32_t prev = -1, max_index = b->p.max_index;
    for (;;) {
        /* index text: [tok, colon) */
        while (*p == ':') p++;
        if (p == e) break;
        tok = p;
        uint64_t index = 0; /* wraps for > 19 digits, which take the slow path */
        while (gs_is_digit(*p)) index = index * 10 + (uint64_t)(*p++ - '0');
        const char *colon = p;
        const bool fast_index = p > tok && p - tok <= 18 && *p == ':';
        if (!fast_index) {
            colon = memchr(tok, ':', (size_t)(e - tok));
            if (!colon) break;
        }

        /* value token: [v, ...) */
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t') v++;
        if (v == e) {
            if (has_nl) return GS_LINE_BAD; /* the token would be "\n" */
            break;
        }

        int32_t ii;
        if (fast_index) {
            ii = gs_wrap_int32((int64_t)index);
        } else {
            const char *txt = gs_scratch_copy(s, tok, colon, &nomem);
            if (!txt) return nomem ? GS_LINE_NOMEM : GS_LINE_BAD;
            char *end;
            errno = 0;
            const long lv = strtol(txt, &end, 10);
            if (end == txt || errno != 0 || *end != '\0') return GS_LINE_BAD;
            ii = gs_wrap_int32(lv);
        }
        if (ii <= prev) return GS_LINE_BAD;
        prev = ii;

        double d;
        q = gs_fast_decimal(v, &d);
        if (q && (*q == ' ' || *q == '\t' || q == e)) {
            p = q;
        } else if (q && gs_is_space(*q)) { /* \r \v \f end the number; the token goes on */
            p = q;
            while (p < e && *p != ' ' && *p != '\t') p++;
        } else {
            p = v;
            while (p < e && *p != ' ' && *p != '\t') p++;
            const char *txt = gs_scratch_copy(s, v, p, &nomem);
            if (!txt) return nomem ? GS_LINE_NOMEM : GS_LINE_BAD;
            char *end;
            errno = 0;
            d = strtod(txt, &end);
            if (end == txt || errno != 0 || (*end != '\0' && !gs_is_space(*end))) return GS_LINE_BAD;
        }
        if (p < e) p++;

        idx[nnz] = ii;
        val[nnz] = (float)d;
        nnz++;
        if (ii > max_index) max_index = ii;
    }

    const int32_t l = b->p.l;
    b->p.y[l] = label;
    b->p.row_ptr[l + 1] = nnz;
    b->p.nnz = nnz;
    b->p.max_index = max_index;
    b->p.l = l + 1;
    return GS_LINE_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Parser side of the queue                                                                    */

static gs_block *gs_take_block(gs_data_stream *s)
{
    pthread_mutex_lock(&s->mu);
    while (s->nfull == 0) pthread_cond_wait(&s->cv_full, &s->mu);
    gs_block *b = &s->blocks[s->take];
    pthread_mutex_unlock(&s->mu);
    return b;
}

static void gs_release_block(gs_data_stream *s)
{
    pthread_mutex_lock(&s->mu);
    s->take = (s->take + 1) % GS_NBLOCKS;
    s->nfull--;
    pthread_cond_signal(&s->cv_free);
    pthread_mutex_unlock(&s->mu);
}

/* Records a failure so that later calls on the stream repeat it. */
static gs_status gs_stream_fail(gs_data_stream *s, gs_status st)
{
    s->failed = st;
    snprintf(s->fail_msg, sizeof s->fail_msg, "%s", gs_last_error());
    return st;
}

/* Parses up to max_rows rows into b. Returns once the chunk is full without waiting for more
 * input, so a consumer of a pipe gets its rows as soon as they exist. */
static gs_status gs_parse_rows(gs_data_stream *s, int64_t max_rows, gs_build *b)
{
    gs_status st = GS_OK;
    while (!s->eof) {
        if (s->cur && s->pos == s->bend) {
            const gs_block *const c = s->cur;
            if (c->err != GS_OK) {
                char msg[sizeof s->rd_msg];
                memcpy(msg, s->rd_msg, sizeof msg);
                return gs_stream_fail(s, GS_FAIL(c->err, "%s", msg));
            }
            s->eof = c->last;
            s->cur = NULL;
            gs_release_block(s);
            continue;
        }
        if (b->p.l >= max_rows) break;
        if (!s->cur) {
            s->cur = gs_take_block(s);
            if (s->cur->data) {
                s->cur->data[s->cur->len] = '\n'; /* sentinel (room reserved by gs_grow_bytes) */
                s->pos = s->cur->data;
                s->bend = s->cur->data + s->cur->len;
            } else { /* an empty block that only carries an error */
                s->pos = s->bend = "";
            }
            continue;
        }
        const char *const start = s->pos;
        const char *nl = memchr(start, '\n', (size_t)(s->bend - start));
        const char *const e = nl ? nl : s->bend;
        s->pos = nl ? nl + 1 : s->bend;
        s->line++;
        /* a pair takes at least 4 bytes ("1:2" and a blank) */
        st = gs_build_reserve(b, s->path, (int64_t)b->p.l + 1, b->p.nnz + (e - start) / 2 + 1);
        if (st != GS_OK) return gs_stream_fail(s, st);
        const gs_line_result r = gs_parse_line(s, b, start, e, nl != NULL);
        if (r == GS_LINE_BAD)
            return gs_stream_fail(s, GS_FAIL(GS_ERR_FORMAT, "Wrong input format at line %" PRId64, s->line));
        if (r == GS_LINE_NOMEM)
            return gs_stream_fail(s, GS_FAIL(GS_ERR_NOMEM, "out of memory reading %s", s->path));
    }
    return st;
}

static gs_status gs_parse_into(gs_data_stream *s, int64_t max_rows, gs_problem *out)
{
    gs_status st = GS_OK;
    gs_build b = {0};
    memset(out, 0, sizeof *out);
    if (s->failed != GS_OK) return GS_FAIL(s->failed, "%s", s->fail_msg);

    st = gs_build_reserve(&b, s->path, 1, 1);
    if (st != GS_OK) goto cleanup;
    b.p.row_ptr[0] = 0;
    st = gs_parse_rows(s, max_rows, &b);
    if (st != GS_OK) goto cleanup;
    gs_build_shrink(&b);
    *out = b.p;
    b.p = (gs_problem){0};
cleanup:
    gs_problem_free(&b.p);
    return st;
}

gs_status gs_data_stream_next(gs_data_stream *s, int32_t max_rows, gs_problem *chunk)
{
    gs_problem_free(chunk);
    if (max_rows < 1) return GS_FAIL(GS_ERR_ARG, "max_rows must be at least 1 (got %d)", (int)max_rows);
    return gs_parse_into(s, max_rows, chunk);
}

gs_status gs_data_read(const char *path, gs_problem *out)
{
    gs_status st = GS_OK;
    gs_data_stream *s = NULL;
    gs_problem extra = {0};
    memset(out, 0, sizeof *out);

    st = gs_data_stream_open(path, &s);
    if (st != GS_OK) goto cleanup;
    st = gs_parse_into(s, INT32_MAX, out);
    if (st != GS_OK) goto cleanup;
    if (out->l == INT32_MAX) { /* LIBSVM's row count is an int too */
        st = gs_parse_into(s, 1, &extra);
        if (st == GS_OK && extra.l > 0)
            st = GS_FAIL(GS_ERR_FORMAT, "%s has more than %d rows", path, (int)INT32_MAX);
        if (st != GS_OK) gs_problem_free(out);
    }
cleanup:
    gs_problem_free(&extra);
    gs_data_stream_close(s);
    return st;
}

void gs_problem_free(gs_problem *p)
{
    if (!p) return;
    free(p->y);
    free(p->row_ptr);
    free(p->idx);
    free(p->val);
    memset(p, 0, sizeof *p);
}
