/* test_param.c — gs_param defaults, -wi weights, gs_param_check's messages and their order
 * (LIBSVM 3.24's svm_check_parameter, compat §2.3, then gpusvm's long options and what
 * --multiclass cs refuses), gs_label_int, and the checked number readers the CLIs fill gs_param
 * with. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "cli/cli.h"
#include "io/data.h"
#include "api/param.h"
#include "testlib.h"

static int same(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

#define EXPECT_MSG(p, prob, want)                                                           \
    do {                                                                                    \
        const char *got_ = gs_param_check((p), (prob));                                     \
        CHECK(same(got_, (want)), "got [%s] want [%s]", got_ ? got_ : "(null)",              \
              (want) ? (const char *)(want) : "(null)");                                    \
    } while (0)

static gs_param fresh(void)
{
    gs_param p;
    gs_param_init(&p);
    return p;
}

static void test_defaults(void)
{
    gs_param p = fresh();
    CHECK(p.svm_type == GS_C_SVC, "svm_type %d", p.svm_type);
    CHECK(p.kernel_type == GS_KERNEL_RBF, "kernel_type %d", p.kernel_type);
    CHECK(p.degree == 3, "degree %d", p.degree);
    CHECK(p.gamma == 0, "gamma %g", p.gamma);
    CHECK(p.coef0 == 0, "coef0 %g", p.coef0);
    CHECK(p.cache_size == 100, "cache_size %g", p.cache_size);
    CHECK(p.eps == 1e-3, "eps %g", p.eps);
    CHECK(p.C == 1, "C %g", p.C);
    CHECK(p.nu == 0.5, "nu %g", p.nu);
    CHECK(p.p == 0.1, "p %g", p.p);
    CHECK(p.shrinking == 1, "shrinking %d", p.shrinking);
    CHECK(p.probability == 0, "probability %d", p.probability);
    CHECK(p.nr_weight == 0 && !p.weight && !p.weight_label, "weights %d", p.nr_weight);
    CHECK(p.cross_validation == 0, "cross_validation %d", p.cross_validation);
    CHECK(p.ws_size == 0, "ws_size %d (automatic)", p.ws_size);
    CHECK(p.ws_keep == -1, "ws_keep %d (half)", p.ws_keep);
    CHECK(p.clusters_active == 64, "clusters_active %d", p.clusters_active);
    CHECK(p.cluster_size == 256, "cluster_size %d", p.cluster_size);
    CHECK(p.seed == 1, "seed %llu", (unsigned long long)p.seed);
    CHECK(p.multiclass == GS_MC_OVO, "multiclass %d", p.multiclass);
    EXPECT_MSG(&p, NULL, NULL);
    gs_param_free(&p);
    gs_param_free(NULL);
}

static void test_weights(void)
{
    gs_param p = fresh();
    CHECK(gs_param_add_weight(&p, 1, 2.0) == 0, "add");
    CHECK(gs_param_add_weight(&p, -1, 0.5) == 0, "add");
    CHECK(gs_param_add_weight(&p, 1, 3.0) == 0, "add");
    CHECK(p.nr_weight == 2, "nr_weight %d", p.nr_weight);
    CHECK(p.weight_label[0] == 1 && p.weight[0] == 6.0, "label 1: %d %g (repeats multiply)",
          p.weight_label[0], p.weight[0]);
    CHECK(p.weight_label[1] == -1 && p.weight[1] == 0.5, "label -1: %d %g", p.weight_label[1],
          p.weight[1]);
    gs_param_free(&p);
    CHECK(p.nr_weight == 0 && !p.weight && !p.weight_label, "free resets");
}

/* Each check alone, including the svm types and kernels it does not apply to. */
static void test_each_message(void)
{
    gs_param p;
    p = fresh(); p.svm_type = 5; EXPECT_MSG(&p, NULL, "unknown svm type");
    p = fresh(); p.svm_type = -1; EXPECT_MSG(&p, NULL, "unknown svm type");
    p = fresh(); p.kernel_type = 5; EXPECT_MSG(&p, NULL, "unknown kernel type");
    p = fresh(); p.kernel_type = GS_KERNEL_PRECOMPUTED; EXPECT_MSG(&p, NULL, NULL);
    for (int k = GS_KERNEL_POLY; k <= GS_KERNEL_SIGMOID; k++) {
        p = fresh(); p.kernel_type = k; p.gamma = -1; EXPECT_MSG(&p, NULL, "gamma < 0");
    }
    p = fresh(); p.kernel_type = GS_KERNEL_LINEAR; p.gamma = -1; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.kernel_type = GS_KERNEL_PRECOMPUTED; p.gamma = -1; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.kernel_type = GS_KERNEL_POLY; p.degree = -1;
    EXPECT_MSG(&p, NULL, "degree of polynomial kernel < 0");
    p = fresh(); p.degree = -1; EXPECT_MSG(&p, NULL, NULL); /* RBF ignores degree */
    p = fresh(); p.kernel_type = GS_KERNEL_POLY; p.degree = 1000000; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.kernel_type = GS_KERNEL_POLY; p.degree = 1000001; /* the model readers refuse it */
    EXPECT_MSG(&p, NULL, "degree of polynomial kernel > 1000000 (its kernel values are 0 or infinite)");
    p = fresh(); p.cache_size = 0; EXPECT_MSG(&p, NULL, "cache_size <= 0");
    p = fresh(); p.eps = 0; EXPECT_MSG(&p, NULL, "eps <= 0");
    p = fresh(); p.eps = -1e-3; EXPECT_MSG(&p, NULL, "eps <= 0");
    const int c_types[] = {GS_C_SVC, GS_EPSILON_SVR, GS_NU_SVR};
    for (int i = 0; i < 3; i++) {
        p = fresh(); p.svm_type = c_types[i]; p.C = 0; EXPECT_MSG(&p, NULL, "C <= 0");
    }
    p = fresh(); p.svm_type = GS_NU_SVC; p.C = 0; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.svm_type = GS_ONE_CLASS; p.C = -1; EXPECT_MSG(&p, NULL, NULL);
    const int nu_types[] = {GS_NU_SVC, GS_ONE_CLASS, GS_NU_SVR};
    for (int i = 0; i < 3; i++) {
        p = fresh(); p.svm_type = nu_types[i]; p.nu = 0; EXPECT_MSG(&p, NULL, "nu <= 0 or nu > 1");
        p = fresh(); p.svm_type = nu_types[i]; p.nu = 1.5; EXPECT_MSG(&p, NULL, "nu <= 0 or nu > 1");
        p = fresh(); p.svm_type = nu_types[i]; p.nu = 1; EXPECT_MSG(&p, NULL, NULL);
    }
    p = fresh(); p.nu = 0; EXPECT_MSG(&p, NULL, NULL); /* C-SVC ignores nu */
    p = fresh(); p.svm_type = GS_EPSILON_SVR; p.p = -1; EXPECT_MSG(&p, NULL, "p < 0");
    p = fresh(); p.svm_type = GS_EPSILON_SVR; p.p = 0; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.svm_type = GS_NU_SVR; p.p = -1; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.shrinking = 2; EXPECT_MSG(&p, NULL, "shrinking != 0 and shrinking != 1");
    p = fresh(); p.shrinking = 0; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.probability = 2; EXPECT_MSG(&p, NULL, "probability != 0 and probability != 1");
    p = fresh(); p.probability = 1; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.svm_type = GS_ONE_CLASS; p.probability = 1;
    EXPECT_MSG(&p, NULL, "one-class SVM probability output not supported yet");
    p.one_class_prob = 1; /* --one-class-prob: LIBSVM 3.30+'s one-class probability model */
    EXPECT_MSG(&p, NULL, NULL);
}

static void test_nu_feasibility(void)
{
    gs_problem prob;
    memset(&prob, 0, sizeof prob);
    double y[4] = {1, 1, 1, -1}; /* sizes 3 and 1: infeasible when nu*4/2 > 1 */
    prob.y = y;
    prob.l = 4;
    gs_param p = fresh();
    p.svm_type = GS_NU_SVC;
    p.nu = 0.5; EXPECT_MSG(&p, &prob, NULL); /* exactly at the bound */
    p.nu = 0.6; EXPECT_MSG(&p, &prob, "specified nu is infeasible");
    EXPECT_MSG(&p, NULL, NULL);              /* no problem: the test is skipped */
    p.svm_type = GS_C_SVC; EXPECT_MSG(&p, &prob, NULL);
    p.svm_type = GS_NU_SVR; EXPECT_MSG(&p, &prob, NULL);
    /* Labels are grouped by (int) truncation: 1.9 and 1.1 are one class, so no pair exists. */
    double y2[4] = {1.9, 1.9, 1.9, 1.1};
    prob.y = y2;
    p.svm_type = GS_NU_SVC; p.nu = 1; EXPECT_MSG(&p, &prob, NULL);
    double y3[4] = {1.9, 1.9, 1.9, 2.1}; /* classes 1 (3 rows) and 2 (1 row) */
    prob.y = y3;
    p.nu = 0.6; EXPECT_MSG(&p, &prob, "specified nu is infeasible");
    /* Three classes: every pair is tested, not just the first. {0:2, 5:2, 7:1}: (0,5) is fine,
     * the pairs with 7 fail when nu*3/2 > 1. */
    double y4[5] = {0, 0, 5, 5, 7};
    prob.y = y4;
    prob.l = 5;
    p.nu = 0.7; EXPECT_MSG(&p, &prob, "specified nu is infeasible");
    p.nu = 0.66; EXPECT_MSG(&p, &prob, NULL);
    /* Many classes (growth of the class table). */
    double y5[100];
    for (int i = 0; i < 100; i++) y5[i] = i / 2; /* 50 classes of 2 */
    prob.y = y5;
    prob.l = 100;
    p.nu = 1; EXPECT_MSG(&p, &prob, NULL); /* nu = 1 holds exactly when all sizes are equal */
    y5[99] = 1000; /* a 51st class, seen last: classes 49 and 1000 now have 1 row */
    EXPECT_MSG(&p, &prob, "specified nu is infeasible");
    /* Empty problem: nothing to test. */
    prob.l = 0;
    EXPECT_MSG(&p, &prob, NULL);
}

static void test_long_options(void)
{
    gs_param p;
    p = fresh(); p.ws_size = 0; EXPECT_MSG(&p, NULL, NULL); /* automatic */
    p = fresh(); p.ws_size = 1; EXPECT_MSG(&p, NULL, "--ws-size must be an even number from 2 to 1024");
    p = fresh(); p.ws_keep = 126; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.ws_keep = 127; EXPECT_MSG(&p, NULL, "--ws-keep must be between 0 and ws-size - 2");
    p = fresh(); p.ws_size = 3; p.ws_keep = 0; EXPECT_MSG(&p, NULL, "--ws-size must be an even number from 2 to 1024");
    p = fresh(); p.ws_size = 2; p.ws_keep = 0; EXPECT_MSG(&p, NULL, NULL);
    /* the upper end: the solver's kernels take 1024 rows at most (it refused 1026 only later) */
    p = fresh(); p.ws_size = 1024; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.ws_size = 1026; EXPECT_MSG(&p, NULL, "--ws-size must be an even number from 2 to 1024");
    p = fresh(); p.ws_size = -2; EXPECT_MSG(&p, NULL, "--ws-size must be an even number from 2 to 1024");
    p = fresh(); p.ws_size = 16; p.ws_keep = 14; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.ws_size = 16; p.ws_keep = 15;
    EXPECT_MSG(&p, NULL, "--ws-keep must be between 0 and ws-size - 2");
    p = fresh(); p.ws_keep = -1; EXPECT_MSG(&p, NULL, NULL); /* half */
    p = fresh(); p.ws_keep = -2; EXPECT_MSG(&p, NULL, "--ws-keep must be between 0 and ws-size - 2");
    p = fresh(); p.clusters_active = 0; EXPECT_MSG(&p, NULL, "--clusters must be >= 1");
    p = fresh(); p.clusters_active = 1; EXPECT_MSG(&p, NULL, NULL);
    const int bad_sizes[] = {0, 16, 48, 100, 2048, -256};
    for (int i = 0; i < 6; i++) {
        p = fresh(); p.cluster_size = bad_sizes[i];
        EXPECT_MSG(&p, NULL, "--cluster-size must be a power of two from 32 to 1024");
    }
    const int good_sizes[] = {32, 64, 128, 512, 1024};
    for (int i = 0; i < 5; i++) {
        p = fresh(); p.cluster_size = good_sizes[i]; EXPECT_MSG(&p, NULL, NULL);
    }
}

/* --multiclass: its values, what cs refuses, and that cs ignores --ws-keep. */
static void test_multiclass(void)
{
    gs_param p;
    p = fresh(); p.multiclass = GS_MC_CS; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.multiclass = 2; EXPECT_MSG(&p, NULL, "--multiclass must be ovo or cs");
    p = fresh(); p.multiclass = -1; EXPECT_MSG(&p, NULL, "--multiclass must be ovo or cs");
    p = fresh(); p.multiclass = GS_MC_CS; p.svm_type = GS_NU_SVC;
    EXPECT_MSG(&p, NULL, "--multiclass cs needs -s 0 (C-SVC)");
    p = fresh(); p.multiclass = GS_MC_CS; p.svm_type = GS_EPSILON_SVR;
    EXPECT_MSG(&p, NULL, "--multiclass cs needs -s 0 (C-SVC)");
    p = fresh(); p.multiclass = GS_MC_CS; p.kernel_type = GS_KERNEL_PRECOMPUTED;
    EXPECT_MSG(&p, NULL, "--multiclass cs does not support -t 4 (precomputed kernel)");
    p = fresh(); p.multiclass = GS_MC_CS; p.probability = 1;
    EXPECT_MSG(&p, NULL, "--multiclass cs does not support -b 1 (probability estimates)");
    p = fresh(); p.multiclass = GS_MC_CS; p.cross_validation = 1; p.nr_fold = 5;
    EXPECT_MSG(&p, NULL, "--multiclass cs does not support -v (cross validation)");
    p = fresh(); p.multiclass = GS_MC_CS; p.ws_size = 2048;
    EXPECT_MSG(&p, NULL, "--multiclass cs needs --ws-size <= 1024");
    p = fresh(); p.multiclass = GS_MC_CS;
    CHECK(gs_param_add_weight(&p, 2, 0.5) == GS_OK, "add weight");
    EXPECT_MSG(&p, NULL, "--multiclass cs does not support -wi (class weights)");
    gs_param_free(&p);
    /* cs has no kept rows: --ws-keep is not checked against --ws-size */
    p = fresh(); p.multiclass = GS_MC_CS; p.ws_size = 64; p.ws_keep = 100; EXPECT_MSG(&p, NULL, NULL);
    p = fresh(); p.ws_size = 64; p.ws_keep = 100; EXPECT_MSG(&p, NULL, "--ws-keep must be between 0 and ws-size - 2");
    /* LIBSVM's checks and the other long options come first */
    p = fresh(); p.multiclass = GS_MC_CS; p.C = 0; p.probability = 1; EXPECT_MSG(&p, NULL, "C <= 0");
    p = fresh(); p.multiclass = GS_MC_CS; p.svm_type = GS_NU_SVC; p.cluster_size = 3;
    EXPECT_MSG(&p, NULL, "--cluster-size must be a power of two from 32 to 1024");
    p = fresh(); p.multiclass = GS_MC_CS; p.ws_size = 3; EXPECT_MSG(&p, NULL, "--ws-size must be an even number from 2 to 1024");
}

/* When several checks fail, the earlier one in LIBSVM's order is reported. */
static void test_order(void)
{
    gs_param p;
    p = fresh(); p.svm_type = 9; p.kernel_type = 9; EXPECT_MSG(&p, NULL, "unknown svm type");
    p = fresh(); p.kernel_type = 9; p.cache_size = 0; EXPECT_MSG(&p, NULL, "unknown kernel type");
    p = fresh(); p.kernel_type = GS_KERNEL_POLY; p.gamma = -1; p.degree = -1;
    EXPECT_MSG(&p, NULL, "gamma < 0");
    p = fresh(); p.kernel_type = GS_KERNEL_POLY; p.degree = -1; p.cache_size = 0;
    EXPECT_MSG(&p, NULL, "degree of polynomial kernel < 0");
    p = fresh(); p.cache_size = -1; p.eps = 0; EXPECT_MSG(&p, NULL, "cache_size <= 0");
    p = fresh(); p.eps = 0; p.C = 0; EXPECT_MSG(&p, NULL, "eps <= 0");
    p = fresh(); p.svm_type = GS_NU_SVR; p.C = 0; p.nu = 0; EXPECT_MSG(&p, NULL, "C <= 0");
    p = fresh(); p.svm_type = GS_NU_SVC; p.nu = 2; p.shrinking = 5;
    EXPECT_MSG(&p, NULL, "nu <= 0 or nu > 1");
    p = fresh(); p.svm_type = GS_EPSILON_SVR; p.p = -1; p.shrinking = 5; EXPECT_MSG(&p, NULL, "p < 0");
    p = fresh(); p.shrinking = 5; p.probability = 5;
    EXPECT_MSG(&p, NULL, "shrinking != 0 and shrinking != 1");
    p = fresh(); p.svm_type = GS_ONE_CLASS; p.probability = 5; /* not 1: the one-class text needs 1 */
    EXPECT_MSG(&p, NULL, "probability != 0 and probability != 1");
    /* nu feasibility comes after every value check, and all of LIBSVM's before gpusvm's. */
    double y[4] = {1, 1, 1, -1};
    gs_problem prob;
    memset(&prob, 0, sizeof prob);
    prob.y = y;
    prob.l = 4;
    p = fresh(); p.svm_type = GS_NU_SVC; p.nu = 0.9; p.probability = 2;
    EXPECT_MSG(&p, &prob, "probability != 0 and probability != 1");
    p = fresh(); p.svm_type = GS_NU_SVC; p.nu = 0.9; p.ws_size = 3;
    EXPECT_MSG(&p, &prob, "specified nu is infeasible");
    p = fresh(); p.svm_type = GS_ONE_CLASS; p.probability = 1; p.ws_size = 3;
    EXPECT_MSG(&p, NULL, "one-class SVM probability output not supported yet");
    p = fresh(); p.C = 0; p.ws_size = 3; EXPECT_MSG(&p, NULL, "C <= 0");
    p = fresh(); p.ws_size = 3; p.cluster_size = 3; EXPECT_MSG(&p, NULL, "--ws-size must be an even number from 2 to 1024");
    p = fresh(); p.ws_keep = 600; p.clusters_active = 0;
    EXPECT_MSG(&p, NULL, "--ws-keep must be between 0 and ws-size - 2");
    p = fresh(); p.clusters_active = 0; p.cluster_size = 3; EXPECT_MSG(&p, NULL, "--clusters must be >= 1");
}

static void test_label_int(void)
{
    CHECK(gs_label_int(1.9) == 1, "1.9");
    CHECK(gs_label_int(-1.9) == -1, "-1.9");
    CHECK(gs_label_int(-0.5) == 0, "-0.5");
    CHECK(gs_label_int(2147483647.5) == INT_MAX, "INT_MAX + 0.5");
    CHECK(gs_label_int(-2147483648.9) == INT_MIN, "INT_MIN - 0.9");
    CHECK(gs_label_int(3e9) == INT_MIN, "3e9 (x86 gives INT_MIN)");
    CHECK(gs_label_int(-3e9) == INT_MIN, "-3e9");
    CHECK(gs_label_int(NAN) == INT_MIN, "nan");
    CHECK(gs_label_int(INFINITY) == INT_MIN, "inf");
}

static void test_number_readers(void)
{
    double d = 42;
    int n = 42;
    uint64_t u = 42;
    CHECK(gs_cli_parse_double("0.1", &d) == 0 && d == 0.1, "0.1 is the double 0.1, not float: %.17g", d);
    CHECK(gs_cli_parse_double("1e40", &d) == 0 && d == 1e40, "1e40");
    CHECK(gs_cli_parse_double("1e-50", &d) == 0 && d == 1e-50, "1e-50");
    CHECK(gs_cli_parse_double(" -2.5e1", &d) == 0 && d == -25, "leading space");
    CHECK(gs_cli_parse_double("0x1p-3", &d) == 0 && d == 0.125, "hex");
    d = 42;
    const char *bad_d[] = {"", " ", "abc", "1x", "1 ", "1e400", "1e-400", "nan", "inf", "-inf", "--1"};
    for (size_t i = 0; i < sizeof bad_d / sizeof bad_d[0]; i++)
        CHECK(gs_cli_parse_double(bad_d[i], &d) == -1 && d == 42, "[%s] rejected, out untouched",
              bad_d[i]);
    CHECK(gs_cli_parse_int("-7", &n) == 0 && n == -7, "-7");
    CHECK(gs_cli_parse_int("2147483647", &n) == 0 && n == INT_MAX, "INT_MAX");
    n = 42;
    const char *bad_i[] = {"", "1.5", "1x", "abc", "2147483648", "-2147483649",
                           "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad_i / sizeof bad_i[0]; i++)
        CHECK(gs_cli_parse_int(bad_i[i], &n) == -1 && n == 42, "[%s] rejected", bad_i[i]);
    CHECK(gs_cli_parse_u64("18446744073709551615", &u) == 0 && u == UINT64_MAX, "u64 max");
    CHECK(gs_cli_parse_u64("0", &u) == 0 && u == 0, "u64 0");
    u = 42;
    const char *bad_u[] = {"", "-1", "+1", " 1", "18446744073709551616", "1x"};
    for (size_t i = 0; i < sizeof bad_u / sizeof bad_u[0]; i++)
        CHECK(gs_cli_parse_u64(bad_u[i], &u) == -1 && u == 42, "[%s] rejected", bad_u[i]);
}

static void test_long_matcher(void)
{
    char *argv[] = {"prog", "--seed", "5", "--seed=7", "--seeds", "--verbose", "--verbose=1", "--seed"};
    const int argc = 8;
    const char *v = NULL;
    int i = 1;
    CHECK(gs_cli_long(argc, argv, &i, "seed", &v) == 1 && i == 2 && v && strcmp(v, "5") == 0,
          "--seed 5");
    i = 3;
    CHECK(gs_cli_long(argc, argv, &i, "seed", &v) == 1 && i == 3 && strcmp(v, "7") == 0, "--seed=7");
    i = 4;
    CHECK(gs_cli_long(argc, argv, &i, "seed", &v) == 0 && i == 4, "--seeds is not --seed");
    i = 5;
    CHECK(gs_cli_long(argc, argv, &i, "verbose", NULL) == 1 && i == 5, "--verbose");
    i = 6;
    CHECK(gs_cli_long(argc, argv, &i, "verbose", NULL) == 0, "--verbose=1 takes no value");
    i = 7;
    CHECK(gs_cli_long(argc, argv, &i, "seed", &v) == 1 && v == NULL && i == 7, "missing value");
    i = 2;
    CHECK(gs_cli_long(argc, argv, &i, "seed", &v) == 0, "a plain argument");
}

int main(void)
{
    test_defaults();
    test_weights();
    test_each_message();
    test_nu_feasibility();
    test_long_options();
    test_multiclass();
    test_order();
    test_label_int();
    test_number_readers();
    test_long_matcher();
    TEST_END();
}
