/* atomic_file.c — see atomic_file.h. */
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINKS 40       /* symlinks followed before ELOOP, as the kernel does */
#define TMP_TRIES 100      /* names tried before giving up on EEXIST */
#define TMP_SUFFIX ".tmpXXXXXX"

/* Follows the symlinks from path to the name they finally lead to, which need not exist (fopen
 * "w" creates a dangling link's target). Relative link text is relative to the link's folder.
 * *via_proc: a hop went through /proc (/dev/stdout -> /proc/self/fd/1): such links name an open
 * descriptor, which a rename would detach from the file (see gs_atomic_open).
 * @return GS_OK with *out malloc'd, GS_ERR_IO (a loop, an unreadable link), GS_ERR_NOMEM */
static gs_status resolve(const char *path, char **out, int *via_proc)
{
    gs_status st = GS_OK;
    char *cur = strdup(path), *link = malloc(PATH_MAX + 1);
    *out = NULL;
    *via_proc = strncmp(path, "/proc/", 6) == 0;
    if (!cur || !link) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory opening %s", path); goto cleanup; }
    for (int hops = 0;; hops++) {
        struct stat sb;
        if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode)) break; /* the end: a file, or nothing */
        if (hops == MAX_LINKS) { st = GS_FAIL(GS_ERR_IO, "cannot write %s: %s", path, strerror(ELOOP)); goto cleanup; }
        const ssize_t n = readlink(cur, link, PATH_MAX + 1);
        if (n < 0 || n > PATH_MAX) {
            st = GS_FAIL(GS_ERR_IO, "cannot write %s: %s", path, strerror(n < 0 ? errno : ENAMETOOLONG));
            goto cleanup;
        }
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        const size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dir + (size_t)n + 1);
        if (!next) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory opening %s", path); goto cleanup; }
        memcpy(next, cur, dir);
        memcpy(next + dir, link, (size_t)n + 1);
        free(cur);
        cur = next;
        if (strncmp(cur, "/proc/", 6) == 0) *via_proc = 1;
    }
    *out = cur;
    cur = NULL;
cleanup:
    free(link);
    free(cur);
    return st;
}

/* Creates "<target>.tmpXXXXXX" exclusively with mode (the umask applies, as for fopen) and returns
 * its descriptor. The six characters come from the pid, the clock and the attempt. */
static gs_status make_temp(const char *target, mode_t mode, char **tmp_out, int *fd_out)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const size_t n = strlen(target);
    char *tmp = malloc(n + sizeof TMP_SUFFIX);
    *tmp_out = NULL;
    *fd_out = -1;
    if (!tmp) return GS_FAIL(GS_ERR_NOMEM, "out of memory opening %s", target);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_nsec ^ (uint64_t)(uintptr_t)tmp;
    memcpy(tmp, target, n);
    memcpy(tmp + n, TMP_SUFFIX, sizeof TMP_SUFFIX);
    for (int attempt = 0; attempt < TMP_TRIES; attempt++) {
        x += 0x9E3779B97F4A7C15ull; /* splitmix64 */
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        for (int i = 0; i < 6; i++, z /= 62) tmp[n + 4 + i] = chars[z % 62];
        const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd >= 0) {
            *tmp_out = tmp;
            *fd_out = fd;
            return GS_OK;
        }
        if (errno != EEXIST) break;
    }
    const int e = errno;
    free(tmp);
    return GS_FAIL(GS_ERR_IO, "cannot write %s: cannot create a temporary file beside it: %s", target,
                   strerror(e));
}

/* The temporary for an existing regular file: refused where fopen("w") would be (no write
 * permission), else made with the file's mode and, where permitted, owner. */
static gs_status temp_for_existing(const char *target, const struct stat *sb, char **tmp, int *fd)
{
    if (faccessat(AT_FDCWD, target, W_OK, AT_EACCESS) != 0)
        return GS_FAIL(GS_ERR_IO, "cannot write %s: %s", target, strerror(errno));
    gs_status st = make_temp(target, 0600, tmp, fd);
    if (st != GS_OK) return st;
    if (fchown(*fd, sb->st_uid, sb->st_gid) != 0) { /* best effort: only root may give files away */
    }
    if (fchmod(*fd, sb->st_mode & 07777) != 0) { /* best effort: some file systems have no modes */
    }
    return GS_OK;
}

gs_status gs_atomic_open(gs_atomic_file *af, const char *path)
{
    gs_status st = GS_OK;
    int fd = -1, via_proc = 0;
    struct stat sb;
    memset(af, 0, sizeof *af);
    if (!*path) return GS_FAIL(GS_ERR_IO, "cannot write '': %s", strerror(ENOENT));
    if ((st = resolve(path, &af->target, &via_proc)) != GS_OK) goto cleanup;
    if (stat(path, &sb) == 0 && (!S_ISREG(sb.st_mode) || via_proc)) {
        /* A device or FIFO cannot be replaced by a rename, and a descriptor link (/dev/stdout)
         * names an open file the caller shares (its shell's "> out" would keep the old one): write
         * into it as fopen("w") would. */
        af->f = fopen(path, "w");
        if (!af->f) st = GS_FAIL(GS_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        goto cleanup;
    }
    if (stat(path, &sb) == 0)
        st = temp_for_existing(af->target, &sb, &af->tmp, &fd);
    else if (errno == ENOENT)
        st = make_temp(af->target, 0666, &af->tmp, &fd);
    else
        st = GS_FAIL(GS_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    if (st != GS_OK) goto cleanup;
    af->f = fdopen(fd, "w");
    if (!af->f) { st = GS_FAIL(GS_ERR_IO, "cannot write %s: %s", path, strerror(errno)); goto cleanup; }
    fd = -1;
cleanup:
    if (fd >= 0) close(fd);
    if (st != GS_OK) gs_atomic_discard(af);
    return st;
}

gs_status gs_atomic_commit(gs_atomic_file *af)
{
    gs_status st = GS_OK;
    if (!af->f) {
        gs_atomic_discard(af);
        return GS_FAIL(GS_ERR_INTERNAL, "gs_atomic_commit without an open file");
    }
    /* stdio keeps a failed write's error (not its errno): EIO stands for it */
    int err = ferror(af->f) ? EIO : 0;
    if (fflush(af->f) != 0 && !err) err = errno;
    if (fclose(af->f) != 0 && !err) err = errno;
    af->f = NULL;
    if (!err && af->tmp) {
        if (rename(af->tmp, af->target) != 0) err = errno;
        else { free(af->tmp); af->tmp = NULL; } /* it is the target now */
    }
    if (err) st = GS_FAIL(GS_ERR_IO, "cannot write %s: %s", af->target, strerror(err));
    gs_atomic_discard(af);
    return st;
}

void gs_atomic_discard(gs_atomic_file *af)
{
    if (!af) return;
    if (af->f) fclose(af->f);
    if (af->tmp) unlink(af->tmp);
    free(af->tmp);
    free(af->target);
    memset(af, 0, sizeof *af);
}
