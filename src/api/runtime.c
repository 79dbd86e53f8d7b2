/* runtime.c — the library's process-wide state (runtime.h): the print hook and the lazily opened
 * device, each behind its own mutex. */
#include "api/runtime.h"

#include <pthread.h>
#include <string.h>

/* The print hook; its own lock, so printing never waits for a training. */
static pthread_mutex_t g_print_lock = PTHREAD_MUTEX_INITIALIZER;
static void (*g_print)(const char *);

/* The device and its choice. g_train_lock is held for a whole training, so the device is never
 * opened, used or closed by two threads at once: the solver's programs, queue and build log are
 * not shared-safe, and trainings on one device would only queue behind each other anyway. */
static pthread_mutex_t g_train_lock = PTHREAD_MUTEX_INITIALIZER;
static gs_devset g_set;   /* the device, or gpusvm_set_device's list */
static int g_open;
static char g_spec[256];
static int g_has_spec;
static int g_memory_mb;

void gs_api_set_print(void (*print_func)(const char *))
{
    pthread_mutex_lock(&g_print_lock);
    g_print = print_func;
    pthread_mutex_unlock(&g_print_lock);
}

gs_log gs_api_log(void)
{
    gs_log log = {0};
    pthread_mutex_lock(&g_print_lock);
    log.print = g_print;
    pthread_mutex_unlock(&g_print_lock);
    return log;
}

gs_status gs_api_choose_device(const char *spec, int memory_mb)
{
    gs_status st = GS_OK;
    pthread_mutex_lock(&g_train_lock);
    if (g_open) {
        st = GS_FAIL(GS_ERR_ARG, "gpusvm_set_device: a device is already open (gpusvm_release_device first)");
    } else if (spec && strlen(spec) >= sizeof g_spec) {
        st = GS_FAIL(GS_ERR_ARG, "gpusvm_set_device: device name longer than %d bytes", (int)sizeof g_spec - 1);
    } else if (memory_mb < 0) {
        st = GS_FAIL(GS_ERR_ARG, "gpusvm_set_device: memory_mb must be >= 0 (0 = the whole device)");
    } else {
        g_has_spec = spec && *spec;
        strcpy(g_spec, g_has_spec ? spec : "");
        g_memory_mb = memory_mb;
    }
    pthread_mutex_unlock(&g_train_lock);
    return st;
}

void gs_api_release_device(void)
{
    pthread_mutex_lock(&g_train_lock);
    if (g_open) gs_devset_close(&g_set);
    memset(&g_set, 0, sizeof g_set);
    g_open = 0;
    pthread_mutex_unlock(&g_train_lock);
}

void gs_api_begin_training(void) { pthread_mutex_lock(&g_train_lock); }

void gs_api_end_training(void) { pthread_mutex_unlock(&g_train_lock); }

gs_ocl *gs_api_device(void *ctx)
{
    (void)ctx;
    if (g_open) return &g_set.dev[0];
    /* the default tuning: the library reads no environment (gpusvm_* setters change it) */
    if (gs_devset_open(&g_set, g_has_spec ? g_spec : NULL, NULL, (cl_ulong)g_memory_mb << 20) != GS_OK) return NULL;
    g_open = 1;
    return &g_set.dev[0];
}

int gs_api_devices(void *ctx, gs_ocl **devs, int max)
{
    (void)ctx;
    return g_open ? gs_devset_list(&g_set, devs, max) : 0;
}
