/* ocl.h — the OpenCL runtime: platform/device enumeration and choice (GPU first, else any device,
 * e.g. PoCL's CPU device; or --device N|NAME / env GPUSVM_DEVICE), context and in-order queue,
 * programs built from the kernels/*.cl sources embedded at build time and specialised with -D. */
#ifndef GS_OCL_H
#define GS_OCL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

#include "status.h"

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
    cl_ulong local_mem;        /* bytes */
    size_t max_wg;             /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    cl_uint compute_units;
    int has_fp64;              /* cl_khr_fp64 */
    double peak_gbps;          /* nominal memory bandwidth in GB/s (0 when unknown) */
} gs_ocl;

/* Opens a device. spec: NULL/"" = automatic (env GPUSVM_DEVICE if set, else the first GPU, else the
 * first device of any type); a decimal number = index in the --list-devices order; otherwise a
 * case-insensitive substring of "platform name / device name".
 * @return GS_OK, GS_ERR_NODEVICE ("no OpenCL device matches '<spec>'", or "no OpenCL device found"),
 *         GS_ERR_OCL (message names the call and the CL error) */
gs_status gs_ocl_open(gs_ocl *o, const char *spec);
/* Releases queue and context; o may be NULL or half-open. */
void gs_ocl_close(gs_ocl *o);
/* Prints one line per device: "<index>: <platform> / <device> (<type>, <mem> MiB)".
 * @return GS_OK or GS_ERR_NODEVICE/GS_ERR_OCL */
gs_status gs_ocl_list(FILE *f);

/* Builds the embedded kernels/<name>.cl (e.g. "solver") with the common prelude and the options
 * (e.g. "-DWG=256 -DKTYPE=2"). On failure the message holds the build log and the options.
 * @return GS_OK or GS_ERR_OCL / GS_ERR_INTERNAL (unknown name) */
gs_status gs_ocl_build(gs_ocl *o, const char *name, const char *options, cl_program *out);
/* Creates a kernel, error naming the kernel. */
gs_status gs_ocl_kernel(cl_program prog, const char *kname, cl_kernel *out);

/* The embedded source of kernels/<name>.cl, or NULL (for tests and the dev-mode loader). */
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
