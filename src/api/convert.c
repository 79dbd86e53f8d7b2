/* convert.c — svm.h's structs to gpusvm's and back (convert.h). */
#include "api/convert.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void gs_api_param_from(const struct svm_parameter *sp, const struct gpusvm_options *opt, gs_param *out)
{
    gs_param_init(out);
    out->svm_type = sp->svm_type;
    out->kernel_type = sp->kernel_type;
    out->degree = sp->degree;
    out->gamma = sp->gamma;
    out->coef0 = sp->coef0;
    out->cache_size = sp->cache_size;
    out->eps = sp->eps;
    out->C = sp->C;
    out->nr_weight = sp->nr_weight;
    out->weight_label = sp->weight_label;
    out->weight = sp->weight;
    out->nu = sp->nu;
    out->p = sp->p;
    out->shrinking = sp->shrinking;
    out->probability = sp->probability;
    if (opt) {
        out->ws_size = opt->ws_size;
        out->ws_keep = opt->ws_keep;
        out->clusters_active = opt->clusters;
        out->cluster_size = opt->cluster_size;
        out->seed = opt->seed;
    }
}

const char *gs_api_check(const struct svm_problem *prob, const gs_param *p)
{
    gs_problem view = {0};
    if (prob) {
        /* only l and y are read (the nu feasibility test) */
        if (prob->l < 0) return "svm_problem.l < 0";
        if (prob->l > 0 && !prob->y) return "svm_problem.y is NULL";
        view.l = prob->l;
        view.y = prob->y;
    }
    const char *msg = gs_param_check(p, prob ? &view : NULL);
    if (msg) return msg;
    /* svm_train would read them; LIBSVM does not check */
    if (p->nr_weight < 0) return "nr_weight < 0";
    if (p->nr_weight > 0 && (!p->weight_label || !p->weight)) return "weight_label or weight is NULL";
    return NULL;
}

/* Counts row i's nodes and checks them (convert.h's rules); adds to *nnz and *max_index. */
static gs_status check_row(const struct svm_problem *prob, int i, int64_t *nnz, int32_t *max_index)
{
    const struct svm_node *x = prob->x[i];
    if (!x) return GS_FAIL(GS_ERR_ARG, "prob->x[%d] is NULL", i);
    if (!isfinite(prob->y[i]))
        return GS_FAIL(GS_ERR_ARG, "prob->y[%d] is %g (labels must be finite)", i, prob->y[i]);
    int prev = -1;
    for (const struct svm_node *n = x; n->index != -1; n++) {
        if (n->index <= prev)
            return GS_FAIL(GS_ERR_ARG, "prob->x[%d]: index %d after %d (indices must ascend, "
                           "from 1, or from 0 for the serial number)", i, n->index, prev);
        /* as gpusvm-train's reader: a float cannot hold it (values are stored as float) */
        if (isinf((float)n->value) && !isinf(n->value))
            return GS_FAIL(GS_ERR_ARG, "prob->x[%d]: value %g of index %d does not fit in "
                           "single precision (gpusvm stores training values as float, largest %g)",
                           i, n->value, n->index, (double)FLT_MAX);
        prev = n->index;
        (*nnz)++;
    }
    if (prev > *max_index) *max_index = prev;
    return GS_OK;
}

gs_status gs_api_problem_from(const struct svm_problem *prob, gs_problem *out)
{
    gs_status st = GS_OK;
    memset(out, 0, sizeof *out);
    if (prob->l < 0) return GS_FAIL(GS_ERR_ARG, "prob->l is %d", prob->l);
    if (prob->l > 0 && (!prob->x || !prob->y)) return GS_FAIL(GS_ERR_ARG, "prob->x or prob->y is NULL");
    int64_t nnz = 0;
    int32_t max_index = 0;
    for (int i = 0; i < prob->l; i++)
        if ((st = check_row(prob, i, &nnz, &max_index))) return st;
    out->l = prob->l;
    out->nnz = nnz;
    out->max_index = max_index;
    out->y = malloc(sizeof *out->y * (size_t)(prob->l ? prob->l : 1));
    out->row_ptr = malloc(sizeof *out->row_ptr * ((size_t)prob->l + 1));
    out->idx = malloc(sizeof *out->idx * (size_t)(nnz ? nnz : 1));
    out->val = malloc(sizeof *out->val * (size_t)(nnz ? nnz : 1));
    if (!out->y || !out->row_ptr || !out->idx || !out->val) {
        gs_problem_free(out);
        return GS_FAIL(GS_ERR_NOMEM, "out of memory copying %d rows", prob->l);
    }
    int64_t o = 0;
    out->row_ptr[0] = 0;
    for (int i = 0; i < prob->l; i++) {
        out->y[i] = prob->y[i];
        for (const struct svm_node *n = prob->x[i]; n->index != -1; n++, o++) {
            out->idx[o] = n->index;
            out->val[o] = (float)n->value; /* as the reader rounds strtod's double */
        }
        out->row_ptr[i + 1] = o;
    }
    return GS_OK;
}

/* The SV rows of g as node arrays (one block, each row ended by index -1) into m->SV. On error
 * m->SV stays NULL, so freeing m never touches an unset SV[0]. */
static gs_status copy_svs(const gs_model *g, struct svm_model *m)
{
    const int64_t nnz = g->l > 0 ? g->sv_ptr[g->l] : 0;
    struct svm_node **sv = malloc(sizeof *sv * (size_t)(g->l > 0 ? g->l : 1));
    /* l == 0: no block (svm_free_model_content frees SV[0] only when l > 0, as LIBSVM does) */
    struct svm_node *block = g->l > 0 ? malloc(sizeof *block * (size_t)(nnz + g->l)) : NULL;
    if (!sv || (g->l > 0 && !block)) {
        free(sv);
        free(block);
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for %d support vectors", (int)g->l);
    }
    struct svm_node *n = block;
    for (int32_t s = 0; s < g->l; s++) {
        sv[s] = n;
        for (int64_t e = g->sv_ptr[s]; e < g->sv_ptr[s + 1]; e++, n++) {
            n->index = g->sv_idx[e];
            n->value = g->sv_val[e];
        }
        n->index = -1;
        n->value = 0;
        n++;
    }
    m->SV = sv;
    return GS_OK;
}

/* A malloc'd copy of n doubles (at least one allocated, so an empty array is not NULL). */
static double *dup_doubles(const double *v, int64_t n)
{
    double *d = malloc(sizeof *d * (size_t)(n > 0 ? n : 1));
    if (d && n > 0) memcpy(d, v, sizeof *d * (size_t)n);
    return d;
}

static int *dup_ints(const int *v, int64_t n)
{
    int *d = malloc(sizeof *d * (size_t)(n > 0 ? n : 1));
    if (d && n > 0) memcpy(d, v, sizeof *d * (size_t)n);
    return d;
}

gs_status gs_api_model_new(const gs_model *g, const struct svm_parameter *param, struct svm_model **out)
{
    gs_status st = GS_OK;
    *out = NULL;
    if (g->svm_type == GS_CS_SVC)
        return GS_FAIL(GS_ERR_UNSUPPORTED, "cs_svc (Crammer-Singer) models have no svm_model form; use "
                       "gpusvm-predict for them");
    struct svm_model *m = calloc(1, sizeof *m);
    if (!m) return GS_FAIL(GS_ERR_NOMEM, "out of memory for a model");
    if (param) {
        m->param = *param;
    } else {
        m->param.svm_type = g->svm_type;
        m->param.kernel_type = g->kernel_type;
        m->param.degree = g->degree;
        m->param.gamma = g->gamma;
        m->param.coef0 = g->coef0;
    }
    m->nr_class = g->nr_class;
    m->l = g->l;
    m->free_sv = 1; /* the nodes are the model's own copy, also for a trained model */
    const int64_t nrho = gs_model_rho_count(g->svm_type, g->nr_class);
    const int ncoef = g->n_coef;
    if ((st = copy_svs(g, m))) goto cleanup;
    m->sv_coef = calloc((size_t)(ncoef > 0 ? ncoef : 1), sizeof *m->sv_coef);
    m->rho = dup_doubles(g->rho, nrho);
    if (!m->sv_coef || !m->rho) goto nomem;
    for (int c = 0; c < ncoef; c++) {
        m->sv_coef[c] = malloc(sizeof **m->sv_coef * (size_t)(g->l > 0 ? g->l : 1));
        if (!m->sv_coef[c]) goto nomem;
        for (int32_t s = 0; s < g->l; s++) m->sv_coef[c][s] = g->sv_coef[(int64_t)s * ncoef + c];
    }
    if (g->probA && !(m->probA = dup_doubles(g->probA, nrho))) goto nomem;
    if (g->probB && !(m->probB = dup_doubles(g->probB, nrho))) goto nomem;
    if (g->label && !(m->label = dup_ints(g->label, g->nr_class))) goto nomem;
    if (g->nSV && !(m->nSV = dup_ints(g->nSV, g->nr_class))) goto nomem;
    if (g->sv_indices && !(m->sv_indices = dup_ints(g->sv_indices, g->l))) goto nomem;
    *out = m;
    return GS_OK;
nomem:
    st = GS_FAIL(GS_ERR_NOMEM, "out of memory for a model of %d support vectors", (int)g->l);
cleanup:
    gs_api_model_free_content(m);
    free(m);
    return st;
}

void gs_api_model_free_content(struct svm_model *m)
{
    if (!m) return;
    /* LIBSVM's layout: with free_sv the nodes are one block starting at SV[0] */
    if (m->free_sv && m->l > 0 && m->SV) free(m->SV[0]);
    if (m->sv_coef)
        for (int c = 0; c < m->nr_class - 1; c++) free(m->sv_coef[c]);
    free(m->SV);
    free(m->sv_coef);
    free(m->rho);
    free(m->label);
    free(m->probA);
    free(m->probB);
    free(m->sv_indices);
    free(m->nSV);
    m->SV = NULL;
    m->sv_coef = NULL;
    m->rho = NULL;
    m->label = NULL;
    m->probA = NULL;
    m->probB = NULL;
    m->sv_indices = NULL;
    m->nSV = NULL;
}

/* What gs_api_model_to relies on before it copies anything. */
static gs_status check_model(const struct svm_model *m)
{
    const int t = m->param.svm_type, k = m->nr_class;
    if (t < GS_C_SVC || t > GS_NU_SVR) return GS_FAIL(GS_ERR_ARG, "model has unknown svm_type %d", t);
    if (!gs_kernel_type_name(m->param.kernel_type))
        return GS_FAIL(GS_ERR_ARG, "model has unknown kernel_type %d", m->param.kernel_type);
    if (k < 0 || m->l < 0) return GS_FAIL(GS_ERR_ARG, "model has nr_class %d, l %d", k, m->l);
    if (!gs_model_is_classification(t) && k != 2)
        return GS_FAIL(GS_ERR_ARG, "model has nr_class %d (one-class and regression models have 2)", k);
    if (gs_model_rho_count(t, k) > 0 && !m->rho) return GS_FAIL(GS_ERR_ARG, "model has no rho");
    if (m->l > 0 && (!m->SV || (gs_model_coef_count(t, k) > 0 && !m->sv_coef)))
        return GS_FAIL(GS_ERR_ARG, "model has no SV or sv_coef");
    for (int c = 0; c < gs_model_coef_count(t, k) && m->l > 0; c++)
        if (!m->sv_coef[c]) return GS_FAIL(GS_ERR_ARG, "model's sv_coef[%d] is NULL", c);
    for (int s = 0; s < m->l; s++)
        if (!m->SV[s]) return GS_FAIL(GS_ERR_ARG, "model's SV[%d] is NULL", s);
    if (gs_model_is_classification(t) && k > 0) {
        if (!m->label || !m->nSV) return GS_FAIL(GS_ERR_ARG, "model has no label or nSV");
        int64_t sum = 0;
        for (int c = 0; c < k; c++) {
            if (m->nSV[c] < 0) return GS_FAIL(GS_ERR_ARG, "model's nSV[%d] is %d", c, m->nSV[c]);
            sum += m->nSV[c];
        }
        if (sum != m->l) return GS_FAIL(GS_ERR_ARG, "model's nSV add up to %lld, not l = %d", (long long)sum, m->l);
    } else if (gs_model_is_classification(t) && m->l > 0) {
        return GS_FAIL(GS_ERR_ARG, "model has %d SVs but no class", m->l);
    }
    return GS_OK;
}

/* Copies the SV nodes into g's CSR arrays. */
static gs_status copy_svs_back(const struct svm_model *m, gs_model *g)
{
    int64_t nnz = 0;
    for (int s = 0; s < m->l; s++)
        for (const struct svm_node *n = m->SV[s]; n->index != -1; n++) nnz++;
    g->sv_ptr = malloc(sizeof *g->sv_ptr * ((size_t)m->l + 1));
    g->sv_idx = malloc(sizeof *g->sv_idx * (size_t)(nnz ? nnz : 1));
    g->sv_val = malloc(sizeof *g->sv_val * (size_t)(nnz ? nnz : 1));
    if (!g->sv_ptr || !g->sv_idx || !g->sv_val) return GS_FAIL(GS_ERR_NOMEM, "out of memory for the model's SVs");
    int64_t o = 0;
    g->sv_ptr[0] = 0;
    for (int s = 0; s < m->l; s++) {
        for (const struct svm_node *n = m->SV[s]; n->index != -1; n++, o++) {
            g->sv_idx[o] = n->index;
            g->sv_val[o] = n->value;
        }
        g->sv_ptr[s + 1] = o;
    }
    return GS_OK;
}

gs_status gs_api_model_to(const struct svm_model *m, gs_model *g)
{
    gs_status st = GS_OK;
    memset(g, 0, sizeof *g);
    if (!m) return GS_FAIL(GS_ERR_ARG, "model is NULL");
    if ((st = check_model(m))) return st;
    const int t = m->param.svm_type, k = m->nr_class;
    const int64_t nrho = gs_model_rho_count(t, k);
    g->svm_type = t;
    g->kernel_type = m->param.kernel_type;
    g->degree = m->param.degree;
    g->gamma = m->param.gamma;
    g->coef0 = m->param.coef0;
    g->nr_class = k;
    g->l = m->l;
    g->n_coef = gs_model_coef_count(t, k);
    g->rho = dup_doubles(m->rho, nrho);
    g->sv_coef = malloc(sizeof *g->sv_coef * (size_t)(m->l > 0 && g->n_coef > 0 ? (int64_t)m->l * g->n_coef : 1));
    if (!g->rho || !g->sv_coef) goto nomem;
    for (int c = 0; c < g->n_coef; c++)
        for (int s = 0; s < m->l; s++) g->sv_coef[(int64_t)s * g->n_coef + c] = m->sv_coef[c][s];
    if (m->probA && !(g->probA = dup_doubles(m->probA, nrho))) goto nomem;
    if (m->probB && !(g->probB = dup_doubles(m->probB, nrho))) goto nomem;
    if (gs_model_is_classification(t) && k > 0) {
        if (!(g->label = dup_ints(m->label, k)) || !(g->nSV = dup_ints(m->nSV, k))) goto nomem;
    }
    if ((st = copy_svs_back(m, g))) goto cleanup;
    return GS_OK;
nomem:
    st = GS_FAIL(GS_ERR_NOMEM, "out of memory copying a model of %d support vectors", m->l);
cleanup:
    gs_model_free(g);
    return st;
}

gs_status gs_api_row_from(const struct svm_node *x, gs_rows *out)
{
    memset(out, 0, sizeof *out);
    int64_t n = 0;
    while (x[n].index != -1) n++;
    out->row_ptr = malloc(sizeof *out->row_ptr * 2);
    out->y = calloc(1, sizeof *out->y);
    out->idx = malloc(sizeof *out->idx * (size_t)(n ? n : 1));
    out->val = malloc(sizeof *out->val * (size_t)(n ? n : 1));
    if (!out->row_ptr || !out->y || !out->idx || !out->val) {
        gs_rows_free(out);
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for a row of %lld values", (long long)n);
    }
    for (int64_t e = 0; e < n; e++) {
        out->idx[e] = x[e].index;
        out->val[e] = x[e].value;
    }
    out->l = 1;
    out->row_ptr[0] = 0;
    out->row_ptr[1] = n;
    out->cap_rows = 1;
    out->cap_nnz = n;
    return GS_OK;
}
