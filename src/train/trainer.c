/* trainer.c — gs_svm_train: LIBSVM's classification driver around the device solver. Classes are
 * grouped by (int)label in first-appearance order (a -1/+1 pair is stored as "1 -1"), each
 * one-vs-one pair (i,j) is solved with class i as +1 and class j as -1 and C_i = C*w_i, and the
 * model takes LIBSVM's layout (SVs grouped by class, coefficient column j-1 for class i and i for
 * class j). Every pair's solution is certified before the model is kept (certify.h): the pairs
 * whose recomputed gap is not below eps are resumed from the exact gradients. Prints LIBSVM's
 * per-pair lines (with the certified obj and rho) and "Total nSV". With -b 1, every pair's 5
 * internal probability folds (train/probability.h) are solved after the batch, all in one more
 * batch over one upload (pairs_probability); each pair's fold lines are printed just before the
 * pair's own lines, which is where svm-train prints them (it trains pair by pair). */
#include "train/trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/classes.h"
#include "data/cluster.h"
#include "data/precomputed.h"
#include "train/cv.h"
#include "train/probability.h"
#include "train/run.h"
#include "train/shrink.h"
#include "train/single.h"
#include "train/solver.h"
#include "util/pages.h"
#include "util/parallel.h"

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
            if (fabs(a) > 0) nonzero[cls->order[grouped]] = 1; /* nu-SVC: alpha / r < 0 where r < 0, NaN where r = 0 */
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
    gs_run_warn(res);
    /* every gradient 0 (a saturated sigmoid kernel): r = 0, and LIBSVM's lines and model say nan
     * too (svm-predict then gives the pair's second class to every row). NaN feature values give
     * a NaN rho as well, where svm-train's silence is kept (the golden bad-input transcripts). */
    if (nu && res->r == 0 && isnan(res->rho))
        fprintf(stderr, "\nWARNING: nu-SVC's r is 0 (every gradient 0), so rho is nan: the model is written as "
                        "svm-train writes it, and gpusvm-predict refuses it\n");
    double suma = 0;
    int nsv = 0, nbsv = 0;
    for (int t = 0; t < n; t++) {
        const double a = alpha_pair[t], m = fabs(a);
        suma += a;
        /* LIBSVM's counts: |alpha| > 0, and |alpha| at its bound, C or nu-SVC's 1 / r (a nu-SVC pair
         * whose r ends below 0, nearly separable, has every alpha / r < 0, every SV at its bound) */
        if (m > 0) { /* (not NaN: r = 0 and alpha = 0) */
            nsv++;
            if (m >= (nu ? 1 / res->r : (t < ni ? cw[i] : cw[j]))) nbsv++;
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

/* Position t of pair (i, j)'s rows (class i's, then class j's, file order each): the row in prob. */
static int pair_row(const gs_classes *cls, int i, int j, int t)
{
    return t < cls->count[i] ? cls->order[cls->start[i] + t] : cls->order[cls->start[j] + (t - cls->count[i])];
}

/* Pair (i, j)'s probA and probB: its rows as LIBSVM's pair problem (class i as +1, then class j
 * as -1) through gs_prob_train_pair with the classes' weighted C and the pair's shuffle perm. */
static gs_status pair_probability(const gs_device_provider *dev, const gs_problem *prob, const gs_classes *cls,
                                  int i, int j, const double *cw, const gs_param *param, const int *perm,
                                  const gs_log *log, double *probA, double *probB)
{
    const int ni = cls->count[i], n = ni + cls->count[j];
    gs_problem pair = {0};
    gs_status st = GS_OK;
    int *rows = malloc(sizeof *rows * (size_t)(n ? n : 1));
    if (!rows) return GS_FAIL(GS_ERR_NOMEM, "out of memory for %d rows", n);
    for (int t = 0; t < n; t++) rows[t] = pair_row(cls, i, j, t);
    if ((st = gs_problem_subset(prob, rows, n, &pair))) goto cleanup;
    for (int t = 0; t < n; t++) pair.y[t] = t < ni ? 1 : -1;
    st = gs_prob_train_pair(dev, &pair, param, cw[i], cw[j], perm, log, probA, probB);
cleanup:
    gs_problem_free(&pair);
    free(rows);
    return st;
}

static gs_status pairs_probability(const gs_device_provider *dev, const gs_problem *prob, const gs_classes *cls,
                                   int (*pairs)[2], const pair_out *out, const double *cw, const gs_param *param,
                                   int *const *perm, const gs_log *log, gs_model *model);

/* Every pair's lines in pair order and its rho into the model; with -b 1 the model's probA/probB,
 * each pair's probability folds printed just before its lines (svm-train's order). The pairs'
 * shuffles are drawn first, in pair order (they depend on the pairs' sizes alone), so every
 * pair's folds can be solved in one batch (pairs_probability); else pair by pair. */
static gs_status finish_pairs(const gs_device_provider *dev, const gs_problem *prob, const gs_classes *cls,
                              int (*pairs)[2], const pair_out *out, const double *cw, const gs_param *param,
                              gs_glibc_rand *rng, const gs_log *log, gs_model *model)
{
    const int npair = cls->k * (cls->k - 1) / 2, nu = param->svm_type == GS_NU_SVC;
    gs_status st = GS_OK;
    int **perm = NULL;
    if (param->probability) { /* present even with no pair: svm-train writes bare "probA" / "probB" lines */
        model->probA = calloc((size_t)(npair ? npair : 1), sizeof(double));
        model->probB = calloc((size_t)(npair ? npair : 1), sizeof(double));
        perm = calloc((size_t)(npair ? npair : 1), sizeof *perm);
        if (!model->probA || !model->probB || !perm) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
        for (int p = 0; p < npair; p++) {
            const int n = cls->count[pairs[p][0]] + cls->count[pairs[p][1]];
            if (!(perm[p] = malloc(sizeof **perm * (size_t)(n ? n : 1)))) {
                st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d rows' probability folds", n);
                goto cleanup;
            }
            for (int t = 0; t < n; t++) perm[p][t] = t;
            gs_glibc_rand_shuffle(rng, perm[p], n);
        }
        if (npair > 0) {
            st = pairs_probability(dev, prob, cls, pairs, out, cw, param, perm, log, model);
            if (st != GS_ERR_UNSUPPORTED) goto cleanup;
            st = GS_OK;
        }
    }
    for (int p = 0; p < npair; p++) {
        if (param->probability && (st = pair_probability(dev, prob, cls, pairs[p][0], pairs[p][1], cw, param, perm[p],
                                                         log, &model->probA[p], &model->probB[p])))
            goto cleanup;
        print_pair(log, cls, pairs, out, cw, nu, p, model);
    }
cleanup:
    for (int p = 0; perm && p < npair; p++) free(perm[p]);
    free(perm);
    return st;
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
    /* the certification writes them after the last round: faulted in now, before the device is waited for */
    gs_pages_touch(r->gx_all, sizeof *r->gx_all * na);
    gs_pages_touch(r->ex_all, sizeof *r->ex_all * na);
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
    /* one large two-class C-SVC problem: LIBSVM's shrinking (-h 1), then the same certification */
    const int shrink = !r->nu && r->k == 2 && r->nc == 1 && r->nspec == 1 && gs_shrink_wanted(r->param, r->l);
    if (st == GS_OK)
        st = shrink ? gs_shrink_certified(solver, r->param, &r->grouped, &r->cl, r->ysign, &r->items[0], alone, log,
                                          stats)
                    : gs_run_certified(solver, &r->cl, r->ysign, r->items, r->nspec, r->param->eps, alone, log, stats);
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

/* ---- folds over one upload (gs_svm_train_folds, -b 1's internal folds) ----------------------- */

/* A fold: a model trained on prob's rows rows[0..n) in that order (the problem sub that
 * svm_cross_validation hands svm_train, or one of svm_binary_svc_probability's), sub's classes
 * cls (LIBSVM's order for sub, so the fold's model's), its pairs at items[item0 ..] with the full
 * set's classes lo < hi each is solved as, and their answers in sub's grouped order (out). With
 * pos >= 0 sub is a pair's problem: its rows of the full set's class pos are labelled +1, the
 * others -1, as LIBSVM's pair problem. */
typedef struct fold {
    int32_t *rows;      /* [n] sub's rows in prob (owned) */
    int n, pos;
    int cidx;           /* its C value in fold_set's pc / cw */
    gs_classes cls;
    int npair, item0;
    int (*pairs)[2];    /* [npair] class indices in cls, LIBSVM's pair order */
    int *lo, *hi;       /* [npair] the full set's classes of each pair */
    pair_out *out;      /* [npair] */
    double *alpha;      /* out[p].alpha's storage */
} fold;

/* Folds solved together as problems over one clustered upload of prob (the full set's classes
 * cls, laid out as gs_svm_train lays them out), each fold's pairs the full set's pairs with the
 * rows outside the fold left out (solver.h spec->skip). */
typedef struct fold_set {
    const gs_problem *prob;
    const gs_param *param;
    int nc;             /* C values (gs_svm_train_folds' C), each with its param pc[c] and weights */
    gs_param *pc;       /* [nc] param at each C value (shallow copies) */
    int k, l, nu, nfold, nitems; /* nfold: the folds added so far (fd has room for more) */
    int ws_k;           /* the classes the working set is picked for (run.h gs_run_open_solver) */
    gs_classes cls;
    gs_problem grouped;
    gs_clustered cl;
    fold *fd;           /* [nfold] */
    gs_run_item *items; /* [nitems] */
    int *rank;          /* [l] each row's place in its class */
    int *finite;        /* [k] */
    int8_t *ysign;      /* [l] */
    uint8_t *skip_all;
    double *cw;         /* [nc * k] each C value's class weights */
    double *alpha_all, *gx_all, *ex_all, *zeros;
} fold_set;

static void fold_set_free(fold_set *fs)
{
    if (fs->fd)
        for (int f = 0; f < fs->nfold; f++) {
            fold *d = &fs->fd[f];
            gs_classes_free(&d->cls);
            free(d->rows); free(d->pairs); free(d->lo); free(d->hi); free(d->out); free(d->alpha);
        }
    gs_clustered_free(&fs->cl);
    gs_problem_free(&fs->grouped);
    gs_classes_free(&fs->cls);
    free(fs->fd); free(fs->items); free(fs->rank); free(fs->finite); free(fs->ysign); free(fs->skip_all);
    free(fs->pc); free(fs->cw); free(fs->alpha_all); free(fs->gx_all); free(fs->ex_all); free(fs->zeros);
    memset(fs, 0, sizeof *fs);
}

/* The full set's classes, layout and class weights at each of the nc values C[c] (C NULL:
 * param->C, nc 1), and room for room folds.
 * @return GS_OK; GS_ERR_UNSUPPORTED (nothing printed) for non-finite values, whose LIBSVM answers
 *         the callers give fold by fold; or the error */
static gs_status fold_set_open(const gs_problem *prob, const gs_param *param, const double *C, int nc, int room,
                               fold_set *fs)
{
    memset(fs, 0, sizeof *fs);
    fs->prob = prob;
    fs->param = param;
    fs->nc = C ? nc : 1;
    fs->nu = param->svm_type == GS_NU_SVC;
    fs->l = prob->l;
    gs_status st = gs_classes_group(prob, &fs->cls);
    if (st != GS_OK) return st;
    const int k = fs->k = fs->ws_k = fs->cls.k, l = fs->l;
    fs->rank = malloc(sizeof *fs->rank * (size_t)(l ? l : 1));
    fs->ysign = malloc((size_t)(l ? l : 1));
    fs->finite = malloc(sizeof *fs->finite * (size_t)(k ? k : 1));
    fs->cw = malloc(sizeof *fs->cw * (size_t)(k ? k : 1) * (size_t)fs->nc);
    fs->pc = calloc((size_t)fs->nc, sizeof *fs->pc);
    fs->fd = calloc((size_t)(room ? room : 1), sizeof *fs->fd);
    if (!fs->rank || !fs->ysign || !fs->finite || !fs->cw || !fs->pc || !fs->fd)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    for (int c = 0; c < fs->nc; c++) {
        fs->pc[c] = *param;
        if (C) fs->pc[c].C = C[c];
    }
    if ((st = layout_classes(prob, param, &fs->cls, &fs->grouped, fs->ysign, fs->finite, &fs->cl))) return st;
    for (int c = 0; c < k; c++)
        if (!fs->finite[c]) return GS_ERR_UNSUPPORTED;
    for (int g = 0; g < l; g++) fs->rank[fs->cls.order[g]] = g - fs->cls.start[fs->cls.of_row[fs->cls.order[g]]];
    for (int c = 0; c < fs->nc; c++) /* by label, so the same C for each fold's pairs */
        class_weights(&fs->pc[c], &fs->cls, fs->cw + (size_t)c * k, 0);
    return GS_OK;
}

/* The full set's class of sub's class a (the class of its first row). */
static int full_class(const fold_set *fs, const fold *d, int a)
{
    return fs->cls.of_row[d->rows[d->cls.order[d->cls.start[a]]]];
}

/* The next fold (index fs->nfold on entry, within fold_set_open's room) at C value cidx: sub's
 * rows (rows[n], taken over, freed with fs even on an error), its classes and pairs. */
static gs_status fold_set_add(fold_set *fs, int32_t *rows, int n, int pos, int cidx)
{
    fold *d = &fs->fd[fs->nfold++];
    d->rows = rows;
    d->n = n;
    d->pos = pos;
    d->cidx = cidx;
    /* the classes of sub's labels (gs_classes_group reads only l and y) */
    gs_problem lab = {.l = n, .y = malloc(sizeof(double) * (size_t)(n ? n : 1))};
    if (!lab.y) return GS_FAIL(GS_ERR_NOMEM, "out of memory for a fold");
    for (int t = 0; t < n; t++)
        lab.y[t] = pos < 0 ? fs->prob->y[rows[t]] : (fs->cls.of_row[rows[t]] == pos ? 1 : -1);
    gs_status st = gs_classes_group(&lab, &d->cls);
    free(lab.y);
    if (st != GS_OK) return st;
    const int kf = d->cls.k;
    d->npair = kf * (kf - 1) / 2;
    const size_t np1 = (size_t)(d->npair ? d->npair : 1);
    d->pairs = malloc(sizeof *d->pairs * np1);
    d->lo = malloc(sizeof *d->lo * np1);
    d->hi = malloc(sizeof *d->hi * np1);
    d->out = calloc(np1, sizeof *d->out);
    d->alpha = malloc(sizeof *d->alpha * (size_t)(n ? n : 1) * (size_t)(kf > 1 ? kf - 1 : 1));
    if (!d->pairs || !d->lo || !d->hi || !d->out || !d->alpha) return GS_FAIL(GS_ERR_NOMEM, "out of memory for a fold");
    d->item0 = fs->nitems;
    fs->nitems += d->npair;
    for (int a = 0, p = 0; a < kf; a++)
        for (int b = a + 1; b < kf; b++, p++) {
            const int i = full_class(fs, d, a), j = full_class(fs, d, b);
            d->pairs[p][0] = a;
            d->pairs[p][1] = b;
            d->lo[p] = i < j ? i : j;
            d->hi[p] = i < j ? j : i;
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
        const int r = d->rows[pair_row(c, a, b, t)];
        double *side = &left[t >= na];
        const int pos = pair_pos(full, rank, d->lo[p], r);
        alpha[pos] = *side < 1 ? *side : 1;
        *side -= alpha[pos];
    }
}

/* Fold f's pairs as items (fold_set_solve): each pair's problem, its skip marks (the rows outside
 * the fold) and nu-SVC's start, at off[f] in the shared arrays, whose pages it touches first, as
 * it does the fold's own answers'. */
typedef struct fold_items {
    fold_set *fs;
    const int64_t *off; /* [nfold + 1] each fold's first position */
} fold_items;

static gs_status fold_items_one(void *ctx, int f)
{
    const fold_items *fi = ctx;
    fold_set *fs = fi->fs;
    const gs_classes *cls = &fs->cls;
    const fold *d = &fs->fd[f];
    const size_t n0 = (size_t)fi->off[f], nf = (size_t)(fi->off[f + 1] - fi->off[f]);
    gs_pages_touch(fs->gx_all + n0, sizeof *fs->gx_all * nf); /* as svc_alloc's */
    gs_pages_touch(fs->ex_all + n0, sizeof *fs->ex_all * nf);
    /* and the fold's answers' alphas (fold_answer: their first writes were 30 ms of letter's -v 5
     * answers on two cores, after the solve; here they wait for the device with the rest) */
    gs_pages_touch(d->alpha, sizeof *d->alpha * (size_t)d->n * (size_t)(d->cls.k > 1 ? d->cls.k - 1 : 1));
    uint8_t *in = calloc((size_t)(fs->l ? fs->l : 1), 1); /* the fold's rows */
    if (!in) return GS_FAIL(GS_ERR_NOMEM, "out of memory for a fold's problems");
    for (int t = 0; t < d->n; t++) in[d->rows[t]] = 1;
    const pair_layout lay = {.param = &fs->pc[d->cidx], .cls = cls, .cl = &fs->cl, .k = fs->k, .l = fs->l,
                             .nu = fs->nu, .cw = fs->cw + (size_t)d->cidx * fs->k, .alpha_all = fs->alpha_all,
                             .gx_all = fs->gx_all, .ex_all = fs->ex_all, .zeros = fs->zeros};
    int64_t off = fi->off[f];
    for (int p = 0; p < d->npair; p++) {
        gs_run_item *it = &fs->items[d->item0 + p];
        pair_out o = {.alpha = fs->alpha_all + off};
        const int lo = d->lo[p], hi = d->hi[p];
        set_up_pair(&lay, lo, hi, &o, it);
        uint8_t *skip = fs->skip_all + off;
        for (int32_t t = 0; t < it->n; t++) skip[t] = !in[pair_row(cls, lo, hi, t)];
        it->spec.skip = skip;
        if (fs->nu) fold_nu_start(fs->param, cls, fs->rank, d, p, o.alpha, it->n);
        snprintf(it->name, sizeof it->name, "fold %d pair %d-%d", f + 1, cls->label[lo], cls->label[hi]);
        off += it->n;
    }
    free(in);
    return GS_OK;
}

/* Every fold's pairs as items (the full set's pair, the rows outside the fold left out), laid out
 * fold by fold on threads (letter's -v 5: 1,625 pairs of 1.9M positions), then solved and
 * certified in one batch. */
static gs_status fold_set_solve(const gs_device_provider *dev, fold_set *fs, const gs_log *log)
{
    gs_status st = GS_OK;
    const gs_param *param = fs->param;
    const gs_classes *cls = &fs->cls;
    const int nu = fs->nu, l = fs->l;
    const double t_start = gs_now();
    gs_run_pool *solver = NULL;
    int64_t *off = malloc(sizeof *off * ((size_t)fs->nfold + 1));
    if (!off) return GS_FAIL(GS_ERR_NOMEM, "out of memory for %d folds' problems", fs->nfold);
    off[0] = 0;
    for (int f = 0; f < fs->nfold; f++) {
        off[f + 1] = off[f];
        for (int p = 0; p < fs->fd[f].npair; p++) off[f + 1] += cls->count[fs->fd[f].lo[p]] + cls->count[fs->fd[f].hi[p]];
    }
    const size_t t1 = (size_t)(off[fs->nfold] ? off[fs->nfold] : 1);
    fs->items = calloc((size_t)(fs->nitems ? fs->nitems : 1), sizeof *fs->items);
    fs->alpha_all = malloc(sizeof *fs->alpha_all * t1);
    fs->gx_all = malloc(sizeof *fs->gx_all * t1);
    fs->ex_all = malloc(sizeof *fs->ex_all * t1);
    fs->skip_all = malloc(t1);
    if (nu) fs->zeros = calloc(t1, sizeof *fs->zeros);
    if (!fs->items || !fs->alpha_all || !fs->gx_all || !fs->ex_all || !fs->skip_all || (nu && !fs->zeros)) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d folds' problems", fs->nfold);
        goto cleanup;
    }
    {
        fold_items fi = {.fs = fs, .off = off};
        const int nth = off[fs->nfold] >= 65536 ? gs_cpu_threads(16) : 1; /* at most a thread a fold */
        if ((st = gs_parallel_items(fs->nfold, nth, fold_items_one, &fi))) goto cleanup;
    }
    if (fs->nitems > 0) {
        gs_train_stats ts = {0};
        const double t0 = gs_now();
        if ((st = gs_run_open_solver(dev, param, fs->ws_k, l, fs->grouped.row_ptr, &fs->cl, log, &ts, &solver)) ||
            (nu && (st = gs_run_start_gradients(solver, &fs->cl, fs->ysign, fs->items, fs->nitems, &ts))) ||
            (st = gs_run_certified(solver, &fs->cl, fs->ysign, fs->items, fs->nitems, param->eps, 0, log, &ts)))
            goto cleanup;
        gs_log_verbose(log, "gpusvm: %d fold problem(s): seconds: problems laid out %.3f, device and solver ready "
                       "%.3f, setup %.3f, update %.3f, select %.3f, rows %.3f, subproblem %.3f, transfer %.3f, "
                       "other %.3f, certification %.3f, solved after %.3f\n", fs->nitems, t0 - t_start,
                       ts.t_on_device > 0 ? ts.t_on_device - t0 - ts.setup : 0, ts.setup, ts.update, ts.select,
                       ts.rows, ts.subproblem, ts.transfer, ts.other, ts.certify, gs_now() - t0);
    }
cleanup:;
    const double t_free = gs_now();
    gs_run_pool_free(solver);
    free(off);
    if (solver) gs_log_verbose(log, "gpusvm: folds' solver released in %.4f s\n", gs_now() - t_free);
    return st;
}

/* Fold d's pair p's answer (d->out[p]) in sub's grouped order from its solved item, as
 * gs_svm_train gives it for sub; its alphas at alpha (d->alpha's share of pair p). */
static void fold_answer(const fold_set *fs, fold *d, int p, double *alpha)
{
    const gs_classes *c = &d->cls;
    const int a = d->pairs[p][0], b = d->pairs[p][1], na = c->count[a], n = na + c->count[b];
    const gs_run_item *it = &fs->items[d->item0 + p];
    pair_out *o = &d->out[p];
    o->alpha = alpha;
    for (int t = 0; t < n; t++)
        o->alpha[t] = it->spec.alpha[pair_pos(&fs->cls, fs->rank, d->lo[p], d->rows[pair_row(c, a, b, t)])];
    o->res = it->res;
    /* class a is the full pair's -1 side: the same alphas, the other sign of rho */
    if (full_class(fs, d, a) != d->lo[p]) o->res.rho = -o->res.rho;
    if (fs->nu) { /* LIBSVM's scaling by r, as gs_svm_train */
        const double r = o->res.r;
        for (int t = 0; t < n; t++) o->alpha[t] /= r;
        o->res.rho /= r;
        o->res.obj /= r * r;
    }
}

/* Fold f's model, as gs_svm_train builds it for sub (prob's rows of the fold), from its pairs'
 * answers (fold_answer); fold_lines prints what it prints. */
static gs_status fold_model_build(const fold_set *fs, int f, gs_model *m)
{
    gs_status st = GS_OK;
    fold *d = &fs->fd[f];
    const gs_classes *c = &d->cls;
    const int kf = c->k, l = d->n;
    gs_problem sub = {0};
    int *nonzero = calloc((size_t)(l ? l : 1), sizeof *nonzero);
    double *coef_rows = calloc((size_t)(l ? l : 1) * (size_t)(kf > 1 ? kf - 1 : 1), sizeof *coef_rows);
    if (!nonzero || !coef_rows) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
    if ((st = gs_problem_subset(fs->prob, d->rows, d->n, &sub))) goto cleanup;
    if ((st = model_header(&fs->pc[d->cidx], c, m))) goto cleanup;
    /* a pair's problem: LIBSVM's +1 / -1 labels */
    for (int t = 0; t < sub.l && d->pos >= 0; t++) sub.y[t] = fs->cls.of_row[d->rows[t]] == d->pos ? 1 : -1;
    if ((st = model_svs(&sub, c, d->pairs, d->out, nonzero, coef_rows, m))) goto cleanup;
    for (int p = 0; p < d->npair; p++) m->rho[p] = d->out[p].res.rho; /* as print_pair sets it */
cleanup:
    if (st != GS_OK) gs_model_free(m);
    gs_problem_free(&sub);
    free(nonzero); free(coef_rows);
    return st;
}

/* What gs_svm_train prints of fold f's training, m its model (fold_model_build). */
static gs_status fold_lines(const fold_set *fs, int f, gs_model *m, const gs_log *log)
{
    const fold *d = &fs->fd[f];
    const gs_classes *c = &d->cls;
    const int kf = c->k;
    double *cw = malloc(sizeof *cw * (size_t)(kf ? kf : 1));
    if (!cw) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    /* a pair's classes keep their C from the full set's (its weights are those two, so it warns
     * of none) */
    class_weights(&fs->pc[d->cidx], c, cw, d->pos < 0);
    for (int a = 0; a < kf && d->pos >= 0; a++) cw[a] = fs->cw[(size_t)d->cidx * fs->k + full_class(fs, d, a)];
    if (kf == 1) gs_log_info(log, "WARNING: training data in only one class. See README for details.\n");
    for (int p = 0; p < d->npair; p++) print_pair(log, c, d->pairs, d->out, cw, fs->nu, p, m);
    gs_log_info(log, "Total nSV = %d\n", m->l);
    free(cw);
    return GS_OK;
}

/* fold_model_build of folds idx[0..n) into *out[0..n), on up to 16 threads: first every pair's
 * answer, pair by pair (its alphas gathered from the solver's order: fold by fold, letter's -v 5
 * took 30 ms there on the development machine's two cores), then each fold's own arrays and model. */
typedef struct build_set {
    const fold_set *fs;
    const int *idx;
    int n;
    const int *first;      /* [n + 1]: the pairs of the folds before idx[i] */
    const int64_t *aoff;   /* [first[n]]: each pair's alphas in its fold's d->alpha */
    gs_model *const *out;
} build_set;

static gs_status answer_item(void *ctx, int k)
{
    const build_set *b = ctx;
    int lo = 0, hi = b->n - 1; /* the fold i with first[i] <= k < first[i + 1] */
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (b->first[mid] <= k) lo = mid;
        else hi = mid - 1;
    }
    fold *d = &b->fs->fd[b->idx[lo]];
    fold_answer(b->fs, d, k - b->first[lo], d->alpha + b->aoff[k]);
    return GS_OK;
}

static gs_status build_item(void *ctx, int i)
{
    const build_set *b = ctx;
    return fold_model_build(b->fs, b->idx[i], b->out[i]);
}

static gs_status folds_build(const fold_set *fs, const int *idx, int n, gs_model *const *out)
{
    int *first = malloc(sizeof *first * ((size_t)n + 1));
    int64_t *aoff = NULL;
    gs_status st = GS_OK;
    if (!first) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    first[0] = 0;
    for (int i = 0; i < n; i++) first[i + 1] = first[i] + fs->fd[idx[i]].npair;
    if (!(aoff = malloc(sizeof *aoff * (size_t)(first[n] ? first[n] : 1)))) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (int i = 0; i < n; i++) {
        const fold *d = &fs->fd[idx[i]];
        int64_t o = 0;
        for (int p = 0; p < d->npair; p++) {
            aoff[first[i] + p] = o;
            o += d->cls.count[d->pairs[p][0]] + d->cls.count[d->pairs[p][1]];
        }
    }
    build_set b = {.fs = fs, .idx = idx, .n = n, .first = first, .aoff = aoff, .out = out};
    if ((st = gs_parallel_items(first[n], first[n] >= 64 ? gs_cpu_threads(16) : 1, answer_item, &b)) == GS_OK)
        st = gs_parallel_items(n, gs_cpu_threads(16), build_item, &b);
cleanup:
    free(first);
    free(aoff);
    return st;
}

gs_status gs_svm_train_folds(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                             const double *C, int nc, const gs_log *log, int nr_fold, const int *perm,
                             const int *start, gs_model *models)
{
    if (!C) nc = 1;
    if (param->svm_type == GS_ONE_CLASS || param->svm_type == GS_EPSILON_SVR || param->svm_type == GS_NU_SVR)
        return C ? GS_ERR_UNSUPPORTED : gs_train_single_folds(dev, prob, param, log, nr_fold, perm, start, models);
    if ((param->svm_type != GS_C_SVC && param->svm_type != GS_NU_SVC) || nc < 1 ||
        (param->svm_type == GS_NU_SVC && nc > 1))
        return GS_ERR_UNSUPPORTED;
    fold_set fs;
    double tm[4] = {gs_now(), 0, 0, 0}; /* start, folds added, solved, models built */
    gs_status st = fold_set_open(prob, param, C, nc, nr_fold * nc, &fs);
    /* C value c's fold f is fold c * nr_fold + f */
    for (int c = 0; c < nc && st == GS_OK; c++)
        for (int f = 0; f < nr_fold && st == GS_OK; f++) {
            const int l = prob->l;
            int32_t *rows = malloc(sizeof *rows * (size_t)(l ? l : 1)), n = 0;
            if (!rows) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for a fold"); break; }
            for (int j = 0; j < start[f]; j++) rows[n++] = perm[j];
            for (int j = start[f + 1]; j < start[nr_fold]; j++) rows[n++] = perm[j];
            st = fold_set_add(&fs, rows, n, -1, c);
        }
    tm[1] = gs_now();
    if (st == GS_OK) st = fold_set_solve(dev, &fs, log);
    tm[2] = gs_now();
    /* the models on threads, then their lines fold by fold, each C value's in turn (the order of
     * training them fold by fold) */
    int *idx = st == GS_OK ? malloc(sizeof *idx * (size_t)(nr_fold * nc)) : NULL;
    gs_model **out = st == GS_OK ? malloc(sizeof *out * (size_t)(nr_fold * nc)) : NULL;
    if (st == GS_OK && (!idx || !out)) st = GS_FAIL(GS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < nr_fold * nc && st == GS_OK; i++) {
        idx[i] = i;
        out[i] = &models[i];
    }
    if (st == GS_OK) st = folds_build(&fs, idx, nr_fold * nc, out);
    for (int f = 0; f < nr_fold && st == GS_OK; f++)
        for (int c = 0; c < nc && st == GS_OK; c++)
            st = fold_lines(&fs, c * nr_fold + f, &models[(size_t)c * nr_fold + f], log);
    free(idx);
    free(out);
    tm[3] = gs_now();
    fold_set_free(&fs);
    gs_log_verbose(log, "gpusvm: folds: set up %.4f s, solved %.4f s (the device's start-up included), models "
                   "%.4f s\n", tm[1] - tm[0], tm[2] - tm[1], tm[3] - tm[2]);
    return st;
}

/* ---- -b 1's internal folds of every pair in one batch ---------------------------------------- */

/* Pair (i, j)'s probability: the decision values of its folds (fold_set fold fi[f], or -1 for a
 * fold whose training rows hold one class or none, which LIBSVM does not train: +1, -1 or 0; fm[f]
 * the trained ones' models, held[] their held-out rows' values in the pair's shuffled order perm),
 * then their sigmoid. Prints nothing (pairs_lines does, in order), so the pairs run on threads. */
static gs_status pair_sigmoid(const gs_classes *cls, int i, int j, const int *perm, const int *fi, const gs_model *fm,
                              const double *held, double *probA, double *probB, int *notes)
{
    const int ni = cls->count[i], n = ni + cls->count[j];
    gs_status st = GS_OK;
    double *dec = malloc(sizeof *dec * (size_t)(n ? n : 1)), *y = malloc(sizeof *y * (size_t)(n ? n : 1));
    if (!dec || !y) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d decision values", n); goto cleanup; }
    for (int t = 0; t < n; t++) y[t] = t < ni ? 1 : -1;
    for (int f = 0; f < GS_PROB_FOLDS; f++) {
        const int b = gs_prob_fold_start(n, f), e = gs_prob_fold_start(n, f + 1);
        if (fi[f] < 0) {
            int npos = 0; /* the training positions of class i */
            for (int t = 0; t < n; t++) npos += perm[t] < ni && (t < b || t >= e);
            const double v = gs_prob_lone_value(npos, n - (e - b) - npos);
            for (int t = b; t < e; t++) dec[perm[t]] = v;
            continue;
        }
        gs_prob_place_held(&fm[f], held + b, perm + b, e - b, dec);
    }
    st = gs_prob_fit_sigmoid(n, dec, y, notes, probA, probB);
cleanup:
    free(dec); free(y);
    return st;
}

/* Fold f of pair (i, j) shuffled by perm added to fs as fold *fi when its training rows hold both
 * classes (*fi = -1, nothing added, otherwise). */
static gs_status pair_fold_add(fold_set *fs, const gs_classes *cls, int i, int j, const int *perm, int f, int *fi)
{
    const int ni = cls->count[i], n = ni + cls->count[j];
    const int b = gs_prob_fold_start(n, f), e = gs_prob_fold_start(n, f + 1);
    int npos = 0;
    for (int t = 0; t < n; t++) npos += perm[t] < ni && (t < b || t >= e);
    *fi = -1;
    if (npos == 0 || n - (e - b) - npos == 0) return GS_OK;
    int32_t *rows = malloc(sizeof *rows * (size_t)(n - (e - b) > 0 ? n - (e - b) : 1)), m = 0;
    if (!rows) return GS_FAIL(GS_ERR_NOMEM, "out of memory for a fold");
    for (int t = 0; t < n; t++)
        if (t < b || t >= e) rows[m++] = pair_row(cls, i, j, perm[t]);
    *fi = fs->nfold;
    return fold_set_add(fs, rows, m, i, 0);
}

/* Every pair's folds' models and held-out decision values (pairs_held_out): fold f of pair p's
 * model fm[p * GS_PROB_FOLDS + f] (when trained), its held-out rows' values in held[off[p] + t]
 * for the pair's shuffled position t. */
typedef struct pairs_held {
    gs_model *fm;
    double *held;
    size_t *off;
} pairs_held;

static void held_free(pairs_held *h, int nfm)
{
    for (int i = 0; h->fm && i < nfm; i++) gs_model_free(&h->fm[i]);
    free(h->fm); free(h->held); free(h->off);
}

/* Every pair's pair_sigmoid, on threads (letter's 325 pairs took 0.14-0.21 s on one). */
typedef struct sigmoid_set {
    const gs_classes *cls;
    int (*pairs)[2];
    int *const *perm;
    const int *fi;
    const pairs_held *h;
    gs_model *model;
    int *notes; /* [npair] */
} sigmoid_set;

static gs_status sigmoid_item(void *ctx, int p)
{
    const sigmoid_set *s = ctx;
    return pair_sigmoid(s->cls, s->pairs[p][0], s->pairs[p][1], s->perm[p], s->fi + p * GS_PROB_FOLDS,
                        s->h->fm + (size_t)p * GS_PROB_FOLDS, s->h->held + s->h->off[p], &s->model->probA[p],
                        &s->model->probB[p], &s->notes[p]);
}

/* The trained folds' models (fi[p * GS_PROB_FOLDS + f] >= 0), then every one's held-out rows'
 * decision values in one call (gs_cross_validation_dec_many: the device's layouts for many folds
 * made together). */
static gs_status pairs_held_out(const gs_device_provider *dev, const fold_set *fs, const gs_classes *cls,
                                int (*pairs)[2], const gs_param *param, int *const *perm, const int *fi,
                                const gs_log *log, pairs_held *h)
{
    const int npair = cls->k * (cls->k - 1) / 2, nf = GS_PROB_FOLDS * npair;
    gs_status st = GS_OK;
    gs_cv_dec_item *items = calloc((size_t)(nf ? nf : 1), sizeof *items);
    int *rows = NULL, ni = 0, *bidx = malloc(sizeof *bidx * (size_t)(nf ? nf : 1));
    gs_model **bout = malloc(sizeof *bout * (size_t)(nf ? nf : 1));
    h->fm = calloc((size_t)(nf ? nf : 1), sizeof *h->fm);
    h->off = malloc(sizeof *h->off * ((size_t)npair + 1));
    if (!items || !bidx || !bout || !h->fm || !h->off) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
    h->off[0] = 0;
    for (int p = 0; p < npair; p++) h->off[p + 1] = h->off[p] + (size_t)(cls->count[pairs[p][0]] + cls->count[pairs[p][1]]);
    h->held = malloc(sizeof *h->held * (h->off[npair] ? h->off[npair] : 1));
    rows = malloc(sizeof *rows * (h->off[npair] ? h->off[npair] : 1));
    if (!h->held || !rows) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %zu decision values", h->off[npair]); goto cleanup; }
    for (int p = 0; p < npair; p++) {
        const int i = pairs[p][0], j = pairs[p][1], n = cls->count[i] + cls->count[j];
        for (int t = 0; t < n; t++) rows[h->off[p] + t] = pair_row(cls, i, j, perm[p][t]);
        for (int f = 0; f < GS_PROB_FOLDS; f++) {
            const int k = p * GS_PROB_FOLDS + f, b = gs_prob_fold_start(n, f), e = gs_prob_fold_start(n, f + 1);
            if (fi[k] < 0) continue;
            bidx[ni] = fi[k];
            bout[ni] = &h->fm[k];
            items[ni++] = (gs_cv_dec_item){.m = &h->fm[k], .rows = rows + h->off[p] + b, .n = e - b,
                                           .dec = h->held + h->off[p] + b};
        }
    }
    if ((st = folds_build(fs, bidx, ni, bout))) goto cleanup;
    st = gs_cross_validation_dec_many(dev, &param->tuning, fs->prob, items, ni, log);
cleanup:
    free(items); free(rows); free(bidx); free(bout);
    return st;
}

/* Every pair's probability (finish_pairs with the shuffles perm[npair] drawn): the folds of every
 * pair solved in one batch over one upload of prob, then pair by pair its folds' lines, its
 * sigmoid and its own lines (svm-train's order).
 * @return GS_OK; GS_ERR_UNSUPPORTED (nothing printed) for non-finite values; or the error */
static gs_status pairs_probability(const gs_device_provider *dev, const gs_problem *prob, const gs_classes *cls,
                                   int (*pairs)[2], const pair_out *out, const double *cw, const gs_param *param,
                                   int *const *perm, const gs_log *log, gs_model *model)
{
    const int npair = cls->k * (cls->k - 1) / 2, nu = param->svm_type == GS_NU_SVC;
    fold_set fs;
    pairs_held h = {0};
    int *fi = malloc(sizeof *fi * (size_t)GS_PROB_FOLDS * (size_t)(npair ? npair : 1));
    gs_status st = fi ? fold_set_open(prob, param, NULL, 1, GS_PROB_FOLDS * npair, &fs)
                      : GS_FAIL(GS_ERR_NOMEM, "out of memory");
    /* each fold is a two-class problem: the two-class working set where it holds every fold's
     * training rows (each fold then solved whole, as the pair trainings it replaces), else the
     * one-vs-one pairs' (fold_set_open): the folds are those pairs less a fifth, and the two-class
     * set (768) made letter's and mnist10k's -b 1 set up 768 x 768 kernel matrices for 1625 and
     * 225 problems larger than the set */
    int most = 0;
    for (int p = 0; p < npair; p++) {
        const int n = cls->count[pairs[p][0]] + cls->count[pairs[p][1]];
        if (n - (gs_prob_fold_start(n, 1) - gs_prob_fold_start(n, 0)) > most)
            most = n - (gs_prob_fold_start(n, 1) - gs_prob_fold_start(n, 0));
    }
    if (st == GS_OK) {
        memcpy(fs.cw, cw, sizeof *cw * (size_t)cls->k); /* this C value's (param->C may be another) */
        if (most <= gs_run_ws_size(param, 2, prob->l)) fs.ws_k = 2;
    }
    for (int p = 0; p < npair && st == GS_OK; p++)
        for (int f = 0; f < GS_PROB_FOLDS && st == GS_OK; f++)
            st = pair_fold_add(&fs, cls, pairs[p][0], pairs[p][1], perm[p], f, &fi[p * GS_PROB_FOLDS + f]);
    double tm[4] = {gs_now(), 0, 0, 0}; /* start, folds solved, held-out values, sigmoids */
    if (st == GS_OK) st = fold_set_solve(dev, &fs, log);
    tm[1] = gs_now();
    if (st == GS_OK) st = pairs_held_out(dev, &fs, cls, pairs, param, perm, fi, log, &h);
    tm[2] = gs_now();
    int *notes = st == GS_OK ? calloc((size_t)(npair ? npair : 1), sizeof *notes) : NULL;
    if (st == GS_OK && !notes) st = GS_FAIL(GS_ERR_NOMEM, "out of memory");
    if (st == GS_OK) {
        sigmoid_set ss = {.cls = cls, .pairs = pairs, .perm = perm, .fi = fi, .h = &h, .model = model, .notes = notes};
        st = gs_parallel_items(npair, gs_cpu_threads(16), sigmoid_item, &ss);
    }
    /* LIBSVM's lines pair by pair: its folds' trainings, the sigmoid's notes, the pair's training */
    for (int p = 0; p < npair && st == GS_OK; p++) {
        for (int f = 0; f < GS_PROB_FOLDS && st == GS_OK; f++)
            if (fi[p * GS_PROB_FOLDS + f] >= 0)
                st = fold_lines(&fs, fi[p * GS_PROB_FOLDS + f], &h.fm[(size_t)p * GS_PROB_FOLDS + f], log);
        gs_prob_print_notes(log, notes[p]);
        if (st == GS_OK) print_pair(log, cls, pairs, out, cw, nu, p, model);
    }
    free(notes);
    tm[3] = gs_now();
    if (st == GS_OK)
        gs_log_verbose(log, "gpusvm: probability: %d pair(s)' folds solved in %.4f s, their models and held-out "
                       "values in %.4f s, sigmoids and lines %.4f s\n", npair, tm[1] - tm[0], tm[2] - tm[1],
                       tm[3] - tm[2]);
    held_free(&h, GS_PROB_FOLDS * npair);
    if (fi) fold_set_free(&fs);
    free(fi);
    return st;
}
