/* train_api.c — svm.h's training side: svm_train / gpusvm_train on gs_svm_train,
 * svm_cross_validation on gs_cross_validation, the parameter check, the print hook, the device
 * choice and the small gpusvm_* extensions. */
#include "svm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "api/runtime.h"
#include "data/precomputed.h"
#include "train/cv.h"
#include "train/trainer.h"
#include "util/status.h"

int libsvm_version = LIBSVM_VERSION;

/* LIBSVM's callers do not check svm_train's result, so a failure is printed where a quiet print
 * hook cannot hide it. */
static void report(const char *fn)
{
    fprintf(stderr, "gpusvm: %s: %s\n", fn, gs_last_error());
}

const char *gpusvm_version(void) { return GPUSVM_VERSION; }

const char *gpusvm_last_error(void) { return gs_last_error(); }

void gpusvm_options_init(struct gpusvm_options *opt)
{
    gs_param p;
    gs_param_init(&p);
    opt->ws_size = p.ws_size;
    opt->ws_keep = p.ws_keep;
    opt->clusters = p.clusters_active;
    opt->cluster_size = p.cluster_size;
    opt->seed = p.seed;
}

const char *svm_check_parameter(const struct svm_problem *prob, const struct svm_parameter *param)
{
    if (!param) return "svm_parameter is NULL";
    gs_param p;
    gs_api_param_from(param, NULL, &p);
    return gs_api_check(prob, &p);
}

/* What a training needs, checked: gs_param from param and opt, and the rows as gs_problem (*gp
 * empty on error). LIBSVM trusts its caller to have checked; a wrong answer is worse than a
 * refusal. */
static gs_status prepare(const struct svm_problem *prob, const struct svm_parameter *param,
                         const struct gpusvm_options *opt, gs_param *p, gs_problem *gp)
{
    memset(gp, 0, sizeof *gp);
    if (!prob || !param) return GS_FAIL(GS_ERR_ARG, "the problem or the parameters are NULL");
    gs_api_param_from(param, opt, p);
    const char *msg = gs_api_check(prob, p);
    if (msg) return GS_FAIL(GS_ERR_ARG, "%s", msg);
    gs_status st = gs_api_problem_from(prob, gp);
    /* svm-train's checks of the serial numbers; LIBSVM's svm_train would read out of bounds */
    const char *bad_id = st == GS_OK && p->kernel_type == GS_KERNEL_PRECOMPUTED ? gs_precomputed_check(gp) : NULL;
    if (bad_id) {
        gs_problem_free(gp);
        st = GS_FAIL(GS_ERR_ARG, "%s", bad_id);
    }
    return st;
}

struct svm_model *gpusvm_train(const struct svm_problem *prob, const struct svm_parameter *param,
                               const struct gpusvm_options *opt)
{
    gs_param p;
    gs_problem gp = {0};
    gs_model gm = {0};
    struct svm_model *out = NULL;
    gs_clear_error();
    gs_status st = prepare(prob, param, opt, &p, &gp);
    if (st == GS_OK) {
        const gs_log log = gs_api_log();
        const gs_device_provider dev = {.wait = gs_api_device, .ctx = NULL, .all = gs_api_devices};
        gs_train_stats stats;
        gs_api_begin_training();
        st = gs_svm_train(&dev, &gp, &p, &log, &gm, &stats);
        gs_api_end_training();
    }
    if (st == GS_OK) st = gs_api_model_new(&gm, param, &out);
    if (st != GS_OK) report(opt ? "gpusvm_train" : "svm_train");
    gs_model_free(&gm);
    gs_problem_free(&gp);
    return out;
}

struct svm_model *svm_train(const struct svm_problem *prob, const struct svm_parameter *param)
{
    return gpusvm_train(prob, param, NULL);
}

void svm_cross_validation(const struct svm_problem *prob, const struct svm_parameter *param, int nr_fold,
                          double *target)
{
    gs_param p;
    gs_problem gp = {0};
    gs_clear_error();
    /* LIBSVM's contract has no error return: a failure leaves every target NaN, the one value no
     * caller can take for a prediction, and says why on stderr */
    if (prob && target)
        for (int i = 0; i < prob->l; i++) target[i] = NAN;
    gs_status st = target ? prepare(prob, param, NULL, &p, &gp) : GS_FAIL(GS_ERR_ARG, "target is NULL");
    if (st == GS_OK && nr_fold < 2) st = GS_FAIL(GS_ERR_ARG, "nr_fold is %d: cross validation needs 2 folds or more", nr_fold);
    if (st == GS_OK) {
        const gs_log log = gs_api_log();
        const gs_device_provider dev = {.wait = gs_api_device, .ctx = NULL, .all = gs_api_devices};
        gs_api_begin_training();
        st = gs_cross_validation(&dev, &gp, &p, nr_fold, &log, target);
        gs_api_end_training();
    }
    if (st != GS_OK) {
        report("svm_cross_validation");
        if (prob && target)
            for (int i = 0; i < prob->l; i++) target[i] = NAN;
    }
    gs_problem_free(&gp);
}

void svm_destroy_param(struct svm_parameter *param)
{
    free(param->weight_label);
    free(param->weight);
}

void svm_set_print_string_function(void (*print_func)(const char *)) { gs_api_set_print(print_func); }

int gpusvm_set_device(const char *spec, int memory_mb)
{
    gs_clear_error();
    return gs_api_choose_device(spec, memory_mb) == GS_OK ? 0 : -1;
}

void gpusvm_release_device(void) { gs_api_release_device(); }
