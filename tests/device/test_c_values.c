/* test_c_values.c — gs_svm_train_c_values (the grid's batches): the models of several C values
 * trained in one device batch are, bit for bit, the models gs_svm_train gives one C at a time
 * (heart_scale, two classes; iris, three, when ../shared is there), and
 * gs_cross_validation_c_values predicts as gs_cross_validation does. Skips without a device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "train/cv.h"
#include "train/trainer.h"

static gs_ocl g_ocl;
static gs_ocl *wait_dev(void *ctx) { (void)ctx; return &g_ocl; }

static int same_model(const gs_model *a, const gs_model *b)
{
    const int k = a->nr_class, npair = k * (k - 1) / 2;
    if (a->l != b->l || k != b->nr_class || memcmp(a->nSV, b->nSV, sizeof(int) * (size_t)k) != 0) return 0;
    if (memcmp(a->rho, b->rho, sizeof(double) * (size_t)npair) != 0) return 0;
    if (memcmp(a->sv_indices, b->sv_indices, sizeof(int32_t) * (size_t)a->l) != 0) return 0;
    return memcmp(a->sv_coef, b->sv_coef, sizeof(double) * (size_t)a->l * (size_t)(k - 1)) == 0;
}

static void check_file(const char *path, double gamma)
{
    gs_problem prob = {0};
    if (gs_data_read(path, &prob) != GS_OK) {
        SKIP("%s: %s", path, gs_last_error());
        return;
    }
    const gs_device_provider dev = {.wait = wait_dev};
    const gs_log quiet = {.quiet = 1};
    gs_param p;
    gs_param_init(&p);
    p.gamma = gamma;
    const double C[3] = {0.25, 4, 64};
    gs_model many[3], one;
    gs_status st = gs_svm_train_c_values(&dev, &prob, &p, C, 3, &quiet, many, NULL);
    CHECK(st == GS_OK, "%s: batch: %s", path, gs_last_error());
    for (int c = 0; c < 3 && st == GS_OK; c++) {
        p.C = C[c];
        st = gs_svm_train(&dev, &prob, &p, &quiet, &one, NULL);
        CHECK(st == GS_OK && same_model(&one, &many[c]), "%s: C = %g as gs_svm_train's (%d vs %d SVs)", path, C[c],
              one.l, many[c].l);
        gs_model_free(&one);
    }
    for (int c = 0; c < 3; c++) gs_model_free(&many[c]);
    /* the cross-validation of two C values at once against one at a time */
    double *t2 = malloc(sizeof *t2 * 2 * (size_t)prob.l), *t1 = malloc(sizeof *t1 * (size_t)prob.l);
    st = gs_cross_validation_c_values(&dev, &prob, &p, 5, C + 1, 2, &quiet, t2);
    CHECK(st == GS_OK, "cv batch: %s", gs_last_error());
    for (int c = 0; c < 2 && st == GS_OK; c++) {
        p.C = C[1 + c];
        st = gs_cross_validation(&dev, &prob, &p, 5, &quiet, t1);
        CHECK(st == GS_OK && memcmp(t1, t2 + (size_t)c * (size_t)prob.l, sizeof *t1 * (size_t)prob.l) == 0,
              "%s: cv predictions at C = %g", path, C[1 + c]);
    }
    free(t1);
    free(t2);
    gs_param_free(&p);
    gs_problem_free(&prob);
}

int main(void)
{
    gs_status st = gs_ocl_open(&g_ocl, NULL, NULL);
    if (st == GS_ERR_NODEVICE || st == GS_ERR_UNSUPPORTED) {
        SKIP("no usable OpenCL device: %s", gs_last_error());
        TEST_END();
    }
    CHECK(st == GS_OK, "gs_ocl_open: %s", gs_last_error());
    if (st != GS_OK) TEST_END();
    check_file("data/heart_scale", 1.0 / 13);
    FILE *f = fopen("../shared/reference/golden/iris/iris_train.libsvm", "r");
    if (f) {
        fclose(f);
        check_file("../shared/reference/golden/iris/iris_train.libsvm", 0.25);
    } else {
        SKIP("../shared/reference/golden absent: iris not run");
    }
    gs_ocl_close(&g_ocl);
    TEST_END();
}
