/* train.c — gpusvm-train: LIBSVM svm-train's command line, with the OpenCL device opened on a helper
 * thread while the training file is read. The only place (with the other mains) that exits, and
 * (through cli/env.h) reads the environment.
 *
 * Argument scanning follows upstream svm-train exactly (libsvm-compat §2.1): options while the
 * argument starts with '-', the second character names the option, the value's presence is checked
 * before the letter, first non-option = training file, next = model file.
 *
 * Where we differ from the golden Debian transcript (golden/options), on purpose:
 *  - Numbers are read in double precision like upstream (Debian rounds float options through strtof,
 *    so "-g 0.1" differs there), so values Debian's float cannot hold are accepted as upstream does:
 *    "-c 1e40" and "-c 1e-50" train (Debian: "error converting %s to float" + usage).
 *  - A value that is not a whole number is an error, "Incorrect parameter: -c 1x" on stderr, exit 1,
 *    with no usage: Debian prints only the usage; upstream's atoi/atof takes the prefix ("-c 1x" is
 *    C=1, "-s 1.5" is 1, "-c abc" is 0). Cases: -c abc, -c 1x, -s 1.5, -v abc, -wabc 2,
 *    "-s1 heart_scale" (its value is "heart_scale"), and out-of-range integers/doubles
 *    (-s 99999999999999999999, -c 1e400) and nan/inf.
 *  - An empty value is 0, as in both Debian and upstream ("-c ''" gives "ERROR: C <= 0"; "-w 2" is
 *    label 0).
 *  - Arguments starting with "--" and a name are gpusvm's long options (LIBSVM would report
 *    "Unknown option: --"). A bare "--" is still LIBSVM's unknown option.
 *  - A lone "-" where an option could start is the training file, standard input; the default model
 *    file is then "stdin.model". LIBSVM reports "Unknown option: -" (with a NUL byte), or prints
 *    the usage when "-" is the last argument (golden options/train_dash_only).
 *  - -t 4 needs every row to hold the kernel values up to the largest serial number, since
 *    LIBSVM reads K(i,j) at array position ID_j of row i: a shorter row is an error, where LIBSVM
 *    reads past it (data/precomputed.h).
 *  - "-v n" on an empty file is an error, exit 1, where LIBSVM crashes (golden
 *    badinput/train_empty_cv, SIGFPE); so is regression with "-b 1" (its internal -v 5).
 *  - --multiclass cs trains one Crammer–Singer model (cs.h, an svm_type LIBSVM does not know) instead
 *    of the one-vs-one pairs; what it cannot combine with (-s 1..4, -t 4, -b 1, -wi, -v) is an
 *    "ERROR: --multiclass cs ..." of the parameter check, exit 1.
 */
#include <pthread.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/env.h"
#include "train/cs.h"
#include "train/cv.h"
#include "data/precomputed.h"
#include "cli/fastexit.h"
#include "io/data.h"
#include "util/log.h"
#include "io/model.h"
#include "device/devset.h"
#include "device/ocl.h"
#include "api/param.h"
#include "util/status.h"
#include "train/trainer.h"

enum { KEEP_GOING = -1 };

typedef struct train_opts {
    gs_param param;
    gs_log log;
    const char *device;     /* --device, NULL = automatic */
    const char *train_file;
    char *model_file;       /* owned */
} train_opts;

/* The device is opened on a helper thread; its error text lives in that thread's last-error record,
 * so it is copied out before the thread ends. */
typedef struct device_job {
    gs_devset set;            /* --device's devices (one unless it names a list) */
    const char *spec;
    const gs_tuning *tuning; /* the device fallback, profiling, kernel directory */
    cl_ulong mem_cap; /* --device-memory in bytes, 0 = none */
    gs_status st;
    char err[1024];
} device_job;

static void *device_open_thread(void *arg)
{
    device_job *job = arg;
    job->st = gs_devset_open(&job->set, job->spec, job->tuning, job->mem_cap);
    if (job->st != GS_OK) snprintf(job->err, sizeof job->err, "%s", gs_last_error());
    return NULL;
}

/* gs_device_provider.wait: joins the opening thread; the error text is re-recorded in this thread. */
typedef struct device_wait {
    device_job *job;
    pthread_t *thread;
    int *thread_started;
    const gs_log *log;
    double t0;
    int announced;    /* the --verbose device lines are printed (wait() is called again later) */
} device_wait;

static gs_ocl *device_wait_fn(void *ctx)
{
    device_wait *w = ctx;
    if (*w->thread_started) {
        pthread_join(*w->thread, NULL);
        *w->thread_started = 0;
    }
    if (w->job->st != GS_OK) {
        GS_FAIL(w->job->st, "%s", w->job->err);
        return NULL;
    }
    for (int d = 0; d < w->job->set.n && !w->announced; d++) {
        char ready[768];
        gs_ocl_describe_ready(&w->job->set.dev[d], gs_now() - w->t0, ready, sizeof ready);
        gs_log_verbose(w->log, "gpusvm: device %s\n", ready);
    }
    w->announced = 1;
    return &w->job->set.dev[0];
}

/* gs_device_provider.all: the devices wait() opened. */
static int device_all_fn(void *ctx, gs_ocl **devs, int max)
{
    const device_wait *w = ctx;
    return gs_devset_list(&w->job->set, devs, max);
}

/* --verbose: what the kernel cache did for the programs built so far; nothing while the device is
 * still opening or failed to open (a training that needed no device). */
static void print_cache(const gs_log *log, const device_job *job, int thread_started)
{
    if (!log->verbose || thread_started || job->st != GS_OK) return;
    for (int d = 0; d < job->set.n; d++) {
        char line[1024];
        gs_ocl_describe_cache(&job->set.dev[d], line, sizeof line);
        gs_log_verbose(log, "gpusvm: %s\n", line);
    }
}

/* Releases the devices (the driver's teardown of a context, ~0.1 s on an H100) on a thread of its
 * own while the model file is written. */
static void *devset_close_thread(void *arg)
{
    gs_devset_close(arg);
    return NULL;
}

static int usage_exit(void)
{
    gs_cli_usage_train(stdout);
    return 1;
}

/* One long option at argv[*i]. @return KEEP_GOING, or the exit code */
static int parse_long(int argc, char **argv, int *i, train_opts *o)
{
    static const struct { const char *name; int kind; } int_opts[] = {
        {"ws-size", 0}, {"ws-keep", 1}, {"clusters", 2}, {"cluster-size", 3}, {"device-memory", 4},
    };
    const char *arg = argv[*i];
    const char *v = NULL;
    if (gs_cli_long(argc, argv, i, "help", NULL)) {
        gs_cli_usage_train(stdout);
        return 0;
    }
    if (gs_cli_long(argc, argv, i, "version", NULL)) {
        gs_cli_version(stdout);
        return 0;
    }
    if (gs_cli_long(argc, argv, i, "fast-exit", NULL)) {
        o->param.tuning.fast_exit = 1;
        return KEEP_GOING;
    }
    if (gs_cli_long(argc, argv, i, "list-devices", NULL)) {
        if (gs_ocl_list(stdout) != GS_OK) {
            fprintf(stderr, "%s\n", gs_last_error());
            return 1;
        }
        return 0;
    }
    if (gs_cli_long(argc, argv, i, "verbose", NULL)) {
        o->log.verbose = 1;
        return KEEP_GOING;
    }
    if (gs_cli_long(argc, argv, i, "one-class-prob", NULL)) {
        o->param.one_class_prob = 1;
        return KEEP_GOING;
    }
    if (gs_cli_long(argc, argv, i, "no-kernel-cache", NULL)) {
        o->param.tuning.kernel_cache = NULL;
        return KEEP_GOING;
    }
    if (gs_cli_long(argc, argv, i, "device", &v)) {
        if (!v || !*v) goto missing;
        o->device = v;
        return KEEP_GOING;
    }
    if (gs_cli_long(argc, argv, i, "multiclass", &v)) {
        if (!v) goto missing;
        if (strcmp(v, "ovo") == 0) o->param.multiclass = GS_MC_OVO;
        else if (strcmp(v, "cs") == 0) o->param.multiclass = GS_MC_CS;
        else goto bad;
        return KEEP_GOING;
    }
    if (gs_cli_long(argc, argv, i, "seed", &v)) {
        if (!v) goto missing;
        if (gs_cli_parse_u64(v, &o->param.seed) != 0) goto bad;
        return KEEP_GOING;
    }
    for (size_t k = 0; k < sizeof int_opts / sizeof int_opts[0]; k++) {
        if (!gs_cli_long(argc, argv, i, int_opts[k].name, &v)) continue;
        if (!v) goto missing;
        int n = 0;
        if (gs_cli_parse_int(v, &n) != 0) goto bad;
        /* 0 and -1 mean "automatic" in gs_param's --ws-size and --ws-keep, so the parameter check
         * would let them through; they are outside the documented ranges (2..1024, 0..ws-size-2). */
        if ((int_opts[k].kind == 0 && n == 0) || (int_opts[k].kind == 1 && n == -1)) goto bad;
        switch (int_opts[k].kind) {
        case 0: o->param.ws_size = n; break;
        case 1: o->param.ws_keep = n; break;
        case 2: o->param.clusters_active = n; break;
        case 4: o->param.device_memory = n; break;
        default: o->param.cluster_size = n; break;
        }
        return KEEP_GOING;
    }
    fprintf(stderr, "Unknown option: %s (gpusvm-train --help lists the options)\n", arg);
    return 1;
missing:
    fprintf(stderr, "Missing value for %s\n", arg);
    return 1;
bad:
    /* "--name=V" already shows its value */
    if (strchr(arg, '=')) fprintf(stderr, "Incorrect parameter: %s\n", arg);
    else fprintf(stderr, "Incorrect parameter: %s %s\n", arg, v);
    return 1;
}

/* @return KEEP_GOING with o filled, or the exit code */
static int parse_args(int argc, char **argv, train_opts *o)
{
    gs_param *p = &o->param;
    int i;
    for (i = 1; i < argc; i++) {
        const char *opt = argv[i];
        /* A lone "-" is the training file, standard input (gpusvm's extension; LIBSVM reports
         * "Unknown option: -" with a NUL byte, or prints the usage when it is the last argument). */
        if (opt[0] != '-' || opt[1] == '\0') break;
        if (opt[1] == '-' && opt[2] != '\0') {
            const int rc = parse_long(argc, argv, &i, o);
            if (rc != KEEP_GOING) return rc;
            continue;
        }
        /* LIBSVM checks for a value before looking at the letter, so a lone "-q" prints usage. */
        if (++i >= argc) return usage_exit();
        const char *v = argv[i];
        int bad = 0;
        switch (opt[1]) {
        case 'q':
            o->log.quiet = 1;
            i--;
            break;
        case 'v':
            bad = *v ? gs_cli_parse_int(v, &p->nr_fold) : (p->nr_fold = 0, 0);
            if (bad) break;
            p->cross_validation = 1;
            if (p->nr_fold < 2) {
                fprintf(stderr, "n-fold cross validation: n must >= 2\n");
                return usage_exit();
            }
            break;
        default:
            switch (gs_cli_train_letter(opt, v, p)) {
            case GS_CLI_BAD_VALUE: bad = 1; break;
            case GS_CLI_WEIGHT: fprintf(stderr, "%s\n", gs_last_error()); return 1;
            case GS_CLI_UNKNOWN: fprintf(stderr, "Unknown option: -%c\n", opt[1]); return usage_exit();
            default: break;
            }
        }
        if (bad) {
            fprintf(stderr, "Incorrect parameter: %s %s\n", opt, v);
            return 1;
        }
    }
    if (i >= argc) return usage_exit();
    o->train_file = argv[i];
    if (i + 1 < argc) {
        o->model_file = strdup(argv[i + 1]);
    } else {
        /* basename + ".model", in the current directory; standard input gives "stdin.model"
         * ("-.model" would read as an option to the next command) */
        const char *slash = strrchr(o->train_file, '/');
        const char *base = strcmp(o->train_file, "-") == 0 ? "stdin" : slash ? slash + 1 : o->train_file;
        const size_t n = strlen(base);
        o->model_file = malloc(n + sizeof ".model");
        if (o->model_file) {
            memcpy(o->model_file, base, n);
            memcpy(o->model_file + n, ".model", sizeof ".model");
        }
    }
    if (!o->model_file) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    return KEEP_GOING;
}

static void print_stats(const gs_log *log, const gs_train_stats *s)
{
    gs_log_verbose(log, "gpusvm: %ld iterations, %ld inner steps, duality gap %g\n", s->iterations,
                   s->inner_steps, s->duality_gap);
    gs_log_verbose(log,
                   "gpusvm: seconds: cluster %.3f setup %.3f update %.3f select %.3f rows %.3f "
                   "subproblem %.3f transfer %.3f other %.3f total %.3f\n",
                   s->cluster, s->setup, s->update, s->select, s->rows, s->subproblem, s->transfer,
                   s->other, s->total);
    if (s->overlap > 0)
        gs_log_verbose(log, "gpusvm: of which device work done while the host solved (split rounds): %.3f s\n",
                       s->overlap);
    /* machine-readable lines for scripts/bench */
    gs_log_verbose(log, "time.cluster = %.6f\ntime.setup = %.6f\ntime.update = %.6f\ntime.selection = %.6f\n"
                   "time.subproblem = %.6f\ntime.transfers = %.6f\ntime.other = %.6f\n",
                   s->cluster, s->setup, s->update + s->rows, s->select, s->subproblem, s->transfer, s->other);
    const double kt = s->update + s->rows;
    if (kt > 0 && s->update_bytes > 0) {
        const double gbps = s->update_bytes * 1e-9 / kt;
        gs_log_verbose(log, "update_gbps = %.1f\n", gbps);
        if (s->peak_gbps > 0)
            gs_log_verbose(log, "peak_gbps = %.0f\ngpusvm: row and update kernels: %.1f GB/s, %.0f%% of the "
                           "device's %.0f GB/s\n", s->peak_gbps, gbps, 100 * gbps / s->peak_gbps, s->peak_gbps);
    }
}

int main(int argc, char **argv)
{
    const int helper = gs_cli_build_helper(argc, argv); /* a build helper: nothing else */
    if (helper >= 0) return helper;
    train_opts o;
    memset(&o, 0, sizeof o);
    gs_param_init(&o.param);
    gs_tuning_from_env(&o.param.tuning);
    gs_cli_driver_env(&o.param.tuning); /* before any thread and any OpenCL call */
    gs_problem prob = {0};
    gs_model model = {0};
    gs_train_stats stats;
    memset(&stats, 0, sizeof stats);
    device_job job;
    memset(&job, 0, sizeof job);
    pthread_t thread, release;
    int thread_started = 0, release_started = 0;
    int rc = parse_args(argc, argv, &o);
    if (rc != KEEP_GOING) goto cleanup;
    rc = 1;

    const double t0 = gs_now();
    job.spec = o.device;
    job.mem_cap = o.param.device_memory > 0 ? (cl_ulong)o.param.device_memory << 20 : 0;
    /* --verbose splits device time per kernel, which needs a profiling queue (unless
     * GPUSVM_PROFILE says otherwise) */
    if (o.log.verbose && o.param.tuning.profile == GS_TUNE_AUTO) o.param.tuning.profile = 1;
    job.tuning = &o.param.tuning;
    if (pthread_create(&thread, NULL, device_open_thread, &job) == 0) {
        thread_started = 1;
    } else {
        device_open_thread(&job); /* no thread: open it here, just slower */
    }

    const gs_data_opts ro = {.inflate_threads = o.param.tuning.inflate_threads};
    if (gs_data_read_with(o.train_file, &ro, &prob) != GS_OK) {
        fprintf(stderr, "%s\n", gs_last_error());
        goto cleanup;
    }
    const double t_read = gs_now() - t0;
    if (o.param.gamma == 0 && prob.max_index > 0) o.param.gamma = 1.0 / prob.max_index;
    /* svm-train checks the serial numbers while reading, so before the parameters */
    const char *bad_id = o.param.kernel_type == GS_KERNEL_PRECOMPUTED ? gs_precomputed_check(&prob) : NULL;
    if (bad_id) {
        fprintf(stderr, "%s\n", bad_id);
        goto cleanup;
    }

    const char *msg = gs_param_check(&o.param, &prob);
    if (msg) {
        fprintf(stderr, "ERROR: %s\n", msg);
        goto cleanup;
    }

    gs_log_verbose(&o.log, "gpusvm: read %d rows, %d features, %lld stored values in %.3f s\n",
                   (int)prob.l, (int)prob.max_index, (long long)prob.nnz, t_read);
    /* The trainer waits for the device only after clustering, and never for problems that need
     * none (an empty file, one class), which still get LIBSVM's degenerate model. */
    device_wait dw = {.job = &job, .thread = &thread, .thread_started = &thread_started, .log = &o.log, .t0 = t0};
    const gs_device_provider provider = {.wait = device_wait_fn, .ctx = &dw, .all = device_all_fn};
    if (o.param.cross_validation) {
        /* LIBSVM's -v: the folds' training lines, then the result lines on stdout even with -q; no
         * model file */
        double *target = malloc(sizeof *target * (size_t)(prob.l ? prob.l : 1));
        const gs_status cst = target ? gs_cross_validation(&provider, &prob, &o.param, o.param.nr_fold, &o.log, target)
                                     : GS_FAIL(GS_ERR_NOMEM, "out of memory");
        print_cache(&o.log, &job, thread_started);
        if (cst == GS_OK) gs_cross_validation_print(&prob, &o.param, target);
        else fprintf(stderr, "%s\n", gs_last_error());
        free(target);
        rc = cst == GS_OK ? 0 : 1;
        goto cleanup;
    }
    const gs_status st = o.param.multiclass == GS_MC_CS
                             ? gs_cs_train(&provider, &prob, &o.param, &o.log, &model, &stats)
                             : gs_svm_train(&provider, &prob, &o.param, &o.log, &model, &stats);
    if (st != GS_OK) {
        fprintf(stderr, "%s\n", gs_last_error());
        goto cleanup;
    }
    if (o.log.verbose) {
        print_stats(&o.log, &stats);
        print_cache(&o.log, &job, thread_started);
        if (stats.t_on_device > 0) {
            const double ready = stats.t_model_ready > 0 ? stats.t_model_ready : gs_now();
            gs_log_verbose(&o.log, "gpusvm: training (data on the device -> model ready) %.4f s, "
                           "from %.3f s to %.3f s\ntime.on_device = %.6f\n", ready - stats.t_on_device,
                           stats.t_on_device - t0, ready - t0, ready - stats.t_on_device);
        }
    }
    /* the devices are done with: released beside the writing, unless --fast-exit leaves it to a
     * child after it */
    if (thread_started) pthread_join(thread, NULL);
    thread_started = 0;
    if (!gs_exit_fast_wanted(&o.param.tuning))
        release_started = pthread_create(&release, NULL, devset_close_thread, &job.set) == 0;
    const double t_write = gs_now();
    if (gs_model_write(o.model_file, &model) != GS_OK) {
        /* LIBSVM's exact text; the library's detail only with --verbose. */
        fprintf(stderr, "can't save model to file %s\n", o.model_file);
        gs_log_verbose(&o.log, "gpusvm: %s\n", gs_last_error());
        goto cleanup;
    }
    gs_log_verbose(&o.log, "gpusvm: model written after %.3f s (writing %.3f s)\n", gs_now() - t0,
                   gs_now() - t_write);
    rc = 0;
    /* The model is written and renamed; --fast-exit leaves the driver's teardown (~0.14 s on an
     * H100) to a child. By default the device is released below, before the exit. */
    if (gs_exit_fast_wanted(&o.param.tuning)) gs_exit_fast(0);

cleanup:
    if (thread_started) pthread_join(thread, NULL);
    if (release_started) pthread_join(release, NULL);
    else gs_devset_close(&job.set); /* fine on a zeroed or failed set */
    gs_model_free(&model);
    gs_problem_free(&prob);
    gs_param_free(&o.param);
    free(o.model_file);
    return rc;
}
