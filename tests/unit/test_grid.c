/* test_grid.c — train/grid without a device: axis parsing, grid.py's cell order (the order
 * svm-grid printed for -log2c -1,5,2 -log2g -7,-1,2, and a null axis), the best rule (a tie goes
 * to the smaller C at the same gamma only), the -out line text, reading a resume file back
 * (skipped lines, a repeated cell taking the later rate, an axis absent, a bad number refused with
 * its line), and the batches (cells differing only in C, in plan order). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "train/grid.h"
#include "util/status.h"

static void check_parse(void)
{
    gs_grid_axis a;
    CHECK(gs_grid_axis_parse("-1,5,2", &a) == 0 && a.on && !a.ints && a.begin == -1 && a.end == 5 && a.step == 2,
          "-1,5,2");
    CHECK(gs_grid_axis_parse("null", &a) == 0 && !a.on, "null");
    const char *bad[] = {"", "1,2", "1,2,3,4", "1,2,0", "a,b,c", "1,2,3x", "1,,2", "nan,1,1", "1,2,inf"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(gs_grid_axis_parse(bad[i], &a) == -1, "refused: [%s]", bad[i]);
}

static void check_order(void)
{
    gs_grid_axis ax[GS_GRID_AXES] = {{.on = 1, .begin = -1, .end = 5, .step = 2},
                                     {.on = 1, .begin = -7, .end = -1, .step = 2}, {0}};
    /* svm-grid's order for these ranges (LIBSVM 3.24 grid.py, one worker) */
    static const double want[16][2] = {{3, -3}, {3, -5}, {1, -3}, {1, -5}, {3, -1}, {1, -1}, {5, -3}, {5, -5},
                                       {5, -1}, {3, -7}, {1, -7}, {5, -7}, {-1, -3}, {-1, -5}, {-1, -1}, {-1, -7}};
    gs_grid_cell *c = NULL;
    int n = 0;
    gs_status st = gs_grid_plan(ax, &c, &n);
    CHECK(st == GS_OK && n == 16, "16 cells: %d", n);
    int same = st == GS_OK && n == 16;
    for (int i = 0; same && i < 16; i++) same = c[i].v[0] == want[i][0] && c[i].v[1] == want[i][1] && isnan(c[i].v[2]);
    CHECK(same, "grid.py's order");
    free(c);
    ax[1] = (gs_grid_axis){.on = 1, .begin = 3, .end = -3, .step = -2}; /* 3 1 -1 -3: from the middle, -1 3 -3 1 */
    ax[0].on = 0;
    st = gs_grid_plan(ax, &c, &n);
    CHECK(st == GS_OK && n == 4 && c[0].v[1] == -1 && c[1].v[1] == 1 && c[2].v[1] == -3 && c[3].v[1] == 3 &&
          isnan(c[0].v[0]), "gamma only: %d cells", n);
    free(c);
    ax[1].on = 0;
    CHECK(gs_grid_plan(ax, &c, &n) == GS_ERR_ARG && !c, "both null refused");
    ax[0] = (gs_grid_axis){.on = 1, .begin = 5, .end = 1, .step = 1};
    CHECK(gs_grid_plan(ax, &c, &n) == GS_ERR_ARG && strstr(gs_last_error(), "no value"), "empty range: %s",
          gs_last_error());
}

static void check_best_and_line(void)
{
    gs_grid_best b;
    gs_grid_best_init(&b, 0);
    const gs_grid_cell a = {.v = {3, -5, NAN}}, lower_c = {.v = {1, -5, NAN}}, other_g = {.v = {-1, -7, NAN}};
    CHECK(gs_grid_better(&b, &a, 80) && b.rate == 80, "the first cell wins");
    CHECK(!gs_grid_better(&b, &other_g, 80), "a tie at another gamma keeps the best");
    CHECK(gs_grid_better(&b, &lower_c, 80) && b.cell.v[0] == 1, "a tie with a smaller C at the same gamma wins");
    CHECK(gs_grid_better(&b, &other_g, 80.5) && b.cell.v[1] == -7, "a higher rate wins");
    gs_grid_best_init(&b, 1);
    gs_grid_better(&b, &a, 0.5);
    CHECK(gs_grid_better(&b, &other_g, 0.25) && !gs_grid_better(&b, &a, 0.3), "regression: the lowest MSE wins");
    char line[128];
    const gs_grid_cell ints = {.v = {3, -5, NAN}, .ints = {1, 1, 0}};
    gs_grid_line(&a, 82.5926, line, sizeof line);
    CHECK(strcmp(line, "log2c=3.0 log2g=-5.0 rate=82.5926") == 0, "[%s]", line);
    gs_grid_line(&ints, 80, line, sizeof line);
    CHECK(strcmp(line, "log2c=3 log2g=-5 rate=80.0") == 0, "default ranges are ints: [%s]", line);
    const gs_grid_cell p = {.v = {0, NAN, -2}};
    gs_grid_line(&p, 0.0123, line, sizeof line);
    CHECK(strcmp(line, "log2c=0.0 log2p=-2.0 rate=0.0123") == 0, "[%s]", line);
}

static void check_resume(void)
{
    char path[] = "/tmp/gs_grid_resumeXXXXXX";
    FILE *f = fdopen(mkstemp(path), "w");
    fputs("log2c=3.0 log2g=-5.0 rate=80.0\nno rate here\n\nlog2g=-7 rate=75\nlog2c=3 log2g=-5.0 rate=81.5\n", f);
    fclose(f);
    gs_grid_resumed r;
    gs_status st = gs_grid_resume_read(path, &r);
    CHECK(st == GS_OK && r.n == 2, "two cells: %d (%s)", r.n, gs_last_error());
    if (st == GS_OK && r.n == 2) {
        CHECK(r.cell[0].v[0] == 3 && r.cell[0].v[1] == -5 && r.rate[0] == 81.5, "the later rate, the first place");
        CHECK(isnan(r.cell[1].v[0]) && r.cell[1].v[1] == -7 && r.rate[1] == 75, "log2c absent");
    }
    gs_grid_resumed_free(&r);
    f = fopen(path, "w");
    fputs("log2c=1.0 log2g=-5.0 rate=80.0\nlog2c=1.0.0 log2g=-5.0 rate=80.0\n", f);
    fclose(f);
    st = gs_grid_resume_read(path, &r);
    CHECK(st == GS_ERR_FORMAT && strstr(gs_last_error(), "line 2") && r.n == 0, "bad number: %s", gs_last_error());
    remove(path);
    CHECK(gs_grid_resume_read(path, &r) == GS_ERR_IO, "missing file");
}

static void check_batches(void)
{
    const gs_grid_cell c[5] = {{.v = {1, -5, NAN}}, {.v = {1, -7, NAN}}, {.v = {3, -5, NAN}},
                               {.v = {3, -7, NAN}}, {.v = {5, -5, NAN}}};
    const int todo[4] = {0, 1, 3, 4}; /* cell 2 resumed */
    int order[4], start[5];
    int nb = gs_grid_batches(c, todo, 4, GS_GRID_BATCH_MAX, order, start);
    CHECK(nb == 2 && start[1] == 2 && order[0] == 0 && order[1] == 4 && order[2] == 1 && order[3] == 3 &&
          start[2] == 4, "by gamma, in plan order: %d batches", nb);
    nb = gs_grid_batches(c, todo, 4, 1, order, start);
    CHECK(nb == 4 && order[2] == 3 && start[3] == 3, "one cell each");
    const int todo5[5] = {0, 1, 2, 3, 4};
    int order5[5], start5[6];
    nb = gs_grid_batches(c, todo5, 5, 2, order5, start5);
    CHECK(nb == 3 && order5[0] == 0 && order5[1] == 2 && order5[2] == 1 && order5[3] == 3 && order5[4] == 4 &&
          start5[1] == 2 && start5[2] == 4 && start5[3] == 5, "at most 2 cells a batch: %d batches", nb);
    /* the dearest first: larger C first, equal C in the given order; then batches of one gamma */
    int by_cost[5] = {0, 1, 2, 3, 4};
    CHECK(gs_grid_cost_order(c, by_cost, 5, 0) == GS_OK && by_cost[0] == 4 && by_cost[1] == 2 && by_cost[2] == 3 &&
          by_cost[3] == 0 && by_cost[4] == 1, "cost order: %d %d %d %d %d", by_cost[0], by_cost[1], by_cost[2],
          by_cost[3], by_cost[4]);
    nb = gs_grid_batches(c, by_cost, 5, 2, order5, start5);
    CHECK(nb == 3 && order5[0] == 4 && order5[1] == 2 && order5[2] == 3 && order5[3] == 1 && order5[4] == 0 &&
          start5[1] == 2 && start5[2] == 4, "batches in cost order: %d batches", nb);
    const gs_grid_cell noc[3] = {{.v = {NAN, 1, NAN}}, {.v = {NAN, 3, NAN}}, {.v = {NAN, -1, NAN}}};
    int keep[3] = {2, 0, 1};
    CHECK(gs_grid_cost_order(noc, keep, 3, 0) == GS_OK && keep[0] == 2 && keep[1] == 0 && keep[2] == 1,
          "no C axis: the given order");
    /* with the rows' scale 16 (log2 4): log2 C less |log2 gamma + 4| */
    const gs_grid_cell cg[5] = {{.v = {15, 3, NAN}}, {.v = {15, -5, NAN}}, {.v = {9, -5, NAN}},
                                {.v = {15, -15, NAN}}, {.v = {15, -3, NAN}}};
    int sc[5] = {0, 1, 2, 3, 4};
    CHECK(gs_grid_cost_order(cg, sc, 5, 16) == GS_OK && sc[0] == 1 && sc[1] == 4 && sc[2] == 0 && sc[3] == 2 &&
          sc[4] == 3, "cost with the scale: %d %d %d %d %d", sc[0], sc[1], sc[2], sc[3], sc[4]);
    int nog[3] = {1, 0, 2};
    CHECK(gs_grid_cost_order(noc, nog, 3, 16) == GS_OK && nog[0] == 2 && nog[1] == 0 && nog[2] == 1,
          "no C axis, with the scale: gamma nearest 1/16 first: %d %d %d", nog[0], nog[1], nog[2]);
}

/* gs_grid_rbf_scale: the median of sampled squared distances, 0 where there is none */
static void check_scale(void)
{
    int64_t rp[5] = {0, 1, 2, 3, 3};
    int32_t ix[3] = {1, 1, 2};
    float v[3] = {1, 3, 2};
    double y[4] = {0};
    gs_problem p = {.l = 4, .max_index = 2, .nnz = 3, .y = y, .row_ptr = rp, .idx = ix, .val = v};
    /* rows (1,0), (3,0), (0,2), (0,0): squared distances 4, 5, 1, 13, 9, 4 */
    const double s = gs_grid_rbf_scale(&p);
    CHECK(s == 1 || s == 4 || s == 5 || s == 9 || s == 13, "a sampled distance: %g", s);
    CHECK(gs_grid_rbf_scale(&p) == s, "the same pairs every time");
    p.l = 1;
    CHECK(gs_grid_rbf_scale(&p) == 0, "one row: 0");
    p.l = 2;
    CHECK(gs_grid_rbf_scale(&p) == 4, "two rows: their distance, %g", gs_grid_rbf_scale(&p));
    v[0] = 3;
    CHECK(gs_grid_rbf_scale(&p) == 0, "identical rows: 0");
}

int main(void)
{
    check_parse();
    check_order();
    check_best_and_line();
    check_resume();
    check_batches();
    check_scale();
    TEST_END();
}
