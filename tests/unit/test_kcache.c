/* test_kcache.c — the kernel cache's entry format (src/device/kcache.c), no device needed: an entry
 * written and read back decodes to the same binary; every single flipped byte, every truncation,
 * an appended byte, another key text or hash, is refused; the folder and its parents are created;
 * a folder that cannot be created (its parent is a file: refused even for root) gives GS_ERR_IO;
 * FNV-1a 64 matches its published test vectors. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/kcache.h"
#include "testlib.h"

static char g_dir[64];

static void check_fnv(void)
{
    /* the reference vectors of FNV-1a 64 (Fowler/Noll/Vo test suite) */
    CHECK(gs_fnv1a64(GS_FNV1A64_INIT, "", 0) == 0xcbf29ce484222325ull, "empty");
    CHECK(gs_fnv1a64(GS_FNV1A64_INIT, "a", 1) == 0xaf63dc4c8601ec8cull, "\"a\"");
    CHECK(gs_fnv1a64(GS_FNV1A64_INIT, "foobar", 6) == 0x85944171f73967e8ull, "\"foobar\"");
    /* continuing a hash is hashing the concatenation */
    CHECK(gs_fnv1a64(gs_fnv1a64(GS_FNV1A64_INIT, "foo", 3), "bar", 3) == 0x85944171f73967e8ull, "split");
}

static void check_round_trip(void)
{
    const gs_kcache_key key = {"gpusvm kernel cache\ndevice: test\noptions: -DWG=256\n", 0x0123456789abcdefull};
    unsigned char bin[300];
    for (size_t i = 0; i < sizeof bin; i++) bin[i] = (unsigned char)(i * 37 + 11);
    char *path = NULL;
    CHECK(gs_kcache_path(g_dir, "solver", &key, &path) == GS_OK, "path");
    if (!path) return;
    char want[128];
    snprintf(want, sizeof want, "%s/solver-0123456789abcdef.bin", g_dir);
    CHECK(strcmp(path, want) == 0, "path %s", path);
    CHECK(gs_kcache_write(path, &key, bin, sizeof bin) == GS_OK, "write: %s", gs_last_error());

    unsigned char *buf = NULL;
    size_t len = 0, n = 0;
    const unsigned char *b = NULL;
    CHECK(gs_kcache_read(path, &buf, &len) == GS_OK, "read: %s", gs_last_error());
    if (!buf) { free(path); return; }
    CHECK(len == GS_KCACHE_HEADER + strlen(key.text) + sizeof bin, "size %zu", len);
    CHECK(memcmp(buf, "GSKCACHE", 8) == 0, "magic first");
    const char *why = gs_kcache_decode(buf, len, &key, &b, &n);
    CHECK(why == NULL && n == sizeof bin && b && memcmp(b, bin, n) == 0, "decode: %s", why ? why : "");

    /* every flipped byte is caught: header fields, key text, binary (its checksum) */
    int caught = 0;
    for (size_t i = 0; i < len; i++) {
        buf[i] ^= 0x5a;
        caught += gs_kcache_decode(buf, len, &key, &b, &n) != NULL && b == NULL && n == 0;
        buf[i] ^= 0x5a;
    }
    CHECK(caught == (int)len, "flipped bytes caught: %d of %zu", caught, len);
    /* every truncation, and one byte more */
    caught = 0;
    for (size_t l = 0; l < len; l++) caught += gs_kcache_decode(buf, l, &key, &b, &n) != NULL;
    CHECK(caught == (int)len, "truncations caught: %d of %zu", caught, len);
    unsigned char *longer = malloc(len + 1);
    if (longer) {
        memcpy(longer, buf, len);
        longer[len] = 0;
        CHECK(gs_kcache_decode(longer, len + 1, &key, &b, &n) != NULL, "an appended byte is caught");
        free(longer);
    }
    /* another key: other text of the same length, another hash, another length */
    gs_kcache_key other = key;
    other.hash ^= 1;
    CHECK(gs_kcache_decode(buf, len, &other, &b, &n) != NULL, "other hash");
    other = key;
    other.text = "gpusvm kernel cache\ndevice: test\noptions: -DWG=512\n";
    CHECK(gs_kcache_decode(buf, len, &other, &b, &n) != NULL, "other key text");
    other.text = "gpusvm kernel cache\n";
    CHECK(gs_kcache_decode(buf, len, &other, &b, &n) != NULL, "shorter key text");
    CHECK(gs_kcache_decode(buf, len, &key, &b, &n) == NULL, "the original still decodes");

    /* a second write replaces the entry whole */
    bin[0] ^= 1;
    CHECK(gs_kcache_write(path, &key, bin, sizeof bin) == GS_OK, "rewrite: %s", gs_last_error());
    free(buf);
    buf = NULL;
    CHECK(gs_kcache_read(path, &buf, &len) == GS_OK, "read again");
    CHECK(buf && gs_kcache_decode(buf, len, &key, &b, &n) == NULL && b[0] == bin[0], "rewritten entry");
    free(buf);
    unlink(path);
    free(path);
}

static void check_folders(void)
{
    const gs_kcache_key key = {"k\n", 7};
    const unsigned char bin[4] = {1, 2, 3, 4};
    char path[160], file[96];
    /* missing parents are made, 0700 */
    snprintf(path, sizeof path, "%s/a/b/c/p-0000000000000007.bin", g_dir);
    CHECK(gs_kcache_write(path, &key, bin, sizeof bin) == GS_OK, "nested: %s", gs_last_error());
    struct stat sb;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/a/b/c", g_dir);
    CHECK(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) && (sb.st_mode & 0777) == 0700, "made 0700");
    unlink(path);
    /* a parent that is a file: refused, no crash, nothing left */
    snprintf(file, sizeof file, "%s/plainfile", g_dir);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL, "make %s", file);
    if (f) fclose(f);
    snprintf(path, sizeof path, "%s/sub/p.bin", file);
    CHECK(gs_kcache_write(path, &key, bin, sizeof bin) == GS_ERR_IO, "parent is a file");
    CHECK(strstr(gs_last_error(), "cannot create") != NULL, "message: %s", gs_last_error());
    unsigned char *buf = NULL;
    size_t len = 0;
    CHECK(gs_kcache_read(path, &buf, &len) == GS_ERR_IO && !buf, "reading a missing entry");
    unlink(file);
    snprintf(dir, sizeof dir, "%s/a/b/c", g_dir);
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/a/b", g_dir);
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/a", g_dir);
    rmdir(dir);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/gs_kcache_XXXXXX");
    if (!mkdtemp(g_dir)) {
        printf("FAIL mkdtemp\n");
        return 1;
    }
    check_fnv();
    check_round_trip();
    check_folders();
    rmdir(g_dir);
    TEST_END();
}
