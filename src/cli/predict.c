/* predict.c — gpusvm-predict: svm-predict's command line, messages and output files, with the
 * decision values computed on the OpenCL device (predictor.h).
 *
 * Differences from svm-predict, on purpose: the output is written to "<output>.tmpXXXXXX" and
 * renamed at the end (util/atomic_file.h: a symlink is written through, the mode kept, as
 * svm-predict's fopen does), so a failed run leaves no partial output (svm-predict leaves the
 * predictions before a bad line, or an empty file after a bad model); gzip test files are read;
 * gpusvm's long options (--help lists them); gpusvm's cs_svc models (Crammer–Singer, model.h) are
 * read and predicted by the largest of their k decision values (no -b 1 for them); a lone "-" as
 * the test file reads standard input (svm-predict: "Unknown option: -"). The model and output
 * files are always names, as in svm-predict ("-" there is a file called "-"). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/env.h"
#include "io/data.h"
#include "cli/fastexit.h"
#include "util/log.h"
#include "io/model.h"
#include "device/devset.h"
#include "device/ocl.h"
#include "predict/predictor.h"
#include "predict/probability.h"
#include "util/atomic_file.h"
#include "util/parallel.h"
#include "util/status.h"

#define CHUNK_ROWS 65536              /* rows per chunk (fewer when a row has many pairs) */
#define CHUNK_DEC_BYTES (1u << 20)    /* host bytes for a chunk's decision values and bounds */

/* ---- test file reader --------------------------------------------------------------------
 * data.h's stream, the reader gpusvm-train uses (one tokenizer, one gzip path whose end-of-stream
 * check makes a cut .gz file an error, rows parsed as streams), with values kept in double: a
 * float-rounded test value would change the kernel values' last bits (regression prints them
 * with %.17g). So a value beyond FLT_MAX, which gpusvm-train refuses, is read here as
 * svm-predict reads it; NaN and infinite labels too (they only enter the accuracy). */

typedef struct reader {
    gs_data_stream *s;
    gs_problem part; /* the rows of the last stream call */
} reader;

static int reader_open(reader *rd, const char *path, int inflate_threads)
{
    const gs_data_opts o = {.double_values = 1, .any_label = 1, .inflate_threads = inflate_threads};
    memset(rd, 0, sizeof *rd);
    return gs_data_stream_open(path, &o, &rd->s) == GS_OK ? 0 : -1; /* "-": standard input */
}

static void reader_close(reader *rd)
{
    gs_data_stream_close(rd->s);
    gs_problem_free(&rd->part);
    memset(rd, 0, sizeof *rd);
}

static int rows_reserve(gs_rows *r, int64_t rows, int64_t nnz)
{
    if (rows + 1 > r->cap_rows) {
        int64_t c = r->cap_rows ? r->cap_rows : 1024;
        while (c < rows + 1) c *= 2;
        int64_t *p = realloc(r->row_ptr, sizeof *p * (size_t)c);
        if (!p) return -1;
        r->row_ptr = p;
        double *y = realloc(r->y, sizeof *y * (size_t)c);
        if (!y) return -1;
        r->y = y;
        r->cap_rows = c;
    }
    if (nnz > r->cap_nnz) {
        int64_t c = r->cap_nnz ? r->cap_nnz : 16384;
        while (c < nnz) c *= 2;
        int32_t *i = realloc(r->idx, sizeof *i * (size_t)c);
        if (!i) return -1;
        r->idx = i;
        double *v = realloc(r->val, sizeof *v * (size_t)c);
        if (!v) return -1;
        r->val = v;
        r->cap_nnz = c;
    }
    return 0;
}

/* Replaces out's rows with p's: the arrays move, nothing is copied. */
static void rows_take(gs_rows *out, gs_problem *p)
{
    gs_rows_free(out);
    out->l = p->l;
    out->row_ptr = p->row_ptr;
    out->idx = p->idx;
    out->val = p->dval;
    out->y = p->y;
    out->cap_rows = p->l; /* y holds l, row_ptr l + 1 (rows_reserve's rule) */
    out->cap_nnz = p->nnz;
    memset(p, 0, sizeof *p);
}

/* Appends p's rows to out. @return 0, or -1 out of memory */
static int rows_append(gs_rows *out, const gs_problem *p)
{
    const int64_t base = out->row_ptr[out->l];
    if (rows_reserve(out, (int64_t)out->l + p->l, base + p->nnz) != 0) return -1;
    if (p->nnz > 0) {
        memcpy(out->idx + base, p->idx, sizeof *p->idx * (size_t)p->nnz);
        memcpy(out->val + base, p->dval, sizeof *p->dval * (size_t)p->nnz);
    }
    if (p->l > 0) memcpy(out->y + out->l, p->y, sizeof *p->y * (size_t)p->l);
    for (int32_t r = 0; r < p->l; r++) out->row_ptr[out->l + 1 + r] = base + p->row_ptr[r + 1];
    out->l += p->l;
    return 0;
}

/* Reads up to max_rows rows into out (replacing its rows); out->l == 0 at end of file. While
 * *more (may be NULL) is non-zero it goes on up to grow_rows rows: the first chunk grows while
 * the device is still starting. */
static gs_status reader_chunk(reader *rd, int32_t max_rows, const atomic_int *more, int32_t grow_rows,
                              gs_rows *out)
{
    gs_status st = gs_data_stream_next(rd->s, max_rows, &rd->part);
    if (st != GS_OK) return st;
    rows_take(out, &rd->part);
    int at_end = out->l < max_rows;
    while (!at_end && more && atomic_load(more) && out->l < grow_rows) {
        const int64_t left = grow_rows - out->l;
        const int32_t step = left < 1024 ? (int32_t)left : 1024; /* *more is checked this often */
        if ((st = gs_data_stream_next(rd->s, step, &rd->part)) != GS_OK) return st;
        if (rows_append(out, &rd->part) != 0) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
        at_end = rd->part.l < step;
    }
    return GS_OK;
}

/* ---- device start-up in a helper thread ------------------------------------------------- */

typedef struct dev_job {
    const char *spec;
    const gs_tuning *tuning; /* the device fallback, profiling, kernel directory */
    cl_ulong mem_cap; /* --device-memory in bytes, 0 = none */
    gs_devset set;    /* --device's devices (one unless it names a list) */
    gs_pred_program prg[GS_DEVSET_MAX];
    gs_status st;
    char err[1024];
    double seconds;
    atomic_int starting; /* 1 until the thread is done */
} dev_job;

static void *dev_thread(void *arg)
{
    dev_job *j = arg;
    const double t0 = gs_now();
    j->st = gs_devset_open(&j->set, j->spec, j->tuning, j->mem_cap);
    for (int d = 0; j->st == GS_OK && d < j->set.n; d++) j->st = gs_pred_program_build(&j->set.dev[d], &j->prg[d]);
    if (j->st != GS_OK) snprintf(j->err, sizeof j->err, "%s", gs_last_error());
    j->seconds = gs_now() - t0;
    atomic_store(&j->starting, 0);
    return NULL;
}

/* ---- exact CPU decision values for a list of rows, on all cores ----------------------------- */

typedef struct cpu_job {
    const gs_model *m;
    const gs_rows *rows;
    const int32_t *list;
    int32_t n, step, first;
    double *dec;
    int nd;
    int32_t bad;   /* first failing row or -1 */
} cpu_job;

static void *cpu_worker(void *arg)
{
    cpu_job *j = arg;
    for (int32_t i = j->first; i < j->n; i += j->step) {
        const int32_t r = j->list[i];
        if (gs_pred_cpu_dec(j->m, j->rows, r, j->dec + (size_t)r * j->nd) != GS_OK) {
            if (j->bad < 0 || r < j->bad) j->bad = r;
        }
    }
    return NULL;
}

static gs_status cpu_rows(const gs_model *m, const gs_rows *rows, const int32_t *list, int32_t n,
                          double *dec, int nd)
{
    int nt = gs_cpu_threads(64);
    if ((int64_t)n * (m->l > 0 ? m->l : 1) < 100000) nt = 1; /* not worth a thread */
    cpu_job jobs[64];
    for (int t = 0; t < nt; t++) jobs[t] = (cpu_job){m, rows, list, n, (int32_t)nt, (int32_t)t, dec, nd, -1};
    gs_parallel_run(jobs, sizeof jobs[0], nt, cpu_worker);
    int32_t bad = -1;
    for (int t = 0; t < nt; t++)
        if (jobs[t].bad >= 0 && (bad < 0 || jobs[t].bad < bad)) bad = jobs[t].bad;
    /* A failure is computed again on this thread: the message lives in the failing thread. */
    if (bad >= 0) return gs_pred_cpu_dec(m, rows, bad, dec + (size_t)bad * nd);
    return GS_OK;
}

/* ---- output -------------------------------------------------------------------------------- */

enum { OUT_LABEL, OUT_ONE_CLASS, OUT_VALUE, OUT_PROB_SVC, OUT_PROB_ONE_CLASS };

typedef struct out_ctx {
    const gs_model *m;
    int mode;
    int nd;
    int k;
    double *p;        /* [k] probabilities */
    double *work;     /* coupling scratch */
    int exceeded;     /* coupling hit its cap (message pending) */
    char (*label_txt)[32]; /* "%.17g\n" of each label (OUT_LABEL) */
} out_ctx;

/* cs_svc: the class of the largest decision value, ties to the earliest class. */
static int argmax(int k, const double *dec)
{
    int best = 0;
    for (int i = 1; i < k; i++)
        if (dec[i] > dec[best]) best = i;
    return best;
}

/* Formats one row's output line into buf and returns the predicted value. */
static double format_row(out_ctx *o, const double *dec, char *buf, size_t cap, int *votes)
{
    const gs_model *m = o->m;
    double pred;
    switch (o->mode) {
    case OUT_LABEL:
        if (o->k >= 1) {
            const int c = o->k < 2 ? 0 : (m->svm_type == GS_CS_SVC ? argmax(o->k, dec) : gs_pred_vote(o->k, dec, votes));
            pred = m->label[c];
            if (o->label_txt) {
                memcpy(buf, o->label_txt[c], 32);
                break;
            }
        } else {
            pred = 0; /* nr_class 0: svm-predict reads unset memory; Debian printed 0 */
        }
        snprintf(buf, cap, "%.17g\n", pred);
        break;
    case OUT_ONE_CLASS:
        pred = dec[0] > 0 ? 1 : -1;
        memcpy(buf, pred > 0 ? "1\n" : "-1\n", pred > 0 ? 3 : 4);
        break;
    case OUT_VALUE:
        pred = dec[0];
        snprintf(buf, cap, "%.17g\n", pred);
        break;
    case OUT_PROB_SVC: {
        const int best = gs_prob_classify(o->k, dec, m->probA, m->probB, o->p, o->work, &o->exceeded);
        pred = m->label[best];
        size_t n = (size_t)snprintf(buf, cap, "%g", pred);
        for (int i = 0; i < o->k && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, " %g", o->p[i]);
        if (n < cap) snprintf(buf + n, cap - n, "\n");
        break;
    }
    default: { /* OUT_PROB_ONE_CLASS */
        pred = dec[0] > 0 ? 1 : -1;
        const double pn = gs_prob_one_class(dec[0], m->prob_density_marks);
        snprintf(buf, cap, "%g %g %g\n", pred, pn, 1 - pn);
        break;
    }
    }
    return pred;
}

/* Whether the device's decision values (with bounds err) certainly print as LIBSVM's would. */
static int device_row_ok(out_ctx *o, const double *dec, const double *err, int *votes)
{
    const int nd = o->nd;
    int exact = 1;
    for (int q = 0; q < nd; q++)
        if (err[q] != 0) exact = 0;
    if (exact) return 1;
    for (int q = 0; q < nd; q++)
        if (!(err[q] < INFINITY)) return 0;
    if (o->m->svm_type == GS_CS_SVC) {
        /* the winner's interval must lie above every other class's (and a tie at the top, which
         * goes to the earliest class, be exact) */
        const int best = argmax(nd, dec);
        for (int q = 0; q < nd; q++)
            if (q != best && !(dec[best] - err[best] > dec[q] + err[q])) return 0;
        return 1;
    }
    switch (o->mode) {
    case OUT_LABEL:
    case OUT_ONE_CLASS:
        for (int q = 0; q < nd; q++)
            if (!(fabs(dec[q]) > err[q])) return 0;
        return 1;
    case OUT_PROB_ONE_CLASS:
    case OUT_PROB_SVC: {
        /* Two classes or one-class: the printed line is a monotone function of the single decision
         * value, so equal text at both ends of the interval means equal text inside it. */
        if (o->mode == OUT_PROB_SVC && o->k != 2) return 0;
        if (!(fabs(dec[0]) > err[0])) return 0;
        char lo[512], hi[512];
        double d = dec[0] - err[0];
        const int saved = o->exceeded;
        format_row(o, &d, lo, sizeof lo, votes);
        d = dec[0] + err[0];
        format_row(o, &d, hi, sizeof hi, votes);
        o->exceeded = saved;
        return strcmp(lo, hi) == 0;
    }
    default:
        return 0;
    }
}

static int needs_all_exact(const out_ctx *o)
{
    return o->mode == OUT_VALUE || (o->mode == OUT_PROB_SVC && o->k > 2);
}

/* ---- command line ------------------------------------------------------------------------ */

enum { KEEP_GOING = -1 };

typedef struct predict_opts {
    gs_log log;               /* -q, --verbose */
    int probability;          /* -b */
    const char *device;       /* --device, NULL = automatic */
    int mem_mb;               /* --device-memory, 0 = no cap */
    const char *test_path, *model_path, *out_path;
    gs_tuning tuning;         /* from the environment (cli/env.h); --fast-exit */
} predict_opts;

/* A bad command line: svm-predict's usage on stdout. @return the exit code, 1 */
static int usage_exit(void)
{
    gs_cli_usage_predict(stdout);
    return 1;
}

/* One of gpusvm's long options at argv[*i]; an unknown one gets svm-predict's "Unknown option"
 * and usage. @return KEEP_GOING, or the exit code */
static int parse_long(int argc, char **argv, int *i, predict_opts *o)
{
    const char *v = NULL;
    if (gs_cli_long(argc, argv, i, "help", NULL)) {
        gs_cli_help_predict(stdout);
        return 0;
    }
    if (gs_cli_long(argc, argv, i, "version", NULL)) {
        gs_cli_version(stdout);
        return 0;
    }
    if (gs_cli_long(argc, argv, i, "list-devices", NULL)) {
        if (gs_ocl_list(stdout) == GS_OK) return 0;
        fprintf(stderr, "%s\n", gs_last_error());
        return 1;
    }
    if (gs_cli_long(argc, argv, i, "verbose", NULL)) {
        o->log.verbose = 1;
        return KEEP_GOING;
    }
    if (gs_cli_long(argc, argv, i, "fast-exit", NULL)) {
        o->tuning.fast_exit = 1;
        return KEEP_GOING;
    }
    if (gs_cli_long(argc, argv, i, "no-kernel-cache", NULL)) {
        o->tuning.kernel_cache = NULL;
        return KEEP_GOING;
    }
    if (gs_cli_long(argc, argv, i, "device-memory", &v)) { /* MB of device memory to use at most */
        int mb = 0;
        if (!v || gs_cli_parse_int(v, &mb) != 0 || mb < 1) return usage_exit();
        o->mem_mb = mb;
        return KEEP_GOING;
    }
    if (gs_cli_long(argc, argv, i, "device", &v)) {
        if (!v) return usage_exit();
        o->device = v; /* "" = automatic */
        return KEEP_GOING;
    }
    fprintf(stderr, "Unknown option: %s\n", argv[*i]);
    return usage_exit();
}

/* svm-predict's scan: options while an argument starts with '-', then the three files.
 * @return KEEP_GOING with o filled, or the exit code */
static int parse_args(int argc, char **argv, predict_opts *o)
{
    int i;
    for (i = 1; i < argc; i++) {
        const char *opt = argv[i];
        /* A lone "-" is the test file, standard input (svm-predict: "Unknown option: -"). */
        if (opt[0] != '-' || opt[1] == '\0') break;
        if (opt[1] == '-' && opt[2] != '\0') {
            const int rc = parse_long(argc, argv, &i, o);
            if (rc != KEEP_GOING) return rc;
            continue;
        }
        ++i;
        switch (opt[1]) {
        case 'b': {
            int v;
            if (i >= argc || gs_cli_parse_int(argv[i], &v) != 0) return usage_exit();
            o->probability = v != 0;
            break;
        }
        case 'q':
            o->log.quiet = 1;
            i--;
            break;
        default:
            fprintf(stderr, "Unknown option: %s\n", opt);
            return usage_exit();
        }
    }
    if (i >= argc - 2) return usage_exit();
    o->test_path = argv[i];
    o->model_path = argv[i + 1];
    o->out_path = argv[i + 2];
    return KEEP_GOING;
}

/* ---- the prediction, step by step --------------------------------------------------------- */

#define OUT_BUF_BYTES (4u << 20) /* a chunk's output lines are collected up to this, then written */

typedef struct stats {
    int correct, total;
    double error, sump, sumt, sumpp, sumtt, sumpt;
} stats;

/* Everything one prediction holds, zeroed at the start and released by run_free. Each step below
 * prints its own message on failure and returns 1 (0 when done). */
typedef struct run {
    const predict_opts *opt;
    double t_begin;
    reader rd;
    gs_atomic_file out;
    gs_model model;
    dev_job dev;
    pthread_t dev_th;
    int dev_started;
    gs_predictor *pred;    /* NULL: every row on the CPU; else the first device's */
    gs_predictor *more[GS_DEVSET_MAX]; /* [1..npred): the other devices' (--device list) */
    int npred;             /* devices a chunk is split over (1 with pred, 0 without) */
    gs_rows part[GS_DEVSET_MAX]; /* a chunk's rows per device: views with their own row_ptr */
    int classify, regress; /* the model's kind (cs_svc classifies) */
    out_ctx o;
    int *votes;
    int nd;                /* decision values per row, at least 1 (the stride of dec and err) */
    int32_t chunk;         /* rows per chunk */
    int32_t first_max;     /* rows the first chunk may grow to */
    gs_rows rows[2];       /* the chunk being predicted and the next one, read meanwhile */
    int cur;
    double *dec, *err;     /* [rows * nd] decision values and the device's error bounds */
    int32_t *redo;         /* the chunk's rows recomputed on the CPU */
    char *obuf;            /* [OUT_BUF_BYTES] */
    char *big;             /* one line when it does not fit line[] (many classes) */
    size_t big_cap;
    char line[8192];
    stats sx;
    long n_redo_total;
    double t_read, t_out;
} run;

/* The test file, then the output (svm-predict's order and messages). */
static int open_files(run *r)
{
    const predict_opts *opt = r->opt;
    if (reader_open(&r->rd, opt->test_path, opt->tuning.inflate_threads) != 0) {
        fprintf(stderr, "can't open input file %s\n", opt->test_path);
        return 1;
    }
    if (gs_atomic_open(&r->out, opt->out_path) != GS_OK) {
        fprintf(stderr, "can't open output file %s\n", opt->out_path);
        gs_log_verbose(&opt->log, "gpusvm-predict: %s\n", gs_last_error());
        return 1;
    }
    setvbuf(r->out.f, NULL, _IOFBF, 1 << 20);
    return 0;
}

/* Opens the device on a thread, hiding its start-up (~0.3 s on a GPU) behind the model load and
 * the first chunk. */
static void start_device(run *r)
{
    r->dev.spec = r->opt->device;
    r->dev.tuning = &r->opt->tuning;
    r->dev.mem_cap = (cl_ulong)r->opt->mem_mb << 20;
    atomic_init(&r->dev.starting, 1);
    r->dev_started = pthread_create(&r->dev_th, NULL, dev_thread, &r->dev) == 0;
    if (!r->dev_started) dev_thread(&r->dev);
}

/* Reads the model and applies svm-predict's checks on -b against it. */
static int load_model(run *r)
{
    const predict_opts *opt = r->opt;
    const gs_model *m = &r->model;
    const double t0 = gs_now();
    const gs_status st = gs_model_read(opt->model_path, &r->model);
    if (st != GS_OK) {
        if (st != GS_ERR_IO) fprintf(stderr, "%s\n", gs_last_error());
        fprintf(stderr, "can't open model file %s\n", opt->model_path);
        return 1;
    }
    gs_log_verbose(&opt->log, "model: %d SVs, read in %.3f s\n", (int)m->l, gs_now() - t0);
    if (m->svm_type == GS_CS_SVC && opt->probability) {
        fprintf(stderr, "gpusvm-predict: -b 1: cs_svc (Crammer-Singer) models have no probability "
                        "estimates\n");
        return 1;
    }
    /* cs_svc (gpusvm-train --multiclass cs) predicts like a classifier: argmax of its k values */
    r->classify = m->svm_type == GS_C_SVC || m->svm_type == GS_NU_SVC || m->svm_type == GS_CS_SVC;
    r->regress = m->svm_type == GS_EPSILON_SVR || m->svm_type == GS_NU_SVR;
    const int has_prob = (r->classify && m->svm_type != GS_CS_SVC && m->probA && m->probB) ||
                         (r->regress && m->probA) ||
                         (m->svm_type == GS_ONE_CLASS && m->prob_density_marks);
    if (opt->probability) {
        if (!has_prob) {
            fprintf(stderr, "Model does not support probabiliy estimates\n");
            return 1;
        }
    } else if (has_prob) {
        gs_log_info(&opt->log, "Model supports probability estimates, but disabled in prediction.\n");
    }
    return 0;
}

/* Chooses the line format (out_ctx) and writes what comes before the lines: svm-predict's
 * "Prob. model" text on stdout, the output's header line. */
static int setup_output(run *r)
{
    const predict_opts *opt = r->opt;
    const gs_model *m = &r->model;
    out_ctx *o = &r->o;
    o->m = m;
    o->nd = gs_pred_n_dec(m);
    o->k = r->classify ? m->nr_class : 2;
    if (r->classify) o->mode = opt->probability ? OUT_PROB_SVC : OUT_LABEL;
    else if (r->regress) o->mode = OUT_VALUE;
    else o->mode = opt->probability ? OUT_PROB_ONE_CLASS : OUT_ONE_CLASS;
    if (o->mode == OUT_LABEL && m->nr_class >= 1 && m->label) {
        o->label_txt = malloc(sizeof *o->label_txt * (size_t)m->nr_class);
        if (!o->label_txt) goto nomem;
        for (int c = 0; c < m->nr_class; c++)
            snprintf(o->label_txt[c], sizeof o->label_txt[c], "%.17g\n", (double)m->label[c]);
    }
    const int kk = o->k > 2 ? o->k : 2;
    o->p = malloc(sizeof(double) * (size_t)kk);
    o->work = malloc(sizeof(double) * (size_t)gs_prob_work_size(kk));
    r->votes = malloc(sizeof(int) * (size_t)kk);
    if (!o->p || !o->work || !r->votes) goto nomem;
    if (opt->probability && r->regress)
        gs_log_info(&opt->log,
                    "Prob. model for test data: target value = predicted value + z,\n"
                    "z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma=%g\n",
                    m->probA[0]);
    if (opt->probability && r->classify) {
        fprintf(r->out.f, "labels");
        for (int c = 0; c < m->nr_class; c++) fprintf(r->out.f, " %d", m->label[c]);
        fprintf(r->out.f, "\n");
    } else if (opt->probability && m->svm_type == GS_ONE_CLASS) {
        fprintf(r->out.f, "label normal outlier\n");
    }
    return 0;
nomem:
    fprintf(stderr, "gpusvm-predict: out of memory\n");
    return 1;
}

/* The chunk size and its buffers: CHUNK_ROWS rows, up to 4x that for the first (reader_chunk), each
 * at most CHUNK_DEC_BYTES of decision values and bounds (at least 64 rows). The device holds them
 * too, which on a CPU device is host memory again: news20.t's 190 decision values a row took
 * 2 x 12 MB for its 3993 rows in one grown chunk, against svm-predict's 8.8 MB in all. */
static int alloc_chunks(run *r)
{
    const int nd = r->nd = r->o.nd > 0 ? r->o.nd : 1;
    size_t most = CHUNK_DEC_BYTES / ((size_t)nd * 2 * sizeof(double));
    if (most < 64) most = 64;
    const int32_t chunk = most < CHUNK_ROWS ? (int32_t)most : CHUNK_ROWS;
    r->chunk = chunk;
    r->first_max = most < 4 * (size_t)chunk ? (int32_t)most : 4 * chunk;
    const size_t first_max = (size_t)r->first_max;
    r->dec = malloc(sizeof(double) * first_max * nd);
    r->err = malloc(sizeof(double) * first_max * nd);
    r->redo = malloc(sizeof(int32_t) * first_max);
    r->obuf = malloc(OUT_BUF_BYTES);
    if (!r->dec || !r->err || !r->redo || !r->obuf) {
        fprintf(stderr, "gpusvm-predict: out of memory\n");
        return 1;
    }
    return 0;
}

/* The first chunk, which grows while the device is still starting (reader_chunk). */
static int read_first(run *r)
{
    const double t0 = gs_now();
    if (reader_chunk(&r->rd, r->chunk, &r->dev.starting, r->first_max, &r->rows[0]) != GS_OK) {
        fprintf(stderr, "%s\n", gs_last_error());
        return 1;
    }
    r->t_read = gs_now() - t0;
    return 0;
}

/* The device is used for every non-precomputed model with SVs. Where every row's value must be
 * LIBSVM's bits (regression, multiclass probabilities), RBF and sigmoid models take the host
 * exact path: the device computes exp's / tanh's arguments, the host finishes them
 * (gs_predictor_host_exact). */
static int wants_device(const run *r)
{
    const gs_model *m = &r->model;
    return m->kernel_type != GS_KERNEL_PRECOMPUTED && m->l > 0 && r->o.nd > 0;
}

/* A predictor of the model (host layout; exact host finish where needed) into *out. */
static int create_predictor(run *r, gs_predictor **out)
{
    if (gs_predictor_create(&r->model, &r->opt->tuning, out) != GS_OK) {
        fprintf(stderr, "gpusvm-predict: %s\n", gs_last_error());
        return 1;
    }
    gs_predictor_host_exact(*out, needs_all_exact(&r->o));
    return 0;
}

/* Lays the SVs out on the host first (the device may still be starting), waits for the device
 * thread, and uploads them when the device is used: to each device of a --device list, whose
 * chunks are then split between them (each device its own layout). */
static int prepare_device(run *r)
{
    const gs_log *log = &r->opt->log;
    const int use_device = wants_device(r);
    double t0 = gs_now();
    if (use_device) {
        if (create_predictor(r, &r->pred)) return 1;
        int n_blocks = 0;
        const int n_rw = gs_predictor_row_wise_blocks(r->pred, &n_blocks);
        gs_log_verbose(log, "SV layout built in %.3f s (%d blocks, %d row-wise)\n", gs_now() - t0,
                       n_blocks, n_rw);
    }
    if (r->dev_started) {
        pthread_join(r->dev_th, NULL);
        r->dev_started = 0;
    }
    if (!use_device) return 0;
    if (r->dev.st != GS_OK) {
        fprintf(stderr, "gpusvm-predict: %s\n", r->dev.err);
        return 1;
    }
    for (int d = 0; d < r->dev.set.n; d++) {
        gs_predictor *pd = r->pred;
        if (d > 0 && create_predictor(r, &r->more[d])) return 1;
        if (d > 0) pd = r->more[d];
        r->npred = d + 1;
        char ready[768], cache[1024];
        gs_ocl_describe_ready(&r->dev.set.dev[d], r->dev.seconds, ready, sizeof ready);
        gs_log_verbose(log, "device: %s\n", ready);
        gs_ocl_describe_cache(&r->dev.set.dev[d], cache, sizeof cache);
        gs_log_verbose(log, "%s\n", cache);
        t0 = gs_now();
        if (gs_predictor_attach(pd, &r->dev.set.dev[d], &r->dev.prg[d]) != GS_OK) {
            fprintf(stderr, "gpusvm-predict: %s\n", gs_last_error());
            return 1;
        }
        gs_log_verbose(log, "SVs uploaded in %.3f s (device exact: %s; row-wise blocks: %s)\n", gs_now() - t0,
                       gs_predictor_exact(pd) ? "yes" : "no",
                       !gs_predictor_row_wise_blocks(pd, NULL) ? "none"
                       : gs_predictor_hash(pd)                 ? "hash tables"
                                                               : "merge");
    }
    return 0;
}

/* Splits chunk R over the devices (fewer for a small chunk) into runs of consecutive rows:
 * use[k] is R itself for one part, else r->part[k], a view of R's arrays with its own row_ptr
 * from 0; first[k] is part k's first row. @return the parts, -1 out of memory */
static int split_chunk(run *r, const gs_rows *R, const gs_rows **use, int32_t *first)
{
    int np = r->npred;
    if (np > 1 && R->l < 256 * np) np = R->l / 256 > 1 ? R->l / 256 : 1;
    first[0] = 0;
    use[0] = R;
    if (np <= 1) return 1;
    for (int k = 0; k < np; k++) {
        const int32_t a = (int32_t)((int64_t)R->l * k / np), b = (int32_t)((int64_t)R->l * (k + 1) / np);
        gs_rows *v = &r->part[k];
        if (v->cap_rows < (int64_t)(b - a) + 1) {
            int64_t *grown = realloc(v->row_ptr, sizeof *grown * ((size_t)(b - a) + 1));
            if (!grown) return -1;
            v->row_ptr = grown;
            v->cap_rows = (int64_t)(b - a) + 1;
        }
        for (int32_t t = a; t <= b; t++) v->row_ptr[t - a] = R->row_ptr[t] - R->row_ptr[a];
        v->idx = R->idx + R->row_ptr[a];
        v->val = R->val + R->row_ptr[a];
        v->y = R->y + a;
        v->l = b - a;
        first[k] = a;
        use[k] = v;
    }
    return np;
}

/* Decision values of chunk R into dec: on the device where used, reading the next chunk into
 * *next while it works, then on the CPU for every row whose printed output the device's bounds
 * cannot guarantee. */
static int compute_chunk(run *r, const gs_rows *R, gs_rows *next)
{
    const int nd = r->nd;
    int32_t first[GS_DEVSET_MAX];
    const gs_rows *use[GS_DEVSET_MAX];
    const int np = r->pred ? split_chunk(r, R, use, first) : 0;
    if (np < 0) {
        fprintf(stderr, "gpusvm-predict: out of memory\n");
        return 1;
    }
    for (int k = 0; k < np; k++)
        if (gs_predictor_start(k == 0 ? r->pred : r->more[k], use[k]) != GS_OK) {
            fprintf(stderr, "gpusvm-predict: %s\n", gs_last_error());
            return 1;
        }
    const double t0 = gs_now();
    if (reader_chunk(&r->rd, r->chunk, NULL, r->chunk, next) != GS_OK) {
        fprintf(stderr, "%s\n", gs_last_error());
        return 1;
    }
    r->t_read += gs_now() - t0;
    int32_t n_redo = 0;
    if (r->pred) {
        for (int k = 0; k < np; k++) {
            const size_t o = (size_t)first[k] * nd;
            if (gs_predictor_finish(k == 0 ? r->pred : r->more[k], r->dec + o, r->err + o) != GS_OK) {
                fprintf(stderr, "gpusvm-predict: %s\n", gs_last_error());
                return 1;
            }
        }
        for (int32_t i = 0; i < R->l; i++)
            if (!device_row_ok(&r->o, r->dec + (size_t)i * nd, r->err + (size_t)i * nd, r->votes))
                r->redo[n_redo++] = i;
    } else if (r->o.nd > 0) {
        for (int32_t i = 0; i < R->l; i++) r->redo[n_redo++] = i;
    }
    if (n_redo > 0 && cpu_rows(&r->model, R, r->redo, n_redo, r->dec, nd) != GS_OK) {
        fprintf(stderr, "gpusvm-predict: %s\n", gs_last_error());
        return 1;
    }
    r->n_redo_total += n_redo;
    return 0;
}

/* Appends one line to the output buffer (*len bytes used), writing the buffer out when full. */
static void put_line(run *r, size_t *len, const char *line)
{
    const size_t n = strlen(line);
    if (*len + n > OUT_BUF_BYTES) {
        fwrite(r->obuf, 1, *len, r->out.f);
        *len = 0;
        if (n > OUT_BUF_BYTES) fputs(line, r->out.f);
    }
    if (n <= OUT_BUF_BYTES) {
        memcpy(r->obuf + *len, line, n);
        *len += n;
    }
}

static void add_stats(stats *sx, double p, double target)
{
    if (p == target) ++sx->correct;
    sx->error += (p - target) * (p - target);
    sx->sump += p;
    sx->sumt += target;
    sx->sumpp += p * p;
    sx->sumtt += target * target;
    sx->sumpt += p * target;
    ++sx->total;
}

/* Formats chunk R's lines (svm-predict's text), writes them once per chunk and adds them to the
 * accuracy statistics. */
static int write_chunk(run *r, const gs_rows *R)
{
    const double t0 = gs_now();
    const size_t need = 64 + (size_t)r->o.k * 32;
    if (need > sizeof r->line && need > r->big_cap) {
        char *nb = realloc(r->big, need);
        if (!nb) {
            fprintf(stderr, "gpusvm-predict: out of memory\n");
            return 1;
        }
        r->big = nb;
        r->big_cap = need;
    }
    char *lb = need > sizeof r->line ? r->big : r->line;
    const size_t lcap = need > sizeof r->line ? r->big_cap : sizeof r->line;
    size_t len = 0;
    for (int32_t i = 0; i < R->l; i++) {
        r->o.exceeded = 0;
        const double p = format_row(&r->o, r->dec + (size_t)i * r->nd, lb, lcap, r->votes);
        if (r->o.exceeded) { /* the library's own message in LIBSVM, not silenced by -q */
            fwrite(r->obuf, 1, len, r->out.f);
            len = 0;
            fflush(r->out.f);
            printf("Exceeds max_iter in multiclass_prob\n");
        }
        put_line(r, &len, lb);
        add_stats(&r->sx, p, R->y[i]);
    }
    fwrite(r->obuf, 1, len, r->out.f);
    r->t_out += gs_now() - t0;
    return 0;
}

/* Every chunk: decision values, then lines, while the next chunk is read. */
static int predict_chunks(run *r)
{
    while (r->rows[r->cur].l > 0) {
        const gs_rows *R = &r->rows[r->cur];
        if (compute_chunk(r, R, &r->rows[1 - r->cur]) || write_chunk(r, R)) return 1;
        r->cur = 1 - r->cur;
    }
    return 0;
}

/* Completes the output file (renamed over the target), then svm-predict's summary and the
 * --verbose figures. */
static int finish_output(run *r)
{
    const gs_log *log = &r->opt->log;
    const stats *sx = &r->sx;
    if (gs_atomic_commit(&r->out) != GS_OK) {
        fprintf(stderr, "can't write output file %s\n", r->opt->out_path);
        gs_log_verbose(log, "gpusvm-predict: %s\n", gs_last_error());
        return 1;
    }
    if (r->regress) {
        const double n = sx->total;
        gs_log_info(log, "Mean squared error = %g (regression)\n", sx->error / sx->total);
        gs_log_info(log, "Squared correlation coefficient = %g (regression)\n",
                    ((n * sx->sumpt - sx->sump * sx->sumt) * (n * sx->sumpt - sx->sump * sx->sumt)) /
                        ((n * sx->sumpp - sx->sump * sx->sump) * (n * sx->sumtt - sx->sumt * sx->sumt)));
    } else {
        gs_log_info(log, "Accuracy = %g%% (%d/%d) (classification)\n",
                    (double)sx->correct / sx->total * 100, sx->correct, sx->total);
    }
    gs_log_verbose(log,
                   "rows %d, recomputed on the CPU %ld; read %.3f s, device %.3f s, output %.3f s, "
                   "total %.3f s\n",
                   sx->total, r->n_redo_total, r->t_read, r->pred ? gs_predictor_device_seconds(r->pred) : 0.0,
                   r->t_out, gs_now() - r->t_begin);
    if (r->pred) {
        const gs_pred_times tm = gs_predictor_times(r->pred);
        gs_log_verbose(log, "device split: buffers %.4f s, enqueued by %.4f s, blocking read %.4f s; "
                       "kernels: values %.4f s, sums %.4f s; 16-bit distances in %ld of %ld chunk(s); pair sums "
                       "in %d segments in %ld chunk(s)\n", tm.alloc, tm.enqueue, tm.wait, tm.kvals, tm.sum, tm.coded,
                       tm.chunks, tm.nseg, tm.segmented);
    }
    return 0;
}

/* Releases everything (the predictor waits for a chunk still in flight before the rows and the
 * decision buffers go); a half-done run is fine. An uncommitted output leaves no file. */
static void run_free(run *r)
{
    if (r->dev_started) pthread_join(r->dev_th, NULL);
    gs_atomic_discard(&r->out);
    gs_predictor_free(r->pred);
    for (int d = 1; d < GS_DEVSET_MAX; d++) gs_predictor_free(r->more[d]);
    for (int d = 0; d < GS_DEVSET_MAX; d++) {
        gs_pred_program_release(&r->dev.prg[d]);
        free(r->part[d].row_ptr); /* the parts' own; their other arrays are a chunk's */
    }
    gs_devset_close(&r->dev.set);
    free(r->obuf);
    free(r->big);
    free(r->o.label_txt);
    free(r->o.p);
    free(r->o.work);
    free(r->votes);
    free(r->dec);
    free(r->err);
    free(r->redo);
    gs_rows_free(&r->rows[0]);
    gs_rows_free(&r->rows[1]);
    gs_model_free(&r->model);
    reader_close(&r->rd);
}

/* The whole prediction. @return the exit code */
static int predict(const predict_opts *opt)
{
    run *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "gpusvm-predict: out of memory\n");
        return 1;
    }
    r->opt = opt;
    r->t_begin = gs_now();
    int rc = 1;
    if (open_files(r)) goto cleanup;
    start_device(r);
    if (load_model(r) || setup_output(r) || alloc_chunks(r) || read_first(r) || prepare_device(r) ||
        predict_chunks(r) || finish_output(r))
        goto cleanup;
    rc = 0;
    /* Everything is written and renamed; --fast-exit leaves the release of the OpenCL objects and
     * the driver's exit handlers (~0.15 s on an H100) to a child. By default they run below. */
    if (gs_exit_fast_wanted(&opt->tuning)) gs_exit_fast(0);
cleanup:
    run_free(r);
    gs_log_verbose(&opt->log, "after clean-up: %.3f s\n", gs_now() - r->t_begin);
    free(r);
    return rc;
}

int main(int argc, char **argv)
{
    const int helper = gs_cli_build_helper(argc, argv); /* a build helper: nothing else */
    if (helper >= 0) return helper;
    predict_opts opt;
    memset(&opt, 0, sizeof opt);
    gs_tuning_from_env(&opt.tuning);
    gs_cli_driver_env(&opt.tuning); /* before any thread and any OpenCL call */
    const int rc = parse_args(argc, argv, &opt);
    return rc != KEEP_GOING ? rc : predict(&opt);
}
