/* fastexit.c — see fastexit.h. */
#include "cli/fastexit.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int gs_exit_fast_wanted(const gs_tuning *t) { return t->fast_exit && !t->exit_wait; }

_Noreturn void gs_exit_fast(int code)
{
    fflush(stdout);
    fflush(stderr);
    int fds[2];
    if (pipe(fds) != 0) _exit(code);
    const pid_t pid = fork();
    if (pid == 0) {
        /* the child: release the streams, wait for the parent's end of the pipe to close (the
         * parent has exited), then exit and let the driver tear down here */
        close(fds[1]);
        const int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 1);
            dup2(nul, 2);
            if (nul > 2) close(nul);
        }
        char c;
        while (read(fds[0], &c, 1) > 0) {
        }
        _exit(0);
    }
    _exit(code); /* no child (fork failed): the plain exit, still without the release */
}
