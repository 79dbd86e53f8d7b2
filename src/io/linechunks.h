/* linechunks.h — one read of a text file (plain or gzip) in chunks of whole lines, each chunk
 * processed on a worker thread and then finished on the calling thread in file order: the
 * parallel skeleton of gpusvm-scale's passes (scale.c). */
#ifndef GS_LINECHUNKS_H
#define GS_LINECHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

/* A run of whole lines and what a worker made of it. */
typedef struct gs_chunk {
    int64_t seq;    /* 0, 1, 2, ... in file order */
    char *text;     /* the lines, each ending in '\n' except perhaps the file's last; */
    size_t len;     /* text[len] is writable (room for a NUL after the last line) */
    char *out;      /* the worker's output, out_len bytes of out_cap (kept between chunks) */
    size_t out_len, out_cap;
    int64_t lines;  /* for the worker to fill in (the number of lines, by convention) */
} gs_chunk;

typedef struct gs_chunk_job {
    /* On worker thread `worker` (0..threads-1): processes c. An error's message is recorded in
     * that thread (GS_FAIL) and is recorded again in the caller's thread, in file order. */
    gs_status (*work)(void *ctx, int worker, gs_chunk *c);
    /* On the calling thread, for each chunk in file order after its work: e.g. writes c->out.
     * NULL: nothing. */
    gs_status (*done)(void *ctx, gs_chunk *c);
    void *ctx;
} gs_chunk_job;

/* The input of a run. */
typedef struct gs_chunk_src {
    int fd;           /* read from its current offset with a dup of it (fd stays open) */
    const char *path; /* for messages */
    int copy_fd;      /* >= 0: the decoded bytes are also written here (a spool), else -1 */
    const char *copy_name; /* for messages about copy_fd */
    size_t chunk_bytes;    /* bytes read per chunk; 0: 2 MiB (tests use a few bytes, so that lines
                              span reads and chunks hold one line or part of one) */
} gs_chunk_src;

/* Reads src to its end and runs job over its chunks with `threads` workers (>= 1). Stops at the
 * first error (of reading, of a work call, or of a done call, whichever comes first in file
 * order) and returns it with its message recorded in this thread.
 * @return GS_OK, the job's error, GS_ERR_IO "can't read input file <path>: <why>" (a gzip file
 *         cut short: "unexpected end of gzip data"), GS_ERR_NOMEM "can't allocate enough memory" */
gs_status gs_chunks_run(const gs_chunk_src *src, int threads, const gs_chunk_job *job);

/* Grows c->out to hold at least need bytes. @return 0, or -1 when memory is short */
int gs_chunk_out_reserve(gs_chunk *c, size_t need);

#endif
