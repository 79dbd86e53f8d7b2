/* probability.c — see probability.h. The sigmoid fit follows the pseudo-code of Lin, Lin & Weng,
 * "A note on Platt's probabilistic outputs for support vector machines" (Machine Learning 68,
 * 2007), which svm-train implements: the same targets, start, Hessian ridge, step rule and
 * stopping test, and the numerically stable forms of log(1 + exp(.)) chosen by the sign of the
 * argument, so A and B come out as svm-train's up to the decision values' own differences. */
#include "train/probability.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/cv.h"

/* The objective of the fit at (A, B): sum of the cross-entropy terms, each written so exp never
 * overflows. */
static double sigmoid_objective(int l, const double *dec, const double *t, double A, double B)
{
    double f = 0;
    for (int i = 0; i < l; i++) {
        const double fApB = dec[i] * A + B;
        if (fApB >= 0) f += t[i] * fApB + log(1 + exp(-fApB));
        else f += (t[i] - 1) * fApB + log(1 + exp(fApB));
    }
    return f;
}

/* The gradient g[2] and the Hessian (h11, h22, h21, with the ridge sigma on the diagonal) at
 * (A, B). */
static void sigmoid_derivatives(int l, const double *dec, const double *t, double A, double B, double *g,
                                double *h11, double *h22, double *h21)
{
    const double sigma = 1e-12;
    *h11 = sigma;
    *h22 = sigma;
    *h21 = 0;
    g[0] = g[1] = 0;
    for (int i = 0; i < l; i++) {
        const double fApB = dec[i] * A + B;
        double p, q;
        if (fApB >= 0) {
            p = exp(-fApB) / (1.0 + exp(-fApB));
            q = 1.0 / (1.0 + exp(-fApB));
        } else {
            p = 1.0 / (1.0 + exp(fApB));
            q = exp(fApB) / (1.0 + exp(fApB));
        }
        const double d2 = p * q, d1 = t[i] - p;
        *h11 += dec[i] * dec[i] * d2;
        *h22 += d2;
        *h21 += dec[i] * d2;
        g[0] += dec[i] * d1;
        g[1] += d1;
    }
}

void gs_prob_print_notes(const gs_log *lg, int notes)
{
    if (notes & GS_PROB_LINE_SEARCH_FAILS) gs_log_info(lg, "Line search fails in two-class probability estimates\n");
    if (notes & GS_PROB_MAX_ITER) gs_log_info(lg, "Reaching maximal iterations in two-class probability estimates\n");
}

gs_status gs_prob_fit_sigmoid(int l, const double *dec, const double *y, int *notes, double *A, double *B)
{
    const int max_iter = 100;
    const double min_step = 1e-10, eps = 1e-5;
    double prior1 = 0, prior0 = 0;
    for (int i = 0; i < l; i++) {
        if (y[i] > 0) prior1 += 1;
        else prior0 += 1;
    }
    /* Platt's targets: not 1 and 0, so that the fit stays finite on separable values */
    const double hi = (prior1 + 1.0) / (prior1 + 2.0), lo = 1 / (prior0 + 2.0);
    double *t = malloc(sizeof *t * (size_t)(l > 0 ? l : 1));
    *notes = 0;
    *A = 0.0;
    *B = log((prior0 + 1.0) / (prior1 + 1.0));
    if (!t) return GS_FAIL(GS_ERR_NOMEM, "out of memory for %d sigmoid targets", l);
    for (int i = 0; i < l; i++) t[i] = y[i] > 0 ? hi : lo;
    double fval = sigmoid_objective(l, dec, t, *A, *B);
    int iter;
    for (iter = 0; iter < max_iter; iter++) {
        double g[2], h11, h22, h21;
        sigmoid_derivatives(l, dec, t, *A, *B, g, &h11, &h22, &h21);
        if (fabs(g[0]) < eps && fabs(g[1]) < eps) break;
        /* the Newton direction, then the largest step of 1, 1/2, 1/4 ... with sufficient decrease */
        const double det = h11 * h22 - h21 * h21;
        const double dA = -(h22 * g[0] - h21 * g[1]) / det, dB = -(-h21 * g[0] + h11 * g[1]) / det;
        const double gd = g[0] * dA + g[1] * dB;
        double step = 1;
        while (step >= min_step) {
            const double nA = *A + step * dA, nB = *B + step * dB;
            const double nf = sigmoid_objective(l, dec, t, nA, nB);
            if (nf < fval + 0.0001 * step * gd) {
                *A = nA;
                *B = nB;
                fval = nf;
                break;
            }
            step = step / 2.0;
        }
        if (step < min_step) {
            *notes |= GS_PROB_LINE_SEARCH_FAILS;
            break;
        }
    }
    if (iter >= max_iter) *notes |= GS_PROB_MAX_ITER;
    free(t);
    return GS_OK;
}

double gs_prob_lone_value(int npos, int nneg)
{
    return npos > 0 ? 1 : (nneg > 0 ? -1 : 0);
}

gs_status gs_prob_held_out(const gs_device_provider *dev, const gs_tuning *tuning, const gs_model *model,
                           const gs_problem *prob, const int *rows, int n, const int *dst, const gs_log *log,
                           double *held, double *dec)
{
    const gs_status st = gs_cross_validation_dec(dev, tuning, model, prob, rows, n, log, held);
    if (st == GS_OK) gs_prob_place_held(model, held, dst, n, dec);
    return st;
}

void gs_prob_place_held(const gs_model *model, const double *held, const int *dst, int n, double *dec)
{
    for (int j = 0; j < n; j++) dec[dst[j]] = held[j] * model->label[0];
}

/* Fold f's held-out decision values into dec (indexed as pair's rows): trains on the other folds'
 * rows (perm order), or, when they hold one class or none, takes +1, -1 or 0 as svm-train does. */
static gs_status fold_decisions(const gs_device_provider *dev, const gs_problem *pair, const gs_param *sub,
                                const int *perm, int b, int e, int *rows, const gs_log *log, double *dec)
{
    const int n = pair->l;
    int m = 0, npos = 0, nneg = 0;
    for (int j = 0; j < b; j++) rows[m++] = perm[j];
    for (int j = e; j < n; j++) rows[m++] = perm[j];
    for (int j = 0; j < m; j++) {
        if (pair->y[rows[j]] > 0) npos++;
        else nneg++;
    }
    if (npos == 0 || nneg == 0) {
        const double v = gs_prob_lone_value(npos, nneg);
        for (int j = b; j < e; j++) dec[perm[j]] = v;
        return GS_OK;
    }
    gs_problem part = {0};
    gs_model model = {0};
    double *held = malloc(sizeof *held * (size_t)(e > b ? e - b : 1));
    gs_status st = GS_OK;
    if (!held) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d decision values", e - b); goto cleanup; }
    if ((st = gs_problem_subset(pair, rows, m, &part))) goto cleanup;
    /* sub has no -b 1: the training draws nothing from a rand() stream */
    if ((st = gs_svm_train(dev, &part, sub, log, &model, NULL))) goto cleanup;
    st = gs_prob_held_out(dev, &sub->tuning, &model, pair, perm + b, e - b, perm + b, log, held, dec);
cleanup:
    gs_model_free(&model);
    gs_problem_free(&part);
    free(held);
    return st;
}

/* Every fold's held-out decision values into dec, the folds' trainings solved together as one
 * device batch over one upload of pair (gs_svm_train_folds), each printing its lines in fold order
 * as fold_decisions would. Folds whose training rows hold one class or none are fold_decisions'
 * case alone: then nothing is trained or printed here.
 * @return GS_OK, GS_ERR_UNSUPPORTED (nothing printed: the caller goes fold by fold) or the error */
static gs_status folds_together(const gs_device_provider *dev, const gs_problem *pair, const gs_param *sub,
                                const int *perm, const int *start, const gs_log *log, double *dec)
{
    const int n = pair->l;
    int npos = 0;
    for (int j = 0; j < n; j++) npos += pair->y[j] > 0;
    for (int f = 0; f < GS_PROB_FOLDS; f++) {
        int fpos = 0;
        for (int j = start[f]; j < start[f + 1]; j++) fpos += pair->y[perm[j]] > 0;
        const int fneg = start[f + 1] - start[f] - fpos;
        if (npos - fpos == 0 || (n - npos) - fneg == 0) return GS_ERR_UNSUPPORTED;
    }
    gs_model models[GS_PROB_FOLDS];
    memset(models, 0, sizeof models);
    double *held = malloc(sizeof *held * (size_t)(n ? n : 1));
    gs_status st = GS_OK;
    if (!held) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d decision values", n); goto cleanup; }
    if ((st = gs_svm_train_folds(dev, pair, sub, NULL, 1, log, GS_PROB_FOLDS, perm, start, models))) goto cleanup;
    for (int f = 0; f < GS_PROB_FOLDS && st == GS_OK; f++)
        st = gs_prob_held_out(dev, &sub->tuning, &models[f], pair, perm + start[f], start[f + 1] - start[f],
                              perm + start[f], log, held, dec);
cleanup:
    for (int f = 0; f < GS_PROB_FOLDS; f++) gs_model_free(&models[f]);
    free(held);
    return st;
}

int gs_prob_fold_start(int n, int f)
{
    return (int)((int64_t)f * n / GS_PROB_FOLDS);
}

gs_status gs_prob_train_pair(const gs_device_provider *dev, const gs_problem *pair, const gs_param *param, double Cp,
                             double Cn, const int *perm, const gs_log *log, double *probA, double *probB)
{
    const int n = pair->l;
    gs_status st = GS_OK;
    int *rows = malloc(sizeof *rows * (size_t)(n ? n : 1));
    double *dec = malloc(sizeof *dec * (size_t)(n ? n : 1));
    if (!rows || !dec) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d rows' probability folds", n); goto cleanup; }
    /* the fold trainings: C = 1 with the pair's C as class weights, so each class keeps its C */
    int wl[2] = {1, -1};
    double wv[2] = {Cp, Cn};
    gs_param sub = *param;
    sub.probability = 0;
    sub.C = 1.0;
    sub.nr_weight = 2;
    sub.weight_label = wl;
    sub.weight = wv;
    int start[GS_PROB_FOLDS + 1];
    for (int f = 0; f <= GS_PROB_FOLDS; f++) start[f] = gs_prob_fold_start(n, f);
    st = folds_together(dev, pair, &sub, perm, start, log, dec);
    if (st == GS_ERR_UNSUPPORTED) { /* a fold with one class, or values gs_svm_train_folds leaves to us */
        st = GS_OK;
        for (int f = 0; f < GS_PROB_FOLDS && st == GS_OK; f++)
            st = fold_decisions(dev, pair, &sub, perm, start[f], start[f + 1], rows, log, dec);
    }
    if (st != GS_OK) goto cleanup;
    int notes = 0;
    st = gs_prob_fit_sigmoid(n, dec, pair->y, &notes, probA, probB);
    gs_prob_print_notes(log, notes);
cleanup:
    free(rows); free(dec);
    return st;
}

gs_status gs_prob_train_svr(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                            gs_glibc_rand *rng, const gs_log *log, double *sigma)
{
    const int l = prob->l;
    /* LIBSVM divides by zero here (its cross-validation over no rows) */
    if (l == 0) return GS_FAIL(GS_ERR_ARG, "probability training (-b 1) needs training data: the training set is empty");
    double *res = malloc(sizeof *res * (size_t)l);
    if (!res) return GS_FAIL(GS_ERR_NOMEM, "out of memory for %d residuals", l);
    gs_param sub = *param;
    sub.probability = 0;
    const gs_status st = gs_cross_validation_rand(dev, prob, &sub, GS_PROB_FOLDS, rng, log, res);
    if (st == GS_OK) {
        double mae = 0;
        for (int i = 0; i < l; i++) {
            res[i] = prob->y[i] - res[i];
            mae += fabs(res[i]);
        }
        mae /= l;
        /* a Laplace fit with the rows whose residual is beyond 5 std of the first fit left out */
        const double std = sqrt(2 * mae * mae);
        int count = 0;
        mae = 0;
        for (int i = 0; i < l; i++) {
            if (fabs(res[i]) > 5 * std) count++;
            else mae += fabs(res[i]);
        }
        mae /= (l - count);
        gs_log_info(log, "Prob. model for test data: target value = predicted value + z,\nz: Laplace distribution "
                         "e^(-|z|/sigma)/(2sigma),sigma= %g\n", mae);
        *sigma = mae;
    }
    free(res);
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

gs_status gs_prob_one_class_marks(const gs_model *m, const gs_problem *prob, double **marks)
{
    enum { NMARKS = 10, MID = NMARKS / 2 };
    const int l = prob->l;
    gs_status st = GS_OK;
    *marks = NULL;
    double *dec = malloc(sizeof *dec * (size_t)(l ? l : 1));
    int *rows = malloc(sizeof *rows * (size_t)(l ? l : 1));
    if (!dec || !rows) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d decision values", l); goto cleanup; }
    for (int i = 0; i < l; i++) rows[i] = i;
    if ((st = gs_cross_validation_dec(NULL, NULL, m, prob, rows, l, NULL, dec))) goto cleanup;
    qsort(dec, (size_t)l, sizeof *dec, cmp_double);
    int neg = 0;
    while (neg < l && dec[neg] < 0) neg++;
    const int pos = l - neg;
    if (neg < MID || pos < MID) {
        fprintf(stderr, "WARNING: number of positive or negative decision values <%d; too few to do a probability "
                        "estimation.\n", MID);
        goto cleanup;
    }
    /* 11 points: MID quantiles of the negative values (from the smallest), 0, then MID quantiles
     * of the others ending at the largest; the marks are the midpoints (the indices reproduce
     * svm-train 3.37's marks exactly, golden upstream337_oneclass_prob) */
    double pt[NMARKS + 1];
    for (int i = 0; i < MID; i++) pt[i] = dec[(int64_t)i * neg / MID];
    pt[MID] = 0;
    for (int i = MID + 1; i <= NMARKS; i++) pt[i] = dec[neg - 1 + (int64_t)(i - MID) * pos / MID];
    if (!(*marks = malloc(sizeof **marks * NMARKS))) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
    for (int i = 0; i < NMARKS; i++) (*marks)[i] = (pt[i] + pt[i + 1]) / 2;
cleanup:
    free(dec);
    free(rows);
    return st;
}
