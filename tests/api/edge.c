/* edge.c — svm.h's corners and gpusvm's extensions, one "name: result" line each; the model files
 * it writes into DIR are compared with gpusvm-train's by tests/cli/test_api.sh.
 *
 *   edge DATA DIR      (DATA: heart_scale)
 *
 * Covers: an empty problem and a one-class problem (degenerate models, saved and predicted), rows
 * svm_train must refuse, svm_load_model / svm_save_model failures, the device choice
 * (gpusvm_set_device, gpusvm_release_device), gpusvm_train's tunables, svm_cross_validation,
 * two trainings in two threads, the default print destination. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svm.h"

static struct svm_problem g_prob; /* heart_scale */
static struct svm_parameter g_param;
static const char *g_dir;

static void quiet(const char *s) { (void)s; }

static void drop(struct svm_model *m) { svm_free_and_destroy_model(&m); }

static void defaults(struct svm_parameter *p, double gamma)
{
    memset(p, 0, sizeof *p);
    p->svm_type = C_SVC;
    p->kernel_type = RBF;
    p->degree = 3;
    p->gamma = gamma;
    p->cache_size = 100;
    p->eps = 1e-3;
    p->C = 1;
    p->nu = 0.5;
    p->p = 0.1;
    p->shrinking = 1;
}

static int read_data(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[4096];
    int cap = 512, max_index = 0;
    g_prob.y = malloc(sizeof(double) * (size_t)cap);
    g_prob.x = malloc(sizeof(struct svm_node *) * (size_t)cap);
    while (g_prob.l < cap && fgets(line, sizeof line, f)) {
        char *p, *end;
        struct svm_node *x = malloc(sizeof *x * 64);
        int n = 0;
        g_prob.y[g_prob.l] = strtod(line, &end);
        for (p = end; n < 63;) {
            while (*p == ' ') p++;
            if (*p == '\n' || *p == '\0') break;
            x[n].index = (int)strtol(p, &end, 10);
            x[n].value = strtod(end + 1, &p);
            if (x[n].index > max_index) max_index = x[n].index;
            n++;
        }
        x[n].index = -1;
        g_prob.x[g_prob.l++] = x;
    }
    fclose(f);
    return max_index;
}

/* Trains, saves into DIR/name.model (when a model came), prints "name: model" or "name: NULL". */
/* Trains and saves into DIR/name.model (when a model came). */
static struct svm_model *train_only(const char *name, const struct svm_problem *prob,
                                    const struct svm_parameter *param, const struct gpusvm_options *opt)
{
    struct svm_model *m = opt ? gpusvm_train(prob, param, opt) : svm_train(prob, param);
    if (m) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.model", g_dir, name);
        if (svm_save_model(path, m) != 0) printf("%s: save failed\n", name);
    }
    return m;
}

/* train_only, then "name: model" or "name: NULL". */
static struct svm_model *train_save(const char *name, const struct svm_problem *prob,
                                    const struct svm_parameter *param, const struct gpusvm_options *opt)
{
    struct svm_model *m = train_only(name, prob, param, opt);
    printf("%s: %s\n", name, m ? "model" : "NULL");
    return m;
}

/* One of two concurrent trainings; the result is printed by main, in order. */
static void *train_thread(void *arg)
{
    struct svm_model *m = train_only((const char *)arg, &g_prob, &g_param, NULL);
    const int ok = m != NULL;
    drop(m);
    return ok ? arg : NULL;
}

static void degenerate(void)
{
    struct svm_problem empty = {0, NULL, NULL};
    struct svm_parameter p0 = g_param;
    p0.gamma = 0; /* what svm-train leaves for a file with no feature */
    struct svm_model *m = train_save("empty", &empty, &p0, NULL);
    if (m) {
        struct svm_node x[1] = {{-1, 0}};
        printf("empty: nr_class %d nr_sv %d predicts %g\n", svm_get_nr_class(m), svm_get_nr_sv(m), svm_predict(m, x));
        svm_free_and_destroy_model(&m);
    }
    double y[3] = {2, 2, 2};
    struct svm_problem one = {3, y, g_prob.x};
    m = train_save("one_class", &one, &g_param, NULL);
    if (m) {
        int label = 0;
        svm_get_labels(m, &label);
        printf("one_class: nr_class %d label %d predicts %g\n", svm_get_nr_class(m), label, svm_predict(m, g_prob.x[5]));
        svm_free_and_destroy_model(&m);
    }
}

static void refusals(void)
{
    struct svm_node descending[3] = {{2, 1}, {1, 1}, {-1, 0}};
    struct svm_node huge[2] = {{1, 1e39}, {-1, 0}};
    struct svm_node fine[2] = {{1, 0.5}, {-1, 0}};
    struct svm_node *x[2] = {fine, descending};
    double y[2] = {1, -1};
    struct svm_problem p = {2, y, x};
    drop(train_save("descending", &p, &g_param, NULL));
    x[1] = huge;
    drop(train_save("huge_value", &p, &g_param, NULL));
    x[1] = fine;
    y[1] = NAN;
    drop(train_save("nan_label", &p, &g_param, NULL));
    x[1] = NULL;
    y[1] = -1;
    drop(train_save("null_row", &p, &g_param, NULL));
    printf("last_error: %s\n", gpusvm_last_error());

    char path[4096];
    snprintf(path, sizeof path, "%s/missing.model", g_dir);
    printf("load_missing: %s\n", svm_load_model(path) ? "model" : "NULL");
    snprintf(path, sizeof path, "%s/bad.model", g_dir);
    FILE *f = fopen(path, "w");
    fputs("svm_type c_svc\nkernel_type rbf\ngamma nan\n", f);
    fclose(f);
    printf("load_bad: %s\n", svm_load_model(path) ? "model" : "NULL");
    struct svm_model *m = svm_train(&g_prob, &g_param);
    snprintf(path, sizeof path, "%s/no/such/dir.model", g_dir);
    printf("save_unwritable: %d\n", svm_save_model(path, m));
    svm_free_and_destroy_model(&m);
    svm_free_and_destroy_model(&m); /* NULL now: fine */
    svm_free_and_destroy_model(NULL);
}

static void extensions(void)
{
    printf("set_device_while_open: %d\n", gpusvm_set_device(NULL, 0));
    gpusvm_release_device();
    gpusvm_release_device(); /* none open: fine */
    printf("set_device_nomatch: %d\n", gpusvm_set_device("no such device anywhere", 0));
    drop(train_save("nomatch", &g_prob, &g_param, NULL));
    gpusvm_release_device();
    printf("set_device_auto: %d\n", gpusvm_set_device(NULL, 256));
    struct gpusvm_options opt;
    gpusvm_options_init(&opt);
    printf("options: %d %d %d %d %llu\n", opt.ws_size, opt.ws_keep, opt.clusters, opt.cluster_size, opt.seed);
    opt.ws_size = 16;
    drop(train_save("ws16", &g_prob, &g_param, &opt));
    opt.ws_size = 3;
    drop(train_save("ws3", &g_prob, &g_param, &opt));
    printf("last_error: %s\n", gpusvm_last_error());
    drop(train_save("defaults", &g_prob, &g_param, NULL));
}

int main(int argc, char **argv)
{
    if (argc != 3) return 1;
    g_dir = argv[2];
    const int max_index = read_data(argv[1]);
    if (max_index <= 0) return 1;
    defaults(&g_param, 1.0 / max_index);
    /* the default destination: training's lines on stdout (the test counts them) */
    drop(svm_train(&g_prob, &g_param));
    svm_set_print_string_function(quiet);
    degenerate();
    refusals();
    extensions();
    /* svm_cross_validation, 5 folds: the accuracy line svm-train -v 5 prints */
    double *target = malloc(sizeof(double) * (size_t)g_prob.l);
    svm_cross_validation(&g_prob, &g_param, 5, target);
    int correct = 0;
    for (int i = 0; i < g_prob.l; i++) correct += target[i] == g_prob.y[i];
    printf("Cross Validation Accuracy = %g%%\n", 100.0 * correct / g_prob.l);
    free(target);
    pthread_t t1, t2;
    pthread_create(&t1, NULL, train_thread, "thread1");
    pthread_create(&t2, NULL, train_thread, "thread2");
    void *r1, *r2;
    pthread_join(t1, &r1);
    pthread_join(t2, &r2);
    printf("thread1: %s\nthread2: %s\n", r1 ? "model" : "NULL", r2 ? "model" : "NULL");
    gpusvm_release_device();
    for (int i = 0; i < g_prob.l; i++) free(g_prob.x[i]);
    free(g_prob.x);
    free(g_prob.y);
    return 0;
}
