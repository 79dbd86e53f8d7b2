/* data.h — the LIBSVM sparse reader: plain or gzip (detected by magic bytes), one pass (pipes and
 * "-" for stdin work), into CSR with float (training) or double (prediction) values, int32 column
 * indices and int64 row offsets. Memory per row follows its pairs, not its text length.
 * Errors are LIBSVM's exact texts ("Wrong input format at line N", "can't open input file F"); where
 * we refuse what LIBSVM accepts, a second line after "Wrong input format at line N" says why. */
#ifndef GS_DATA_H
#define GS_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/status.h"

typedef struct gs_problem {
    int32_t l;          /* rows */
    int32_t max_index;  /* largest feature index seen (0 when none) */
    int64_t nnz;        /* stored pairs (explicit zeros included) */
    double *y;          /* [l] labels as read (strtod) */
    int64_t *row_ptr;   /* [l+1] offsets into idx/val */
    int32_t *idx;       /* [nnz] feature indices, strictly ascending within a row (0 allowed first) */
    float *val;         /* [nnz] values, or NULL when read with double_values */
    double *dval;       /* [nnz] values as strtod gave them, only when read with double_values */
} gs_problem;

/* How a stream reads. All zero (or a NULL pointer) is gpusvm-train's reader, gs_data_read. */
typedef struct gs_data_opts {
    /* 0: values as float in val; a finite value beyond FLT_MAX (it would become infinite) is a
     *    format error. 1: values as double in dval, as svm-predict keeps them. */
    int double_values;
    /* 0: a NaN or infinite label is a format error (LIBSVM trains a meaningless model from it).
     * 1: read as it is (svm-predict only compares it with the prediction). */
    int any_label;
    /* Input block size; 0 is 256 KiB (a regular file under 256 KiB: 4x its size). Rows span blocks, so any size works; tests use a few bytes to
     * put every token across a block boundary. */
    size_t block_bytes;
    /* length > 0: only the bytes [offset, offset + length) of a regular file, as plain text (no
     * gzip sniffing), its lines numbered from first_line + 1 in messages; gs_data_read's parallel
     * parse of a large file gives each thread such a range of whole lines. */
    int64_t offset, length, first_line;
    /* A gzip regular file (not "-", not a range) is inflated on this many threads (io/pinflate.h)
     * when > 0, whatever its size (tests); 0: on the CPU's cores but one when the file has 4 MiB
     * or more and there are 4 cores or more, else by one thread; < 0: by one thread. */
    int inflate_threads;
    size_t inflate_chunk; /* ... in chunks of this many compressed bytes; 0: by the file's size */
    /* text != NULL: the text_len bytes at text instead of a file (path names them in messages),
     * as plain text, lines numbered from first_line + 1: gs_data_read's parallel parse of an
     * inflated gzip file gives each thread such a piece of whole lines. */
    const char *text;
    size_t text_len;
} gs_data_opts;

/* Reads a whole file with gpusvm-train's rules (gs_data_opts all zero); path "-" reads standard
 * input. Beyond LIBSVM: NaN and infinite labels, values beyond FLT_MAX, and numbers longer than
 * 4096 characters are format errors (with the reason on a second line).
 * Errors: GS_ERR_IO "can't open input file <path>" or "can't read input file <path>: <why>" (a
 * truncated gzip file among them), GS_ERR_FORMAT "Wrong input format at line N", GS_ERR_NOMEM.
 * On error *out is left empty (all NULL/0).
 * @return GS_OK or the error */
gs_status gs_data_read(const char *path, gs_problem *out);
/* gs_data_read with the inflating options of opts (inflate_threads, inflate_chunk; block_bytes:
 * the inflated text parsed at a time, for tests); the rest of opts is ignored. NULL: all zero. */
gs_status gs_data_read_with(const char *path, const gs_data_opts *opts, gs_problem *out);

/* Incremental reader for streaming prediction: rows come in chunks so huge test files need bounded
 * memory. Line numbers in errors continue across chunks. opts may be NULL (all zero).
 * @return GS_OK, or GS_ERR_IO "can't open input file <path>" */
typedef struct gs_data_stream gs_data_stream;
gs_status gs_data_stream_open(const char *path, const gs_data_opts *opts, gs_data_stream **out);
/* Reads up to max_rows rows into *chunk (replacing its previous contents; the caller frees it with
 * gs_problem_free at the end). chunk->l == 0 means end of file.
 * @return GS_OK or GS_ERR_FORMAT/GS_ERR_NOMEM/GS_ERR_IO */
gs_status gs_data_stream_next(gs_data_stream *s, int32_t max_rows, gs_problem *chunk);
/* NULL is fine. */
void gs_data_stream_close(gs_data_stream *s);

/* Frees the arrays and zeroes *p; p may be NULL. */
void gs_problem_free(gs_problem *p);

/* The rows rows[0..n) of prob (float values), in that order, as a problem of its own: labels,
 * CSR and max_index (of those rows). *out is left empty on error.
 * @return GS_OK or GS_ERR_NOMEM */
gs_status gs_problem_subset(const gs_problem *prob, const int32_t *rows, int32_t n, gs_problem *out);

#endif
