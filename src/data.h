/* data.h — the LIBSVM sparse reader: plain or gzip (detected by magic bytes), one pass (pipes and
 * "-" for stdin work), into CSR with float values, int32 column indices and int64 row offsets.
 * Errors are LIBSVM's exact texts ("Wrong input format at line N", "can't open input file F"). */
#ifndef GS_DATA_H
#define GS_DATA_H

#include <stdint.h>
#include <stdio.h>

#include "status.h"

typedef struct gs_problem {
    int32_t l;          /* rows */
    int32_t max_index;  /* largest feature index seen (0 when none) */
    int64_t nnz;        /* stored pairs (explicit zeros included) */
    double *y;          /* [l] labels as read (strtod) */
    int64_t *row_ptr;   /* [l+1] offsets into idx/val */
    int32_t *idx;       /* [nnz] feature indices, strictly ascending within a row (0 allowed first) */
    float *val;         /* [nnz] values */
} gs_problem;

/* Reads a whole file; path "-" reads standard input.
 * Errors: GS_ERR_IO "can't open input file <path>", GS_ERR_FORMAT "Wrong input format at line N",
 * GS_ERR_NOMEM. On error *out is left empty (all NULL/0).
 * @return GS_OK or the error */
gs_status gs_data_read(const char *path, gs_problem *out);

/* Incremental reader for streaming prediction: rows come in chunks so huge test files need bounded
 * memory. Line numbers in errors continue across chunks. */
typedef struct gs_data_stream gs_data_stream;
/* @return GS_OK, or GS_ERR_IO "can't open input file <path>" */
gs_status gs_data_stream_open(const char *path, gs_data_stream **out);
/* Reads up to max_rows rows into *chunk (replacing its previous contents; the caller frees it with
 * gs_problem_free at the end). chunk->l == 0 means end of file.
 * @return GS_OK or GS_ERR_FORMAT/GS_ERR_NOMEM/GS_ERR_IO */
gs_status gs_data_stream_next(gs_data_stream *s, int32_t max_rows, gs_problem *chunk);
/* NULL is fine. */
void gs_data_stream_close(gs_data_stream *s);

/* Frees the arrays and zeroes *p; p may be NULL. */
void gs_problem_free(gs_problem *p);

#endif
