/* grid.c — gpusvm-grid: svm-grid's (LIBSVM 3.24 tools/grid.py) command line and output, with every
 * cell's cross-validation run in this one process: the data read once, the device opened once,
 * its programs built once (gs_ocl_build keeps them), the cells in batches (train/grid.h: for C-SVC
 * the cells of one gamma together), so a cell's rate is gpusvm-train -v's for the same parameters.
 * Built with MPI (make MPI=1, GS_MPI), `mpirun -np N gpusvm-grid ...` reads the data on rank 0,
 * broadcasts it, has rank k train batches kL .. kL+L-1 of each round of N L batches (L: the
 * ranks' smallest GPUSVM_GRID_LANES, 1 when unset, each on a thread of its own), and rank 0 writes
 * what one process writes, in grid.py's order. One process runs lanes instead (run_lanes).
 *
 * The same as grid.py: the options (-log2c, -log2g, -v, -svmtrain, -gnuplot, -out, -png, -resume,
 * the other svm-train options passed through), the cell order, the stdout lines
 * "[local] log2c log2g rate (best c=C, g=G, rate=R)" ("[resumed]" for a resumed cell), the -out
 * file's "log2c=X log2g=Y rate=R" lines (appended to with -resume), the last line "C G rate", and
 * the contour plot (png) when gnuplot is there. The texts of grid.py's errors are kept.
 * Different on purpose:
 *  - -svmtrain is accepted and ignored (with a note): there is no svm-train process.
 *  - the plot goes to the png only (grid.py also opens an X11 window), redrawn every few seconds
 *    and at the end, not after every line of cells.
 *  - errors grid.py meets late or never (a bad range, "-v 1", an unknown option, a range with no
 *    value, step 0 which makes grid.py loop forever) are reported before any training, exit 1.
 *  - -log2p begin,end,step (epsilon-SVR's p) is gpusvm's; for regression the rate is the mean
 *    squared error and the lowest wins (train/grid.h).
 *  - progress on stderr: cells done / total, the best so far, the time left. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#endif
#ifdef GS_MPI
#include <mpi.h>
#endif

#include "api/param.h"
#include "cli/cli.h"
#include "cli/env.h"
#include "device/devset.h"
#include "device/ocl.h"
#include "io/data.h"
#include "train/grid.h"
#include "util/log.h"
#include "util/numfmt.h"

enum { KEEP_GOING = -1 };
/* Lanes (run_lanes): on a GPU half the host's cores (lanes_gpu), each batch at most 3 cells (their C
 * values' folds together). a9a's default grid on the H100 (GPUSVM_GRID_LANES=N gpusvm-grid -out null -gnuplot null a9a, see
 * docs/performance.md): one batch a gamma, one after another, 261 s; lanes of such batches 88.6 s
 * (4) and 80.9 s (8); 8 lanes of 1 cell 82.3 s, of 3 cells 74.7 s, 16 of 1 cell 73.3 s: ~900 s of
 * host CPU (the subproblems) on 16 cores, the device mostly waiting. */
enum { LANE_CELLS = 3, GS_GRID_LANES_MAX = 16 };
/* lane_nice's k unless GPUSVM_GRID_NICE sets it: a9a's default grid on an H100 (docs/performance.md,
 * twentieth session) took 57.6 and 58.3 s with the RBF-scale order and 2, 61.5-63.4 s with that order
 * alone and 61.0-65.5 s with neither, the same output every time */
enum { GS_GRID_NICE_DEFAULT = 2 };
/* A lane uploads its own copy of the data: at most as many lanes as a third of the device memory
 * holds at LANE_BYTES_PER_VALUE bytes a stored value (the clustered layout pads rows: a9a's 13.9
 * values a row take 48.8 slots of 4 bytes, plus the solver's buffers) */
#define LANE_BYTES_PER_VALUE 64

typedef struct grid_opts {
    gs_grid_axis axes[GS_GRID_AXES];
    int nr_fold;
    gs_param param;           /* the passed-through svm-train options */
    const char *dataset;
    const char *title;        /* the dataset's file name, for default paths and the plot */
    char *out_path;           /* NULL: -out null */
    char *png_path;
    char *resume_path;        /* NULL: no -resume */
    const char *gnuplot;      /* NULL: search PATH */
    int plot;                 /* 0: -gnuplot null */
    const char *device;       /* --device */
    gs_log log;
} grid_opts;

/* The process' place among the MPI ranks (rank 0 of 1 without MPI). */
typedef struct grid_comm {
    int rank, size, local_rank, local_size;
} grid_comm;

static const char k_usage[] =
    "Usage: gpusvm-grid [grid_options] [svm_options] dataset\n"
    "\n"
    "grid_options :\n"
    "-log2c {begin,end,step | \"null\"} : set the range of c (default -5,15,2)\n"
    "    begin,end,step -- c_range = 2^{begin,...,begin+k*step,...,end}\n"
    "    \"null\"         -- do not grid with c\n"
    "-log2g {begin,end,step | \"null\"} : set the range of g (default 3,-15,-2)\n"
    "    begin,end,step -- g_range = 2^{begin,...,begin+k*step,...,end}\n"
    "    \"null\"         -- do not grid with g\n"
    "-log2p {begin,end,step | \"null\"} : set the range of p for -s 3 (default null: -p or 0.1)\n"
    "-v n : n-fold cross validation (default 5)\n"
    "-svmtrain pathname : accepted and ignored (every cell is trained in this process)\n"
    "-gnuplot {pathname | \"null\"} :\n"
    "    pathname -- set gnuplot executable path and name (default: gnuplot in PATH)\n"
    "    \"null\"   -- do not plot\n"
    "-out {pathname | \"null\"} : (default dataset.out)\n"
    "    pathname -- set output file path and name\n"
    "    \"null\"   -- do not output file\n"
    "-png pathname : set graphic output file path and name (default dataset.png)\n"
    "-resume [pathname] : resume the grid task using an existing output file (default pathname is dataset.out)\n"
    "    Try this option only if some parameters have been checked for the SAME data.\n"
    "\n"
    "svm_options : additional options for svm-train (gpusvm-train's letter options; not -c, -g)\n"
    "\n"
    "gpusvm options:\n"
    "--device N|NAME : OpenCL device (index or name substring; see gpusvm-train --list-devices)\n"
    "--verbose       : the training's diagnostics on stderr\n"
    "--version, --help\n"
    "\n"
    "stdout: one line per cell and the best \"c g rate\" last, as grid.py prints them; progress on\n"
    "stderr. With MPI (make MPI=1): mpirun -np N gpusvm-grid ... spreads the cells over N ranks.\n";

static int usage_exit(int rc)
{
    fputs(k_usage, rc ? stderr : stdout);
    return rc;
}

/* grid.py's error: the message, then where to look. */
static int grid_error(const char *msg)
{
    fprintf(stderr, "%s\nTry \"gpusvm-grid --help\" for more information.\n", msg);
    return 1;
}

static char *with_suffix(const char *base, const char *suffix)
{
    const size_t n = strlen(base), m = strlen(suffix);
    char *s = malloc(n + m + 1);
    if (s) {
        memcpy(s, base, n);
        memcpy(s + n, suffix, m + 1);
    }
    return s;
}

/* A grid option at argv[*i] (its value, when it takes one, at argv[*i + 1], before the dataset).
 * @return KEEP_GOING, 1 (error, said), or 0 when argv[*i] is not a grid option */
static int grid_option(int last, char **argv, int *i, grid_opts *o, int *handled)
{
    const char *opt = argv[*i];
    static const char *const axis_opt[GS_GRID_AXES] = {"-log2c", "-log2g", "-log2p"};
    static const char *const valued[] = {"-log2c", "-log2g", "-log2p", "-v", "-svmtrain", "-gnuplot", "-out", "-png"};
    *handled = 1;
    if (strcmp(opt, "-resume") == 0) {
        free(o->resume_path);
        /* grid.py: the value is optional; the next argument is it unless it starts with '-' */
        if (*i + 1 < last && argv[*i + 1][0] != '-') o->resume_path = strdup(argv[++*i]);
        else o->resume_path = with_suffix(o->title, ".out");
        return o->resume_path ? KEEP_GOING : grid_error("out of memory");
    }
    size_t k = 0;
    while (k < sizeof valued / sizeof valued[0] && strcmp(opt, valued[k]) != 0) k++;
    if (k == sizeof valued / sizeof valued[0]) {
        *handled = 0;
        return KEEP_GOING;
    }
    if (*i + 1 >= last) {
        fprintf(stderr, "Missing value for %s\n", opt);
        return 1;
    }
    const char *v = argv[++*i];
    for (int a = 0; a < GS_GRID_AXES; a++)
        if (strcmp(opt, axis_opt[a]) == 0) {
            if (gs_grid_axis_parse(v, &o->axes[a]) == 0) return KEEP_GOING;
            fprintf(stderr, "Incorrect parameter: %s %s (begin,end,step with step not 0, or null)\n", opt, v);
            return 1;
        }
    if (strcmp(opt, "-v") == 0) {
        if (gs_cli_parse_int(v, &o->nr_fold) != 0) {
            fprintf(stderr, "Incorrect parameter: -v %s\n", v);
            return 1;
        }
        if (o->nr_fold < 2) return grid_error("n-fold cross validation: n must >= 2");
    } else if (strcmp(opt, "-svmtrain") == 0) {
        fprintf(stderr, "gpusvm-grid: -svmtrain %s ignored: every cell is trained in this process\n", v);
    } else if (strcmp(opt, "-gnuplot") == 0) {
        o->plot = strcmp(v, "null") != 0;
        o->gnuplot = o->plot ? v : NULL;
    } else {
        char **dst = strcmp(opt, "-out") == 0 ? &o->out_path : &o->png_path;
        free(*dst);
        *dst = strcmp(opt, "-out") == 0 && strcmp(v, "null") == 0 ? NULL : strdup(v);
        if (!*dst && strcmp(v, "null") != 0) return grid_error("out of memory");
    }
    return KEEP_GOING;
}

/* A long option or a passed-through svm-train letter at argv[*i]. @return KEEP_GOING or the exit code */
static int train_option(int last, char **argv, int *i, grid_opts *o)
{
    const char *opt = argv[*i];
    const char *v = NULL;
    if (gs_cli_long(last, argv, i, "device", &v)) {
        if (!v || !*v) {
            fprintf(stderr, "Missing value for %s\n", opt);
            return 1;
        }
        o->device = v;
        return KEEP_GOING;
    }
    if (gs_cli_long(last, argv, i, "verbose", NULL)) {
        o->log.verbose = 1;
        return KEEP_GOING;
    }
    if (opt[0] != '-' || opt[1] == '\0' || opt[1] == '-') {
        fprintf(stderr, "%s: %s (the data set comes last; gpusvm-grid --help lists the options)\n",
                opt[0] == '-' ? "Unknown option" : "Unexpected argument", opt);
        return 1;
    }
    if (strcmp(opt, "-c") == 0 || strcmp(opt, "-g") == 0) return grid_error("Use -log2c and -log2g.");
    if (strcmp(opt, "-q") == 0) return KEEP_GOING; /* the cells are always quiet */
    if (*i + 1 >= last) {
        fprintf(stderr, "Missing value for %s\n", opt);
        return 1;
    }
    v = argv[++*i];
    switch (gs_cli_train_letter(opt, v, &o->param)) {
    case GS_CLI_OK: return KEEP_GOING;
    case GS_CLI_BAD_VALUE: fprintf(stderr, "Incorrect parameter: %s %s\n", opt, v); return 1;
    case GS_CLI_WEIGHT: fprintf(stderr, "%s\n", gs_last_error()); return 1;
    default: fprintf(stderr, "Unknown option: %s (gpusvm-grid --help lists the options)\n", opt); return 1;
    }
}

/* @return KEEP_GOING with o filled, or the exit code */
static int parse_args(int argc, char **argv, grid_opts *o)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) return usage_exit(0);
        if (strcmp(argv[i], "--version") == 0) {
            gs_cli_version(stdout);
#ifdef GS_MPI
            printf("gpusvm-grid built with MPI %d.%d\n", MPI_VERSION, MPI_SUBVERSION);
#endif
            return 0;
        }
    }
    if (argc < 2) return usage_exit(1);
    o->dataset = argv[argc - 1];
    const char *slash = strrchr(o->dataset, '/');
    o->title = slash ? slash + 1 : o->dataset;
    o->nr_fold = 5;
    o->plot = 1;
    o->axes[GS_GRID_C] = (gs_grid_axis){.on = 1, .ints = 1, .begin = -5, .end = 15, .step = 2};
    o->axes[GS_GRID_G] = (gs_grid_axis){.on = 1, .ints = 1, .begin = 3, .end = -15, .step = -2};
    o->out_path = with_suffix(o->title, ".out");
    o->png_path = with_suffix(o->title, ".png");
    if (!o->out_path || !o->png_path) return grid_error("out of memory");
    const int last = argc - 1; /* options are argv[1 .. last), the dataset argv[last] */
    for (int i = 1; i < last; i++) {
        int handled = 0;
        int rc = grid_option(last, argv, &i, o, &handled);
        if (rc == KEEP_GOING && !handled) rc = train_option(last, argv, &i, o);
        if (rc != KEEP_GOING) return rc;
    }
    if (!o->axes[GS_GRID_C].on && !o->axes[GS_GRID_G].on)
        return grid_error("-log2c and -log2g should not be null simultaneously");
    if (o->axes[GS_GRID_P].on && o->param.svm_type != GS_EPSILON_SVR)
        return grid_error("-log2p grids epsilon-SVR's p: it needs -s 3");
    return KEEP_GOING;
}

/* ---- the device, opened on the first cell that needs it --------------------------------------- */

typedef struct grid_device {
    gs_devset set;            /* --device's devices (one unless it names a list) */
    int state;                /* 0 not yet, 1 open, -1 failed (err holds why) */
    char spec[32];            /* a rank's GPU under MPI ("" = automatic) */
    const grid_opts *o;
    char err[1024];
} grid_device;

static gs_ocl *grid_device_wait(void *ctx)
{
    grid_device *d = ctx;
    if (d->state == 0) {
        const char *spec = d->o->device ? d->o->device : d->spec;
        const cl_ulong cap = (cl_ulong)(d->o->param.device_memory > 0 ? d->o->param.device_memory : 0) << 20;
        gs_status st = gs_devset_open(&d->set, spec, &d->o->param.tuning, cap);
        d->state = st == GS_OK ? 1 : -1;
        if (st != GS_OK) snprintf(d->err, sizeof d->err, "%s", gs_last_error());
        for (int k = 0; k < d->set.n; k++)
            gs_log_verbose(&d->o->log, "gpusvm-grid: device %s / %s\n", d->set.dev[k].platform_name,
                           d->set.dev[k].device_name);
    }
    if (d->state < 0) {
        GS_FAIL(GS_ERR_NODEVICE, "%s", d->err);
        return NULL;
    }
    return &d->set.dev[0];
}

/* gs_device_provider.all: the devices grid_device_wait opened. */
static int grid_device_all(void *ctx, gs_ocl **devs, int max)
{
    grid_device *d = ctx;
    return gs_devset_list(&d->set, devs, max);
}

/* ---- the run ---------------------------------------------------------------------------------- */

typedef struct grid_run {
    const grid_opts *o;
    const grid_comm *cm;
    const gs_problem *prob;
    gs_grid_cell *cells;      /* the plan, grid.py's order */
    int n;
    double *rate;             /* per plan cell, once known */
    char *known;              /* per plan cell: 1 resumed or done */
    int lower;                /* regression: the lowest rate wins */
    gs_grid_best best;        /* rank 0 */
    FILE *out;                /* rank 0: -out, NULL with -out null */
    FILE *gp;                 /* rank 0: gnuplot's stdin, NULL without a plot */
    double t0, last_plot, last_progress;
} grid_run;

/* grid.py's stdout line for a cell: "[who] c g rate (best c=C, g=G, rate=R)". */
static void print_cell(const grid_run *r, const char *who, const gs_grid_cell *c, double rate)
{
    static const char *const key[GS_GRID_AXES] = {"c", "g", "p"};
    char num[GS_FMT_MAX];
    printf("[%s]", who);
    for (int k = 0; k < GS_GRID_AXES; k++)
        if (!isnan(c->v[k])) printf(" %s", (gs_grid_fmt_value(c, k, num), num));
    printf(" %s (best", (gs_fmt_repr(rate, num), num));
    for (int k = 0; k < GS_GRID_AXES; k++)
        if (!isnan(c->v[k])) printf(" %s=%s,", key[k], (gs_fmt_repr(pow(2.0, r->best.cell.v[k]), num), num));
    printf(" rate=%s)\n", (gs_fmt_repr(r->best.rate, num), num));
    fflush(stdout);
}

/* Rank 0: a computed cell is reported: printed and written to -out. @return 0 or 1 (write error) */
static int take_cell(grid_run *r, int idx)
{
    const double rate = r->rate[idx];
    gs_grid_better(&r->best, &r->cells[idx], rate);
    print_cell(r, "local", &r->cells[idx], rate);
    if (!r->out) return 0;
    char line[160];
    gs_grid_line(&r->cells[idx], rate, line, sizeof line);
    if (fprintf(r->out, "%s\n", line) < 0 || fflush(r->out) != 0) {
        fprintf(stderr, "gpusvm-grid: can't write %s: %s\n", r->o->out_path, strerror(errno));
        return 1;
    }
    return 0;
}

/* Rank 0: redraws the png from the cells known so far (every few seconds, and at the end). */
static void redraw(grid_run *r, int final)
{
    const double now = gs_now();
    if (!r->gp || (!final && now - r->last_plot < 3)) return;
    r->last_plot = now;
    gs_grid_cell *c = malloc(sizeof *c * (size_t)r->n);
    double *v = malloc(sizeof *v * (size_t)r->n);
    int k = 0;
    for (int i = 0; c && v && i < r->n; i++)
        if (r->known[i]) {
            c[k] = r->cells[i];
            v[k++] = r->rate[i];
        }
    /* a gnuplot that died must not take this process with it (SIGPIPE): its pipe just fails */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    if (c && v) gs_grid_plot(r->gp, r->o->png_path, r->o->title, r->o->axes, c, v, k, &r->best);
    sigaction(SIGPIPE, &old, NULL);
    free(c);
    free(v);
}

/* Rank 0: "done/total cells, best, time left" on stderr: rewritten in place on a terminal, else a
 * line every 10 s and the last one. */
static void progress(grid_run *r, int done, int total, int final)
{
    const double now = gs_now(), el = now - r->t0;
    const int tty = isatty(STDERR_FILENO);
    if (!final && !tty && now - r->last_progress < 10) return;
    r->last_progress = now;
    char line[256], rate[GS_FMT_MAX], cell[160];
    gs_fmt_repr(r->best.rate, rate);
    gs_grid_line(&r->best.cell, r->best.rate, cell, sizeof cell);
    int n = snprintf(line, sizeof line, "gpusvm-grid: %d/%d cells, %.1f s", done, total, el);
    if (done > 0 && done < total)
        n += snprintf(line + n, sizeof line - (size_t)n, ", about %.0f s left", el / done * (total - done));
    if (r->best.any) snprintf(line + n, sizeof line - (size_t)n, "; best %s", cell);
    fprintf(stderr, tty ? "\r%s\033[K%s" : "%s%s", line, final || !tty ? "\n" : "");
}

/* Every rank learns every rank's m values of this round: all[m * size]. */
static void share_round(const grid_comm *cm, const double *mine, int m, double *all)
{
#ifdef GS_MPI
    if (cm->size > 1) {
        MPI_Allgather(mine, m, MPI_DOUBLE, all, m, MPI_DOUBLE, MPI_COMM_WORLD);
        return;
    }
#else
    (void)cm;
#endif
    memcpy(all, mine, sizeof *mine * (size_t)m);
}

/* The work of a run: the cells not resumed (todo, plan order) in batches (order/start, see
 * gs_grid_batches), and their results once shared. */
typedef struct grid_work {
    int ntodo, nbatch, maxb, slots;
    int *todo, *order, *start;
    double *target, *mine, *all;
} grid_work;

static void work_free(grid_work *w)
{
    free(w->todo); free(w->order); free(w->start); free(w->target); free(w->mine); free(w->all);
}

/* batch_max: the most cells a batch (gs_grid_batches); slots: the batches a rank runs at once in
 * a round (run_batch's k), each with its own scratch and results; by_cost: batches in
 * gs_grid_cost_order's order (several run at once), else in plan order (one at a time: the cells
 * are then reported as soon as they can be). w->todo stays in plan order, the order of the report. */
static int work_plan(const grid_run *r, grid_work *w, int batch_max, int slots, int by_cost)
{
    const size_t n = (size_t)(r->n ? r->n : 1);
    w->todo = malloc(sizeof *w->todo * n);
    w->order = malloc(sizeof *w->order * n);
    w->start = malloc(sizeof *w->start * (n + 1));
    int *pick = malloc(sizeof *pick * n);
    if (!w->todo || !w->order || !w->start || !pick) {
        free(pick);
        return 1;
    }
    for (int i = 0; i < r->n; i++)
        if (!r->known[i]) w->todo[w->ntodo++] = i;
    memcpy(pick, w->todo, sizeof *pick * (size_t)w->ntodo);
    const double scale = by_cost && r->o->param.kernel_type == GS_KERNEL_RBF ? gs_grid_rbf_scale(r->prob) : 0;
    if (by_cost && gs_grid_cost_order(r->cells, pick, w->ntodo, scale) != GS_OK) {
        free(pick);
        return 1;
    }
    w->nbatch = gs_grid_batches(r->cells, pick, w->ntodo,
                                gs_grid_batchable(&r->o->param, r->o->axes) ? batch_max : 1, w->order, w->start);
    free(pick);
    w->maxb = 1;
    for (int b = 0; b < w->nbatch; b++)
        if (w->start[b + 1] - w->start[b] > w->maxb) w->maxb = w->start[b + 1] - w->start[b];
    const int m = w->maxb + 1; /* a batch's rates and its ok flag */
    w->slots = slots;
    w->target = malloc(sizeof *w->target * (size_t)w->maxb * (size_t)(r->prob->l ? r->prob->l : 1) * (size_t)slots);
    w->mine = malloc(sizeof *w->mine * (size_t)m * (size_t)slots);
    w->all = malloc(sizeof *w->all * (size_t)m * (size_t)slots * (size_t)r->cm->size);
    return !w->target || !w->mine || !w->all;
}

/* The batch of cells idx[0..n) failed: its first cell's parameters, this rank when asked, and why
 * (the last error of this thread). */
static void say_failed(const grid_run *r, const int *idx, int n, int with_rank)
{
    char cell[160], rank[32] = "";
    gs_grid_line(&r->cells[idx[0]], 0, cell, sizeof cell);
    *strstr(cell, "rate=") = '\0';
    if (with_rank) snprintf(rank, sizeof rank, "(rank %d)", r->cm->rank);
    fprintf(stderr, "gpusvm-grid: %s%s%s: %s\n", n > 1 ? "cells with " : "cell ", cell, rank, gs_last_error());
}

/* This rank's batch b (or nothing past the last) into its slot k of w->mine: rates, then 1 (ok) or
 * 0. Slots run on threads of their own (run_round). */
static void run_batch(grid_run *r, const gs_device_provider *dev, grid_work *w, int b, int k, int stop)
{
    const int m = w->maxb + 1;
    double *mine = w->mine + (size_t)k * (size_t)m;
    memset(mine, 0, sizeof *mine * (size_t)m);
    mine[m - 1] = !stop;
    if (stop || b >= w->nbatch) return;
    const int *idx = w->order + w->start[b], n = w->start[b + 1] - w->start[b];
    double *target = w->target + (size_t)k * (size_t)w->maxb * (size_t)(r->prob->l ? r->prob->l : 1);
    const gs_status st = gs_grid_batch_rates(dev, r->prob, &r->o->param, r->o->nr_fold, r->cells, idx, n,
                                             target, mine);
    if (st != GS_OK) {
        say_failed(r, idx, n, 1);
        mine[m - 1] = 0;
    }
}

typedef struct round_job {
    grid_run *r;
    const gs_device_provider *dev;
    grid_work *w;
    int b, k, stop;
    pthread_t th;
} round_job;

static void *round_job_run(void *arg)
{
    round_job *j = arg;
    run_batch(j->r, j->dev, j->w, j->b, j->k, j->stop);
    return NULL;
}

/* This rank's batches first, first + 1, ... of a round in its w->slots slots at once: slot 0 on
 * this thread, the others on threads (or here, one after another, when none can be made). */
static void run_round(grid_run *r, const gs_device_provider *dev, grid_work *w, int first, int stop)
{
    round_job jobs[GS_GRID_LANES_MAX];
    int started[GS_GRID_LANES_MAX] = {0};
    for (int k = 1; k < w->slots; k++) {
        jobs[k] = (round_job){.r = r, .dev = dev, .w = w, .b = first + k, .k = k, .stop = stop};
        started[k] = pthread_create(&jobs[k].th, NULL, round_job_run, &jobs[k]) == 0;
    }
    run_batch(r, dev, w, first, 0, stop);
    for (int k = 1; k < w->slots; k++) {
        if (started[k]) pthread_join(jobs[k].th, NULL);
        else run_batch(r, dev, w, first + k, k, stop);
    }
}

/* ---- lanes: several batches at once in one process ---------------------------------------------- */

/* A grid's batches wait on the host's subproblems more than on the device (a9a's large-C cells:
 * 1.2 us a step, millions of steps, the GPU mostly idle), so one process runs `lanes` of them at
 * once, each on its own thread with its own queues and buffers (the solver's), taking the next
 * batch as it finishes one; a batch's answers do not depend on what runs beside it. Each lane gets
 * a share of the device's batch budget (gs_tuning.batch_mb), which may split a batch's problems
 * into several device batches: the same answers (solver.h, whole). */
typedef struct lane_ctl {
    grid_run *r;
    const gs_device_provider *dev;
    grid_work *w;
    gs_param param;        /* r->o->param with the lane's batch budget (shallow: tables only read) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int next;              /* the next batch to take */
    int stop;              /* a batch failed or -out could not be written: take no more */
    int running;           /* lanes still working */
    int nice;              /* lane_nice's k */
    char *state;           /* per batch: 0 not done, 1 done, 2 failed; under mu */
    double *rates;         /* per batch: w->maxb rates */
} lane_ctl;

typedef struct lane {
    lane_ctl *c;
    double *target;        /* w->maxb * l */
    pthread_t th;
} lane;

/* A lane's priority for its batch b (the b-th dearest, gs_grid_cost_order): nice min(19, b * k / 2)
 * for the lane's thread and the threads its batch starts (the subproblems' crew), k 0 leaving it.
 * The dearest batches end last (a9a's C = 2^15 cells at gamma = 2^-5: 25 s alone, ~55 s among the
 * others); with the cheaper ones yielding the cores to them the grid ends sooner, and the total
 * work is the same. Linux only (a thread's own nice value); a value is only ever raised, as lowering
 * it needs privileges. */
static void lane_nice(int b, int k)
{
#ifdef __linux__
    if (k <= 0) return;
    const int want = (long)b * k / 2 < 19 ? (int)((long)b * k / 2) : 19;
    const id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    const int cur = getpriority(PRIO_PROCESS, tid);
    if (errno == 0 && want > cur) (void)setpriority(PRIO_PROCESS, tid, want);
#else
    (void)b; (void)k;
#endif
}

static void *lane_run(void *arg)
{
    lane *ln = arg;
    lane_ctl *c = ln->c;
    grid_run *r = c->r;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        const int b = c->stop || c->next >= c->w->nbatch ? -1 : c->next++;
        pthread_mutex_unlock(&c->mu);
        if (b < 0) break;
        const int *idx = c->w->order + c->w->start[b], n = c->w->start[b + 1] - c->w->start[b];
        lane_nice(b, c->nice);
        const double tb = gs_now();
        const gs_status st = gs_grid_batch_rates(c->dev, r->prob, &c->param, r->o->nr_fold, r->cells, idx, n,
                                                 ln->target, c->rates + (size_t)b * (size_t)c->w->maxb);
        if (r->o->log.verbose) { /* the batches' timeline: its first cell's parameters, start and end */
            char cell[160];
            gs_grid_line(&r->cells[idx[0]], 0, cell, sizeof cell);
            *strstr(cell, " rate=") = '\0';
            gs_log_verbose(&r->o->log, "gpusvm-grid: batch %d of %d cell(s) from %s: %.2f to %.2f s\n", b, n, cell,
                           tb - r->t0, gs_now() - r->t0);
        }
        if (st != GS_OK) say_failed(r, idx, n, 0);
        pthread_mutex_lock(&c->mu);
        c->state[b] = st == GS_OK ? 1 : 2;
        if (st != GS_OK) c->stop = 1;
        pthread_cond_signal(&c->cv);
        pthread_mutex_unlock(&c->mu);
    }
    pthread_mutex_lock(&c->mu);
    c->running--;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* On a GPU: half the host's cores, 4 to GS_GRID_LANES_MAX (16 cores: 8; 64 cores: 16, which took
 * a9a's grid from 49.3 to 45.5 s on one H200 and from 34.9 to 25.5 s on four, docs/performance.md). */
static int lanes_gpu(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN) / 2;
    return n < 4 ? 4 : n > GS_GRID_LANES_MAX ? GS_GRID_LANES_MAX : (int)n;
}

/* How many lanes for ncells cells to train: gs_tuning.grid_lanes, else lanes_gpu() on a GPU (fewer
 * when the data's copies would not fit, LANE_BYTES_PER_VALUE) and 1 on a CPU device; 1 for a single
 * cell. Opens the device (the lanes then share it). */
static int lanes_for(const grid_run *r, const gs_device_provider *dev, int ncells)
{
    int lanes = r->o->param.tuning.grid_lanes;
    if (ncells <= 1) return 1;
    if (lanes == GS_TUNE_AUTO) {
        const gs_ocl *o = dev->wait(dev->ctx);
        lanes = o && !(o->device_type & CL_DEVICE_TYPE_CPU) ? lanes_gpu() : 1;
        const double copy = (double)LANE_BYTES_PER_VALUE * (double)(r->prob->nnz + r->prob->l);
        while (o && lanes > 1 && lanes * copy > (double)o->global_mem / 3) lanes--;
    } else if (lanes > 1 && !dev->wait(dev->ctx)) {
        lanes = 1; /* the first batch says why */
    }
    return lanes;
}

/* The batch budget of a lane: its share of what one batch may take (a third of the device's
 * memory, solver.c), or the user's GPUSVM_BATCH_MB when smaller. */
static long lane_budget_mb(const grid_run *r, const gs_device_provider *dev, int lanes)
{
    const gs_ocl *o = dev->wait(dev->ctx);
    long mb = o ? (long)(o->global_mem / 3 / (cl_ulong)lanes >> 20) : 0;
    if (mb < 1) mb = 1;
    const long user = r->o->param.tuning.batch_mb;
    return user > 0 && user < mb ? user : mb;
}

/* Rank 0 alone (no MPI peers): the batches on `lanes` threads; this thread reports the cells in
 * plan order as their batches finish. @return as run_cells */
static int run_lanes(grid_run *r, const gs_device_provider *dev, grid_work *w, int lanes)
{
    lane_ctl c = {.r = r, .dev = dev, .w = w, .param = r->o->param, .running = 0};
    lane *ln = calloc((size_t)lanes, sizeof *ln);
    c.state = calloc((size_t)w->nbatch, 1);
    c.rates = calloc((size_t)w->nbatch * (size_t)w->maxb, sizeof *c.rates);
    int rc = 0, write_failed = 0, next = 0, taken = 0, done_cells = 0;
    if (!ln || !c.state || !c.rates) {
        fprintf(stderr, "gpusvm-grid: out of memory\n");
        free(ln); free(c.state); free(c.rates);
        return 1;
    }
    c.param.tuning.batch_mb = lane_budget_mb(r, dev, lanes);
    c.nice = r->o->param.tuning.grid_nice == GS_TUNE_AUTO ? GS_GRID_NICE_DEFAULT : r->o->param.tuning.grid_nice;
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    char *seen = calloc((size_t)w->nbatch, 1);
    pthread_mutex_lock(&c.mu);
    for (int k = 0; k < lanes && seen; k++) {
        const size_t tl = (size_t)w->maxb * (size_t)(r->prob->l ? r->prob->l : 1);
        ln[k].c = &c;
        if (!(ln[k].target = malloc(sizeof *ln[k].target * tl))) break;
        if (pthread_create(&ln[k].th, NULL, lane_run, &ln[k]) != 0) { free(ln[k].target); ln[k].target = NULL; break; }
        c.running++;
    }
    if (c.running == 0) {
        pthread_mutex_unlock(&c.mu);
        fprintf(stderr, "gpusvm-grid: could not start the lanes' threads\n");
        rc = 1;
        goto cleanup;
    }
    for (;;) { /* under mu: take the finished batches; report them with mu released */
        int fresh = 0;
        for (int b = 0; b < w->nbatch; b++) {
            if (seen[b] || !c.state[b]) continue;
            seen[b] = 1;
            taken++;
            fresh = 1;
            if (c.state[b] == 2) { rc = 1; continue; }
            for (int i = w->start[b]; i < w->start[b + 1]; i++) {
                r->rate[w->order[i]] = c.rates[(size_t)b * (size_t)w->maxb + (i - w->start[b])];
                r->known[w->order[i]] = 1;
            }
            done_cells += w->start[b + 1] - w->start[b];
        }
        if (rc || write_failed) c.stop = 1;
        if (fresh && !c.stop) {
            pthread_mutex_unlock(&c.mu);
            while (next < w->ntodo && r->known[w->todo[next]] && !write_failed) write_failed = take_cell(r, w->todo[next++]);
            progress(r, done_cells, w->ntodo, done_cells == w->ntodo);
            redraw(r, 0);
            pthread_mutex_lock(&c.mu);
            continue; /* more may have finished meanwhile */
        }
        if (taken == w->nbatch || (!fresh && c.running == 0)) break;
        if (!fresh) pthread_cond_wait(&c.cv, &c.mu);
    }
    c.stop = 1;
    pthread_mutex_unlock(&c.mu);
cleanup:
    for (int k = 0; k < lanes; k++)
        if (ln[k].target) {
            pthread_join(ln[k].th, NULL);
            free(ln[k].target);
        }
    pthread_cond_destroy(&c.cv);
    pthread_mutex_destroy(&c.mu);
    free(seen); free(ln); free(c.state); free(c.rates);
    return rc || write_failed;
}

/* MPI: the batches a rank runs at once in a round, the smallest GPUSVM_GRID_LANES of all ranks (1
 * where unset), so that every rank makes the same plan. */
static int mpi_lanes(const grid_run *r)
{
    int lanes = r->o->param.tuning.grid_lanes > 1 ? r->o->param.tuning.grid_lanes : 1;
    if (lanes > GS_GRID_LANES_MAX) lanes = GS_GRID_LANES_MAX;
#ifdef GS_MPI
    int all = lanes;
    MPI_Allreduce(&lanes, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    lanes = all;
#endif
    return lanes;
}

/* The batches in rounds of one per rank; after each round every rank knows the round's rates and
 * rank 0 reports the cells now known in plan order (a cell waits for those before it).
 * @return 0, or 1 when a batch failed (the failing rank said why) or -out could not be written */
static int run_cells(grid_run *r, const gs_device_provider *dev)
{
    const int size = r->cm->size, rank = r->cm->rank;
    grid_work w = {0};
    int rc = 0, write_failed = 0, next = 0; /* write_failed: rank 0's, the others learn it next round */
    int todo = 0;
    for (int i = 0; i < r->n; i++) todo += !r->known[i];
    /* one process: lanes taking batches as they finish; MPI: rounds of L batches a rank, L the
     * smallest of the ranks' GPUSVM_GRID_LANES (1 when unset), so every rank plans alike */
    int lanes = size == 1 ? lanes_for(r, dev, todo) : mpi_lanes(r);
    if (work_plan(r, &w, lanes > 1 ? LANE_CELLS : GS_GRID_BATCH_MAX, size == 1 ? 1 : lanes, lanes > 1 || size > 1)) {
        fprintf(stderr, "gpusvm-grid: out of memory\n");
        work_free(&w);
        return 1;
    }
    const int m = w.maxb + 1, slots = size * w.slots; /* a round's batches, every rank's */
    r->t0 = gs_now();
    if (size == 1 && lanes > w.nbatch) lanes = w.nbatch;
    if (size == 1 && lanes > 1) {
        rc = run_lanes(r, dev, &w, lanes);
        work_free(&w);
        return rc;
    }
    if (w.slots > 1) dev->wait(dev->ctx); /* opened before the slots' threads (a failure: each batch says it) */
    for (int base = 0; base < w.nbatch && rc == 0; base += slots) {
        run_round(r, dev, &w, base + rank * w.slots, write_failed);
        share_round(r->cm, w.mine, m * w.slots, w.all);
        for (int k = 0; k < slots; k++)
            if ((base + k < w.nbatch || k == 0) && !w.all[(size_t)k * m + m - 1]) rc = 1;
        for (int k = 0; k < slots && base + k < w.nbatch && rc == 0; k++)
            for (int i = w.start[base + k]; i < w.start[base + k + 1]; i++) {
                r->rate[w.order[i]] = w.all[(size_t)k * m + (i - w.start[base + k])];
                r->known[w.order[i]] = 1;
            }
        if (rank != 0 || rc != 0 || write_failed) continue;
        while (next < w.ntodo && r->known[w.todo[next]] && !write_failed) write_failed = take_cell(r, w.todo[next++]);
        const int done = w.start[base + slots < w.nbatch ? base + slots : w.nbatch];
        progress(r, done, w.ntodo, done == w.ntodo);
        redraw(r, 0);
    }
    work_free(&w);
    return rc || write_failed;
}

/* ---- rank 0's preparation and the broadcast of the data --------------------------------------- */

/* Rank 0: what grid.py checks before it starts (the text of its errors), the data, the resume
 * file, the -out file and gnuplot. @return 0 or 1 (said) */
static int prepare(grid_opts *o, gs_problem *prob, gs_grid_resumed *res, grid_run *r)
{
    if (access(o->dataset, R_OK) != 0 && strcmp(o->dataset, "-") != 0) return grid_error("dataset not found");
    if (o->resume_path && access(o->resume_path, R_OK) != 0) return grid_error("file for resumption not found");
    const gs_data_opts ro = {.inflate_threads = o->param.tuning.inflate_threads};
    if (gs_data_read_with(o->dataset, &ro, prob) != GS_OK || (o->resume_path && gs_grid_resume_read(o->resume_path, res) != GS_OK)) {
        fprintf(stderr, "%s\n", gs_last_error());
        return 1;
    }
    if (o->out_path && !(r->out = fopen(o->out_path, o->resume_path ? "a" : "w"))) {
        fprintf(stderr, "gpusvm-grid: can't open output file %s: %s\n", o->out_path, strerror(errno));
        return 1;
    }
    /* grid.py draws only a C x gamma grid */
    if (!o->plot || !o->axes[GS_GRID_C].on || !o->axes[GS_GRID_G].on || o->axes[GS_GRID_P].on) return 0;
    char *gp = gs_cli_which(o->gnuplot ? o->gnuplot : "gnuplot");
    if (!gp) {
        fprintf(stderr, "gnuplot executable not found\ngpusvm-grid: no contour plot (%s): install gnuplot, or "
                        "-gnuplot PATH; -gnuplot null silences this\n", o->png_path);
        return 0;
    }
    /* its messages (X11 and font notes) are not ours to show */
    char cmd[4200];
    if (snprintf(cmd, sizeof cmd, "'%s' >/dev/null 2>&1", gp) < (int)sizeof cmd && !strchr(gp, '\''))
        r->gp = popen(cmd, "w");
    if (!r->gp) fprintf(stderr, "gpusvm-grid: can't run %s: no contour plot\n", gp);
    free(gp);
    return 0;
}

#ifdef GS_MPI
/* Broadcasts n bytes from rank 0 in pieces MPI's int counts can hold. */
static void bcast_bytes(void *p, size_t n)
{
    for (size_t o = 0; o < n; o += (size_t)1 << 30) {
        const size_t k = n - o < (size_t)1 << 30 ? n - o : (size_t)1 << 30;
        MPI_Bcast((char *)p + o, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
}

/* Rank 0's problem to every rank (the others allocate it). @return 0, or 1 out of memory anywhere */
static int bcast_problem(const grid_comm *cm, gs_problem *prob)
{
    int64_t head[3] = {prob->l, prob->max_index, prob->nnz};
    MPI_Bcast(head, 3, MPI_INT64_T, 0, MPI_COMM_WORLD);
    int ok = 1;
    if (cm->rank != 0) {
        prob->l = (int32_t)head[0];
        prob->max_index = (int32_t)head[1];
        prob->nnz = head[2];
        prob->y = malloc(sizeof *prob->y * (size_t)(head[0] ? head[0] : 1));
        prob->row_ptr = malloc(sizeof *prob->row_ptr * (size_t)(head[0] + 1));
        prob->idx = malloc(sizeof *prob->idx * (size_t)(head[2] ? head[2] : 1));
        prob->val = malloc(sizeof *prob->val * (size_t)(head[2] ? head[2] : 1));
        ok = prob->y && prob->row_ptr && prob->idx && prob->val;
    }
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (!ok) fprintf(stderr, "gpusvm-grid: rank %d: out of memory for the data\n", cm->rank);
        return 1;
    }
    bcast_bytes(prob->y, sizeof *prob->y * (size_t)head[0]);
    bcast_bytes(prob->row_ptr, sizeof *prob->row_ptr * (size_t)(head[0] + 1));
    bcast_bytes(prob->idx, sizeof *prob->idx * (size_t)head[2]);
    bcast_bytes(prob->val, sizeof *prob->val * (size_t)head[2]);
    return 0;
}
#endif

/* Rank 0's verdict (rc: KEEP_GOING or an exit code) to every rank. */
static int agree(int rc)
{
#ifdef GS_MPI
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return rc;
}

/* Rank 0 read the data and the resume file: every rank gets the data and the cells already known. */
static int share_inputs(const grid_comm *cm, gs_problem *prob, grid_run *r)
{
#ifdef GS_MPI
    if (cm->size > 1) {
        if (bcast_problem(cm, prob)) return 1;
        MPI_Bcast(r->known, r->n, MPI_CHAR, 0, MPI_COMM_WORLD);
    }
#else
    (void)cm; (void)prob; (void)r;
#endif
    return 0;
}

/* ---- main ------------------------------------------------------------------------------------- */

/* MPI ranks other than 0 parse the same arguments silently: rank 0 alone tells the user. fd[2]
 * receives the saved stdout and stderr (-1 when not redirected). */
static void silence(int on, int fd[2])
{
    fflush(stdout);
    fflush(stderr);
    if (on) {
        const int null = open("/dev/null", O_WRONLY);
        fd[0] = null >= 0 ? dup(STDOUT_FILENO) : -1;
        fd[1] = null >= 0 ? dup(STDERR_FILENO) : -1;
        if (fd[0] >= 0) dup2(null, STDOUT_FILENO);
        if (fd[1] >= 0) dup2(null, STDERR_FILENO);
        if (null >= 0) close(null);
        return;
    }
    for (int k = 0; k < 2; k++)
        if (fd[k] >= 0) {
            dup2(fd[k], k ? STDERR_FILENO : STDOUT_FILENO);
            close(fd[k]);
        }
}

static void comm_init(int *argc, char ***argv, grid_comm *cm)
{
    *cm = (grid_comm){.rank = 0, .size = 1, .local_rank = 0, .local_size = 1};
#ifdef GS_MPI
    /* funneled: the lanes' and the solver's threads never call MPI, the main thread does */
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &cm->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &cm->size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, cm->rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &cm->local_rank);
    MPI_Comm_size(node, &cm->local_size);
    MPI_Comm_free(&node);
#else
    (void)argc; (void)argv;
#endif
}

/* The plan, every rank alike. @return 0 or 1 */
static int make_plan(const grid_comm *cm, const grid_opts *o, grid_run *r)
{
    if (gs_grid_plan(o->axes, &r->cells, &r->n) != GS_OK) {
        if (cm->rank == 0) fprintf(stderr, "%s\n", gs_last_error());
        return 1;
    }
    r->rate = calloc((size_t)r->n, sizeof *r->rate);
    r->known = calloc((size_t)r->n, 1);
    if (!r->rate || !r->known) {
        fprintf(stderr, "gpusvm-grid: out of memory\n");
        return 1;
    }
    return 0;
}

/* Rank 0: the plan's cells the resume file already has, with their rates. */
static void mark_resumed(const gs_grid_resumed *res, grid_run *r)
{
    for (int i = 0; i < r->n; i++)
        for (int j = 0; j < res->n && !r->known[i]; j++)
            if (gs_grid_same(&r->cells[i], &res->cell[j])) {
                r->known[i] = 1;
                r->rate[i] = res->rate[j];
            }
}

/* The parameters' check on the first cell (every cell differs only in C, gamma, p > 0), on every
 * rank alike. @return 0 or 1 */
static int check_param(const grid_comm *cm, grid_opts *o, const gs_problem *prob, const grid_run *r)
{
    if (!o->axes[GS_GRID_G].on && o->param.gamma == 0 && prob->max_index > 0) o->param.gamma = 1.0 / prob->max_index;
    gs_param p = o->param;
    gs_grid_cell_param(&r->cells[0], &p);
    const char *msg = gs_param_check(&p, prob);
    if (cm->rank == 0 && msg) fprintf(stderr, "ERROR: %s\n", msg);
    if (!msg && prob->l == 0) {
        if (cm->rank == 0) fprintf(stderr, "gpusvm-grid: cross validation needs training data: the training set is empty\n");
        return 1;
    }
    return msg != NULL;
}

/* Rank 0: the resumed cells' lines first, as grid.py prints them, then the run's; at the end the
 * plot and the best "C G rate". */
static void report_resumed(grid_run *r, const gs_grid_resumed *res)
{
    for (int j = 0; j < res->n; j++) {
        gs_grid_better(&r->best, &res->cell[j], res->rate[j]);
        print_cell(r, "resumed", &res->cell[j], res->rate[j]);
    }
}

static void report_best(const grid_run *r)
{
    char num[GS_FMT_MAX];
    int first = 1;
    for (int k = 0; k < GS_GRID_AXES; k++)
        if (r->best.any && !isnan(r->best.cell.v[k])) {
            printf("%s%s", first ? "" : " ", (gs_fmt_repr(pow(2.0, r->best.cell.v[k]), num), num));
            first = 0;
        }
    printf(" %s\n", r->best.any ? (gs_fmt_repr(r->best.rate, num), num) : "-1");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const int helper = gs_cli_build_helper(argc, argv); /* a build helper: nothing else */
    if (helper >= 0) return helper;
    grid_comm cm;
    comm_init(&argc, &argv, &cm);
    grid_opts o;
    memset(&o, 0, sizeof o);
    gs_param_init(&o.param);
    gs_tuning_from_env(&o.param.tuning);
    gs_cli_driver_env(&o.param.tuning); /* before any thread and any OpenCL call */
    gs_problem prob = {0};
    gs_grid_resumed res = {0};
    grid_run r = {.o = &o, .cm = &cm, .prob = &prob};
    grid_device dev = {.o = &o};
    int saved[2] = {-1, -1};
    silence(cm.rank != 0, saved);
    int rc = parse_args(argc, argv, &o);
    silence(0, saved);
    if (rc != KEEP_GOING) goto cleanup;
    rc = 1;
    if (make_plan(&cm, &o, &r)) goto cleanup;
    if (agree(cm.rank == 0 ? prepare(&o, &prob, &res, &r) : 0) != 0) goto cleanup;
    if (cm.rank == 0) mark_resumed(&res, &r);
    if (share_inputs(&cm, &prob, &r) || check_param(&cm, &o, &prob, &r)) goto cleanup;
    r.lower = o.param.svm_type == GS_EPSILON_SVR || o.param.svm_type == GS_NU_SVR;
    gs_grid_best_init(&r.best, r.lower);
    if (cm.rank == 0) report_resumed(&r, &res);
    int gpu = -1;
    if (cm.local_size > 1 && !o.device && gs_ocl_nth_gpu(cm.local_rank, &gpu) == GS_OK && gpu >= 0)
        snprintf(dev.spec, sizeof dev.spec, "%d", gpu);
    const gs_device_provider provider = {.wait = grid_device_wait, .ctx = &dev, .all = grid_device_all};
    if (run_cells(&r, &provider)) goto cleanup;
    if (cm.rank == 0) {
        redraw(&r, 1);
        report_best(&r);
    }
    rc = 0;
cleanup:
    if (r.gp) pclose(r.gp);
    if (r.out && fclose(r.out) != 0 && rc == 0) {
        fprintf(stderr, "gpusvm-grid: can't write %s: %s\n", o.out_path, strerror(errno));
        rc = 1;
    }
    gs_devset_close(&dev.set);
    free(r.cells); free(r.rate); free(r.known);
    gs_grid_resumed_free(&res);
    gs_problem_free(&prob);
    gs_param_free(&o.param);
    free(o.out_path); free(o.png_path); free(o.resume_path);
#ifdef GS_MPI
    MPI_Finalize();
#endif
    return rc;
}
