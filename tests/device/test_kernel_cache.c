/* test_kernel_cache.c — gs_ocl_build with the kernel cache (src/device/kcache.h) on a real device:
 * the first build writes one entry, the second loads it (and its kernel computes what the CPU
 * does); a flipped binary byte, a truncated file, a wrong magic, a well-formed entry whose binary
 * the driver refuses, are each refused, rebuilt and overwritten with a valid entry; other options
 * make another entry; one gs_ocl asked twice for a program returns the one it built; a folder
 * that cannot be created leaves the build working with nothing
 * recorded as an error; no folder, no files; a CPU device uses the folder only when told to
 * (kernel_cache_cpu). Skips when there is no device. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/kcache.h"
#include "device/ocl.h"
#include "testlib.h"

static char g_root[64];
static char g_dir[128];
static char g_note[sizeof ((gs_ocl *)0)->cache_note]; /* the last build_expect's cache_note */

/* The one entry "selftest-*.bin" in dir into path (0 when there is not exactly one). */
static int entry_path(const char *dir, char *path, size_t cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "selftest-", 9) == 0 && len > 4 && strcmp(e->d_name + len - 4, ".bin") == 0) {
            if ((size_t)snprintf(path, cap, "%s/%s", dir, e->d_name) < cap) n++;
        }
    }
    closedir(d);
    return n == 1;
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* y = 2x + y on 64 doubles with the program's axpy: 1 when it matches the CPU exactly (one fma or
 * a multiply and an add of small integers: exact either way). */
static int axpy_works(gs_ocl *o, cl_program p)
{
    enum { N = 64 };
    double x[N], y[N], out[N];
    for (int i = 0; i < N; i++) { x[i] = i; y[i] = 3 * i + 1; }
    cl_int e = CL_SUCCESS;
    cl_kernel k = NULL;
    cl_mem bx = NULL, by = NULL;
    int ok = 0;
    if (gs_ocl_kernel(p, "gs_selftest_axpy", &k) != GS_OK) goto cleanup;
    bx = clCreateBuffer(o->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, &e);
    if (e != CL_SUCCESS) goto cleanup;
    by = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof y, y, &e);
    if (e != CL_SUCCESS) goto cleanup;
    const int n = N;
    const double a = 2.0;
    size_t g = N;
    if (clSetKernelArg(k, 0, sizeof n, &n) != CL_SUCCESS || clSetKernelArg(k, 1, sizeof a, &a) != CL_SUCCESS ||
        clSetKernelArg(k, 2, sizeof bx, &bx) != CL_SUCCESS || clSetKernelArg(k, 3, sizeof by, &by) != CL_SUCCESS ||
        clEnqueueNDRangeKernel(o->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(o->queue, by, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL) != CL_SUCCESS)
        goto cleanup;
    ok = 1;
    for (int i = 0; i < N; i++) ok &= out[i] == 2.0 * x[i] + y[i];
cleanup:
    if (by) clReleaseMemObject(by);
    if (bx) clReleaseMemObject(bx);
    if (k) clReleaseKernel(k);
    return ok;
}

/* Builds selftest -DWG=16 in a gs_ocl of its own (a gs_ocl reuses what it built) opened with t,
 * and checks the counters (loaded, stored, rejected). */
static void build_expect(const gs_tuning *t, const char *what, int loaded, int stored, int rejected)
{
    gs_ocl ocl, *o = &ocl;
    if (gs_ocl_open(o, NULL, t) != GS_OK) {
        CHECK(0, "%s: open: %s", what, gs_last_error());
        return;
    }
    const int l0 = o->cache_loaded, s0 = o->cache_stored, r0 = o->cache_rejected;
    cl_program p = NULL;
    gs_clear_error();
    gs_status st = gs_ocl_build(o, "selftest", "-DWG=16", &p);
    CHECK(st == GS_OK && p, "%s: build: %s", what, gs_last_error());
    CHECK(o->cache_loaded - l0 == loaded && o->cache_stored - s0 == stored && o->cache_rejected - r0 == rejected,
          "%s: loaded %d stored %d rejected %d, expected %d %d %d (note: %s)", what, o->cache_loaded - l0,
          o->cache_stored - s0, o->cache_rejected - r0, loaded, stored, rejected, o->cache_note);
    CHECK(gs_last_error()[0] == '\0', "%s: an error was left recorded: %s", what, gs_last_error());
    if (p) {
        CHECK(axpy_works(o, p), "%s: the program's axpy", what);
        clReleaseProgram(p);
    }
    memcpy(g_note, o->cache_note, sizeof g_note); /* the same size */
    g_note[sizeof g_note - 1] = '\0';
    gs_ocl_close(o);
}

/* Reads the entry at path, applies f to its bytes, writes them back. */
static void mangle(const char *path, void (*f)(unsigned char *, size_t *))
{
    unsigned char *buf = NULL;
    size_t len = 0;
    if (gs_kcache_read(path, &buf, &len) != GS_OK) return;
    f(buf, &len);
    FILE *out = fopen(path, "wb");
    if (out) {
        fwrite(buf, 1, len, out);
        fclose(out);
    }
    free(buf);
}
static void flip_last(unsigned char *b, size_t *len) { b[*len - 1] ^= 0x40; }
static void halve(unsigned char *b, size_t *len) { (void)b; *len /= 2; }
static void bad_magic(unsigned char *b, size_t *len) { (void)len; b[0] = 'X'; }

/* The key an entry's header names (its text copied: free key->text), or 0 when the header is cut. */
static int entry_key(const unsigned char *buf, size_t len, gs_kcache_key *key)
{
    if (len < GS_KCACHE_HEADER) return 0;
    const size_t klen = (size_t)buf[12] | (size_t)buf[13] << 8;
    char *text = len >= GS_KCACHE_HEADER + klen ? malloc(klen + 1) : NULL;
    if (!text) return 0;
    memcpy(text, buf + GS_KCACHE_HEADER, klen);
    text[klen] = '\0';
    uint64_t h = 0;
    for (int i = 7; i >= 0; i--) h = h << 8 | buf[16 + i];
    *key = (gs_kcache_key){text, h};
    return 1;
}

/* 1 when the entry at path is valid for its own key (read back from its header). */
static int entry_valid(const char *path)
{
    unsigned char *buf = NULL;
    size_t len = 0, n = 0;
    const unsigned char *bin = NULL;
    gs_kcache_key key;
    int ok = 0;
    if (gs_kcache_read(path, &buf, &len) != GS_OK) return 0;
    if (entry_key(buf, len, &key)) {
        ok = gs_kcache_decode(buf, len, &key, &bin, &n) == NULL;
        free((char *)key.text);
    }
    free(buf);
    return ok;
}

/* A well-formed entry (right key, right checksum) whose binary is not a program. */
static void garbage_binary(const char *path)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    gs_kcache_key key;
    if (gs_kcache_read(path, &buf, &len) != GS_OK) return;
    if (entry_key(buf, len, &key)) {
        unsigned char junk[512];
        for (size_t i = 0; i < sizeof junk; i++) junk[i] = (unsigned char)(i * 131 + 7);
        CHECK(gs_kcache_write(path, &key, junk, sizeof junk) == GS_OK, "write the junk entry");
        free((char *)key.text);
    }
    free(buf);
}

/* The same gs_ocl asked twice: the second is the first program again, with no build. */
static void check_reuse(gs_ocl *o)
{
    cl_program p1 = NULL, p2 = NULL, p3 = NULL;
    const int l0 = o->cache_loaded, s0 = o->cache_stored, u0 = o->reused;
    CHECK(gs_ocl_build(o, "selftest", "-DWG=16", &p1) == GS_OK, "reuse: first: %s", gs_last_error());
    CHECK(gs_ocl_build(o, "selftest", "-DWG=16", &p2) == GS_OK, "reuse: second: %s", gs_last_error());
    CHECK(p1 && p1 == p2 && o->reused - u0 == 1, "reuse: the same program (reused %d)", o->reused - u0);
    CHECK(o->cache_loaded + o->cache_stored - l0 - s0 == 1, "reuse: one load or build for two calls");
    if (p1) clReleaseProgram(p1);
    /* the caller's release leaves the kept reference: still usable */
    if (p2) {
        CHECK(axpy_works(o, p2), "reuse: the program after one release");
        clReleaseProgram(p2);
    }
    CHECK(gs_ocl_build(o, "selftest", "-DWG=32", &p3) == GS_OK && p3 != p1, "reuse: other options, another program");
    if (p3) clReleaseProgram(p3);
}

static void check_cache(void)
{
    gs_tuning t;
    gs_tuning_init(&t);
    t.kernel_cache = g_dir;
    t.kernel_cache_cpu = 1;
    gs_ocl o;
    gs_status st = gs_ocl_open(&o, NULL, &t);
    if (st == GS_ERR_NODEVICE) {
        SKIP("no OpenCL device: %s", gs_last_error());
        return;
    }
    CHECK(st == GS_OK, "open: %s", gs_last_error());
    if (st != GS_OK) return;
    CHECK(o.kernel_cache && strcmp(o.kernel_cache, g_dir) == 0, "folder copied");
    printf("INFO device %s / %s, driver %s\n", o.platform_name, o.device_name, o.driver_version);
    gs_ocl_close(&o);

    char path[512] = "";
    build_expect(&t, "first build", 0, 1, 0);
    CHECK(entry_path(g_dir, path, sizeof path), "one entry in %s (the folder made on the way)", g_dir);
    CHECK(entry_valid(path), "the entry is valid");
    build_expect(&t, "second build", 1, 0, 0);

    void (*const mangles[3])(unsigned char *, size_t *) = {flip_last, halve, bad_magic};
    const char *const names[3] = {"a flipped binary byte", "a truncated entry", "a wrong magic"};
    for (int i = 0; i < 3; i++) {
        mangle(path, mangles[i]);
        CHECK(!entry_valid(path), "%s: mangled", names[i]);
        build_expect(&t, names[i], 0, 1, 1);
        CHECK(strstr(g_note, "refused") != NULL, "%s: note: %s", names[i], g_note);
        CHECK(entry_valid(path), "%s: overwritten with a valid entry", names[i]);
        build_expect(&t, "after the rebuild", 1, 0, 0);
    }
    garbage_binary(path);
    CHECK(entry_valid(path), "the junk entry is well formed");
    build_expect(&t, "a binary the driver refuses", 0, 1, 1);
    build_expect(&t, "after the junk", 1, 0, 0);
    CHECK(count_files(g_dir) == 1, "one file (no temporaries left): %d", count_files(g_dir));

    /* other options: another entry beside the first; one gs_ocl reuses its programs */
    st = gs_ocl_open(&o, NULL, &t);
    CHECK(st == GS_OK, "open: %s", gs_last_error());
    if (st == GS_OK) {
        check_reuse(&o);
        CHECK(count_files(g_dir) == 2, "two entries: %d", count_files(g_dir));
        char line[1024];
        gs_ocl_describe_cache(&o, line, sizeof line);
        printf("INFO %s\n", line);
        CHECK(strstr(line, g_dir) && strstr(line, " loaded, ") && strstr(line, ", 1 reused"), "describe: %s", line);
        gs_ocl_close(&o);
    }

    /* a folder that cannot be made (its parent is a file; root too is refused): built, no error */
    char file[160], bad[200];
    snprintf(file, sizeof file, "%s/plainfile", g_root);
    FILE *f = fopen(file, "w");
    if (f) fclose(f);
    snprintf(bad, sizeof bad, "%s/gpusvm", file);
    t.kernel_cache = bad;
    build_expect(&t, "unwritable folder", 0, 0, 0);
    CHECK(strstr(g_note, "cannot create") != NULL, "note: %s", g_note);
    unlink(file);

    /* the default folder and a CPU device: off, saying why */
    t.kernel_cache = g_dir;
    t.kernel_cache_cpu = 0;
    st = gs_ocl_open(&o, NULL, &t);
    if (st == GS_OK) {
        char line[1024];
        const int cpu = (o.device_type & CL_DEVICE_TYPE_CPU) != 0;
        CHECK(cpu == (o.kernel_cache == NULL) && cpu == o.cache_cpu_skipped, "CPU device %d, cache %s", cpu,
              o.kernel_cache ? o.kernel_cache : "off");
        gs_ocl_describe_cache(&o, line, sizeof line);
        CHECK(!cpu || strstr(line, "CPU device"), "describe: %s", line);
        gs_ocl_close(&o);
    }

    /* no folder: nothing written, "kernel cache off" */
    t.kernel_cache = NULL;
    const int before = count_files(g_dir);
    build_expect(&t, "cache off", 0, 0, 0);
    CHECK(count_files(g_dir) == before, "cache off writes nothing");
    st = gs_ocl_open(&o, NULL, &t);
    if (st == GS_OK) {
        char line[1024];
        gs_ocl_describe_cache(&o, line, sizeof line);
        CHECK(strncmp(line, "kernel cache off,", 17) == 0, "describe: %s", line);
        gs_ocl_close(&o);
    }
}

int main(void)
{
    snprintf(g_root, sizeof g_root, "/tmp/gs_kc_XXXXXX");
    if (!mkdtemp(g_root)) {
        printf("FAIL mkdtemp\n");
        return 1;
    }
    snprintf(g_dir, sizeof g_dir, "%s/cache/gpusvm", g_root);
    check_cache();
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
    if (system(cmd) != 0) printf("INFO could not remove %s\n", g_root);
    TEST_END();
}
