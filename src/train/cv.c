/* cv.c — see cv.h. The folds are drawn exactly as LIBSVM draws them (the same rand() calls in the
 * same order), so the same rows are held out together and each fold's model is LIBSVM's up to the
 * solver's tolerance. Held-out rows are predicted on the CPU with LIBSVM's arithmetic
 * (gs_pred_cpu_dec), on a few threads. */
#include "train/cv.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/classes.h"
#include "predict/predictor.h"
#include "util/glibc_rand.h"

/* perm[l]: the rows in fold order; fold f is perm[start[f] .. start[f+1]). */
static gs_status make_folds(const gs_problem *prob, const gs_param *param, int nr_fold, int *perm, int *start)
{
    const int l = prob->l;
    gs_glibc_rand g;
    gs_glibc_rand_init(&g, 1);
    const int stratified = (param->svm_type == GS_C_SVC || param->svm_type == GS_NU_SVC) && nr_fold < l;
    if (!stratified) {
        for (int i = 0; i < l; i++) perm[i] = i;
        for (int i = 0; i < l; i++) {
            const int j = i + gs_glibc_rand_next(&g) % (l - i);
            const int t = perm[i]; perm[i] = perm[j]; perm[j] = t;
        }
        for (int f = 0; f <= nr_fold; f++) start[f] = (int)((int64_t)f * l / nr_fold);
        return GS_OK;
    }
    gs_classes cls = {0};
    gs_status st = gs_classes_group(prob, &cls);
    if (st != GS_OK) return st;
    int *index = malloc(sizeof *index * (size_t)l), *fill = malloc(sizeof *fill * (size_t)nr_fold);
    if (!index || !fill) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for the folds"); goto cleanup; }
    memcpy(index, cls.order, sizeof *index * (size_t)l);
    /* a Fisher-Yates shuffle within each class, classes in LIBSVM's order */
    for (int c = 0; c < cls.k; c++)
        for (int i = 0; i < cls.count[c]; i++) {
            const int j = i + gs_glibc_rand_next(&g) % (cls.count[c] - i);
            const int a = cls.start[c] + i, b = cls.start[c] + j, t = index[a];
            index[a] = index[b]; index[b] = t;
        }
    /* fold f takes [f n_c / nr_fold, (f+1) n_c / nr_fold) of every class, classes in order */
    start[0] = 0;
    for (int f = 0; f < nr_fold; f++) {
        int n = 0;
        for (int c = 0; c < cls.k; c++)
            n += (int)((int64_t)(f + 1) * cls.count[c] / nr_fold - (int64_t)f * cls.count[c] / nr_fold);
        start[f + 1] = start[f] + n;
        fill[f] = start[f];
    }
    for (int c = 0; c < cls.k; c++)
        for (int f = 0; f < nr_fold; f++) {
            const int b = cls.start[c] + (int)((int64_t)f * cls.count[c] / nr_fold);
            const int e = cls.start[c] + (int)((int64_t)(f + 1) * cls.count[c] / nr_fold);
            for (int j = b; j < e; j++) perm[fill[f]++] = index[j];
        }
cleanup:
    free(index);
    free(fill);
    gs_classes_free(&cls);
    return st;
}

/* The held-out rows' predictions, split over threads. */
typedef struct pred_job {
    const gs_model *m;
    const gs_rows *rows;
    const int *perm;    /* held-out row r of rows is perm[r] of the problem */
    double *target;
    int t, nt;
    gs_status st;
} pred_job;

static void *pred_rows(void *arg)
{
    pred_job *j = arg;
    const int nd = gs_pred_n_dec(j->m);
    double *dec = malloc(sizeof *dec * (size_t)(nd ? nd : 1));
    int *votes = malloc(sizeof *votes * (size_t)(j->m->nr_class > 0 ? j->m->nr_class : 1));
    j->st = GS_OK;
    if (!dec || !votes) { j->st = GS_ERR_NOMEM; goto cleanup; }
    for (int32_t r = j->t; r < j->rows->l; r += j->nt) {
        if ((j->st = gs_pred_cpu_dec(j->m, j->rows, r, dec))) break;
        j->target[j->perm[r]] = gs_pred_outcome(j->m, dec, votes);
    }
cleanup:
    free(dec);
    free(votes);
    return NULL;
}

/* Predicts the held-out rows perm[0..n) of prob with m into target. */
static gs_status predict_fold(const gs_model *m, const gs_problem *prob, const int *perm, int n, double *target)
{
    gs_rows rows = {0};
    gs_status st = GS_OK;
    int64_t nnz = 0;
    for (int i = 0; i < n; i++) nnz += prob->row_ptr[perm[i] + 1] - prob->row_ptr[perm[i]];
    rows.row_ptr = malloc(sizeof *rows.row_ptr * ((size_t)n + 1));
    rows.idx = malloc(sizeof *rows.idx * (size_t)(nnz ? nnz : 1));
    rows.val = malloc(sizeof *rows.val * (size_t)(nnz ? nnz : 1));
    rows.y = calloc((size_t)(n ? n : 1), sizeof *rows.y);
    if (!rows.row_ptr || !rows.idx || !rows.val || !rows.y) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
    int64_t o = 0;
    rows.row_ptr[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int64_t k = prob->row_ptr[perm[i]]; k < prob->row_ptr[perm[i] + 1]; k++, o++) {
            rows.idx[o] = prob->idx[k];
            rows.val[o] = prob->val[k];
        }
        rows.row_ptr[i + 1] = o;
    }
    rows.l = n;
    long nt = sysconf(_SC_NPROCESSORS_ONLN);
    nt = nt < 1 ? 1 : (nt > 16 ? 16 : nt);
    if (nt > n / 64 + 1) nt = n / 64 + 1;
    pthread_t th[16];
    pred_job jobs[16];
    int started = 0;
    for (int t = 0; t < nt; t++) {
        jobs[t] = (pred_job){.m = m, .rows = &rows, .perm = perm, .target = target, .t = t, .nt = (int)nt};
        if (t > 0 && pthread_create(&th[t], NULL, pred_rows, &jobs[t]) == 0) started |= 1 << t;
        else if (t > 0) pred_rows(&jobs[t]);
    }
    pred_rows(&jobs[0]);
    for (int t = 1; t < nt; t++)
        if (started & (1 << t)) pthread_join(th[t], NULL);
    for (int t = 0; t < nt && st == GS_OK; t++)
        if (jobs[t].st != GS_OK) st = jobs[t].st == GS_ERR_NOMEM ? GS_FAIL(GS_ERR_NOMEM, "out of memory") : jobs[t].st;
cleanup:
    free(rows.row_ptr); free(rows.idx); free(rows.val); free(rows.y);
    return st;
}

gs_status gs_cross_validation(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                              int nr_fold, const gs_log *log, double *target)
{
    const int l = prob->l;
    if (l == 0) /* LIBSVM divides by zero here (SIGFPE, golden badinput/train_empty_cv) */
        return GS_FAIL(GS_ERR_ARG, "cross validation needs training data: the training set is empty");
    if (nr_fold > l) {
        fprintf(stderr, "WARNING: # folds > # data. Will use # folds = # data instead (i.e., leave-one-out cross "
                        "validation)\n");
        nr_fold = l;
    }
    gs_status st = GS_OK;
    int *perm = malloc(sizeof *perm * (size_t)(l ? l : 1)), *start = malloc(sizeof *start * ((size_t)nr_fold + 1));
    int *train_rows = malloc(sizeof *train_rows * (size_t)(l ? l : 1));
    gs_problem sub = {0};
    gs_model m = {0};
    gs_model *models = calloc((size_t)nr_fold, sizeof *models);
    if (!perm || !start || !train_rows || !models) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d folds", nr_fold);
        goto cleanup;
    }
    if ((st = make_folds(prob, param, nr_fold, perm, start))) goto cleanup;
    /* classification: every fold over one upload (trainer.h); else, or for non-finite values, fold by
     * fold on its own rows */
    st = gs_svm_train_folds(dev, prob, param, log, nr_fold, perm, start, models);
    if (st == GS_OK) {
        for (int f = 0; f < nr_fold; f++)
            if ((st = predict_fold(&models[f], prob, perm + start[f], start[f + 1] - start[f], target))) goto cleanup;
        goto cleanup;
    }
    if (st != GS_ERR_UNSUPPORTED) goto cleanup;
    st = GS_OK;
    for (int f = 0; f < nr_fold; f++) {
        const int b = start[f], e = start[f + 1];
        int n = 0;
        for (int j = 0; j < b; j++) train_rows[n++] = perm[j];
        for (int j = e; j < l; j++) train_rows[n++] = perm[j];
        if ((st = gs_problem_subset(prob, train_rows, n, &sub))) goto cleanup;
        if ((st = gs_svm_train(dev, &sub, param, log, &m, NULL))) goto cleanup;
        if ((st = predict_fold(&m, prob, perm + b, e - b, target))) goto cleanup;
        gs_model_free(&m);
        gs_problem_free(&sub);
    }
cleanup:
    if (models)
        for (int f = 0; f < nr_fold; f++) gs_model_free(&models[f]);
    free(models);
    gs_model_free(&m);
    gs_problem_free(&sub);
    free(perm); free(start); free(train_rows);
    return st;
}

void gs_cross_validation_print(const gs_problem *prob, const gs_param *param, const double *target)
{
    const int l = prob->l;
    if (param->svm_type == GS_EPSILON_SVR || param->svm_type == GS_NU_SVR) {
        double err = 0, sv = 0, sy = 0, svv = 0, syy = 0, svy = 0;
        for (int i = 0; i < l; i++) {
            const double y = prob->y[i], v = target[i];
            err += (v - y) * (v - y);
            sv += v; sy += y; svv += v * v; syy += y * y; svy += v * y;
        }
        printf("Cross Validation Mean squared error = %g\n", err / l);
        printf("Cross Validation Squared correlation coefficient = %g\n",
               ((l * svy - sv * sy) * (l * svy - sv * sy)) / ((l * svv - sv * sv) * (l * syy - sy * sy)));
    } else {
        int correct = 0;
        for (int i = 0; i < l; i++)
            if (target[i] == prob->y[i]) correct++;
        printf("Cross Validation Accuracy = %g%%\n", 100.0 * correct / l);
    }
}
