/* warm.h — keeping the GPU driver initialised between gpusvm processes: a small helper process
 * (this binary re-executed as "gpusvm-warm") lists the OpenCL platforms and GPU devices, creates
 * no context and no buffer, and stays a client of the driver for a short while after the process
 * that started it has gone. A gpusvm command started meanwhile (a script's next step, the predict
 * after the train) finds the driver initialised. */
#ifndef GS_WARM_H
#define GS_WARM_H

#include "device/ocl.h"

/* Starts the helper when GPUSVM_WARM (seconds it stays after this process ends; unset, empty or 0 =
 * no helper, the default; at most 60) asks; failures are ignored (the helper is an optimisation
 * only). platform: the name of the OpenCL platform whose GPU devices the helper lists (the others
 * it leaves alone).
 * Call once, from a process that uses a GPU. */
void gs_warm_spawn(const char *platform);

/* gs_ocl_open, starting the helper (gs_warm_spawn) between choosing a GPU and creating its context,
 * so the helper's own start overlaps the wait for the context. Same contract as gs_ocl_open. */
gs_status gs_warm_open_device(gs_ocl *o, const char *spec);

/* Call first thing in main: when this process is the helper, runs it and returns 1 with *rc its
 * exit code; otherwise returns 0 and does nothing. */
int gs_warm_run_if_helper(int argc, char **argv, int *rc);

#endif
