/* courier.h — one thread that runs queued jobs in order: the split rounds' OpenCL enqueueing
 * (which costs NVIDIA's driver ~17 us a kernel on the H100's host) while the calling thread
 * solves the subproblem. Jobs after a failed one are skipped; its status and message come back to
 * the thread that drains. */
#ifndef GS_COURIER_H
#define GS_COURIER_H

#include "util/status.h"

typedef gs_status (*gs_courier_fn)(void *arg);
typedef struct gs_courier gs_courier;

/* Starts the thread. @return GS_OK, or GS_ERR_NOMEM / GS_ERR_INTERNAL when it cannot start */
gs_status gs_courier_create(gs_courier **out);

/* Queues fn(arg) behind the jobs posted before (waiting for room when 8 are pending); what fn
 * reads must stay unchanged until a gs_courier_drain has returned. A NULL courier runs the job
 * now, on the calling thread. @return GS_OK, or the job's status when it ran here */
gs_status gs_courier_post(gs_courier *c, gs_courier_fn fn, void *arg);

/* Waits until every posted job has run (a NULL courier has none).
 * @return GS_OK, or the first failed job's status, its message recorded on this thread */
gs_status gs_courier_drain(gs_courier *c);

/* Seconds the thread has spent running jobs (read after a drain). */
double gs_courier_busy(const gs_courier *c);

/* Drains, stops and frees the courier; NULL is fine. */
void gs_courier_free(gs_courier *c);

#endif
