/* test_dev.c — src/device/dev: buffers grow and are reused (contents uploaded and filled as asked,
 * a size over the device's limit refused with a message naming the buffer), pinned memory grows and
 * carries transfers, a kernel set is built by names (a missing one refused by name; from a
 * program's parts, whatever its helper processes do), launches run
 * (an axpy against the CPU) and record profiling events tagged with their kernel on a profiling
 * queue (none on a plain one), and the clustered layout's upload holds exactly the host's arrays.
 * Skips (saying why) when there is no device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/cluster.h"
#include "device/dev.h"
#include "testlib.h"

static int read_back(const gs_dev *d, const gs_dev_buf *b, void *dst, size_t bytes)
{
    return clEnqueueReadBuffer(d->queue, b->mem, CL_TRUE, 0, bytes, dst, 0, NULL, NULL) == CL_SUCCESS;
}

static void check_buffers(const gs_dev *d)
{
    gs_dev_buf b = {0};
    int32_t host[100], back[100];
    for (int i = 0; i < 100; i++) host[i] = 3 * i - 7;
    gs_status st = gs_dev_buf_ensure(d, &b, 0, NULL, "empty");
    CHECK(st == GS_OK && b.mem && b.cap == 16, "an empty buffer gets 16 bytes: %s, cap %zu", gs_last_error(), b.cap);
    st = gs_dev_buf_ensure(d, &b, sizeof host, host, "numbers");
    CHECK(st == GS_OK && b.cap == sizeof host, "grown to %zu bytes: %s", b.cap, gs_last_error());
    CHECK(read_back(d, &b, back, sizeof back) && memcmp(back, host, sizeof host) == 0, "uploaded contents");
    const cl_mem before = b.mem;
    host[0] = 12345;
    st = gs_dev_buf_ensure(d, &b, 40, host, "numbers");
    CHECK(st == GS_OK && b.mem == before && b.cap == sizeof host, "a smaller request reuses the buffer");
    CHECK(read_back(d, &b, back, sizeof back) && back[0] == 12345 && back[10] == host[10] && back[99] == host[99],
          "a smaller upload writes only its bytes");
    st = gs_dev_buf_fill(d, &b, -1, 20 * sizeof(int32_t));
    CHECK(st == GS_OK && read_back(d, &b, back, sizeof back) && back[0] == -1 && back[19] == -1 && back[20] == host[20],
          "fill covers its bytes only");
    gs_dev_buf big = {0};
    st = gs_dev_buf_ensure(d, &big, (size_t)d->ocl->max_alloc + 1, NULL, "too-big test buffer");
    CHECK(st == GS_ERR_NOMEM && !big.mem && strstr(gs_last_error(), "too-big test buffer"), "%s", gs_last_error());
    gs_dev_buf_release(&b);
    CHECK(!b.mem && b.cap == 0, "release zeroes");
    gs_dev_buf_release(&b); /* again: no-op */
}

static void check_pinned(const gs_dev *d)
{
    gs_dev_pinned p = {0};
    gs_dev_buf b = {0};
    void *h = NULL;
    gs_status st = gs_dev_pinned_ensure(d, &p, 64, &h);
    CHECK(st == GS_OK && h && p.cap == 64, "pinned 64 bytes: %s", gs_last_error());
    void *h2 = NULL;
    st = gs_dev_pinned_ensure(d, &p, 32, &h2);
    CHECK(st == GS_OK && h2 == h, "a smaller request keeps the mapping");
    st = gs_dev_pinned_ensure(d, &p, 4096, &h);
    CHECK(st == GS_OK && h && p.cap == 4096, "grown: %s", gs_last_error());
    if (st == GS_OK) {
        double *x = h;
        for (int i = 0; i < 512; i++) x[i] = i * 0.5;
        st = gs_dev_buf_ensure(d, &b, 4096, x, "from pinned memory");
        double back[512];
        CHECK(st == GS_OK && read_back(d, &b, back, sizeof back) && back[511] == 255.5 && back[1] == 0.5,
              "an upload from pinned memory");
    }
    /* from GS_PIN_OWN_MIN: our own (huge-page) memory under the buffer, zeroed; an upload from it and
     * a read into it, then a release whose callback frees it (ASan and LSan watch) */
    const size_t big = GS_PIN_OWN_MIN + 12345 * sizeof(double), nd = big / sizeof(double);
    st = gs_dev_pinned_ensure(d, &p, big, &h);
    CHECK(st == GS_OK && h && p.cap == big && p.own == h, "own pinned memory: %s", gs_last_error());
    if (st == GS_OK) {
        double *x = h;
        int zero = 1;
        for (size_t i = 0; i < nd; i++) zero &= x[i] == 0;
        CHECK(zero, "own pinned memory starts zeroed");
        for (size_t i = 0; i < nd; i++) x[i] = (double)i;
        gs_dev_buf c = {0};
        st = gs_dev_buf_ensure(d, &c, big, x, "from own pinned memory");
        CHECK(st == GS_OK && clFinish(d->queue) == CL_SUCCESS, "upload: %s", gs_last_error());
        memset(x, 0, big);
        CHECK(st == GS_OK && read_back(d, &c, x, big) && x[nd - 1] == (double)(nd - 1) && x[7] == 7.0,
              "own pinned memory there and back");
        gs_dev_buf_release(&c);
    }
    gs_dev_pinned_release(d, &p);
    CHECK(!p.mem && !p.host && p.cap == 0 && !p.own, "release zeroes");
    gs_dev_buf_release(&b);
}

enum { K_AXPY, K_DOT, K_N };
static const char *const names[K_N] = {"gs_selftest_axpy", "gs_selftest_dot"};

/* y = a x + y twice on queue d; with a profiling queue the two launches are recorded. */
static void check_launch(gs_ocl *o, const gs_dev *d, const char *what)
{
    enum { N = 777 };
    double x[N], y[N], out[N];
    for (int i = 0; i < N; i++) { x[i] = i * 0.25; y[i] = 1.0 - i; }
    gs_dev_kernels ks;
    gs_dev_buf bx = {0}, by = {0};
    gs_dev_prof pf = {0};
    cl_event done = NULL;
    gs_status st = gs_dev_kernels_build(o, "selftest", "-DWG=16", 1, names, K_N, &ks);
    CHECK(st == GS_OK && ks.n == K_N && ks.k[K_AXPY] && ks.k[K_DOT], "%s: kernel set: %s", what, gs_last_error());
    if (st != GS_OK) return;
    const int n = N;
    const double a = 2.0;
    const gs_dev_karg args[] = {GS_KARG(n), GS_KARG(a), GS_KARG_BUF(bx), GS_KARG_BUF(by)};
    if ((st = gs_dev_buf_ensure(d, &bx, sizeof x, x, "x")) || (st = gs_dev_buf_ensure(d, &by, sizeof y, y, "y")) ||
        (st = GS_DEV_ARGS(&ks, K_AXPY, args)) || (st = gs_dev_launch(d, &ks, K_AXPY, &pf, 800, 1, 16, NULL)) ||
        (st = gs_dev_launch(d, &ks, K_AXPY, &pf, 800, 1, 0, &done)))
        goto cleanup;
    CHECK(read_back(d, &by, out, sizeof out), "%s: read", what);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += out[i] != (y[i] + a * x[i]) + a * x[i]; /* exact: multiples of 1/4 */
    CHECK(bad == 0, "%s: %d of %d values off", what, bad, N);
    CHECK(done != NULL, "%s: completion event", what);
    if (done) {
        cl_int status = 0;
        clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
        CHECK(status == CL_COMPLETE, "%s: completion event status %d", what, (int)status);
    }
    if (d->profile) {
        CHECK(pf.n == 2 && pf.id[0] == K_AXPY && pf.id[1] == K_AXPY, "%s: %d events recorded", what, pf.n);
        static const int phase_of[K_N] = {1, 0};
        double phase[2] = {0, 0}, per[K_N] = {0, 0};
        const double first = gs_dev_prof_collect(&pf, phase_of, phase, per, 1);
        CHECK(pf.n == 0 && per[K_DOT] == 0 && phase[0] == 0 && per[K_AXPY] == phase[1] && first <= per[K_AXPY] &&
              per[K_AXPY] >= 0 && per[K_AXPY] < 10, "%s: profile: first %g, axpy %g, phases %g %g", what, first,
              per[K_AXPY], phase[0], phase[1]);
    } else {
        CHECK(pf.n == 0, "%s: events recorded on a queue that does not profile", what);
    }
    st = gs_dev_launch(d, &ks, K_AXPY, NULL, 800, 1, 7, NULL); /* 800 is no multiple of 7 */
    CHECK(st == GS_ERR_OCL && strstr(gs_last_error(), "gs_selftest_axpy"), "%s: a bad launch: %s", what,
          gs_last_error());
    st = GS_OK;
cleanup:
    CHECK(st == GS_OK, "%s: %s", what, gs_last_error());
    if (done) clReleaseEvent(done);
    clFinish(d->queue);
    gs_dev_prof_release(&pf);
    gs_dev_buf_release(&by);
    gs_dev_buf_release(&bx);
    gs_dev_kernels_release(&ks);
    CHECK(!ks.nprog && !ks.prog[0] && !ks.k[0], "%s: kernels released", what);
}

/* A program in parts (gs_ocl_build_parts), its helpers forced (build_procs 2) but unable to build
 * (/bin/false starts and fails; a missing program does not start): this process builds every part
 * itself and the kernels come from the parts (selftest has no GS_PART guards: every part holds
 * both). build_procs 0: the whole program. */
static void check_parts(gs_ocl *o)
{
    static const char *const exes[] = {"/bin/false", "/nonexistent/gpusvm-train"};
    static const char *const opts[] = {"-DWG=8", "-DWG=4"};
    char *saved = o->build_exe;
    const int saved_procs = o->build_procs;
    for (int i = 0; i < 2; i++) {
        o->build_exe = (char *)exes[i];
        o->build_procs = 2;
        const int started = o->helpers_started, ok = o->helpers_ok, parts = o->parts_built;
        gs_dev_kernels ks;
        gs_status st = gs_dev_kernels_build(o, "selftest", opts[i], 3, names, K_N, &ks);
        CHECK(st == GS_OK && ks.nprog == 3 && ks.k[K_AXPY] && ks.k[K_DOT] && o->parts_built == parts + 1,
              "%s as the helper: 3 parts, both kernels: %s", exes[i], gs_last_error());
        CHECK(o->helpers_started - started == (i == 0 ? 2 : 0) && o->helpers_ok == ok,
              "%s as the helper: %d started, %d succeeded", exes[i], o->helpers_started - started, o->helpers_ok - ok);
        gs_dev_kernels_release(&ks);
    }
    o->build_procs = 0;
    gs_dev_kernels ks;
    gs_status st = gs_dev_kernels_build(o, "selftest", "-DWG=2", 3, names, K_N, &ks);
    CHECK(st == GS_OK && ks.nprog == 1 && ks.k[K_AXPY] && ks.k[K_DOT], "build_procs 0: one program: %s",
          gs_last_error());
    gs_dev_kernels_release(&ks);
    o->build_exe = saved;
    o->build_procs = saved_procs;
}

static void check_missing_kernel(gs_ocl *o)
{
    static const char *const bad[] = {"gs_selftest_axpy", "gs_no_such_kernel"};
    gs_dev_kernels ks;
    gs_status st = gs_dev_kernels_build(o, "selftest", NULL, 1, bad, 2, &ks);
    CHECK(st == GS_ERR_OCL && strstr(gs_last_error(), "gs_no_such_kernel") && !ks.nprog && !ks.prog[0] && !ks.k[0],
          "a missing kernel: %s", gs_last_error());
}

/* A small clustered matrix: half the rows share a few dense patterns, the other half have six
 * scattered columns each (their clusters are stored row-wise). */
static void check_upload(const gs_dev *d)
{
    enum { N = 300 };
    int64_t rp[N + 1];
    static int32_t idx[N * 16];
    static float val[N * 16];
    int64_t k = 0;
    uint32_t s = 12345;
    rp[0] = 0;
    for (int r = 0; r < N; r++) {
        if (r < N / 2) {
            for (int j = 0; j <= r % 12; j++) { idx[k] = 1 + j; val[k++] = (float)(r - j) / 8; }
        } else {
            int32_t c = 20;
            for (int j = 0; j < 6; j++) {
                s = s * 1664525u + 1013904223u;
                c += 1 + (int32_t)(s >> 20);
                idx[k] = c;
                val[k++] = (float)(j + 1) / 4;
            }
        }
        rp[r + 1] = k;
    }
    gs_clustered cl;
    gs_dev_clustered x;
    memset(&x, 0, sizeof x);
    gs_status st = gs_cluster_build(rp, idx, val, N, 16, 8, 3, &cl);
    CHECK(st == GS_OK, "cluster: %s", gs_last_error());
    if (st != GS_OK) return;
    st = gs_dev_upload_clustered(d, &cl, &x);
    CHECK(st == GS_OK, "upload: %s", gs_last_error());
    const size_t ncl = (size_t)cl.n_clusters, ncols = (size_t)cl.col_off[ncl], nell = (size_t)cl.ell_nnz;
    const struct { const gs_dev_buf *b; const void *h; size_t bytes; const char *name; } arr[] = {
        {&x.cols, cl.cols, ncols * 4, "cols"}, {&x.col_off, cl.col_off, (ncl + 1) * 8, "col_off"},
        {&x.vals, cl.vals, ncols * 16 * 4, "vals"}, {&x.ell_w, cl.ell_w, ncl * 4, "ell_w"},
        {&x.ell_off, cl.ell_off, (ncl + 1) * 8, "ell_off"}, {&x.ell_idx, cl.ell_idx, nell * 4, "ell_idx"},
        {&x.ell_val, cl.ell_val, nell * 4, "ell_val"}, {&x.norm2, cl.norm2, (size_t)cl.n_pos * 8, "norm2"}};
    CHECK(cl.n_ell > 0 && cl.n_ell < cl.n_clusters, "both forms present: %d of %d clusters row-wise", cl.n_ell,
          cl.n_clusters);
    for (size_t i = 0; st == GS_OK && i < sizeof arr / sizeof arr[0]; i++) {
        void *back = malloc(arr[i].bytes ? arr[i].bytes : 1);
        CHECK(arr[i].b->cap >= arr[i].bytes && (arr[i].bytes == 0 || (read_back(d, arr[i].b, back, arr[i].bytes) &&
              memcmp(back, arr[i].h, arr[i].bytes) == 0)), "uploaded %s (%zu bytes)", arr[i].name, arr[i].bytes);
        free(back);
    }
    const cl_mem vals_before = x.vals.mem;
    st = gs_dev_upload_clustered(d, &cl, &x); /* a second upload of the same size reuses the buffers */
    CHECK(st == GS_OK && x.vals.mem == vals_before, "second upload: %s", gs_last_error());
    clFinish(d->queue);
    gs_dev_bufs_release(&x.cols, GS_DEV_CLUSTERED_BUFS);
    CHECK(!x.norm2.mem && !x.cols.mem, "release");
    gs_clustered_free(&cl);
}

int main(void)
{
    gs_ocl o;
    gs_status st = gs_ocl_open(&o, NULL, NULL);
    if (st == GS_ERR_NODEVICE || st == GS_ERR_UNSUPPORTED) {
        SKIP("no usable OpenCL device: %s", gs_last_error());
        TEST_END();
    }
    CHECK(st == GS_OK, "gs_ocl_open: %s", gs_last_error());
    if (st != GS_OK) TEST_END();
    gs_dev d;
    st = gs_dev_init(&d, &o, NULL);
    CHECK(st == GS_OK && d.queue == o.queue && d.ocl == &o, "init on the device's queue: %s", gs_last_error());
    check_buffers(&d);
    check_pinned(&d);
    check_missing_kernel(&o);
    check_parts(&o);
    check_launch(&o, &d, "device queue");
    check_upload(&d);

    cl_int e = CL_SUCCESS; /* a queue of our own that profiles, whatever GPUSVM_PROFILE says */
    cl_command_queue pq = clCreateCommandQueue(o.ctx, o.device, CL_QUEUE_PROFILING_ENABLE, &e);
    CHECK(e == CL_SUCCESS, "profiling queue: %s", gs_cl_error_name(e));
    if (e == CL_SUCCESS) {
        gs_dev dp;
        st = gs_dev_init(&dp, &o, pq);
        CHECK(st == GS_OK && dp.profile == 1 && dp.queue == pq, "init on a profiling queue");
        check_launch(&o, &dp, "profiling queue");
        clReleaseCommandQueue(pq);
    }
    gs_ocl_close(&o);
    TEST_END();
}
