/* bench-kbuild.c — how long the OpenCL driver takes to build one of kernels/'s programs, alone and
 * as N concurrent builds on N threads (whether the driver builds in parallel). A measurement tool,
 * not part of gpusvm; docs/performance.md cites it.
 *   cc -O1 -o kbuild scripts/bench-kbuild.c -lOpenCL -lpthread
 *   CUDA_CACHE_DISABLE=1 ./kbuild kernels solver "-DWG=256 -DKTYPE=2 ..." 1 1 4
 * KDIR PROGRAM OPTIONS N...: the program is common.cl + abi.h + PROGRAM.cl, as gpusvm builds it;
 * each N is a round of N concurrent builds (each with its own -D, so no cache answers another).
 * KBUILD_CTX=1: each concurrent build in a context of its own, created on its thread (does the
 * driver serialise builds per context or per process?). The start-up (platforms, device, context)
 * is printed first.
 * KBUILD_BINARY=FILE: the first build's program binary (NVIDIA: PTX) is written to FILE, so that
 * the assembler's share can be timed kernel by kernel (ptxas -arch=sm_90 -e KERNEL FILE). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *slurp(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "%s: read failed\n", path); exit(1); }
    b[n] = '\0';
    fclose(f);
    return b;
}

typedef struct job {
    cl_context ctx;
    cl_device_id dev;
    const char **parts;
    const char *opts;
    int id;
    double seconds;
    cl_int err;
} job;

static void *build(void *arg)
{
    job *j = arg;
    char o[2048];
    snprintf(o, sizeof o, "%s -DGS_KBUILD_%d=1 -cl-std=CL1.2", j->opts, j->id);
    cl_context own = NULL;
    if (!j->ctx) {
        own = clCreateContext(NULL, 1, &j->dev, NULL, NULL, &j->err);
        if (!own) return NULL;
    }
    const double t = now();
    cl_program p = clCreateProgramWithSource(own ? own : j->ctx, 5, j->parts, NULL, &j->err);
    if (p) j->err = clBuildProgram(p, 1, &j->dev, o, NULL, NULL);
    j->seconds = now() - t;
    const char *bin = getenv("KBUILD_BINARY");
    if (p && bin && j->err == CL_SUCCESS && j->id % 100 == 0) {
        size_t n = 0;
        clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL);
        unsigned char *b = malloc(n ? n : 1);
        unsigned char *bs[1] = {b};
        FILE *f = b ? fopen(bin, "wb") : NULL;
        if (f && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bs, bs, NULL) == CL_SUCCESS) fwrite(b, 1, n, f);
        if (f) fclose(f);
        free(b);
    }
    if (p) clReleaseProgram(p);
    if (own) clReleaseContext(own);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 5) { fprintf(stderr, "usage: kbuild KDIR PROGRAM OPTIONS N...\n"); return 2; }
    char prog[256];
    snprintf(prog, sizeof prog, "%s.cl", argv[2]);
    const char *parts[5] = {slurp(argv[1], "common.cl"), "\n", slurp(argv[1], "abi.h"), "\n", slurp(argv[1], prog)};
    const double t0 = now();
    cl_platform_id pl[8];
    cl_uint np = 0;
    cl_device_id dev = NULL;
    if (clGetPlatformIDs(8, pl, &np) != CL_SUCCESS || np == 0) { fprintf(stderr, "no OpenCL platform\n"); return 1; }
    for (cl_uint i = 0; i < np && !dev; i++)
        if (clGetDeviceIDs(pl[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    if (!dev && clGetDeviceIDs(pl[0], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) return 1;
    cl_int e = CL_SUCCESS;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    if (e != CL_SUCCESS) { fprintf(stderr, "clCreateContext failed: %d\n", e); return 1; }
    const char *per = getenv("KBUILD_CTX");
    const int own_ctx = per && per[0] == '1';
    printf("start-up (platforms, device, context): %.3f s%s\n", now() - t0, own_ctx ? "; a context per build" : "");
    for (int a = 4; a < argc; a++) {
        int n = atoi(argv[a]);
        if (n < 1 || n > 64) n = 1;
        job js[64];
        pthread_t th[64];
        const double t = now();
        for (int i = 0; i < n; i++) {
            js[i] = (job){.ctx = own_ctx ? NULL : ctx, .dev = dev, .parts = parts, .opts = argv[3], .id = 100 * a + i};
            pthread_create(&th[i], NULL, build, &js[i]);
        }
        for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
        printf("%s: %d concurrent build(s): wall %.3f s; each", argv[2], n, now() - t);
        for (int i = 0; i < n; i++) printf(" %.3f%s", js[i].seconds, js[i].err ? " (failed)" : "");
        printf("\n");
    }
    clReleaseContext(ctx);
    return 0;
}
