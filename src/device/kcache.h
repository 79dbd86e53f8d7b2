/* kcache.h — the kernel cache: OpenCL program binaries that gs_ocl_build built from source, kept
 * in a folder (the CLIs: $XDG_CACHE_HOME/gpusvm, else ~/.cache/gpusvm; gs_tuning.kernel_cache) so
 * that the next process loads them instead of compiling (~4 s for the solver on an H100 with an
 * empty driver cache).
 *
 * One file per program and key, "<program>-<16 hex digits of the key hash>.bin":
 *   offset  size  field (integers little-endian)
 *        0     8  magic "GSKCACHE"
 *        8     4  format version (GS_KCACHE_VERSION)
 *       12     4  key text length K
 *       16     8  key hash: FNV-1a 64 over the key text, then every source part
 *       24     8  binary length N
 *       32     8  FNV-1a 64 of the binary's bytes
 *       40     K  key text (platform, device, driver and device versions, program, options), so
 *                 that `head` shows what an entry is for
 *     40+K     N  the binary, as CL_PROGRAM_BINARIES gave it
 * An entry is used only when every field matches what this build expects and the file is exactly
 * 40 + K + N bytes; anything else is treated as absent, rebuilt from source and overwritten.
 * Entries are written through atomic_file (a temporary renamed over the name), so concurrent
 * writers of one entry leave one complete file and a reader never sees a partial one. */
#ifndef GS_KCACHE_H
#define GS_KCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#define GS_KCACHE_VERSION 1u
#define GS_KCACHE_HEADER 40u
/* Entries above this size are refused when read (a binary is a few MB). */
#define GS_KCACHE_MAX_BYTES ((size_t)1 << 30)

/* FNV-1a 64 of n bytes continued from h (start from GS_FNV1A64_INIT). */
#define GS_FNV1A64_INIT 0xcbf29ce484222325ull
uint64_t gs_fnv1a64(uint64_t h, const void *p, size_t n);

/* What an entry must match: its key text (NUL-terminated) and key hash. */
typedef struct gs_kcache_key {
    const char *text;
    uint64_t hash;
} gs_kcache_key;

/* Checks an entry's bytes against key. On success *bin and *bin_len give the binary inside buf.
 * @return NULL when the entry is valid, else a short reason ("bad magic", "binary checksum
 *         mismatch", ...) */
const char *gs_kcache_decode(const unsigned char *buf, size_t len, const gs_kcache_key *key,
                             const unsigned char **bin, size_t *bin_len);

/* "<dir>/<program>-<hash>.bin" into a malloc'd string.
 * @return GS_OK or GS_ERR_NOMEM */
gs_status gs_kcache_path(const char *dir, const char *program, const gs_kcache_key *key, char **out);

/* Reads the whole file at path into *buf (malloc'd; *len bytes).
 * @return GS_OK, GS_ERR_IO (absent, unreadable, over GS_KCACHE_MAX_BYTES), GS_ERR_NOMEM */
gs_status gs_kcache_read(const char *path, unsigned char **buf, size_t *len);

/* Writes an entry for key holding bin to path, creating path's folder (and its parents, mode
 * 0700) when missing; atomically (atomic_file).
 * @return GS_OK, GS_ERR_IO ("cannot write ..."), GS_ERR_NOMEM */
gs_status gs_kcache_write(const char *path, const gs_kcache_key *key, const unsigned char *bin, size_t len);

#endif
