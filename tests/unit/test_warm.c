/* test_warm.c — warm.c: gs_warm_spawn starts no helper when GPUSVM_WARM is unset (the default),
 * empty, 0 or not a number of seconds; otherwise it starts this binary again as "gpusvm-warm",
 * whose standard streams are /dev/null (a pipe reading the starter's output ends with the
 * starter), which closes the
 * descriptors it inherited, outlives the starter by GPUSVM_WARM seconds and exits 0. Only a
 * process started that way runs as the helper. (Linux: /proc and a child subreaper.) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"
#include "device/warm.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void nap(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* a process whose parent is `parent` and whose command line is "gpusvm-warm", or 0 */
static pid_t find_helper(pid_t parent)
{
    DIR *d = opendir("/proc");
    pid_t found = 0;
    if (!d) return 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        const size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        const char *rp = strrchr(buf, ')'); /* "pid (comm) state ppid ..." */
        char state;
        long ppid;
        if (!rp || sscanf(rp + 1, " %c %ld", &state, &ppid) != 2 || ppid != (long)parent) continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        f = fopen(path, "r");
        if (!f) continue;
        const size_t m = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        if (m == sizeof "gpusvm-warm" && memcmp(buf, "gpusvm-warm", m) == 0) found = (pid_t)atol(e->d_name);
    }
    closedir(d);
    return found;
}

/* where pid's descriptor fd points, into buf ("" when it has none) */
static void fd_target(pid_t pid, int fd, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd/%d", (long)pid, fd);
    const ssize_t n = readlink(path, buf, cap - 1);
    buf[n > 0 ? n : 0] = 0;
}

static int has_fd_to(pid_t pid, const char *target)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
    DIR *d = opendir(path);
    int found = 0;
    if (!d) return 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        fd_target(pid, atoi(e->d_name), buf, sizeof buf);
        found = strcmp(buf, target) == 0;
    }
    closedir(d);
    return found;
}

static void test_disabled(void)
{
    static const char *const off[] = {NULL, "", "0", "abc", "-1", "1x", "nan"};
    for (unsigned i = 0; i < sizeof off / sizeof off[0]; i++) {
        if (off[i]) setenv("GPUSVM_WARM", off[i], 1);
        else unsetenv("GPUSVM_WARM");
        gs_warm_spawn("no such platform");
        nap(0.05);
        errno = 0;
        const pid_t w = waitpid(-1, NULL, WNOHANG);
        CHECK(w == -1 && errno == ECHILD, "GPUSVM_WARM=%s started a process (waitpid %ld)", off[i] ? off[i] : "(unset)",
              (long)w);
        if (w == 0) /* reap it, whatever it is */
            while (waitpid(-1, NULL, 0) > 0) {
            }
    }
    unsetenv("GPUSVM_WARM");
}

static void test_not_helper(void)
{
    char name[] = "gpusvm-warm", other[] = "gpusvm-train";
    char *a1[] = {name, NULL}, *a2[] = {other, NULL};
    int rc = 7;
    unsetenv("GPUSVM_WARM_HOLD");
    CHECK(gs_warm_run_if_helper(1, a1, &rc) == 0 && rc == 7, "the helper's name without its variable");
    setenv("GPUSVM_WARM_HOLD", "0.01:1:x", 1);
    CHECK(gs_warm_run_if_helper(1, a2, &rc) == 0 && rc == 7, "the variable under another name");
    CHECK(gs_warm_run_if_helper(2, a1, &rc) == 0 && rc == 7, "the variable with arguments");
    unsetenv("GPUSVM_WARM_HOLD");
}

static void test_helper(void)
{
    const double linger = 0.6, life = 1.0; /* the helper closes what it inherited while the starter runs */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        SKIP("no child subreaper here: the helper's end is not observable");
        return;
    }
    char marker[] = "/tmp/gpusvm-test-warm-XXXXXX";
    const int mfd = mkstemp(marker); /* inherited by the starter and, unless closed, the helper */
    int p[2];
    if (mfd < 0 || pipe(p) != 0) {
        CHECK(0, "mkstemp/pipe");
        return;
    }
    const pid_t c = fork();
    if (c == 0) { /* the starter: its stdout is the pipe */
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        setenv("GPUSVM_WARM", "0.6", 1);
        gs_warm_spawn("no such platform");
        if (write(1, "x", 1) != 1) _exit(3);
        nap(life);
        _exit(0);
    }
    close(p[1]);
    const double t0 = now();
    pid_t h = 0;
    while (!(h = find_helper(c)) && now() - t0 < 5) nap(0.005);
    CHECK(h > 0, "no gpusvm-warm child of the starter");
    if (h > 0) {
        char buf[4096];
        for (int fd = 0; fd < 3; fd++) {
            fd_target(h, fd, buf, sizeof buf);
            CHECK(strcmp(buf, "/dev/null") == 0, "helper fd %d -> '%s'", fd, buf);
        }
        const double t1 = now();
        while (has_fd_to(h, marker) && now() - t1 < 0.8) nap(0.005);
        CHECK(!has_fd_to(h, marker), "the helper kept an inherited descriptor");
    }
    /* the pipe ends with the starter, not with the helper */
    char b[16];
    ssize_t got = 0, r;
    while ((r = read(p[0], b, sizeof b)) > 0) got += r;
    const double t_eof = now();
    int cst = -1;
    CHECK(waitpid(c, &cst, 0) == c && WIFEXITED(cst) && WEXITSTATUS(cst) == 0 && got == 1, "the starter");
    const double t_gone = now();
    CHECK(t_eof - t0 < life + 2.0, "the pipe ended %.3f s after the start", t_eof - t0);
    if (h > 0) {
        int hst = -1;
        pid_t w = 0;
        CHECK(waitpid(h, &hst, WNOHANG) == 0, "the helper ended with its starter");
        while ((w = waitpid(h, &hst, WNOHANG)) == 0 && now() - t_gone < 30) nap(0.005);
        const double t_end = now();
        CHECK(w == h && WIFEXITED(hst) && WEXITSTATUS(hst) == 0, "helper status %d", hst);
        CHECK(t_end - t_gone >= linger - 0.05, "the helper stayed %.3f s after its starter", t_end - t_gone);
        CHECK(t_end - t_gone < linger + 20, "the helper stayed %.3f s", t_end - t_gone);
        if (w != h) kill(h, SIGKILL);
    }
    close(p[0]);
    close(mfd);
    unlink(marker);
}

int main(int argc, char **argv)
{
    int rc;
    if (gs_warm_run_if_helper(argc, argv, &rc)) return rc;
    test_not_helper();
    test_disabled();
    test_helper();
    TEST_END();
}
