/* cv.c — see cv.h. The folds are drawn exactly as LIBSVM draws them (the same rand() calls in the
 * same order), so the same rows are held out together and each fold's model is LIBSVM's up to the
 * solver's tolerance. Held-out rows are predicted on the device (predict/predictor.h: decision
 * values with error bounds, or LIBSVM's bits on its exact paths); a row whose answer the bounds
 * cannot fix is predicted on the CPU with LIBSVM's arithmetic (gs_pred_cpu_dec), on a few
 * threads, as are all rows when there is no device. */
#include "train/cv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/classes.h"
#include "predict/predictor.h"
#include "predict/probability.h"
#include "util/parallel.h"

/* perm[l]: the rows in fold order; fold f is perm[start[f] .. start[f+1]). */
static gs_status make_folds(const gs_problem *prob, const gs_param *param, int nr_fold, gs_glibc_rand *g, int *perm,
                            int *start)
{
    const int l = prob->l;
    const int stratified = (param->svm_type == GS_C_SVC || param->svm_type == GS_NU_SVC) && nr_fold < l;
    if (!stratified) {
        for (int i = 0; i < l; i++) perm[i] = i;
        gs_glibc_rand_shuffle(g, perm, l);
        for (int f = 0; f <= nr_fold; f++) start[f] = (int)((int64_t)f * l / nr_fold);
        return GS_OK;
    }
    gs_classes cls = {0};
    gs_status st = gs_classes_group(prob, &cls);
    if (st != GS_OK) return st;
    int *index = malloc(sizeof *index * (size_t)l), *fill = malloc(sizeof *fill * (size_t)nr_fold);
    if (!index || !fill) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for the folds"); goto cleanup; }
    memcpy(index, cls.order, sizeof *index * (size_t)l);
    /* a shuffle within each class, classes in LIBSVM's order */
    for (int c = 0; c < cls.k; c++) gs_glibc_rand_shuffle(g, index + cls.start[c], cls.count[c]);
    /* fold f takes [f n_c / nr_fold, (f+1) n_c / nr_fold) of every class, classes in order */
    start[0] = 0;
    for (int f = 0; f < nr_fold; f++) {
        int n = 0;
        for (int c = 0; c < cls.k; c++)
            n += (int)((int64_t)(f + 1) * cls.count[c] / nr_fold - (int64_t)f * cls.count[c] / nr_fold);
        start[f + 1] = start[f] + n;
        fill[f] = start[f];
    }
    for (int c = 0; c < cls.k; c++)
        for (int f = 0; f < nr_fold; f++) {
            const int b = cls.start[c] + (int)((int64_t)f * cls.count[c] / nr_fold);
            const int e = cls.start[c] + (int)((int64_t)(f + 1) * cls.count[c] / nr_fold);
            for (int j = b; j < e; j++) perm[fill[f]++] = index[j];
        }
cleanup:
    free(index);
    free(fill);
    gs_classes_free(&cls);
    return st;
}

/* The held-out rows' decision values or predictions, split over threads. */
typedef struct pred_job {
    const gs_model *m;
    const gs_rows *rows;
    const int *perm;    /* held-out row r of rows is perm[r] of the problem */
    double *dec_out;    /* non-NULL: row r's decision values go to dec_out[r * n_dec ..] */
    double *target;     /* else the prediction goes to target[perm[r]] */
    int use_prob;       /* predict as svm_predict_probability (m has probA and probB) */
    const double *ddec; /* NULL, or the device's decision values of every row (row r at r * n_dec) */
    const uint8_t *dok; /* with ddec: row r's device values give its answer (else the CPU's) */
    int exceeded;       /* out: rows whose probability coupling hit its iteration cap */
    int t, nt;
    gs_status st;
} pred_job;

static void *pred_rows(void *arg)
{
    pred_job *j = arg;
    const int nd = gs_pred_n_dec(j->m), k = j->m->nr_class > 0 ? j->m->nr_class : 1;
    double *dec = malloc(sizeof *dec * (size_t)(nd ? nd : 1));
    int *votes = malloc(sizeof *votes * (size_t)k);
    double *p = NULL, *work = NULL;
    if (j->use_prob) {
        p = malloc(sizeof *p * (size_t)k);
        work = malloc(sizeof *work * (size_t)gs_prob_work_size(k));
    }
    j->st = GS_OK;
    if (!dec || !votes || (j->use_prob && (!p || !work))) { j->st = GS_ERR_NOMEM; goto cleanup; }
    for (int32_t r = j->t; r < j->rows->l; r += j->nt) {
        double *d = j->dec_out ? j->dec_out + (size_t)r * (size_t)nd : dec;
        if (j->dok && j->dok[r]) memcpy(d, j->ddec + (size_t)r * (size_t)nd, sizeof *d * (size_t)nd);
        else if ((j->st = gs_pred_cpu_dec(j->m, j->rows, r, d))) break;
        if (j->dec_out) continue;
        if (j->use_prob) {
            int over = 0;
            j->target[j->perm[r]] = j->m->label[gs_prob_classify(k, d, j->m->probA, j->m->probB, p, work, &over)];
            j->exceeded += over;
        } else {
            j->target[j->perm[r]] = gs_pred_outcome(j->m, d, votes);
        }
    }
cleanup:
    free(dec); free(votes); free(p); free(work);
    return NULL;
}

/* The device for the held-out rows: the trainer's (dev), NULL when there is none. */
typedef struct cv_device {
    const gs_device_provider *dev;
    const gs_tuning *tuning;
    const gs_log *log;      /* --verbose: each fold's split between the device and the CPU */
    double min_work;        /* fold_on_device's threshold (0: CV_DEVICE_MIN_WORK); predict_jobs sets it */
} cv_device;

/* Whether a row's device values (dec, bounds err) give the answer job wants: LIBSVM's bits (every
 * bound 0), or, for a plain label, every decision value's sign (the votes, one-class's side). */
static int device_row_ok(const pred_job *job, const double *dec, const double *err, int nd)
{
    int exact = 1;
    for (int q = 0; q < nd; q++) exact &= err[q] == 0;
    if (exact) return 1;
    if (job->dec_out || job->use_prob || job->m->svm_type == GS_CS_SVC || job->m->svm_type == GS_EPSILON_SVR ||
        job->m->svm_type == GS_NU_SVR)
        return 0;
    for (int q = 0; q < nd; q++)
        if (!(fabs(dec[q]) > err[q])) return 0; /* NaN and infinite bounds too */
    return 1;
}

/* device_row_ok of rows [r0, r1) into dok, by ranges of OK_ROWS on threads from OK_PAR values on
 * (letter's -v 5: 3,000 held-out rows x 325 values a fold). */
#define OK_ROWS 256
#define OK_PAR 262144.0
typedef struct rows_ok_job {
    const pred_job *job;
    const double *ddec, *err;
    int nd;
    uint8_t *dok;
} rows_ok_job;

static gs_status rows_ok(void *ctx, int64_t r0, int64_t r1)
{
    const rows_ok_job *j = ctx;
    for (int64_t r = r0; r < r1; r++)
        j->dok[r] = (uint8_t)device_row_ok(j->job, j->ddec + (size_t)r * j->nd, j->err + (size_t)r * j->nd, j->nd);
    return GS_OK;
}

/* Below this many multiply-adds (held-out rows x the model's stored SV values) the CPU answers
 * sooner than a predictor is set up on the device (layout, upload, buffers: milliseconds on a
 * GPU): heart_scale's folds (54 rows, ~150 SVs) on the device made svm-grid's default grid twice
 * as slow on an H200; a9a's (6,512 rows, ~11,000 SVs) are 10^9. On a GPU (H100) a fold costs the
 * device about 1 ms (letter's -b 1 folds) to 2 ms (mnist10k's), and the CPU about 4 ns a
 * multiply-add over the few threads a fold's rows get: mnist10k's -b 1 folds (3.6e7) took 20 ms
 * each there, letter's (5.5e5) 0.2 ms; GPUs take folds from CV_DEVICE_MIN_WORK_GPU on. A CPU
 * device (PoCL) runs on the same cores as the host's loops, so it keeps the larger threshold. */
#define CV_DEVICE_MIN_WORK 5e7
#define CV_DEVICE_MIN_WORK_GPU 4e6

/* Whether n held-out rows of job's model go to the device: not without one, without SVs or
 * decision values, for a precomputed kernel, or below cd's threshold (GPUSVM_CV_DEVICE forces). */
static int fold_on_device(const cv_device *cd, const pred_job *job, int32_t n)
{
    const gs_model *m = job->m;
    const int force = cd && cd->tuning ? cd->tuning->cv_device : GS_TUNE_AUTO;
    const double min_work = cd && cd->min_work > 0 ? cd->min_work : CV_DEVICE_MIN_WORK;
    return cd && cd->dev && n > 0 && m->l > 0 && gs_pred_n_dec(m) > 0 && m->kernel_type != GS_KERNEL_PRECOMPUTED &&
           force != 0 && (force == 1 || (double)n * (double)(m->sv_ptr[m->l] + m->l) >= min_work);
}

/* job's model's predictor (its SV layout, host work only): LIBSVM's bits where every value counts
 * (regression, probabilities, -b 1's decision values). */
static gs_status fold_predictor(const cv_device *cd, const pred_job *job, gs_predictor **out)
{
    const gs_model *m = job->m;
    gs_status st = gs_predictor_create(m, cd->tuning, out);
    if (st == GS_OK)
        gs_predictor_host_exact(*out, job->dec_out || job->use_prob || m->svm_type == GS_EPSILON_SVR ||
                                          m->svm_type == GS_NU_SVR);
    return st;
}

/* The held-out rows on the device into ddec, dok[r] set where device_row_ok; *used 0 (nothing
 * set) when fold_on_device says no. pre: job's predictor made already (fold_predictor; taken
 * over and freed here) or NULL. */
static gs_status device_fold(const cv_device *cd, const gs_rows *rows, const pred_job *job, gs_predictor *pre,
                             double *ddec, uint8_t *dok, int *used)
{
    const gs_model *m = job->m;
    const int nd = gs_pred_n_dec(m);
    gs_status st = GS_OK;
    gs_predictor *p = pre;
    gs_pred_program prg = {0};
    double *err = NULL;
    gs_ocl *ocl = NULL;
    *used = 0;
    if (!fold_on_device(cd, job, rows->l)) goto cleanup;
    if (!(ocl = cd->dev->wait(cd->dev->ctx))) goto cleanup; /* the trainer had it: not reached; the CPU answers */
    if (!(err = malloc(sizeof *err * (size_t)rows->l * (size_t)nd))) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    const double t0 = gs_now();
    if (!p && (st = fold_predictor(cd, job, &p))) goto cleanup;
    double tm[3];
    if ((st = gs_pred_program_build(ocl, &prg))) goto cleanup;
    tm[0] = gs_now();
    if ((st = gs_predictor_attach(p, ocl, &prg))) goto cleanup;
    tm[1] = gs_now();
    if ((st = gs_predictor_start(p, rows)) || (st = gs_predictor_finish(p, ddec, err))) goto cleanup;
    tm[2] = gs_now();
    const gs_pred_times pt = gs_predictor_times(p);
    rows_ok_job rj = {.job = job, .ddec = ddec, .err = err, .nd = nd, .dok = dok};
    const int nt = (double)rows->l * nd >= OK_PAR ? gs_cpu_threads(16) : 1;
    if ((st = gs_parallel_ranges(rows->l, OK_ROWS, nt, rows_ok, &rj))) goto cleanup;
    int32_t redo = 0;
    for (int32_t r = 0; r < rows->l; r++) redo += !dok[r];
    gs_log_verbose(cd->log,
                   "gpusvm: %d held-out rows on the device, %d of them again on the CPU (layout and program "
                   "%.4f s, upload %.4f s, values %.4f s, of which buffers %.4f s, waiting for the device %.4f s%s)\n",
                   rows->l, redo, tm[0] - t0, tm[1] - tm[0], tm[2] - tm[1], pt.alloc, pt.wait,
                   pt.coded ? "; 16-bit distances" : "");
    *used = 1;
cleanup:
    gs_predictor_free(p);
    gs_pred_program_release(&prg);
    free(err);
    return st;
}

/* Runs job over the held-out rows perm[0..n) of prob: on the device (cd, may be NULL), then the
 * rows it cannot answer on a few threads (every job field but rows, t, nt, ddec and dok set by the
 * caller); *exceeded sums the jobs' counts. */
static gs_status predict_fold(const cv_device *cd, const gs_problem *prob, const int *perm, int n, pred_job job,
                              gs_predictor *pre, int max_threads, int *exceeded)
{
    gs_rows rows = {0};
    gs_status st = GS_OK;
    double *ddec = NULL;
    uint8_t *dok = NULL;
    int64_t nnz = 0;
    const double tf0 = gs_now();
    double tf1 = tf0, tf2 = tf0;
    for (int i = 0; i < n; i++) nnz += prob->row_ptr[perm[i] + 1] - prob->row_ptr[perm[i]];
    rows.row_ptr = malloc(sizeof *rows.row_ptr * ((size_t)n + 1));
    rows.idx = malloc(sizeof *rows.idx * (size_t)(nnz ? nnz : 1));
    rows.val = malloc(sizeof *rows.val * (size_t)(nnz ? nnz : 1));
    rows.y = calloc((size_t)(n ? n : 1), sizeof *rows.y);
    if (!rows.row_ptr || !rows.idx || !rows.val || !rows.y) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
    int64_t o = 0;
    rows.row_ptr[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int64_t k = prob->row_ptr[perm[i]]; k < prob->row_ptr[perm[i] + 1]; k++, o++) {
            rows.idx[o] = prob->idx[k];
            rows.val[o] = prob->val[k];
        }
        rows.row_ptr[i + 1] = o;
    }
    rows.l = n;
    {
        const size_t nd = (size_t)gs_pred_n_dec(job.m);
        int used = 0;
        ddec = malloc(sizeof *ddec * (size_t)(n ? n : 1) * (nd ? nd : 1));
        dok = malloc((size_t)(n ? n : 1));
        if (!ddec || !dok) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
        tf1 = gs_now();
        st = device_fold(cd, &rows, &job, pre, ddec, dok, &used);
        tf2 = gs_now();
        pre = NULL; /* device_fold's now */
        if (st) goto cleanup;
        if (used) { job.ddec = ddec; job.dok = dok; }
    }
    int nt = max_threads;
    if (nt > n / 64 + 1) nt = n / 64 + 1;
    pred_job jobs[16];
    job.rows = &rows;
    job.perm = perm;
    job.exceeded = 0;
    for (int t = 0; t < nt; t++) {
        jobs[t] = job;
        jobs[t].t = t;
        jobs[t].nt = nt;
    }
    const double t0 = gs_now();
    gs_parallel_run(jobs, sizeof jobs[0], nt, pred_rows);
    if (!job.ddec && cd)
        gs_log_verbose(cd->log, "gpusvm: %d held-out rows on the CPU (%d thread(s)) in %.4f s\n", n, nt, gs_now() - t0);
    else if (cd)
        gs_log_verbose(cd->log, "gpusvm: held-out fold: rows copied %.4f s, device %.4f s, answers on %d thread(s) %.4f s\n",
                       tf1 - tf0, tf2 - tf1, nt, gs_now() - t0);
    for (int t = 0; t < nt; t++) *exceeded += jobs[t].exceeded;
    for (int t = 0; t < nt && st == GS_OK; t++)
        if (jobs[t].st != GS_OK) st = jobs[t].st == GS_ERR_NOMEM ? GS_FAIL(GS_ERR_NOMEM, "out of memory") : jobs[t].st;
cleanup:
    gs_predictor_free(pre);
    free(rows.row_ptr); free(rows.idx); free(rows.val); free(rows.y);
    free(ddec); free(dok);
    return st;
}

/* SV values whose predictor layouts predict_folds makes at once, at most (one fold's at least). */
#define CV_LAYOUT_VALUES (1 << 24)

/* One fold's predictor layout, made on a helper thread (predict_folds): p stays NULL when the fold
 * is predicted on the CPU or making it failed (device_fold then makes it, and reports the error). */
typedef struct layout_job {
    const cv_device *cd;
    pred_job job;
    const int *rows;     /* its held-out rows of the problem */
    int32_t n;
    gs_predictor *p;
    int cpu;             /* predict_jobs: on the CPU (fold_on_device says no) */
} layout_job;

static void *layout_thread(void *arg)
{
    layout_job *j = arg;
    if (fold_on_device(j->cd, &j->job, j->n) && fold_predictor(j->cd, &j->job, &j->p) != GS_OK) j->p = NULL;
    return NULL;
}

/* The CPU's jobs of lj[0..nall) (cpu set, ncpu of them) all at once: a share of the threads each
 * (letter's 1625 -b 1 folds of ~230 rows took 0.34 s one after another, 4 threads each). */
typedef struct cpu_share {
    const cv_device *cd;
    const gs_problem *prob;
    const layout_job *lj;
    int per;             /* threads each job gets */
} cpu_share;

static gs_status cpu_item(void *ctx, int i)
{
    const cpu_share *w = ctx;
    const layout_job *j = &w->lj[i];
    int exceeded = 0;
    return j->cpu ? predict_fold(w->cd, w->prob, j->rows, j->n, j->job, NULL, w->per, &exceeded) : GS_OK;
}

static gs_status cpu_jobs(const cv_device *cd, const gs_problem *prob, const layout_job *lj, int nall, int ncpu)
{
    const int cores = gs_cpu_threads(16), nw = ncpu < cores ? ncpu : cores;
    cpu_share w = {.cd = cd, .prob = prob, .lj = lj, .per = cores / nw};
    return gs_parallel_items(nall, nw, cpu_item, &w);
}

/* The jobs lj[0..nall) (each a model, its held-out rows and where their answers go) predicted
 * as predict_fold does, the predictors' SV layouts, host work, made on threads for up to 16
 * models and CV_LAYOUT_VALUES SV values at a time (mnist10k's five folds: 37 ms each, one after
 * another before). */
static gs_status predict_jobs(const cv_device *cd0, const gs_problem *prob, layout_job *lj, int nall)
{
    gs_status st = GS_OK;
    /* a GPU takes smaller folds: asked once any fold is big enough for one (the trainer opened it) */
    cv_device here = cd0 ? *cd0 : (cv_device){0};
    const cv_device *cd = cd0 ? &here : NULL;
    here.min_work = CV_DEVICE_MIN_WORK_GPU;
    int any = 0;
    for (int i = 0; i < nall && cd && !any; i++) any = fold_on_device(cd, &lj[i].job, lj[i].n);
    gs_ocl *o = any ? cd->dev->wait(cd->dev->ctx) : NULL;
    here.min_work = o && (o->device_type & CL_DEVICE_TYPE_GPU) ? CV_DEVICE_MIN_WORK_GPU : CV_DEVICE_MIN_WORK;
    int ncpu = 0;
    for (int i = 0; i < nall; i++) {
        lj[i].cd = cd;
        ncpu += lj[i].cpu = !fold_on_device(cd, &lj[i].job, lj[i].n);
    }
    if (ncpu > 0 && (st = cpu_jobs(cd, prob, lj, nall, ncpu))) return st;
    for (int g0 = 0; g0 < nall && st == GS_OK;) {
        int g1 = g0;
        double vals = 0;
        while (g1 < nall && g1 - g0 < 16) {
            const gs_model *m = lj[g1].job.m;
            const double v = (double)(m->l > 0 ? m->sv_ptr[m->l] + m->l : 0);
            if (g1 > g0 && vals + v > CV_LAYOUT_VALUES) break;
            vals += v;
            g1++;
        }
        const double tl = gs_now();
        gs_parallel_run(lj + g0, sizeof *lj, g1 - g0, layout_thread);
        if (cd) gs_log_verbose(cd->log, "gpusvm: %d held-out predictors' layouts on threads %.4f s\n", g1 - g0, gs_now() - tl);
        for (int i = g0; i < g1 && st == GS_OK; i++) {
            int exceeded = 0;
            if (lj[i].cpu) continue; /* answered above */
            st = predict_fold(cd, prob, lj[i].rows, lj[i].n, lj[i].job, lj[i].p, gs_cpu_threads(16), &exceeded);
            lj[i].p = NULL;
        }
        g0 = g1;
    }
    for (int i = 0; i < nall; i++) gs_predictor_free(lj[i].p);
    return st;
}

/* The held-out rows of nr_fold folds x nm models (models[c * nr_fold + f]; model c's predictions
 * into target + c * l), through predict_jobs. */
static gs_status predict_folds(const cv_device *cd, const gs_problem *prob, const int *perm, const int *start,
                               int nr_fold, const gs_model *models, int nm, double *target)
{
    const int nall = nr_fold * nm;
    layout_job *lj = calloc((size_t)nall, sizeof *lj);
    if (!lj) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < nall; i++) {
        const int c = i / nr_fold, f = i % nr_fold;
        lj[i] = (layout_job){.cd = cd, .job = {.m = &models[i], .target = target + (size_t)c * (size_t)prob->l},
                             .rows = perm + start[f], .n = start[f + 1] - start[f]};
    }
    const gs_status st = predict_jobs(cd, prob, lj, nall);
    free(lj);
    return st;
}

gs_status gs_cross_validation_dec_many(const gs_device_provider *dev, const gs_tuning *tuning, const gs_problem *prob,
                                       const gs_cv_dec_item *items, int n, const gs_log *log)
{
    const cv_device cd = {.dev = dev, .tuning = tuning, .log = log};
    layout_job *lj = calloc((size_t)(n > 0 ? n : 1), sizeof *lj);
    if (!lj) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++)
        lj[i] = (layout_job){.cd = dev ? &cd : NULL, .job = {.m = items[i].m, .dec_out = items[i].dec},
                             .rows = items[i].rows, .n = items[i].n};
    const gs_status st = predict_jobs(dev ? &cd : NULL, prob, lj, n);
    free(lj);
    return st;
}

gs_status gs_cross_validation_dec(const gs_device_provider *dev, const gs_tuning *tuning, const gs_model *m,
                                  const gs_problem *prob, const int *rows, int n, const gs_log *log, double *dec)
{
    const gs_cv_dec_item item = {.m = m, .rows = rows, .n = n, .dec = dec};
    return gs_cross_validation_dec_many(dev, tuning, prob, &item, 1, log);
}

/* The folds' trainings, their folds drawn from rng: with C == NULL one gs_svm_train_rand per fold
 * (every SVM type, -b 1 included), else one gs_svm_train_c_values per fold for the nc C values
 * (C-SVC without -b 1), target holding nc rows of l. */
static gs_status cross_validate(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                                int nr_fold, const double *C, int nc, gs_glibc_rand *rng, const gs_log *log,
                                double *target)
{
    const int l = prob->l;
    if (l == 0) /* LIBSVM divides by zero here (SIGFPE, golden badinput/train_empty_cv) */
        return GS_FAIL(GS_ERR_ARG, "cross validation needs training data: the training set is empty");
    if (nr_fold > l) {
        fprintf(stderr, "WARNING: # folds > # data. Will use # folds = # data instead (i.e., leave-one-out cross "
                        "validation)\n");
        nr_fold = l;
    }
    const int nm = C ? nc : 1;
    const cv_device cd = {.dev = dev, .tuning = &param->tuning, .log = log};
    gs_status st = GS_OK;
    int *perm = malloc(sizeof *perm * (size_t)(l ? l : 1)), *start = malloc(sizeof *start * ((size_t)nr_fold + 1));
    int *train_rows = malloc(sizeof *train_rows * (size_t)(l ? l : 1));
    gs_problem sub = {0};
    gs_model *m = calloc((size_t)nm, sizeof *m);
    gs_model *models = NULL;
    if (!perm || !start || !train_rows || !m) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d folds", nr_fold); goto cleanup; }
    if ((st = make_folds(prob, param, nr_fold, rng, perm, start))) goto cleanup;
    /* svm_cross_validation predicts with svm_predict_probability for a probability classifier */
    const int classify_prob = param->probability && (param->svm_type == GS_C_SVC || param->svm_type == GS_NU_SVC);
    /* without -b 1: every fold (at every C value) over one upload (trainer.h gs_svm_train_folds);
     * else, or for non-finite values, fold by fold on its own rows */
    if (!param->probability) {
        if (!(models = calloc((size_t)nr_fold * (size_t)nm, sizeof *models))) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
        const double t0 = gs_now();
        st = gs_svm_train_folds(dev, prob, param, C, nc, log, nr_fold, perm, start, models);
        const double t1 = gs_now();
        if (st == GS_OK) {
            st = predict_folds(&cd, prob, perm, start, nr_fold, models, nm, target);
            gs_log_verbose(log, "gpusvm: cross validation: %d fold(s) x %d C value(s) trained in %.4f s, held-out "
                           "rows predicted in %.4f s\n", nr_fold, nm, t1 - t0, gs_now() - t1);
            goto cleanup;
        }
        if (st != GS_ERR_UNSUPPORTED) goto cleanup;
        st = GS_OK;
    }
    for (int f = 0; f < nr_fold; f++) {
        const int b = start[f], e = start[f + 1];
        int n = 0;
        for (int j = 0; j < b; j++) train_rows[n++] = perm[j];
        for (int j = e; j < l; j++) train_rows[n++] = perm[j];
        if ((st = gs_problem_subset(prob, train_rows, n, &sub))) goto cleanup;
        st = C ? gs_svm_train_c_values(dev, &sub, param, C, nc, log, m, NULL)
               : gs_svm_train_rand(dev, &sub, param, rng, log, m, NULL);
        for (int c = 0; c < nm && st == GS_OK; c++) {
            const pred_job job = {.m = &m[c], .target = target + (size_t)c * (size_t)l,
                                  .use_prob = classify_prob && m[c].nr_class >= 2 && m[c].probA && m[c].probB};
            int exceeded = 0;
            st = predict_fold(&cd, prob, perm + b, e - b, job, NULL, gs_cpu_threads(16), &exceeded);
            for (int x = 0; x < exceeded; x++) gs_log_info(log, "Exceeds max_iter in multiclass_prob\n");
        }
        for (int c = 0; c < nm; c++) gs_model_free(&m[c]);
        gs_problem_free(&sub);
        if (st != GS_OK) goto cleanup;
    }
cleanup:
    if (models)
        for (int f = 0; f < nr_fold * nm; f++) gs_model_free(&models[f]);
    free(models);
    gs_problem_free(&sub);
    free(m);
    free(perm); free(start); free(train_rows);
    return st;
}

gs_status gs_cross_validation(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                              int nr_fold, const gs_log *log, double *target)
{
    gs_glibc_rand rng;
    gs_glibc_rand_init(&rng, 1);
    return cross_validate(dev, prob, param, nr_fold, NULL, 1, &rng, log, target);
}

gs_status gs_cross_validation_rand(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                                   int nr_fold, gs_glibc_rand *rng, const gs_log *log, double *target)
{
    return cross_validate(dev, prob, param, nr_fold, NULL, 1, rng, log, target);
}

gs_status gs_cross_validation_c_values(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                                       int nr_fold, const double *C, int nc, const gs_log *log, double *target)
{
    if (param->svm_type != GS_C_SVC || param->probability)
        return GS_FAIL(GS_ERR_UNSUPPORTED, "several C values at once are for C-SVC without -b 1 only");
    gs_glibc_rand rng;
    gs_glibc_rand_init(&rng, 1);
    return cross_validate(dev, prob, param, nr_fold, C, nc, &rng, log, target);
}

void gs_cross_validation_print(const gs_problem *prob, const gs_param *param, const double *target)
{
    const int l = prob->l;
    if (param->svm_type == GS_EPSILON_SVR || param->svm_type == GS_NU_SVR) {
        double err = 0, sv = 0, sy = 0, svv = 0, syy = 0, svy = 0;
        for (int i = 0; i < l; i++) {
            const double y = prob->y[i], v = target[i];
            err += (v - y) * (v - y);
            sv += v; sy += y; svv += v * v; syy += y * y; svy += v * y;
        }
        printf("Cross Validation Mean squared error = %g\n", err / l);
        printf("Cross Validation Squared correlation coefficient = %g\n",
               ((l * svy - sv * sy) * (l * svy - sv * sy)) / ((l * svv - sv * sv) * (l * syy - sy * sy)));
    } else {
        int correct = 0;
        for (int i = 0; i < l; i++)
            if (target[i] == prob->y[i]) correct++;
        printf("Cross Validation Accuracy = %g%%\n", 100.0 * correct / l);
    }
}
