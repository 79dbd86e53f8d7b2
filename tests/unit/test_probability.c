/* test_probability.c — probability.c (Platt sigmoid, pairwise coupling, one-class marks) and the exact CPU
 * reference gs_pred_cpu_dec, the latter against svm-predict's golden outputs (skipped without
 * ../shared). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/model.h"
#include "predict/predictor.h"
#include "predict/probability.h"
#include "testlib.h"

static void test_sigmoid(void)
{
    /* both branches of the stable form, and no overflow at the extremes */
    CHECK(gs_prob_sigmoid(0, 1, 0) == 0.5, "%g", gs_prob_sigmoid(0, 1, 0));
    CHECK(gs_prob_sigmoid(1000, 1, 0) == 0.0, "%g", gs_prob_sigmoid(1000, 1, 0));
    CHECK(gs_prob_sigmoid(-1000, 1, 0) == 1.0, "%g", gs_prob_sigmoid(-1000, 1, 0));
    const double a = gs_prob_sigmoid(0.7, -1.5, 0.2), b = gs_prob_sigmoid(0.7, 1.5, -0.2);
    CHECK(fabs(a - 1 / (1 + exp(0.7 * -1.5 + 0.2))) < 1e-15, "%.17g", a);
    CHECK(fabs(a + b - 1) < 1e-15, "%.17g + %.17g", a, b);
}

static void test_couple(void)
{
    double work[64], p[4], r[16];
    /* all pairs undecided: the uniform distribution is the exact fixed point */
    for (int i = 0; i < 16; i++) r[i] = 0.5;
    CHECK(gs_prob_couple(4, r, p, work) == 0, "converged");
    for (int i = 0; i < 4; i++) CHECK(p[i] == 0.25, "p[%d] = %.17g", i, p[i]);
    /* consistent pairwise probabilities r_ij = q_i / (q_i + q_j) give back q (to the tolerance) */
    const double q[3] = {0.6, 0.3, 0.1};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) r[i * 3 + j] = q[i] / (q[i] + q[j]);
    CHECK(gs_prob_couple(3, r, p, work) == 0, "converged");
    double s = 0;
    for (int i = 0; i < 3; i++) {
        CHECK(fabs(p[i] - q[i]) < 0.01, "p[%d] = %g, want %g", i, p[i], q[i]);
        s += p[i];
    }
    CHECK(fabs(s - 1) < 1e-12, "sum %.17g", s);
    /* classify: two classes use r directly, clipped to [1e-7, 1 - 1e-7] */
    double dec = 50, A = -1, B = 0, pp[2], w2[16];
    int ex = 0;
    CHECK(gs_prob_work_size(2) <= 16, "work size %d", gs_prob_work_size(2));
    CHECK(gs_prob_classify(2, &dec, &A, &B, pp, w2, &ex) == 0, "class 0 wins");
    CHECK(pp[0] == 1 - 1e-7 && pp[1] == 1 - (1 - 1e-7), "%.17g %.17g", pp[0], pp[1]);
    CHECK(ex == 0, "no cap");
    /* a tie between classes goes to the earliest */
    dec = 0;
    B = 0;
    CHECK(gs_prob_classify(2, &dec, &A, &B, pp, w2, &ex) == 0, "tie -> class 0");
}

static void test_one_class(void)
{
    double marks[10];
    for (int i = 0; i < 10; i++) marks[i] = i - 4.5; /* -4.5 .. 4.5 */
    CHECK(gs_prob_one_class(-10, marks) == 0.001, "below");
    CHECK(gs_prob_one_class(10, marks) == 0.999, "above");
    CHECK(gs_prob_one_class(-4.5, marks) == 0.1, "%g", gs_prob_one_class(-4.5, marks));
    CHECK(gs_prob_one_class(0.2, marks) == 0.5, "%g", gs_prob_one_class(0.2, marks));
    CHECK(gs_prob_one_class(4.4, marks) == 0.9, "%g", gs_prob_one_class(4.4, marks));
}

/* Row r of a LIBSVM text file (first line = row 0), parsed simply: golden files are well formed. */
static int read_row(const char *path, int want, gs_rows *out)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[4096];
    int n = 0, ok = -1;
    while (fgets(line, sizeof line, f)) {
        if (n++ != want) continue;
        out->l = 1;
        out->row_ptr = calloc(2, sizeof *out->row_ptr);
        out->idx = calloc(256, sizeof *out->idx);
        out->val = calloc(256, sizeof *out->val);
        out->y = calloc(1, sizeof *out->y);
        char *s = line, *e;
        out->y[0] = strtod(s, &e);
        s = e;
        int64_t k = 0;
        for (;;) {
            long idx = strtol(s, &e, 10);
            if (e == s || *e != ':' || k >= 256) break;
            s = e + 1;
            out->idx[k] = (int32_t)idx;
            out->val[k++] = strtod(s, &e);
            s = e;
        }
        out->row_ptr[1] = k;
        ok = 0;
        break;
    }
    fclose(f);
    return ok;
}

static char *first_line(const char *path, int skip)
{
    static char buf[512];
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char *r = NULL;
    for (int i = 0; i <= skip; i++) r = fgets(buf, sizeof buf, f);
    fclose(f);
    if (r) buf[strcspn(buf, "\n")] = '\0';
    return r;
}

/* The CPU reference reproduces svm-predict's printed numbers exactly. */
static void test_cpu_reference(void)
{
    const char *g = NULL;
    static const char *const cands[] = {"../shared/reference/golden", "../../shared/reference/golden"};
    for (unsigned i = 0; i < 2; i++) {
        FILE *f = fopen(cands[i], "r");
        if (f) { fclose(f); g = cands[i]; break; }
    }
    if (!g) {
        SKIP("no ../shared/reference/golden");
        return;
    }
    char mp[512], tp[512], op[512], line[512];
    /* eps-SVR (RBF): %.17g of the decision value of the first rows */
    snprintf(mp, sizeof mp, "%s/heart/heart_eps_svr.model", g);
    snprintf(tp, sizeof tp, "%s/heart/heart_scale", g);
    snprintf(op, sizeof op, "%s/heart/pred_eps_svr.out", g);
    gs_model m;
    memset(&m, 0, sizeof m);
    CHECK(gs_model_read(mp, &m) == GS_OK, "read %s", mp);
    for (int r = 0; r < 5 && m.l > 0; r++) {
        gs_rows rows;
        memset(&rows, 0, sizeof rows);
        CHECK(read_row(tp, r, &rows) == 0, "row %d", r);
        double dec = 0;
        CHECK(gs_pred_cpu_dec(&m, &rows, 0, &dec) == GS_OK, "cpu dec");
        snprintf(line, sizeof line, "%.17g", dec);
        const char *want = first_line(op, r);
        CHECK(want && strcmp(line, want) == 0, "row %d: %s, svm-predict %s", r, line, want ? want : "?");
        gs_rows_free(&rows);
    }
    gs_model_free(&m);

    /* three classes with probabilities: the first line of iris -b 1 */
    snprintf(mp, sizeof mp, "%s/iris/iris_b1.model", g);
    snprintf(tp, sizeof tp, "%s/iris/iris.libsvm", g);
    snprintf(op, sizeof op, "%s/iris/pred_iris_b1.out", g);
    memset(&m, 0, sizeof m);
    CHECK(gs_model_read(mp, &m) == GS_OK, "read %s", mp);
    if (m.l > 0 && m.nr_class == 3) {
        for (int r = 0; r < 3; r++) {
            gs_rows rows;
            memset(&rows, 0, sizeof rows);
            CHECK(read_row(tp, r, &rows) == 0, "row %d", r);
            double dec[3], p[3], work[64];
            int ex = 0;
            CHECK(gs_pred_n_dec(&m) == 3, "3 pairs");
            CHECK(gs_pred_cpu_dec(&m, &rows, 0, dec) == GS_OK, "cpu dec");
            const int best = gs_prob_classify(3, dec, m.probA, m.probB, p, work, &ex);
            snprintf(line, sizeof line, "%g %g %g %g", (double)m.label[best], p[0], p[1], p[2]);
            const char *want = first_line(op, r + 1); /* after the "labels" header */
            CHECK(want && strcmp(line, want) == 0, "row %d: %s, svm-predict %s", r, line, want ? want : "?");
            gs_rows_free(&rows);
        }
    }
    gs_model_free(&m);
}

int main(void)
{
    test_sigmoid();
    test_couple();
    test_one_class();
    test_cpu_reference();
    TEST_END();
}
