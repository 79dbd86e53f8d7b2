/* devset.c — see devset.h. */
#include "device/devset.h"

#include <string.h>

gs_status gs_devset_open(gs_devset *s, const char *spec, const gs_tuning *tuning, cl_ulong mem_cap)
{
    gs_status st = GS_OK;
    memset(s, 0, sizeof *s);
    const char *fallback = tuning ? tuning->device : NULL;
    const int list = gs_ocl_is_list(spec) || ((!spec || !*spec) && gs_ocl_is_list(fallback));
    if (!list) {
        if ((st = gs_ocl_open(&s->dev[0], spec, tuning)) != GS_OK) return st;
        s->n = 1;
    } else {
        int index[GS_DEVSET_MAX], n = 0;
        if ((st = gs_ocl_resolve_list(spec, fallback, index, GS_DEVSET_MAX, &n)) != GS_OK) return st;
        for (int k = 0; k < n; k++) {
            char one[16];
            snprintf(one, sizeof one, "%d", index[k]);
            if ((st = gs_ocl_open(&s->dev[k], one, tuning)) != GS_OK) goto cleanup;
            s->n = k + 1;
        }
    }
    for (int k = 0; k < s->n; k++) gs_ocl_limit_memory(&s->dev[k], mem_cap);
cleanup:
    if (st != GS_OK) gs_devset_close(s);
    return st;
}

int gs_devset_list(gs_devset *s, gs_ocl **devs, int max)
{
    int n = 0;
    for (; n < s->n && n < max; n++) devs[n] = &s->dev[n];
    return n;
}

void gs_devset_close(gs_devset *s)
{
    if (!s) return;
    for (int k = 0; k < s->n; k++) gs_ocl_close(&s->dev[k]);
    s->n = 0;
}
