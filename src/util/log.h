/* log.h — where informational output goes. A gs_log value is passed down explicitly (no global
 * print hook): info lines go to stdout, or to the log's print function (svm.h's
 * svm_set_print_string_function), unless quiet (LIBSVM's -q); verbose lines to stderr only with
 * --verbose. */
#ifndef GS_LOG_H
#define GS_LOG_H

#include <stdio.h>

typedef struct gs_log {
    int quiet;   /* -q: suppress gs_log_info */
    int verbose; /* --verbose: enable gs_log_verbose */
    void (*print)(const char *); /* receives gs_log_info's text instead of stdout; NULL = stdout */
} gs_log;

/* LIBSVM-style informational text on stdout or through log->print (nothing when quiet). */
void gs_log_info(const gs_log *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Diagnostic text on stderr, only with --verbose. */
void gs_log_verbose(const gs_log *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Monotonic wall clock in seconds. */
double gs_now(void);

#endif
