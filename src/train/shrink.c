/* shrink.c — see shrink.h. */
#include "train/shrink.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/cluster.h"
#include "train/certify.h"
#include "train/solver.h"
#include "train/trainer.h"
#include "util/status.h"

/* Stages before the last: their rounds stop at a gap of 10^SHRINK_STAGES .. 10 times eps. */
#define SHRINK_STAGES 3
/* A stage's rows are laid out anew only when at most this share of them stays. */
#define SHRINK_KEEP 0.75

int gs_shrink_wanted(const gs_param *param, int32_t l)
{
    const int type = param->svm_type == GS_C_SVC || param->svm_type == GS_ONE_CLASS ||
                     param->svm_type == GS_EPSILON_SVR;
    return type && param->shrinking == 1 && param->kernel_type != GS_KERNEL_PRECOMPUTED &&
           param->tuning.shrink_min > 0 && l >= param->tuning.shrink_min;
}

/* The rows of a stage, i in [0, n): the problem's row row[i] (NULL: i itself, the whole problem),
 * over the clustered layout cl with signs y. Its variables, in the alpha order of its spec: range A
 * (one per row) then, for epsilon-SVR, range B (one per row again), each with its alpha a and the
 * rounds' gradient G; the first ni have sign +1 (rows ascend, so the whole problem's order holds),
 * the rest -1. */
typedef struct stage {
    int32_t n, ni;
    int32_t *row;
    gs_clustered own;       /* a stage's own layout (not the whole problem's) */
    const gs_clustered *cl;
    int8_t *y;              /* owned unless the whole problem's */
    double *a, *G;          /* owned unless the whole problem's */
} stage;

/* The whole problem's shape: l rows, ranges 1 (C-SVC, one-class) or 2 (epsilon-SVR) variables a
 * row; variable t of its alpha order (range k's row r at k l + r) has sign +1 below ni, else -1. */
typedef struct shape {
    int32_t l, ni;
    int ranges;
    double Cp, Cn;
} shape;

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

/* LIBSVM's rule: with m the largest -yG over I_up and M the smallest over I_low, a variable in I_up
 * only whose -yG is below M, or in I_low only above m, cannot be part of a violating pair now. A
 * row stays when any of its variables may; they go to keep (stage rows, ascending).
 * @return how many */
static int32_t keep_rows(const shape *h, const stage *s, int32_t *keep)
{
    const int64_t nv = (int64_t)h->ranges * s->n;
    double m = -INFINITY, M = INFINITY;
    for (int64_t v = 0; v < nv; v++) {
        const int pos = v < s->ni;
        const double g = pos ? -s->G[v] : s->G[v], a = s->a[v], C = pos ? h->Cp : h->Cn;
        if (gs_in_up(pos, a, C)) m = fmax(m, g);
        if (gs_in_low(pos, a, C)) M = fmin(M, g);
    }
    int32_t nk = 0;
    for (int32_t i = 0; i < s->n; i++) {
        int stays = 0;
        for (int k = 0; k < h->ranges && !stays; k++) {
            const int32_t v = k * s->n + i;
            const int pos = v < s->ni;
            const double g = pos ? -s->G[v] : s->G[v], a = s->a[v], C = pos ? h->Cp : h->Cn;
            const int up = gs_in_up(pos, a, C), low = gs_in_low(pos, a, C);
            stays = up && !low ? !(g < M) : low && !up ? !(g > m) : 1; /* NaN stays */
        }
        if (stays) keep[nk++] = i;
    }
    return nk;
}

/* The next stage over cur's rows keep[0..nk): their rows of the problem clustered anew, their
 * alphas and gradients. @return GS_OK, or the error (next left empty) */
static gs_status stage_next(const gs_param *param, const gs_problem *rows, const int8_t *ysign, const shape *h,
                            const stage *cur, const int32_t *keep, int32_t nk, stage *next)
{
    gs_status st = GS_OK;
    gs_problem sub = {0};
    const size_t nv = (size_t)h->ranges * (size_t)nk;
    memset(next, 0, sizeof *next);
    next->n = nk;
    next->row = malloc(sizeof *next->row * (size_t)nk);
    next->y = malloc((size_t)nk);
    next->a = malloc(sizeof *next->a * nv);
    next->G = malloc(sizeof *next->G * nv);
    if (!next->row || !next->y || !next->a || !next->G) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d shrunk rows", (int)nk);
        goto cleanup;
    }
    for (int32_t i = 0; i < nk; i++) {
        const int32_t t = keep[i], r = cur->row ? cur->row[t] : t;
        next->row[i] = r;
        next->y[i] = ysign[r];
        for (int k = 0; k < h->ranges; k++) {
            next->ni += (int64_t)k * h->l + r < h->ni;
            next->a[(size_t)k * nk + i] = cur->a[(size_t)k * cur->n + t];
            next->G[(size_t)k * nk + i] = cur->G[(size_t)k * cur->n + t];
        }
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

/* spec over all of the stage's clusters (both ranges over them for epsilon-SVR), from its alphas
 * and gradients, its rounds stopping at gap stop (the subproblems solving for the spec's eps). */
static void stage_spec(const shape *h, const stage *s, double stop, long steps_before, gs_binary_spec *spec)
{
    spec->a0 = 0;
    spec->na = s->cl->n_clusters;
    spec->b0 = 0;
    spec->nb = h->ranges == 2 ? s->cl->n_clusters : 0;
    spec->rowA0 = 0;
    spec->nrowA = s->n;
    spec->rowB0 = h->ranges == 2 ? 0 : s->n;
    spec->alpha = s->a;
    spec->g_init = s->G;
    spec->g_out = s->G;
    spec->p_lin = NULL; /* the rounds move G by Q only; the stages are not certified */
    spec->stop_gap = stop;
    spec->steps_before = steps_before;
    memset(&spec->res, 0, sizeof spec->res);
}

gs_status gs_shrink_certified(gs_run_pool *p, const gs_param *param, const gs_problem *rows,
                              const struct gs_clustered *cl, const int8_t *ysign, gs_run_item *item, int alone,
                              const gs_log *log, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    const int32_t n = item->n, l = rows->l;
    const shape h = {.l = l, .ni = item->ni, .ranges = l > 0 && n == 2 * l ? 2 : 1, .Cp = item->spec.Cp,
                     .Cn = item->spec.Cn};
    const double eps = item->spec.eps > 0 ? item->spec.eps : param->eps;
    gs_binary_result *res = &item->res;
    double *G = malloc(sizeof *G * (size_t)(n ? n : 1));
    int32_t *keep = malloc(sizeof *keep * (size_t)(l ? l : 1));
    stage cur = {.n = l, .ni = item->ni, .cl = cl, .y = (int8_t *)ysign, .a = item->spec.alpha, .G = G}, next;
    int owned = 0; /* cur is a stage of its own */
    memset(res, 0, sizeof *res);
    if (!G || !keep) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d gradients", (int)n); goto cleanup; }
    gs_binary_spec sp = item->spec; /* the first stage: from the caller's start (g_init), as unshrunk */
    sp.g_exact = sp.g_err = NULL;
    sp.cert_delta = 0;
    sp.g_out = G;
    sp.stop_gap = eps * pow(10, SHRINK_STAGES);
    memset(&sp.res, 0, sizeof sp.res);
    for (int k = 0;; k++) {
        const double t0 = gs_now();
        if ((st = gs_run_solve(p, cur.cl, cur.y, &sp, 1, alone, stats))) goto cleanup;
        res->iterations += sp.res.iterations;
        res->inner_steps += sp.res.inner_steps;
        res->max_iter_hit |= sp.res.max_iter_hit;
        for (int32_t i = 0; owned && i < cur.n; i++) /* into the whole problem's alphas and gradients */
            for (int r = 0; r < h.ranges; r++) {
                item->spec.alpha[(size_t)r * l + cur.row[i]] = cur.a[(size_t)r * cur.n + i];
                G[(size_t)r * l + cur.row[i]] = cur.G[(size_t)r * cur.n + i];
            }
        const int32_t nk = k < SHRINK_STAGES && !res->max_iter_hit ? keep_rows(&h, &cur, keep) : cur.n;
        gs_log_verbose(log, "gpusvm: shrinking: stage %d over %d of %d rows to %g: %ld rounds, %.4f s; %d rows "
                       "stay\n", k + 1, (int)cur.n, (int)l, fmax(sp.stop_gap, eps), sp.res.iterations,
                       gs_now() - t0, (int)nk);
        if (k == SHRINK_STAGES || res->max_iter_hit) break;
        const double next_stop = k + 1 < SHRINK_STAGES ? eps * pow(10, SHRINK_STAGES - k - 1) : eps;
        if (nk > 0 && nk <= SHRINK_KEEP * cur.n) { /* else on over the same rows */
            st = stage_next(param, rows, ysign, &h, &cur, keep, nk, &next);
            if (st == GS_OK) {
                if (stats) stats->cluster += next.own.seconds;
                stage_free(&cur, owned);
                cur = next;
                cur.cl = &cur.own; /* (next is cleared by the next stage_next, and the layout's own
                                    * cache, its copy by column, must be the one stage_free frees) */
                owned = 1;
            } else if (st == GS_ERR_NOMEM) { /* no memory for the smaller copy: the same rows, not a failure */
                gs_log_verbose(log, "gpusvm: shrinking: %s; going on over the same rows\n", gs_last_error());
                st = GS_OK;
            } else {
                goto cleanup;
            }
        }
        stage_spec(&h, &cur, next_stop, res->inner_steps, &sp);
    }
    /* every row's exact gradient at the answer (G, the rows' last gradients, only starts that pass),
     * then the certification over every row */
    item->spec.g_init = G;
    if ((st = gs_run_start_gradients(p, cl, ysign, item, 1, stats))) goto cleanup;
    st = gs_run_certify(p, cl, ysign, item, 1, eps, alone, log, stats);
cleanup:
    stage_free(&cur, owned);
    free(G);
    free(keep);
    return st;
}
