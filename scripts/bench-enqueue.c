/* bench-enqueue.c — what an OpenCL kernel launch costs the host: N launches of a small kernel on
 * each GPU's in-order queue (with and without a clSetKernelArg before each), from one thread and
 * from one thread per GPU at once (whether the driver serialises them), then a round trip (one
 * launch and a 64-byte blocking read). Also lists the GPUs' command-buffer extensions. A
 * measurement tool, not part of gpusvm; docs/performance.md cites it.
 *   cc -O1 -o bench-enqueue scripts/bench-enqueue.c -lOpenCL -lpthread && ./bench-enqueue 2000 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static const char *SRC = "__kernel void k(__global int *a, int v) { if (get_global_id(0) == 0) a[0] += v; }";

typedef struct gpu {
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k;
    cl_mem buf;
    int n, setarg;
    double t;
} gpu;

static void *launches(void *arg)
{
    gpu *g = arg;
    const size_t gs = 256, ls = 256;
    clFinish(g->q);
    const double t0 = now();
    for (int i = 0; i < g->n; i++) {
        if (g->setarg) clSetKernelArg(g->k, 1, sizeof i, &i);
        clEnqueueNDRangeKernel(g->q, g->k, 1, NULL, &gs, &ls, 0, NULL, NULL);
        if ((i & 15) == 15) clFlush(g->q);
    }
    g->t = now() - t0;
    clFinish(g->q);
    return NULL;
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 2000;
    cl_platform_id ps[8];
    cl_uint np = 0;
    clGetPlatformIDs(8, ps, &np);
    gpu g[8];
    int ng = 0;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id ds[8];
        cl_uint nd = 0;
        if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_GPU, 8, ds, &nd) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < nd && ng < 8; d++) g[ng++].dev = ds[d];
    }
    if (ng == 0) { printf("no GPU\n"); return 1; }
    char ext[16384];
    clGetDeviceInfo(g[0].dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    printf("GPUs %d; extensions of the first: %s\n", ng, ext);
    printf("command buffers: %s\n", strstr(ext, "cl_khr_command_buffer") ? "yes" : "no");
    for (int i = 0; i < ng; i++) {
        cl_int e;
        g[i].ctx = clCreateContext(NULL, 1, &g[i].dev, NULL, NULL, &e);
        g[i].q = clCreateCommandQueue(g[i].ctx, g[i].dev, 0, &e);
        cl_program pr = clCreateProgramWithSource(g[i].ctx, 1, &SRC, NULL, &e);
        clBuildProgram(pr, 1, &g[i].dev, "", NULL, NULL);
        g[i].k = clCreateKernel(pr, "k", &e);
        g[i].buf = clCreateBuffer(g[i].ctx, CL_MEM_READ_WRITE, 64, NULL, &e);
        int z = 0;
        clSetKernelArg(g[i].k, 0, sizeof g[i].buf, &g[i].buf);
        clSetKernelArg(g[i].k, 1, sizeof z, &z);
        g[i].n = 200;
        g[i].setarg = 0;
        launches(&g[i]); /* warm */
    }
    for (int setarg = 0; setarg < 2; setarg++) {
        g[0].n = n;
        g[0].setarg = setarg;
        launches(&g[0]);
        printf("one thread, one GPU%s: %.2f us a launch\n", setarg ? ", set arg" : "", 1e6 * g[0].t / n);
        for (int k = 2; k <= ng; k *= 2) {
            pthread_t th[8];
            for (int i = 0; i < k; i++) {
                g[i].n = n;
                g[i].setarg = setarg;
                pthread_create(&th[i], NULL, launches, &g[i]);
            }
            double worst = 0;
            for (int i = 0; i < k; i++) {
                pthread_join(th[i], NULL);
                if (g[i].t > worst) worst = g[i].t;
            }
            printf("%d threads, a GPU each%s: %.2f us a launch (the slowest thread)\n", k, setarg ? ", set arg" : "",
                   1e6 * worst / n);
        }
    }
    int h[16];
    const size_t gs = 256, ls = 256;
    double best = 1e9, sum = 0;
    for (int i = 0; i < 200; i++) {
        const double t0 = now();
        clEnqueueNDRangeKernel(g[0].q, g[0].k, 1, NULL, &gs, &ls, 0, NULL, NULL);
        clEnqueueReadBuffer(g[0].q, g[0].buf, CL_TRUE, 0, 64, h, 0, NULL, NULL);
        const double t = now() - t0;
        sum += t;
        if (t < best) best = t;
    }
    printf("round trip (launch + 64-byte blocking read): mean %.1f us, best %.1f us\n", 1e6 * sum / 200, 1e6 * best);
    return 0;
}
