/* spawn.h — helper processes: a program started with its arguments, its output and input on
 * /dev/null, and waited for. The library starts one only where a CLI asked for it (gs_tuning's
 * build_exe: the kernel cache's build helpers, device/ocl.h gs_ocl_build_parts); nothing else of
 * the process (signals, environment, descriptors) is touched. */
#ifndef GS_SPAWN_H
#define GS_SPAWN_H

#include <sys/types.h>

/* Starts path with argv (argv[0] first, NULL-terminated) and this process's environment.
 * @return the child's pid, or -1 when it could not be started */
pid_t gs_spawn(const char *path, char *const argv[]);

/* Waits for child pid to end.
 * @return 0 when it exited with status 0, else -1 (another status, a signal, or not our child) */
int gs_spawn_wait(pid_t pid);

#endif
