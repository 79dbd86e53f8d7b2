/* tuning.c — gs_tuning's defaults. */
#include "util/tuning.h"

#include <string.h>

void gs_tuning_init(gs_tuning *t)
{
    memset(t, 0, sizeof *t);
    t->split = GS_TUNE_AUTO;
    t->rowsplit = GS_TUNE_AUTO;
    t->cv_device = GS_TUNE_AUTO;
    t->courier = GS_TUNE_AUTO;
    t->select = GS_SELECT_AUTO;
    t->batch_mb = 0;
    t->row_cache = GS_TUNE_AUTO;
    t->shrink_min = GS_SHRINK_MIN_DEFAULT;
    t->precise = GS_TUNE_AUTO;
    t->cert_wide = GS_TUNE_AUTO;
    t->col_rows = GS_TUNE_AUTO;
    t->keep_data = GS_TUNE_AUTO;
    t->rb_full = GS_TUNE_AUTO;
    t->grid_lanes = GS_TUNE_AUTO;
    t->grid_nice = GS_TUNE_AUTO;
    t->device = NULL;
    t->profile = GS_TUNE_AUTO;
    t->kernel_dir = NULL;
    t->kernel_cache = NULL;
    t->kernel_cache_cpu = 0;
    t->build_procs = GS_TUNE_AUTO;
    t->build_exe = NULL;
    t->pred_blocks = GS_PRED_BLOCKS_AUTO;
    t->pred_tile = GS_TUNE_AUTO;
    t->pred_hash = GS_TUNE_AUTO;
    t->pred_codes = 1;
    t->driver_env = 1;
    t->fast_exit = 0;
    t->exit_wait = 0;
}
