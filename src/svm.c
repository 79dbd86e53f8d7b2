/* svm.c — gs_svm_train: LIBSVM's classification driver around the device solver. Classes are
 * grouped by (int)label in first-appearance order (a -1/+1 pair is stored as "1 -1"), each
 * one-vs-one pair (i,j) is solved with class i as +1 and class j as -1 and C_i = C*w_i, and the
 * model takes LIBSVM's layout (SVs grouped by class, coefficient column j-1 for class i and i for
 * class j). Prints LIBSVM's per-pair lines and "Total nSV". */
#include "svm.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "solver.h"

/* Class grouping: label[k] per class, count[k], and for every row its class. */
typedef struct classes {
    int k;
    int *label, *count, *start, *of_row, *order; /* order: rows grouped by class, file order kept */
} classes;

static void classes_free(classes *c)
{
    free(c->label); free(c->count); free(c->start); free(c->of_row); free(c->order);
    memset(c, 0, sizeof *c);
}

static gs_status group_classes(const gs_problem *prob, classes *c)
{
    const int l = prob->l;
    int cap = 16;
    memset(c, 0, sizeof *c);
    c->label = malloc(sizeof(int) * (size_t)cap);
    c->count = malloc(sizeof(int) * (size_t)cap);
    c->of_row = malloc(sizeof(int) * (size_t)(l ? l : 1));
    c->order = malloc(sizeof(int) * (size_t)(l ? l : 1));
    if (!c->label || !c->count || !c->of_row || !c->order) goto nomem;
    for (int i = 0; i < l; i++) {
        const int lab = (int)prob->y[i];
        int j = 0;
        while (j < c->k && c->label[j] != lab) j++;
        if (j == c->k) {
            if (c->k == cap) {
                cap *= 2;
                int *a = realloc(c->label, sizeof(int) * (size_t)cap);
                if (!a) goto nomem;
                c->label = a;
                int *b = realloc(c->count, sizeof(int) * (size_t)cap);
                if (!b) goto nomem;
                c->count = b;
            }
            c->label[c->k] = lab;
            c->count[c->k] = 0;
            c->k++;
        }
        c->count[j]++;
        c->of_row[i] = j;
    }
    /* LIBSVM stores a -1/+1 problem whose first row is -1 as "label 1 -1" */
    if (c->k == 2 && c->label[0] == -1 && c->label[1] == 1) {
        c->label[0] = 1; c->label[1] = -1;
        int t = c->count[0]; c->count[0] = c->count[1]; c->count[1] = t;
        for (int i = 0; i < l; i++) c->of_row[i] = 1 - c->of_row[i];
    }
    c->start = malloc(sizeof(int) * (size_t)(c->k + 1));
    if (!c->start) goto nomem;
    c->start[0] = 0;
    for (int j = 0; j < c->k; j++) c->start[j + 1] = c->start[j] + c->count[j];
    {
        int *fillp = calloc((size_t)(c->k ? c->k : 1), sizeof(int));
        if (!fillp) goto nomem;
        for (int i = 0; i < l; i++) c->order[c->start[c->of_row[i]] + fillp[c->of_row[i]]++] = i;
        free(fillp);
    }
    return GS_OK;
nomem:
    classes_free(c);
    return GS_FAIL(GS_ERR_NOMEM, "out of memory grouping classes");
}

/* The double whose %.8g text is the shortest decimal that reads back as f (LIBSVM keeps the file's
 * doubles and writes SV values with %.8g; we keep floats, and printing the float's exact value
 * would turn 0.3 into 0.30000001). */
static double shortest_decimal(float f)
{
    if (f == (float)(int32_t)f) return (double)f;
    char buf[320]; /* gcc 13 sizes "%.*g" of a double at up to 310 bytes */
    int lo = 1, hi = 9;
    while (lo < hi) { /* the smallest precision that round-trips */
        const int mid = (lo + hi) / 2;
        snprintf(buf, sizeof buf, "%.*g", mid, (double)f);
        if (strtof(buf, NULL) == f) hi = mid; else lo = mid + 1;
    }
    if (lo > 8) return (double)f;
    snprintf(buf, sizeof buf, "%.*g", lo, (double)f);
    return strtod(buf, NULL);
}

/* Copies rows (in the given order) into a CSR of their own. */
static gs_status subset_csr(const gs_problem *prob, const int *rows, int n, int64_t **rp, int32_t **ix, float **vl)
{
    int64_t nnz = 0;
    for (int i = 0; i < n; i++) nnz += prob->row_ptr[rows[i] + 1] - prob->row_ptr[rows[i]];
    *rp = malloc(sizeof **rp * ((size_t)n + 1));
    *ix = malloc(sizeof **ix * (size_t)(nnz ? nnz : 1));
    *vl = malloc(sizeof **vl * (size_t)(nnz ? nnz : 1));
    if (!*rp || !*ix || !*vl) {
        free(*rp); free(*ix); free(*vl);
        *rp = NULL; *ix = NULL; *vl = NULL;
        return GS_FAIL(GS_ERR_NOMEM, "out of memory copying %d rows", n);
    }
    int64_t o = 0;
    (*rp)[0] = 0;
    for (int i = 0; i < n; i++) {
        const int64_t b = prob->row_ptr[rows[i]], e = prob->row_ptr[rows[i] + 1];
        memcpy(*ix + o, prob->idx + b, sizeof(int32_t) * (size_t)(e - b));
        memcpy(*vl + o, prob->val + b, sizeof(float) * (size_t)(e - b));
        o += e - b;
        (*rp)[i + 1] = o;
    }
    return GS_OK;
}

/* The one-vs-one pairs are solved by a pool of host threads, each with its own solver (kernels and
 * command queue on the shared device), so one pair's subproblem and clustering overlap other
 * pairs' device work. Results are kept per pair and printed in LIBSVM's pair order afterwards. */
typedef struct pair_out {
    double *alpha;          /* [n_i + n_j], class i rows then class j rows */
    gs_binary_result res;
} pair_out;

typedef struct pool {
    const gs_problem *prob;
    const gs_param *param;
    const gs_log *log;
    const classes *cls;
    const double *cw;
    const gs_device_provider *dev;
    int npair;
    const int (*pairs)[2];
    pair_out *out;
    gs_train_stats *stats;   /* [nworkers] */
    pthread_mutex_t mu;      /* guards the fields below */
    int next;
    gs_solver *base;         /* built by the first worker that needs the device */
    gs_status st;
    char err[1024];
} pool;

typedef struct worker {
    pool *pl;
    int id;
} worker;

static void pool_fail(pool *pl, gs_status st)
{
    pthread_mutex_lock(&pl->mu);
    if (pl->st == GS_OK) {
        pl->st = st;
        snprintf(pl->err, sizeof pl->err, "%s", gs_last_error());
    }
    pthread_mutex_unlock(&pl->mu);
}

/* Solves pairs until none is left or one failed. */
static void *pair_worker(void *arg)
{
    const worker *w = arg;
    pool *pl = w->pl;
    const gs_problem *prob = pl->prob;
    const classes *cls = pl->cls;
    gs_train_stats *stats = &pl->stats[w->id];
    gs_status st = GS_OK;
    gs_solver *solver = NULL;
    gs_clustered cl = {0};
    int64_t *rp = NULL;
    int32_t *ix = NULL;
    float *vl = NULL;
    const int l = prob->l;
    int *rows = malloc(sizeof *rows * (size_t)(l ? l : 1));
    int8_t *ysub = malloc((size_t)(l ? l : 1));
    if (!rows || !ysub) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        const int p = (pl->st == GS_OK && pl->next < pl->npair) ? pl->next++ : -1;
        pthread_mutex_unlock(&pl->mu);
        if (p < 0) break;
        const int i = pl->pairs[p][0], j = pl->pairs[p][1];
        const int ni = cls->count[i], nj = cls->count[j], n = ni + nj;
        pair_out *o = &pl->out[p];
        memcpy(rows, cls->order + cls->start[i], sizeof(int) * (size_t)ni);
        memcpy(rows + ni, cls->order + cls->start[j], sizeof(int) * (size_t)nj);
        for (int t = 0; t < n; t++) ysub[t] = t < ni ? 1 : -1;
        if ((st = subset_csr(prob, rows, n, &rp, &ix, &vl))) goto cleanup;
        int finite = 1;
        for (int64_t e = 0; e < rp[n]; e++) finite &= isfinite(vl[e]) != 0;
        if (!finite) {
            /* LIBSVM's answer for a NaN/inf feature: one iteration, every alpha NaN (so no SV),
             * obj and rho NaN. The device is not involved. */
            for (int t = 0; t < n; t++) o->alpha[t] = NAN;
            memset(&o->res, 0, sizeof o->res);
            o->res.iterations = 1;
            o->res.rho = NAN;
            o->res.obj = NAN;
        } else {
            st = gs_solver_cluster(pl->param, rp, ix, vl, n, &cl);
            if (st) goto cleanup;
            stats->cluster += cl.seconds;
            if (!solver) { /* the device is waited for only now, after this worker's first clustering */
                pthread_mutex_lock(&pl->mu);
                if (!pl->base) {
                    gs_ocl *ocl = pl->dev ? pl->dev->wait(pl->dev->ctx) : NULL;
                    const double t_dev = gs_now();
                    if (!ocl) st = pl->dev ? GS_ERR_NODEVICE : GS_FAIL(GS_ERR_NODEVICE, "no OpenCL device");
                    else st = gs_solver_create(ocl, pl->param, pl->log, &pl->base);
                    if (!st) { stats->setup += gs_now() - t_dev; stats->peak_gbps = ocl->peak_gbps; }
                }
                if (!st) st = gs_solver_clone(pl->base, &solver);
                pthread_mutex_unlock(&pl->mu);
                if (st) goto cleanup;
            }
            st = gs_solver_binary(solver, &cl, ysub, pl->cw[i], pl->cw[j], o->alpha, &o->res, stats);
            gs_clustered_free(&cl);
            if (st) goto cleanup;
        }
        free(rp); free(ix); free(vl);
        rp = NULL; ix = NULL; vl = NULL;
    }
cleanup:
    if (st) pool_fail(pl, st);
    gs_clustered_free(&cl);
    gs_solver_free(solver);
    free(rp); free(ix); free(vl); free(rows); free(ysub);
    return NULL;
}

static int host_threads(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 16 ? 16 : (int)n);
}

gs_status gs_svm_train(const gs_device_provider *dev, const gs_problem *prob, const gs_param *param,
                       const gs_log *log, gs_model *model, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    classes cls = {0};
    double *cw = NULL, *coef_rows = NULL, *alpha_all = NULL;
    int *nonzero = NULL;
    int (*pairs)[2] = NULL;
    pair_out *out = NULL;
    gs_train_stats *wstats = NULL;
    worker *workers = NULL;
    pthread_t *threads = NULL;
    pool pl;
    int pool_ready = 0;
    const double t_start = gs_now();
    memset(model, 0, sizeof *model);
    if (stats) memset(stats, 0, sizeof *stats);
    if (param->svm_type != GS_C_SVC)
        return GS_FAIL(GS_ERR_UNSUPPORTED, "svm_type %d is not supported yet (only -s 0, C-SVC)", param->svm_type);

    model->svm_type = param->svm_type;
    model->kernel_type = param->kernel_type;
    model->degree = param->degree;
    model->gamma = param->gamma;
    model->coef0 = param->coef0;

    if ((st = group_classes(prob, &cls))) goto cleanup;
    const int k = cls.k, l = prob->l;
    model->nr_class = k;
    model->n_coef = k > 1 ? k - 1 : 0;
    const int npair = k * (k - 1) / 2;
    model->rho = calloc((size_t)(npair ? npair : 1), sizeof(double));
    model->label = malloc(sizeof(int) * (size_t)(k ? k : 1));
    model->nSV = calloc((size_t)(k ? k : 1), sizeof(int));
    cw = malloc(sizeof *cw * (size_t)(k ? k : 1));
    nonzero = calloc((size_t)(l ? l : 1), sizeof *nonzero);
    /* coefficients for every row (grouped order) and pair column, kept until the SVs are known */
    coef_rows = calloc((size_t)(l ? l : 1) * (size_t)(k > 1 ? k - 1 : 1), sizeof *coef_rows);
    if (!model->rho || !model->label || !model->nSV || !cw || !nonzero || !coef_rows) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    memcpy(model->label, cls.label, sizeof(int) * (size_t)k);
    for (int j = 0; j < k; j++) cw[j] = param->C;
    for (int w = 0; w < param->nr_weight; w++) {
        int j = 0;
        while (j < k && cls.label[j] != param->weight_label[w]) j++;
        if (j == k) fprintf(stderr, "WARNING: class label %d specified in weight is not found\n", param->weight_label[w]);
        else cw[j] *= param->weight[w];
    }
    if (k == 1) gs_log_info(log, "WARNING: training data in only one class. See README for details.\n");

    if (npair > 0) {
        /* every pair's alphas live in one array: pair p at offset off[p] */
        pairs = malloc(sizeof *pairs * (size_t)npair);
        out = calloc((size_t)npair, sizeof *out);
        int64_t total_alpha = 0;
        for (int i = 0, p = 0; i < k; i++)
            for (int j = i + 1; j < k; j++, p++) total_alpha += cls.count[i] + cls.count[j];
        alpha_all = malloc(sizeof *alpha_all * (size_t)total_alpha);
        const int nworkers = npair == 1 ? 1 : (npair < host_threads() ? npair : host_threads());
        wstats = calloc((size_t)nworkers, sizeof *wstats);
        workers = calloc((size_t)nworkers, sizeof *workers);
        threads = calloc((size_t)nworkers, sizeof *threads);
        if (!pairs || !out || !alpha_all || !wstats || !workers || !threads) {
            st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d class pairs", npair);
            goto cleanup;
        }
        int64_t off = 0;
        for (int i = 0, p = 0; i < k; i++)
            for (int j = i + 1; j < k; j++, p++) {
                pairs[p][0] = i;
                pairs[p][1] = j;
                out[p].alpha = alpha_all + off;
                off += cls.count[i] + cls.count[j];
            }
        memset(&pl, 0, sizeof pl);
        pl.prob = prob; pl.param = param; pl.log = log; pl.cls = &cls; pl.cw = cw; pl.dev = dev;
        pl.npair = npair; pl.pairs = (const int (*)[2])pairs; pl.out = out; pl.stats = wstats;
        pthread_mutex_init(&pl.mu, NULL);
        pool_ready = 1;
        /* One pair (binary problems) runs on this thread; more run on a pool. */
        unsigned started = 0; /* nworkers <= 16 */
        for (int w = 0; w < nworkers; w++) {
            workers[w].pl = &pl;
            workers[w].id = w;
            if (w > 0 && pthread_create(&threads[w], NULL, pair_worker, &workers[w]) == 0) started |= 1u << w;
        }
        pair_worker(&workers[0]); /* a thread that failed to start just leaves its share to the others */
        for (int w = 1; w < nworkers; w++)
            if (started & (1u << w)) pthread_join(threads[w], NULL);
        if (pl.st != GS_OK) { st = GS_FAIL(pl.st, "%s", pl.err); goto cleanup; }
        if (stats)
            for (int w = 0; w < nworkers; w++) {
                const gs_train_stats *a = &wstats[w];
                stats->cluster += a->cluster; stats->setup += a->setup; stats->update += a->update;
                stats->select += a->select; stats->rows += a->rows; stats->subproblem += a->subproblem;
                stats->transfer += a->transfer; stats->other += a->other; stats->iterations += a->iterations;
                stats->inner_steps += a->inner_steps; stats->update_bytes += a->update_bytes;
                if (a->peak_gbps > 0) stats->peak_gbps = a->peak_gbps;
                if (a->duality_gap > stats->duality_gap) stats->duality_gap = a->duality_gap;
            }
    }
    /* LIBSVM's per-pair lines and the model's coefficient columns, in pair order */
    for (int p = 0; p < npair; p++) {
        const int i = pairs[p][0], j = pairs[p][1];
        const int ni = cls.count[i], nj = cls.count[j], n = ni + nj;
        const double *alpha_pair = out[p].alpha;
        const gs_binary_result *res = &out[p].res;
        if (res->max_iter_hit) fprintf(stderr, "\nWARNING: reaching max number of iterations\n");
        double suma = 0;
        int nsv = 0, nbsv = 0;
        for (int t = 0; t < n; t++) {
            const double a = alpha_pair[t];
            const int grouped = t < ni ? cls.start[i] + t : cls.start[j] + (t - ni);
            suma += a;
            if (a > 0) {
                nsv++;
                if (a >= (t < ni ? cw[i] : cw[j])) nbsv++;
                nonzero[cls.order[grouped]] = 1;
            }
            /* column j-1 for class i's rows (y=+1), column i for class j's rows (y=-1) */
            coef_rows[(size_t)grouped * (size_t)(k - 1) + (size_t)(t < ni ? j - 1 : i)] = t < ni ? a : -a;
        }
        model->rho[p] = res->rho;
        gs_log_info(log, "*\noptimization finished, #iter = %ld\n", res->iterations);
        if (cw[i] == cw[j]) gs_log_info(log, "nu = %f\n", suma / (cw[i] * n));
        gs_log_info(log, "obj = %f, rho = %f\n", res->obj, res->rho);
        gs_log_info(log, "nSV = %d, nBSV = %d\n", nsv, nbsv);
        gs_log_verbose(log, "gpusvm: pair %d-%d: %ld rounds, %ld inner steps\n", cls.label[i], cls.label[j],
                       res->iterations, res->inner_steps);
    }
    /* support vectors: grouped by class, file order within a class */
    int total = 0;
    int64_t nnz = 0;
    for (int g = 0; g < l; g++) {
        const int r = cls.order[g];
        if (!nonzero[r]) continue;
        total++;
        model->nSV[cls.of_row[r]]++;
        nnz += prob->row_ptr[r + 1] - prob->row_ptr[r];
    }
    model->l = total;
    model->sv_coef = calloc((size_t)(total ? total : 1) * (size_t)(k > 1 ? k - 1 : 1), sizeof(double));
    model->sv_ptr = malloc(sizeof(int64_t) * ((size_t)total + 1));
    model->sv_idx = malloc(sizeof(int32_t) * (size_t)(nnz ? nnz : 1));
    model->sv_val = malloc(sizeof(double) * (size_t)(nnz ? nnz : 1));
    if (!model->sv_coef || !model->sv_ptr || !model->sv_idx || !model->sv_val) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory for the model");
        goto cleanup;
    }
    {
        int s = 0;
        int64_t o = 0;
        model->sv_ptr[0] = 0;
        for (int g = 0; g < l; g++) {
            const int r = cls.order[g];
            if (!nonzero[r]) continue;
            if (k > 1) memcpy(model->sv_coef + (size_t)s * (size_t)(k - 1), coef_rows + (size_t)g * (size_t)(k - 1),
                              sizeof(double) * (size_t)(k - 1));
            for (int64_t e = prob->row_ptr[r]; e < prob->row_ptr[r + 1]; e++, o++) {
                model->sv_idx[o] = prob->idx[e];
                model->sv_val[o] = shortest_decimal(prob->val[e]);
            }
            model->sv_ptr[++s] = o;
        }
    }
    gs_log_info(log, "Total nSV = %d\n", total);
    if (stats) stats->total = gs_now() - t_start;

cleanup:
    if (st != GS_OK) gs_model_free(model);
    if (pool_ready) {
        gs_solver_free(pl.base);
        pthread_mutex_destroy(&pl.mu);
    }
    classes_free(&cls);
    free(cw); free(coef_rows); free(alpha_all); free(nonzero); free(pairs); free(out); free(wstats);
    free(workers); free(threads);
    return st;
}
