/* check_param.c — svm_check_parameter on parameters LIBSVM refuses (one case a line, "name: message"),
 * and on valid ones of every type ("name: (null)" where the library trains them). tests/cli/test_api.sh
 * builds it against gpusvm's and Debian's svm.h and compares the lines. Built against gpusvm (where
 * GPUSVM_VERSION is defined) it also checks svm_train's refusal and svm_cross_validation's NaN on a
 * refusal. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svm.h"

#ifdef GPUSVM_VERSION
static void quiet(const char *s) { (void)s; }
#endif

static void defaults(struct svm_parameter *p)
{
    memset(p, 0, sizeof *p);
    p->svm_type = C_SVC;
    p->kernel_type = RBF;
    p->degree = 3;
    p->gamma = 0.5;
    p->cache_size = 100;
    p->eps = 1e-3;
    p->C = 1;
    p->nu = 0.5;
    p->p = 0.1;
    p->shrinking = 1;
}

static void show(const char *name, const struct svm_problem *prob, const struct svm_parameter *p)
{
    const char *msg = svm_check_parameter(prob, p);
    printf("%s: %s\n", name, msg ? msg : "(null)");
}

int main(void)
{
    /* 6 rows: 5 of class 1, 1 of class 2 (nu 0.5 is infeasible for nu-SVC: 0.5 * 6 / 2 > 1) */
    struct svm_node rows[6][2];
    struct svm_node *x[6];
    double y[6] = {1, 1, 1, 1, 1, 2};
    for (int i = 0; i < 6; i++) {
        rows[i][0].index = 1;
        rows[i][0].value = i;
        rows[i][1].index = -1;
        x[i] = rows[i];
    }
    struct svm_problem prob = {6, y, x};
    struct svm_parameter p;
#define CASE(name, change) do { defaults(&p); change; show(name, &prob, &p); } while (0)
    CASE("svm_type_7", p.svm_type = 7);
    CASE("kernel_type_9", p.kernel_type = 9);
    CASE("gamma_neg", p.gamma = -1);
    CASE("degree_neg", (p.kernel_type = POLY, p.degree = -1));
    CASE("cache_zero", p.cache_size = 0);
    CASE("eps_zero", p.eps = 0);
    CASE("eps_and_c_zero", (p.eps = 0, p.C = 0));
    CASE("c_zero", p.C = 0);
    CASE("nu_svc_c_zero_ok", (p.svm_type = NU_SVC, p.C = 0, p.nu = 0.1)); /* C is not nu-SVC's */
    CASE("nu_zero", (p.svm_type = NU_SVC, p.nu = 0));
    CASE("nu_big_one_class", (p.svm_type = ONE_CLASS, p.nu = 1.5));
    CASE("nu_neg_nu_svr", (p.svm_type = NU_SVR, p.nu = -1));
    CASE("p_neg", (p.svm_type = EPSILON_SVR, p.p = -1));
    CASE("shrinking_2", p.shrinking = 2);
    CASE("probability_2", p.probability = 2);
    CASE("one_class_probability", (p.svm_type = ONE_CLASS, p.probability = 1));
    CASE("nu_infeasible", p.svm_type = NU_SVC);
    CASE("c_svc_ok", (void)0);
    CASE("c_svc_weights_ok", (p.nr_weight = 0, p.weight_label = NULL));
    /* valid for LIBSVM; gpusvm says "... is not supported yet" until it trains them */
    CASE("nu_svc_ok", (p.svm_type = NU_SVC, p.nu = 0.1));
    CASE("one_class_ok", p.svm_type = ONE_CLASS);
    CASE("eps_svr_ok", p.svm_type = EPSILON_SVR);
    CASE("nu_svr_ok", p.svm_type = NU_SVR);
    CASE("precomputed_ok", p.kernel_type = PRECOMPUTED);
    CASE("probability_ok", p.probability = 1);
#ifdef GPUSVM_VERSION
    /* gpusvm's svm_train refuses what the check refuses, NULL and a message on stderr */
    defaults(&p);
    p.C = 0;
    printf("train_c_zero: %s\n", svm_train(&prob, &p) == NULL ? "NULL" : "a model");
    /* svm_cross_validation: a refusal leaves every target NaN; 3 folds fill them all */
    double target[6] = {0};
    defaults(&p);
    svm_cross_validation(&prob, &p, 1, target);
    int nan = 0;
    for (int i = 0; i < 6; i++) nan += isnan(target[i]) != 0;
    printf("cross_validation_1fold_nan: %d\n", nan);
    svm_set_print_string_function(quiet);
    svm_cross_validation(&prob, &p, 3, target);
    nan = 0;
    for (int i = 0; i < 6; i++) nan += isnan(target[i]) != 0;
    printf("cross_validation_3folds_nan: %d\n", nan);
    printf("version: %d %s\n", libsvm_version, gpusvm_version());
#endif
    return 0;
}
