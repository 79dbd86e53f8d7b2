/* warm.c — see warm.h.
 *
 * Why (H100, NVIDIA's OpenCL, persistence mode on; bench-data/run102-108.sh): listing the
 * platforms takes ~0.21 s when no process has been a client of the driver for 1.5 s, 0.12-0.14 s
 * within 1 s of the last one's end, 0.035-0.07 s while one is alive; a process started while the
 * previous gpusvm's context is being torn down took 0.21-0.23 s there. A helper that has only
 * listed the platforms and GPU devices (no context, no GPU memory) keeps the fast case: a9a's
 * whole-process training back to back went from 0.41-0.51 s to 0.26-0.29 s, 0.5 s apart from
 * 0.31-0.41 s to 0.22-0.30 s; a first run after an idle second is unchanged (0.42-0.50 s either
 * way on that host). Listing the platforms alone did not keep the driver warm across a teardown.
 * Started once the device is chosen, while the starter waits for its context, not at exit (a
 * train + predict pair took 0.62-0.67 s against 0.79-0.83 s) nor after the context (its start
 * then overlapped the training: a9a's median 0.0442 s against 0.0409 s without a helper and
 * 0.0421 s started before the context, run110).
 * Off by default since gs_ocl_driver_env (ocl.h) turns NVIDIA's unified memory off: most of that
 * idle start-up was the driver setting up unified memory, and without it an idle driver lists its
 * platforms in ~0.04 s. With those settings the helper measured no gain (bench-data/run120.sh,
 * medians of 5, a9a / ijcnn1 / w8a: 3 s apart 0.221 / 0.196 / 0.162 s with it against 0.202 /
 * 0.228 / 0.192 without; back to back 0.194 / 0.228 / 0.176 against 0.169 / 0.162 / 0.134). It
 * still helps where unified memory stays on (NV_OPENCL_DISABLE_UVM=0). */
#include "device/warm.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define HELPER_NAME "gpusvm-warm"
/* the helper's own: "<seconds>:<pid of the process it follows>:<platform name>" */
#define HOLD_ENV "GPUSVM_WARM_HOLD"
#define MAX_SECONDS 60.0
#define DEFAULT_SECONDS 0.0 /* off unless GPUSVM_WARM asks */

static double linger_seconds(void)
{
    const char *e = getenv("GPUSVM_WARM");
    if (!e || !*e) return DEFAULT_SECONDS;
    char *end;
    const double v = strtod(e, &end);
    if (*end || !(v >= 0)) return 0; /* not a number of seconds: no helper */
    return v > MAX_SECONDS ? MAX_SECONDS : v;
}

void gs_warm_spawn(const char *platform)
{
    const double secs = linger_seconds();
    if (!(secs > 0)) return;
    size_t n = 0;
    while (environ && environ[n]) n++;
    char **envp = malloc((n + 2) * sizeof *envp);
    char hold[256];
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    int fa_ok = 0, at_ok = 0;
    if (!envp) goto cleanup;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], HOLD_ENV "=", sizeof HOLD_ENV) != 0) envp[k++] = environ[i];
    snprintf(hold, sizeof hold, HOLD_ENV "=%.3f:%ld:%s", secs, (long)getpid(), platform ? platform : "");
    envp[k++] = hold;
    envp[k] = NULL;
    if (posix_spawn_file_actions_init(&fa) != 0) goto cleanup;
    fa_ok = 1;
    if (posix_spawnattr_init(&at) != 0) goto cleanup;
    at_ok = 1;
    /* its own process group (the terminal's job-control signals are not for it), no blocked
     * signals inherited from this thread, standard streams on /dev/null (pipes reading ours end
     * with this process) */
    sigset_t none;
    sigemptyset(&none);
    if (posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDWR, 0) != 0 ||
        posix_spawn_file_actions_adddup2(&fa, 0, 1) != 0 || posix_spawn_file_actions_adddup2(&fa, 0, 2) != 0 ||
        posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK) != 0 ||
        posix_spawnattr_setpgroup(&at, 0) != 0 || posix_spawnattr_setsigmask(&at, &none) != 0)
        goto cleanup;
    char *argv[] = {HELPER_NAME, NULL};
    pid_t pid;
    (void)posix_spawn(&pid, "/proc/self/exe", &fa, &at, argv, envp);
cleanup:
    if (at_ok) posix_spawnattr_destroy(&at);
    if (fa_ok) posix_spawn_file_actions_destroy(&fa);
    free(envp);
}

gs_status gs_warm_open_device(gs_ocl *o, const char *spec)
{
    gs_status st = gs_ocl_choose(o, spec);
    if (st != GS_OK) return st;
    if (o->device_type & CL_DEVICE_TYPE_GPU) gs_warm_spawn(o->platform_name);
    return gs_ocl_connect(o);
}

/* Descriptors the helper inherited (the driver's device files among them, where not close-on-exec)
 * would keep the parent's context alive until the helper ends: closed first. */
static void close_inherited(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        for (int fd = 3; fd < 1024; fd++) close(fd);
        return;
    }
    int fds[256], nfd = 0, more = 1;
    while (more) { /* collect, then close, so the listing is not read while it changes */
        nfd = 0;
        more = 0;
        const int self = dirfd(d);
        rewinddir(d);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            const int fd = atoi(e->d_name);
            if (fd < 3 || fd == self || e->d_name[0] < '0' || e->d_name[0] > '9') continue;
            if (nfd == (int)(sizeof fds / sizeof fds[0])) { more = 1; break; }
            fds[nfd++] = fd;
        }
        for (int i = 0; i < nfd; i++) close(fds[i]);
    }
    closedir(d);
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int gs_warm_run_if_helper(int argc, char **argv, int *rc)
{
    const char *e = getenv(HOLD_ENV);
    if (argc != 1 || !argv[0] || strcmp(argv[0], HELPER_NAME) != 0 || !e) return 0;
    *rc = 0;
    double secs = 0;
    long parent = 0;
    int at = 0;
    if (sscanf(e, "%lf:%ld:%n", &secs, &parent, &at) != 2 || at == 0 || !(secs >= 0) || secs > MAX_SECONDS)
        return 1;
    const char *want = e + at;
    close_inherited();
    if (nice(10) == -1) { /* best effort: it only waits */
    }
    /* its starter's platform's GPU devices only: another platform's (a CPU runtime's thread pool)
     * would take CPU time from the starter's training */
    cl_platform_id ps[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, ps, &np) != CL_SUCCESS) return 1;
    if (np > 16) np = 16;
    for (cl_uint i = 0; i < np; i++) {
        char name[256] = "";
        if (clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL) != CL_SUCCESS ||
            strcmp(name, want) != 0)
            continue;
        cl_device_id dev[8];
        cl_uint nd = 0;
        (void)clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 8, dev, &nd);
    }
    /* stay while the process that started it runs, then secs more */
    while (getppid() == (pid_t)parent) sleep_s(0.02);
    sleep_s(secs);
    return 1;
}
