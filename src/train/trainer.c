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

/* The model's parameters and per-class arrays for the classes cls (labels; rho and nSV zeroed). */
static gs_status model_header(const gs_param *param, const gs_classes *cls, gs_model *model)
{
    const int k = cls->k, npair = k * (k - 1) / 2;
    model->svm_type = param->svm_type;
    model->kernel_type = param->kernel_type;
    model->degree = param->degree;
    model->gamma = param->gamma;
    model->coef0 = param->coef0;
    model->nr_class = k;
    model->n_coef = k > 1 ? k - 1 : 0;
    model->rho = calloc((size_t)(npair ? npair : 1), sizeof(double));
    model->label = malloc(sizeof(int) * (size_t)(k ? k : 1));
    model->nSV = calloc((size_t)(k ? k : 1), sizeof(int));
    if (!model->rho || !model->label || !model->nSV) return GS_FAIL(GS_ERR_NOMEM, "out of memory for the model");
    memcpy(model->label, cls->label, sizeof(int) * (size_t)k);
    return GS_OK;
}

/* The layout every pair is solved over: grouped, prob's rows grouped by class (cls->order); cl, its
 * clustering, one segment for two classes (the single problem sees every cluster), else one per
 * class so each pair takes two classes' clusters; ysign[l] the solver's row signs (two classes:
 * -1 for the second class); finite[k]: whether each class's values are all finite. */
static gs_status layout_classes(const gs_problem *prob, const gs_param *param, const gs_classes *cls,
                                gs_problem *grouped, int8_t *ysign, int *finite, gs_clustered *cl)
{
    gs_status st = GS_OK;
    const int k = cls->k, l = prob->l;
    if ((st = gs_problem_subset(prob, cls->order, l, grouped))) return st;
    const int64_t *rp = grouped->row_ptr;
    const float *vl = grouped->val;
    for (int c = 0; c < k; c++) {
        finite[c] = 1;
        for (int64_t e = rp[cls->start[c]]; e < rp[cls->start[c + 1]]; e++) finite[c] &= isfinite(vl[e]) != 0;
    }
    for (int g = 0; g < l; g++) ysign[g] = (k == 2 && g >= cls->start[1]) ? -1 : 1;
    const int32_t one_seg[2] = {0, l};
    return gs_solver_cluster(param, rp, grouped->idx, vl, l, k == 2 ? 1 : k, k == 2 ? one_seg : cls->start, cl);
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
    gs_status st = layout_classes(prob, r->param, &r->cls, &r->grouped, r->ysign, r->finite, &r->cl);
    if (st != GS_OK) return st;
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
    gs_run_pool *solver = NULL;
    gs_status st = gs_run_open_solver(dev, r->param, r->k, r->l, r->grouped.row_ptr, &r->cl, log, stats, &solver);
    if (st == GS_OK && r->nu) st = gs_run_start_gradients(solver, &r->cl, r->ysign, r->items, r->nspec, stats);
    /* The solver picks its round form by itself only for a lone problem (split rounds for one
     * two-class problem when they fit): one problem per C value is solved alone, as gs_svm_train
     * would, so each model is the one it gives; several per C value (one-vs-one pairs, or a forced
     * form) go in one batch, whose form is theirs anyway. */
    const int alone = r->param->tuning.split < 0 && r->nspec == r->nc;
    if (st == GS_OK) st = gs_run_certified(solver, &r->cl, r->ysign, r->items, r->nspec, r->param->eps, alone, log, stats);
    gs_run_pool_free(solver);
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
    int *nonzero = calloc((size_t)(l ? l : 1), sizeof *nonzero);
    /* coefficients for every row (grouped order) and pair column, kept until the SVs are known */
    double *coef_rows = calloc((size_t)(l ? l : 1) * (size_t)(k > 1 ? k - 1 : 1), sizeof *coef_rows);
    gs_status st = GS_OK;
    if (!nonzero || !coef_rows) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if ((st = model_header(r->param, &r->cls, model))) goto cleanup;
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

/* ---- cross-validation's folds (gs_svm_train_folds) ------------------------------------------- */

/* Fold f: its training rows (the other folds' rows in perm order: the problem sub that
 * svm_cross_validation hands svm_train), sub's classes cls (LIBSVM's order for sub, so the fold's
 * model's), its pairs at items[item0 ..] with the full set's classes lo < hi each is solved as, and
 * their answers in sub's grouped order (out). */
typedef struct fold {
    gs_problem sub;
    int32_t *rows;      /* [sub.l] sub's rows in prob */
    gs_classes cls;
    int npair, item0;
    int (*pairs)[2];    /* [npair] class indices in cls, LIBSVM's pair order */
    int *lo, *hi;       /* [npair] the full set's classes of each pair */
    pair_out *out;      /* [npair] */
    double *alpha;      /* out[p].alpha's storage */
} fold;

static void fold_free(fold *d)
{
    gs_problem_free(&d->sub);
    gs_classes_free(&d->cls);
    free(d->rows); free(d->pairs); free(d->lo); free(d->hi); free(d->out); free(d->alpha);
}

/* Index of label lab among cls's classes (a fold's labels are all the full set's). */
static int class_of_label(const gs_classes *cls, int lab)
{
    int c = 0;
    while (c < cls->k - 1 && cls->label[c] != lab) c++;
    return c;
}

/* Fold f's problem, classes and pairs; *nalpha receives its pairs' rows in the full set. */
static gs_status fold_set_up(const gs_problem *prob, const gs_classes *full, const int *perm, const int *start,
                             int nr_fold, int f, fold *d, int64_t *nalpha)
{
    gs_status st = GS_OK;
    const int l = prob->l;
    int32_t n = 0;
    d->rows = malloc(sizeof *d->rows * (size_t)(l ? l : 1));
    if (!d->rows) return GS_FAIL(GS_ERR_NOMEM, "out of memory for a fold");
    for (int j = 0; j < start[f]; j++) d->rows[n++] = perm[j];
    for (int j = start[f + 1]; j < start[nr_fold]; j++) d->rows[n++] = perm[j];
    if ((st = gs_problem_subset(prob, d->rows, n, &d->sub)) || (st = gs_classes_group(&d->sub, &d->cls))) return st;
    const int kf = d->cls.k;
    d->npair = kf * (kf - 1) / 2;
    const size_t np1 = (size_t)(d->npair ? d->npair : 1);
    d->pairs = malloc(sizeof *d->pairs * np1);
    d->lo = malloc(sizeof *d->lo * np1);
    d->hi = malloc(sizeof *d->hi * np1);
    d->out = calloc(np1, sizeof *d->out);
    d->alpha = malloc(sizeof *d->alpha * (size_t)(n ? n : 1) * (size_t)(kf > 1 ? kf - 1 : 1));
    if (!d->pairs || !d->lo || !d->hi || !d->out || !d->alpha) return GS_FAIL(GS_ERR_NOMEM, "out of memory for a fold");
    *nalpha = 0;
    for (int a = 0, p = 0; a < kf; a++)
        for (int b = a + 1; b < kf; b++, p++) {
            const int i = class_of_label(full, d->cls.label[a]), j = class_of_label(full, d->cls.label[b]);
            d->pairs[p][0] = a;
            d->pairs[p][1] = b;
            d->lo[p] = i < j ? i : j;
            d->hi[p] = i < j ? j : i;
            *nalpha += full->count[d->lo[p]] + full->count[d->hi[p]];
        }
    return GS_OK;
}

/* Position in the full set's pair (lo, hi) (class lo's rows, then class hi's, file order each) of
 * row r; rank[r]: r's place in its class. */
static int pair_pos(const gs_classes *full, const int *rank, int lo, int r)
{
    return full->of_row[r] == lo ? rank[r] : full->count[lo] + rank[r];
}

/* nu-SVC's start for pair p of fold d as LIBSVM sets it on sub: each side's nu n / 2 spread over
 * its rows in sub's grouped order (n: the fold's rows of the two classes), the held-out rows at 0. */
static void fold_nu_start(const gs_param *param, const gs_classes *full, const int *rank, const fold *d, int p,
                          double *alpha, int32_t n_full)
{
    const gs_classes *c = &d->cls;
    const int a = d->pairs[p][0], b = d->pairs[p][1], na = c->count[a], n = na + c->count[b];
    double left[2] = {param->nu * n / 2, param->nu * n / 2};
    for (int32_t t = 0; t < n_full; t++) alpha[t] = 0;
    for (int t = 0; t < n; t++) {
        const int r = d->rows[c->order[t < na ? c->start[a] + t : c->start[b] + (t - na)]];
        double *side = &left[t >= na];
        const int pos = pair_pos(full, rank, d->lo[p], r);
        alpha[pos] = *side < 1 ? *side : 1;
        *side -= alpha[pos];
    }
}

/* Fold d's model from its solved items, as gs_svm_train builds and prints it for sub. */
static gs_status fold_model(const gs_param *param, const gs_log *log, const gs_classes *full, const int *rank,
                            fold *d, const gs_run_item *items, gs_model *m)
{
    gs_status st = GS_OK;
    const gs_classes *c = &d->cls;
    const int kf = c->k, nu = param->svm_type == GS_NU_SVC, l = d->sub.l;
    double *cw = malloc(sizeof *cw * (size_t)(kf ? kf : 1));
    int *nonzero = calloc((size_t)(l ? l : 1), sizeof *nonzero);
    double *coef_rows = calloc((size_t)(l ? l : 1) * (size_t)(kf > 1 ? kf - 1 : 1), sizeof *coef_rows);
    if (!cw || !nonzero || !coef_rows) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
    if ((st = model_header(param, c, m))) goto cleanup;
    class_weights(param, c, cw, 1);
    if (kf == 1) gs_log_info(log, "WARNING: training data in only one class. See README for details.\n");
    double *alpha = d->alpha;
    for (int p = 0; p < d->npair; p++) {
        const int a = d->pairs[p][0], b = d->pairs[p][1], na = c->count[a], n = na + c->count[b];
        const gs_run_item *it = &items[d->item0 + p];
        pair_out *o = &d->out[p];
        o->alpha = alpha;
        alpha += n;
        for (int t = 0; t < n; t++)
            o->alpha[t] = it->spec.alpha[pair_pos(full, rank, d->lo[p],
                                                  d->rows[c->order[t < na ? c->start[a] + t : c->start[b] + (t - na)]])];
        o->res = it->res;
        /* class a is the full pair's -1 side: the same alphas, the other sign of rho */
        if (class_of_label(full, c->label[a]) != d->lo[p]) o->res.rho = -o->res.rho;
        if (nu) { /* LIBSVM's scaling by r, as gs_svm_train */
            const double r = o->res.r;
            for (int t = 0; t < n; t++) o->alpha[t] /= r;
            o->res.rho /= r;
            o->res.obj /= r * r;
        }
    }
    if ((st = model_svs(&d->sub, c, d->pairs, d->out, nonzero, coef_rows, m))) goto cleanup;
    for (int p = 0; p < d->npair; p++) print_pair(log, c, d->pairs, d->out, cw, nu, p, m);
    gs_log_info(log, "Total nSV = %d\n", m->l);
cleanup:
    if (st != GS_OK) gs_model_free(m);
    free(cw); free(nonzero); free(coef_rows);
    return st;
}

gs_status gs_svm_train_folds(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                             const double *C, int nc, const gs_log *log, int nr_fold, const int *perm,
                             const int *start, gs_model *models)
{
    gs_status st = GS_OK;
    const int nu = param->svm_type == GS_NU_SVC, l = prob->l;
    gs_classes cls = {0};
    gs_problem grouped = {0};
    gs_clustered cl = {0};
    gs_run_pool *solver = NULL;
    fold *fd = NULL;
    gs_run_item *items = NULL;
    int *fold_of = NULL, *rank = NULL, *finite = NULL;
    int8_t *ysign = NULL;
    uint8_t *skip_all = NULL;
    double *cw = NULL, *alpha_all = NULL, *gx_all = NULL, *ex_all = NULL, *zeros = NULL;
    gs_param *pc = NULL; /* param at each C value (shallow copies) */
    if (!C) nc = 1;
    if (param->svm_type == GS_ONE_CLASS || param->svm_type == GS_EPSILON_SVR || param->svm_type == GS_NU_SVR)
        return C ? GS_ERR_UNSUPPORTED : gs_train_single_folds(dev, prob, param, log, nr_fold, perm, start, models);
    if ((param->svm_type != GS_C_SVC && !nu) || nc < 1 || (nu && nc > 1)) return GS_ERR_UNSUPPORTED;
    if (!(pc = calloc((size_t)nc, sizeof *pc))) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    for (int c = 0; c < nc; c++) { pc[c] = *param; if (C) pc[c].C = C[c]; }
    if ((st = gs_classes_group(prob, &cls))) goto cleanup;
    const int k = cls.k;
    fold_of = malloc(sizeof *fold_of * (size_t)(l ? l : 1));
    rank = malloc(sizeof *rank * (size_t)(l ? l : 1));
    ysign = malloc((size_t)(l ? l : 1));
    finite = malloc(sizeof *finite * (size_t)(k ? k : 1));
    cw = malloc(sizeof *cw * (size_t)(k ? k : 1) * (size_t)nc);
    fd = calloc((size_t)nr_fold, sizeof *fd);
    if (!fold_of || !rank || !ysign || !finite || !cw || !fd) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
    if ((st = layout_classes(prob, param, &cls, &grouped, ysign, finite, &cl))) goto cleanup;
    for (int c = 0; c < k; c++)
        if (!finite[c]) { st = GS_ERR_UNSUPPORTED; goto cleanup; } /* LIBSVM's NaN answers: fold by fold */
    for (int f = 0; f < nr_fold; f++)
        for (int j = start[f]; j < start[f + 1]; j++) fold_of[perm[j]] = f;
    for (int g = 0; g < l; g++) rank[cls.order[g]] = g - cls.start[cls.of_row[cls.order[g]]];
    for (int c = 0; c < nc; c++) class_weights(&pc[c], &cls, cw + (size_t)c * k, 0); /* by label: the same C for each fold's pairs */
    int nitems = 0;
    int64_t total = 0;
    for (int f = 0; f < nr_fold; f++) {
        int64_t na = 0;
        if ((st = fold_set_up(prob, &cls, perm, start, nr_fold, f, &fd[f], &na))) goto cleanup;
        fd[f].item0 = nitems;
        nitems += fd[f].npair;
        total += na;
    }
    const size_t t1 = (size_t)(total ? total : 1) * (size_t)nc;
    items = calloc((size_t)(nitems ? nitems : 1) * (size_t)nc, sizeof *items);
    alpha_all = malloc(sizeof *alpha_all * t1);
    gx_all = malloc(sizeof *gx_all * t1);
    ex_all = malloc(sizeof *ex_all * t1);
    skip_all = malloc(t1);
    if (nu) zeros = calloc(t1, sizeof *zeros);
    if (!items || !alpha_all || !gx_all || !ex_all || !skip_all || (nu && !zeros)) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d folds' problems", nr_fold);
        goto cleanup;
    }
    /* every C value's folds' pairs: the full set's pair, the fold's rows left out */
    int64_t off = 0;
    for (int c = 0; c < nc; c++) {
        const pair_layout lay = {.param = &pc[c], .cls = &cls, .cl = &cl, .k = k, .l = l, .nu = nu,
                                 .cw = cw + (size_t)c * k, .alpha_all = alpha_all, .gx_all = gx_all,
                                 .ex_all = ex_all, .zeros = zeros};
        for (int f = 0; f < nr_fold; f++)
        for (int p = 0; p < fd[f].npair; p++) {
            gs_run_item *it = &items[(size_t)c * nitems + fd[f].item0 + p];
            pair_out o = {.alpha = alpha_all + off};
            const int lo = fd[f].lo[p], hi = fd[f].hi[p];
            set_up_pair(&lay, lo, hi, &o, it);
            uint8_t *skip = skip_all + off;
            for (int32_t t = 0; t < it->n; t++)
                skip[t] = fold_of[cls.order[t < it->ni ? cls.start[lo] + t : cls.start[hi] + (t - it->ni)]] == f;
            it->spec.skip = skip;
            if (nu) fold_nu_start(param, &cls, rank, &fd[f], p, o.alpha, it->n);
            snprintf(it->name, sizeof it->name, "fold %d pair %d-%d", f + 1, cls.label[lo], cls.label[hi]);
            off += it->n;
        }
    }
    if (nitems > 0) {
        if ((st = gs_run_open_solver(dev, param, k, l, grouped.row_ptr, &cl, log, NULL, &solver)) ||
            (nu && (st = gs_run_start_gradients(solver, &cl, ysign, items, nitems, NULL))) ||
            (st = gs_run_certified(solver, &cl, ysign, items, nitems * nc, param->eps, 0, log, NULL)))
            goto cleanup;
    }
    /* fold by fold, each C value's model in turn (the order of training them fold by fold) */
    for (int f = 0; f < nr_fold; f++)
        for (int c = 0; c < nc; c++)
            if ((st = fold_model(&pc[c], log, &cls, rank, &fd[f], items + (size_t)c * nitems,
                                 &models[(size_t)c * nr_fold + f])))
                goto cleanup;
cleanup:
    gs_run_pool_free(solver);
    gs_clustered_free(&cl);
    gs_problem_free(&grouped);
    if (fd)
        for (int f = 0; f < nr_fold; f++) fold_free(&fd[f]);
    gs_classes_free(&cls);
    free(pc); free(fd); free(items); free(fold_of); free(rank); free(ysign); free(finite); free(cw);
    free(alpha_all); free(gx_all); free(ex_all); free(skip_all); free(zeros);
    return st;
}
