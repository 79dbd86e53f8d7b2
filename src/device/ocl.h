/* ocl.h — the OpenCL runtime: platform/device enumeration and choice (GPU first, else any device,
 * e.g. PoCL's CPU device; or --device N|NAME / gs_tuning.device), context and in-order queue,
 * programs built from the kernels/<name>.cl sources embedded at build time and specialised with -D. */
#ifndef GS_OCL_H
#define GS_OCL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <pthread.h>
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>

#include "util/status.h"
#include "util/tuning.h"

/* Programs one gs_ocl keeps for reuse (gs_ocl.built); the oldest is let go beyond it. */
#define GS_OCL_BUILT_MAX 16

typedef struct gs_ocl {
    cl_platform_id platform;
    cl_device_id device;
    cl_context ctx;
    cl_command_queue queue;
    char platform_name[128];
    char device_name[128];
    cl_device_type device_type;
    cl_ulong global_mem;       /* bytes */
    cl_ulong max_alloc;        /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    cl_ulong mem_limit;        /* --device-memory in bytes (0: none); global_mem and max_alloc are
                                  already lowered to it */
    cl_ulong local_mem;        /* bytes */
    size_t max_wg;             /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    cl_uint compute_units;
    int has_fp64;              /* cl_khr_fp64 (or a non-zero CL_DEVICE_DOUBLE_FP_CONFIG) */
    double peak_gbps;          /* nominal memory bandwidth in GB/s (0 when unknown) */
    int profiling;             /* queue made with CL_QUEUE_PROFILING_ENABLE (gs_tuning.profile 1) */
    char *kernel_dir;          /* gs_tuning.kernel_dir copied (owned; NULL: embedded kernels) */
    double t_platforms, t_devices, t_context; /* seconds spent in gs_ocl_open's phases */
    char *build_log;           /* full log of the last failed gs_ocl_build (NULL when none); owned */
    /* the kernel cache (device/kcache.h): built program binaries kept between processes */
    char *kernel_cache;        /* gs_tuning.kernel_cache copied (owned; NULL: no cache) */
    int cache_cpu_skipped;     /* a CPU device without gs_tuning.kernel_cache_cpu: no cache */
    char platform_version[128], device_version[128], driver_version[128]; /* part of its key */
    int cache_loaded;          /* programs gs_ocl_build took from the cache */
    int cache_stored;          /* programs built from source and written to it */
    int cache_rejected;        /* entries found but refused (corrupt, stale, failed to load),
                                  each rebuilt from source */
    char cache_note[320];      /* why the last entry was refused or could not be written ("" when
                                  none): the cache never fails a build, this says why it did not help */
    /* programs built in this process, by key hash (kcache.h): a second build of the same
       program and options (each -v fold, each svm_train of the library) takes this one */
    struct gs_ocl_built {
        uint64_t hash;
        cl_program prog;       /* one reference held here until gs_ocl_close */
    } built[GS_OCL_BUILT_MAX];
    int n_built;
    int reused;                /* gs_ocl_build calls answered from built[] */
    int index;                 /* the device's place in --list-devices (a helper opens it so) */
    /* programs in parts (gs_ocl_build_parts) */
    int build_procs;           /* gs_tuning.build_procs */
    char *build_exe;           /* gs_tuning.build_exe copied (owned; NULL: no helper processes) */
    int parts_built;           /* programs built in parts */
    int helpers_started, helpers_ok; /* helper processes started, and those that succeeded */
    /* gs_ocl_build's: threads may build on one device at once (gpusvm-grid's lanes); everything
       above that changes after gs_ocl_open changes under it */
    pthread_mutex_t build_lock;
    pthread_mutex_t parts_lock; /* gs_ocl_build_parts: one program in parts at a time */
    int build_lock_ready;       /* both locks made */
} gs_ocl;

/* Opens a device: chooses it, then makes its context and in-order queue. spec: NULL/"" = automatic
 * (tuning->device if set and non-empty, else the first GPU, else the first device of any type;
 * devices with double precision are preferred in both steps); a decimal number = index in the
 * --list-devices order; otherwise a case-insensitive substring of "platform name / device name"
 * (the first match wins). tuning (NULL: gs_tuning_init's defaults) also gives the queue's profiling
 * (profile == 1), the kernel directory gs_ocl_build reads (kernel_dir, copied) and the kernel cache
 * folder (kernel_cache, copied; for a CPU device only with kernel_cache_cpu).
 * (NVIDIA's driver reads its start-up variables at the first OpenCL call: the CLIs set them first,
 * src/cli/env.h.)
 * Touches no shared state: safe to call from a helper thread while other threads do unrelated work
 * (errors go to that thread's last-error record, so copy gs_last_error() out before it ends).
 * On failure o is left closed (gs_ocl_close(o) is still allowed).
 * @return GS_OK, GS_ERR_NODEVICE ("no OpenCL device matches '<spec>'", or "no OpenCL device found"),
 *         GS_ERR_UNSUPPORTED (the device lacks double precision), GS_ERR_NOMEM,
 *         GS_ERR_OCL (message names the call and the CL error) */
gs_status gs_ocl_open(gs_ocl *o, const char *spec, const gs_tuning *tuning);
/* Releases the kept programs, queue, context, build_log, kernel_dir and kernel_cache; o may be NULL
 * or half-open. */
void gs_ocl_close(gs_ocl *o);

/* Caps the device memory gpusvm may use (--device-memory, ThunderSVM's -m) at `bytes` (0 = no cap):
 * lowers global_mem and max_alloc, which every budget and check reads, and records mem_limit so
 * messages can say where the figure comes from. Call after gs_ocl_open. */
void gs_ocl_limit_memory(gs_ocl *o, cl_ulong bytes);
/* "N bytes of device memory available" with where the figure comes from, for messages. */
void gs_ocl_describe_memory(const gs_ocl *o, char *buf, size_t cap);

/* "kernel cache DIR: N loaded, N built and stored, N refused and rebuilt, N reused in this
 * process[; last problem: ...]" into buf, or "kernel cache off[ (why)], N program(s) reused in this
 * process", for the CLIs' --verbose line. */
void gs_ocl_describe_cache(const gs_ocl *o, char *buf, size_t cap);

/* "platform / device, ready after S s (platforms ..., devices ..., context ...)" into buf, for the
 * CLIs' --verbose line (ready_s: the caller's clock from its start to the device being open). */
void gs_ocl_describe_ready(const gs_ocl *o, double ready_s, char *buf, size_t cap);
/* Prints one line per device: "<index>: <platform> / <device> (<type>, <mem> MiB)".
 * @return GS_OK or GS_ERR_NODEVICE/GS_ERR_OCL */
gs_status gs_ocl_list(FILE *f);

/* Builds the embedded kernels/<name>.cl (e.g. "solver") with the prelude in front: kernels/common.cl
 * and kernels/abi.h (the tables shared with the host), and the options (e.g. "-DWG=256 -DKTYPE=2";
 * NULL = none) plus " -cl-std=CL1.2". "common" builds the prelude alone. Dev mode: with
 * o->kernel_dir (gs_tuning.kernel_dir, env GPUSVM_KERNEL_DIR in the CLIs), <dir>/common.cl,
 * <dir>/abi.h and <dir>/<name>.cl are read from disk instead of the embedded copies.
 * On failure the message holds the program name, the options and the build log (cut to fit the
 * last-error record, with a note when cut); the whole log stays in o->build_log until the next
 * build or gs_ocl_close. Threads may build on one gs_ocl at once (its build_lock; o->build_log is
 * the last failed build's); *out is NULL on failure.
 * Kernel cache: with o->kernel_cache, the entry for this device, driver, program, options and
 * sources (kcache.h) is loaded instead of compiling when it is valid and the driver accepts it;
 * otherwise the program is built from source and its binary written there. The cache never makes
 * a build fail: a folder that cannot be made or written, an entry that is corrupt or refused, are
 * counted in o->cache_* with the reason in o->cache_note, and the source build goes on.
 * A program this gs_ocl built before with the same options and sources is returned again (retained:
 * the caller releases it as usual) without a build.
 * @return GS_OK, GS_ERR_OCL, GS_ERR_INTERNAL (no embedded source of that name), GS_ERR_IO (dev
 *         mode: the file cannot be read), GS_ERR_NOMEM */
gs_status gs_ocl_build(gs_ocl *o, const char *name, const char *options, cl_program *out);
/* The most parts a program may have (abi.h GS_SOLVER_PARTS). */
#define GS_OCL_PARTS_MAX 8
/* A build helper's first argument: `EXE GS_OCL_HELPER_FLAG DEVICE CACHE PROGRAM OPTIONS` (see
 * gs_ocl_helper_run); the CLIs' mains hand such a command line to gs_ocl_helper_run. */
#define GS_OCL_HELPER_FLAG "--gs-build-helper"

/* Builds program name, whose source is made of nparts parts (-DGS_PART=k, 1 <= k <= nparts, each a
 * program holding some of the kernels; none: all), as the whole program or as its parts:
 * - whole (progs[0], *nprogs 1, as gs_ocl_build) when nparts < 2, o->build_procs is 0, or (its
 *   default, GS_TUNE_AUTO) on a CPU device, without a helper program (o->build_exe), without the
 *   kernel cache, or when the whole program needs no compile (built in this process or cached);
 * - else in parts (progs[0..nparts), *nprogs nparts): helper processes (o->build_exe run as
 *   GS_OCL_HELPER_FLAG ..., at most o->build_procs when it is positive, else nparts - 1) build
 *   the parts missing from the kernel cache but the first, into it (or the driver's cache), while
 *   this process builds that first one; once they end this process builds every part with
 *   gs_ocl_build, which finds them in a cache or (a helper that failed) compiles them itself.
 *   The helpers only save time: what this process uses is what gs_ocl_build gives it. A NVIDIA
 *   driver builds the programs of one process one at a time, those of several processes at once
 *   (docs/performance.md, twenty-ninth session).
 * On failure no program is kept.
 * @return as gs_ocl_build */
gs_status gs_ocl_build_parts(gs_ocl *o, const char *name, const char *options, int nparts, cl_program *progs,
                             int *nprogs);
/* A build helper's work: argv as GS_OCL_HELPER_FLAG's line (argv[1] the flag), the device opened by
 * its index with tuning's settings but the kernel cache (CACHE; "" none), the program built there.
 * @return GS_OK, GS_ERR_ARG (another command line), the open's or the build's errors */
gs_status gs_ocl_helper_run(int argc, char **argv, const gs_tuning *tuning);
/* Creates a kernel, error naming the kernel. *out is NULL on failure.
 * @return GS_OK or GS_ERR_OCL */
gs_status gs_ocl_kernel(cl_program prog, const char *kname, cl_kernel *out);
/* The largest local size this kernel can launch with on o's device (CL_KERNEL_WORK_GROUP_SIZE; it
 * can be below o->max_wg, e.g. for register-heavy kernels). Launch code must not exceed it.
 * @return GS_OK or GS_ERR_OCL */
gs_status gs_ocl_kernel_wg(const gs_ocl *o, cl_kernel k, size_t *out);
/* Creates a buffer of `bytes` (> 0) bytes; `what` names it in errors ("kernel cache"), and a size
 * over o->max_alloc fails with a message giving both sizes instead of a bare CL error.
 * @return GS_OK, GS_ERR_NOMEM (too large for the device) or GS_ERR_OCL */
gs_status gs_ocl_alloc(const gs_ocl *o, cl_mem_flags flags, size_t bytes, void *host, const char *what,
                       cl_mem *out);

/* For one process per GPU on a node (gpusvm-grid under MPI): *index receives the --list-devices
 * index of GPU number k mod the number of GPUs with double precision, or -1 when there is none.
 * @return GS_OK, GS_ERR_OCL or GS_ERR_NOMEM */
gs_status gs_ocl_nth_gpu(int k, int *index);

/* Whether a --device spec names several devices: a comma-separated list or "all". */
int gs_ocl_is_list(const char *spec);
/* Resolves a --device list (spec; NULL/"" takes fallback, gs_tuning.device) into --list-devices
 * indices index[0..*count): each comma-separated item as gs_ocl_open's spec (an index or a part of
 * a name), or "all" alone: every device with double precision of the best kind (the GPUs when
 * there is one, else all). An item that matches nothing, an empty item, a device named twice or
 * more than max devices is an error naming it.
 * @return GS_OK, GS_ERR_NODEVICE, GS_ERR_OCL or GS_ERR_NOMEM (*count is 0 on failure) */
gs_status gs_ocl_resolve_list(const char *spec, const char *fallback, int *index, int max, int *count);

/* The embedded source of kernels/<name>.cl, or of kernels/abi.h for "abi.h"; NULL when there is
 * none (for tests and the build). */
const char *gs_ocl_source(const char *name);

/* Checks an OpenCL return code: records "<call> failed: <CL_NAME>" and jumps to cleanup. */
#define GS_CL_CHECK(call)                                                                  \
    do {                                                                                   \
        cl_int gs_e_ = (call);                                                             \
        if (gs_e_ != CL_SUCCESS) {                                                         \
            st = GS_FAIL(GS_ERR_OCL, "%s failed: %s", #call, gs_cl_error_name(gs_e_));     \
            goto cleanup;                                                                  \
        }                                                                                  \
    } while (0)

#endif
