/* devset.c — see devset.h. */
#include "device/devset.h"

#include <stdio.h>
#include <string.h>

#include "util/log.h"
#include "util/parallel.h"

/* One device of a list, opened on a thread of its own (NVIDIA's context start-up is ~0.1 s a GPU). */
typedef struct open_job {
    gs_ocl *o;
    int index;
    const gs_tuning *tuning;
    gs_status st;
    char err[1024];
} open_job;

static void *open_one(void *arg)
{
    open_job *j = arg;
    char one[16];
    snprintf(one, sizeof one, "%d", j->index);
    j->st = gs_ocl_open(j->o, one, j->tuning);
    if (j->st != GS_OK) snprintf(j->err, sizeof j->err, "%s", gs_last_error());
    return NULL;
}

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
        open_job jobs[GS_DEVSET_MAX];
        for (int k = 0; k < n; k++) jobs[k] = (open_job){.o = &s->dev[k], .index = index[k], .tuning = tuning};
        gs_parallel_run(jobs, sizeof *jobs, n, open_one);
        for (int k = 0; k < n; k++) /* each one open is closed on failure; the first failure reported */
            if (jobs[k].st == GS_OK) s->n = k + 1;
        for (int k = 0; k < n && st == GS_OK; k++)
            if (jobs[k].st != GS_OK) st = GS_FAIL(jobs[k].st, "%s", jobs[k].err);
        if (st != GS_OK) goto cleanup;
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
