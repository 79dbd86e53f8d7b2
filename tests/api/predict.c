/* predict.c — svm-predict written against svm.h alone: loads a model, predicts a LIBSVM data file
 * row by row and writes svm-predict's output file and summary lines. tests/cli/test_api.sh builds
 * it against gpusvm's installed svm.h and compares with Debian's svm-predict on models of every
 * type, so svm_load_model, svm_predict_values, svm_predict_probability and the getters must give
 * LIBSVM's numbers.
 *
 *   predict [-b 0|1] test_file model_file output_file
 *
 * Classification rows go through svm_predict_values (checked against svm_predict), the others
 * through svm_predict, probability rows through svm_predict_probability. Exit 1 on failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svm.h"

/* Reads one data row into *x (grown as needed). @return 1, 0 at the end, -1 on a bad line */
static int read_row(FILE *f, double *y, struct svm_node **x, int *cap)
{
    char buf[65536];
    if (!fgets(buf, sizeof buf, f)) return 0;
    char *p, *end;
    *y = strtod(buf, &end);
    int n = 0;
    for (p = end;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\n' || *p == '\0') break;
        if (n + 1 >= *cap) {
            *cap *= 2;
            *x = realloc(*x, sizeof **x * (size_t)*cap);
        }
        (*x)[n].index = (int)strtol(p, &end, 10);
        if (*end != ':') return -1;
        (*x)[n].value = strtod(end + 1, &p);
        n++;
    }
    (*x)[n].index = -1;
    return 1;
}

int main(int argc, char **argv)
{
    int prob = 0, a = 1;
    if (argc == 6 && strcmp(argv[1], "-b") == 0) {
        prob = atoi(argv[2]);
        a = 3;
    }
    if (argc - a != 3) {
        fprintf(stderr, "usage: predict [-b 0|1] test_file model_file output_file\n");
        return 1;
    }
    FILE *in = fopen(argv[a], "r");
    if (!in) {
        fprintf(stderr, "can't open input file %s\n", argv[a]);
        return 1;
    }
    struct svm_model *m = svm_load_model(argv[a + 1]);
    if (!m) {
        fprintf(stderr, "can't open model file %s\n", argv[a + 1]);
        return 1;
    }
    FILE *out = fopen(argv[a + 2], "w");
    if (!out) {
        fprintf(stderr, "can't open output file %s\n", argv[a + 2]);
        return 1;
    }
    const int type = svm_get_svm_type(m), k = svm_get_nr_class(m);
    const int regression = type == EPSILON_SVR || type == NU_SVR;
    if (prob && !svm_check_probability_model(m)) {
        fprintf(stderr, "Model does not support probabiliy estimates\n");
        return 1;
    }
    if (!prob && svm_check_probability_model(m))
        printf("Model supports probability estimates, but disabled in prediction.\n");
    int *labels = malloc(sizeof(int) * (size_t)(k > 0 ? k : 1));
    double *est = malloc(sizeof(double) * (size_t)(k > 0 ? k : 1));
    double *dec = malloc(sizeof(double) * (size_t)(k > 1 ? k * (k - 1) / 2 : 1));
    if (prob && regression)
        printf("Prob. model for test data: target value = predicted value + z,\n"
               "z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma=%g\n", svm_get_svr_probability(m));
    if (prob && (type == C_SVC || type == NU_SVC)) {
        svm_get_labels(m, labels);
        fprintf(out, "labels");
        for (int j = 0; j < k; j++) fprintf(out, " %d", labels[j]);
        fprintf(out, "\n");
    }
    int cap = 64, total = 0, correct = 0, rc = 0;
    double err = 0, sp = 0, st = 0, spp = 0, stt = 0, spt = 0, y;
    struct svm_node *x = malloc(sizeof *x * (size_t)cap);
    int got;
    while ((got = read_row(in, &y, &x, &cap)) == 1) {
        double v;
        if (prob && (type == C_SVC || type == NU_SVC)) {
            v = svm_predict_probability(m, x, est);
            fprintf(out, "%g", v);
            for (int j = 0; j < k; j++) fprintf(out, " %g", est[j]);
            fprintf(out, "\n");
        } else if (type == C_SVC || type == NU_SVC) {
            v = svm_predict_values(m, x, dec);
            if (v != svm_predict(m, x)) rc = 1;
            fprintf(out, "%.17g\n", v);
        } else {
            v = svm_predict(m, x);
            fprintf(out, "%.17g\n", v);
        }
        if (v == y) correct++;
        err += (v - y) * (v - y);
        sp += v;
        st += y;
        spp += v * v;
        stt += y * y;
        spt += v * y;
        total++;
    }
    if (got < 0) {
        fprintf(stderr, "Wrong input format at line %d\n", total + 1);
        return 1;
    }
    if (regression) {
        printf("Mean squared error = %g (regression)\n", err / total);
        printf("Squared correlation coefficient = %g (regression)\n",
               ((total * spt - sp * st) * (total * spt - sp * st)) / ((total * spp - sp * sp) * (total * stt - st * st)));
    } else {
        printf("Accuracy = %g%% (%d/%d) (classification)\n", (double)correct / total * 100, correct, total);
    }
    if (rc) fprintf(stderr, "svm_predict_values and svm_predict disagree\n");
    fclose(out);
    fclose(in);
    svm_free_and_destroy_model(&m);
    free(x);
    free(labels);
    free(est);
    free(dec);
    return rc;
}
