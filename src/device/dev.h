/* dev.h — device work on one in-order queue, shared by every engine (training, Crammer-Singer,
 * prediction): buffers that grow and are reused, pinned host memory, kernel sets with their
 * arguments, launches that record profiling events, per-kernel and per-phase timing, and the upload
 * of the clustered training layout (data/cluster.h).
 *
 * What is shared and what is not: training and Crammer-Singer read one layout, the clustered rows
 * (float values over compact column ids, squared norms), uploaded by gs_dev_upload_clustered. The
 * predictor's layout is another: blocks of support vectors with their values in double (LIBSVM's
 * arithmetic), original column ids, per-SV lengths, and its own dense/row-wise rule; it shares the
 * clustering (the permutation) and the buffers and launches here, not the upload, since no array of
 * it has the training layout's type or content.
 *
 * Nothing here blocks except where a function says so; uploads read their host memory later, so
 * that memory must stay unchanged until the queue has passed them (a blocking read or clFinish). */
#ifndef GS_DEV_H
#define GS_DEV_H

#include "data/cluster.h"
#include "device/ocl.h"
#include "util/status.h"

/* The queue a set of buffers, uploads and launches work on. */
typedef struct gs_dev {
    const gs_ocl *ocl;       /* device, context, memory limits */
    cl_command_queue queue;  /* in-order */
    int profile;             /* the queue has CL_QUEUE_PROFILING_ENABLE: launches record events */
} gs_dev;

/* Sets d to work on queue (NULL: ocl->queue) of ocl; profile from the queue's properties.
 * @return GS_OK or GS_ERR_OCL */
gs_status gs_dev_init(gs_dev *d, const gs_ocl *ocl, cl_command_queue queue);

/* ---- buffers ---------------------------------------------------------------------------------- */

/* A device buffer and its size in bytes; zero-initialise ({0}: no buffer yet). */
typedef struct gs_dev_buf {
    cl_mem mem;
    size_t cap;
} gs_dev_buf;

/* Makes b hold at least `bytes` (at least 16: OpenCL refuses empty buffers), reallocating only to
 * grow (NVIDIA's allocations synchronise the device, so buffers are kept from one use to the next;
 * a grown buffer loses its contents), and, when host is given, queues a non-blocking write of its
 * first `bytes` bytes. `what` names the buffer in errors.
 * @return GS_OK, GS_ERR_NOMEM (over the device's per-buffer limit, message gives both sizes),
 *         GS_ERR_OCL */
gs_status gs_dev_buf_ensure(const gs_dev *d, gs_dev_buf *b, size_t bytes, const void *host, const char *what);
/* Queues filling the first `bytes` bytes of b with the 32-bit pattern.
 * @return GS_OK or GS_ERR_OCL */
gs_status gs_dev_buf_fill(const gs_dev *d, const gs_dev_buf *b, int32_t pattern, size_t bytes);
/* Releases b (the runtime frees it once queued commands are done) and zeroes it; b->mem may be
 * NULL. */
void gs_dev_buf_release(gs_dev_buf *b);
/* gs_dev_buf_release over n consecutive buffers (a struct made only of gs_dev_buf fields). */
void gs_dev_bufs_release(gs_dev_buf *first, size_t n);

/* Pinned host memory, mapped while it lives: transfers from pageable memory go through a staging
 * copy in the driver. From GS_PIN_OWN_MIN bytes the memory is gpusvm's own, in huge pages where the
 * kernel gives them, which the driver pins (CL_MEM_USE_HOST_PTR); below, the driver's
 * (CL_MEM_ALLOC_HOST_PTR). Zero-initialise. */
typedef struct gs_dev_pinned {
    cl_mem mem;
    void *host;
    size_t cap;
    void *own;     /* our allocation behind mem, or NULL (freed by mem's destructor callback) */
} gs_dev_pinned;
#define GS_PIN_OWN_MIN ((size_t)4 << 20)

/* Makes p hold at least `bytes` (blocking map; growing waits for the queue, since queued
 * transfers may still use the old memory) and sets *host to it.
 * @return GS_OK or GS_ERR_OCL */
gs_status gs_dev_pinned_ensure(const gs_dev *d, gs_dev_pinned *p, size_t bytes, void **host);
/* Unmaps (queued on d's queue) and releases p, and zeroes it; p->mem may be NULL. */
void gs_dev_pinned_release(const gs_dev *d, gs_dev_pinned *p);

/* The clustered training layout on the device (data/cluster.h's arrays of the same names). */
typedef struct gs_dev_clustered {
    gs_dev_buf cols, col_off, vals, ell_w, ell_off, ell_idx, ell_val, norm2;
} gs_dev_clustered;
#define GS_DEV_CLUSTERED_BUFS (sizeof(gs_dev_clustered) / sizeof(gs_dev_buf))

/* Queues the upload of cl into out's buffers (grown as needed, else reused: a solver uploads one
 * batch after another into the same buffers); cl must stay unchanged until the queue has passed
 * the uploads. Release with gs_dev_bufs_release(&out->cols, GS_DEV_CLUSTERED_BUFS).
 * @return as gs_dev_buf_ensure */
gs_status gs_dev_upload_clustered(const gs_dev *d, const gs_clustered *cl, gs_dev_clustered *out);

/* ---- kernels ---------------------------------------------------------------------------------- */

#define GS_DEV_KERNELS_MAX 32

/* A program (or its parts) and kernels k[0..n) created from it by name (names[i], kept for
 * messages). Copyable; zero-initialise. */
typedef struct gs_dev_kernels {
    cl_program prog[GS_OCL_PARTS_MAX]; /* prog[0..nprog) */
    int nprog;
    int n;
    cl_kernel k[GS_DEV_KERNELS_MAX];
    const char *const *names; /* [n], static */
} gs_dev_kernels;

/* Builds kernels/<program>.cl with options, a source of nparts parts (gs_ocl_build_parts; 1: one
 * program, gs_ocl_build), and creates the n (<= GS_DEV_KERNELS_MAX) kernels names[0..n), each from
 * the program or part that holds it (a NULL name: no kernel at that index, which the options left
 * out); names must outlive out. On failure out is released.
 * @return GS_OK, the build's errors, GS_ERR_OCL (a kernel is missing) */
gs_status gs_dev_kernels_build(gs_ocl *ocl, const char *program, const char *options, int nparts,
                               const char *const *names, int n, gs_dev_kernels *out);
/* Releases kernels and program and zeroes ks; ks may be half-built. */
void gs_dev_kernels_release(gs_dev_kernels *ks);

/* A kernel argument: its size and where its value is. */
typedef struct gs_dev_karg {
    size_t size;
    const void *v;
} gs_dev_karg;
#define GS_KARG(x) {sizeof(x), &(x)}                 /* a scalar (or a cl_mem) */
#define GS_KARG_BUF(b) {sizeof(cl_mem), &(b).mem}    /* a gs_dev_buf */

/* Sets argument i of kernel id. @return GS_OK or GS_ERR_OCL naming the kernel and the argument */
gs_status gs_dev_arg(const gs_dev_kernels *ks, int id, cl_uint i, size_t size, const void *v);
/* Sets arguments 0..n-1 of kernel id from a[]. @return as gs_dev_arg */
gs_status gs_dev_args(const gs_dev_kernels *ks, int id, const gs_dev_karg *a, int n);
/* gs_dev_args over a whole array. */
#define GS_DEV_ARGS(ks, id, arr) gs_dev_args((ks), (id), (arr), (int)(sizeof(arr) / sizeof((arr)[0])))

/* ---- launches and profiling ------------------------------------------------------------------- */

#define GS_DEV_PROF_MAX 64

/* Profiling events recorded by launches (only when the queue profiles), each tagged with its
 * kernel id; zero-initialise. */
typedef struct gs_dev_prof {
    cl_event ev[GS_DEV_PROF_MAX];
    int id[GS_DEV_PROF_MAX];
    int n;
} gs_dev_prof;

/* Queues kernel id of ks over g0 x g1 work-items (g1 <= 1: one dimension) in work-groups of
 * local x 1 (local 0: the runtime chooses, one dimension only). When d profiles and pf (may be NULL)
 * has room, the launch's event goes to pf. done (may be NULL) receives an event for the launch's
 * completion, which the caller releases.
 * @return GS_OK or GS_ERR_OCL naming the kernel and the sizes */
gs_status gs_dev_launch(const gs_dev *d, const gs_dev_kernels *ks, int id, gs_dev_prof *pf, size_t g0, size_t g1,
                        size_t local, cl_event *done);
/* Adds each recorded launch's device seconds to per_id[its id] and to phase[phase_of[its id]]
 * (each of the three may be NULL), releases the events and empties pf. Call once the launches are
 * done (after a blocking read of their results).
 * @return the seconds of the first `upto` events */
double gs_dev_prof_collect(gs_dev_prof *pf, const int *phase_of, double *phase, double *per_id, int upto);
/* Releases the events without reading them; pf may be NULL. */
void gs_dev_prof_release(gs_dev_prof *pf);

#endif
