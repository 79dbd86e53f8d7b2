/* env.h — the CLIs' one reading of the environment: gpusvm's variables into a gs_tuning (which the
 * library then reads instead of the environment), and NVIDIA's start-up variables set before any
 * OpenCL call. Only the mains call these, first thing, before any thread starts. */
#ifndef GS_CLI_ENV_H
#define GS_CLI_ENV_H

#include "util/tuning.h"

/* Fills t from the environment over gs_tuning_init's defaults, each field from the variable
 * tuning.h names (GPUSVM_SPLIT, GPUSVM_COURIER, GPUSVM_SELECT, GPUSVM_BATCH_MB, GPUSVM_DEVICE,
 * GPUSVM_PROFILE, GPUSVM_KERNEL_DIR, GPUSVM_KERNEL_CACHE with XDG_CACHE_HOME and HOME,
 * GS_PRED_LAYOUT, GPUSVM_DRIVER_ENV, GPUSVM_FAST_EXIT, GPUSVM_EXIT_WAIT). A value the variable does not know ("2", "yes") leaves the default, as before.
 * The strings in t point into the environment (or, for the default kernel cache folder, into a
 * static buffer that the next call overwrites): do not change those variables afterwards. */
void gs_tuning_from_env(gs_tuning *t);

/* NVIDIA's OpenCL driver reads two variables when it loads; unless t->driver_env is 0
 * (GPUSVM_DRIVER_ENV=0) this sets NV_OPENCL_DISABLE_UVM=1 (gpusvm uses no shared virtual memory;
 * setting up unified memory is ~0.17 s of an idle H100 driver's platform list) and
 * CUDA_DEVICE_MAX_CONNECTIONS=1 (hardware queues per context: each costs ~8 ms of context
 * creation, and gpusvm's queues gain nothing from more). A variable the user has set, even to "",
 * is left as it is. Other drivers ignore both. Call before any OpenCL call and any thread (setenv). */
void gs_cli_driver_env(const gs_tuning *t);

/* When argv is a build helper's command line (device/ocl.h GS_OCL_HELPER_FLAG, which
 * gs_ocl_build_parts starts): the tuning from the environment, the driver's variables, then the
 * helper's build. The mains call it first (before MPI and anything else).
 * @return -1 when argv is not a helper's; else the exit status: 0 built, 1 not */
int gs_cli_build_helper(int argc, char **argv);

/* The path of program `name` as the shell would find it through PATH (a name with a '/' is taken
 * as it is), when it is an executable file; NULL otherwise. malloc'd (free it). */
char *gs_cli_which(const char *name);

#endif
