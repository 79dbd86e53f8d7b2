/* fastexit.h — the opt-in fast exit (--fast-exit, GPUSVM_FAST_EXIT=1): ending a process without
 * waiting for the OpenCL driver's teardown. Off by default: a plain exit releases the device in
 * the process, so the device is free when the command returns (batch systems, exclusive-process
 * GPUs); scripts/bench-exit.sh measures what the opt-in saves. */
#ifndef GS_FASTEXIT_H
#define GS_FASTEXIT_H

#include "util/tuning.h"

/* Whether the CLI should end through gs_exit_fast: asked for (--fast-exit sets t->fast_exit) and
 * not vetoed by GPUSVM_EXIT_WAIT=1 (t->exit_wait). */
int gs_exit_fast_wanted(const gs_tuning *t);

/* Flushes stdout/stderr and ends the process with code, without releasing anything. The driver's
 * release of the context (~0.1 s on an H100) then runs in a forked child that holds the device
 * files until this process is gone, so the caller (a shell, a script) sees the exit as soon as the
 * results are written; the device stays held by that child a moment longer. The child's standard
 * streams point at /dev/null, so pipes reading ours see their end with this process. Call only
 * once every output file is complete (committed). */
_Noreturn void gs_exit_fast(int code);

#endif
