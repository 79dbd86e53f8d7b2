/* deflate.h — a DEFLATE (RFC 1951) decoder for one chunk of a parallel inflate (io/pinflate.c).
 * A chunk starts at a block boundary that is either known or found by searching for a plausible
 * dynamic-Huffman block header; the 32 KiB of output before it are then unknown, so the decoder
 * writes 16-bit symbols at first (a value v >= 256 stands for byte v - 256 of that unknown window)
 * and switches to plain bytes once its last 32 KiB of output hold no such marker.
 *
 * This decoder is only ever a fast path: whatever it cannot decode, or decodes from a guessed
 * start that the chunk before does not confirm, the caller decodes again with zlib. So it may
 * refuse more than zlib does (it refuses incomplete Huffman codes), but what it accepts it must
 * decode exactly as zlib would; tests/unit/test_deflate.c checks that against zlib. */
#ifndef GS_DEFLATE_H
#define GS_DEFLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    GS_DFL_WINDOW = 32768, /* the distance a back-reference may reach */
    GS_DFL_MARK = 256      /* wide symbols at or above this are window bytes (v - GS_DFL_MARK) */
};

/* One chunk's decoding: the caller fills the inputs, gs_dfl_decode_chunk the outputs. */
typedef struct gs_dfl_chunk {
    /* inputs */
    const uint8_t *in;  /* the compressed bytes the decoder may read, up to in_len */
    size_t in_len;
    uint64_t start_bit; /* a block boundary: bit offset into in (bits run LSB first) */
    uint64_t stop_bit;  /* stop at the first block boundary at or after this */
    size_t out_soft;    /* ... or at the first boundary after this much output */
    size_t out_hard;    /* give up (result -1) past this much output inside one block */
    /* outputs (in buffers the chunk owns: gs_dfl_chunk_free) */
    uint16_t *wide;     /* the first nwide output symbols (markers possible) */
    size_t nwide;
    uint8_t *narrow;    /* then nnarrow output bytes (no markers) */
    size_t nnarrow;
    uint64_t end_bit;   /* the block boundary where decoding stopped */
    bool final;         /* the stream's last block ended at end_bit */
    /* private */
    uint16_t *wbuf;     /* GS_DFL_WINDOW markers, then the wide output */
    size_t wcap;
    uint8_t *nbuf;      /* GS_DFL_WINDOW bytes of history, then the narrow output */
    size_t ncap;
} gs_dfl_chunk;

/* Decodes blocks from c->start_bit until one ends at or after c->stop_bit, or after c->out_soft
 * output, or the final block ends. Output buffers found in c (wbuf/wcap, nbuf/ncap: of an earlier
 * decoding, or handed over by the caller) are used again when large enough.
 * @return 0, -1 when the data is not a deflate stream this decoder takes from that start (or the
 *         output passed out_hard, or the input ended), -2 when memory ran short */
int gs_dfl_decode_chunk(gs_dfl_chunk *c);

/* Frees the output buffers and zeroes the outputs; the inputs stay. */
void gs_dfl_chunk_free(gs_dfl_chunk *c);

/* The first bit offset in [from_bit, to_bit) where a non-final dynamic-Huffman block header that
 * zlib would accept begins (its code lengths form complete codes with an end-of-block code), or
 * UINT64_MAX. A hit may still be chance: the caller decodes from it to find out. */
uint64_t gs_dfl_find_block(const uint8_t *in, size_t in_len, uint64_t from_bit, uint64_t to_bit);

#endif
