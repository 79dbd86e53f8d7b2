/* status.h — gs_status codes and the per-thread last-error record (message + file:line).
 * Library code never prints errors or exits: it records a message with GS_FAIL and returns the
 * status; only the CLI main()s print gs_last_error() and choose the exit code. */
#ifndef GS_STATUS_H
#define GS_STATUS_H

typedef enum gs_status {
    GS_OK = 0,
    GS_ERR_IO,          /* a file could not be opened, read or written */
    GS_ERR_FORMAT,      /* bad input data or model text */
    GS_ERR_NOMEM,       /* an allocation failed */
    GS_ERR_ARG,         /* a bad parameter or option value */
    GS_ERR_OCL,         /* an OpenCL call failed */
    GS_ERR_NODEVICE,    /* no OpenCL device matched */
    GS_ERR_UNSUPPORTED, /* a feature that is not built */
    GS_ERR_INTERNAL     /* an invariant broke: a bug */
} gs_status;

/* Records a printf-style message (the user-facing text, e.g. "Wrong input format at line 3") with the
 * source position, and returns st so callers can `return GS_FAIL(...)`.
 * @return st */
gs_status gs_fail_at(const char *file, int line, gs_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define GS_FAIL(st, ...) gs_fail_at(__FILE__, __LINE__, (st), __VA_ARGS__)

/* The last recorded message of this thread ("" when none). */
const char *gs_last_error(void);
/* "file.c:123" of the last recorded message ("" when none). */
const char *gs_last_error_where(void);
/* Clears the record. */
void gs_clear_error(void);
/* A short name for a status ("format error", ...). */
const char *gs_status_name(gs_status st);
/* The symbolic name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or "CL_ERROR_<n>". */
const char *gs_cl_error_name(int cl_err);

#endif
