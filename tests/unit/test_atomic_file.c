/* test_atomic_file.c — util/atomic_file.c, the one writer of output files: a new file gets
 * 0666 & ~umask, a replaced one keeps its mode; symlinks (relative, absolute, chained, dangling)
 * stay links and their final target gets the text; a loop, a missing folder or a directory fail
 * with nothing created; a discarded or failed write leaves the old file intact and no temporary;
 * a device, a FIFO and a descriptor link (/proc/self/fd/N, as /dev/stdout) are written directly.
 * (Permissions as another user: tests/cli/test_output_file.sh.) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic_file.h"
#include "testlib.h"

static char g_tmp[256]; /* scratch directory, removed at the end */

static const char *at(const char *name) /* g_tmp/name in a rotating buffer */
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_tmp, name);
    return buf[k];
}

static int count_entries(void)
{
    int n = 0;
    DIR *d = opendir(g_tmp);
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

static void empty_dir(void)
{
    DIR *d = opendir(g_tmp);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        const char *p = at(e->d_name);
        if (unlink(p) != 0) rmdir(p);
    }
    closedir(d);
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* the file's whole text in a static buffer ("" when unreadable) */
static const char *slurp(const char *path)
{
    static char buf[4096];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return buf;
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static gs_status write_text(const char *path, const char *text)
{
    gs_atomic_file af = {0};
    gs_status st = gs_atomic_open(&af, path);
    if (st != GS_OK) return st;
    fputs(text, af.f);
    return gs_atomic_commit(&af);
}

static mode_t mode_of(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? sb.st_mode & 07777 : (mode_t)-1;
}

static void check_modes(void)
{
    const mode_t old = umask(027);
    CHECK(write_text(at("new"), "one\n") == GS_OK, "%s", gs_last_error());
    CHECK(mode_of(at("new")) == 0640, "new file under umask 027: mode %o", (unsigned)mode_of(at("new")));
    umask(old);
    CHECK(chmod(at("new"), 0604) == 0, "chmod");
    CHECK(write_text(at("new"), "two\n") == GS_OK, "%s", gs_last_error());
    CHECK(mode_of(at("new")) == 0604 && strcmp(slurp(at("new")), "two\n") == 0, "replaced: mode %o, text %s",
          (unsigned)mode_of(at("new")), slurp(at("new")));
    CHECK(count_entries() == 1, "%d entries after two writes", count_entries());
    empty_dir();
}

static void check_links(void)
{
    /* relative, absolute and a chain of links: every link stays, the last target gets the text */
    put_file(at("target"), "old\n");
    CHECK(chmod(at("target"), 0640) == 0, "chmod");
    CHECK(symlink("target", at("rel")) == 0 && symlink(at("target"), at("abs")) == 0 &&
          symlink("rel", at("chain")) == 0, "symlink: %s", strerror(errno));
    const char *links[3] = {"rel", "abs", "chain"};
    for (int i = 0; i < 3; i++) {
        char text[32];
        snprintf(text, sizeof text, "via %s\n", links[i]);
        CHECK(write_text(at(links[i]), text) == GS_OK, "%s: %s", links[i], gs_last_error());
        struct stat sb;
        CHECK(lstat(at(links[i]), &sb) == 0 && S_ISLNK(sb.st_mode), "%s is no longer a link", links[i]);
        CHECK(strcmp(slurp(at("target")), text) == 0, "target after %s: %s", links[i], slurp(at("target")));
        CHECK(mode_of(at("target")) == 0640, "target's mode after %s: %o", links[i], (unsigned)mode_of(at("target")));
    }
    CHECK(count_entries() == 4, "%d entries", count_entries());
    /* a dangling link: its target is created (fopen "w" does the same), the link stays */
    CHECK(symlink("made", at("dangling")) == 0, "symlink");
    CHECK(write_text(at("dangling"), "made\n") == GS_OK, "%s", gs_last_error());
    CHECK(strcmp(slurp(at("made")), "made\n") == 0, "dangling link's target: %s", slurp(at("made")));
    struct stat sb;
    CHECK(lstat(at("dangling"), &sb) == 0 && S_ISLNK(sb.st_mode), "dangling link replaced");
    /* a loop fails and creates nothing */
    CHECK(symlink("loop2", at("loop1")) == 0 && symlink("loop1", at("loop2")) == 0, "symlink");
    const int before = count_entries();
    CHECK(write_text(at("loop1"), "x\n") == GS_ERR_IO && strstr(gs_last_error(), "loop1"), "loop: %s",
          gs_last_error());
    CHECK(count_entries() == before, "a loop left %d entries, not %d", count_entries(), before);
    empty_dir();
}

static void check_failures(void)
{
    /* a missing folder, a directory, "" */
    CHECK(write_text(at("no_dir/x"), "x\n") == GS_ERR_IO && strstr(gs_last_error(), "no_dir/x"), "%s",
          gs_last_error());
    CHECK(write_text(g_tmp, "x\n") == GS_ERR_IO, "a directory: %s", gs_last_error());
    CHECK(write_text("", "x\n") == GS_ERR_IO, "an empty path: %s", gs_last_error());
    CHECK(count_entries() == 0, "failed opens left %d entries", count_entries());
    /* discarded: the old text stays, no temporary */
    put_file(at("keep"), "old\n");
    gs_atomic_file af = {0};
    CHECK(gs_atomic_open(&af, at("keep")) == GS_OK && af.f && af.tmp && strstr(af.tmp, ".tmp"), "%s",
          gs_last_error());
    if (af.f) fputs("new\n", af.f);
    CHECK(count_entries() == 2, "the temporary is beside the target: %d entries", count_entries());
    gs_atomic_discard(&af);
    gs_atomic_discard(&af); /* a zeroed one is fine */
    CHECK(strcmp(slurp(at("keep")), "old\n") == 0 && count_entries() == 1, "after discard: %s, %d entries",
          slurp(at("keep")), count_entries());
    /* the rename fails (a directory took the name meanwhile): the temporary goes, the directory stays */
    CHECK(gs_atomic_open(&af, at("late")) == GS_OK, "%s", gs_last_error());
    if (af.f) fputs("x\n", af.f);
    CHECK(mkdir(at("late"), 0700) == 0, "mkdir");
    CHECK(gs_atomic_commit(&af) == GS_ERR_IO && strstr(gs_last_error(), "late"), "%s", gs_last_error());
    CHECK(af.f == NULL && af.tmp == NULL && af.target == NULL, "commit leaves af zeroed");
    CHECK(count_entries() == 2, "a failed rename left %d entries", count_entries());
    /* a device that fills up: the error shows at the flush */
    struct stat sb;
    if (stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode)) {
        CHECK(gs_atomic_open(&af, "/dev/full") == GS_OK && af.tmp == NULL, "/dev/full: %s", gs_last_error());
        if (af.f) fputs("x\n", af.f);
        CHECK(gs_atomic_commit(&af) == GS_ERR_IO, "/dev/full commit: %s", gs_last_error());
    } else {
        SKIP("no /dev/full");
    }
    CHECK(write_text("/dev/null", "x\n") == GS_OK, "/dev/null: %s", gs_last_error());
    empty_dir();
}

/* A FIFO and a descriptor link are written in place, not replaced. */
static void check_direct(void)
{
    CHECK(mkfifo(at("fifo"), 0600) == 0, "mkfifo: %s", strerror(errno));
    const int rd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
    CHECK(rd >= 0, "open fifo: %s", strerror(errno));
    if (rd >= 0) {
        CHECK(write_text(at("fifo"), "through the fifo\n") == GS_OK, "%s", gs_last_error());
        char buf[64] = "";
        const ssize_t n = read(rd, buf, sizeof buf - 1);
        CHECK(n == 17 && memcmp(buf, "through the fifo\n", 17) == 0, "fifo read %zd bytes", n);
        close(rd);
    }
    struct stat sb;
    CHECK(stat(at("fifo"), &sb) == 0 && S_ISFIFO(sb.st_mode), "the FIFO was replaced");
    /* /proc/self/fd/N names an open file (the shell's "> out" for /dev/stdout): same inode after */
    put_file(at("shared"), "old\n");
    const int fd = open(at("shared"), O_RDWR);
    struct stat before, after;
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    if (fd >= 0 && stat(link, &before) == 0) {
        CHECK(write_text(link, "new\n") == GS_OK, "%s: %s", link, gs_last_error());
        CHECK(stat(at("shared"), &after) == 0 && after.st_ino == before.st_ino, "the open file was replaced");
        CHECK(strcmp(slurp(at("shared")), "new\n") == 0, "text: %s", slurp(at("shared")));
    } else {
        SKIP("no /proc/self/fd");
    }
    if (fd >= 0) close(fd);
    empty_dir();
}

int main(void)
{
    snprintf(g_tmp, sizeof g_tmp, "%s/gs_atomic_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(g_tmp)) {
        printf("FAIL mkdtemp: %s\n", strerror(errno));
        TEST_END();
    }
    check_modes();
    check_links();
    check_failures();
    check_direct();
    empty_dir();
    rmdir(g_tmp);
    TEST_END();
}
