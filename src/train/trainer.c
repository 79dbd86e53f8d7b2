/* trainer.c — gs_svm_train: LIBSVM's classification driver around the device solver. Classes are
 * grouped by (int)label in first-appearance order (a -1/+1 pair is stored as "1 -1"), each
 * one-vs-one pair (i,j) is solved with class i as +1 and class j as -1 and C_i = C*w_i, and the
 * model takes LIBSVM's layout (SVs grouped by class, coefficient column j-1 for class i and i for
 * class j). Every pair's solution is certified before the model is kept (certify.h): the pairs
 * whose recomputed gap is not below eps are resumed from the exact gradients. Prints LIBSVM's
 * per-pair lines (with the certified obj and rho) and "Total nSV". With -b 1, each pair's
 * probability folds (train/probability.h) run after the batch, just before the pair's lines are
 * printed, which is where svm-train prints them (it trains pair by pair). */
#include "train/trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/classes.h"
#include "data/cluster.h"
#include "data/precomputed.h"
#include "train/probability.h"
#include "train/run.h"
#include "train/single.h"
#include "train/solver.h"

/* One pair's solution: alpha[n_i + n_j], class i rows then class j rows (file order). */
typedef struct pair_out {
    double *alpha;
    gs_binary_result res;
} pair_out;

/* The model's support vectors and coefficient columns from the pairs' alphas (any previous SVs
 * are replaced): SVs grouped by class in file order, column j-1 for class i's rows (y = +1) and
 * column i for class j's (y = -1). Values through gs_model_sv_values. nonzero[l] and
 * coef_rows[l * (k-1)] are scratch. */
static gs_status model_svs(const gs_problem *prob, const gs_classes *cls, int (*pairs)[2], const pair_out *out,
                           int *nonzero, double *coef_rows, gs_model *model)
{
    const int k = cls->k, l = prob->l, npair = k * (k - 1) / 2;
    memset(nonzero, 0, sizeof *nonzero * (size_t)(l ? l : 1));
    memset(coef_rows, 0, sizeof *coef_rows * (size_t)(l ? l : 1) * (size_t)(k > 1 ? k - 1 : 1));
    for (int p = 0; p < npair; p++) {
        const int i = pairs[p][0], j = pairs[p][1], ni = cls->count[i], n = ni + cls->count[j];
        for (int t = 0; t < n; t++) {
            const double a = out[p].alpha[t];
            const int grouped = t < ni ? cls->start[i] + t : cls->start[j] + (t - ni);
            if (a > 0) nonzero[cls->order[grouped]] = 1;
            coef_rows[(size_t)grouped * (size_t)(k - 1) + (size_t)(t < ni ? j - 1 : i)] = t < ni ? a : -a;
        }
    }
    free(model->sv_coef); free(model->sv_ptr); free(model->sv_idx); free(model->sv_val);
    model->sv_coef = NULL; model->sv_ptr = NULL; model->sv_idx = NULL; model->sv_val = NULL;
    memset(model->nSV, 0, sizeof(int) * (size_t)(k ? k : 1));
    int total = 0;
    int64_t nnz = 0;
    /* a -t 4 SV keeps only its 0:ID, all svm-train writes and svm-predict reads */
    const int id_only = model->kernel_type == GS_KERNEL_PRECOMPUTED;
    for (int g = 0; g < l; g++) {
        const int r = cls->order[g];
        if (!nonzero[r]) continue;
        total++;
        model->nSV[cls->of_row[r]]++;
        nnz += gs_sv_end(prob, r, id_only) - prob->row_ptr[r];
    }
    model->l = total;
    model->sv_coef = calloc((size_t)(total ? total : 1) * (size_t)(k > 1 ? k - 1 : 1), sizeof(double));
    model->sv_ptr = malloc(sizeof(int64_t) * ((size_t)total + 1));
    model->sv_idx = malloc(sizeof(int32_t) * (size_t)(nnz ? nnz : 1));
    model->sv_val = malloc(sizeof(double) * (size_t)(nnz ? nnz : 1));
    free(model->sv_indices);
    model->sv_indices = malloc(sizeof(int32_t) * (size_t)(total ? total : 1)); /* svm.h's sv_indices */
    if (!model->sv_coef || !model->sv_ptr || !model->sv_idx || !model->sv_val || !model->sv_indices)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for the model");
    int s = 0;
    int64_t o = 0;
    model->sv_ptr[0] = 0;
    for (int g = 0; g < l; g++) {
        const int r = cls->order[g];
        if (!nonzero[r]) continue;
        if (k > 1) memcpy(model->sv_coef + (size_t)s * (size_t)(k - 1), coef_rows + (size_t)g * (size_t)(k - 1),
                          sizeof(double) * (size_t)(k - 1));
        for (int64_t e = prob->row_ptr[r]; e < gs_sv_end(prob, r, id_only); e++, o++) {
            model->sv_idx[o] = prob->idx[e];
            model->sv_val[o] = prob->val[e]; /* the float, exactly; made decimal below */
        }
        model->sv_indices[s] = r + 1;
        model->sv_ptr[++s] = o;
    }
    gs_model_sv_values(model->sv_val, nnz);
    return GS_OK;
}

/* C_i = C * w_i for each class (LIBSVM's -wi; a label that is not in the data is warned about). */
static void class_weights(const gs_param *param, const gs_classes *cls, double *cw, int warn)
{
    for (int j = 0; j < cls->k; j++) cw[j] = param->C;
    for (int w = 0; w < param->nr_weight; w++) {
        int j = 0;
        while (j < cls->k && cls->label[j] != param->weight_label[w]) j++;
        if (j == cls->k && warn) fprintf(stderr, "WARNING: class label %d specified in weight is not found\n", param->weight_label[w]);
        else if (j < cls->k) cw[j] *= param->weight[w];
    }
}

/* What every pair's problem is laid out over: the classes, their clusters and the arrays that hold
 * all pairs' alphas, exact gradients, bounds and (nu-SVC) zero linear terms at the same offsets. */
typedef struct pair_layout {
    const gs_param *param;
    const gs_classes *cls;
    const gs_clustered *cl;
    int k, l, nu;
    const double *cw;
    double *alpha_all, *gx_all, *ex_all, *zeros;
} pair_layout;

/* The problem of pair (i, j): class i's clusters (y = +1) then class j's (y = -1); C-SVC's bounds
 * C_i, C_j and alpha = 0, or nu-SVC's bounds 1, p = 0 and each class starting with nu n / 2
 * spread in row order (compat §6.1). */
static void set_up_pair(const pair_layout *lay, int i, int j, pair_out *o, gs_run_item *it)
{
    const gs_classes *cls = lay->cls;
    gs_binary_spec *sp = &it->spec;
    const int64_t off = o->alpha - lay->alpha_all;
    const int n = cls->count[i] + cls->count[j];
    it->n = n;
    it->ni = cls->count[i];
    snprintf(it->name, sizeof it->name, "pair %d-%d", cls->label[i], cls->label[j]);
    if (lay->k == 2) {
        sp->a0 = 0; sp->na = lay->cl->n_clusters; sp->b0 = 0; sp->nb = 0;
        sp->rowA0 = 0; sp->nrowA = lay->l; sp->rowB0 = lay->l;
    } else {
        sp->a0 = lay->cl->seg_cl[i]; sp->na = lay->cl->seg_cl[i + 1] - lay->cl->seg_cl[i];
        sp->b0 = lay->cl->seg_cl[j]; sp->nb = lay->cl->seg_cl[j + 1] - lay->cl->seg_cl[j];
        sp->rowA0 = cls->start[i]; sp->nrowA = cls->count[i]; sp->rowB0 = cls->start[j];
    }
    if (lay->nu) {
        sp->Cp = sp->Cn = 1;
        sp->nu_rule = 1;
        sp->p_lin = lay->zeros + off;
        double left[2] = {lay->param->nu * n / 2, lay->param->nu * n / 2};
        for (int t = 0; t < n; t++) {
            double *b = &left[t >= cls->count[i]];
            o->alpha[t] = *b < 1 ? *b : 1;
            *b -= o->alpha[t];
        }
    } else {
        sp->Cp = lay->cw[i];
        sp->Cn = lay->cw[j];
    }
    sp->alpha = o->alpha;
    sp->g_exact = lay->gx_all + off;
    sp->g_err = lay->ex_all + off;
}

/* LIBSVM's lines for pair p (compat §2.4; nu-SVC: "C = 1/r", its bound 1/r), and its rho into the
 * model. */
static void print_pair(const gs_log *log, const gs_classes *cls, int (*pairs)[2], const pair_out *out,
                       const double *cw, int nu, int p, gs_model *model)
{
    const int i = pairs[p][0], j = pairs[p][1];
    const int ni = cls->count[i], nj = cls->count[j], n = ni + nj;
    const double *alpha_pair = out[p].alpha;
    const gs_binary_result *res = &out[p].res;
    if (res->max_iter_hit) fprintf(stderr, "\nWARNING: reaching max number of iterations\n");
    double suma = 0;
    int nsv = 0, nbsv = 0;
    for (int t = 0; t < n; t++) {
        const double a = alpha_pair[t];
        suma += a;
        if (a > 0) {
            nsv++;
            if (a >= (nu ? 1 / res->r : (t < ni ? cw[i] : cw[j]))) nbsv++;
        }
    }
    model->rho[p] = res->rho;
    gs_log_info(log, "*\noptimization finished, #iter = %ld\n", res->iterations);
    if (nu) gs_log_info(log, "C = %f\n", 1 / res->r);
    else if (cw[i] == cw[j]) gs_log_info(log, "nu = %f\n", suma / (cw[i] * n));
    gs_log_info(log, "obj = %f, rho = %f\n", res->obj, res->rho);
    gs_log_info(log, "nSV = %d, nBSV = %d\n", nsv, nbsv);
    gs_log_verbose(log, "gpusvm: pair %d-%d: %ld rounds, %ld inner steps\n", cls->label[i], cls->label[j],
                   res->iterations, res->inner_steps);
}

/* Pair (i, j)'s probA and probB: its rows as LIBSVM's pair problem (class i as +1, then class j
 * as -1) through gs_prob_train_pair with the classes' weighted C. */
static gs_status pair_probability(const gs_device_provider *dev, const gs_problem *prob, const gs_classes *cls,
                                  int i, int j, const double *cw, const gs_param *param, gs_glibc_rand *rng,
                                  const gs_log *log, double *probA, double *probB)
{
    const int ni = cls->count[i], n = ni + cls->count[j];
    gs_problem pair = {0};
    gs_status st = GS_OK;
    int *rows = malloc(sizeof *rows * (size_t)(n ? n : 1));
    if (!rows) return GS_FAIL(GS_ERR_NOMEM, "out of memory for %d rows", n);
    memcpy(rows, cls->order + cls->start[i], sizeof *rows * (size_t)ni);
    memcpy(rows + ni, cls->order + cls->start[j], sizeof *rows * (size_t)(n - ni));
    if ((st = gs_problem_subset(prob, rows, n, &pair))) goto cleanup;
    for (int t = 0; t < n; t++) pair.y[t] = t < ni ? 1 : -1;
    st = gs_prob_train_pair(dev, &pair, param, cw[i], cw[j], rng, log, probA, probB);
cleanup:
    gs_problem_free(&pair);
    free(rows);
    return st;
}

/* Every pair's lines in pair order and its rho into the model; with -b 1 the model's probA/probB,
 * each pair's probability folds run just before its lines (svm-train's order). */
static gs_status finish_pairs(const gs_device_provider *dev, const gs_problem *prob, const gs_classes *cls,
                              int (*pairs)[2], const pair_out *out, const double *cw, const gs_param *param,
                              gs_glibc_rand *rng, const gs_log *log, gs_model *model)
{
    const int npair = cls->k * (cls->k - 1) / 2, nu = param->svm_type == GS_NU_SVC;
    if (param->probability) { /* present even with no pair: svm-train writes bare "probA" / "probB" lines */
        model->probA = calloc((size_t)(npair ? npair : 1), sizeof(double));
        model->probB = calloc((size_t)(npair ? npair : 1), sizeof(double));
        if (!model->probA || !model->probB) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    }
    for (int p = 0; p < npair; p++) {
        gs_status st;
        if (param->probability && (st = pair_probability(dev, prob, cls, pairs[p][0], pairs[p][1], cw, param, rng, log,
                                                         &model->probA[p], &model->probB[p])))
            return st;
        print_pair(log, cls, pairs, out, cw, nu, p, model);
    }
    return GS_OK;
}

/* Every pair of nc C values (C-SVC; nu-SVC has nc = 1), set up over one clustering and solved in
 * one device batch: item c * npair + p is pair p at C value c, and C value c's alphas, exact
 * gradients, bounds and (nu-SVC) zero linear terms lie at c * total_alpha in the shared arrays. */
typedef struct svc_run {
    const gs_param *param;
    const double *C;           /* [nc] */
    int nc, nu, k, l, npair;
    gs_classes cls;
    int (*pairs)[2];
    int64_t total_alpha;       /* one C value's alphas, all pairs */
    double *cw;                /* [nc * k] C_i = C * w_i */
    pair_out *out;             /* [nc * npair] */
    gs_run_item *items;        /* [nc * npair], the first nspec used */
    int *spec_pair;            /* [nc * npair]: item s solves out[spec_pair[s]] */
    int nspec;
    double *alpha_all, *gx_all, *ex_all, *zeros;
    int *finite;
    int8_t *ysign;
    gs_problem grouped;        /* the rows grouped by class */
    gs_clustered cl;
} svc_run;

static void svc_free(svc_run *r)
{
    gs_clustered_free(&r->cl);
    gs_classes_free(&r->cls);
    gs_problem_free(&r->grouped);
    free(r->cw); free(r->pairs); free(r->out); free(r->items); free(r->spec_pair);
    free(r->alpha_all); free(r->gx_all); free(r->ex_all); free(r->zeros); free(r->finite); free(r->ysign);
}

/* The classes, the pairs and every array of r. */
static gs_status svc_alloc(const gs_problem *prob, svc_run *r)
{
    gs_status st = gs_classes_group(prob, &r->cls);
    if (st != GS_OK) return st;
    const int k = r->k = r->cls.k, nc = r->nc;
    r->l = prob->l;
    r->npair = k * (k - 1) / 2;
    const size_t nall = (size_t)nc * (size_t)(r->npair ? r->npair : 1);
    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++) r->total_alpha += r->cls.count[i] + r->cls.count[j];
    const size_t na = (size_t)nc * (size_t)(r->total_alpha ? r->total_alpha : 1);
    r->cw = malloc(sizeof *r->cw * (size_t)nc * (size_t)(k ? k : 1));
    r->pairs = malloc(sizeof *r->pairs * (size_t)(r->npair ? r->npair : 1));
    r->out = calloc(nall, sizeof *r->out);
    r->items = calloc(nall, sizeof *r->items);
    r->spec_pair = malloc(sizeof *r->spec_pair * nall);
    r->alpha_all = malloc(sizeof *r->alpha_all * na);
    r->gx_all = malloc(sizeof *r->gx_all * na);
    r->ex_all = malloc(sizeof *r->ex_all * na);
    r->zeros = r->nu ? calloc(na, sizeof *r->zeros) : NULL;
    r->finite = malloc(sizeof *r->finite * (size_t)(k ? k : 1));
    r->ysign = malloc((size_t)(r->l ? r->l : 1));
    if (!r->cw || !r->pairs || !r->out || !r->items || !r->spec_pair || !r->alpha_all || !r->gx_all || !r->ex_all ||
        (r->nu && !r->zeros) || !r->finite || !r->ysign)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for %d class pairs", r->npair * nc);
    for (int c = 0; c < nc; c++) {
        gs_param pc = *r->param; /* shallow: only C differs */
        pc.C = r->C[c];
        class_weights(&pc, &r->cls, r->cw + (size_t)c * (size_t)k, c == 0);
    }
    int64_t off = 0;
    for (int c = 0, p = 0; c < nc; c++, p = 0)
        for (int i = 0; i < k; i++)
            for (int j = i + 1; j < k; j++, p++) {
                if (c == 0) {
                    r->pairs[p][0] = i;
                    r->pairs[p][1] = j;
                }
                r->out[c * r->npair + p].alpha = r->alpha_all + off;
                off += r->cls.count[i] + r->cls.count[j];
            }
    return GS_OK;
}

/* Groups and clusters the rows (a two-class set as one segment, so its single problem sees every
 * cluster; more classes per class, so each pair takes two classes' clusters) and sets up every
 * pair at every C value; pairs with a NaN or infinite feature get LIBSVM's answer without the
 * device (one iteration, every alpha NaN, obj and rho NaN). */
static gs_status svc_setup(const gs_problem *prob, svc_run *r)
{
    const int k = r->k, l = r->l;
    gs_status st = gs_problem_subset(prob, r->cls.order, l, &r->grouped);
    if (st != GS_OK) return st;
    const int64_t *rp = r->grouped.row_ptr;
    for (int c = 0; c < k; c++) {
        r->finite[c] = 1;
        for (int64_t e = rp[r->cls.start[c]]; e < rp[r->cls.start[c + 1]]; e++)
            r->finite[c] &= isfinite(r->grouped.val[e]) != 0;
    }
    for (int g = 0; g < l; g++) r->ysign[g] = (k == 2 && g >= r->cls.start[1]) ? -1 : 1;
    const int32_t one_seg[2] = {0, l};
    if ((st = gs_solver_cluster(r->param, rp, r->grouped.idx, r->grouped.val, l, k == 2 ? 1 : k,
                                k == 2 ? one_seg : r->cls.start, &r->cl)))
        return st;
    for (int c = 0; c < r->nc; c++) {
        const int64_t base = (int64_t)c * r->total_alpha;
        const pair_layout lay = {.param = r->param, .cls = &r->cls, .cl = &r->cl, .k = k, .l = l, .nu = r->nu,
                                 .cw = r->cw + (size_t)c * (size_t)k, .alpha_all = r->alpha_all + base,
                                 .gx_all = r->gx_all + base, .ex_all = r->ex_all + base,
                                 .zeros = r->zeros ? r->zeros + base : NULL};
        for (int p = 0; p < r->npair; p++) {
            const int i = r->pairs[p][0], j = r->pairs[p][1];
            pair_out *o = &r->out[c * r->npair + p];
            if (!r->finite[i] || !r->finite[j]) {
                for (int t = 0; t < r->cls.count[i] + r->cls.count[j]; t++) o->alpha[t] = NAN;
                memset(&o->res, 0, sizeof o->res);
                o->res.iterations = 1;
                o->res.rho = NAN;
                o->res.obj = NAN;
                continue;
            }
            r->spec_pair[r->nspec] = c * r->npair + p;
            set_up_pair(&lay, i, j, o, &r->items[r->nspec++]);
        }
    }
    return GS_OK;
}

/* Solves and certifies every set-up pair in one batch (the device is waited for only now, after
 * the clustering); nu-SVC's results scaled by r as LIBSVM does. */
static gs_status svc_solve(const gs_device_provider *dev, svc_run *r, const gs_log *log, gs_train_stats *stats)
{
    gs_solver *solver = NULL;
    gs_status st = gs_run_open_solver(dev, r->param, r->k, r->l, r->grouped.row_ptr, &r->cl, log, stats, &solver);
    if (st == GS_OK && r->nu) st = gs_run_start_gradients(solver, &r->cl, r->ysign, r->items, r->nspec, stats);
    /* The solver picks its round form by itself only for a lone problem (split rounds for one
     * two-class problem when they fit): one problem per C value is solved alone, as gs_svm_train
     * would, so each model is the one it gives; several per C value (one-vs-one pairs, or a forced
     * form) go in one batch, whose form is theirs anyway. */
    const int alone = r->param->tuning.split < 0 && r->nspec == r->nc;
    for (int s = 0; st == GS_OK && s < r->nspec; s += alone ? 1 : r->nspec)
        st = gs_run_certified(solver, &r->cl, r->ysign, r->items + s, alone ? 1 : r->nspec, r->param->eps, log, stats);
    gs_solver_free(solver);
    if (st != GS_OK) return st;
    for (int s = 0; s < r->nspec; s++) {
        pair_out *o = &r->out[r->spec_pair[s]];
        o->res = r->items[s].res;
        if (!r->nu) continue;
        /* LIBSVM's scaling by r: coefficients y alpha / r, rho / r, obj / r^2 */
        for (int t = 0; t < r->items[s].n; t++) o->alpha[t] /= o->res.r;
        o->res.rho /= o->res.r;
        o->res.obj /= o->res.r * o->res.r;
    }
    if (stats) gs_log_verbose(log, "gpusvm: certification %.4f s (exact gradients; resumed rounds are in the "
                              "phases above)\n", stats->certify);
    return GS_OK;
}

/* C value c's model, with LIBSVM's lines (and -b 1's probA/probB, its folds drawn from rng). */
static gs_status svc_model(const gs_device_provider *dev, const gs_problem *prob, const svc_run *r, int c,
                           gs_glibc_rand *rng, const gs_log *log, gs_model *model)
{
    const int k = r->k, l = r->l;
    memset(model, 0, sizeof *model);
    model->svm_type = r->param->svm_type;
    model->kernel_type = r->param->kernel_type;
    model->degree = r->param->degree;
    model->gamma = r->param->gamma;
    model->coef0 = r->param->coef0;
    model->nr_class = k;
    model->n_coef = k > 1 ? k - 1 : 0;
    model->rho = calloc((size_t)(r->npair ? r->npair : 1), sizeof(double));
    model->label = malloc(sizeof(int) * (size_t)(k ? k : 1));
    model->nSV = calloc((size_t)(k ? k : 1), sizeof(int));
    int *nonzero = calloc((size_t)(l ? l : 1), sizeof *nonzero);
    /* coefficients for every row (grouped order) and pair column, kept until the SVs are known */
    double *coef_rows = calloc((size_t)(l ? l : 1) * (size_t)(k > 1 ? k - 1 : 1), sizeof *coef_rows);
    gs_status st = GS_OK;
    if (!model->rho || !model->label || !model->nSV || !nonzero || !coef_rows) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    memcpy(model->label, r->cls.label, sizeof(int) * (size_t)k);
    if (k == 1) gs_log_info(log, "WARNING: training data in only one class. See README for details.\n");
    const pair_out *out = r->out + (size_t)c * (size_t)r->npair;
    if ((st = model_svs(prob, &r->cls, r->pairs, out, nonzero, coef_rows, model))) goto cleanup;
    if ((st = finish_pairs(dev, prob, &r->cls, r->pairs, out, r->cw + (size_t)c * (size_t)k, r->param, rng, log,
                           model)))
        goto cleanup;
    gs_log_info(log, "Total nSV = %d\n", model->l);
cleanup:
    if (st != GS_OK) gs_model_free(model);
    free(nonzero);
    free(coef_rows);
    return st;
}

/* gs_svm_train_c_values with -b 1's folds drawn from rng (one stream through every C value). */
static gs_status train_c_values(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                                const double *C, int nc, gs_glibc_rand *rng, const gs_log *log, gs_model *models,
                                gs_train_stats *stats)
{
    const double t_start = gs_now();
    for (int c = 0; c < nc; c++) memset(&models[c], 0, sizeof models[c]);
    if (stats) memset(stats, 0, sizeof *stats);
    if (param->svm_type != GS_C_SVC && (param->svm_type != GS_NU_SVC || nc != 1))
        return GS_FAIL(GS_ERR_UNSUPPORTED, "several C values at once are for C-SVC only");
    svc_run r = {.param = param, .C = C, .nc = nc, .nu = param->svm_type == GS_NU_SVC};
    gs_status st = svc_alloc(prob, &r);
    if (st == GS_OK && r.npair > 0) st = svc_setup(prob, &r);
    if (st == GS_OK && r.nspec > 0) st = svc_solve(dev, &r, log, stats);
    gs_clustered_free(&r.cl); /* the pairs' layout is done with; -b 1's fold trainings make their own */
    for (int c = 0; c < nc && st == GS_OK; c++) st = svc_model(dev, prob, &r, c, rng, log, &models[c]);
    if (st != GS_OK)
        for (int c = 0; c < nc; c++) gs_model_free(&models[c]);
    else if (stats) {
        stats->t_model_ready = gs_now();
        stats->total = stats->t_model_ready - t_start;
    }
    svc_free(&r);
    return st;
}

gs_status gs_svm_train_c_values(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                                const double *C, int nc, const gs_log *log, gs_model *models, gs_train_stats *stats)
{
    gs_glibc_rand rng;
    gs_glibc_rand_init(&rng, 1);
    return train_c_values(dev, prob, param, C, nc, &rng, log, models, stats);
}

gs_status gs_svm_train(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                       const gs_log *log, gs_model *model, gs_train_stats *stats)
{
    gs_glibc_rand rng;
    gs_glibc_rand_init(&rng, 1);
    return gs_svm_train_rand(dev, prob, param, &rng, log, model, stats);
}

gs_status gs_svm_train_rand(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                            gs_glibc_rand *rng, const gs_log *log, gs_model *model, gs_train_stats *stats)
{
    memset(model, 0, sizeof *model);
    if (param->svm_type == GS_ONE_CLASS || param->svm_type == GS_EPSILON_SVR || param->svm_type == GS_NU_SVR) {
        if (stats) memset(stats, 0, sizeof *stats);
        return gs_train_single(dev, prob, param, rng, log, model, stats);
    }
    if (param->svm_type != GS_C_SVC && param->svm_type != GS_NU_SVC)
        return GS_FAIL(GS_ERR_UNSUPPORTED, "svm_type %d is not supported yet (-s 0, 2 and 3 are)", param->svm_type);
    return train_c_values(dev, prob, param, &param->C, 1, rng, log, model, stats);
}
