/* train_predict.c — a program written for LIBSVM, using only svm.h: reads a LIBSVM data file,
 * trains with svm-train's defaults and options, saves the model, loads it back, and predicts every
 * training row with both models. tests/cli/test_api.sh builds it against gpusvm's installed
 * svm.h (shared and static) and against Debian's LIBSVM, and compares what it writes with
 * gpusvm-train's model and gpusvm-predict's output.
 *
 *   train_predict [-s N] [-t N] [-d N] [-g X] [-r X] [-c X] [-n X] [-p X] [-e X] [-b N] [-wLABEL X] data model predictions
 *
 * Training's lines go through svm_set_print_string_function to stderr (stdout stays for the
 * summary), so the test sees that the hook is used. Exit 1 on any failure, with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svm.h"

static void print_to_stderr(const char *s) { fputs(s, stderr); }

/* One line of any length, or NULL at the end of the file. */
static char *read_line(FILE *f)
{
    size_t cap = 256, n = 0;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    while (fgets(buf + n, (int)(cap - n), f)) {
        n += strlen(buf + n);
        if (n > 0 && buf[n - 1] == '\n') return buf;
        cap *= 2;
        char *nb = realloc(buf, cap);
        if (!nb) break;
        buf = nb;
    }
    if (n > 0) return buf;
    free(buf);
    return NULL;
}

/* Reads the file into prob (each row its own node array ending with index -1).
 * @return the largest index, or -1 on error */
static int read_problem(const char *path, struct svm_problem *prob)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "can't open input file %s\n", path);
        return -1;
    }
    int cap = 64, max_index = 0;
    prob->l = 0;
    prob->y = malloc(sizeof(double) * (size_t)cap);
    prob->x = malloc(sizeof(struct svm_node *) * (size_t)cap);
    char *line;
    while ((line = read_line(f)) != NULL) {
        if (prob->l == cap) {
            cap *= 2;
            prob->y = realloc(prob->y, sizeof(double) * (size_t)cap);
            prob->x = realloc(prob->x, sizeof(struct svm_node *) * (size_t)cap);
        }
        char *p = line, *end;
        prob->y[prob->l] = strtod(p, &end);
        int n = 0, ncap = 16;
        struct svm_node *x = malloc(sizeof *x * (size_t)ncap);
        for (p = end;;) {
            while (*p == ' ' || *p == '\t') p++;
            if (*p == '\n' || *p == '\0') break;
            if (n + 1 >= ncap) {
                ncap *= 2;
                x = realloc(x, sizeof *x * (size_t)ncap);
            }
            x[n].index = (int)strtol(p, &end, 10);
            if (*end != ':') {
                fprintf(stderr, "Wrong input format at line %d\n", prob->l + 1);
                fclose(f);
                return -1;
            }
            x[n].value = strtod(end + 1, &p);
            if (x[n].index > max_index) max_index = x[n].index;
            n++;
        }
        x[n].index = -1;
        x[n].value = 0;
        prob->x[prob->l++] = x;
        free(line);
    }
    fclose(f);
    return max_index;
}

/* svm-train's defaults, then the options. @return the index of the first file argument, or -1 */
static int parse(int argc, char **argv, struct svm_parameter *param)
{
    memset(param, 0, sizeof *param);
    param->svm_type = C_SVC;
    param->kernel_type = RBF;
    param->degree = 3;
    param->cache_size = 100;
    param->eps = 1e-3;
    param->C = 1;
    param->nu = 0.5;
    param->p = 0.1;
    param->shrinking = 1;
    int i;
    for (i = 1; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        const char *v = argv[i + 1];
        switch (argv[i][1]) {
        case 's': param->svm_type = atoi(v); break;
        case 't': param->kernel_type = atoi(v); break;
        case 'd': param->degree = atoi(v); break;
        case 'g': param->gamma = atof(v); break;
        case 'r': param->coef0 = atof(v); break;
        case 'c': param->C = atof(v); break;
        case 'n': param->nu = atof(v); break;
        case 'p': param->p = atof(v); break;
        case 'e': param->eps = atof(v); break;
        case 'b': param->probability = atoi(v); break;
        case 'w':
            param->weight_label = realloc(param->weight_label, sizeof(int) * (size_t)(param->nr_weight + 1));
            param->weight = realloc(param->weight, sizeof(double) * (size_t)(param->nr_weight + 1));
            param->weight_label[param->nr_weight] = atoi(argv[i] + 2);
            param->weight[param->nr_weight++] = atof(v);
            break;
        default: fprintf(stderr, "Unknown option: %s\n", argv[i]); return -1;
        }
    }
    return argc - i == 3 ? i : -1;
}

/* Every SV is the training row sv_indices names (values compared as floats: gpusvm keeps training
 * values in single precision). @return 0 or -1 */
static int check_sv_indices(const struct svm_problem *prob, const struct svm_model *m)
{
    int *idx = malloc(sizeof(int) * (size_t)(svm_get_nr_sv(m) + 1));
    svm_get_sv_indices(m, idx);
    int bad = 0;
    for (int s = 0; s < svm_get_nr_sv(m) && !bad; s++) {
        if (idx[s] < 1 || idx[s] > prob->l) {
            bad = 1;
            break;
        }
        const struct svm_node *a = m->SV[s], *b = prob->x[idx[s] - 1];
        for (; a->index != -1 && b->index == a->index; a++, b++)
            if ((float)a->value != (float)b->value) bad = 1;
        if (a->index != -1 || b->index != -1) bad = 1;
    }
    if (bad) fprintf(stderr, "sv_indices do not name the SVs' training rows\n");
    free(idx);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    struct svm_parameter param;
    struct svm_problem prob;
    const int a = parse(argc, argv, &param);
    if (a < 0) {
        fprintf(stderr, "usage: train_predict [options] data model predictions\n");
        return 1;
    }
    const int max_index = read_problem(argv[a], &prob);
    if (max_index < 0) return 1;
    if (param.gamma == 0 && max_index > 0) param.gamma = 1.0 / max_index;
    const char *msg = svm_check_parameter(&prob, &param);
    if (msg) {
        fprintf(stderr, "ERROR: %s\n", msg);
        return 1;
    }
    svm_set_print_string_function(print_to_stderr);
    struct svm_model *trained = svm_train(&prob, &param);
    if (!trained) return 1;
    if (svm_save_model(argv[a + 1], trained) != 0) {
        fprintf(stderr, "can't save model to file %s\n", argv[a + 1]);
        return 1;
    }
    struct svm_model *loaded = svm_load_model(argv[a + 1]);
    if (!loaded) {
        fprintf(stderr, "can't open model file %s\n", argv[a + 1]);
        return 1;
    }
    int rc = check_sv_indices(&prob, trained) == 0 ? 0 : 1;
    if (svm_get_nr_sv(trained) != svm_get_nr_sv(loaded) || svm_get_nr_class(trained) != svm_get_nr_class(loaded) ||
        svm_get_svm_type(loaded) != param.svm_type) {
        fprintf(stderr, "the loaded model's counts differ from the trained one's\n");
        rc = 1;
    }
    FILE *out = fopen(argv[a + 2], "w");
    if (!out) {
        fprintf(stderr, "can't open output file %s\n", argv[a + 2]);
        return 1;
    }
    int correct = 0;
    for (int i = 0; i < prob.l; i++) {
        const double p1 = svm_predict(trained, prob.x[i]);
        const double p2 = svm_predict(loaded, prob.x[i]);
        if (p1 != p2) {
            fprintf(stderr, "row %d: the trained model predicts %.17g, the loaded one %.17g\n", i + 1, p1, p2);
            rc = 1;
        }
        if (p2 == prob.y[i]) correct++;
        fprintf(out, "%.17g\n", p2);
    }
    fclose(out);
    printf("Accuracy = %g%% (%d/%d) (classification)\n", 100.0 * correct / prob.l, correct, prob.l);
    svm_free_and_destroy_model(&trained);
    svm_free_and_destroy_model(&loaded);
    if (trained || loaded) rc = 1;
    svm_destroy_param(&param);
    for (int i = 0; i < prob.l; i++) free(prob.x[i]);
    free(prob.x);
    free(prob.y);
    return rc;
}
