/* atomic_file.h — writing an output file so that it holds either its old content or the complete
 * new one, never a part: the text goes to a temporary file in the target's folder, renamed over
 * the target at the end. The one writer of gpusvm's output files (models, predictions). */
#ifndef GS_ATOMIC_FILE_H
#define GS_ATOMIC_FILE_H

#include <stdio.h>

#include "util/status.h"

typedef struct gs_atomic_file {
    FILE *f;       /* write here between gs_atomic_open and gs_atomic_commit */
    char *target;  /* the file replaced at commit (symlinks resolved); owned */
    char *tmp;     /* the temporary beside it; NULL when the target is written directly; owned */
} gs_atomic_file;

/* Opens a new version of path for writing. Start from a zeroed gs_atomic_file.
 *  - A symlink is followed (through every link, a dangling one too): the link stays and its final
 *    target is replaced, as fopen(path, "w") would write through it.
 *  - An existing regular file keeps its mode (and, where permitted, its owner and group); one this
 *    process may not write is refused, as fopen would refuse it. A new file gets 0666 & ~umask.
 *  - The temporary is "<target>.tmpXXXXXX" in the target's folder (a rename cannot cross file
 *    systems), so that folder must let us create files.
 *  - A path that exists and is not a regular file (/dev/stdout, a FIFO, a device) is opened and
 *    written directly: it cannot be replaced by a rename.
 * On failure af stays zeroed and nothing is created.
 * @return GS_OK or GS_ERR_IO ("cannot write <path>: <reason>"), GS_ERR_NOMEM */
gs_status gs_atomic_open(gs_atomic_file *af, const char *path);

/* Flushes and closes af->f and renames the temporary over the target. On any failure (a write
 * error that stdio kept, a full disk at the flush, the rename) the temporary is removed and the
 * target is as it was. af is released and zeroed in every case.
 * @return GS_OK or GS_ERR_IO ("cannot write <target>: <reason>") */
gs_status gs_atomic_commit(gs_atomic_file *af);

/* Abandons the new version: closes af->f and removes the temporary (the target stays as it was;
 * a directly written target keeps what was written). af may be zeroed or already committed. */
void gs_atomic_discard(gs_atomic_file *af);

#endif
