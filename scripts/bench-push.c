/* bench-push.c — a prototype for issue #26 item 1, not part of gpusvm: the dot products of WS
 * working-set vectors (rows of the data) with every row, by row (k_pull, as gpusvm's row-wise ELL
 * clusters do) and by column (k_push), on the first GPU (else the first device). Checks that the
 * two give the same bits and prints each kernel's device time (median of REPEAT) and its
 * multiply-adds. scripts/sparse-dot-cost.py predicts the ratio of the work; this measures it.
 * Two more forms by column: k_push2 (the vector's column searches in parallel; what
 * kernels/solver.cl k_rows_col became) and k_push8 (8 vectors a work-group, when 8 x CHUNK sums
 * fit the local memory).
 *
 *   make && cc -O2 -std=c11 -D_DEFAULT_SOURCE -Isrc -o bench-push scripts/bench-push.c build/libgs.a -lOpenCL -lz -lm
 *   ./bench-push DATA [ws=384] [chunk rows=4096] [repeat=3]      (run from the repository root:
 *                                                                  it reads scripts/bench-push.cl)
 * The rows stay in file order (gpusvm clusters them by sparsity pattern first, which helps k_pull's
 * loads), 256 to an ELL cluster. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/data.h"

#define DIE(...) do { fprintf(stderr, "bench-push: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)
#define CK(e) do { cl_int e_ = (e); if (e_ != CL_SUCCESS) DIE("%s: OpenCL error %d", #e, e_); } while (0)

static cl_mem buf(cl_context ctx, size_t bytes, const void *src)
{
    cl_int e;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (src ? CL_MEM_COPY_HOST_PTR : 0), bytes ? bytes : 4,
                              (void *)src, &e);
    if (e != CL_SUCCESS) DIE("buffer of %zu bytes: error %d", bytes, e);
    return m;
}

static double run_ms(cl_command_queue qu, cl_kernel k, const size_t *gs, const size_t *ls)
{
    cl_event ev;
    CK(clEnqueueNDRangeKernel(qu, k, 2, NULL, gs, ls, 0, NULL, &ev));
    CK(clWaitForEvents(1, &ev));
    cl_ulong a, b;
    CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL));
    CK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL));
    clReleaseEvent(ev);
    return (double)(b - a) * 1e-6;
}

static void set_args(cl_kernel k, int n, const size_t *size, const void *const *val)
{
    for (int i = 0; i < n; i++) CK(clSetKernelArg(k, (cl_uint)i, size[i], val[i]));
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) DIE("can't open %s (run from the repository root)", path);
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) DIE("can't read %s", path);
    s[n] = '\0';
    fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 2) DIE("usage: bench-push DATA [ws=384] [chunk rows=4096] [repeat=3]");
    const int ws = argc > 2 ? atoi(argv[2]) : 384, CH = argc > 3 ? atoi(argv[3]) : 4096;
    const int repeat = argc > 4 ? atoi(argv[4]) : 3;
    if (ws < 16 || ws % 16 || CH < 256 || CH > 65536 || repeat < 1) DIE("ws a multiple of 16, 256 <= chunk <= 65536");
    gs_problem P;
    if (gs_data_read(argv[1], &P) != GS_OK) DIE("can't read %s", argv[1]);
    const int n = P.l, ncols = P.max_index + 1;
    if (n < ws) DIE("%d rows: fewer than the %d vectors", n, ws);

    /* ELL: clusters of 256 rows, a row's e-th entry at off + e * 256 + t, -1 past its end */
    const int ncl = (n + 255) / 256;
    long *ell_off = malloc(sizeof(long) * (size_t)(ncl + 1));
    int *ell_w = malloc(sizeof(int) * (size_t)ncl);
    ell_off[0] = 0;
    for (int c = 0; c < ncl; c++) {
        int w = 0;
        for (int r = c * 256; r < n && r < c * 256 + 256; r++)
            if (P.row_ptr[r + 1] - P.row_ptr[r] > w) w = (int)(P.row_ptr[r + 1] - P.row_ptr[r]);
        ell_w[c] = w;
        ell_off[c + 1] = ell_off[c] + (long)w * 256;
    }
    int *ell_idx = malloc(sizeof(int) * (size_t)ell_off[ncl]);
    float *ell_val = calloc((size_t)ell_off[ncl], sizeof(float));
    for (long i = 0; i < ell_off[ncl]; i++) ell_idx[i] = -1;
    for (int r = 0; r < n; r++)
        for (long p = P.row_ptr[r]; p < P.row_ptr[r + 1]; p++) {
            const long at = ell_off[r / 256] + (p - P.row_ptr[r]) * 256 + r % 256;
            ell_idx[at] = P.idx[p];
            ell_val[at] = P.val[p];
        }

    /* the vectors: rows spread over the data; U dense (ncols x ws), and their CSR */
    int *wrow = malloc(sizeof(int) * (size_t)ws);
    for (int k = 0; k < ws; k++) wrow[k] = (int)(((long)k * 7919 + 13) % n);
    float *U = calloc((size_t)ncols * (size_t)ws, sizeof(float));
    long *wsp_off = malloc(sizeof(long) * (size_t)(ws + 1));
    wsp_off[0] = 0;
    for (int k = 0; k < ws; k++) wsp_off[k + 1] = wsp_off[k] + (P.row_ptr[wrow[k] + 1] - P.row_ptr[wrow[k]]);
    int *wsp_idx = malloc(sizeof(int) * (size_t)(wsp_off[ws] + 1));
    float *wsp_val = malloc(sizeof(float) * (size_t)(wsp_off[ws] + 1));
    for (int k = 0; k < ws; k++)
        for (long p = P.row_ptr[wrow[k]], o = wsp_off[k]; p < P.row_ptr[wrow[k] + 1]; p++, o++) {
            U[(size_t)P.idx[p] * (size_t)ws + (size_t)k] = P.val[p];
            wsp_idx[o] = P.idx[p];
            wsp_val[o] = P.val[p];
        }

    /* by column in chunks of CH rows: each chunk's used columns ascending, a column's entries by row */
    const int nch = (n + CH - 1) / CH;
    int *chunk_cols = malloc(sizeof(int) * (size_t)(nch + 1));
    int *cnt = calloc((size_t)ncols, sizeof(int));
    long ne = 0, nc_all = 0;
    for (int h = 0; h < nch; h++) { /* count the used columns of each chunk */
        int used = 0;
        memset(cnt, 0, sizeof(int) * (size_t)ncols);
        for (int r = h * CH; r < n && r < (h + 1) * CH; r++)
            for (long p = P.row_ptr[r]; p < P.row_ptr[r + 1]; p++)
                if (P.val[p] != 0.0f && cnt[P.idx[p]]++ == 0) used++;
        chunk_cols[h] = (int)nc_all;
        nc_all += used;
    }
    chunk_cols[nch] = (int)nc_all;
    for (long p = 0; p < P.nnz; p++) ne += P.val[p] != 0.0f;
    if (ne > 2147483647L) DIE("too many values for the prototype's int offsets");
    int *ccol = malloc(sizeof(int) * (size_t)(nc_all + 1)), *coff = malloc(sizeof(int) * (size_t)(nc_all + 1));
    unsigned short *erow = malloc(sizeof(unsigned short) * (size_t)(ne + 1));
    float *eval = malloc(sizeof(float) * (size_t)(ne + 1));
    int *fill = malloc(sizeof(int) * (size_t)ncols);
    long e0 = 0;
    for (int h = 0; h < nch; h++) {
        memset(cnt, 0, sizeof(int) * (size_t)ncols);
        for (int r = h * CH; r < n && r < (h + 1) * CH; r++)
            for (long p = P.row_ptr[r]; p < P.row_ptr[r + 1]; p++)
                if (P.val[p] != 0.0f) cnt[P.idx[p]]++;
        int k = chunk_cols[h];
        long e = e0;
        for (int j = 0; j < ncols; j++) {
            if (!cnt[j]) continue;
            ccol[k] = j;
            coff[k] = (int)e;
            fill[j] = (int)e;
            e += cnt[j];
            k++;
        }
        for (int r = h * CH; r < n && r < (h + 1) * CH; r++)
            for (long p = P.row_ptr[r]; p < P.row_ptr[r + 1]; p++)
                if (P.val[p] != 0.0f) {
                    erow[fill[P.idx[p]]] = (unsigned short)(r - h * CH);
                    eval[fill[P.idx[p]]++] = P.val[p];
                }
        e0 = e;
    }
    coff[nc_all] = (int)ne; /* a chunk's last column ends where the next chunk's first begins */

    cl_platform_id pf[8];
    cl_uint npf = 0;
    CK(clGetPlatformIDs(8, pf, &npf));
    cl_device_id dev = NULL;
    for (cl_uint i = 0; i < npf && !dev; i++)
        if (clGetDeviceIDs(pf[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    for (cl_uint i = 0; i < npf && !dev; i++)
        if (clGetDeviceIDs(pf[i], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    if (!dev) DIE("no OpenCL device");
    char name[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    cl_int e;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    CK(e);
    cl_command_queue qu = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e);
    CK(e);
    char *src = slurp("scripts/bench-push.cl");
    cl_program pg = clCreateProgramWithSource(ctx, 1, (const char **)&src, NULL, &e);
    CK(e);
    char opts[64];
    snprintf(opts, sizeof opts, "-DCH=%d", CH);
    if (clBuildProgram(pg, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
        static char log[65536];
        clGetProgramBuildInfo(pg, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        DIE("build failed:\n%s", log);
    }
    cl_kernel kpull = clCreateKernel(pg, "k_pull", &e);
    CK(e);
    cl_kernel kpush = clCreateKernel(pg, "k_push", &e);
    CK(e);
    cl_kernel kpush8 = clCreateKernel(pg, "k_push8", &e);
    CK(e);
    cl_kernel kpush2 = clCreateKernel(pg, "k_push2", &e);
    CK(e);
    cl_ulong lmem = 0;
    CK(clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL));
    const int with8 = (cl_ulong)CH * 8 * sizeof(float) + 64 <= lmem; /* k_push8's sums fit */
    cl_mem b_eoff = buf(ctx, sizeof(long) * (size_t)(ncl + 1), ell_off), b_ew = buf(ctx, sizeof(int) * (size_t)ncl, ell_w);
    cl_mem b_eidx = buf(ctx, sizeof(int) * (size_t)ell_off[ncl], ell_idx);
    cl_mem b_eval = buf(ctx, sizeof(float) * (size_t)ell_off[ncl], ell_val);
    cl_mem b_U = buf(ctx, sizeof(float) * (size_t)ncols * (size_t)ws, U);
    cl_mem b_out1 = buf(ctx, sizeof(float) * (size_t)ws * (size_t)n, NULL), b_out2 = buf(ctx, sizeof(float) * (size_t)ws * (size_t)n, NULL);
    cl_mem b_out3 = buf(ctx, sizeof(float) * (size_t)ws * (size_t)n, NULL);
    cl_mem b_out4 = buf(ctx, sizeof(float) * (size_t)ws * (size_t)n, NULL);
    cl_mem b_cc = buf(ctx, sizeof(int) * (size_t)(nch + 1), chunk_cols), b_ccol = buf(ctx, sizeof(int) * (size_t)(nc_all + 1), ccol);
    cl_mem b_coff = buf(ctx, sizeof(int) * (size_t)(nc_all + 1), coff);
    cl_mem b_erow = buf(ctx, sizeof(unsigned short) * (size_t)(ne + 1), erow), b_evl = buf(ctx, sizeof(float) * (size_t)(ne + 1), eval);
    cl_mem b_woff = buf(ctx, sizeof(long) * (size_t)(ws + 1), wsp_off), b_widx = buf(ctx, sizeof(int) * (size_t)(wsp_off[ws] + 1), wsp_idx);
    cl_mem b_wval = buf(ctx, sizeof(float) * (size_t)(wsp_off[ws] + 1), wsp_val);
    const size_t M = sizeof(cl_mem), I = sizeof(int);
    const void *pull_v[] = {&b_eoff, &b_ew, &b_eidx, &b_eval, &b_U, &ws, &n, &b_out1};
    const size_t pull_s[] = {M, M, M, M, M, I, I, M};
    const void *push_v[] = {&b_cc, &b_ccol, &b_coff, &b_erow, &b_evl, &b_woff, &b_widx, &b_wval, &n, &b_out2};
    const size_t push_s[] = {M, M, M, M, M, M, M, M, I, M};
    set_args(kpull, 8, pull_s, pull_v);
    set_args(kpush, 10, push_s, push_v);
    const void *push8_v[] = {&b_cc, &b_ccol, &b_coff, &b_erow, &b_evl, &b_woff, &b_widx, &b_wval, &n, &b_out3};
    set_args(kpush8, 10, push_s, push8_v);
    const void *push2_v[] = {&b_cc, &b_ccol, &b_coff, &b_erow, &b_evl, &b_woff, &b_widx, &b_wval, &n, &b_out4};
    set_args(kpush2, 10, push_s, push2_v);
    const int with2 = (cl_ulong)CH * sizeof(float) + 3 * 256 * 4 <= lmem;
    const size_t gpull[2] = {(size_t)ncl * 256, (size_t)ws / 16}, lpull[2] = {256, 1};
    const size_t gpush[2] = {(size_t)nch * 256, (size_t)ws}, lpush[2] = {256, 1};
    const size_t gpush8[2] = {(size_t)nch * 256, (size_t)ws / 8};
    double *tp = malloc(sizeof(double) * (size_t)repeat), *tq = malloc(sizeof(double) * (size_t)repeat);
    double *t8 = calloc((size_t)repeat, sizeof(double)), *t2 = calloc((size_t)repeat, sizeof(double));
    for (int r = 0; r < repeat; r++) {
        tp[r] = run_ms(qu, kpull, gpull, lpull);
        tq[r] = run_ms(qu, kpush, gpush, lpush);
        if (with8) t8[r] = run_ms(qu, kpush8, gpush8, lpush);
        if (with2) t2[r] = run_ms(qu, kpush2, gpush, lpush);
    }
    qsort(tp, (size_t)repeat, sizeof *tp, cmp_d);
    qsort(tq, (size_t)repeat, sizeof *tq, cmp_d);
    qsort(t8, (size_t)repeat, sizeof *t8, cmp_d);
    qsort(t2, (size_t)repeat, sizeof *t2, cmp_d);
    float *o1 = malloc(sizeof(float) * (size_t)ws * (size_t)n), *o2 = malloc(sizeof(float) * (size_t)ws * (size_t)n);
    CK(clEnqueueReadBuffer(qu, b_out1, CL_TRUE, 0, sizeof(float) * (size_t)ws * (size_t)n, o1, 0, NULL, NULL));
    CK(clEnqueueReadBuffer(qu, b_out2, CL_TRUE, 0, sizeof(float) * (size_t)ws * (size_t)n, o2, 0, NULL, NULL));
    long diff = 0, diff8 = 0, diff2 = 0;
    for (size_t i = 0; i < (size_t)ws * (size_t)n; i++) diff += memcmp(&o1[i], &o2[i], sizeof(float)) != 0;
    if (with8) {
        CK(clEnqueueReadBuffer(qu, b_out3, CL_TRUE, 0, sizeof(float) * (size_t)ws * (size_t)n, o2, 0, NULL, NULL));
        for (size_t i = 0; i < (size_t)ws * (size_t)n; i++) diff8 += memcmp(&o1[i], &o2[i], sizeof(float)) != 0;
    }
    double pull_fma = 0, push_fma = 0;
    for (int c = 0; c < ncl; c++)
        for (int r = c * 256; r < n && r < c * 256 + 256; r++) pull_fma += (double)(P.row_ptr[r + 1] - P.row_ptr[r]);
    pull_fma *= ws;
    for (int k = 0; k < ws; k++)
        for (long p = wsp_off[k]; p < wsp_off[k + 1]; p++) {
            int len = 0; /* the column's entries over all chunks */
            for (int h = 0; h < nch; h++) {
                int a0 = chunk_cols[h], a1 = chunk_cols[h + 1];
                while (a0 < a1) { const int mid = (a0 + a1) / 2; if (ccol[mid] < wsp_idx[p]) a0 = mid + 1; else a1 = mid; }
                if (a0 < chunk_cols[h + 1] && ccol[a0] == wsp_idx[p]) len += coff[a0 + 1] - coff[a0];
            }
            push_fma += len;
        }
    printf("%s: %d rows, %d columns, %ld values; %d vectors; device %s\n", argv[1], n, ncols - 1, ne, ws, name);
    printf("  by row (k_pull, 256-row ELL clusters): %.3f ms (median of %d), %.4g multiply-adds\n", tp[repeat / 2],
           repeat, pull_fma);
    printf("  by column (k_push, chunks of %d rows): %.3f ms, %.4g multiply-adds\n", CH, tq[repeat / 2], push_fma);
    if (with2) {
        CK(clEnqueueReadBuffer(qu, b_out4, CL_TRUE, 0, sizeof(float) * (size_t)ws * (size_t)n, o2, 0, NULL, NULL));
        for (size_t i = 0; i < (size_t)ws * (size_t)n; i++) diff2 += memcmp(&o1[i], &o2[i], sizeof(float)) != 0;
        printf("  by column, searches in parallel (k_push2): %.3f ms; %s (%ld sums differ)\n", t2[repeat / 2],
               diff2 ? "DIFFERENT" : "the same bits", diff2);
    }
    if (with8)
        printf("  by column, 8 vectors a work-group (k_push8): %.3f ms; %s (%ld sums differ)\n", t8[repeat / 2],
               diff8 ? "DIFFERENT" : "the same bits", diff8);
    else
        printf("  k_push8 not run: 8 x %d sums exceed the device's %lu bytes of local memory\n", CH, (unsigned long)lmem);
    printf("  results: %s (%ld of %ld sums differ)\n", diff ? "DIFFERENT" : "the same bits", diff, (long)ws * n);
    return diff != 0 || diff8 != 0 || diff2 != 0;
}
