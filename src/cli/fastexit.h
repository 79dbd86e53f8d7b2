/* fastexit.h — ending a GPU process without waiting for the driver's teardown. */
#ifndef GS_FASTEXIT_H
#define GS_FASTEXIT_H

/* Flushes stdout/stderr and ends the process with code. The GPU driver's release of the context
 * (~0.1 s on an H100) then runs in a child that holds the device files until this process is gone,
 * so the caller (a shell, a script) sees the exit as soon as the results are written. The child's
 * standard streams point at /dev/null, so pipes reading ours see their end with this process.
 * Env GPUSVM_EXIT_WAIT=1 keeps the plain exit (teardown in this process). Call only once every
 * output file is complete. */
_Noreturn void gs_exit_fast(int code);

#endif
