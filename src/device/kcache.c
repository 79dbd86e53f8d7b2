/* kcache.c — see kcache.h. */
#include "device/kcache.h"
#include "util/atomic_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char k_magic[8] = {'G', 'S', 'K', 'C', 'A', 'C', 'H', 'E'};

uint64_t gs_fnv1a64(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++, v >>= 8) p[i] = (unsigned char)(v & 0xff);
}

const char *gs_kcache_decode(const unsigned char *buf, size_t len, const gs_kcache_key *key,
                             const unsigned char **bin, size_t *bin_len)
{
    *bin = NULL;
    *bin_len = 0;
    const size_t klen = strlen(key->text);
    if (len < GS_KCACHE_HEADER) return "shorter than the header";
    if (memcmp(buf, k_magic, sizeof k_magic) != 0) return "bad magic";
    if (get_le(buf + 8, 4) != GS_KCACHE_VERSION) return "other format version";
    if (get_le(buf + 12, 4) != klen) return "key length mismatch";
    if (get_le(buf + 16, 8) != key->hash) return "key hash mismatch";
    const uint64_t n = get_le(buf + 24, 8);
    /* the exact size: a truncated or extended file is refused before anything reads the binary */
    if (len - GS_KCACHE_HEADER < klen || n != len - GS_KCACHE_HEADER - klen) return "length mismatch";
    if (n == 0) return "empty binary";
    if (memcmp(buf + GS_KCACHE_HEADER, key->text, klen) != 0) return "key text mismatch";
    const unsigned char *b = buf + GS_KCACHE_HEADER + klen;
    if (gs_fnv1a64(GS_FNV1A64_INIT, b, (size_t)n) != get_le(buf + 32, 8)) return "binary checksum mismatch";
    *bin = b;
    *bin_len = (size_t)n;
    return NULL;
}

gs_status gs_kcache_path(const char *dir, const char *program, const gs_kcache_key *key, char **out)
{
    const size_t cap = strlen(dir) + strlen(program) + 32;
    *out = malloc(cap);
    if (!*out) return GS_FAIL(GS_ERR_NOMEM, "out of memory naming a kernel cache entry");
    snprintf(*out, cap, "%s/%s-%016llx.bin", dir, program, (unsigned long long)key->hash);
    return GS_OK;
}

gs_status gs_kcache_read(const char *path, unsigned char **buf, size_t *len)
{
    gs_status st = GS_OK;
    unsigned char *b = NULL;
    struct stat sb;
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return GS_FAIL(GS_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size < 0 ||
        (unsigned long long)sb.st_size > GS_KCACHE_MAX_BYTES) {
        st = GS_FAIL(GS_ERR_IO, "%s: not a regular file of at most %zu bytes", path, GS_KCACHE_MAX_BYTES);
        goto cleanup;
    }
    const size_t n = (size_t)sb.st_size;
    if (!(b = malloc(n ? n : 1))) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory reading %s", path);
        goto cleanup;
    }
    /* one byte more than stat said: a file that grew meanwhile (a writer without rename) is refused */
    if (fread(b, 1, n, f) != n || fgetc(f) != EOF || ferror(f)) {
        st = GS_FAIL(GS_ERR_IO, "cannot read %s", path);
        goto cleanup;
    }
    *buf = b;
    *len = n;
    b = NULL;
cleanup:
    free(b);
    fclose(f);
    return st;
}

/* mkdir -p of path's folder (everything before the last '/'); folders made here get 0700, as the
 * XDG base directory rules ask for a cache home that does not exist yet. */
static gs_status make_parents(const char *path)
{
    gs_status st = GS_OK;
    char *d = strdup(path);
    if (!d) return GS_FAIL(GS_ERR_NOMEM, "out of memory creating the kernel cache folder");
    char *last = strrchr(d, '/');
    if (last && last != d) {
        *last = '\0';
        for (char *p = d + 1;; p++) {
            const char c = *p;
            if (c != '/' && c != '\0') continue;
            *p = '\0';
            struct stat sb;
            if (mkdir(d, 0700) != 0 && errno != EEXIST) {
                st = GS_FAIL(GS_ERR_IO, "cannot create %s: %s", d, strerror(errno));
                break;
            }
            if (stat(d, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
                st = GS_FAIL(GS_ERR_IO, "cannot create %s: not a folder", d);
                break;
            }
            *p = c;
            if (c == '\0') break;
        }
    }
    free(d);
    return st;
}

gs_status gs_kcache_write(const char *path, const gs_kcache_key *key, const unsigned char *bin, size_t len)
{
    gs_status st = GS_OK;
    gs_atomic_file af = {0};
    unsigned char head[GS_KCACHE_HEADER];
    const size_t klen = strlen(key->text);
    memcpy(head, k_magic, sizeof k_magic);
    put_le(head + 8, GS_KCACHE_VERSION, 4);
    put_le(head + 12, klen, 4);
    put_le(head + 16, key->hash, 8);
    put_le(head + 24, len, 8);
    put_le(head + 32, gs_fnv1a64(GS_FNV1A64_INIT, bin, len), 8);
    if ((st = make_parents(path)) != GS_OK) goto cleanup;
    if ((st = gs_atomic_open(&af, path)) != GS_OK) goto cleanup;
    /* a short write leaves ferror set, which gs_atomic_commit turns into an error */
    fwrite(head, 1, sizeof head, af.f);
    fwrite(key->text, 1, klen, af.f);
    fwrite(bin, 1, len, af.f);
    st = gs_atomic_commit(&af);
cleanup:
    gs_atomic_discard(&af);
    return st;
}
