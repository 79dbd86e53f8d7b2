/* log.c — info/verbose printing and the clock. */
#include "util/log.h"

#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

void gs_log_info(const gs_log *log, const char *fmt, ...)
{
    if (log && log->quiet) return;
    va_list ap;
    if (log && log->print) {
        /* the hook takes whole strings: format on the stack, or on the heap when longer */
        char small[1024];
        va_start(ap, fmt);
        const int n = vsnprintf(small, sizeof small, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if ((size_t)n < sizeof small) {
            log->print(small);
            return;
        }
        char *big = malloc((size_t)n + 1);
        if (!big) return;
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        log->print(big);
        free(big);
        return;
    }
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fflush(stdout);
}

void gs_log_verbose(const gs_log *log, const char *fmt, ...)
{
    if (!log || !log->verbose) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

double gs_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
