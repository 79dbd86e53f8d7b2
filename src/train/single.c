/* single.c — the SVM types that are one problem over every row, as LIBSVM 3.24 sets them up
 * (compat §6.1), on the device solver:
 *   one-class:   l variables, y = +1, C = 1, p = 0, alpha starting at 1 for the first floor(nu l)
 *                rows and nu l - floor(nu l) for the next (so the start's gradient Q a0 is computed
 *                first, by the certification's exact gradient pass);
 *   epsilon-SVR: 2l variables over the l rows (range A: alpha with y = +1, p = eps - z; range B, the
 *                same clusters: alpha* with y = -1, p = eps + z), C, alpha starting at 0;
 *   nu-SVR:      the same 2l variables with p = -z / +z, the nu rule, and alpha = alpha* = min(C,
 *                what is left of C nu l / 2) row by row (a non-zero start, as one-class).
 * The model keeps the rows whose coefficient (alpha, or alpha - alpha*) is non-zero, in file order.
 * Prints LIBSVM's lines for the type (no "Total nSV"). Regression with -b 1 first runs LIBSVM
 * 3.24's probability cross-validation (its fold lines and the "Prob. model" lines come before the
 * model's own, as svm-train prints them) and stores sigma as probA; one-class with -b 1 (allowed
 * by --one-class-prob only) gets LIBSVM 3.30+'s prob_density_marks from the trained model. */
#include "train/single.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/cluster.h"
#include "data/precomputed.h"
#include "train/probability.h"
#include "train/run.h"
#include "train/shrink.h"
#include "train/solver.h"
#include "util/pages.h"

/* The model from the coefficients coef[l] (rows in file order), rho and the parameters. */
static gs_status build_model(const gs_problem *prob, const gs_param *param, const double *coef, double rho,
                             gs_model *m)
{
    m->svm_type = param->svm_type;
    m->kernel_type = param->kernel_type;
    m->degree = param->degree;
    m->gamma = param->gamma;
    m->coef0 = param->coef0;
    m->nr_class = 2;
    m->n_coef = 1;
    int32_t nsv = 0;
    int64_t nnz = 0;
    const int id_only = param->kernel_type == GS_KERNEL_PRECOMPUTED; /* SVs keep only 0:ID */
    for (int32_t i = 0; i < prob->l; i++)
        if (coef[i] != 0) { nsv++; nnz += gs_sv_end(prob, i, id_only) - prob->row_ptr[i]; }
    m->l = nsv;
    m->rho = malloc(sizeof(double));
    m->sv_coef = malloc(sizeof(double) * (size_t)(nsv ? nsv : 1));
    m->sv_ptr = malloc(sizeof(int64_t) * ((size_t)nsv + 1));
    m->sv_idx = malloc(sizeof(int32_t) * (size_t)(nnz ? nnz : 1));
    m->sv_val = malloc(sizeof(double) * (size_t)(nnz ? nnz : 1));
    m->sv_indices = malloc(sizeof(int32_t) * (size_t)(nsv ? nsv : 1)); /* svm.h's sv_indices */
    if (!m->rho || !m->sv_coef || !m->sv_ptr || !m->sv_idx || !m->sv_val || !m->sv_indices)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for the model");
    m->rho[0] = rho;
    m->sv_ptr[0] = 0;
    int32_t s = 0;
    int64_t o = 0;
    for (int32_t i = 0; i < prob->l; i++) {
        if (coef[i] == 0) continue;
        m->sv_coef[s] = coef[i];
        m->sv_indices[s] = i + 1;
        for (int64_t e = prob->row_ptr[i]; e < gs_sv_end(prob, i, id_only); e++, o++) {
            m->sv_idx[o] = prob->idx[e];
            m->sv_val[o] = prob->val[e]; /* the float, exactly; made decimal below */
        }
        m->sv_ptr[++s] = o;
    }
    gs_model_sv_values(m->sv_val, nnz);
    return GS_OK;
}

/* The problem's variables: n = l (one-class) or 2l (epsilon-SVR); alpha's start, p and the
 * solver's spec over the clustered rows. */
static void set_up(const gs_problem *prob, const gs_param *param, const gs_clustered *cl, double *alpha, double *p,
                   gs_run_item *it)
{
    const int32_t l = prob->l;
    gs_binary_spec *sp = &it->spec;
    sp->a0 = 0;
    sp->na = cl->n_clusters;
    sp->rowA0 = 0;
    sp->nrowA = l;
    sp->alpha = alpha;
    sp->p_lin = p;
    if (param->svm_type == GS_ONE_CLASS) {
        const double nul = param->nu * l;
        const int32_t n = (int32_t)nul;
        for (int32_t i = 0; i < l; i++) { alpha[i] = i < n ? 1.0 : 0.0; p[i] = 0.0; }
        if (n < l) alpha[n] = nul - n;
        sp->b0 = 0; sp->nb = 0; sp->rowB0 = l;
        sp->Cp = sp->Cn = 1.0;
        it->n = it->ni = l;
        snprintf(it->name, sizeof it->name, "one-class");
    } else {
        const int nu = param->svm_type == GS_NU_SVR;
        double budget = param->C * param->nu * l / 2;
        for (int32_t i = 0; i < l; i++) {
            double a0 = 0;
            if (nu) {
                a0 = budget < param->C ? budget : param->C;
                budget -= a0;
            }
            alpha[i] = alpha[l + i] = a0;
            p[i] = (nu ? 0 : param->p) - prob->y[i];
            p[l + i] = (nu ? 0 : param->p) + prob->y[i];
        }
        sp->nu_rule = nu;
        sp->b0 = 0; sp->nb = cl->n_clusters; sp->rowB0 = 0;
        sp->Cp = sp->Cn = param->C;
        it->n = 2 * l;
        it->ni = l;
        snprintf(it->name, sizeof it->name, nu ? "nu-SVR" : "epsilon-SVR");
    }
}

/* Solves the set-up problem to a certified optimum; a non-zero start (one-class, nu-SVR) first
 * has its gradient p + Q a0 computed exactly (gs_run_start_gradients). */
static gs_status solve(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                       const gs_clustered *cl, gs_run_item *it, const gs_log *log, gs_train_stats *stats)
{
    gs_run_pool *solver = NULL;
    int8_t *ysign = malloc((size_t)(prob->l ? prob->l : 1));
    gs_status st = GS_OK;
    if (!ysign) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    memset(ysign, 1, (size_t)prob->l);
    if ((st = gs_run_open_solver(dev, param, 2, prob->l, prob->row_ptr, cl, log, stats, &solver))) goto cleanup;
    if (param->svm_type == GS_ONE_CLASS || param->svm_type == GS_NU_SVR) {
        if ((st = gs_run_start_gradients(solver, cl, ysign, it, 1, stats))) goto cleanup;
    } else {
        it->spec.g_init = it->spec.p_lin; /* alpha = 0: G = p */
    }
    /* -h 1 on a large one-class or epsilon-SVR problem: its stages over fewer rows */
    st = gs_shrink_wanted(param, prob->l) ? gs_shrink_certified(solver, param, prob, cl, ysign, it, 0, log, stats)
                                          : gs_run_certified(solver, cl, ysign, it, 1, param->eps, 0, log, stats);
cleanup:
    gs_run_pool_free(solver);
    free(ysign);
    return st;
}

/* LIBSVM's lines after the solve (compat §2.4): nu for epsilon-SVR, obj and rho, nSV and nBSV. */
static void print_result(const gs_param *param, const gs_problem *prob, const double *coef, const gs_run_item *it,
                         const gs_log *log)
{
    const double bound = param->svm_type == GS_ONE_CLASS ? 1.0 : param->C;
    double sum = 0;
    int nsv = 0, nbsv = 0;
    for (int32_t i = 0; i < prob->l; i++) {
        sum += fabs(coef[i]);
        if (coef[i] != 0) {
            nsv++;
            if (fabs(coef[i]) >= bound) nbsv++;
        }
    }
    gs_run_warn(&it->res);
    gs_log_info(log, "*\noptimization finished, #iter = %ld\n", it->res.iterations);
    if (param->svm_type == GS_EPSILON_SVR) gs_log_info(log, "nu = %f\n", sum / (param->C * prob->l));
    if (param->svm_type == GS_NU_SVR) gs_log_info(log, "epsilon = %f\n", -it->res.r);
    gs_log_info(log, "obj = %f, rho = %f\n", it->res.obj, it->res.rho);
    gs_log_info(log, "nSV = %d, nBSV = %d\n", nsv, nbsv);
    gs_log_verbose(log, "gpusvm: %s: %ld rounds, %ld inner steps\n", it->name, it->res.iterations,
                   it->res.inner_steps);
}

/* LIBSVM on an empty training file: no iteration, rho NaN, no SV; epsilon-SVR's nu is 0/0, which
 * glibc prints "-nan" (golden badinput/train_empty_svr, train_empty_oneclass). */
static gs_status train_empty(const gs_problem *prob, const gs_param *param, const gs_log *log, gs_model *model)
{
    gs_log_info(log, "*.*\noptimization finished, #iter = 0\n");
    if (param->svm_type == GS_EPSILON_SVR) gs_log_info(log, "nu = %f\n", -NAN);
    if (param->svm_type == GS_NU_SVR) gs_log_info(log, "epsilon = %f\n", -NAN);
    gs_log_info(log, "obj = %f, rho = %f\n", 0.0, NAN);
    gs_log_info(log, "nSV = 0, nBSV = 0\n");
    return build_model(prob, param, NULL, NAN, model);
}

gs_status gs_train_single(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                          gs_glibc_rand *rng, const gs_log *log, gs_model *model, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    const int32_t l = prob->l;
    const int32_t n = param->svm_type == GS_ONE_CLASS ? l : 2 * l;
    double *alpha = malloc(sizeof(double) * (size_t)(n ? n : 1)), *p = malloc(sizeof(double) * (size_t)(n ? n : 1));
    double *gx = malloc(sizeof(double) * (size_t)(n ? n : 1)), *ex = malloc(sizeof(double) * (size_t)(n ? n : 1));
    double *coef = calloc((size_t)(l ? l : 1), sizeof(double));
    gs_clustered cl = {0};
    gs_run_item it;
    const double t_start = gs_now();
    const int svr_prob = param->probability && param->svm_type != GS_ONE_CLASS;
    double sigma = 0;
    memset(model, 0, sizeof *model);
    memset(&it, 0, sizeof it);
    if (!alpha || !p || !gx || !ex || !coef) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d variables", n); goto cleanup; }
    gs_pages_touch(gx, sizeof(double) * (size_t)n); /* the certification's, faulted in before the device is waited for */
    gs_pages_touch(ex, sizeof(double) * (size_t)n);
    if (svr_prob && (st = gs_prob_train_svr(dev, prob, param, rng, log, &sigma))) goto cleanup;
    if (l == 0) { st = train_empty(prob, param, log, model); goto cleanup; }
    int finite = 1;
    for (int64_t e = 0; e < prob->nnz && finite; e++) finite = isfinite(prob->val[e]) != 0;
    if (!finite) {
        /* LIBSVM's answer for a NaN/inf feature: one iteration, no SV, obj and rho NaN (as the
         * classification driver does); the device is not involved */
        it.res.iterations = 1;
        it.res.obj = it.res.rho = NAN;
    } else {
        const int32_t one_seg[2] = {0, l};
        if ((st = gs_solver_cluster(param, prob->row_ptr, prob->idx, prob->val, l, 1, one_seg, &cl))) goto cleanup;
        set_up(prob, param, &cl, alpha, p, &it);
        it.spec.g_exact = gx;
        it.spec.g_err = ex;
        if ((st = solve(dev, prob, param, &cl, &it, log, stats))) goto cleanup;
        for (int32_t i = 0; i < l; i++) coef[i] = param->svm_type == GS_ONE_CLASS ? alpha[i] : alpha[i] - alpha[l + i];
    }
    print_result(param, prob, coef, &it, log);
    if ((st = build_model(prob, param, coef, it.res.rho, model))) goto cleanup;
    if (svr_prob) {
        if (!(model->probA = malloc(sizeof(double)))) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
        model->probA[0] = sigma;
    }
    if (param->probability && param->svm_type == GS_ONE_CLASS &&
        (st = gs_prob_one_class_marks(model, prob, &model->prob_density_marks)))
        goto cleanup;
    if (stats) {
        stats->t_model_ready = gs_now();
        stats->total = stats->t_model_ready - t_start;
    }
cleanup:
    if (st != GS_OK) gs_model_free(model);
    gs_clustered_free(&cl);
    free(alpha); free(p); free(gx); free(ex); free(coef);
    return st;
}

/* Fold f of cross-validation over the whole set's clustering cl: the problem set_up gives for the
 * fold's rows sub (rows[i]: sub's row i in prob; LIBSVM's start over them in fold order), moved
 * onto the whole set's rows with the other rows left out (skip). alpha, p, skip have room for
 * the whole set's variables (l or 2l). */
static void set_up_fold(const gs_problem *prob, const gs_problem *sub, const int32_t *rows, const gs_param *param,
                        const gs_clustered *cl, double *alpha, double *p, uint8_t *skip, double *scratch,
                        gs_run_item *it)
{
    const int32_t l = prob->l, lf = sub->l, two = param->svm_type != GS_ONE_CLASS;
    double *af = scratch, *pf = scratch + 2 * (size_t)lf;
    set_up(sub, param, cl, af, pf, it);
    for (int32_t t = 0; t < (two ? 2 * l : l); t++) { alpha[t] = 0; p[t] = 0; skip[t] = 1; }
    for (int32_t i = 0; i < lf; i++)
        for (int h = 0; h <= two; h++) {
            const int64_t t = (int64_t)h * l + rows[i];
            alpha[t] = af[(int64_t)h * lf + i];
            p[t] = pf[(int64_t)h * lf + i];
            skip[t] = 0;
        }
    gs_binary_spec *sp = &it->spec;
    sp->nrowA = l;
    sp->rowB0 = two ? 0 : l;
    sp->alpha = alpha;
    sp->p_lin = p;
    sp->skip = skip;
    it->n = two ? 2 * l : l;
    it->ni = l;
}

gs_status gs_train_single_folds(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                                const gs_log *log, int nr_fold, const int *perm, const int *start, gs_model *models)
{
    gs_status st = GS_OK;
    const int32_t l = prob->l, n = param->svm_type == GS_ONE_CLASS ? l : 2 * l;
    const size_t nn = (size_t)nr_fold * (size_t)(n ? n : 1);
    gs_clustered cl = {0};
    gs_run_pool *solver = NULL;
    gs_problem *subs = calloc((size_t)nr_fold, sizeof *subs);
    gs_run_item *items = calloc((size_t)nr_fold, sizeof *items);
    int32_t *rows = malloc(sizeof *rows * (size_t)nr_fold * (size_t)(l ? l : 1));
    int8_t *ysign = malloc((size_t)(l ? l : 1));
    uint8_t *skip = malloc(nn);
    double *alpha = malloc(sizeof *alpha * nn), *p = malloc(sizeof *p * nn), *gx = malloc(sizeof *gx * nn);
    double *ex = malloc(sizeof *ex * nn), *scratch = malloc(sizeof *scratch * 4 * (size_t)(l ? l : 1));
    double *coef = malloc(sizeof *coef * (size_t)(l ? l : 1));
    if (!subs || !items || !rows || !ysign || !skip || !alpha || !p || !gx || !ex || !scratch || !coef) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d folds", nr_fold);
        goto cleanup;
    }
    gs_pages_touch(gx, sizeof *gx * nn); /* as gs_train_single's */
    gs_pages_touch(ex, sizeof *ex * nn);
    int usable = 1; /* else fold by fold: LIBSVM's answers for non-finite values or an empty fold */
    for (int64_t e = 0; e < prob->nnz && usable; e++) usable = isfinite(prob->val[e]) != 0;
    for (int f = 0; f < nr_fold && usable; f++) usable = start[f + 1] - start[f] < l;
    if (!usable) { st = GS_ERR_UNSUPPORTED; goto cleanup; }
    const int32_t one_seg[2] = {0, l};
    if ((st = gs_solver_cluster(param, prob->row_ptr, prob->idx, prob->val, l, 1, one_seg, &cl))) goto cleanup;
    for (int f = 0; f < nr_fold; f++) {
        int32_t *rf = rows + (size_t)f * l, m = 0;
        for (int j = 0; j < start[f]; j++) rf[m++] = perm[j];
        for (int j = start[f + 1]; j < start[nr_fold]; j++) rf[m++] = perm[j];
        if ((st = gs_problem_subset(prob, rf, m, &subs[f]))) goto cleanup;
        const size_t o = (size_t)f * n;
        set_up_fold(prob, &subs[f], rf, param, &cl, alpha + o, p + o, skip + o, scratch, &items[f]);
        items[f].spec.g_exact = gx + o;
        items[f].spec.g_err = ex + o;
        snprintf(items[f].name, sizeof items[f].name, "fold %d", f + 1);
        if (param->svm_type == GS_EPSILON_SVR) items[f].spec.g_init = items[f].spec.p_lin; /* alpha = 0: G = p */
    }
    memset(ysign, 1, (size_t)l);
    if ((st = gs_run_open_solver(dev, param, 2, l, prob->row_ptr, &cl, log, NULL, &solver)) ||
        (param->svm_type != GS_EPSILON_SVR && (st = gs_run_start_gradients(solver, &cl, ysign, items, nr_fold, NULL))) ||
        (st = gs_run_certified(solver, &cl, ysign, items, nr_fold, param->eps, 0, log, NULL)))
        goto cleanup;
    for (int f = 0; f < nr_fold; f++) {
        const int32_t *rf = rows + (size_t)f * l;
        const double *a = alpha + (size_t)f * n;
        for (int32_t i = 0; i < subs[f].l; i++)
            coef[i] = param->svm_type == GS_ONE_CLASS ? a[rf[i]] : a[rf[i]] - a[l + rf[i]];
        print_result(param, &subs[f], coef, &items[f], log);
        if ((st = build_model(&subs[f], param, coef, items[f].res.rho, &models[f]))) goto cleanup;
    }
cleanup:
    gs_run_pool_free(solver);
    gs_clustered_free(&cl);
    if (subs)
        for (int f = 0; f < nr_fold; f++) gs_problem_free(&subs[f]);
    free(subs); free(items); free(rows); free(ysign); free(skip); free(alpha); free(p); free(gx); free(ex);
    free(scratch); free(coef);
    return st;
}
