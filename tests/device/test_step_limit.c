/* test_step_limit.c — the solver's step limit is LIBSVM's max_iter for the whole training: a
 * problem resumed after its certification (spec->steps_before) may take only the steps its earlier
 * solves left. heart_scale as one two-class problem: unlimited, it converges without the limit;
 * with all but 5 of the limit spent before, it takes exactly 5 steps (its working set holds every
 * row, so one subproblem gets the rest of the budget) and reports the limit reached; with the whole
 * limit spent, none. Skips without a device. */
#include <stdlib.h>
#include <string.h>

#include "data/cluster.h"
#include "testlib.h"
#include "train/solver.h"

static void solve(gs_solver *s, const gs_clustered *cl, const int8_t *ysign, int32_t l, long before,
                  gs_binary_result *res)
{
    double *alpha = calloc((size_t)l, sizeof *alpha);
    gs_binary_spec sp = {.a0 = 0, .na = cl->n_clusters, .b0 = 0, .nb = 0, .rowA0 = 0, .nrowA = l, .rowB0 = l,
                         .Cp = 1, .Cn = 1, .alpha = alpha, .steps_before = before};
    const gs_status st = gs_solver_batch(s, cl, ysign, &sp, 1, 1, NULL);
    CHECK(st == GS_OK, "gs_solver_batch (%ld before): %s", before, gs_last_error());
    *res = sp.res;
    free(alpha);
}

int main(void)
{
    gs_ocl ocl;
    gs_status st = gs_ocl_open(&ocl, NULL, NULL);
    if (st == GS_ERR_NODEVICE || st == GS_ERR_UNSUPPORTED) {
        SKIP("no usable OpenCL device: %s", gs_last_error());
        TEST_END();
    }
    CHECK(st == GS_OK, "gs_ocl_open: %s", gs_last_error());
    if (st != GS_OK) TEST_END();
    gs_problem prob = {0};
    gs_clustered cl = {0};
    gs_solver *s = NULL;
    int8_t *ysign = NULL;
    const gs_log quiet = {.quiet = 1}; /* the solver keeps a pointer to it */
    gs_param p;
    gs_param_init(&p);
    p.gamma = 1.0 / 13;
    p.ws_size = 768; /* the two-class default (train/run.c): heart_scale's 270 rows in one set */
    p.ws_keep = 384;
    st = gs_data_read("data/heart_scale", &prob);
    CHECK(st == GS_OK, "heart_scale: %s", gs_last_error());
    const int32_t seg[2] = {0, prob.l};
    if (st == GS_OK) st = gs_solver_cluster(&p, prob.row_ptr, prob.idx, prob.val, prob.l, 1, seg, &cl);
    if (st == GS_OK) st = gs_solver_create(&ocl, &p, 0, cl.wide, 0, 0, &quiet, &s);
    CHECK(st == GS_OK, "cluster and solver: %s", gs_last_error());
    ysign = malloc((size_t)prob.l);
    if (st == GS_OK && ysign) {
        for (int32_t r = 0; r < prob.l; r++) ysign[r] = prob.y[r] > 0 ? 1 : -1;
        const long max_iter = 10000000L; /* LIBSVM's for fewer than 100,000 variables */
        gs_binary_result free_run, rest, none;
        solve(s, &cl, ysign, prob.l, 0, &free_run);
        CHECK(!free_run.max_iter_hit && free_run.inner_steps > 5, "unlimited: %ld steps, limit hit %d",
              free_run.inner_steps, free_run.max_iter_hit);
        solve(s, &cl, ysign, prob.l, max_iter - 5, &rest);
        CHECK(rest.max_iter_hit && rest.inner_steps == 5, "5 steps left: %ld steps, limit hit %d", rest.inner_steps,
              rest.max_iter_hit);
        solve(s, &cl, ysign, prob.l, max_iter, &none);
        CHECK(none.max_iter_hit && none.inner_steps == 0, "none left: %ld steps, limit hit %d", none.inner_steps,
              none.max_iter_hit);
    }
    free(ysign);
    gs_solver_free(s);
    gs_clustered_free(&cl);
    gs_problem_free(&prob);
    gs_param_free(&p);
    gs_ocl_close(&ocl);
    TEST_END();
}
