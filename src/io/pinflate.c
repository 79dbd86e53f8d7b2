/* pinflate.c — see pinflate.h. The reader (the caller of gs_pinflate_read) runs in one of four
 * modes: PAR serves confirmed chunks; SERIAL runs zlib (raw deflate, primed with the confirmed
 * position's bits and window) until it reaches a block boundary where a later chunk starts; at a
 * member's end the trailer is checked; REST reads what follows the first member with zlib's gzip
 * mode, as data.c's serial reader does. */
#include "io/pinflate.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zlib.h>

#include "io/deflate.h"

enum { M_PAR, M_SERIAL, M_TRAILER, M_REST, M_END };
/* a slot's life: claimed and decoded by a worker; accepted by the reader, which posts it with its
 * window; its wide part resolved to bytes in place by a worker (or the reader); served; freed */
enum { S_FREE, S_DECODING, S_DECODED, S_POSTED, S_RESOLVING, S_RESOLVED };

typedef struct slot {
    int state;
    int rc;              /* 0: decoded from start; else nothing usable */
    uint64_t start;      /* the block boundary it decoded from */
    uint32_t crc_wide;   /* CRC-32 of the wide part once resolved */
    uint32_t crc_narrow; /* CRC-32 of ch.narrow */
    uint8_t *win;        /* posted: the GS_DFL_WINDOW bytes before the chunk */
    gs_dfl_chunk ch;
} slot;

struct gs_pinflate {
    const uint8_t *in;
    size_t len;
    char *path;
    size_t data_off; /* the first member's deflate data */
    size_t chunk_bytes, out_soft;
    int nchunks, ahead; /* chunks; how many may be claimed past the oldest one still held */
    slot *slots;

    pthread_mutex_t mu;
    pthread_cond_t cv_done, cv_room;
    int next_claim, released; /* released: the oldest slot still held */
    atomic_bool closing;
    pthread_t *th;
    int nth;
    gs_dfl_chunk *pool; /* output buffers of served chunks, for the next decodings */
    int npool;

    /* reader only */
    int mode;
    int acc;           /* the next chunk to look at (SERIAL: the one to resync with) */
    uint64_t pos;      /* a confirmed block boundary: what is accepted ends here */
    uint8_t win[GS_DFL_WINDOW];
    size_t wv;         /* valid bytes at the end of win (the output before pos) */
    int *queue;        /* accepted chunks not yet served, in order */
    int qh, qt;
    bool serving;      /* the queue's head has begun to be served */
    size_t off;        /* bytes of it served */
    bool want_serial;  /* once the queue is served: zlib from pos, resyncing with acc */
    bool member_end;   /* the first member's last block is accepted (trailer next) */
    uint32_t crc;
    uint64_t isize;
    size_t trailer;    /* byte offset of the trailer, then of what follows it */
    z_stream z;
    bool z_init, z_in_member;
    bool failed;
    char err[320];
    gs_pinflate_stats stats;
    size_t dropped; /* the mapping's pages below this are given back (nobody reads them again) */
};

/* ------------------------------------------------------------------------------------------ */
/* Workers                                                                                     */

static uint64_t chunk_lo(const gs_pinflate *p, int k)
{
    return 8 * (uint64_t)(p->data_off + (size_t)k * p->chunk_bytes);
}

static uint64_t chunk_hi(const gs_pinflate *p, int k)
{
    return k + 1 >= p->nchunks ? 8 * (uint64_t)p->len : chunk_lo(p, k + 1);
}

static uint32_t crc_of(uint32_t crc, const uint8_t *b, size_t n)
{
    while (n > 0) {
        const unsigned part = n > (1u << 30) ? 1u << 30 : (unsigned)n;
        crc = (uint32_t)crc32(crc, b, part);
        b += part;
        n -= part;
    }
    return crc;
}

/* Chunk k: the first header in its range that decodes (chunk 0: the member's first block). */
static void do_decode(gs_pinflate *p, int k)
{
    slot *const s = &p->slots[k];
    const uint64_t lo = chunk_lo(p, k), hi = chunk_hi(p, k);
    s->rc = -1;
    gs_dfl_chunk bufs = {0};
    pthread_mutex_lock(&p->mu);
    if (p->npool > 0) bufs = p->pool[--p->npool];
    pthread_mutex_unlock(&p->mu);
    s->ch = bufs;
    for (uint64_t from = lo; !atomic_load(&p->closing);) {
        const uint64_t at = k == 0 ? lo : gs_dfl_find_block(p->in, p->len, from, hi);
        if (at == UINT64_MAX) return;
        s->ch.in = p->in;
        s->ch.in_len = p->len;
        s->ch.start_bit = at;
        s->ch.stop_bit = hi;
        s->ch.out_soft = p->out_soft;
        s->ch.out_hard = 2 * p->out_soft;
        const int rc = gs_dfl_decode_chunk(&s->ch);
        if (rc == 0) {
            s->rc = 0;
            s->start = at;
            s->crc_narrow = crc_of((uint32_t)crc32(0, NULL, 0), s->ch.narrow, s->ch.nnarrow);
            return;
        }
        if (rc == -2 || k == 0) return;
        from = at + 1;
    }
}

/* n 16-bit symbols to bytes, window markers through win (the GS_DFL_WINDOW bytes before them),
 * by a table without a branch; out may be the symbols' own memory (byte i is written after
 * symbol i is read). */
static void resolve_syms(uint8_t *out, const uint16_t *w, size_t n, const uint8_t *win)
{
    uint8_t map[GS_DFL_MARK + GS_DFL_WINDOW];
    for (unsigned v = 0; v < GS_DFL_MARK; v++) map[v] = (uint8_t)v;
    memcpy(map + GS_DFL_MARK, win, GS_DFL_WINDOW);
    for (size_t i = 0; i < n; i++) out[i] = map[w[i]];
}

/* A posted chunk's wide symbols to bytes, in place, and their CRC-32. */
static void do_resolve(slot *s)
{
    uint8_t *const b = (uint8_t *)s->ch.wide;
    resolve_syms(b, s->ch.wide, s->ch.nwide, s->win);
    s->crc_wide = crc_of((uint32_t)crc32(0, NULL, 0), b, s->ch.nwide);
}

/* Under mu: a posted chunk to resolve (they come first: the reader waits on them), or -1. */
static int posted(const gs_pinflate *p)
{
    for (int k = p->released; k < p->next_claim; k++)
        if (p->slots[k].state == S_POSTED) return k;
    return -1;
}

static void *worker_main(void *arg)
{
    gs_pinflate *const p = arg;
    pthread_mutex_lock(&p->mu);
    while (!atomic_load(&p->closing)) {
        const int r = posted(p);
        if (r >= 0) {
            p->slots[r].state = S_RESOLVING;
            pthread_mutex_unlock(&p->mu);
            do_resolve(&p->slots[r]);
            pthread_mutex_lock(&p->mu);
            p->slots[r].state = S_RESOLVED;
            pthread_cond_broadcast(&p->cv_done);
        } else if (p->next_claim < p->nchunks && p->next_claim < p->released + p->ahead) {
            const int k = p->next_claim++;
            p->slots[k].state = S_DECODING;
            pthread_mutex_unlock(&p->mu);
            do_decode(p, k);
            pthread_mutex_lock(&p->mu);
            p->slots[k].state = S_DECODED;
            pthread_cond_broadcast(&p->cv_done);
        } else {
            pthread_cond_wait(&p->cv_room, &p->mu);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Reader: chunks                                                                              */

static int state_of(gs_pinflate *p, int k)
{
    pthread_mutex_lock(&p->mu);
    const int st = p->slots[k].state;
    pthread_mutex_unlock(&p->mu);
    return st;
}

static slot *wait_decoded(gs_pinflate *p, int k)
{
    pthread_mutex_lock(&p->mu);
    while (p->slots[k].state < S_DECODED) pthread_cond_wait(&p->cv_done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return &p->slots[k];
}

/* The queue's head resolved: by a worker, or here when none has taken it yet. */
static slot *wait_resolved(gs_pinflate *p, int k)
{
    slot *const s = &p->slots[k];
    pthread_mutex_lock(&p->mu);
    if (s->state == S_POSTED) {
        s->state = S_RESOLVING;
        pthread_mutex_unlock(&p->mu);
        do_resolve(s);
        pthread_mutex_lock(&p->mu);
        s->state = S_RESOLVED;
    }
    while (s->state != S_RESOLVED) pthread_cond_wait(&p->cv_done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return s;
}

/* Done with chunk s: its buffers go to the pool while it has room. */
static void drop(gs_pinflate *p, slot *s)
{
    pthread_mutex_lock(&p->mu);
    if (p->pool && p->npool < p->ahead && (s->ch.wbuf || s->ch.nbuf)) {
        p->pool[p->npool++] = (gs_dfl_chunk){.wbuf = s->ch.wbuf, .wcap = s->ch.wcap,
                                             .nbuf = s->ch.nbuf, .ncap = s->ch.ncap};
        s->ch.wbuf = NULL;
        s->ch.nbuf = NULL;
    }
    pthread_mutex_unlock(&p->mu);
    gs_dfl_chunk_free(&s->ch);
    free(s->win);
    s->win = NULL;
}

/* The oldest slot still held moved: workers may claim further. */
static void update_released(gs_pinflate *p)
{
    const int r = p->qh < p->qt ? p->queue[p->qh] : p->acc;
    pthread_mutex_lock(&p->mu);
    if (r > p->released) p->released = r;
    pthread_cond_broadcast(&p->cv_room);
    pthread_mutex_unlock(&p->mu);
}

static void stop_workers(gs_pinflate *p)
{
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->closing, true);
    pthread_cond_broadcast(&p->cv_room);
    pthread_mutex_unlock(&p->mu);
}

static void window_push(gs_pinflate *p, const uint8_t *b, size_t n)
{
    if (n == 0) return;
    if (n >= GS_DFL_WINDOW) {
        memcpy(p->win, b + n - GS_DFL_WINDOW, GS_DFL_WINDOW);
        p->wv = GS_DFL_WINDOW;
        return;
    }
    memmove(p->win, p->win + n, GS_DFL_WINDOW - n);
    memcpy(p->win + GS_DFL_WINDOW - n, b, n);
    p->wv = p->wv + n > GS_DFL_WINDOW ? GS_DFL_WINDOW : p->wv + n;
}

/* Whether a chunk starting at pos reaches before the data decoded so far (zlib then decides). */
static bool reaches_too_far(const gs_pinflate *p, const slot *s)
{
    if (p->wv == GS_DFL_WINDOW) return false;
    const size_t lowest = GS_DFL_WINDOW - p->wv;
    for (size_t i = 0; i < s->ch.nwide; i++)
        if (s->ch.wide[i] >= GS_DFL_MARK && (size_t)(s->ch.wide[i] - GS_DFL_MARK) < lowest) return true;
    return false;
}

/* The compressed bytes before the confirmed position are read by nobody again: their pages
 * leave the process's resident set (they stay in the page cache), 16 MiB at a time. */
static void drop_behind(gs_pinflate *p)
{
    const size_t page = 4096, upto = (size_t)(p->pos / 8) / page * page;
    if (upto < p->dropped + ((size_t)16 << 20)) return;
    madvise((char *)(uintptr_t)p->in + p->dropped, upto - p->dropped, MADV_DONTNEED);
    p->dropped = upto;
}

/* Accepts chunk s (it starts at pos): posts it with the window and moves the window past it. */
static int accept(gs_pinflate *p, int k)
{
    slot *const s = &p->slots[k];
    s->win = malloc(GS_DFL_WINDOW);
    if (!s->win) return -2;
    memcpy(s->win, p->win, GS_DFL_WINDOW);
    const size_t nw = s->ch.nwide, nn = s->ch.nnarrow;
    const size_t tw = nn >= GS_DFL_WINDOW ? 0 : (nw < GS_DFL_WINDOW - nn ? nw : GS_DFL_WINDOW - nn);
    uint8_t tail[GS_DFL_WINDOW];
    resolve_syms(tail, s->ch.wide + nw - tw, tw, p->win);
    window_push(p, tail, tw);
    if (nn) window_push(p, s->ch.narrow + (nn > GS_DFL_WINDOW ? nn - GS_DFL_WINDOW : 0),
                        nn > GS_DFL_WINDOW ? GS_DFL_WINDOW : nn);
    p->pos = s->ch.end_bit;
    if (s->ch.final) p->member_end = true;
    drop_behind(p);
    p->queue[p->qt++] = k;
    pthread_mutex_lock(&p->mu);
    s->state = S_POSTED;
    pthread_cond_broadcast(&p->cv_room);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

/* Accepts the chunks that start where the last accepted one ends, as far as they are decoded
 * (block: waits for the next one when nothing is queued). Stops at the first that does not
 * continue the data (want_serial) and at the member's end. @return 0, -2 out of memory */
static int accept_more(gs_pinflate *p, bool block)
{
    while (!p->member_end && !p->want_serial && p->qt - p->qh < p->ahead) {
        const int k = p->acc;
        if (k >= p->nchunks) {
            p->want_serial = true;
            break;
        }
        if (!(block && p->qh == p->qt) && state_of(p, k) < S_DECODED) break;
        slot *const s = wait_decoded(p, k);
        if (s->rc != 0 || s->start < p->pos) {
            drop(p, s);
            p->acc++;
            update_released(p);
            continue;
        }
        if (s->start > p->pos || reaches_too_far(p, s)) {
            p->want_serial = true;
            break;
        }
        if (accept(p, k)) return -2;
        p->acc++;
        block = false;
    }
    return 0;
}

static void go_serial(gs_pinflate *p);

/* PAR: serves the queue's head, accepting more on the way. @return bytes copied */
static size_t serve(gs_pinflate *p, char *buf, size_t cap)
{
    if (accept_more(p, p->qh == p->qt)) {
        snprintf(p->err, sizeof p->err, "out of memory reading %s", p->path);
        p->failed = true;
        return 0;
    }
    if (p->qh == p->qt) {
        if (p->member_end) {
            p->trailer = (size_t)((p->pos + 7) / 8);
            p->mode = M_TRAILER;
        } else if (p->want_serial) {
            go_serial(p);
        }
        return 0;
    }
    const int k = p->queue[p->qh];
    slot *const s = wait_resolved(p, k);
    const size_t nw = s->ch.nwide, nn = s->ch.nnarrow;
    if (!p->serving) {
        p->serving = true;
        p->off = 0;
        p->crc = (uint32_t)crc32_combine(p->crc, s->crc_wide, (z_off_t)nw);
        p->crc = (uint32_t)crc32_combine(p->crc, s->crc_narrow, (z_off_t)nn);
        p->isize += nw + nn;
        p->stats.chunk_bytes += nw + nn;
        p->stats.chunks++;
    }
    const uint8_t *const wb = (const uint8_t *)s->ch.wide;
    size_t n = 0;
    if (p->off < nw) {
        n = nw - p->off < cap ? nw - p->off : cap;
        memcpy(buf, wb + p->off, n);
        p->off += n;
    }
    if (n < cap && p->off >= nw && p->off - nw < nn) {
        const size_t at = p->off - nw, m = nn - at < cap - n ? nn - at : cap - n;
        memcpy(buf + n, s->ch.narrow + at, m);
        p->off += m;
        n += m;
    }
    if (p->off == nw + nn) {
        drop(p, s);
        p->qh++;
        p->serving = false;
        update_released(p);
    }
    return n;
}

/* ------------------------------------------------------------------------------------------ */
/* Reader: zlib                                                                                */

static void fail(gs_pinflate *p, const char *what)
{
    snprintf(p->err, sizeof p->err, "can't read input file %s: %s", p->path, what);
    p->failed = true;
}

static void fail_zlib(gs_pinflate *p)
{
    char what[200];
    snprintf(what, sizeof what, "bad gzip data (%s)", p->z.msg ? p->z.msg : "inflate failed");
    fail(p, what);
}

/* Input for z from byte `at` on (zlib takes at most UINT_MAX at a time). */
static void z_feed(gs_pinflate *p, size_t at)
{
    const size_t left = p->len - at;
    p->z.next_in = (unsigned char *)(uintptr_t)(p->in + at);
    p->z.avail_in = left > UINT_MAX ? UINT_MAX : (unsigned)left;
}

static size_t z_consumed(const gs_pinflate *p) { return (size_t)(p->z.next_in - p->in); }

/* zlib raw inflate from the confirmed position, with the confirmed window. */
static void go_serial(gs_pinflate *p)
{
    p->mode = M_SERIAL;
    p->want_serial = false;
    const int rc = p->z_init ? inflateReset2(&p->z, -15) : inflateInit2(&p->z, -15);
    if (rc != Z_OK) {
        fail(p, "zlib init failed");
        return;
    }
    p->z_init = true;
    if (p->wv > 0 && inflateSetDictionary(&p->z, p->win + GS_DFL_WINDOW - p->wv, (uInt)p->wv) != Z_OK) {
        fail(p, "zlib init failed");
        return;
    }
    const size_t byte = (size_t)(p->pos >> 3);
    const int bit = (int)(p->pos & 7);
    if (bit) {
        inflatePrime(&p->z, 8 - bit, p->in[byte] >> bit);
        z_feed(p, byte + 1);
    } else {
        z_feed(p, byte);
    }
}

/* At a block boundary in SERIAL: back to PAR if a later chunk starts exactly here. */
static void resync(gs_pinflate *p, uint64_t at)
{
    while (p->acc < p->nchunks) {
        slot *const s = wait_decoded(p, p->acc);
        if (s->rc != 0 || s->start < at) {
            drop(p, s);
            p->acc++;
            update_released(p);
            continue;
        }
        if (s->start == at) {
            p->pos = at;
            p->mode = M_PAR;
        }
        return;
    }
}

static size_t serial(gs_pinflate *p, char *buf, size_t cap)
{
    p->z.next_out = (unsigned char *)buf;
    p->z.avail_out = cap > UINT_MAX ? UINT_MAX : (unsigned)cap;
    const unsigned want = p->z.avail_out;
    while (p->z.avail_out > 0 && p->mode == M_SERIAL && !p->failed) {
        if (p->z.avail_in == 0 && z_consumed(p) < p->len) z_feed(p, z_consumed(p));
        unsigned char *const from = p->z.next_out;
        const int rc = inflate(&p->z, Z_BLOCK);
        const size_t got = (size_t)(p->z.next_out - from);
        p->crc = crc_of(p->crc, from, got);
        p->isize += got;
        window_push(p, from, got);
        if (rc == Z_STREAM_END) {
            const uint64_t bit = 8 * (uint64_t)z_consumed(p) - (uint64_t)(p->z.data_type & 7);
            p->trailer = (size_t)((bit + 7) / 8);
            p->mode = M_TRAILER;
        } else if (rc == Z_OK || rc == Z_BUF_ERROR) {
            if (p->z.data_type & 128)
                resync(p, 8 * (uint64_t)z_consumed(p) - (uint64_t)(p->z.data_type & 7));
            else if (got == 0 && p->z.avail_in == 0 && z_consumed(p) >= p->len) {
                if (p->z.avail_out == want) fail(p, "unexpected end of gzip data");
                break; /* the bytes so far first, then the error */
            }
        } else {
            fail_zlib(p);
        }
    }
    p->stats.zlib_bytes += want - p->z.avail_out;
    return want - p->z.avail_out;
}

/* The first member's trailer: CRC-32 and length, checked as zlib's gzip mode does (the CRC as
 * soon as its 4 bytes are there, then the length). */
static void trailer(gs_pinflate *p)
{
    stop_workers(p);
    const size_t have = p->trailer >= p->len ? 0 : p->len - p->trailer;
    const uint8_t *t = p->in + p->trailer;
    if (have < 4) {
        fail(p, "unexpected end of gzip data");
        return;
    }
    const uint32_t crc = t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
    if (crc != p->crc) {
        fail(p, "bad gzip data (incorrect data check)");
        return;
    }
    if (have < 8) {
        fail(p, "unexpected end of gzip data");
        return;
    }
    const uint32_t isize = t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24;
    if (isize != (uint32_t)p->isize) {
        fail(p, "bad gzip data (incorrect length check)");
        return;
    }
    p->trailer += 8;
    p->mode = M_REST;
    p->z_in_member = false;
}

/* After the first member: further members with zlib's gzip mode; bytes that do not start one
 * are ignored (data.c's serial reader does the same). */
static size_t rest(gs_pinflate *p, char *buf, size_t cap)
{
    p->z.next_out = (unsigned char *)buf;
    p->z.avail_out = cap > UINT_MAX ? UINT_MAX : (unsigned)cap;
    const unsigned want = p->z.avail_out;
    while (p->z.avail_out > 0 && !p->failed) {
        if (!p->z_in_member) {
            if (p->trailer >= p->len || p->in[p->trailer] != 0x1f) {
                p->mode = M_END;
                break;
            }
            const int rc = p->z_init ? inflateReset2(&p->z, 15 + 16) : inflateInit2(&p->z, 15 + 16);
            if (rc != Z_OK) {
                fail(p, "zlib init failed");
                break;
            }
            p->z_init = true;
            p->z_in_member = true;
            z_feed(p, p->trailer);
        }
        if (p->z.avail_in == 0 && z_consumed(p) < p->len) z_feed(p, z_consumed(p));
        const unsigned before = p->z.avail_out;
        const int rc = inflate(&p->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            p->z_in_member = false;
            p->trailer = z_consumed(p);
        } else if (rc == Z_OK || rc == Z_BUF_ERROR) {
            if (p->z.avail_in == 0 && z_consumed(p) >= p->len && p->z.avail_out == before) {
                if (p->z.avail_out == want) fail(p, "unexpected end of gzip data");
                break;
            }
        } else {
            fail_zlib(p);
        }
    }
    p->stats.zlib_bytes += want - p->z.avail_out;
    return want - p->z.avail_out;
}

gs_pinflate_stats gs_pinflate_get_stats(const gs_pinflate *p) { return p->stats; }

uint64_t gs_pinflate_size_hint(const gs_pinflate *p)
{
    if (p->len < 18) return 0;
    const uint8_t *t = p->in + p->len - 4;
    return t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 | (uint64_t)t[3] << 24;
}

ssize_t gs_pinflate_read(gs_pinflate *p, char *buf, size_t cap, char *msg, size_t msg_cap)
{
    size_t n = 0;
    while (n < cap && !p->failed && p->mode != M_END) {
        if (p->mode == M_PAR) {
            n += serve(p, buf + n, cap - n);
        } else if (p->mode == M_SERIAL) {
            const size_t got = serial(p, buf + n, cap - n);
            n += got;
            if (got == 0 && p->mode == M_SERIAL && !p->failed) break; /* the input ended */
        } else if (p->mode == M_TRAILER) {
            trailer(p);
        } else {
            const size_t got = rest(p, buf + n, cap - n);
            n += got;
            if (got == 0 && p->mode == M_REST && !p->failed) break;
        }
    }
    if (n > 0) return (ssize_t)n;
    if (p->failed) {
        snprintf(msg, msg_cap, "%s", p->err);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Open / close                                                                                */

/* The first member's header, when it is one that zlib would read without a question (method 8,
 * no reserved flags, no header CRC): the offset of its deflate data, else 0. */
static size_t header_end(const uint8_t *b, size_t n)
{
    if (n < 10 || b[0] != 0x1f || b[1] != 0x8b || b[2] != 8 || (b[3] & 0xe2)) return 0;
    size_t at = 10;
    if (b[3] & 4) { /* FEXTRA */
        if (n - at < 2) return 0;
        const size_t xlen = b[at] | (size_t)b[at + 1] << 8;
        at += 2;
        if (n - at < xlen) return 0;
        at += xlen;
    }
    for (int f = 8; f <= 16; f <<= 1) { /* FNAME, FCOMMENT: zero-terminated */
        if (!(b[3] & f)) continue;
        const uint8_t *z = memchr(b + at, 0, n - at);
        if (!z) return 0;
        at = (size_t)(z - b) + 1;
    }
    return at < n ? at : 0;
}

gs_status gs_pinflate_open(int fd, const char *path, const gs_pinflate_opts *opts, gs_pinflate **out)
{
    *out = NULL;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size < 2) return GS_ERR_IO;
    const size_t len = (size_t)sb.st_size;
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) return GS_ERR_IO;
    gs_pinflate *p = calloc(1, sizeof *p);
    if (!p) {
        munmap(map, len);
        return GS_ERR_NOMEM;
    }
    p->in = map;
    p->len = len;
    p->crc = (uint32_t)crc32(0, NULL, 0);
    atomic_init(&p->closing, false);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv_done, NULL);
    pthread_cond_init(&p->cv_room, NULL);
    p->path = strdup(path);
    if (!p->path) goto nomem;
    madvise(map, len, MADV_WILLNEED); /* all of it is read, by several threads at once */
    p->data_off = header_end(p->in, p->len);
    if (p->data_off == 0) { /* zlib reads it all */
        p->mode = M_REST;
        *out = p;
        return GS_OK;
    }
    const int nth = opts->threads < 1 ? 1 : opts->threads;
    const size_t body = len - p->data_off;
    /* Memory: `ahead` chunks held at once, each at most 2 * out_soft symbols of 2 bytes: ~1 GiB
     * at worst (data that compresses 100:1), a few MB a chunk for text. A chunk's compressed
     * bytes are out_soft / 8, so that data compressing up to 8:1 is never cut by the cap. */
    p->ahead = nth + 4;
    size_t soft = ((size_t)256 << 20) / (size_t)p->ahead;
    if (soft < ((size_t)4 << 20)) soft = (size_t)4 << 20;
    if (soft > ((size_t)32 << 20)) soft = (size_t)32 << 20;
    size_t cb = opts->chunk_bytes;
    if (cb == 0) {
        cb = body / (4 * (size_t)nth);
        if (cb < ((size_t)1 << 18)) cb = (size_t)1 << 18;
        if (cb > soft / 8) cb = soft / 8;
        if (cb > ((size_t)2 << 20)) cb = (size_t)2 << 20; /* ~10 MB of 16-bit output for text */
    } else {
        soft = 16 * cb; /* small for tests, so that the cap is reached */
    }
    p->chunk_bytes = cb;
    p->nchunks = (int)((body + cb - 1) / cb);
    p->out_soft = soft;
    p->pos = 8 * (uint64_t)p->data_off;
    p->slots = calloc((size_t)p->nchunks, sizeof *p->slots);
    p->queue = malloc((size_t)p->nchunks * sizeof *p->queue);
    p->pool = calloc((size_t)p->ahead, sizeof *p->pool);
    p->th = malloc((size_t)nth * sizeof *p->th);
    if (!p->slots || !p->queue || !p->th) goto nomem;
    for (int t = 0; t < nth; t++) {
        if (pthread_create(&p->th[p->nth], NULL, worker_main, p) != 0) break;
        p->nth++;
    }
    if (p->nth == 0) {
        gs_pinflate_close(p);
        return GS_ERR_NOMEM;
    }
    *out = p;
    return GS_OK;
nomem:
    gs_pinflate_close(p);
    return GS_ERR_NOMEM;
}

void gs_pinflate_close(gs_pinflate *p)
{
    if (!p) return;
    stop_workers(p);
    for (int t = 0; t < p->nth; t++) pthread_join(p->th[t], NULL);
    if (p->slots)
        for (int k = 0; k < p->nchunks; k++) drop(p, &p->slots[k]);
    for (int k = 0; k < p->npool; k++) gs_dfl_chunk_free(&p->pool[k]);
    free(p->pool);
    if (p->z_init) inflateEnd(&p->z);
    free(p->slots);
    free(p->queue);
    free(p->th);
    free(p->path);
    munmap((void *)(uintptr_t)p->in, p->len);
    pthread_cond_destroy(&p->cv_room);
    pthread_cond_destroy(&p->cv_done);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
