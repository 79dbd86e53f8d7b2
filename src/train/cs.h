/* cs.h — Crammer–Singer multiclass C-SVC (gpusvm-train --multiclass cs): one joint problem over all
 * classes instead of LIBSVM's one-vs-one pairs, written as a "cs_svc" model (model.h). It solves
 * the dual of the GTSVM paper's eq. (4), after Crammer and Singer (JMLR 2, 2001):
 *   max  sum_i a_i^(y_i) - 1/2 sum_m a^(m)' K a^(m)
 *   s.t. a_i^(m) <= C [m = y_i],  sum_m a_i^(m) = 0      (one a per example per class, no bias)
 * and predicts argmax_m f_m(x), f_m(x) = sum_i a_i^(m) K(x_i, x). Working-set rounds on the device
 * (kernels/cs.cl: responses, per-example KKT violation, top-q selection, kernel rows), the chosen
 * examples' subproblem on the CPU (exact per-example steps, block coordinate ascent). */
#ifndef GS_CS_H
#define GS_CS_H

#include "io/data.h"
#include "util/log.h"
#include "io/model.h"
#include "api/param.h"
#include "util/status.h"
#include "train/trainer.h"

/* The working-set size when ws_size is 0 (automatic): the largest the kernels take, since larger
 * sets converge in far fewer rounds (src/train/cs.c). */
#define GS_CS_WS_SIZE 1024

/* Trains a Crammer–Singer model per param (C-SVC, gamma already defaulted; ws_size (<= 1024, 0 =
 * GS_CS_WS_SIZE) is the number of working-set slots, ws_keep is not used). Classes are LIBSVM's:
 * (int)label in first-appearance order, a -1/+1 problem starting with -1 stored as "1 -1". SVs (examples with any non-zero
 * coefficient) are grouped by class, file order within a class; rho is 0 for every class.
 * Prints "optimization finished, #iter = N", "obj = X", "nSV = N, nBSV = N", "Total nSV = N" through
 * log. stats (may be NULL) receives the phase times. The device is waited for only when there are
 * at least two classes.
 * @return GS_OK with *model filled; GS_ERR_FORMAT for a non-finite feature value; GS_ERR_ARG for
 *         parameters it cannot run (gs_param_check's cs rules); device errors as they come */
gs_status gs_cs_train(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                      const gs_log *log, gs_model *model, gs_train_stats *stats);

#endif
