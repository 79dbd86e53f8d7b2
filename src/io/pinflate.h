/* pinflate.h — a gzip file inflated on several threads, read in order as one byte stream, with
 * exactly what zlib's one-thread inflate gives: the same bytes, and for a damaged file the same
 * bytes before the same error (data.c's messages: "bad gzip data (<zlib's reason>)", "unexpected
 * end of gzip data"). Concatenated members are read one after another and bytes after the last
 * member that do not start another are ignored, as in data.c's serial reader.
 *
 * How: the first member's deflate data is cut into chunks of compressed bytes; a worker finds the
 * first block header in its chunk that looks real (deflate.h) and decodes from it with the 32 KiB
 * before it unknown; the reader accepts a chunk only when it starts exactly where the accepted
 * chunk before it ended, fills in its unknown window bytes, and checks the member's CRC-32 and
 * length at its end. Where a chunk is not confirmed (a chance header, a block type the search does
 * not look for, damage), zlib decodes from the last confirmed block end, with the window it
 * knows, until a later chunk's start is reached; later members are read by zlib alone. */
#ifndef GS_PINFLATE_H
#define GS_PINFLATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/status.h"

typedef struct gs_pinflate gs_pinflate;

typedef struct gs_pinflate_opts {
    int threads;        /* workers (>= 1) */
    size_t chunk_bytes; /* compressed bytes a chunk; 0: from the file's size and the threads
                           (tests use a few KiB, so that chunks and fallbacks are many) */
} gs_pinflate_opts;

/* Maps the regular file open on fd (from its byte 0; fd may be closed afterwards) and starts the
 * workers. The file must begin with gzip's magic bytes.
 * @return GS_OK, GS_ERR_IO (cannot map it), GS_ERR_NOMEM; no message is recorded: the caller
 *         reads the file the serial way instead */
gs_status gs_pinflate_open(int fd, const char *path, const gs_pinflate_opts *opts, gs_pinflate **out);

/* Up to cap inflated bytes into buf. After an error, the bytes before it are returned first and
 * the error with the next call.
 * @return bytes (> 0), 0 at the end, -1 on error with its message in msg (msg_cap bytes) */
ssize_t gs_pinflate_read(gs_pinflate *p, char *buf, size_t cap, char *msg, size_t msg_cap);

/* What the reading has been so far: bytes from confirmed chunks, bytes zlib inflated (fallback
 * and later members), chunks confirmed. */
typedef struct gs_pinflate_stats {
    uint64_t chunk_bytes, zlib_bytes;
    int chunks;
} gs_pinflate_stats;
gs_pinflate_stats gs_pinflate_get_stats(const gs_pinflate *p);

/* The inflated size the file's last 4 bytes give (gzip's ISIZE: the last member's length mod
 * 2^32; for a one-member file under 4 GiB, the whole text's). A hint for sizing buffers only. */
uint64_t gs_pinflate_size_hint(const gs_pinflate *p);

/* Stops the workers and unmaps; NULL is fine. */
void gs_pinflate_close(gs_pinflate *p);

#endif
