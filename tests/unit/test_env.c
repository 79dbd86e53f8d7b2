/* test_env.c — the CLIs' one reading of the environment (src/cli/env.c): gs_tuning_from_env gives
 * gs_tuning_init's defaults with no variable set, reads each variable with its meaning (values it
 * does not know leave the default), and gs_cli_driver_env sets NV_OPENCL_DISABLE_UVM=1 and
 * CUDA_DEVICE_MAX_CONNECTIONS=1 when they are unset, leaves a value the user set (even an empty
 * one) as it is, and with GPUSVM_DRIVER_ENV=0 sets nothing; the kernel cache folder comes from
 * GPUSVM_KERNEL_CACHE, else XDG_CACHE_HOME (absolute only), else HOME. The library itself reads no variable:
 * gs_param_init's tuning is the default whatever the environment holds. */
#include <stdlib.h>
#include <string.h>

#include "api/param.h"
#include "cli/env.h"
#include "testlib.h"

static const char *const k_vars[] = {
    "GPUSVM_SPLIT", "GPUSVM_COURIER", "GPUSVM_SELECT", "GPUSVM_BATCH_MB", "GPUSVM_DEVICE",
    "GPUSVM_PROFILE", "GPUSVM_KERNEL_DIR", "GS_PRED_LAYOUT", "GPUSVM_DRIVER_ENV", "GPUSVM_FAST_EXIT",
    "GPUSVM_EXIT_WAIT", "GPUSVM_CV_DEVICE", "GPUSVM_CERT_RESUME", "GPUSVM_GRID_LANES",
    "GPUSVM_PRECISE", "GPUSVM_SHRINK_MIN", "GPUSVM_CERT_WIDE", "GPUSVM_COL_ROWS",
    "GPUSVM_INFLATE_THREADS", "GPUSVM_KEEP_DATA",
};
#define N_VARS (sizeof k_vars / sizeof k_vars[0])

static int is(const char *name, const char *want)
{
    const char *v = getenv(name);
    if (!want) return v == NULL;
    return v && strcmp(v, want) == 0;
}

static int same_tuning(const gs_tuning *a, const gs_tuning *b)
{
    return a->split == b->split && a->courier == b->courier && a->select == b->select &&
           a->batch_mb == b->batch_mb && a->device == b->device && a->profile == b->profile &&
           a->kernel_dir == b->kernel_dir && a->pred_blocks == b->pred_blocks &&
           a->pred_tile == b->pred_tile && a->pred_hash == b->pred_hash && a->driver_env == b->driver_env &&
           a->fast_exit == b->fast_exit && a->exit_wait == b->exit_wait && a->cv_device == b->cv_device &&
           a->cert_resume == b->cert_resume && a->pred_codes == b->pred_codes && a->grid_lanes == b->grid_lanes &&
           a->precise == b->precise && a->shrink_min == b->shrink_min && a->cert_wide == b->cert_wide &&
           a->col_rows == b->col_rows && a->inflate_threads == b->inflate_threads && a->keep_data == b->keep_data;
}

static void check_defaults(void)
{
    gs_tuning d, t;
    gs_tuning_init(&d);
    CHECK(d.split == GS_TUNE_AUTO && d.courier == GS_TUNE_AUTO && d.select == GS_SELECT_AUTO &&
          d.batch_mb == 0 && !d.device && d.profile == GS_TUNE_AUTO && !d.kernel_dir &&
          d.pred_blocks == GS_PRED_BLOCKS_AUTO && d.pred_tile == GS_TUNE_AUTO && d.driver_env == 1 &&
          d.fast_exit == 0 && d.exit_wait == 0 && d.cv_device == GS_TUNE_AUTO && d.cert_resume == 0 &&
          d.pred_codes == 1 && d.grid_lanes == GS_TUNE_AUTO && d.precise == GS_TUNE_AUTO &&
          d.shrink_min == GS_SHRINK_MIN_DEFAULT && d.cert_wide == GS_TUNE_AUTO &&
          d.col_rows == GS_TUNE_AUTO && d.inflate_threads == 0 && d.keep_data == GS_TUNE_AUTO,
          "gs_tuning_init's defaults");
    for (size_t i = 0; i < N_VARS; i++) unsetenv(k_vars[i]);
    gs_tuning_from_env(&t);
    CHECK(same_tuning(&t, &d), "no variable set: the defaults");
    /* unknown values leave the defaults, as the variables always did */
    const char *odd[N_VARS] = {"2", "yes", "all", "-5", "", "2", "", "columns", "no", "2", "yes", "on", "-1", "0", "yes", "12x", "2", "yes", "many", "keep"};
    for (size_t i = 0; i < N_VARS; i++) setenv(k_vars[i], odd[i], 1);
    gs_tuning_from_env(&t);
    d.profile = 0; /* GPUSVM_PROFILE set to anything but 1: no profiling, even with --verbose */
    CHECK(same_tuning(&t, &d), "unknown values: the defaults (profile %d, driver_env %d)", t.profile,
          t.driver_env);
    /* the library's own defaults ignore the environment */
    gs_param p;
    gs_param_init(&p);
    gs_tuning_init(&d);
    CHECK(same_tuning(&p.tuning, &d), "gs_param_init reads no environment variable");
    gs_param_free(&p);
    for (size_t i = 0; i < N_VARS; i++) unsetenv(k_vars[i]);
}

static void check_values(void)
{
    gs_tuning t;
    setenv("GPUSVM_SPLIT", "0", 1);
    setenv("GPUSVM_COURIER", "1", 1);
    setenv("GPUSVM_SELECT", "one", 1);
    setenv("GPUSVM_BATCH_MB", "12", 1);
    setenv("GPUSVM_DEVICE", "pocl", 1);
    setenv("GPUSVM_PROFILE", "1", 1);
    setenv("GPUSVM_KERNEL_DIR", "kernels", 1);
    setenv("GS_PRED_LAYOUT", "rows", 1);
    setenv("GPUSVM_DRIVER_ENV", "0", 1);
    setenv("GPUSVM_FAST_EXIT", "1", 1);
    setenv("GPUSVM_EXIT_WAIT", "1", 1);
    setenv("GPUSVM_CV_DEVICE", "1", 1);
    setenv("GPUSVM_CERT_RESUME", "2", 1);
    setenv("GPUSVM_GRID_LANES", "3", 1);
    setenv("GPUSVM_PRECISE", "0", 1);
    setenv("GPUSVM_SHRINK_MIN", "5", 1);
    gs_tuning_from_env(&t);
    CHECK(t.shrink_min == 5, "GPUSVM_SHRINK_MIN=5");
    setenv("GPUSVM_SHRINK_MIN", "0", 1);
    gs_tuning_from_env(&t);
    CHECK(t.shrink_min == 0, "GPUSVM_SHRINK_MIN=0: never");
    CHECK(t.precise == 0, "GPUSVM_PRECISE=0");
    setenv("GPUSVM_PRECISE", "1", 1);
    gs_tuning_from_env(&t);
    CHECK(t.precise == 1, "GPUSVM_PRECISE=1");
    for (int v = 0; v <= 1; v++) {
        setenv("GPUSVM_CERT_WIDE", v ? "1" : "0", 1);
        gs_tuning_from_env(&t);
        CHECK(t.cert_wide == v, "GPUSVM_CERT_WIDE=%d", v);
        setenv("GPUSVM_COL_ROWS", v ? "1" : "0", 1);
        gs_tuning_from_env(&t);
        CHECK(t.col_rows == v, "GPUSVM_COL_ROWS=%d", v);
        setenv("GPUSVM_KEEP_DATA", v ? "1" : "0", 1);
        gs_tuning_from_env(&t);
        CHECK(t.keep_data == v, "GPUSVM_KEEP_DATA=%d", v);
    }
    setenv("GPUSVM_INFLATE_THREADS", "3", 1);
    gs_tuning_from_env(&t);
    CHECK(t.inflate_threads == 3, "GPUSVM_INFLATE_THREADS=3");
    setenv("GPUSVM_INFLATE_THREADS", "-1", 1);
    gs_tuning_from_env(&t);
    CHECK(t.inflate_threads == -1, "GPUSVM_INFLATE_THREADS=-1: zlib on one thread");
    setenv("GPUSVM_INFLATE_THREADS", "1000", 1);
    gs_tuning_from_env(&t);
    CHECK(t.inflate_threads == 64, "GPUSVM_INFLATE_THREADS=1000: 64 at most");
    CHECK(t.split == 0 && t.courier == 1 && t.select == GS_SELECT_ONE && t.batch_mb == 12 && t.cv_device == 1 &&
          t.cert_resume == 2 && t.grid_lanes == 3, "training knobs");
    CHECK(t.device && strcmp(t.device, "pocl") == 0 && t.profile == 1 && t.kernel_dir &&
          strcmp(t.kernel_dir, "kernels") == 0, "device knobs");
    CHECK(t.pred_blocks == GS_PRED_BLOCKS_ROWS && t.pred_tile == GS_TUNE_AUTO, "GS_PRED_LAYOUT=rows");
    CHECK(t.driver_env == 0 && t.fast_exit == 1 && t.exit_wait == 1, "process knobs");
    setenv("GPUSVM_SPLIT", "1", 1);
    setenv("GPUSVM_COURIER", "0", 1);
    setenv("GPUSVM_SELECT", "multi", 1);
    setenv("GPUSVM_PROFILE", "0", 1);
    setenv("GS_PRED_LAYOUT", "merge", 1);
    setenv("GPUSVM_CV_DEVICE", "0", 1);
    gs_tuning_from_env(&t);
    CHECK(t.split == 1 && t.courier == 0 && t.select == GS_SELECT_MULTI && t.profile == 0 && t.cv_device == 0,
          "the other values");
    CHECK(t.pred_blocks == GS_PRED_BLOCKS_AUTO && t.pred_tile == 0, "GS_PRED_LAYOUT=merge");
    setenv("GS_PRED_LAYOUT", "tile", 1);
    gs_tuning_from_env(&t);
    CHECK(t.pred_tile == 1, "GS_PRED_LAYOUT=tile");
    setenv("GS_PRED_LAYOUT", "dense", 1);
    gs_tuning_from_env(&t);
    CHECK(t.pred_blocks == GS_PRED_BLOCKS_DENSE, "GS_PRED_LAYOUT=dense");
    CHECK(t.pred_codes == 1, "16-bit distances by default");
    setenv("GS_PRED_LAYOUT", "args", 1);
    gs_tuning_from_env(&t);
    CHECK(t.pred_codes == 0, "GS_PRED_LAYOUT=args");
    CHECK(t.pred_hash == GS_TUNE_AUTO, "hash tables by default");
    setenv("GS_PRED_LAYOUT", "rows,nohash", 1);
    gs_tuning_from_env(&t);
    CHECK(t.pred_blocks == GS_PRED_BLOCKS_ROWS && t.pred_hash == 0 && t.pred_tile == GS_TUNE_AUTO,
          "GS_PRED_LAYOUT=rows,nohash");
    setenv("GS_PRED_LAYOUT", "hash", 1);
    gs_tuning_from_env(&t);
    CHECK(t.pred_hash == 1 && t.pred_blocks == GS_PRED_BLOCKS_AUTO, "GS_PRED_LAYOUT=hash");
    setenv("GS_PRED_LAYOUT", "rowsx,nohash2", 1);
    gs_tuning_from_env(&t);
    CHECK(t.pred_blocks == GS_PRED_BLOCKS_AUTO && t.pred_hash == GS_TUNE_AUTO, "GS_PRED_LAYOUT: whole words only");
    for (size_t i = 0; i < N_VARS; i++) unsetenv(k_vars[i]);
}

static int cache_is(const char *want)
{
    gs_tuning t;
    gs_tuning_from_env(&t);
    if (!want) return t.kernel_cache == NULL;
    return t.kernel_cache && strcmp(t.kernel_cache, want) == 0;
}

static void check_kernel_cache(void)
{
    const char *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");
    char *saved_home = home ? strdup(home) : NULL, *saved_xdg = xdg ? strdup(xdg) : NULL;
    gs_tuning d;
    gs_tuning_init(&d);
    CHECK(d.kernel_cache == NULL && d.kernel_cache_cpu == 0, "the library's default: no cache (it writes nothing unasked)");
    unsetenv("GPUSVM_KERNEL_CACHE");
    setenv("HOME", "/h", 1);
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    CHECK(cache_is("/x/cache/gpusvm"), "XDG_CACHE_HOME first");
    setenv("XDG_CACHE_HOME", "relative/cache", 1);
    CHECK(cache_is("/h/.cache/gpusvm"), "a relative XDG_CACHE_HOME is ignored");
    unsetenv("XDG_CACHE_HOME");
    CHECK(cache_is("/h/.cache/gpusvm"), "HOME");
    unsetenv("HOME");
    CHECK(cache_is(NULL), "neither: no cache");
    gs_tuning t;
    gs_tuning_from_env(&t);
    CHECK(t.kernel_cache_cpu == 0, "the default folder: not for CPU devices");
    setenv("GPUSVM_KERNEL_CACHE", "/somewhere/kc", 1);
    CHECK(cache_is("/somewhere/kc"), "GPUSVM_KERNEL_CACHE=DIR");
    gs_tuning_from_env(&t);
    CHECK(t.kernel_cache_cpu == 1, "a folder given: for CPU devices too");
    setenv("HOME", "/h", 1);
    setenv("GPUSVM_KERNEL_CACHE", "0", 1);
    CHECK(cache_is(NULL), "GPUSVM_KERNEL_CACHE=0: off");
    setenv("GPUSVM_KERNEL_CACHE", "1", 1);
    CHECK(cache_is("/h/.cache/gpusvm"), "GPUSVM_KERNEL_CACHE=1: the default folder");
    gs_tuning_from_env(&t);
    CHECK(t.kernel_cache_cpu == 0, "=1: not for CPU devices");
    setenv("GPUSVM_KERNEL_CACHE", "", 1);
    CHECK(cache_is("/h/.cache/gpusvm"), "GPUSVM_KERNEL_CACHE empty: the default folder");
    unsetenv("GPUSVM_KERNEL_CACHE");
    if (saved_home) setenv("HOME", saved_home, 1); else unsetenv("HOME");
    if (saved_xdg) setenv("XDG_CACHE_HOME", saved_xdg, 1); else unsetenv("XDG_CACHE_HOME");
    free(saved_home);
    free(saved_xdg);
}

static void check_driver_env(void)
{
    static const char *const vars[] = {"NV_OPENCL_DISABLE_UVM", "CUDA_DEVICE_MAX_CONNECTIONS"};
    gs_tuning t;
    /* unset: both set to 1 */
    unsetenv("GPUSVM_DRIVER_ENV");
    for (int i = 0; i < 2; i++) unsetenv(vars[i]);
    gs_tuning_from_env(&t);
    gs_cli_driver_env(&t);
    for (int i = 0; i < 2; i++)
        CHECK(is(vars[i], "1"), "%s unset -> 1, got %s", vars[i], getenv(vars[i]) ? getenv(vars[i]) : "(unset)");

    /* the user's values stay, an empty one too */
    setenv("NV_OPENCL_DISABLE_UVM", "0", 1);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "", 1);
    gs_cli_driver_env(&t);
    CHECK(is("NV_OPENCL_DISABLE_UVM", "0"), "user's 0 kept");
    CHECK(is("CUDA_DEVICE_MAX_CONNECTIONS", ""), "user's empty value kept");

    /* GPUSVM_DRIVER_ENV=0: nothing set; any other value: as unset */
    for (int i = 0; i < 2; i++) unsetenv(vars[i]);
    setenv("GPUSVM_DRIVER_ENV", "0", 1);
    gs_tuning_from_env(&t);
    gs_cli_driver_env(&t);
    for (int i = 0; i < 2; i++) CHECK(is(vars[i], NULL), "GPUSVM_DRIVER_ENV=0 leaves %s unset", vars[i]);
    setenv("GPUSVM_DRIVER_ENV", "1", 1);
    gs_tuning_from_env(&t);
    gs_cli_driver_env(&t);
    for (int i = 0; i < 2; i++) CHECK(is(vars[i], "1"), "GPUSVM_DRIVER_ENV=1 sets %s", vars[i]);
    unsetenv("GPUSVM_DRIVER_ENV");
}

/* gs_cli_which (gpusvm-grid's gnuplot): PATH's executable files, a path with '/' as it is, never a
 * directory. */
static void check_which(void)
{
    char *p = gs_cli_which("sh");
    CHECK(p && strlen(p) > 3 && strcmp(p + strlen(p) - 3, "/sh") == 0, "sh in PATH: %s", p ? p : "(none)");
    free(p);
    const char *old = getenv("PATH");
    char *keep = old ? strdup(old) : NULL;
    setenv("PATH", "/nonexistent-gpusvm:/bin", 1);
    p = gs_cli_which("sh");
    CHECK(p && strcmp(p, "/bin/sh") == 0, "PATH's order: %s", p ? p : "(none)");
    free(p);
    if (keep) setenv("PATH", keep, 1);
    free(keep);
    CHECK(!gs_cli_which("no-such-program-gpusvm"), "not found");
    CHECK(!gs_cli_which("/bin"), "a directory is not a program");
    p = gs_cli_which("/bin/sh");
    CHECK(p && strcmp(p, "/bin/sh") == 0, "a path as it is");
    free(p);
}

int main(void)
{
    check_defaults();
    check_values();
    check_kernel_cache();
    check_driver_env();
    check_which();
    TEST_END();
}
