/* shrink.c — see shrink.h. */
#include "train/shrink.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/cluster.h"
#include "train/solver.h"
#include "train/trainer.h"

/* Stages before the last: they end at 10^SHRINK_STAGES .. 10 times eps. */
#define SHRINK_STAGES 3
/* A stage's rows are laid out anew only when at most this share of them stays. */
#define SHRINK_KEEP 0.75

int gs_shrink_wanted(const gs_param *param, int32_t l)
{
    return param->shrinking == 1 && param->kernel_type != GS_KERNEL_PRECOMPUTED && param->tuning.shrink_min > 0 &&
           l >= param->tuning.shrink_min;
}

/* The rows of a stage, t in [0, n): alpha index row[t] (NULL: t itself, the whole problem), over
 * the clustered layout cl with signs y, alphas a and the rounds' gradients G. */
typedef struct stage {
    int32_t n;
    int32_t *row;
    gs_clustered own;       /* a stage's own layout (not the whole problem's) */
    const gs_clustered *cl;
    int8_t *y;              /* owned unless the whole problem's */
    double *a, *G;          /* owned unless the whole problem's */
} stage;

static void stage_free(stage *s, int owned)
{
    if (owned) {
        free(s->row);
        gs_clustered_free(&s->own);
        free(s->y);
        free(s->a);
        free(s->G);
    }
    memset(s, 0, sizeof *s);
}

/* LIBSVM's rule: with m the largest -yG over I_up and M the smallest over I_low, a row in I_up only
 * whose -yG is below M, or in I_low only above m, cannot be part of a violating pair now. The
 * rows that stay go to keep (stage indices, ascending). @return how many */
static int32_t keep_rows(const stage *s, double Cp, double Cn, int32_t *keep)
{
    double m = -INFINITY, M = INFINITY;
    for (int32_t t = 0; t < s->n; t++) {
        const int pos = s->y[t] > 0;
        const double v = pos ? -s->G[t] : s->G[t], a = s->a[t];
        if (pos ? a < Cp : a > 0) m = fmax(m, v);
        if (pos ? a > 0 : a < Cn) M = fmin(M, v);
    }
    int32_t nk = 0;
    for (int32_t t = 0; t < s->n; t++) {
        const int pos = s->y[t] > 0;
        const double v = pos ? -s->G[t] : s->G[t], a = s->a[t];
        const int up = pos ? a < Cp : a > 0, low = pos ? a > 0 : a < Cn;
        const int out = up && !low ? v < M : low && !up ? v > m : 0; /* NaN stays */
        if (!out) keep[nk++] = t;
    }
    return nk;
}

/* The next stage over cur's rows keep[0..nk): their rows of the problem clustered anew, their
 * alphas and gradients. @return GS_OK, or the error (next left empty) */
static gs_status stage_next(const gs_param *param, const gs_problem *rows, const int8_t *ysign, const stage *cur,
                            const int32_t *keep, int32_t nk, stage *next)
{
    gs_status st = GS_OK;
    gs_problem sub = {0};
    memset(next, 0, sizeof *next);
    next->n = nk;
    next->row = malloc(sizeof *next->row * (size_t)nk);
    next->y = malloc((size_t)nk);
    next->a = malloc(sizeof *next->a * (size_t)nk);
    next->G = malloc(sizeof *next->G * (size_t)nk);
    if (!next->row || !next->y || !next->a || !next->G) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d shrunk rows", (int)nk);
        goto cleanup;
    }
    for (int32_t i = 0; i < nk; i++) {
        const int32_t t = keep[i], r = cur->row ? cur->row[t] : t;
        next->row[i] = r;
        next->y[i] = ysign[r];
        next->a[i] = cur->a[t];
        next->G[i] = cur->G[t];
    }
    if ((st = gs_problem_subset(rows, next->row, nk, &sub))) goto cleanup;
    const int32_t one_seg[2] = {0, nk};
    /* in the whole set's form, which the solvers are built for */
    if ((st = gs_solver_cluster_wide(param, sub.row_ptr, sub.idx, sub.val, nk, 1, one_seg, cur->cl->wide,
                                     &next->own)))
        goto cleanup;
    next->cl = &next->own;
cleanup:
    gs_problem_free(&sub);
    if (st != GS_OK) stage_free(next, 1);
    return st;
}

/* spec over all of the stage's clusters, from its alphas and gradients, to eps. */
static void stage_spec(const stage *s, double eps, long steps_before, gs_binary_spec *spec)
{
    spec->a0 = 0;
    spec->na = s->cl->n_clusters;
    spec->b0 = 0;
    spec->nb = 0;
    spec->rowA0 = 0;
    spec->nrowA = s->n;
    spec->rowB0 = s->n;
    spec->alpha = s->a;
    spec->g_init = s->G;
    spec->g_out = s->G;
    spec->eps = eps;
    spec->steps_before = steps_before;
    memset(&spec->res, 0, sizeof spec->res);
}

gs_status gs_shrink_solve(gs_run_pool *p, const gs_param *param, const gs_problem *rows,
                          const struct gs_clustered *cl, const int8_t *ysign, gs_run_item *item, int alone,
                          const gs_log *log, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    const int32_t n = item->n;
    const double eps = item->spec.eps > 0 ? item->spec.eps : param->eps;
    gs_binary_result *res = &item->res;
    double *G = malloc(sizeof *G * (size_t)(n ? n : 1));
    int32_t *keep = malloc(sizeof *keep * (size_t)(n ? n : 1));
    stage cur = {.n = n, .cl = cl, .y = (int8_t *)ysign, .a = item->spec.alpha, .G = G}, next;
    int owned = 0; /* cur is a stage of its own */
    memset(res, 0, sizeof *res);
    if (!G || !keep) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d gradients", (int)n); goto cleanup; }
    gs_binary_spec sp = item->spec;
    sp.g_exact = sp.g_err = NULL;
    sp.cert_delta = 0;
    sp.g_out = G;
    sp.g_init = NULL; /* the first stage starts at alpha = 0, as without shrinking */
    sp.eps = eps * pow(10, SHRINK_STAGES);
    for (int k = 0;; k++) {
        const double t0 = gs_now();
        if ((st = gs_run_solve(p, cur.cl, cur.y, &sp, 1, alone, stats))) goto cleanup;
        res->iterations += sp.res.iterations;
        res->inner_steps += sp.res.inner_steps;
        res->max_iter_hit |= sp.res.max_iter_hit;
        for (int32_t t = 0; owned && t < cur.n; t++) { /* into the whole problem's alphas and gradients */
            item->spec.alpha[cur.row[t]] = cur.a[t];
            G[cur.row[t]] = cur.G[t];
        }
        const int32_t nk = k < SHRINK_STAGES && !res->max_iter_hit ? keep_rows(&cur, sp.Cp, sp.Cn, keep) : cur.n;
        gs_log_verbose(log, "gpusvm: shrinking: stage %d over %d of %d rows to %g: %ld rounds, %.4f s; %d rows "
                       "stay\n", k + 1, (int)cur.n, (int)n, sp.eps, sp.res.iterations, gs_now() - t0, (int)nk);
        if (k == SHRINK_STAGES || res->max_iter_hit) break;
        const double next_eps = k + 1 < SHRINK_STAGES ? eps * pow(10, SHRINK_STAGES - k - 1) : eps;
        if (nk == 0 || nk > SHRINK_KEEP * cur.n) { /* on over the same rows */
            stage_spec(&cur, next_eps, res->inner_steps, &sp);
            continue;
        }
        if ((st = stage_next(param, rows, ysign, &cur, keep, nk, &next))) goto cleanup;
        if (stats) stats->cluster += next.own.seconds;
        stage_free(&cur, owned);
        cur = next;
        owned = 1;
        stage_spec(&cur, next_eps, res->inner_steps, &sp);
    }
    /* every row's exact gradient at the answer: a pass that takes no step (eps = DBL_MAX) */
    gs_binary_spec fin = item->spec;
    fin.g_init = G;
    fin.g_out = NULL;
    fin.cert_delta = 0;
    fin.eps = DBL_MAX;
    memset(&fin.res, 0, sizeof fin.res);
    st = gs_run_solve(p, cl, ysign, &fin, 1, alone, stats);
cleanup:
    stage_free(&cur, owned);
    free(G);
    free(keep);
    return st;
}
