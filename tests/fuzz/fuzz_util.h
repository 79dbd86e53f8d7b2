/* fuzz_util.h — what the libFuzzer harnesses share: the readers take a path, so each input is
 * written to one file in a private temporary directory, made on first use and removed at exit.
 * The directory is under $GS_FUZZ_TMPDIR, else /dev/shm where it is writable (a disk-backed /tmp
 * made every input wait on the disk: 1,380 against 5,380 inputs a second for fuzz_data), else
 * $TMPDIR, else /tmp. */
#ifndef GS_FUZZ_UTIL_H
#define GS_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct gs_fuzz_dir {
    char dir[64];
    char file[96];
    char extra[96];
} gs_fuzz_dir;

/* One per process: libFuzzer runs the inputs one after another in a single thread. The harness is
 * a test program, not library code, so the rule against global state does not apply. */
static gs_fuzz_dir g_fuzz_dir;

static void gs_fuzz_cleanup(void)
{
    unlink(g_fuzz_dir.file);
    unlink(g_fuzz_dir.extra);
    rmdir(g_fuzz_dir.dir);
}

/* The private directory's second file name (e.g. for a written-back copy). */
static inline const char *gs_fuzz_extra_path(void) { return g_fuzz_dir.extra; }

/* Writes the input to the private file. Aborts when the disk refuses: that is no finding, but a
 * silently short file would make every later input meaningless. @return the file's path */
static inline const char *gs_fuzz_write(const uint8_t *data, size_t size)
{
    if (!g_fuzz_dir.dir[0]) {
        const char *tmp = getenv("GS_FUZZ_TMPDIR");
        if (!tmp || !*tmp) tmp = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        snprintf(g_fuzz_dir.dir, sizeof g_fuzz_dir.dir, "%s/gsfuzzXXXXXX", tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
        if (!mkdtemp(g_fuzz_dir.dir)) {
            perror("mkdtemp");
            abort();
        }
        snprintf(g_fuzz_dir.file, sizeof g_fuzz_dir.file, "%s/input", g_fuzz_dir.dir);
        snprintf(g_fuzz_dir.extra, sizeof g_fuzz_dir.extra, "%s/extra", g_fuzz_dir.dir);
        atexit(gs_fuzz_cleanup);
    }
    FILE *f = fopen(g_fuzz_dir.file, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(g_fuzz_dir.file);
        abort();
    }
    return g_fuzz_dir.file;
}

#endif
