/* grid.h — model selection over a grid of log2 C, log2 gamma (and, for epsilon-SVR, log2 p) with
 * LIBSVM's cross-validation in each cell: what grid.py (svm-grid) does with one svm-train process
 * per cell, as a library for gpusvm-grid (src/cli/grid.c), which opens the device once and keeps
 * the data in memory. The interface is grid.py's (LIBSVM 3.24 tools/grid.py), re-implemented:
 *  - an axis "begin,end,step" is begin, begin+step, ... while not past end (the sum accumulated
 *    step by step in double, as grid.py does), then visited from its middle outwards;
 *  - the cells come in grid.py's order, which refines C and gamma alternately so that the coarse
 *    picture comes first (gs_grid_plan);
 *  - a cell's rate is the text svm-train -v prints read back as a number (%g), so equal-looking
 *    rates compare equal; the best is grid.py's: a higher rate, or the same rate at the same
 *    gamma with a smaller C (gs_grid_better);
 *  - an output line is "log2c=X log2g=Y rate=R" with Python's float text (gs_grid_line); a resume
 *    file is read back with grid.py's rules (gs_grid_resume_read).
 * gpusvm's additions: a third axis log2 p for epsilon-SVR (outermost: each p is a full C x gamma
 * grid in grid.py's order), and for regression the rate is the cross-validation mean squared
 * error, where lower is better (grid.py would read a truncated MSE as an accuracy and maximise
 * it). */
#ifndef GS_GRID_H
#define GS_GRID_H

#include "io/data.h"
#include "train/trainer.h"

enum { GS_GRID_C, GS_GRID_G, GS_GRID_P, GS_GRID_AXES };

/* One axis: begin, end, step (step != 0), or off (grid.py's "null": the parameter is not set by
 * the grid). */
typedef struct gs_grid_axis {
    int on;
    int ints;               /* 1: grid.py's default range, whose values are Python ints ("3", not
                             * "3.0", in its lines); ranges given as options are floats */
    double begin, end, step;
} gs_grid_axis;

/* A cell: log2 of C, gamma, p; NAN where the axis is off. */
typedef struct gs_grid_cell {
    double v[GS_GRID_AXES];
    unsigned char ints[GS_GRID_AXES]; /* the value is written as an integer (see gs_grid_axis) */
} gs_grid_cell;

/* A cell's value k as grid.py writes it: Python's int or float text. @return the length */
size_t gs_grid_fmt_value(const gs_grid_cell *c, int k, char *out);

/* Parses an axis argument: "begin,end,step" (three numbers, step not 0) or "null".
 * @return 0, or -1 when the text is neither */
int gs_grid_axis_parse(const char *s, gs_grid_axis *out);

/* The cells of the grid in grid.py's order (C and gamma; a p axis outermost). axes[GS_GRID_AXES];
 * at least one of C and gamma must be on. *cells is malloc'd (free it).
 * @return GS_OK, GS_ERR_ARG (an axis with no value, e.g. "5,1,1", or over a million cells),
 *         GS_ERR_NOMEM */
gs_status gs_grid_plan(const gs_grid_axis *axes, gs_grid_cell **cells, int *n);

/* 1 when a and b are the same cell (an axis off in both, or equal values; 3 and 3.0 are equal). */
int gs_grid_same(const gs_grid_cell *a, const gs_grid_cell *b);

/* The best cell so far. Start with gs_grid_best_init. */
typedef struct gs_grid_best {
    int any;
    int lower;          /* 1: regression, the lowest rate (MSE) wins */
    gs_grid_cell cell;
    double rate;
} gs_grid_best;

void gs_grid_best_init(gs_grid_best *b, int lower);
/* Offers a cell's rate; grid.py's rule decides (see the file comment).
 * @return 1 when it became the best */
int gs_grid_better(gs_grid_best *b, const gs_grid_cell *c, double rate);

/* The cell's parameters into p (a copy of the base parameters): C = 2^log2c, gamma = 2^log2g,
 * p = 2^log2p for the axes that are on. */
void gs_grid_cell_param(const gs_grid_cell *c, gs_param *p);

/* The cell's cross-validation rate: gs_cross_validation with nr_fold folds (quietly; target[l] is
 * scratch), then the rate as svm-train -v prints it, read back: the accuracy in percent, or for
 * epsilon/nu-SVR the mean squared error.
 * @return GS_OK or the training error */
gs_status gs_grid_cell_rate(const gs_device_provider *dev, const gs_problem *prob, const gs_param *base,
                            int nr_fold, const gs_grid_cell *c, double *target, double *rate);

/* Batches: cells that differ only in C (C-SVC) are cross-validated together, each fold's models at
 * all their C values solved in one device batch (gs_cross_validation_c_values), with rates equal
 * to one cell at a time. At most GS_GRID_BATCH_MAX cells a batch. */
enum { GS_GRID_BATCH_MAX = 32 };

/* 1 when the cells of this grid can be batched (C-SVC with a C axis). */
int gs_grid_batchable(const gs_param *base, const gs_grid_axis *axes);

/* Groups the plan cells todo[0..n) (plan indices, in plan order or gs_grid_cost_order's) into
 * batches: the cells that differ only in C (in that order) join the batch of the first of them, at most batch_max cells a
 * batch (and GS_GRID_BATCH_MAX; 1: one cell each, as for grids gs_grid_batchable refuses). Batch b
 * is order[start[b] .. start[b+1]), batches in the order of their first cell. order[n] and
 * start[n + 1] are the caller's. @return the number of batches */
int gs_grid_batches(const gs_grid_cell *cells, const int *todo, int n, int batch_max, int *order, int *start);

/* The typical squared distance between two rows of prob: the median of ||x_a - x_b||^2 over up to
 * GS_GRID_SCALE_PAIRS pairs of distinct rows (a fixed choice: the same data, the same value); 0
 * when there are fewer than two rows or the median is 0. For gs_grid_cost_order, on an RBF grid. */
enum { GS_GRID_SCALE_PAIRS = 511 };
double gs_grid_rbf_scale(const gs_problem *prob);

/* Reorders the plan cells idx[0..n) by their expected cost, the dearest first (several lanes or
 * ranks taking batches in this order start the long ones first, so that the short ones fill the
 * end: longest processing time first). A cell's cost is log2 C (SMO's steps grow with C: a9a's
 * cells at C = 2^15 take 10 million steps a fold, those at 2^-5 a few thousand), less, when scale
 * (gs_grid_rbf_scale) is positive, |log2(gamma * scale)|: an RBF kernel is hardest where gamma
 * times the rows' typical squared distance is near 1 (its values spread over (0, 1)); far from it
 * the kernel matrix tends to the identity or to all ones, and the problem is easy (a9a, scale 24:
 * the cells at gamma = 2^-5 took longest at every C, those at 2^3 a fraction of it). Equal costs in
 * the order given; an axis that is off counts 0. The order changes only the time, never a rate.
 * @return GS_OK or GS_ERR_NOMEM (idx unchanged) */
gs_status gs_grid_cost_order(const gs_grid_cell *cells, int *idx, int n, double scale);

/* The rates of the cells cells[idx[0..n)]: one batch of gs_grid_batches (cells differing only in C,
 * or one cell). target[n * l] is scratch.
 * @return GS_OK or the first training error */
gs_status gs_grid_batch_rates(const gs_device_provider *dev, const gs_problem *prob, const gs_param *base,
                              int nr_fold, const gs_grid_cell *cells, const int *idx, int n, double *target,
                              double *rates);

/* grid.py's output line for a cell, without the newline: "log2c=X log2g=Y rate=R" (the axes that
 * are on, then log2p= for gpusvm's p axis). @return the length (cap: 128 is always enough) */
size_t gs_grid_line(const gs_grid_cell *c, double rate, char *buf, size_t cap);

/* A resume file read back: the entries in file order, a repeated cell taking the later rate. */
typedef struct gs_grid_resumed {
    gs_grid_cell *cell;
    double *rate;
    int n;
} gs_grid_resumed;

/* Reads a resume file with grid.py's rules: a line counts when it holds "rate=" followed by digits
 * and dots; "log2c=", "log2g=" (and "log2p=") followed by digits, dots and minus signs give the
 * cell, an absent one is an axis off. Other lines are skipped.
 * @return GS_OK, GS_ERR_IO (cannot open or read), GS_ERR_FORMAT (such a field that is not a
 *         number, "line N" in the message), GS_ERR_NOMEM; *out is empty on error */
gs_status gs_grid_resume_read(const char *path, gs_grid_resumed *out);
void gs_grid_resumed_free(gs_grid_resumed *r);

/* The contour plot's gnuplot commands for the cells done so far (cells[0..n), rates[0..n)), grid.py's
 * picture: log2 C across, log2 gamma up, contour levels every 0.5 from the best rate rounded - 3,
 * the best cell in the title lines, written to png_path. Nothing is written when there is nothing
 * to draw (fewer than two distinct C, gamma or rate values), and the return says so.
 * @return 1 when commands were written */
int gs_grid_plot(FILE *gp, const char *png_path, const char *title, const gs_grid_axis *axes,
                 const gs_grid_cell *cells, const double *rates, int n, const gs_grid_best *best);

#endif
