/* env.c — see env.h. The only getenv/setenv calls of gpusvm. */
#include "cli/env.h"

#include "device/ocl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* name's value when it is a whole decimal number >= 0, else -1 (unset, empty or anything else) */
static long env_count(const char *name)
{
    const char *v = getenv(name);
    char *end = NULL;
    const long n = v && *v ? strtol(v, &end, 10) : -1;
    return v && *v && !*end && n >= 0 ? n : -1;
}

/* "0" -> 0, "1" -> 1, anything else (or unset) -> dflt: the variables' meaning since they exist. */
static int env_01(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (v && strcmp(v, "0") == 0) return 0;
    if (v && strcmp(v, "1") == 0) return 1;
    return dflt;
}

/* A non-empty value, or NULL. */
static const char *env_str(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* The kernel cache folder (tuning.h): GPUSVM_KERNEL_CACHE=0 none, =DIR that folder; unset, empty
 * or 1: $XDG_CACHE_HOME/gpusvm (the XDG rules ignore a relative XDG_CACHE_HOME), else
 * $HOME/.cache/gpusvm, else none. A composed path lives in a static buffer: the mains call
 * gs_tuning_from_env once, before any thread. */
static const char *kernel_cache_dir(void)
{
    static char composed[PATH_MAX];
    const char *v = getenv("GPUSVM_KERNEL_CACHE");
    if (v && strcmp(v, "0") == 0) return NULL;
    if (v && *v && strcmp(v, "1") != 0) return v;
    const char *xdg = env_str("XDG_CACHE_HOME"), *home = env_str("HOME");
    int n = -1;
    if (xdg && xdg[0] == '/') n = snprintf(composed, sizeof composed, "%s/gpusvm", xdg);
    else if (home) n = snprintf(composed, sizeof composed, "%s/.cache/gpusvm", home);
    return n > 0 && (size_t)n < sizeof composed ? composed : NULL;
}

void gs_tuning_from_env(gs_tuning *t)
{
    gs_tuning_init(t);
    t->split = env_01("GPUSVM_SPLIT", GS_TUNE_AUTO);
    t->rowsplit = env_01("GPUSVM_ROWSPLIT", GS_TUNE_AUTO);
    t->cv_device = env_01("GPUSVM_CV_DEVICE", GS_TUNE_AUTO);
    t->courier = env_01("GPUSVM_COURIER", GS_TUNE_AUTO);
    t->precise = env_01("GPUSVM_PRECISE", GS_TUNE_AUTO);
    t->cert_wide = env_01("GPUSVM_CERT_WIDE", GS_TUNE_AUTO);
    t->col_rows = env_01("GPUSVM_COL_ROWS", GS_TUNE_AUTO);
    t->keep_data = env_01("GPUSVM_KEEP_DATA", GS_TUNE_AUTO);
    t->rb_full = env_01("GPUSVM_RB_FULL", GS_TUNE_AUTO);
    const char *sel = getenv("GPUSVM_SELECT");
    if (sel && strcmp(sel, "one") == 0) t->select = GS_SELECT_ONE;
    if (sel && strcmp(sel, "multi") == 0) t->select = GS_SELECT_MULTI;
    const char *it = getenv("GPUSVM_INFLATE_THREADS");
    if (it && atoi(it) != 0) t->inflate_threads = atoi(it) < 0 ? -1 : atoi(it) > 64 ? 64 : atoi(it);
    const char *mb = getenv("GPUSVM_BATCH_MB");
    if (mb && atol(mb) > 0) t->batch_mb = atol(mb);
    const long rc_v = env_count("GPUSVM_ROW_CACHE");
    if (rc_v >= 0) t->row_cache = rc_v < 1000000 ? rc_v : 1000000;
    const long st_v = env_count("GPUSVM_SUB_THREADS");
    if (st_v > 0) t->sub_threads = st_v < 64 ? (int)st_v : 64;
    const long sm_v = env_count("GPUSVM_SHRINK_MIN");
    if (sm_v >= 0) t->shrink_min = sm_v;
    const char *gl = getenv("GPUSVM_GRID_LANES");
    if (gl && atoi(gl) > 0) t->grid_lanes = atoi(gl) < 16 ? atoi(gl) : 16;
    const char *gn = getenv("GPUSVM_GRID_NICE");
    if (gn && *gn && atoi(gn) >= 0) t->grid_nice = atoi(gn) < 19 ? atoi(gn) : 19;
    const char *cr = getenv("GPUSVM_CERT_RESUME");
    if (cr && atoi(cr) > 0) t->cert_resume = atoi(cr) < 7 ? atoi(cr) : 7; /* run.c's last pass stays real */
    t->device = env_str("GPUSVM_DEVICE");
    /* set to anything but "1": no profiling, even with --verbose (GPUSVM_PROFILE=0 keeps it off) */
    if (getenv("GPUSVM_PROFILE")) t->profile = env_01("GPUSVM_PROFILE", 0);
    t->kernel_dir = env_str("GPUSVM_KERNEL_DIR");
    t->kernel_cache = kernel_cache_dir();
    const char *kc = getenv("GPUSVM_KERNEL_CACHE");
    t->kernel_cache_cpu = kc && *kc && strcmp(kc, "0") != 0 && strcmp(kc, "1") != 0;
    const long bp = env_count("GPUSVM_BUILD_PROCS");
    if (bp >= 0) t->build_procs = bp < 16 ? (int)bp : 16;
#ifdef __linux__
    t->build_exe = "/proc/self/exe"; /* this very program, whatever its path */
#endif
    /* GS_PRED_LAYOUT: words separated by commas (rows,nohash) */
    const char *lay = getenv("GS_PRED_LAYOUT");
    for (const char *w = lay; w && *w;) {
        const size_t n = strcspn(w, ",");
        if (n == 4 && strncmp(w, "rows", 4) == 0) t->pred_blocks = GS_PRED_BLOCKS_ROWS;
        if (n == 5 && strncmp(w, "dense", 5) == 0) t->pred_blocks = GS_PRED_BLOCKS_DENSE;
        if (n == 4 && strncmp(w, "tile", 4) == 0) t->pred_tile = 1;
        if (n == 5 && strncmp(w, "merge", 5) == 0) t->pred_tile = 0;
        if (n == 4 && strncmp(w, "args", 4) == 0) t->pred_codes = 0;
        if (n == 6 && strncmp(w, "nohash", 6) == 0) t->pred_hash = 0;
        if (n == 4 && strncmp(w, "hash", 4) == 0) t->pred_hash = 1;
        w += n + (w[n] == ',');
    }
    t->driver_env = env_01("GPUSVM_DRIVER_ENV", 1) != 0;
    t->fast_exit = env_01("GPUSVM_FAST_EXIT", 0) == 1;
    t->exit_wait = env_01("GPUSVM_EXIT_WAIT", 0) == 1;
}

void gs_cli_driver_env(const gs_tuning *t)
{
    if (!t->driver_env) return;
    setenv("NV_OPENCL_DISABLE_UVM", "1", 0);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
}

/* An executable regular file (a directory is "executable" too). */
static int runnable(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

char *gs_cli_which(const char *name)
{
    if (strchr(name, '/')) return runnable(name) ? strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    const size_t n = strlen(name);
    while (*path) {
        const size_t len = strcspn(path, ":");
        char *cand = malloc(len + n + 3);
        if (!cand) return NULL;
        /* an empty PATH entry is the current directory */
        snprintf(cand, len + n + 3, "%.*s/%s", len ? (int)len : 1, len ? path : ".", name);
        if (runnable(cand)) return cand;
        free(cand);
        path += len + (path[len] == ':');
    }
    return NULL;
}

int gs_cli_build_helper(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], GS_OCL_HELPER_FLAG) != 0)
        return -1;
    gs_tuning t;
    gs_tuning_from_env(&t);
    gs_cli_driver_env(&t);
    if (gs_ocl_helper_run(argc, argv, &t) == GS_OK)
        return 0;
    fprintf(stderr, "%s\n", gs_last_error()); /* a helper's stderr is /dev/null: for people trying it */
    return 1;
}
