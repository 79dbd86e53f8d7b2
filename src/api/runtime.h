/* runtime.h — all of the library's process-wide state, which LIBSVM's API forces on it: the print
 * hook (svm_set_print_string_function), the OpenCL device svm_train opens on first use and keeps,
 * and the lock that runs one training at a time on it. Nothing else in gpusvm is global. */
#ifndef GS_API_RUNTIME_H
#define GS_API_RUNTIME_H

#include "device/devset.h"
#include "device/ocl.h"
#include "util/log.h"

/* Sets the print hook (NULL = stdout). Thread-safe. */
void gs_api_set_print(void (*print_func)(const char *));
/* A log that prints through the current hook (read once, now). */
gs_log gs_api_log(void);

/* Records the device choice for the next opening: spec as gs_ocl_open's (NULL = automatic), at
 * most memory_mb MB of it (0 = all).
 * @return GS_OK; GS_ERR_ARG when a device is already open or spec is over 255 bytes */
gs_status gs_api_choose_device(const char *spec, int memory_mb);
/* Closes the device (waiting for a training that uses it); fine when none is open. */
void gs_api_release_device(void);

/* Brackets a training: takes the training lock (one training at a time) until gs_api_end_training. */
void gs_api_begin_training(void);
void gs_api_end_training(void);
/* Between begin and end only: the device, opened now with the recorded choice when it is not open
 * yet (a failed opening is tried again by the next training). NULL with the error recorded when
 * there is none. Its signature is gs_device_provider.wait's (ctx unused). */
gs_ocl *gs_api_device(void *ctx);
/* Between begin and end, after gs_api_device: every device gpusvm_set_device's list opened (its
 * signature is gs_device_provider.all's). */
int gs_api_devices(void *ctx, gs_ocl **devs, int max);

#endif
