/* spawn.c — see spawn.h. */
#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

pid_t gs_spawn(const char *path, char *const argv[])
{
    posix_spawn_file_actions_t fa;
    pid_t pid = -1;
    if (posix_spawn_file_actions_init(&fa) != 0) return -1;
    const int ok = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) == 0 &&
                   posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) == 0 &&
                   posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0) == 0;
    if (!ok || posix_spawn(&pid, path, &fa, NULL, argv, environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

int gs_spawn_wait(pid_t pid)
{
    int status = 0;
    pid_t r;
    do {
        r = waitpid(pid, &status, 0);
    } while (r < 0 && errno == EINTR);
    return r == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
