/* dev.c — buffers, pinned memory, kernel sets, launches and profiling on one queue (see dev.h). */
#include "device/dev.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/parallel.h"

gs_status gs_dev_init(gs_dev *d, const gs_ocl *ocl, cl_command_queue queue)
{
    gs_status st = GS_OK;
    cl_command_queue_properties props = 0;
    d->ocl = ocl;
    d->queue = queue ? queue : ocl->queue;
    d->profile = 0;
    GS_CL_CHECK(clGetCommandQueueInfo(d->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL));
    d->profile = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
cleanup:
    return st;
}

/* ---- buffers ---------------------------------------------------------------------------------- */

gs_status gs_dev_buf_ensure(const gs_dev *d, gs_dev_buf *b, size_t bytes, const void *host, const char *what)
{
    const size_t want = bytes < 16 ? 16 : bytes;
    if (!b->mem || b->cap < want) {
        gs_dev_buf_release(b); /* before the new one: the old contents are not kept, and peak memory stays low */
        const gs_status st = gs_ocl_alloc(d->ocl, CL_MEM_READ_WRITE, want, NULL, what, &b->mem);
        if (st != GS_OK) return st;
        b->cap = want;
    }
    if (host && bytes > 0) { /* the caller's bytes only: host may be shorter than the rounded size */
        const cl_int e = clEnqueueWriteBuffer(d->queue, b->mem, CL_FALSE, 0, bytes, host, 0, NULL, NULL);
        if (e != CL_SUCCESS)
            return GS_FAIL(GS_ERR_OCL, "clEnqueueWriteBuffer(%s, %zu bytes) failed: %s", what, bytes,
                           gs_cl_error_name(e));
    }
    return GS_OK;
}

gs_status gs_dev_buf_fill(const gs_dev *d, const gs_dev_buf *b, int32_t pattern, size_t bytes)
{
    const cl_int e = clEnqueueFillBuffer(d->queue, b->mem, &pattern, sizeof pattern, 0, bytes, 0, NULL, NULL);
    if (e != CL_SUCCESS)
        return GS_FAIL(GS_ERR_OCL, "clEnqueueFillBuffer(%zu bytes) failed: %s", bytes, gs_cl_error_name(e));
    return GS_OK;
}

void gs_dev_buf_release(gs_dev_buf *b)
{
    if (b->mem) clReleaseMemObject(b->mem);
    b->mem = NULL;
    b->cap = 0;
}

void gs_dev_bufs_release(gs_dev_buf *first, size_t n)
{
    for (size_t i = 0; i < n; i++) gs_dev_buf_release(&first[i]);
}

/* The destructor callback of a buffer made on our own memory: the driver is done with it. */
static void CL_CALLBACK free_own(cl_mem mem, void *own)
{
    (void)mem;
    free(own);
}

/* own_pinned's zeroing (the huge pages' faults) by ranges of ZERO_CHUNK bytes on threads: the
 * kernel clears each 2 MiB page as it faults it in, one page after another on one thread. */
#define ZERO_CHUNK ((int64_t)8 << 20)
static gs_status zero_range(void *h, int64_t lo, int64_t hi)
{
    memset((char *)h + lo, 0, (size_t)(hi - lo));
    return GS_OK;
}

/* A buffer on `bytes` of our own memory: 2 MiB-aligned whole huge pages, asked for with madvise
 * and faulted in here on threads (an H100 host, 112 MB: 0.023-0.033 s, and 0.007-0.008 s for the driver to
 * pin them, against 0.06-0.08 s for CL_MEM_ALLOC_HOST_PTR; reads into it as fast), freed by the
 * buffer's destructor callback. NULL where any step fails (the caller takes the driver's). */
static cl_mem own_pinned(const gs_dev *d, size_t bytes, void **own)
{
    const size_t huge = (size_t)2 << 20, n = (bytes + huge - 1) / huge * huge;
    void *h = aligned_alloc(huge, n);
    cl_mem m = NULL;
    cl_int e = CL_SUCCESS;
    *own = NULL;
    if (!h) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(h, n, MADV_HUGEPAGE); /* advice: without huge pages the memory still serves */
#endif
    gs_parallel_ranges((int64_t)n, ZERO_CHUNK, gs_cpu_threads(8), zero_range, h); /* zero_range does not fail */
    m = clCreateBuffer(d->ocl->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, h, &e);
    if (e != CL_SUCCESS || !m) {
        free(h);
        return NULL;
    }
    if (clSetMemObjectDestructorCallback(m, free_own, h) != CL_SUCCESS) {
        clReleaseMemObject(m); /* never queued: nothing of the driver's still reads h */
        free(h);
        return NULL;
    }
    *own = h;
    return m;
}

gs_status gs_dev_pinned_ensure(const gs_dev *d, gs_dev_pinned *p, size_t bytes, void **host)
{
    cl_int e = CL_SUCCESS;
    if (!p->mem || p->cap < bytes) {
        if (p->mem) {
            gs_dev_pinned_release(d, p);
            clFinish(d->queue); /* queued transfers from the old memory are done before it goes */
        }
        if (bytes >= GS_PIN_OWN_MIN) p->mem = own_pinned(d, bytes, &p->own);
        if (!p->mem) p->mem = clCreateBuffer(d->ocl->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &e);
        if (e != CL_SUCCESS) {
            p->mem = NULL;
            return GS_FAIL(GS_ERR_OCL, "clCreateBuffer(pinned, %zu bytes) failed: %s", bytes, gs_cl_error_name(e));
        }
        p->host = clEnqueueMapBuffer(d->queue, p->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL,
                                     NULL, &e);
        if (e != CL_SUCCESS) {
            p->host = NULL;
            return GS_FAIL(GS_ERR_OCL, "clEnqueueMapBuffer(pinned, %zu bytes) failed: %s", bytes,
                           gs_cl_error_name(e));
        }
        p->cap = bytes;
    }
    *host = p->host;
    return GS_OK;
}

void gs_dev_pinned_release(const gs_dev *d, gs_dev_pinned *p)
{
    if (p->mem) {
        if (p->host) clEnqueueUnmapMemObject(d->queue, p->mem, p->host, 0, NULL, NULL);
        clReleaseMemObject(p->mem);
    }
    memset(p, 0, sizeof *p);
}

gs_status gs_dev_upload_clustered(const gs_dev *d, const gs_clustered *cl, gs_dev_clustered *out)
{
    const size_t ncl = (size_t)cl->n_clusters, wg = (size_t)cl->cluster_size;
    const size_t ncols = (size_t)cl->col_off[ncl], nell = (size_t)cl->ell_nnz;
    gs_status st = GS_OK;
    if ((st = gs_dev_buf_ensure(d, &out->cols, ncols * sizeof(int32_t), cl->cols, "cols")) ||
        (st = gs_dev_buf_ensure(d, &out->col_off, (ncl + 1) * sizeof(int64_t), cl->col_off, "col_off")) ||
        (st = gs_dev_buf_ensure(d, &out->vals, ncols * wg * sizeof(float), cl->vals, "vals")) ||
        (st = gs_dev_buf_ensure(d, &out->ell_w, ncl * sizeof(int32_t), cl->ell_w, "ell_w")) ||
        (st = gs_dev_buf_ensure(d, &out->ell_off, ((size_t)(cl->wide ? cl->n_pos : cl->n_clusters) + 1) * sizeof(int64_t), cl->ell_off, "ell_off")) ||
        (st = gs_dev_buf_ensure(d, &out->ell_idx, nell * sizeof(int32_t), nell ? cl->ell_idx : NULL, "ell_idx")) ||
        (st = gs_dev_buf_ensure(d, &out->ell_val, nell * sizeof(float), nell ? cl->ell_val : NULL, "ell_val")) ||
        (st = gs_dev_buf_ensure(d, &out->norm2, (size_t)cl->n_pos * sizeof(double), cl->norm2, "norm2")))
        return st;
    return GS_OK;
}

/* ---- kernels ---------------------------------------------------------------------------------- */

gs_status gs_dev_kernels_build(gs_ocl *ocl, const char *program, const char *options, int nparts,
                               const char *const *names, int n, gs_dev_kernels *out)
{
    gs_status st = GS_OK;
    memset(out, 0, sizeof *out);
    if (n < 0 || n > GS_DEV_KERNELS_MAX)
        return GS_FAIL(GS_ERR_INTERNAL, "%d kernels asked of program '%s' (at most %d)", n, program,
                       GS_DEV_KERNELS_MAX);
    out->names = names;
    if ((st = gs_ocl_build_parts(ocl, program, options, nparts, out->prog, &out->nprog)) != GS_OK) goto cleanup;
    for (int i = 0; i < n; i++) {
        /* the part that holds it: the others answer CL_INVALID_KERNEL_NAME */
        for (int k = 0; names[i] && !out->k[i] && k < out->nprog; k++) {
            cl_int e = CL_SUCCESS;
            out->k[i] = clCreateKernel(out->prog[k], names[i], &e);
            if (e != CL_SUCCESS) out->k[i] = NULL;
        }
        if (names[i] && !out->k[i]) {
            st = GS_FAIL(GS_ERR_OCL, "program '%s' has no kernel %s (%d part(s))", program, names[i], out->nprog);
            goto cleanup;
        }
        out->n = i + 1;
    }
cleanup:
    if (st != GS_OK) gs_dev_kernels_release(out);
    return st;
}

void gs_dev_kernels_release(gs_dev_kernels *ks)
{
    for (int i = 0; i < GS_DEV_KERNELS_MAX; i++)
        if (ks->k[i]) clReleaseKernel(ks->k[i]);
    for (int k = 0; k < ks->nprog; k++)
        if (ks->prog[k]) clReleaseProgram(ks->prog[k]);
    memset(ks, 0, sizeof *ks);
}

gs_status gs_dev_arg(const gs_dev_kernels *ks, int id, cl_uint i, size_t size, const void *v)
{
    const cl_int e = clSetKernelArg(ks->k[id], i, size, v);
    if (e != CL_SUCCESS)
        return GS_FAIL(GS_ERR_OCL, "clSetKernelArg(%s, %u) failed: %s", ks->names[id], i, gs_cl_error_name(e));
    return GS_OK;
}

gs_status gs_dev_args(const gs_dev_kernels *ks, int id, const gs_dev_karg *a, int n)
{
    for (int i = 0; i < n; i++) {
        const gs_status st = gs_dev_arg(ks, id, (cl_uint)i, a[i].size, a[i].v);
        if (st != GS_OK) return st;
    }
    return GS_OK;
}

/* ---- launches and profiling ------------------------------------------------------------------- */

gs_status gs_dev_launch(const gs_dev *d, const gs_dev_kernels *ks, int id, gs_dev_prof *pf, size_t g0, size_t g1,
                        size_t local, cl_event *done)
{
    const int record = d->profile && pf && pf->n < GS_DEV_PROF_MAX;
    cl_event *evp = record ? &pf->ev[pf->n] : done;
    const size_t global[2] = {g0, g1 > 1 ? g1 : 1}, loc[2] = {local, 1};
    const cl_uint dims = g1 > 1 ? 2 : 1;
    const cl_int e = clEnqueueNDRangeKernel(d->queue, ks->k[id], dims, NULL, global, local ? loc : NULL, 0, NULL,
                                            evp);
    if (e != CL_SUCCESS)
        return GS_FAIL(GS_ERR_OCL, "clEnqueueNDRangeKernel(%s, %zu x %zu, local %zu) failed: %s", ks->names[id], g0,
                       global[1], local, gs_cl_error_name(e));
    if (record) {
        pf->id[pf->n++] = id;
        if (done) {
            *done = *evp;
            clRetainEvent(*done);
        }
    }
    return GS_OK;
}

double gs_dev_prof_collect(gs_dev_prof *pf, const int *phase_of, double *phase, double *per_id, int upto)
{
    double first = 0;
    for (int i = 0; i < pf->n; i++) {
        cl_ulong a = 0, b = 0;
        clGetEventProfilingInfo(pf->ev[i], CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
        clGetEventProfilingInfo(pf->ev[i], CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
        if (b > a) {
            const double s = (double)(b - a) * 1e-9;
            if (phase && phase_of) phase[phase_of[pf->id[i]]] += s;
            if (per_id) per_id[pf->id[i]] += s;
            if (i < upto) first += s;
        }
        clReleaseEvent(pf->ev[i]);
    }
    pf->n = 0;
    return first;
}

void gs_dev_prof_release(gs_dev_prof *pf)
{
    if (!pf) return;
    for (int i = 0; i < pf->n; i++) clReleaseEvent(pf->ev[i]);
    pf->n = 0;
}
