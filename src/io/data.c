/* data.c — the LIBSVM sparse reader. A reader thread turns the input (a file, or "-" for standard
 * input; gzip detected by its magic bytes 1f 8b and inflated with zlib) into fixed-size blocks;
 * the calling thread parses those blocks into CSR. One pass, so pipes work, and the queue of
 * blocks is bounded, so streaming huge test files needs bounded memory. A regular file under
 * 256 KiB has nothing to overlap: the calling thread reads its blocks itself, with no thread.
 *
 * Rows are parsed as streams: a line may span any number of blocks, and nothing holds a whole
 * line, so the memory a row takes is its pairs (12 or 16 bytes each), not its text. A number is
 * at most GS_TOKEN_MAX characters (longer ones are format errors with the reason), white space
 * and ignored text of any length are skipped as they stream by, and the first bad token ends the
 * read: a 1 GB line of garbage costs the blocks in flight, not a gigabyte.
 *
 * Tokenizing follows LIBSVM's strtok-based loader exactly (compat §1.2); the comments at
 * gs_parse_row say how each strtok step maps onto the code here. Numbers in the plain decimal
 * shape ("-0.125", "17") that lie whole inside a block take a fast path that gives the same result
 * as strtod; anything else (a number cut by the block's end, hex, inf, exponents, long mantissas,
 * leading \v...) is collected into a bounded token buffer and handed to the C library's
 * strtod/strtol themselves, so odd inputs behave exactly as in LIBSVM. */
#include "io/data.h"
#include "io/pinflate.h"
#include "util/parallel.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum {
    GS_NBLOCKS = 4,            /* blocks in flight between the reader thread and the parser */
    GS_BLOCK_BYTES = 1 << 18,  /* default block size: 4 in flight are 1 MiB; 1 MiB blocks read no faster */
    GS_SMALL_FILE = 1 << 18,   /* a regular file under this is read without a thread */
    GS_RAW_BYTES = 1 << 18,    /* compressed input read per read() when inflating */
    GS_PINFLATE_MIN = 4 << 20, /* a gzip file this large is inflated on several threads */
    /* The longest label, index or value text parsed. %.17g needs 24 characters and "%.100f" of
     * a value near FLT_MAX about 140; a longer number is not data but damage, and refusing it
     * keeps the token buffer small whatever the line. */
    GS_TOKEN_MAX = 4096
};

/* A run of input bytes; lines run on from one block into the next. */
typedef struct gs_block {
    char *data;    /* cap + 1 bytes: the parser puts a '\0' sentinel after the data */
    size_t cap;
    size_t len;
    bool last;     /* nothing follows this block */
    gs_status err; /* reading failed after this block's data; message in the stream's rd_msg */
} gs_block;

struct gs_data_stream {
    char *path; /* for messages */
    gs_data_opts opts;
    size_t block_bytes;

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
    int64_t range_left;     /* a range (opts.length > 0): bytes of it not yet read; else -1 */
    int wake[2];            /* close() writes to wake[1] so a reader blocked on a pipe returns */
    bool gzip;
    bool gz_member_done;    /* the last gzip member ended; more input must start a new one */
    bool raw_eof;
    bool gz_failed;         /* an error came after bytes that were returned: the next call reports it */
    z_stream z;
    bool z_init;
    int pz_threads;         /* > 0: inflate on this many threads (a gzip regular file) */
    gs_pinflate *pz;        /* ... once the magic bytes said gzip */
    unsigned char *raw;     /* compressed input, or the first bytes of plain input */
    size_t raw_cap;         /* its size */
    size_t raw_len;         /* plain mode: bytes of raw not yet handed out */
    size_t raw_off;

    /* parser (calling thread) only */
    bool sync;              /* a small regular file: the parser fills the blocks itself, no thread */
    ssize_t sniff;          /* sync only: gs_sniff's result, at open (a failure goes out in the first block) */
    pthread_t thread;
    bool thread_started;
    gs_block *cur;          /* block being parsed, or NULL */
    const char *pos, *bend; /* parse position in cur; *bend is a '\0' sentinel */
    bool eof;               /* the last block has been parsed */
    int64_t line;           /* physical lines begun so far */
    gs_status row_err;      /* what a GS_ROW_FAIL / GS_END_ERR was: GS_ERR_IO or GS_ERR_NOMEM */
    gs_status failed;       /* sticky: once a call failed, later calls repeat its error */
    char fail_msg[512];
    char why[200];          /* the reason for a format error beyond LIBSVM's, or "" */
    char tok[GS_TOKEN_MAX + 1]; /* a token that crosses a block boundary or needs strtod */
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
        if (s->range_left == 0) return 0;
        if (s->range_left > 0 && (int64_t)cap > s->range_left) cap = (size_t)s->range_left;
        const ssize_t n = read(s->fd, buf, cap);
        if (n > 0 && s->range_left > 0) s->range_left -= n;
        if (n >= 0) return n;
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
        snprintf(s->rd_msg, sizeof s->rd_msg, "can't read input file %s: %s", s->path, strerror(errno));
        return -1;
    }
}

/* Inflated bytes. Concatenated gzip members are read one after another (as gzip -d does); bytes
 * after the last member that do not start another member are ignored (as zlib's gzread does).
 * Returns as soon as some output exists and more input would be needed, so a slow pipe still
 * yields lines promptly. Bytes inflated before an error are returned first and the error comes
 * with the next call, so what is parsed before it does not depend on the block size.
 * @return as gs_raw_read */
static ssize_t gs_gz_read(gs_data_stream *s, char *buf, size_t cap)
{
    if (s->gz_failed) return -1; /* rd_msg holds it */
    s->z.next_out = (unsigned char *)buf;
    s->z.avail_out = cap > UINT_MAX ? UINT_MAX : (unsigned)cap;
    const unsigned want = s->z.avail_out;
    while (s->z.avail_out > 0) {
        if (s->z.avail_in == 0 && !s->raw_eof) {
            if (s->z.avail_out < want) break; /* some output: return it before waiting for input */
            const ssize_t n = gs_raw_read(s, s->raw, s->raw_cap);
            if (n < 0) return n;
            if (n == 0) {
                s->raw_eof = true;
            } else {
                s->z.next_in = s->raw;
                s->z.avail_in = (unsigned)n;
            }
        }
        if (s->gz_member_done) {
            if (s->z.avail_in == 0) break; /* the input ended after a whole member */
            if (s->z.next_in[0] != 0x1f) { /* trailing garbage: ignored */
                s->z.avail_in = 0;
                s->raw_eof = true;
                break;
            }
            if (inflateReset(&s->z) != Z_OK) goto bad;
            s->gz_member_done = false;
        }
        /* at the end of the input too: inflate may hold output that an earlier, full buffer had
         * no room for (a small block), and gives it now */
        const unsigned before = s->z.avail_out;
        const int rc = inflate(&s->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            s->gz_member_done = true;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            goto bad;
        } else if (s->z.avail_in == 0 && s->raw_eof && s->z.avail_out == before) {
            break; /* nothing more to come */
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
    if (s->z.avail_out < want) {
        s->gz_failed = true;
        return (ssize_t)(want - s->z.avail_out);
    }
    return -1;
}

/* Decoded input bytes: plain (the sniffed first bytes first) or inflated. */
static ssize_t gs_source_read(gs_data_stream *s, char *buf, size_t cap)
{
    if (s->opts.text) {
        const size_t n = s->opts.text_len - s->raw_off < cap ? s->opts.text_len - s->raw_off : cap;
        memcpy(buf, s->opts.text + s->raw_off, n);
        s->raw_off += n;
        return (ssize_t)n;
    }
    if (s->pz) return gs_pinflate_read(s->pz, buf, cap, s->rd_msg, sizeof s->rd_msg);
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

/* Whether the n bytes at b begin a gzip member (its magic, 1f 8b). */
static bool gs_gzip_magic(const unsigned char *b, size_t n) { return n >= 2 && b[0] == 0x1f && b[1] == 0x8b; }

/* Reads the first two bytes (fewer at EOF) and chooses plain or gzip. @return as gs_raw_read */
static ssize_t gs_sniff(gs_data_stream *s)
{
    while (s->raw_len < 2) {
        const ssize_t n = gs_raw_read(s, s->raw + s->raw_len, s->raw_cap - s->raw_len);
        if (n < 0) return n;
        if (n == 0) { s->raw_eof = true; break; }
        s->raw_len += (size_t)n;
    }
    if (gs_gzip_magic(s->raw, s->raw_len) && s->pz_threads > 0) {
        const gs_pinflate_opts po = {.threads = s->pz_threads, .chunk_bytes = s->opts.inflate_chunk};
        if (gs_pinflate_open(s->fd, s->path, &po, &s->pz) == GS_OK) {
            s->gzip = true;
            s->raw_len = 0;
            return 1;
        }
    }
    if (gs_gzip_magic(s->raw, s->raw_len)) {
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

/* Fills b with input: up to its capacity, or less after a short read that completed a line (a
 * pipe), so that a consumer of a pipe gets each row as soon as it exists. */
static void gs_fill_block(gs_data_stream *s, gs_block *b)
{
    b->len = 0;
    b->last = false;
    b->err = GS_OK;
    if (!b->data) {
        b->data = malloc(s->block_bytes + 1);
        if (!b->data) {
            snprintf(s->rd_msg, sizeof s->rd_msg, "out of memory reading %s", s->path);
            b->err = GS_ERR_NOMEM;
            b->last = true;
            return;
        }
        b->cap = s->block_bytes;
    }
    while (b->len < b->cap) {
        const size_t room = b->cap - b->len;
        const ssize_t n = gs_source_read(s, b->data + b->len, room);
        if (n == -2 || n == 0) { /* closing, or the end of the input */
            b->last = true;
            return;
        }
        if (n < 0) { /* the bytes before the failure are parsed, then the error is reported */
            b->err = GS_ERR_IO;
            b->last = true;
            return;
        }
        const size_t old = b->len;
        b->len += (size_t)n;
        if ((size_t)n < room && memchr(b->data + old, '\n', (size_t)n)) break;
    }
}

/* Fills b, or, when sniffing failed (sn < 0), makes it an empty last block carrying the error. */
static void gs_produce_block(gs_data_stream *s, gs_block *b, ssize_t sn)
{
    if (sn < 0) {
        b->len = 0;
        b->last = true;
        b->err = sn == -2 ? GS_OK : GS_ERR_IO;
    } else {
        gs_fill_block(s, b);
    }
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

        gs_produce_block(s, b, sn);

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

/* Threads to inflate a gzip regular file of `size` bytes on (0: zlib on the reader thread). */
static int inflate_threads(int asked, int64_t size)
{
    if (asked != 0) return asked > 0 ? asked : 0;
    const int cores = gs_cpu_threads(33);
    return size >= GS_PINFLATE_MIN && cores >= 4 ? cores - 1 : 0;
}

gs_status gs_data_stream_open(const char *path, const gs_data_opts *opts, gs_data_stream **out)
{
    gs_status st = GS_OK;
    gs_data_stream *s = NULL;
    *out = NULL;

    s = calloc(1, sizeof *s);
    if (!s) return GS_FAIL(GS_ERR_NOMEM, "out of memory opening %s", path);
    if (opts) s->opts = *opts;
    s->block_bytes = s->opts.block_bytes ? s->opts.block_bytes : GS_BLOCK_BYTES;
    s->fd = -1;
    s->range_left = -1;
    s->wake[0] = s->wake[1] = -1;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv_full, NULL);
    pthread_cond_init(&s->cv_free, NULL);
    s->path = strdup(path);
    s->raw_cap = GS_RAW_BYTES;
    if (!s->path) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory opening %s", path);
        goto cleanup;
    }

    if (s->opts.text) { /* text in memory: read on the calling thread */
        s->line = s->opts.first_line;
        s->sync = true;
        s->sniff = 1;
        *out = s;
        return GS_OK;
    }
    if (strcmp(path, "-") == 0) {
        s->fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
    } else {
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat sb;
        const int known = s->fd >= 0 && fstat(s->fd, &sb) == 0;
        if (known && S_ISDIR(sb.st_mode)) {
            close(s->fd);
            s->fd = -1;
        }
        /* a small file gets small buffers (blocks 4x its size, for gzip's expansion; rows span
         * blocks, so any size reads the same): opening many small files maps no large blocks */
        if (known && s->fd >= 0 && S_ISREG(sb.st_mode) && s->opts.length == 0)
            s->pz_threads = inflate_threads(s->opts.inflate_threads, (int64_t)sb.st_size);
        if (known && s->fd >= 0 && S_ISREG(sb.st_mode) && sb.st_size >= 0 && (size_t)sb.st_size < GS_SMALL_FILE) {
            const size_t small = (size_t)sb.st_size * 4 < 4096 ? 4096 : (size_t)sb.st_size * 4;
            if (!s->opts.block_bytes) s->block_bytes = small;
            if (small < s->raw_cap) s->raw_cap = small;
            s->sync = true; /* nothing to overlap: starting a thread would cost more than reading */
        }
    }
    if (s->fd < 0) {
        st = GS_FAIL(GS_ERR_IO, "can't open input file %s", path);
        goto cleanup;
    }
    s->raw = malloc(s->raw_cap);
    if (!s->raw) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory opening %s", path);
        goto cleanup;
    }
    if (s->opts.length > 0) { /* a range: plain text read on the calling thread */
        if (lseek(s->fd, (off_t)s->opts.offset, SEEK_SET) < 0) {
            st = GS_FAIL(GS_ERR_IO, "can't read input file %s: %s", path, strerror(errno));
            goto cleanup;
        }
        s->range_left = s->opts.length;
        s->line = s->opts.first_line;
        s->sync = true;
        s->sniff = 1;
        *out = s;
        return GS_OK;
    }
    if (s->sync) {
        s->sniff = gs_sniff(s);
        *out = s;
        return GS_OK;
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
    gs_pinflate_close(s->pz);
    if (s->wake[0] >= 0) close(s->wake[0]);
    if (s->wake[1] >= 0) close(s->wake[1]);
    if (s->fd >= 0) close(s->fd);
    pthread_cond_destroy(&s->cv_free);
    pthread_cond_destroy(&s->cv_full);
    pthread_mutex_destroy(&s->mu);
    free(s->raw);
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
 * The text must be followed by a non-digit (the parser's '\0' sentinel guarantees it).
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
    bool dbl;         /* values go to p.dval, else to p.val */
    int64_t rows_cap; /* capacity of y (row_ptr has one more) */
    int64_t nnz_cap;  /* capacity of idx and val/dval */
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
            !(b->dbl ? gs_realloc_array((void **)&b->p.dval, nc, sizeof *b->p.dval)
                     : gs_realloc_array((void **)&b->p.val, nc, sizeof *b->p.val)))
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
        if (b->dbl) gs_realloc_array((void **)&b->p.dval, nnz, sizeof *b->p.dval);
        else gs_realloc_array((void **)&b->p.val, nnz, sizeof *b->p.val);
    }
    if (nnz == 0) {
        free(b->p.idx);
        free(b->p.val);
        free(b->p.dval);
        b->p.idx = NULL;
        b->p.val = NULL;
        b->p.dval = NULL;
    }
    if (l == 0) {
        free(b->p.y);
        b->p.y = NULL;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Parser side of the queue                                                                    */

static gs_block *gs_take_block(gs_data_stream *s)
{
    if (s->sync) { /* the one block in use is refilled in place */
        gs_block *b = &s->blocks[s->take];
        gs_produce_block(s, b, s->sniff);
        return b;
    }
    pthread_mutex_lock(&s->mu);
    while (s->nfull == 0) pthread_cond_wait(&s->cv_full, &s->mu);
    gs_block *b = &s->blocks[s->take];
    pthread_mutex_unlock(&s->mu);
    return b;
}

static void gs_release_block(gs_data_stream *s)
{
    if (s->sync) return;
    pthread_mutex_lock(&s->mu);
    s->take = (s->take + 1) % GS_NBLOCKS;
    s->nfull--;
    pthread_cond_signal(&s->cv_free);
    pthread_mutex_unlock(&s->mu);
}

/* Results of the scanning helpers below besides a character (0..255). */
enum { GS_END_EOF = -1, /* the input ended */
       GS_END_ERR = -2  /* reading failed; the error is recorded */ };

/* Puts unread input at s->pos, taking the next block once the current one is used up (rows run
 * on across blocks). @return 1 when there is input, 0 at its end, GS_END_ERR when reading failed
 * (recorded with the reader's message) */
static int gs_more(gs_data_stream *s)
{
    while (s->pos == s->bend) {
        if (s->cur) {
            const gs_block *const c = s->cur;
            if (c->err != GS_OK) {
                char msg[sizeof s->rd_msg];
                memcpy(msg, s->rd_msg, sizeof msg); /* written before the block was published */
                s->row_err = GS_FAIL(c->err, "%s", msg);
                return GS_END_ERR;
            }
            s->eof = c->last;
            s->cur = NULL;
            gs_release_block(s);
        }
        if (s->eof) return 0;
        s->cur = gs_take_block(s);
        if (s->cur->data) {
            s->cur->data[s->cur->len] = '\0'; /* sentinel (room reserved by gs_fill_block) */
            s->pos = s->cur->data;
            s->bend = s->cur->data + s->cur->len;
        } else { /* an empty block that only carries an error */
            s->pos = s->bend = "";
        }
    }
    return 1;
}

/* Skips blanks (' ', '\t'): strtok's delimiters before a label or value.
 * @return the next character, GS_END_EOF or GS_END_ERR */
static inline int gs_skip_blanks(gs_data_stream *s)
{
    for (;;) {
        const char *p = s->pos;
        while (*p == ' ' || *p == '\t') p++; /* the '\0' sentinel stops it at the block's end */
        s->pos = p;
        if (p < s->bend) return (unsigned char)*p;
        const int m = gs_more(s);
        if (m <= 0) return m < 0 ? GS_END_ERR : GS_END_EOF;
    }
}

/* Skips ':'s: strtok's delimiters before an index. @return as gs_skip_blanks */
static inline int gs_skip_colons(gs_data_stream *s)
{
    for (;;) {
        const char *p = s->pos;
        while (*p == ':') p++;
        s->pos = p;
        if (p < s->bend) return (unsigned char)*p;
        const int m = gs_more(s);
        if (m <= 0) return m < 0 ? GS_END_ERR : GS_END_EOF;
    }
}

/* Moves to the next character of stop ("\n", " \t\n" or ":\n"), across blocks, skipping text of
 * any length without keeping it. @return that character, GS_END_EOF or GS_END_ERR */
static int gs_skip_to(gs_data_stream *s, const char *stop)
{
    for (;;) {
        const char *p = s->pos;
        for (;;) {
            p += strcspn(p, stop); /* stops at a stop character or at a '\0' */
            if (*p != '\0' || p == s->bend) break;
            p++; /* a NUL byte in skipped text */
        }
        s->pos = p;
        if (p < s->bend) return (unsigned char)*p;
        const int m = gs_more(s);
        if (m <= 0) return m < 0 ? GS_END_ERR : GS_END_EOF;
    }
}

/* The three strtok calls of a line, by the characters that end their token. */
typedef enum { GS_TK_LABEL, GS_TK_INDEX, GS_TK_VALUE } gs_tk;

static inline bool gs_tk_stop(gs_tk kind, char c)
{
    return kind == GS_TK_INDEX ? c == ':' || c == '\n' : c == ' ' || c == '\t' || c == '\n';
}

/* A token in s->tok, NUL-terminated, without the leading white space strtod/strtol skip. */
typedef struct gs_tok {
    const char *s;
    size_t n;
    int end;       /* the character that ended it (not consumed), or GS_END_EOF */
    bool too_long; /* it had more than GS_TOKEN_MAX characters to parse */
} gs_tok;

/* Collects the token at s->pos, across blocks, into s->tok (the general path; the callers try
 * numbers in place first). A value's text ends at its first white space character (\r \v \f;
 * strtod stops there) and the rest of the token is skipped. Too long: a label or value ends the
 * read at once (the line is bad whatever follows); an index only if a ':' follows, since index
 * text with no ':' after it is ignored, so that is scanned for.
 * @return 0, or GS_END_ERR */
static int gs_read_token(gs_data_stream *s, gs_tk kind, gs_tok *t)
{
    size_t n = 0;
    bool lead = true;
    t->too_long = false;
    t->end = GS_END_EOF;
    for (;;) {
        const char *p = s->pos;
        const char *const e = s->bend;
        for (; p < e; p++) {
            const char c = *p;
            if (gs_tk_stop(kind, c)) {
                t->end = (unsigned char)c;
                break;
            }
            if (lead) {
                if (gs_is_space(c)) continue;
                lead = false;
            }
            if (kind == GS_TK_VALUE && gs_is_space(c)) {
                s->pos = p;
                t->end = gs_skip_to(s, " \t\n");
                if (t->end == GS_END_ERR) return GS_END_ERR;
                goto done;
            }
            if (n == GS_TOKEN_MAX) {
                t->too_long = true;
                s->pos = p;
                if (kind != GS_TK_INDEX) goto done;
                t->end = gs_skip_to(s, ":\n");
                if (t->end == GS_END_ERR) return GS_END_ERR;
                goto done;
            }
            s->tok[n++] = c;
        }
        s->pos = p;
        if (p < e) break; /* at a stop character */
        const int m = gs_more(s);
        if (m < 0) return GS_END_ERR;
        if (m == 0) break;
    }
done:
    s->tok[n] = '\0';
    t->s = s->tok;
    t->n = n;
    return 0;
}

/* strtod over a whole token (a label: no errno check in LIBSVM); the token may hold a NUL byte,
 * which makes it malformed (LIBSVM's line reader mangles such lines). */
static bool gs_tok_label(const gs_tok *t, double *out)
{
    const char *const e = t->s + t->n;
    if (t->n == 0 || t->too_long) return false;
    if (gs_fast_decimal(t->s, out) == e) return true;
    char *end;
    *out = strtod(t->s, &end);
    return end == e;
}

static bool gs_tok_value(const gs_tok *t, double *out)
{
    const char *const e = t->s + t->n;
    if (t->n == 0 || t->too_long) return false;
    if (gs_fast_decimal(t->s, out) == e) return true;
    char *end;
    errno = 0;
    *out = strtod(t->s, &end);
    return end == e && errno == 0;
}

static bool gs_tok_index(const gs_tok *t, int32_t *out)
{
    if (t->n == 0 || t->too_long) return false;
    char *end;
    errno = 0;
    const long v = strtol(t->s, &end, 10);
    if (end != t->s + t->n || errno != 0) return false;
    *out = gs_wrap_int32(v);
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Row parsing                                                                                 */

typedef enum { GS_ROW_OK, GS_ROW_BAD, GS_ROW_FAIL } gs_row_result;

/* A format error with a reason beyond LIBSVM's bare message (LIBSVM accepts these inputs or
 * never meets them). */
static gs_row_result gs_bad_why(gs_data_stream *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static gs_row_result gs_bad_why(gs_data_stream *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof s->why, fmt, ap);
    va_end(ap);
    return GS_ROW_BAD;
}

/* Parses one row from s->pos (the start of a line with some input) and appends it. LIBSVM reads
 * the line including its '\n' and tokenizes it with strtok:
 *   label = strtok(line, " \t\n")  -> skip blanks; no token is an error (blank line);
 *   idx   = strtok(NULL, ":")      -> skip ':'s, text up to the next ':' (or the end);
 *   val   = strtok(NULL, " \t")    -> skip blanks, text up to the next blank (or the end);
 *   val == NULL ends the line silently, so trailing text with no ':' is ignored.
 * '\n' is not a value delimiter, so "1:" before a '\n' gives the value token "\n" (an error) while
 * "1:" at the very end of an input without a final newline gives no token (accepted). The '\n'
 * itself never changes a strtod/strtol result, so tokens here end at it. On return s->pos is past
 * the line's '\n' (or at the end of the input). */
static gs_row_result gs_parse_row(gs_data_stream *s, gs_build *b)
{
    gs_tok t;
    int c;

    /* label */
    c = gs_skip_blanks(s);
    if (c == GS_END_ERR) return GS_ROW_FAIL;
    if (c == '\n' || c == GS_END_EOF) return GS_ROW_BAD;
    double label;
    const char *q = gs_fast_decimal(s->pos, &label);
    if (q && (*q == ' ' || *q == '\t' || *q == '\n')) { /* the sentinel is none of these */
        s->pos = q;
        c = (unsigned char)*q;
    } else {
        if (gs_read_token(s, GS_TK_LABEL, &t) < 0) return GS_ROW_FAIL;
        if (t.too_long) return gs_bad_why(s, "the label has more than %d characters", GS_TOKEN_MAX);
        if (!gs_tok_label(&t, &label)) return GS_ROW_BAD;
        c = t.end;
    }
    if (!s->opts.any_label && !isfinite(label))
        return gs_bad_why(s, "label %g is not a finite number (svm-train accepts it and writes a "
                          "meaningless model)", label);
    if (c != GS_END_EOF) s->pos++; /* the delimiter; after a '\n' strtok finds nothing more */

    const bool dbl = s->opts.double_values;
    int64_t nnz = b->p.nnz;
    int32_t prev = -1, max_index = b->p.max_index;
    while (c == ' ' || c == '\t') {
        /* The common shape first, in place: "digits:number" followed by a blank or '\n' inside
         * the block, an ascending index, and room for the pair; the steps are those of the
         * general code below. On any doubt nothing of that pair is consumed and the general code
         * takes it from its start. */
        {
            const char *p = s->pos;
            for (;;) {
                const char *r = p;
                while (*r == ':') r++;
                const char *const i0 = r;
                uint64_t index = 0;
                while (gs_is_digit(*r)) index = index * 10 + (uint64_t)(*r++ - '0');
                if (r == i0 || r - i0 > 18 || *r != ':') break;
                const int32_t ii = gs_wrap_int32((int64_t)index);
                r++;
                while (*r == ' ' || *r == '\t') r++;
                double d;
                q = gs_fast_decimal(r, &d);
                if (!q || (*q != ' ' && *q != '\t' && *q != '\n') || ii <= prev || nnz == b->nnz_cap ||
                    (!dbl && isinf((float)d)))
                    break;
                b->p.idx[nnz] = ii;
                if (dbl) b->p.dval[nnz] = d;
                else b->p.val[nnz] = (float)d;
                nnz++;
                prev = ii;
                if (ii > max_index) max_index = ii;
                p = q + 1;
                if (*q == '\n') {
                    c = '\n';
                    break;
                }
            }
            s->pos = p;
            if (c == '\n') break;
        }

        /* index text */
        c = gs_skip_colons(s);
        if (c == GS_END_ERR) return GS_ROW_FAIL;
        if (c == '\n') {
            s->pos++;
            break;
        }
        if (c == GS_END_EOF) break;
        const char *p = s->pos;
        uint64_t index = 0; /* wraps for > 19 digits, which take the general path */
        while (gs_is_digit(*p)) index = index * 10 + (uint64_t)(*p++ - '0');
        int32_t ii = 0;
        bool index_ok = true, index_long = false;
        if (p > s->pos && p - s->pos <= 18 && *p == ':') {
            ii = gs_wrap_int32((int64_t)index);
            s->pos = p;
        } else {
            if (gs_read_token(s, GS_TK_INDEX, &t) < 0) return GS_ROW_FAIL;
            if (t.end != ':') { /* no ':' before the end of the line: the rest is ignored */
                if (t.end == '\n') s->pos++;
                break;
            }
            index_ok = gs_tok_index(&t, &ii);
            index_long = t.too_long;
        }
        s->pos++; /* the ':' */

        /* value text; the index is checked only once a value token exists, as in LIBSVM */
        c = gs_skip_blanks(s);
        if (c == GS_END_ERR) return GS_ROW_FAIL;
        if (c == GS_END_EOF) break;        /* no value token: the line ends silently */
        if (c == '\n') return GS_ROW_BAD;  /* the value token would be "\n" */
        if (index_long)
            return gs_bad_why(s, "an index has more than %d characters", GS_TOKEN_MAX);
        if (!index_ok || ii <= prev) return GS_ROW_BAD;
        prev = ii;

        double d;
        q = gs_fast_decimal(s->pos, &d);
        if (q && (*q == ' ' || *q == '\t' || *q == '\n')) {
            s->pos = q;
            c = (unsigned char)*q;
        } else if (q && gs_is_space(*q)) { /* \r \v \f end the number; the token goes on */
            s->pos = q;
            c = gs_skip_to(s, " \t\n");
            if (c == GS_END_ERR) return GS_ROW_FAIL;
        } else {
            if (gs_read_token(s, GS_TK_VALUE, &t) < 0) return GS_ROW_FAIL;
            if (t.too_long)
                return gs_bad_why(s, "the value of index %d has more than %d characters", (int)ii,
                                  GS_TOKEN_MAX);
            if (!gs_tok_value(&t, &d)) return GS_ROW_BAD;
            c = t.end;
        }
        /* A float holds every value LIBSVM accepts except finite ones beyond FLT_MAX, which
         * would become infinite and train a model with rho nan. (Values below FLT_MIN become
         * subnormal or 0: a rounding like any other, not an error.) Double values hold all. */
        if (!dbl && isinf((float)d) && !isinf(d))
            return gs_bad_why(s, "value %g of index %d does not fit in single precision "
                              "(gpusvm-train stores values as float, largest %g)", d, (int)ii,
                              (double)FLT_MAX);

        if (nnz == b->nnz_cap) {
            b->p.nnz = nnz;
            if ((s->row_err = gs_build_reserve(b, s->path, (int64_t)b->p.l + 1, nnz + 1)) != GS_OK)
                return GS_ROW_FAIL;
        }
        b->p.idx[nnz] = ii;
        if (dbl) b->p.dval[nnz] = d;
        else b->p.val[nnz] = (float)d;
        nnz++;
        if (ii > max_index) max_index = ii;
        if (c != GS_END_EOF) s->pos++; /* the blank or the '\n' */
    }

    const int32_t l = b->p.l;
    b->p.y[l] = label;
    b->p.row_ptr[l + 1] = nnz;
    b->p.nnz = nnz;
    b->p.max_index = max_index;
    b->p.l = l + 1;
    return GS_ROW_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Chunks                                                                                      */

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
    while (b->p.l < max_rows) {
        const int m = gs_more(s);
        if (m == GS_END_ERR) return gs_stream_fail(s, s->row_err);
        if (m == 0) break;
        s->line++;
        gs_status st = gs_build_reserve(b, s->path, (int64_t)b->p.l + 1, b->p.nnz + 1);
        if (st != GS_OK) return gs_stream_fail(s, st);
        s->why[0] = '\0';
        switch (gs_parse_row(s, b)) {
        case GS_ROW_OK: break;
        case GS_ROW_BAD:
            /* the first line is LIBSVM's message, exactly; a reason of our own goes below it */
            if (s->why[0])
                st = GS_FAIL(GS_ERR_FORMAT, "Wrong input format at line %" PRId64 "\n%s", s->line,
                             s->why);
            else
                st = GS_FAIL(GS_ERR_FORMAT, "Wrong input format at line %" PRId64, s->line);
            return gs_stream_fail(s, st);
        case GS_ROW_FAIL: /* recorded by gs_more (reading) or gs_build_reserve (memory) */
            return gs_stream_fail(s, s->row_err);
        }
    }
    return GS_OK;
}

static gs_status gs_parse_into(gs_data_stream *s, int64_t max_rows, gs_problem *out)
{
    gs_status st = GS_OK;
    gs_build b = {.dbl = s->opts.double_values};
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

/* ------------------------------------------------------------------------------------------ */
/* gs_data_read's parallel parse: a large plain regular file is split into ranges of whole lines,
 * each parsed on its own thread (a stream over the range), and the rows are joined in file order.
 * The first failing range in file order is parsed again on the calling thread with its lines
 * numbered from the lines before it, so errors are those of a reading from the start. */

#define GS_PAR_MIN ((int64_t)64 << 20) /* bytes: smaller files parse on one thread */
#define GS_PAR_MAX 32                   /* ranges at most */

typedef struct range_job {
    const char *path;
    const char *text; /* a piece of inflated text (read_gzip_ranges), or NULL: the file's bytes */
    int64_t off, len, first_line;
    gs_problem p;
    int64_t lines;  /* lines the range held (when it parsed) */
    gs_status st;
} range_job;

static gs_status range_parse(range_job *j)
{
    const gs_data_opts o = j->text ? (gs_data_opts){.text = j->text, .text_len = (size_t)j->len}
                                   : (gs_data_opts){.offset = j->off, .length = j->len,
                                                    .first_line = j->first_line};
    gs_data_stream *s = NULL;
    gs_status st = gs_data_stream_open(j->path, &o, &s);
    if (st == GS_OK) st = gs_parse_into(s, INT32_MAX, &j->p);
    if (s) j->lines = s->line - j->first_line;
    gs_data_stream_close(s);
    return st;
}

static void *range_run(void *arg)
{
    range_job *j = arg;
    j->st = range_parse(j);
    return NULL;
}

/* The first line start at or after pos (0 < pos < size): just after the first newline from byte
 * pos - 1 on, or size. */
static int64_t line_start_at(int fd, int64_t pos, int64_t size)
{
    char buf[1 << 16];
    for (int64_t p = pos - 1; p < size;) {
        const ssize_t n = pread(fd, buf, sizeof buf, (off_t)p);
        if (n <= 0) return size;
        const char *nl = memchr(buf, '\n', (size_t)n);
        if (nl) return p + (nl - buf) + 1;
        p += n;
    }
    return size;
}

/* Joins the ranges' rows in order into out (the parts are freed as they are copied). */
static gs_status range_join(const char *path, range_job *j, int n, int64_t rows, int64_t nnz, gs_problem *out)
{
    out->l = (int32_t)rows;
    out->nnz = nnz;
    out->y = malloc(sizeof *out->y * (size_t)(rows > 0 ? rows : 1));
    out->row_ptr = malloc(sizeof *out->row_ptr * (size_t)(rows + 1));
    out->idx = malloc(sizeof *out->idx * (size_t)(nnz > 0 ? nnz : 1));
    out->val = malloc(sizeof *out->val * (size_t)(nnz > 0 ? nnz : 1));
    if (!out->y || !out->row_ptr || !out->idx || !out->val) return GS_FAIL(GS_ERR_NOMEM, "out of memory reading %s", path);
    int64_t r0 = 0, e0 = 0;
    out->row_ptr[0] = 0;
    for (int i = 0; i < n; i++) {
        const gs_problem *p = &j[i].p;
        memcpy(out->y + r0, p->y, sizeof *p->y * (size_t)p->l);
        for (int32_t r = 0; r < p->l; r++) out->row_ptr[r0 + r + 1] = e0 + p->row_ptr[r + 1];
        memcpy(out->idx + e0, p->idx, sizeof *p->idx * (size_t)p->nnz);
        memcpy(out->val + e0, p->val, sizeof *p->val * (size_t)p->nnz);
        if (p->max_index > out->max_index) out->max_index = p->max_index;
        r0 += p->l;
        e0 += p->nnz;
        gs_problem_free(&j[i].p);
    }
    return GS_OK;
}

/* The parallel read of a plain file open on fd; *whole set when the file must be read from the
 * start by the stream instead (a transient failure that did not repeat, or INT32_MAX rows or more). */
static gs_status read_ranges(int fd, const char *path, int64_t size, int nt, gs_problem *out,
                             int *whole)
{
    gs_status st = GS_OK;
    range_job *j = calloc((size_t)nt, sizeof *j);
    int n = 0;
    if (!j) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory reading %s", path);
        goto cleanup;
    }
    for (int64_t start = 0, i = 1; start < size; i++) {
        const int64_t end = i >= nt ? size : line_start_at(fd, size * i / nt > start ? size * i / nt : start + 1, size);
        j[n++] = (range_job){.path = path, .off = start, .len = end - start};
        start = end;
    }
    gs_parallel_run(j, sizeof *j, n, range_run);
    int64_t before = 0, rows = 0, nnz = 0;
    for (int i = 0; i < n; i++) {
        if (j[i].st != GS_OK) { /* again on this thread, its lines numbered in the file */
            gs_problem_free(&j[i].p);
            j[i].first_line = before;
            st = range_parse(&j[i]);
            if (st == GS_OK) *whole = 1;
            goto cleanup;
        }
        before += j[i].lines;
        rows += j[i].p.l;
        nnz += j[i].p.nnz;
    }
    if (rows >= INT32_MAX) {
        *whole = 1;
        goto cleanup;
    }
    st = range_join(path, j, n, rows, nnz, out);
    if (st != GS_OK) gs_problem_free(out);
cleanup:
    for (int i = 0; j && i < n; i++) gs_problem_free(&j[i].p);
    free(j);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* gs_data_read's parallel read of a large gzip file: inflated on several threads (io/pinflate.c)
 * into segments of whole lines, each segment cut into one piece a thread and parsed from memory,
 * the rows appended in file order. Any error (of inflating or of a line), and a line longer than
 * a segment, send the file to the stream, read from the start, so that errors are exactly a
 * one-thread reading's and memory never follows a line's length. */

#define GS_SEGMENT_BYTES ((size_t)32 << 20) /* inflated text parsed at a time */

typedef struct seg_read {
    const char *path;
    gs_pinflate *pz;
    char *buf;
    size_t cap, len; /* len: bytes held (the start of a line cut by the last segment first) */
    bool eof;
    range_job *jobs;  /* a segment's pieces */
    gs_problem acc;   /* the rows so far, in file order */
    size_t rows_cap, nnz_cap;
} seg_read;

/* Grows two arrays of `*cap` elements (of sa and sb bytes) to hold `need`, by an eighth at least
 * (large blocks grow by mremap: no copy). @return 0, -1 */
static int grow_pair(void **a, size_t sa, void **b, size_t sb, size_t *cap, size_t need)
{
    if (need <= *cap && *a && *b) return 0;
    size_t nc = *cap + *cap / 8 + 4096;
    if (nc < need) nc = need;
    void *na = realloc(*a, nc * sa);
    if (!na) return -1;
    *a = na;
    void *nb = realloc(*b, nc * sb);
    if (!nb) return -1;
    *b = nb;
    *cap = nc;
    return 0;
}

/* Room in r->acc for `rows` rows (row_ptr one more) and `nnz` pairs (at least one, so that a read
 * of no rows has its arrays too). @return 0, -1 */
static int acc_reserve(seg_read *r, size_t rows, size_t nnz)
{
    gs_problem *const a = &r->acc;
    void *y = a->y, *rp = a->row_ptr, *ix = a->idx, *v = a->val;
    const int rc = grow_pair(&y, sizeof *a->y, &rp, sizeof *a->row_ptr, &r->rows_cap, rows + 1) ||
                   grow_pair(&ix, sizeof *a->idx, &v, sizeof *a->val, &r->nnz_cap, nnz ? nnz : 1);
    a->y = y;
    a->row_ptr = rp;
    a->idx = ix;
    a->val = v;
    return rc ? -1 : 0;
}

/* Appends piece p's rows to r->acc (so a piece's memory goes as soon as it is parsed).
 * @return 0, or -1 (no memory, or INT32_MAX rows: the stream decides) */
static int append_rows(seg_read *r, const gs_problem *p)
{
    gs_problem *const a = &r->acc;
    if ((int64_t)a->l + p->l >= INT32_MAX) return -1;
    const size_t rows = (size_t)a->l + (size_t)p->l, nnz = (size_t)a->nnz + (size_t)p->nnz;
    if (acc_reserve(r, rows, nnz)) return -1;
    if (p->l > 0) memcpy(a->y + a->l, p->y, sizeof *p->y * (size_t)p->l);
    a->row_ptr[0] = 0;
    for (int32_t i = 0; i < p->l; i++) a->row_ptr[a->l + i + 1] = a->nnz + p->row_ptr[i + 1];
    if (p->nnz > 0) {
        memcpy(a->idx + a->nnz, p->idx, sizeof *p->idx * (size_t)p->nnz);
        memcpy(a->val + a->nnz, p->val, sizeof *p->val * (size_t)p->nnz);
    }
    if (p->max_index > a->max_index) a->max_index = p->max_index;
    a->l = (int32_t)rows;
    a->nnz = (int64_t)nnz;
    return 0;
}

/* Parses buf[0..n) (whole lines) in nt pieces on threads and appends their rows in order.
 * @return 0, or -1 (a piece failed, or appending did: the stream decides) */
static int parse_segment(seg_read *r, size_t n, int nt)
{
    range_job *const j = r->jobs;
    int k = 0;
    for (size_t start = 0; start < n; k++) {
        size_t end = n;
        if (k + 1 < nt) {
            const size_t at = start + (n - start) / (size_t)(nt - k);
            const char *nl = at > start ? memchr(r->buf + at - 1, '\n', n - (at - 1)) : NULL;
            end = nl ? (size_t)(nl - r->buf) + 1 : n;
        }
        j[k] = (range_job){.path = r->path, .text = r->buf + start, .len = (int64_t)(end - start)};
        start = end;
    }
    gs_parallel_run(j, sizeof *j, k, range_run);
    int rc = 0;
    for (int i = 0; i < k; i++) {
        if (rc == 0 && (j[i].st != GS_OK || append_rows(r, &j[i].p))) rc = -1;
        gs_problem_free(&j[i].p);
    }
    return rc;
}

/* Fills r->buf to a segment: inflated bytes up to its capacity, cut after the last newline (the
 * rest carried to the next). A line longer than the segment is left to the stream, whose memory
 * follows a line's pairs, not its length. @return the segment's bytes, or -1 (an inflating error
 * or such a line: the stream decides) */
static int64_t next_segment(seg_read *r)
{
    char msg[256];
    while (!r->eof && r->len < r->cap) {
        const ssize_t got = gs_pinflate_read(r->pz, r->buf + r->len, r->cap - r->len, msg, sizeof msg);
        if (got < 0) return -1;
        if (got == 0) r->eof = true;
        r->len += (size_t)got;
    }
    if (r->eof) return (int64_t)r->len;
    for (size_t i = r->len; i > 0; i--)
        if (r->buf[i - 1] == '\n') return (int64_t)i;
    return -1;
}

/* After the first segment (n bytes of text): room for the rows and pairs the whole text should
 * hold at the same rate (gzip's ISIZE gives its length), so that the result grows once, not by
 * steps that leave the allocator's heap fragmented. A wrong hint only costs the steps. */
static void reserve_by_hint(seg_read *r, uint64_t n)
{
    const uint64_t text = gs_pinflate_size_hint(r->pz);
    if (r->eof || text <= n || r->acc.l == 0) return;
    double f = (double)text / (double)n * 1.02;
    if (f > 64) f = 64; /* ISIZE may be bytes after the last member; untouched room costs no RAM */
    const double rows = (double)r->acc.l * f + 4096, nnz = (double)r->acc.nnz * f + 4096;
    if (rows < INT32_MAX && nnz < 1e12) acc_reserve(r, (size_t)rows, (size_t)nnz);
}

/* *whole set when the stream must read the file instead (then no message is left). */
static gs_status read_gzip_ranges(int fd, const char *path, const gs_data_opts *o, int nt,
                                  gs_problem *out, int *whole)
{
    seg_read r = {.path = path, .cap = o->block_bytes ? o->block_bytes : GS_SEGMENT_BYTES};
    const gs_pinflate_opts po = {.threads = nt, .chunk_bytes = o->inflate_chunk};
    *whole = 1;
    if (gs_pinflate_open(fd, path, &po, &r.pz) != GS_OK) goto cleanup;
    r.buf = malloc(r.cap);
    r.jobs = calloc((size_t)nt, sizeof *r.jobs);
    if (!r.buf || !r.jobs) goto cleanup;
    for (uint64_t done = 0;;) {
        const int64_t n = next_segment(&r);
        if (n < 0) goto cleanup;
        if (n == 0) break;
        if (parse_segment(&r, (size_t)n, nt)) goto cleanup;
        if (done == 0) reserve_by_hint(&r, (uint64_t)n);
        done += (uint64_t)n;
        memmove(r.buf, r.buf + n, r.len - (size_t)n);
        r.len -= (size_t)n;
    }
    if (acc_reserve(&r, (size_t)r.acc.l, 1)) goto cleanup; /* a read of no rows too */
    r.acc.row_ptr[0] = 0;
    *out = r.acc;
    memset(&r.acc, 0, sizeof r.acc);
    *whole = 0;
cleanup:
    if (*whole) gs_clear_error();
    gs_problem_free(&r.acc);
    free(r.jobs);
    free(r.buf);
    gs_pinflate_close(r.pz);
    return GS_OK;
}

/* The parallel reads of a regular file: gzip inflated on threads, or a plain file of GS_PAR_MIN
 * bytes or more in ranges (with a second core). One open for the choice and the read.
 * @return as read_ranges; *whole set when the stream must read the file (neither applies, or it
 *         was handed back; also when the file cannot be opened: the stream says so) */
static gs_status read_parallel(const char *path, const gs_data_opts *o, gs_problem *out, int *whole)
{
    gs_status st = GS_OK;
    struct stat sb;
    unsigned char magic[2];
    *whole = 1;
    const int fd = strcmp(path, "-") == 0 ? -1 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return GS_OK;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        const int64_t size = (int64_t)sb.st_size;
        if (pread(fd, magic, 2, 0) == 2 && gs_gzip_magic(magic, 2)) {
            const int nt = inflate_threads(o->inflate_threads, size);
            if (nt > 0) st = read_gzip_ranges(fd, path, o, nt, out, whole);
        } else if (size >= GS_PAR_MIN && gs_cpu_threads(GS_PAR_MAX) > 1) {
            *whole = 0;
            st = read_ranges(fd, path, size, gs_cpu_threads(GS_PAR_MAX), out, whole);
        }
    }
    close(fd);
    return st;
}

gs_status gs_data_read(const char *path, gs_problem *out)
{
    return gs_data_read_with(path, NULL, out);
}

gs_status gs_data_read_with(const char *path, const gs_data_opts *opts, gs_problem *out)
{
    gs_status st = GS_OK;
    gs_data_stream *s = NULL;
    gs_problem extra = {0};
    const gs_data_opts none = {0}, *o = opts ? opts : &none;
    const gs_data_opts so = {.inflate_threads = o->inflate_threads, .inflate_chunk = o->inflate_chunk};
    memset(out, 0, sizeof *out);
    int whole = 0;
    st = read_parallel(path, o, out, &whole);
    if (!whole) return st;
    gs_problem_free(out);
    st = GS_OK;

    st = gs_data_stream_open(path, &so, &s);
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
    free(p->dval);
    memset(p, 0, sizeof *p);
}

/* One thread's rows [i0, i1) of gs_problem_subset (row_ptr already laid out). */
typedef struct subset_job {
    const gs_problem *prob;
    const int32_t *rows;
    gs_problem *out;
    int32_t i0, i1;
    int32_t max_index;
} subset_job;

static void *subset_run(void *arg)
{
    subset_job *j = arg;
    const gs_problem *prob = j->prob;
    gs_problem *out = j->out;
    for (int32_t i = j->i0; i < j->i1; i++) {
        const int64_t b = prob->row_ptr[j->rows[i]], e = prob->row_ptr[j->rows[i] + 1], o = out->row_ptr[i];
        memcpy(out->idx + o, prob->idx + b, sizeof *out->idx * (size_t)(e - b));
        memcpy(out->val + o, prob->val + b, sizeof *out->val * (size_t)(e - b));
        if (e > b && prob->idx[e - 1] > j->max_index) j->max_index = prob->idx[e - 1];
        out->y[i] = prob->y[j->rows[i]];
    }
    return NULL;
}

gs_status gs_problem_subset(const gs_problem *prob, const int32_t *rows, int32_t n, gs_problem *out)
{
    enum { MAXT = 16 };
    memset(out, 0, sizeof *out);
    if (n < 0) return GS_FAIL(GS_ERR_ARG, "a subset of %d rows", (int)n);
    const size_t nr = (size_t)n;
    out->y = malloc(sizeof *out->y * (nr ? nr : 1));
    out->row_ptr = malloc(sizeof *out->row_ptr * (nr + 1));
    if (!out->y || !out->row_ptr) {
        gs_problem_free(out);
        return GS_FAIL(GS_ERR_NOMEM, "out of memory copying %d rows", (int)n);
    }
    int64_t nnz = 0;
    out->row_ptr[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        nnz += prob->row_ptr[rows[i] + 1] - prob->row_ptr[rows[i]];
        out->row_ptr[i + 1] = nnz;
    }
    const size_t nz = nnz > 0 ? (size_t)nnz : 1;
    out->idx = malloc(sizeof *out->idx * nz);
    out->val = malloc(sizeof *out->val * nz);
    if (!out->idx || !out->val) {
        gs_problem_free(out);
        return GS_FAIL(GS_ERR_NOMEM, "out of memory copying %d rows", (int)n);
    }
    /* large copies on the cores (most of it is faulting in the new pages), split by stored values */
    const int nt = nnz < (1 << 20) ? 1 : gs_cpu_threads(MAXT);
    subset_job jobs[MAXT];
    int32_t i = 0;
    for (int t = 0; t < nt; t++) {
        const int64_t goal = nnz * (t + 1) / nt;
        const int32_t i0 = i;
        while (i < n && (t == nt - 1 || out->row_ptr[i + 1] <= goal)) i++;
        jobs[t] = (subset_job){.prob = prob, .rows = rows, .out = out, .i0 = i0, .i1 = t == nt - 1 ? n : i};
    }
    gs_parallel_run(jobs, sizeof jobs[0], nt, subset_run);
    for (int t = 0; t < nt; t++)
        if (jobs[t].max_index > out->max_index) out->max_index = jobs[t].max_index;
    out->l = n;
    out->nnz = nnz;
    return GS_OK;
}
