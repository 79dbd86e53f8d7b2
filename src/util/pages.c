/* pages.c — see pages.h. */
#include "util/pages.h"

void gs_pages_touch(void *p, size_t bytes)
{
    volatile char *const c = p; /* volatile: the writes are the point, not their values */
    for (size_t i = 0; i < bytes; i += 4096) c[i] = 0;
    if (bytes) c[bytes - 1] = 0;
}
