/* pages.h — fresh memory faulted in where the caller chooses. The first write to each page of a
 * new allocation traps to the kernel; on the virtual machines gpusvm runs on that cost letter's
 * 325-pair certification about 1 ms on 16 threads for its 6 MB of exact gradients, on the critical
 * path after the device's last round. Touching such arrays while the device is still starting
 * moves that cost off it. */
#ifndef GS_PAGES_H
#define GS_PAGES_H

#include <stddef.h>

/* Writes a zero byte in every page of [p, p + bytes) (contents undefined before and after, as for
 * malloc's memory). p may be NULL when bytes is 0. */
void gs_pages_touch(void *p, size_t bytes);

#endif
