/* deflate.c — the chunk decoder of deflate.h. Huffman codes decode through a 10-bit table, longer
 * codes canonically bit by bit (rare: codes past 10 bits are the rarest symbols); bits are read
 * from the input with an unaligned 64-bit load, which leaves at least 57 bits, enough for a
 * length/distance pair with all its extra bits (48 at most). Output grows in doubling buffers. */
#include "io/deflate.h"

#include <stdlib.h>
#include <string.h>

enum {
    FAST_BITS = 11,
    MAX_BITS = 15,
    NLIT = 288, /* the fixed code's size; a dynamic one has at most 286 */
    NDIST = 30, /* dynamic and fixed (the fixed code's 30 and 31 are invalid) */
    MAX_MATCH = 258,
    SLACK = 16  /* bytes past the end a word-wise match copy may write */
};

typedef struct huff {
    uint16_t fast[1 << FAST_BITS]; /* symbol << 4 | length, or 0: a longer code (or none) */
    uint16_t count[MAX_BITS + 1];  /* codes of each length */
    uint16_t sym[NLIT];            /* symbols in code order: by length, then value */
} huff;

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                       33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                       1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t w;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&w, p, 8);
#else
    w = 0;
    for (int k = 0; k < 8; k++) w |= (uint64_t)p[k] << (8 * k);
#endif
    return w;
}

/* At least 57 bits from bit offset `bit` on, LSB first; zeros past the end of the input. */
static inline uint64_t peek(const uint8_t *in, size_t len, uint64_t bit)
{
    const size_t byte = (size_t)(bit >> 3);
    uint64_t w = 0;
    if (byte + 8 <= len) {
        w = load64(in + byte);
    } else {
        for (size_t k = 0; byte + k < len && k < 8; k++) w |= (uint64_t)in[byte + k] << (8 * k);
    }
    return w >> (bit & 7);
}

/* Builds h from n code lengths (0..15). What zlib's inflate accepts: a complete code; for the
 * literal/length and distance codes also a single code of length 1 (incomplete) and, for
 * distances, no code at all.
 * @return 0 complete, 1 incomplete but accepted (single), 2 empty, -1 over-subscribed or an
 *         incomplete code that zlib refuses (for a code-length code: any incomplete one) */
static int huff_build(huff *h, const uint8_t *lens, int n, int codes_code)
{
    memset(h->count, 0, sizeof h->count);
    for (int s = 0; s < n; s++) h->count[lens[s]]++;
    h->count[0] = 0;
    int max = 0;
    for (int l = 1; l <= MAX_BITS; l++)
        if (h->count[l]) max = l;
    int left = 1;
    for (int l = 1; l <= MAX_BITS; l++) {
        left = (left << 1) - h->count[l];
        if (left < 0) return -1;
    }
    int kind = 0;
    if (max == 0) kind = 2;
    else if (left > 0) {
        if (codes_code || max != 1) return -1;
        kind = 1;
    }
    uint16_t offs[MAX_BITS + 2];
    offs[1] = 0;
    for (int l = 1; l <= MAX_BITS; l++) offs[l + 1] = (uint16_t)(offs[l] + h->count[l]);
    for (int s = 0; s < n; s++)
        if (lens[s]) h->sym[offs[lens[s]]++] = (uint16_t)s;
    memset(h->fast, 0, sizeof h->fast);
    /* canonical codes in order; each short one fills every table entry it prefixes (reversed) */
    unsigned code = 0;
    int i = 0;
    for (int l = 1; l <= FAST_BITS; l++) {
        for (int c = 0; c < h->count[l]; c++, i++, code++) {
            unsigned rev = 0;
            for (int b = 0; b < l; b++) rev |= ((code >> b) & 1u) << (l - 1 - b);
            const uint16_t e = (uint16_t)(h->sym[i] << 4 | (unsigned)l);
            for (unsigned k = rev; k < (1u << FAST_BITS); k += 1u << l) h->fast[k] = e;
        }
        code <<= 1;
    }
    return kind;
}

/* A code longer than FAST_BITS (or none), bit by bit. @return the symbol, or -1 */
static int huff_slow(const huff *h, uint64_t w, int *len)
{
    int code = 0, first = 0, index = 0;
    for (int l = 1; l <= MAX_BITS; l++) {
        code |= (int)(w & 1);
        w >>= 1;
        const int cnt = h->count[l];
        if (code - first < cnt) {
            *len = l;
            return h->sym[index + code - first];
        }
        index += cnt;
        first = (first + cnt) << 1;
        code <<= 1;
    }
    return -1;
}

static inline int huff_decode(const huff *h, uint64_t w, int *len)
{
    const unsigned e = h->fast[w & ((1u << FAST_BITS) - 1)];
    if (e) {
        *len = (int)(e & 15);
        return (int)(e >> 4);
    }
    return huff_slow(h, w, len);
}

/* A dynamic block's header from *pos (just after the 3 block-type bits). strict: only complete
 * literal/length and distance codes (the block finder). @return 0, or -1 as zlib would refuse it
 * (or, strict, an incomplete code) */
static int read_dynamic(const uint8_t *in, size_t len, uint64_t *pos, huff *lit, huff *dist,
                        int strict)
{
    static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    uint64_t p = *pos;
    uint64_t w = peek(in, len, p);
    const int nlen = (int)(w & 31) + 257, ndist = (int)((w >> 5) & 31) + 1;
    const int ncode = (int)((w >> 10) & 15) + 4;
    p += 14;
    if (nlen > 286 || ndist > 30) return -1;
    uint8_t lens[NLIT + NDIST];
    memset(lens, 0, 19);
    w = peek(in, len, p);
    for (int i = 0; i < ncode; i++) lens[order[i]] = (uint8_t)((w >> (3 * i)) & 7);
    p += 3 * (uint64_t)ncode;
    huff *const cl = lit; /* the code-length code lives in lit's storage until lit is built */
    if (huff_build(cl, lens, 19, 1) != 0) return -1;
    const int total = nlen + ndist;
    for (int i = 0; i < total;) {
        w = peek(in, len, p);
        int l = 0;
        const int sym = huff_decode(cl, w, &l);
        if (sym < 0) return -1;
        w >>= l;
        p += (uint64_t)l;
        if (sym < 16) {
            lens[i++] = (uint8_t)sym;
            continue;
        }
        int rep, val = 0;
        if (sym == 16) {
            if (i == 0) return -1;
            val = lens[i - 1];
            rep = 3 + (int)(w & 3);
            p += 2;
        } else if (sym == 17) {
            rep = 3 + (int)(w & 7);
            p += 3;
        } else {
            rep = 11 + (int)(w & 127);
            p += 7;
        }
        if (i + rep > total) return -1;
        memset(lens + i, val, (size_t)rep);
        i += rep;
    }
    if (p > 8 * (uint64_t)len) return -1;
    if (lens[256] == 0) return -1; /* no end-of-block code */
    const int kl = huff_build(lit, lens, nlen, 0), kd = huff_build(dist, lens + nlen, ndist, 0);
    if (kl < 0 || kd < 0 || kl == 2) return -1;
    if (strict && (kl != 0 || kd != 0)) return -1;
    *pos = p;
    return 0;
}

static void fixed_codes(huff *lit, huff *dist)
{
    uint8_t lens[NLIT];
    int s = 0;
    for (; s < 144; s++) lens[s] = 8;
    for (; s < 256; s++) lens[s] = 9;
    for (; s < 280; s++) lens[s] = 7;
    for (; s < NLIT; s++) lens[s] = 8;
    huff_build(lit, lens, NLIT, 0);
    memset(lens, 5, 32);
    huff_build(dist, lens, 32, 0); /* 30 and 31 decode, and are refused as zlib does */
}

/* ------------------------------------------------------------------------------------------ */
/* Output                                                                                      */

typedef struct dec {
    gs_dfl_chunk *c;
    uint64_t pos, end_pos; /* bit offsets; end_pos: the input's end */
    int wide;              /* still writing 16-bit symbols */
    size_t wn, nn;         /* entries used in c->wbuf / c->nbuf, history prefix included */
    size_t switch_at;      /* wide: switch to bytes when wn reaches this (last marker + window) */
    size_t out;            /* output so far (prefixes not counted) */
} dec;

/* Room for one more symbol's output (a match of up to MAX_MATCH, plus SLACK).
 * @return 0, -1 past out_hard, -2 out of memory */
static int room(dec *d)
{
    gs_dfl_chunk *const c = d->c;
    if (d->out > c->out_hard) return -1;
    if (d->wide) {
        if (d->wn + MAX_MATCH + SLACK <= c->wcap) return 0;
        const size_t cap = c->wcap + c->wcap / 4; /* held at once by many chunks: grow gently */
        uint16_t *nb = realloc(c->wbuf, cap * sizeof *nb);
        if (!nb) return -2;
        c->wbuf = nb;
        c->wcap = cap;
    } else {
        if (d->nn + MAX_MATCH + SLACK <= c->ncap) return 0;
        const size_t cap = c->ncap + c->ncap / 4;
        uint8_t *nb = realloc(c->nbuf, cap);
        if (!nb) return -2;
        c->nbuf = nb;
        c->ncap = cap;
    }
    return 0;
}

/* An output size to start with: `ratio` times the chunk's compressed span, at most out_soft. */
static size_t guess(const gs_dfl_chunk *c, size_t ratio)
{
    const size_t span = c->stop_bit > c->start_bit ? (size_t)((c->stop_bit - c->start_bit) / 8) : 0;
    return span < c->out_soft / ratio ? span * ratio : c->out_soft;
}

/* Wide output whose last GS_DFL_WINDOW symbols are all bytes goes on as bytes. @return 0, -2 */
static int go_narrow(dec *d)
{
    gs_dfl_chunk *const c = d->c;
    const size_t want = GS_DFL_WINDOW + (1u << 16) + guess(c, 3);
    if (c->ncap < want) {
        free(c->nbuf);
        c->ncap = 0;
        c->nbuf = malloc(want);
        if (!c->nbuf) return -2;
        c->ncap = want;
    }
    const uint16_t *src = c->wbuf + d->wn - GS_DFL_WINDOW;
    for (size_t i = 0; i < GS_DFL_WINDOW; i++) c->nbuf[i] = (uint8_t)src[i];
    d->nn = GS_DFL_WINDOW;
    c->nwide = d->wn - GS_DFL_WINDOW;
    d->wide = 0;
    return 0;
}

/* A match: n bytes from dist back to dst. With dist >= 8, 8 a step (a step's source precedes its
 * destination), so up to 7 past n are written (SLACK). */
static inline void match8(uint8_t *dst, unsigned dist, unsigned n)
{
    const uint8_t *const src = dst - dist;
    if (dist >= 8) {
        for (unsigned k = 0; k < n; k += 8) memcpy(dst + k, src + k, 8);
    } else if (dist == 1) {
        memset(dst, src[0], n);
    } else {
        for (unsigned k = 0; k < n; k++) dst[k] = src[k];
    }
}

/* The same for 16-bit symbols. @return whether a marker was copied: conservative, as the up to 7
 * symbols past n are earlier output too (which only delays the switch to bytes) */
static inline bool match16(uint16_t *dst, unsigned dist, unsigned n)
{
    const uint16_t *const src = dst - dist;
    uint64_t any = 0; /* a marker sets a bit of 0xff00 in its lane */
    if (dist >= 8) {
        for (unsigned k = 0; k < n; k += 8) {
            uint64_t w0, w1;
            memcpy(&w0, src + k, 8);
            memcpy(&w1, src + k + 4, 8);
            memcpy(dst + k, &w0, 8);
            memcpy(dst + k + 4, &w1, 8);
            any |= w0 | w1;
        }
    } else {
        for (unsigned k = 0; k < n; k++) {
            dst[k] = src[k];
            any |= src[k];
        }
    }
    return (any & 0xff00ff00ff00ff00ull) != 0;
}

/* A match in d's output, wide or narrow; a marker moves the switch to bytes past it. */
static inline void copy_match(dec *d, unsigned dist, unsigned n)
{
    if (d->wide) {
        if (match16(d->c->wbuf + d->wn, dist, n)) d->switch_at = d->wn + n + GS_DFL_WINDOW;
        d->wn += n;
    } else {
        match8(d->c->nbuf + d->nn, dist, n);
        d->nn += n;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Blocks                                                                                      */


/* The general decoding's inner loop while the input has 8 bytes to spare and the output room for
 * a match: the bits in a register, refilled without a branch to 56-63 of them, up to three
 * literals a refill (11 + 11 + 11 bits) or one length/distance pair (48 bits at most). Stops
 * before the block's end when it cannot go on (the caller decodes one symbol the general way and
 * comes back). Written once for both widths; `wide` is a constant at each call.
 * @return 1 at the end-of-block code (consumed), 0 to continue the general way, -1 bad data */
static inline __attribute__((always_inline)) int fast_loop(dec *d, const huff *lit,
                                                           const huff *dist, const int wide)
{
    const uint8_t *const in = d->c->in;
    const uint8_t *ip = in + (d->pos >> 3);
    const uint8_t *const ip_end = in + (d->c->in_len >= 8 ? d->c->in_len - 8 : 0);
    if (ip >= ip_end) return 0;
    uint8_t *const ob = d->c->nbuf;
    uint16_t *const wb = d->c->wbuf;
    const size_t o0 = wide ? d->wn : d->nn;
    const size_t o_end = (wide ? d->c->wcap : d->c->ncap) - MAX_MATCH - SLACK;
    size_t o = o0, switch_at = d->switch_at;
    uint64_t bb = load64(ip) >> (d->pos & 7);
    unsigned left = 64 - (unsigned)(d->pos & 7);
    ip += 8;
    /* invariant: the next bits are bb's low `left` bits, then ip's bytes */
    int rc = 0;
    const unsigned fm = (1u << FAST_BITS) - 1;
#define PUT(v) (wide ? (void)(wb[o++] = (uint16_t)(v)) : (void)(ob[o++] = (uint8_t)(v)))
    while (o < o_end && ip < ip_end && (!wide || o < switch_at)) {
        if (left < 56) {
            bb |= load64(ip) << left;
            ip += (63 - left) >> 3;
            left |= 56;
        }
        unsigned e = lit->fast[bb & fm];
        if (!e) break;
        unsigned sym = e >> 4;
        bb >>= e & 15;
        left -= e & 15;
        if (sym < 256) {
            PUT(sym);
            const unsigned e2 = lit->fast[bb & fm];
            if (!e2 || (e2 >> 4) >= 256) continue;
            PUT(e2 >> 4);
            bb >>= e2 & 15;
            left -= e2 & 15;
            const unsigned e3 = lit->fast[bb & fm];
            if (!e3 || (e3 >> 4) >= 256) continue;
            PUT(e3 >> 4);
            bb >>= e3 & 15;
            left -= e3 & 15;
            continue;
        }
        if (sym == 256) {
            rc = 1;
            break;
        }
        sym -= 257;
        if (sym >= 29) {
            rc = -1;
            break;
        }
        const unsigned le = len_extra[sym];
        const unsigned n = len_base[sym] + (unsigned)(bb & ((1u << le) - 1));
        const unsigned de = dist->fast[(bb >> le) & fm];
        if (!de || (de >> 4) >= 30) { /* a long or invalid code: the general way, from the length */
            left += e & 15;
            break;
        }
        bb >>= le + (de & 15);
        left -= le + (de & 15);
        const unsigned dx = dist_extra[de >> 4];
        const unsigned dd = dist_base[de >> 4] + (unsigned)(bb & ((1u << dx) - 1));
        bb >>= dx;
        left -= dx;
        if (wide) {
            if (match16(wb + o, dd, n)) switch_at = o + n + GS_DFL_WINDOW;
        } else {
            match8(ob + o, dd, n);
        }
        o += n;
    }
#undef PUT
    /* the position: the bits not yet used precede ip by `left` */
    d->pos = 8 * (uint64_t)(ip - in) - left;
    d->out += o - o0;
    if (wide) {
        d->wn = o;
        d->switch_at = switch_at;
    } else {
        d->nn = o;
    }
    return rc;
}

static int fast_narrow(dec *d, const huff *lit, const huff *dist) { return fast_loop(d, lit, dist, 0); }
static int fast_wide(dec *d, const huff *lit, const huff *dist) { return fast_loop(d, lit, dist, 1); }

/* One block's symbols with the codes given, to its end-of-block code.
 * @return 0, -1 bad data / input ended / out_hard, -2 out of memory */
static int huff_block(dec *d, const huff *lit, const huff *dist)
{
    const uint8_t *const in = d->c->in;
    const size_t len = d->c->in_len;
    for (;;) {
        {
            const int f = d->wide ? fast_wide(d, lit, dist) : fast_narrow(d, lit, dist);
            if (f < 0) return -1;
            if (f == 1) return d->pos > d->end_pos ? -1 : 0;
            if (d->wide && d->wn >= d->switch_at && go_narrow(d)) return -2;
        }
        if (d->pos > d->end_pos) return -1;
        const int r = room(d);
        if (r) return r;
        uint64_t w = peek(in, len, d->pos);
        int l = 0;
        int sym = huff_decode(lit, w, &l);
        if (sym < 0) return -1;
        w >>= l;
        uint64_t used = (uint64_t)l;
        if (sym < 256) {
            if (d->wide) {
                d->c->wbuf[d->wn++] = (uint16_t)sym;
                if (d->wn >= d->switch_at && go_narrow(d)) return -2;
            } else {
                d->c->nbuf[d->nn++] = (uint8_t)sym;
            }
            d->out++;
            d->pos += used;
            continue;
        }
        if (sym == 256) {
            d->pos += used;
            return d->pos > d->end_pos ? -1 : 0;
        }
        sym -= 257;
        if (sym >= 29) return -1;
        const int le = len_extra[sym];
        const unsigned n = len_base[sym] + (unsigned)(w & ((1u << le) - 1));
        w >>= le;
        used += (uint64_t)le;
        const int ds = huff_decode(dist, w, &l);
        if (ds < 0 || ds >= 30) return -1;
        w >>= l;
        used += (uint64_t)l;
        const int de = dist_extra[ds];
        const unsigned dd = dist_base[ds] + (unsigned)(w & ((1u << de) - 1));
        used += (uint64_t)de;
        copy_match(d, dd, n);
        if (d->wide && d->wn >= d->switch_at && go_narrow(d)) return -2;
        d->out += n;
        d->pos += used;
    }
}

/* A stored block from d->pos (just after its 3 header bits). @return as huff_block */
static int stored_block(dec *d)
{
    const gs_dfl_chunk *const c = d->c;
    size_t at = (size_t)((d->pos + 7) >> 3);
    if (at + 4 > c->in_len) return -1;
    const unsigned n = c->in[at] | (unsigned)c->in[at + 1] << 8;
    const unsigned nc = c->in[at + 2] | (unsigned)c->in[at + 3] << 8;
    if (n != (~nc & 0xffffu)) return -1;
    at += 4;
    if (n > c->in_len - at) return -1;
    for (unsigned k = 0; k < n; k++) {
        if ((k & 255) == 0) {
            const int r = room(d);
            if (r) return r;
        }
        if (d->wide) {
            d->c->wbuf[d->wn++] = c->in[at + k];
            if (d->wn >= d->switch_at && go_narrow(d)) return -2;
        } else {
            d->c->nbuf[d->nn++] = c->in[at + k];
        }
    }
    d->out += n;
    d->pos = (uint64_t)(at + n) * 8;
    return 0;
}

int gs_dfl_decode_chunk(gs_dfl_chunk *c)
{
    c->wide = NULL;
    c->narrow = NULL;
    c->nwide = c->nnarrow = 0;
    c->end_bit = 0;
    c->final = false;
    const size_t want = GS_DFL_WINDOW + (1u << 16) + guess(c, 3);
    if (c->wcap < want) { /* else the buffer left in c is used again */
        free(c->wbuf);
        c->wcap = 0;
        c->wbuf = malloc(want * sizeof *c->wbuf);
        if (!c->wbuf) return -2;
        c->wcap = want;
    }
    huff *const codes = malloc(2 * sizeof *codes);
    if (!codes) return -2;
    huff *const lit = codes, *const dist = codes + 1;
    for (size_t i = 0; i < GS_DFL_WINDOW; i++) c->wbuf[i] = (uint16_t)(GS_DFL_MARK + i);
    dec d = {.c = c, .pos = c->start_bit, .end_pos = 8 * (uint64_t)c->in_len, .wide = 1,
             .wn = GS_DFL_WINDOW, .switch_at = 2 * GS_DFL_WINDOW};
    int rc = 0;
    for (;;) {
        const uint64_t hdr = peek(c->in, c->in_len, d.pos);
        const int last = (int)(hdr & 1), type = (int)((hdr >> 1) & 3);
        d.pos += 3;
        if (type == 0) {
            rc = stored_block(&d);
        } else if (type == 1) {
            fixed_codes(lit, dist);
            rc = huff_block(&d, lit, dist);
        } else if (type == 2) {
            rc = read_dynamic(c->in, c->in_len, &d.pos, lit, dist, 0) ? -1 : huff_block(&d, lit, dist);
        } else {
            rc = -1;
        }
        if (rc) break;
        if (last) {
            c->final = true;
            break;
        }
        /* stop where the next chunk's search can have started: at a non-final dynamic header */
        if (d.out >= c->out_soft) break;
        if (d.pos >= c->stop_bit && (peek(c->in, c->in_len, d.pos) & 7) == 4) break;
    }
    free(codes);
    if (rc) {
        gs_dfl_chunk_free(c);
        return rc;
    }
    c->end_bit = d.pos;
    if (d.wide) c->nwide = d.wn - GS_DFL_WINDOW;
    c->wide = c->wbuf + GS_DFL_WINDOW;
    if (!d.wide) {
        c->narrow = c->nbuf + GS_DFL_WINDOW;
        c->nnarrow = d.nn - GS_DFL_WINDOW;
    }
    return 0;
}

void gs_dfl_chunk_free(gs_dfl_chunk *c)
{
    free(c->wbuf);
    free(c->nbuf);
    c->wbuf = NULL;
    c->nbuf = NULL;
    c->wcap = c->ncap = 0;
    c->wide = NULL;
    c->narrow = NULL;
    c->nwide = c->nnarrow = 0;
    c->end_bit = 0;
    c->final = false;
}

uint64_t gs_dfl_find_block(const uint8_t *in, size_t in_len, uint64_t from_bit, uint64_t to_bit)
{
    huff codes[2];
    const uint64_t end = 8 * (uint64_t)in_len;
    if (to_bit > end) to_bit = end;
    for (uint64_t b = from_bit; b < to_bit; b++) {
        const uint64_t w = peek(in, in_len, b);
        if ((w & 7) != 4) continue; /* not final, dynamic */
        if (((w >> 3) & 31) > 29 || ((w >> 8) & 31) > 29) continue;
        /* the code-length code must be complete: a Kraft sum over its 3-bit lengths */
        const int ncode = (int)((w >> 13) & 15) + 4;
        const uint64_t cw = peek(in, in_len, b + 17);
        int cnt[8] = {0};
        for (int i = 0; i < ncode; i++) cnt[(cw >> (3 * i)) & 7]++;
        int left = 1;
        for (int l = 1; l < 8 && left >= 0; l++) left = (left << 1) - cnt[l];
        if (left != 0) continue;
        uint64_t p = b + 3;
        if (read_dynamic(in, in_len, &p, &codes[0], &codes[1], 1) == 0) return b;
    }
    return UINT64_MAX;
}
