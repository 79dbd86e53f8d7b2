/* devset.h — the devices one run uses: --device's value, one device (gs_ocl_open's spec) or a list
 * ("0,1", "all", names; gs_ocl_resolve_list), each opened with its own context and queue and each
 * capped by --device-memory. Training deals its independent problems out over them
 * (train/run.h); the default stays one device. */
#ifndef GS_DEVSET_H
#define GS_DEVSET_H

#include "device/ocl.h"

#define GS_DEVSET_MAX 16

typedef struct gs_devset {
    gs_ocl dev[GS_DEVSET_MAX];
    int n;                      /* devices open */
} gs_devset;

/* Opens spec's devices (NULL/"" = automatic: one device, tuning->device when set) in list order,
 * each capped at mem_cap bytes (0 = none). Like gs_ocl_open it touches no shared state, so it may
 * run on a helper thread. On failure every device is closed and s->n is 0.
 * @return GS_OK or gs_ocl_open's / gs_ocl_resolve_list's errors */
gs_status gs_devset_open(gs_devset *s, const char *spec, const gs_tuning *tuning, cl_ulong mem_cap);
/* The open devices into devs[0..max) (for gs_device_provider.all); @return how many */
int gs_devset_list(gs_devset *s, gs_ocl **devs, int max);
/* Closes every device; s may be zeroed or half-open. */
void gs_devset_close(gs_devset *s);

#endif
