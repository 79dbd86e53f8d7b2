/* status.c — last-error record: one per thread, so concurrent readers/device threads never mix. */
#include "util/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char g_msg[1024];
static _Thread_local char g_where[128];

gs_status gs_fail_at(const char *file, int line, gs_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
    const char *base = strrchr(file, '/');
    snprintf(g_where, sizeof g_where, "%s:%d", base ? base + 1 : file, line);
    return st;
}

const char *gs_last_error(void) { return g_msg; }
const char *gs_last_error_where(void) { return g_where; }
void gs_clear_error(void) { g_msg[0] = '\0'; g_where[0] = '\0'; }

const char *gs_status_name(gs_status st)
{
    switch (st) {
    case GS_OK: return "ok";
    case GS_ERR_IO: return "I/O error";
    case GS_ERR_FORMAT: return "format error";
    case GS_ERR_NOMEM: return "out of memory";
    case GS_ERR_ARG: return "bad argument";
    case GS_ERR_OCL: return "OpenCL error";
    case GS_ERR_NODEVICE: return "no OpenCL device";
    case GS_ERR_UNSUPPORTED: return "not supported";
    case GS_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *gs_cl_error_name(int e)
{
    static _Thread_local char buf[32];
    switch (e) {
#define N(x, v) case v: return #x;
    N(CL_SUCCESS, 0) N(CL_DEVICE_NOT_FOUND, -1) N(CL_DEVICE_NOT_AVAILABLE, -2)
    N(CL_COMPILER_NOT_AVAILABLE, -3) N(CL_MEM_OBJECT_ALLOCATION_FAILURE, -4)
    N(CL_OUT_OF_RESOURCES, -5) N(CL_OUT_OF_HOST_MEMORY, -6) N(CL_PROFILING_INFO_NOT_AVAILABLE, -7)
    N(CL_MEM_COPY_OVERLAP, -8) N(CL_IMAGE_FORMAT_MISMATCH, -9) N(CL_IMAGE_FORMAT_NOT_SUPPORTED, -10)
    N(CL_BUILD_PROGRAM_FAILURE, -11) N(CL_MAP_FAILURE, -12) N(CL_MISALIGNED_SUB_BUFFER_OFFSET, -13)
    N(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, -14) N(CL_COMPILE_PROGRAM_FAILURE, -15)
    N(CL_LINKER_NOT_AVAILABLE, -16) N(CL_LINK_PROGRAM_FAILURE, -17) N(CL_DEVICE_PARTITION_FAILED, -18)
    N(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, -19) N(CL_INVALID_VALUE, -30) N(CL_INVALID_DEVICE_TYPE, -31)
    N(CL_INVALID_PLATFORM, -32) N(CL_INVALID_DEVICE, -33) N(CL_INVALID_CONTEXT, -34)
    N(CL_INVALID_QUEUE_PROPERTIES, -35) N(CL_INVALID_COMMAND_QUEUE, -36) N(CL_INVALID_HOST_PTR, -37)
    N(CL_INVALID_MEM_OBJECT, -38) N(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, -39)
    N(CL_INVALID_IMAGE_SIZE, -40) N(CL_INVALID_SAMPLER, -41) N(CL_INVALID_BINARY, -42)
    N(CL_INVALID_BUILD_OPTIONS, -43) N(CL_INVALID_PROGRAM, -44) N(CL_INVALID_PROGRAM_EXECUTABLE, -45)
    N(CL_INVALID_KERNEL_NAME, -46) N(CL_INVALID_KERNEL_DEFINITION, -47) N(CL_INVALID_KERNEL, -48)
    N(CL_INVALID_ARG_INDEX, -49) N(CL_INVALID_ARG_VALUE, -50) N(CL_INVALID_ARG_SIZE, -51)
    N(CL_INVALID_KERNEL_ARGS, -52) N(CL_INVALID_WORK_DIMENSION, -53) N(CL_INVALID_WORK_GROUP_SIZE, -54)
    N(CL_INVALID_WORK_ITEM_SIZE, -55) N(CL_INVALID_GLOBAL_OFFSET, -56) N(CL_INVALID_EVENT_WAIT_LIST, -57)
    N(CL_INVALID_EVENT, -58) N(CL_INVALID_OPERATION, -59) N(CL_INVALID_GL_OBJECT, -60)
    N(CL_INVALID_BUFFER_SIZE, -61) N(CL_INVALID_MIP_LEVEL, -62) N(CL_INVALID_GLOBAL_WORK_SIZE, -63)
    N(CL_INVALID_PROPERTY, -64) N(CL_INVALID_IMAGE_DESCRIPTOR, -65) N(CL_INVALID_COMPILER_OPTIONS, -66)
    N(CL_INVALID_LINKER_OPTIONS, -67) N(CL_INVALID_DEVICE_PARTITION_COUNT, -68)
    N(CL_PLATFORM_NOT_FOUND_KHR, -1001)
#undef N
    default: snprintf(buf, sizeof buf, "CL_ERROR_%d", e); return buf;
    }
}
