/* predict.c — gpusvm-predict: svm-predict's command line, messages and output files, with the
 * decision values computed on the OpenCL device (predictor.h).
 *
 * Differences from svm-predict, on purpose: the output is written to "<output>.tmpXXXXXX" and
 * renamed at the end, so a failed run leaves no partial output (svm-predict leaves the predictions
 * before a bad line, or an empty file after a bad model); gzip test files are read; long options
 * --device, --list-devices and --verbose; gpusvm's cs_svc models (Crammer–Singer, model.h) are
 * read and predicted by the largest of their k decision values (no -b 1 for them); a lone "-" as
 * the test file reads standard input (svm-predict: "Unknown option: -"). The model and output
 * files are always names, as in svm-predict ("-" there is a file called "-"). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/data.h"
#include "cli/fastexit.h"
#include "util/log.h"
#include "io/model.h"
#include "device/ocl.h"
#include "predict/predictor.h"
#include "predict/probability.h"
#include "util/status.h"
#include "device/warm.h"

#define CHUNK_ROWS 65536              /* rows per chunk (fewer when a row has many pairs) */
#define CHUNK_DEC_BYTES (64u << 20)   /* host bytes for a chunk's decision values and bounds */

static void usage(void)
{
    printf("Usage: gpusvm-predict [options] test_file model_file output_file\n"
           "options:\n"
           "-b probability_estimates: whether to predict probability estimates, 0 or 1 (default 0); "
           "for one-class SVM only 0 is supported\n"
           "-q : quiet mode (no outputs)\n");
    exit(1);
}

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

static int reader_open(reader *rd, const char *path)
{
    const gs_data_opts o = {.double_values = 1, .any_label = 1};
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
 * *more (may be NULL) is non-zero it goes on up to 4 * max_rows rows: the first chunk grows while
 * the device is still starting. */
static gs_status reader_chunk(reader *rd, int32_t max_rows, const atomic_int *more, gs_rows *out)
{
    gs_status st = gs_data_stream_next(rd->s, max_rows, &rd->part);
    if (st != GS_OK) return st;
    rows_take(out, &rd->part);
    int at_end = out->l < max_rows;
    while (!at_end && more && atomic_load(more) && out->l < 4 * (int64_t)max_rows) {
        const int64_t left = 4 * (int64_t)max_rows - out->l;
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
    cl_ulong mem_cap; /* --device-memory in bytes, 0 = none */
    gs_ocl ocl;
    gs_pred_program prg;
    gs_status st;
    char err[1024];
    double seconds;
    atomic_int starting; /* 1 until the thread is done */
} dev_job;

static void *dev_thread(void *arg)
{
    dev_job *j = arg;
    const double t0 = gs_now();
    /* on a GPU, with a helper that keeps the driver warm for the next gpusvm command (warm.h) */
    j->st = gs_warm_open_device(&j->ocl, j->spec);
    if (j->st == GS_OK) gs_ocl_limit_memory(&j->ocl, j->mem_cap);
    if (j->st == GS_OK) j->st = gs_pred_program_build(&j->ocl, &j->prg);
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
    long nt = sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1) nt = 1;
    if (nt > 64) nt = 64;
    if ((int64_t)n * (m->l > 0 ? m->l : 1) < 100000) nt = 1; /* not worth a thread */
    cpu_job jobs[64];
    pthread_t th[64];
    int ok[64];
    for (long t = 0; t < nt; t++) {
        jobs[t] = (cpu_job){m, rows, list, n, (int32_t)nt, (int32_t)t, dec, nd, -1};
        ok[t] = t > 0 && pthread_create(&th[t], NULL, cpu_worker, &jobs[t]) == 0;
    }
    for (long t = 0; t < nt; t++)
        if (!ok[t]) cpu_worker(&jobs[t]);
    int32_t bad = -1;
    for (long t = 0; t < nt; t++) {
        if (ok[t]) pthread_join(th[t], NULL);
        if (jobs[t].bad >= 0 && (bad < 0 || jobs[t].bad < bad)) bad = jobs[t].bad;
    }
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

/* The index of the winning class: pair (i,j) votes i when dec > 0, else j; ties go to the earliest. */
static int vote(int k, const double *dec, int *votes)
{
    for (int i = 0; i < k; i++) votes[i] = 0;
    int q = 0;
    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++, q++) {
            if (dec[q] > 0) votes[i]++;
            else votes[j]++;
        }
    int best = 0;
    for (int i = 1; i < k; i++)
        if (votes[i] > votes[best]) best = i;
    return best;
}

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
            const int c = o->k < 2 ? 0 : (m->svm_type == GS_CS_SVC ? argmax(o->k, dec) : vote(o->k, dec, votes));
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

/* ---- main -------------------------------------------------------------------------------- */

typedef struct stats {
    int correct, total;
    double error, sump, sumt, sumpp, sumtt, sumpt;
} stats;

int main(int argc, char **argv)
{
    gs_ocl_driver_env(); /* before any thread and any OpenCL call */
    int helper_rc;
    if (gs_warm_run_if_helper(argc, argv, &helper_rc)) return helper_rc;
    gs_log log = {0};
    int probability = 0;
    const char *device_spec = NULL;
    int mem_mb = 0, i;
    for (i = 1; i < argc; i++) {
        /* A lone "-" is the test file, standard input (svm-predict: "Unknown option: -"). */
        if (argv[i][0] != '-' || argv[i][1] == '\0') break;
        if (strcmp(argv[i], "--verbose") == 0) { log.verbose = 1; continue; }
        if (strcmp(argv[i], "--list-devices") == 0) return gs_ocl_list(stdout) == GS_OK ? 0 : 1;
        if (strncmp(argv[i], "--device=", 9) == 0) { device_spec = argv[i] + 9; continue; }
        if (strcmp(argv[i], "--device-memory") == 0) { /* MB of device memory to use at most */
            int mb = 0;
            if (i + 1 >= argc || gs_cli_parse_int(argv[i + 1], &mb) != 0 || mb < 1) usage();
            mem_mb = mb;
            i++;
            continue;
        }
        if (strcmp(argv[i], "--device") == 0) {
            if (i + 1 >= argc) usage();
            device_spec = argv[++i];
            continue;
        }
        ++i;
        switch (argv[i - 1][1]) {
        case 'b': {
            int v;
            if (i >= argc || gs_cli_parse_int(argv[i], &v) != 0) usage();
            probability = v != 0;
            break;
        }
        case 'q':
            log.quiet = 1;
            i--;
            break;
        default:
            fprintf(stderr, "Unknown option: %s\n", argv[i - 1]);
            usage();
        }
    }
    if (i >= argc - 2) usage();
    const char *test_path = argv[i], *model_path = argv[i + 1], *out_path = argv[i + 2];
    const double t_begin = gs_now();

    int rc = 1;
    reader rd;
    memset(&rd, 0, sizeof rd);
    char *tmp_path = NULL;
    FILE *out = NULL;
    gs_model model;
    memset(&model, 0, sizeof model);
    dev_job dev;
    memset(&dev, 0, sizeof dev);
    pthread_t dev_th;
    int dev_started = 0;
    gs_predictor *pred = NULL;
    gs_rows rows[2];
    memset(rows, 0, sizeof rows);
    double *dec = NULL, *err = NULL;
    int32_t *redo = NULL;
    char *obuf = NULL, *big = NULL; /* output lines of a chunk; one line when it is very long */
    int *votes = NULL;
    out_ctx o;
    memset(&o, 0, sizeof o);
    stats sx = {0, 0, 0, 0, 0, 0, 0, 0};
    gs_status st;

    if (reader_open(&rd, test_path) != 0) {
        fprintf(stderr, "can't open input file %s\n", test_path);
        goto done;
    }
    /* The output goes to a temporary beside it, renamed at the end. A non-regular target (a
     * device, a pipe) is written directly. */
    struct stat sb;
    if (stat(out_path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        out = fopen(out_path, "w");
    } else {
        const size_t n = strlen(out_path) + 16;
        tmp_path = malloc(n);
        if (tmp_path) {
            snprintf(tmp_path, n, "%s.tmpXXXXXX", out_path);
            const mode_t mask = umask(0);
            umask(mask);
            const int fd = mkstemp(tmp_path);
            if (fd >= 0) {
                if (fchmod(fd, 0666 & ~mask) != 0) { /* keep mkstemp's 0600 */ }
                out = fdopen(fd, "w");
                if (!out) close(fd);
            }
            if (!out) {
                free(tmp_path);
                tmp_path = NULL;
            }
        }
    }
    if (!out) {
        fprintf(stderr, "can't open output file %s\n", out_path);
        goto done;
    }
    setvbuf(out, NULL, _IOFBF, 1 << 20);

    /* Hide the device start-up (~0.3 s on a GPU) behind the model load and the first chunk. */
    dev.spec = device_spec;
    dev.mem_cap = (cl_ulong)mem_mb << 20;
    atomic_init(&dev.starting, 1);
    dev_started = pthread_create(&dev_th, NULL, dev_thread, &dev) == 0;
    if (!dev_started) {
        dev_thread(&dev);
    }

    double t0 = gs_now();
    st = gs_model_read(model_path, &model);
    if (st != GS_OK) {
        if (st != GS_ERR_IO) fprintf(stderr, "%s\n", gs_last_error());
        fprintf(stderr, "can't open model file %s\n", model_path);
        goto done;
    }
    gs_log_verbose(&log, "model: %d SVs, read in %.3f s\n", (int)model.l, gs_now() - t0);
    if (model.svm_type == GS_CS_SVC && probability) {
        fprintf(stderr, "gpusvm-predict: -b 1: cs_svc (Crammer-Singer) models have no probability "
                        "estimates\n");
        goto done;
    }
    /* cs_svc (gpusvm-train --multiclass cs) predicts like a classifier: argmax of its k values */
    const int classify = model.svm_type == GS_C_SVC || model.svm_type == GS_NU_SVC ||
                         model.svm_type == GS_CS_SVC;
    const int regress = model.svm_type == GS_EPSILON_SVR || model.svm_type == GS_NU_SVR;
    const int has_prob = (classify && model.svm_type != GS_CS_SVC && model.probA && model.probB) ||
                         (regress && model.probA) ||
                         (model.svm_type == GS_ONE_CLASS && model.prob_density_marks);
    if (probability) {
        if (!has_prob) {
            fprintf(stderr, "Model does not support probabiliy estimates\n");
            goto done;
        }
    } else if (has_prob) {
        gs_log_info(&log, "Model supports probability estimates, but disabled in prediction.\n");
    }

    o.m = &model;
    o.nd = gs_pred_n_dec(&model);
    o.k = classify ? model.nr_class : 2;
    if (classify) o.mode = probability ? OUT_PROB_SVC : OUT_LABEL;
    else if (regress) o.mode = OUT_VALUE;
    else o.mode = probability ? OUT_PROB_ONE_CLASS : OUT_ONE_CLASS;
    if (o.mode == OUT_LABEL && model.nr_class >= 1 && model.label) {
        o.label_txt = malloc(sizeof *o.label_txt * (size_t)model.nr_class);
        if (!o.label_txt) {
            fprintf(stderr, "gpusvm-predict: out of memory\n");
            goto done;
        }
        for (int c = 0; c < model.nr_class; c++)
            snprintf(o.label_txt[c], sizeof o.label_txt[c], "%.17g\n", (double)model.label[c]);
    }
    const int kk = o.k > 2 ? o.k : 2;
    o.p = malloc(sizeof(double) * (size_t)kk);
    o.work = malloc(sizeof(double) * (size_t)gs_prob_work_size(kk));
    votes = malloc(sizeof(int) * (size_t)kk);
    if (!o.p || !o.work || !votes) {
        fprintf(stderr, "gpusvm-predict: out of memory\n");
        goto done;
    }
    if (probability && regress)
        gs_log_info(&log,
                    "Prob. model for test data: target value = predicted value + z,\n"
                    "z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma=%g\n",
                    model.probA[0]);
    if (probability && classify) {
        fprintf(out, "labels");
        for (int c = 0; c < model.nr_class; c++) fprintf(out, " %d", model.label[c]);
        fprintf(out, "\n");
    } else if (probability && model.svm_type == GS_ONE_CLASS) {
        fprintf(out, "label normal outlier\n");
    }

    const int nd = o.nd > 0 ? o.nd : 1;
    int32_t chunk = CHUNK_ROWS;
    if ((size_t)chunk * nd * 2 * sizeof(double) > CHUNK_DEC_BYTES)
        chunk = (int32_t)(CHUNK_DEC_BYTES / ((size_t)nd * 2 * sizeof(double)));
    if (chunk < 64) chunk = 64;
    const size_t first_max = 4 * (size_t)chunk; /* see reader_chunk */
    dec = malloc(sizeof(double) * first_max * nd);
    err = malloc(sizeof(double) * first_max * nd);
    redo = malloc(sizeof(int32_t) * first_max);
    if (!dec || !err || !redo) {
        fprintf(stderr, "gpusvm-predict: out of memory\n");
        goto done;
    }

    t0 = gs_now();
    int cur = 0;
    st = reader_chunk(&rd, chunk, &dev.starting, &rows[cur]);
    if (st != GS_OK) {
        fprintf(stderr, "%s\n", gs_last_error());
        goto done;
    }
    double t_read = gs_now() - t0;

    /* The device is used for every non-precomputed model with SVs, unless each row would have to
     * be recomputed on the CPU anyway (regression or multiclass probabilities with exp/tanh). */
    int use_device = model.kernel_type != GS_KERNEL_PRECOMPUTED && model.l > 0 && o.nd > 0 &&
                     !(needs_all_exact(&o) && (model.kernel_type == GS_KERNEL_RBF ||
                                               model.kernel_type == GS_KERNEL_SIGMOID));
    if (use_device) { /* host-side layout first: the device may still be starting */
        t0 = gs_now();
        st = gs_predictor_create(&model, &pred);
        if (st != GS_OK) {
            fprintf(stderr, "gpusvm-predict: %s\n", gs_last_error());
            goto done;
        }
        int n_blocks = 0;
        const int n_rw = gs_predictor_row_wise_blocks(pred, &n_blocks);
        gs_log_verbose(&log, "SV layout built in %.3f s (%d blocks, %d row-wise)\n",
                       gs_now() - t0, n_blocks, n_rw);
    }
    if (dev_started) {
        pthread_join(dev_th, NULL);
        dev_started = 0;
    }
    if (use_device) {
        if (dev.st != GS_OK) {
            fprintf(stderr, "gpusvm-predict: %s\n", dev.err);
            goto done;
        }
        char ready[768];
        gs_ocl_describe_ready(&dev.ocl, dev.seconds, ready, sizeof ready);
        gs_log_verbose(&log, "device: %s\n", ready);
        t0 = gs_now();
        st = gs_predictor_attach(pred, &dev.ocl, &dev.prg);
        if (st != GS_OK) {
            fprintf(stderr, "gpusvm-predict: %s\n", gs_last_error());
            goto done;
        }
        gs_log_verbose(&log, "SVs uploaded in %.3f s (device exact: %s)\n", gs_now() - t0,
                       gs_predictor_exact(pred) ? "yes" : "no");
    }

    long n_redo_total = 0;
    double t_out = 0;
    char line[8192];
    size_t big_cap = 0;
    const size_t ob_cap = 4u << 20;
    obuf = malloc(ob_cap);
    if (!obuf) {
        fprintf(stderr, "gpusvm-predict: out of memory\n");
        goto done;
    }
    while (rows[cur].l > 0) {
        gs_rows *R = &rows[cur];
        if (pred && (st = gs_predictor_start(pred, R)) != GS_OK) {
            fprintf(stderr, "gpusvm-predict: %s\n", gs_last_error());
            goto done;
        }
        /* Read the next chunk while the device works. */
        t0 = gs_now();
        st = reader_chunk(&rd, chunk, NULL, &rows[1 - cur]);
        if (st != GS_OK) {
            fprintf(stderr, "%s\n", gs_last_error());
            goto done;
        }
        t_read += gs_now() - t0;
        int32_t n_redo = 0;
        if (pred) {
            if ((st = gs_predictor_finish(pred, dec, err)) != GS_OK) {
                fprintf(stderr, "gpusvm-predict: %s\n", gs_last_error());
                goto done;
            }
            for (int32_t r = 0; r < R->l; r++)
                if (!device_row_ok(&o, dec + (size_t)r * nd, err + (size_t)r * nd, votes))
                    redo[n_redo++] = r;
        } else if (o.nd > 0) {
            for (int32_t r = 0; r < R->l; r++) redo[n_redo++] = r;
        }
        if (n_redo > 0 && (st = cpu_rows(&model, R, redo, n_redo, dec, nd)) != GS_OK) {
            fprintf(stderr, "gpusvm-predict: %s\n", gs_last_error());
            goto done;
        }
        n_redo_total += n_redo;
        t0 = gs_now();
        const size_t need = 64 + (size_t)o.k * 32;
        if (need > sizeof line && need > big_cap) {
            char *nb = realloc(big, need);
            if (!nb) {
                fprintf(stderr, "gpusvm-predict: out of memory\n");
                goto done;
            }
            big = nb;
            big_cap = need;
        }
        char *lb = need > sizeof line ? big : line;
        const size_t lcap = need > sizeof line ? big_cap : sizeof line;
        /* Lines are collected in memory and written once per chunk. */
        size_t ob_len = 0;
        for (int32_t r = 0; r < R->l; r++) {
            const double target = R->y[r];
            o.exceeded = 0;
            const double p = format_row(&o, dec + (size_t)r * nd, lb, lcap, votes);
            if (o.exceeded) { /* the library's own message in LIBSVM, not silenced by -q */
                fwrite(obuf, 1, ob_len, out);
                ob_len = 0;
                fflush(out);
                printf("Exceeds max_iter in multiclass_prob\n");
            }
            const size_t n = strlen(lb);
            if (ob_len + n > ob_cap) {
                fwrite(obuf, 1, ob_len, out);
                ob_len = 0;
                if (n > ob_cap) fputs(lb, out);
            }
            if (n <= ob_cap) {
                memcpy(obuf + ob_len, lb, n);
                ob_len += n;
            }
            if (p == target) ++sx.correct;
            sx.error += (p - target) * (p - target);
            sx.sump += p;
            sx.sumt += target;
            sx.sumpp += p * p;
            sx.sumtt += target * target;
            sx.sumpt += p * target;
            ++sx.total;
        }
        fwrite(obuf, 1, ob_len, out);
        t_out += gs_now() - t0;
        cur = 1 - cur;
    }
    if (ferror(out) || fclose(out) != 0) {
        out = NULL;
        fprintf(stderr, "can't write output file %s\n", out_path);
        goto done;
    }
    out = NULL;
    if (tmp_path) {
        if (rename(tmp_path, out_path) != 0) {
            fprintf(stderr, "can't open output file %s\n", out_path);
            goto done;
        }
        free(tmp_path);
        tmp_path = NULL;
    }
    if (regress) {
        const double n = sx.total;
        gs_log_info(&log, "Mean squared error = %g (regression)\n", sx.error / sx.total);
        gs_log_info(&log, "Squared correlation coefficient = %g (regression)\n",
                    ((n * sx.sumpt - sx.sump * sx.sumt) * (n * sx.sumpt - sx.sump * sx.sumt)) /
                        ((n * sx.sumpp - sx.sump * sx.sump) * (n * sx.sumtt - sx.sumt * sx.sumt)));
    } else {
        gs_log_info(&log, "Accuracy = %g%% (%d/%d) (classification)\n",
                    (double)sx.correct / sx.total * 100, sx.correct, sx.total);
    }
    gs_log_verbose(&log,
                   "rows %d, recomputed on the CPU %ld; read %.3f s, device %.3f s, output %.3f s, "
                   "total %.3f s\n",
                   sx.total, n_redo_total, t_read, pred ? gs_predictor_device_seconds(pred) : 0.0,
                   t_out, gs_now() - t_begin);
    if (pred) {
        const gs_pred_times tm = gs_predictor_times(pred);
        gs_log_verbose(&log, "device split: buffers %.4f s, enqueued by %.4f s, blocking read %.4f s; "
                       "kernels: values %.4f s, sums %.4f s\n", tm.alloc, tm.enqueue, tm.wait, tm.kvals, tm.sum);
    }
    rc = 0;
    if (dev.ocl.device_type & CL_DEVICE_TYPE_GPU) {
        /* Everything is written and renamed. Releasing the OpenCL objects and the GPU driver's
         * exit handlers take ~0.15 s on an H100, a third of a typical run; the OS reclaims it all
         * at once. (CPU devices, used by the sanitizer runs, take the normal path.) */
        fflush(stdout);
        fflush(stderr);
        gs_exit_fast(0);
    }
done:
    if (dev_started) pthread_join(dev_th, NULL);
    if (out) fclose(out);
    if (tmp_path) {
        unlink(tmp_path);
        free(tmp_path);
    }
    gs_predictor_free(pred);
    gs_pred_program_release(&dev.prg);
    gs_ocl_close(&dev.ocl);
    free(obuf);
    free(big);
    free(o.label_txt);
    free(o.p);
    free(o.work);
    free(votes);
    free(dec);
    free(err);
    free(redo);
    gs_rows_free(&rows[0]);
    gs_rows_free(&rows[1]);
    gs_model_free(&model);
    reader_close(&rd);
    gs_log_verbose(&log, "after clean-up: %.3f s\n", gs_now() - t_begin);
    return rc;
}
