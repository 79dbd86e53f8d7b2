/* test_ocl.c — the OpenCL runtime layer: device listing and choice (by spec and by the tuning's
 * device, never by the environment), builds (good, broken, a repeat handed out again, dev mode
 * through the tuning's kernel directory), profiling queues on request, a double axpy and a float
 * dot product against CPU references, opening from a thread. Skips (with a message) what needs a device when there is none. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device/ocl.h"
#include "testlib.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned long long rng_state = 88172645463325252ull;
static double rnd(void) /* uniform in [-1, 1) (xorshift64; deterministic) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void check_list(void)
{
    FILE *f = tmpfile();
    CHECK(f != NULL, "tmpfile");
    if (!f)
        return;
    gs_status st = gs_ocl_list(f);
    rewind(f);
    char line[512];
    int lines = 0, well_formed = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned idx;
        lines++;
        if (sscanf(line, "%u: ", &idx) == 1 && strstr(line, " / ") && strstr(line, " MiB)"))
            well_formed++;
        printf("INFO list: %s", line);
    }
    fclose(f);
    if (st == GS_ERR_NODEVICE) {
        SKIP("gs_ocl_list: %s", gs_last_error());
        return;
    }
    CHECK(st == GS_OK, "gs_ocl_list: %s", gs_last_error());
    CHECK(lines >= 1 && well_formed == lines, "%d lines, %d well formed", lines, well_formed);
}

static void check_no_match(void)
{
    gs_ocl o;
    gs_status st = gs_ocl_open(&o, "no-such-device-xyz", NULL);
    CHECK(st == GS_ERR_NODEVICE, "got %s", gs_status_name(st));
    CHECK(strstr(gs_last_error(), "no OpenCL device") && strstr(gs_last_error(), "no-such-device-xyz"),
          "message: %s", gs_last_error());
    gs_ocl_close(&o);
    st = gs_ocl_open(&o, "999999", NULL);
    CHECK(st == GS_ERR_NODEVICE, "index out of range gave %s", gs_status_name(st));
    CHECK(strstr(gs_last_error(), "999999") != NULL, "message: %s", gs_last_error());
    gs_ocl_close(&o);
    gs_ocl_close(NULL);
    /* the tuning's device stands in for a missing spec, and the message says where it came from */
    gs_tuning t;
    gs_tuning_init(&t);
    t.device = "no-such-device-xyz";
    st = gs_ocl_open(&o, NULL, &t);
    CHECK(st == GS_ERR_NODEVICE && strstr(gs_last_error(), "'no-such-device-xyz' (from GPUSVM_DEVICE)"),
          "tuning device: %s: %s", gs_status_name(st), gs_last_error());
    gs_ocl_close(&o);
}

/* Opening from a helper thread, as the trainer does while it reads data. */
struct open_job {
    gs_ocl o;
    gs_status st;
    char err[1024];
};
static void *open_thread(void *arg)
{
    struct open_job *j = arg;
    j->st = gs_ocl_open(&j->o, NULL, NULL);
    snprintf(j->err, sizeof j->err, "%s", gs_last_error());
    return NULL;
}

static void check_thread_open(const gs_ocl *main_o)
{
    struct open_job j;
    memset(&j, 0, sizeof j);
    pthread_t t;
    int rc = pthread_create(&t, NULL, open_thread, &j);
    CHECK(rc == 0, "pthread_create: %d", rc);
    if (rc != 0)
        return;
    volatile double busy = 0; /* unrelated work meanwhile */
    for (int i = 0; i < 1000000; i++)
        busy += sqrt((double)i);
    pthread_join(t, NULL);
    CHECK(j.st == GS_OK, "open in thread: %s", j.err);
    CHECK(j.st != GS_OK || j.o.device == main_o->device, "thread opened another device");
    gs_ocl_close(&j.o);
}

/* Runs y = a*x + y (double) on n elements and compares with the CPU. */
static void check_axpy(gs_ocl *o, cl_program prog)
{
    enum { N = 1000 }; /* deliberately not a multiple of any local size */
    double x[N], y[N], ref[N], out[N];
    const double a = 0.7315;
    cl_kernel k = NULL;
    cl_mem bx = NULL, by = NULL;
    for (int i = 0; i < N; i++) {
        x[i] = rnd() * 1e3;
        y[i] = rnd();
        ref[i] = a * x[i] + y[i];
    }
    gs_status st = gs_ocl_kernel(prog, "gs_selftest_axpy", &k);
    CHECK(st == GS_OK, "%s", gs_last_error());
    if (st != GS_OK)
        goto cleanup;
    size_t kwg = 0;
    CHECK(gs_ocl_kernel_wg(o, k, &kwg) == GS_OK && kwg >= 1, "%s", gs_last_error());
    size_t local = kwg < 64 ? kwg : 64;
    size_t global = (N + local - 1) / local * local;
    st = gs_ocl_alloc(o, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, "axpy x", &bx);
    if (st == GS_OK)
        st = gs_ocl_alloc(o, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof y, y, "axpy y", &by);
    CHECK(st == GS_OK, "%s", gs_last_error());
    if (st != GS_OK)
        goto cleanup;
    cl_int n = N, e = 0;
    e |= clSetKernelArg(k, 0, sizeof n, &n);
    e |= clSetKernelArg(k, 1, sizeof a, &a);
    e |= clSetKernelArg(k, 2, sizeof bx, &bx);
    e |= clSetKernelArg(k, 3, sizeof by, &by);
    CHECK(e == CL_SUCCESS, "clSetKernelArg");
    e = clEnqueueNDRangeKernel(o->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
    CHECK(e == CL_SUCCESS, "clEnqueueNDRangeKernel: %s", gs_cl_error_name(e));
    e = clEnqueueReadBuffer(o->queue, by, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    CHECK(e == CL_SUCCESS, "clEnqueueReadBuffer: %s", gs_cl_error_name(e));
    /* Tolerance: one rounding of a*x plus one of the sum, or a single one with FMA contraction
     * (allowed by OpenCL C): |dev - ref| <= 4 eps (|a x| + |y|), eps = 2^-52. */
    int bad = 0;
    for (int i = 0; i < N; i++) {
        double tol = 4.0 * 2.220446049250313e-16 * (fabs(a * x[i]) + fabs(y[i]));
        if (!(fabs(out[i] - ref[i]) <= tol)) {
            if (bad++ < 3)
                printf("INFO axpy[%d]: device %.17g cpu %.17g\n", i, out[i], ref[i]);
        }
    }
    CHECK(bad == 0, "%d of %d axpy values off", bad, N);
cleanup:
    if (by) clReleaseMemObject(by);
    if (bx) clReleaseMemObject(bx);
    if (k) clReleaseKernel(k);
}

/* Float dot product by per-group partial sums; the kernel's local size is the build's WG. */
static void check_dot(gs_ocl *o, cl_program prog, size_t wg)
{
    enum { N = 10007, GROUPS = 8 };
    static float x[N], y[N];
    float partial[GROUPS];
    double ref = 0.0, absref = 0.0;
    cl_kernel k = NULL;
    cl_mem bx = NULL, by = NULL, bp = NULL;
    for (int i = 0; i < N; i++) {
        x[i] = (float)rnd();
        y[i] = (float)rnd();
        ref += (double)x[i] * (double)y[i]; /* reference in double from the same float inputs */
        absref += fabs((double)x[i] * (double)y[i]);
    }
    gs_status st = gs_ocl_kernel(prog, "gs_selftest_dot", &k);
    CHECK(st == GS_OK, "%s", gs_last_error());
    if (st != GS_OK)
        goto cleanup;
    size_t global = GROUPS * wg;
    st = gs_ocl_alloc(o, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, "dot x", &bx);
    if (st == GS_OK)
        st = gs_ocl_alloc(o, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof y, y, "dot y", &by);
    if (st == GS_OK)
        st = gs_ocl_alloc(o, CL_MEM_WRITE_ONLY, sizeof partial, NULL, "dot partial", &bp);
    CHECK(st == GS_OK, "%s", gs_last_error());
    if (st != GS_OK)
        goto cleanup;
    cl_int n = N, e = 0;
    e |= clSetKernelArg(k, 0, sizeof n, &n);
    e |= clSetKernelArg(k, 1, sizeof bx, &bx);
    e |= clSetKernelArg(k, 2, sizeof by, &by);
    e |= clSetKernelArg(k, 3, sizeof bp, &bp);
    CHECK(e == CL_SUCCESS, "clSetKernelArg");
    e = clEnqueueNDRangeKernel(o->queue, k, 1, NULL, &global, &wg, 0, NULL, NULL);
    CHECK(e == CL_SUCCESS, "clEnqueueNDRangeKernel: %s", gs_cl_error_name(e));
    e = clEnqueueReadBuffer(o->queue, bp, CL_TRUE, 0, sizeof partial, partial, 0, NULL, NULL);
    CHECK(e == CL_SUCCESS, "clEnqueueReadBuffer: %s", gs_cl_error_name(e));
    double dev = 0.0;
    for (int g = 0; g < GROUPS; g++)
        dev += partial[g];
    /* Tolerance: each work-item sums about N / (GROUPS * WG) products in float, then a tree of
     * log2(WG) levels: error <= (N / (GROUPS*WG) + log2 WG + 2) * 2^-24 * sum|x y|, at most ~2e-5
     * relative for WG = 1; we allow 1e-4 * sum|x y| (a wrong result is off by O(1) of that). */
    double tol = 1e-4 * absref;
    CHECK(fabs(dev - ref) <= tol, "dot: device %.9g cpu %.9g (tol %.3g)", dev, ref, tol);
cleanup:
    if (bp) clReleaseMemObject(bp);
    if (by) clReleaseMemObject(by);
    if (bx) clReleaseMemObject(bx);
    if (k) clReleaseKernel(k);
}

/* Builds selftest with -DWG=wg, lowering wg until the dot kernel can launch with it. */
static gs_status build_selftest(gs_ocl *o, size_t *wg, cl_program *prog, double *ms)
{
    for (;;) {
        char opts[64];
        snprintf(opts, sizeof opts, "-DWG=%zu", *wg);
        double t0 = now_s();
        gs_status st = gs_ocl_build(o, "selftest", opts, prog);
        *ms = (now_s() - t0) * 1e3;
        if (st != GS_OK)
            return st;
        cl_kernel k = NULL;
        size_t kwg = 0;
        st = gs_ocl_kernel(*prog, "gs_selftest_dot", &k);
        if (st == GS_OK)
            st = gs_ocl_kernel_wg(o, k, &kwg);
        if (k)
            clReleaseKernel(k);
        if (st != GS_OK || kwg >= *wg || *wg == 1)
            return st;
        clReleaseProgram(*prog);
        *prog = NULL;
        *wg /= 2;
    }
}

static void check_builds(gs_ocl *o)
{
    cl_program p = NULL;
    double ms1 = 0, ms2 = 0;

    gs_status st = gs_ocl_build(o, "common", NULL, &p);
    CHECK(st == GS_OK, "common.cl alone: %s", gs_last_error());
    if (p) clReleaseProgram(p);
    p = NULL;

    size_t wg = 128;
    st = build_selftest(o, &wg, &p, &ms1);
    CHECK(st == GS_OK && p, "build selftest: %s", gs_last_error());
    const cl_program first = p; /* gs_ocl keeps a reference: the value stays valid to compare */
    if (st == GS_OK) {
        check_axpy(o, p);
        check_dot(o, p, wg);
        clReleaseProgram(p);
        p = NULL;
    }
    st = build_selftest(o, &wg, &p, &ms2);
    CHECK(st == GS_OK, "second build: %s", gs_last_error());
    CHECK(p == first, "the same program and options were built again instead of handed out again");
    /* the same name and options again: the program gs_ocl_build kept, one more reference */
    cl_program again = NULL;
    char wopts[64];
    snprintf(wopts, sizeof wopts, "-DWG=%zu", wg);
    if (st == GS_OK) st = gs_ocl_build(o, "selftest", wopts, &again);
    CHECK(st == GS_OK && again == p, "a repeated build returns the kept program: %s", gs_last_error());
    if (again) clReleaseProgram(again);
    if (p) clReleaseProgram(p);
    p = NULL;
    printf("INFO build selftest -DWG=%zu: %.1f ms, again %.1f ms\n", wg, ms1, ms2);

    st = gs_ocl_build(o, "selftest", "-DBREAK_BUILD -DWG=32", &p);
    const char *m = gs_last_error();
    CHECK(st == GS_ERR_OCL && p == NULL, "broken build gave %s", gs_status_name(st));
    CHECK(strstr(m, "options: -DBREAK_BUILD -DWG=32 -cl-std=CL1.2") != NULL, "no options in: %s", m);
    CHECK(strstr(m, "BREAK_BUILD is defined") != NULL, "no build log in: %s", m);
    CHECK(strstr(m, "selftest") != NULL, "no program name in: %s", m);
    CHECK(o->build_log && strstr(o->build_log, "BREAK_BUILD is defined"), "build_log kept");
    if (p) clReleaseProgram(p);
    p = NULL;

    st = gs_ocl_build(o, "no_such_kernel_file", "", &p);
    CHECK(st == GS_ERR_INTERNAL && strstr(gs_last_error(), "no_such_kernel_file"), "got %s: %s",
          gs_status_name(st), gs_last_error());

    /* Dev mode, when run from the repository root (tests/run.sh does). */
    FILE *f = fopen("kernels/selftest.cl", "r");
    if (!f) {
        SKIP("dev mode: kernels/selftest.cl not found from the current directory");
    } else {
        fclose(f);
        /* the kernel directory comes from the tuning (copied), never from the environment */
        setenv("GPUSVM_KERNEL_DIR", "/nonexistent-gpusvm-dir", 1);
        st = gs_ocl_build(o, "selftest", "-DWG=16", &p);
        CHECK(st == GS_OK, "GPUSVM_KERNEL_DIR in the environment changed the build: %s", gs_last_error());
        if (p) clReleaseProgram(p);
        p = NULL;
        unsetenv("GPUSVM_KERNEL_DIR");
        const char *dirs[2] = {"kernels", "/nonexistent-gpusvm-dir"};
        for (int i = 0; i < 2; i++) {
            gs_tuning t;
            gs_tuning_init(&t);
            char dir[64];
            snprintf(dir, sizeof dir, "%s", dirs[i]);
            t.kernel_dir = dir;
            gs_ocl d;
            st = gs_ocl_open(&d, "0", &t);
            dir[0] = '\0'; /* gs_ocl_open copied it */
            CHECK(st == GS_OK, "open: %s", gs_last_error());
            if (st != GS_OK) continue;
            st = gs_ocl_build(&d, "selftest", i == 0 ? "-DWG=16" : "", &p);
            if (i == 0)
                CHECK(st == GS_OK, "dev mode build: %s", gs_last_error());
            else
                CHECK(st == GS_ERR_IO && strstr(gs_last_error(), "/nonexistent-gpusvm-dir/"), "got %s: %s",
                      gs_status_name(st), gs_last_error());
            if (p) clReleaseProgram(p);
            p = NULL;
            gs_ocl_close(&d);
        }
    }

    st = gs_ocl_build(o, "selftest", "", &p);
    CHECK(st == GS_OK, "%s", gs_last_error());
    if (st == GS_OK) {
        cl_kernel k = NULL;
        st = gs_ocl_kernel(p, "gs_no_such_kernel", &k);
        CHECK(st == GS_ERR_OCL && k == NULL && strstr(gs_last_error(), "gs_no_such_kernel"), "%s",
              gs_last_error());
        clReleaseProgram(p);
    }
}

int main(void)
{
    check_list();
    check_no_match();

    gs_ocl o;
    double t0 = now_s();
    gs_status st = gs_ocl_open(&o, NULL, NULL);
    double open_ms = (now_s() - t0) * 1e3;
    if (st == GS_ERR_NODEVICE || st == GS_ERR_UNSUPPORTED) {
        SKIP("no usable OpenCL device: %s", gs_last_error());
        TEST_END();
    }
    CHECK(st == GS_OK, "gs_ocl_open: %s", gs_last_error());
    if (st != GS_OK)
        TEST_END();
    printf("INFO device: %s / %s, %llu MiB, max alloc %llu MiB, local %llu KiB, max wg %zu, %u CUs, "
           "peak %.0f GB/s, profiling %d; open %.1f ms\n", o.platform_name, o.device_name,
           (unsigned long long)(o.global_mem >> 20), (unsigned long long)(o.max_alloc >> 20),
           (unsigned long long)(o.local_mem >> 10), o.max_wg, o.compute_units, o.peak_gbps,
           o.profiling, open_ms);
    CHECK(o.ctx && o.queue && o.device && o.platform, "handles");
    CHECK(o.device_name[0] && o.platform_name[0], "names");
    CHECK(o.global_mem > 0 && o.max_alloc > 0 && o.local_mem > 0 && o.max_wg >= 1 && o.compute_units >= 1,
          "sizes");
    CHECK(o.has_fp64, "fp64");

    /* The same device by index 0 is not guaranteed (auto prefers a GPU); by its own name it is. */
    gs_ocl o2;
    char spec[300];
    snprintf(spec, sizeof spec, "%s", o.device_name);
    for (char *c = spec; *c; c++) /* matching ignores case */
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    st = gs_ocl_open(&o2, spec, NULL);
    CHECK(st == GS_OK && o2.device == o.device, "open by name '%s': %s", spec, gs_last_error());
    gs_ocl_close(&o2);
    st = gs_ocl_open(&o2, "0", NULL);
    CHECK(st == GS_OK, "open by index 0: %s", gs_last_error());
    gs_ocl_close(&o2);
    /* GPUSVM_DEVICE and GPUSVM_PROFILE in the environment change nothing; the tuning does */
    setenv("GPUSVM_DEVICE", "no-such-device-xyz", 1);
    setenv("GPUSVM_PROFILE", "1", 1);
    st = gs_ocl_open(&o2, NULL, NULL);
    CHECK(st == GS_OK && !o2.profiling, "environment read by the library: %s, profiling %d",
          gs_last_error(), o2.profiling);
    gs_ocl_close(&o2);
    unsetenv("GPUSVM_DEVICE");
    unsetenv("GPUSVM_PROFILE");
    {
        gs_tuning t;
        gs_tuning_init(&t);
        t.profile = 1;
        st = gs_ocl_open(&o2, "0", &t);
        cl_command_queue_properties qp = 0;
        if (st == GS_OK) clGetCommandQueueInfo(o2.queue, CL_QUEUE_PROPERTIES, sizeof qp, &qp, NULL);
        CHECK(st == GS_OK && o2.profiling && (qp & CL_QUEUE_PROFILING_ENABLE), "profile 1: %s",
              gs_last_error());
        gs_ocl_close(&o2);
    }

    check_thread_open(&o);
    check_builds(&o);

    cl_mem big = NULL;
    st = gs_ocl_alloc(&o, CL_MEM_READ_WRITE, (size_t)o.max_alloc + 1, NULL, "huge test buffer", &big);
    CHECK(st == GS_ERR_NOMEM && big == NULL && strstr(gs_last_error(), "huge test buffer"), "%s",
          gs_last_error());

    gs_ocl_close(&o);
    gs_ocl_close(&o); /* idempotent */
    TEST_END();
}
