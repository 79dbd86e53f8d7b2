/* param.c — gs_param defaults, -wi weights and the one parameter check, shared by the CLIs and
 * svm.h's svm_check_parameter. */
#include "api/param.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/data.h"
#include "io/model.h"
#include "util/status.h"

void gs_param_init(gs_param *p)
{
    memset(p, 0, sizeof *p);
    p->svm_type = GS_C_SVC;
    p->kernel_type = GS_KERNEL_RBF;
    p->degree = 3;
    p->gamma = 0;      /* replaced by 1/max_index once the data is read */
    p->coef0 = 0;
    p->cache_size = 100;
    p->eps = 1e-3;
    p->C = 1;
    p->nu = 0.5;
    p->p = 0.1;
    p->shrinking = 1;
    p->probability = 0;
    p->ws_size = 0;  /* automatic: see gs_param.ws_size */
    p->ws_keep = -1;
    p->clusters_active = 64;
    p->cluster_size = 256;
    p->seed = 1;
    p->multiclass = GS_MC_OVO;
    gs_tuning_init(&p->tuning);
}

void gs_param_free(gs_param *p)
{
    if (!p) return;
    free(p->weight_label);
    free(p->weight);
    p->weight_label = NULL;
    p->weight = NULL;
    p->nr_weight = 0;
}

int gs_param_add_weight(gs_param *p, int label, double weight)
{
    /* LIBSVM appends every -wi and svm_train multiplies class i's C by each matching weight in
     * turn; folding repeats into one entry gives the same weighted C. */
    for (int i = 0; i < p->nr_weight; i++) {
        if (p->weight_label[i] == label) {
            p->weight[i] *= weight;
            return GS_OK;
        }
    }
    int *nl = realloc(p->weight_label, (size_t)(p->nr_weight + 1) * sizeof *nl);
    if (!nl) return GS_FAIL(GS_ERR_NOMEM, "out of memory storing -w%d", label);
    p->weight_label = nl;
    double *nw = realloc(p->weight, (size_t)(p->nr_weight + 1) * sizeof *nw);
    if (!nw) return GS_FAIL(GS_ERR_NOMEM, "out of memory storing -w%d", label);
    p->weight = nw;
    p->weight_label[p->nr_weight] = label;
    p->weight[p->nr_weight] = weight;
    p->nr_weight++;
    return GS_OK;
}

int gs_label_int(double y)
{
    /* (double)INT_MAX + 1 is exact, so this range test is exact too. */
    if (!(y > (double)INT_MIN - 1.0 && y < (double)INT_MAX + 1.0)) return INT_MIN;
    return (int)y;
}

/* LIBSVM's "specified nu is infeasible" test: class sizes in first-appearance order of (int)label,
 * then every pair must satisfy nu*(n1+n2)/2 <= min(n1,n2).
 * @return 1 feasible, 0 infeasible, -1 out of memory */
static int nu_feasible(double nu, const gs_problem *prob)
{
    int k = 0, cap = 16;
    int *label = malloc((size_t)cap * sizeof *label);
    int *count = malloc((size_t)cap * sizeof *count);
    int ok = -1;
    if (!label || !count) goto cleanup;
    for (int32_t i = 0; i < prob->l; i++) {
        const int y = gs_label_int(prob->y[i]);
        int j = 0;
        while (j < k && label[j] != y) j++;
        if (j < k) {
            count[j]++;
            continue;
        }
        if (k == cap) {
            cap *= 2;
            int *nl = realloc(label, (size_t)cap * sizeof *nl);
            if (!nl) goto cleanup;
            label = nl;
            int *nc = realloc(count, (size_t)cap * sizeof *nc);
            if (!nc) goto cleanup;
            count = nc;
        }
        label[k] = y;
        count[k] = 1;
        k++;
    }
    ok = 1;
    for (int i = 0; i < k && ok; i++) {
        for (int j = i + 1; j < k; j++) {
            const int n1 = count[i], n2 = count[j];
            if (nu * (n1 + n2) / 2 > (n1 < n2 ? n1 : n2)) {
                ok = 0;
                break;
            }
        }
    }
cleanup:
    free(label);
    free(count);
    return ok;
}

static int is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

const char *gs_param_check(const gs_param *p, const struct gs_problem *prob)
{
    const int st = p->svm_type, kt = p->kernel_type;
    if (st != GS_C_SVC && st != GS_NU_SVC && st != GS_ONE_CLASS && st != GS_EPSILON_SVR &&
        st != GS_NU_SVR)
        return "unknown svm type";
    if (kt != GS_KERNEL_LINEAR && kt != GS_KERNEL_POLY && kt != GS_KERNEL_RBF &&
        kt != GS_KERNEL_SIGMOID && kt != GS_KERNEL_PRECOMPUTED)
        return "unknown kernel type";
    if ((kt == GS_KERNEL_POLY || kt == GS_KERNEL_RBF || kt == GS_KERNEL_SIGMOID) && p->gamma < 0)
        return "gamma < 0";
    if (kt == GS_KERNEL_POLY && p->degree < 0) return "degree of polynomial kernel < 0";
    /* beyond LIBSVM: the model readers refuse such a degree (model.h), so none is written */
    if (kt == GS_KERNEL_POLY && p->degree > GS_MODEL_MAX_DEGREE)
        return "degree of polynomial kernel > 1000000 (its kernel values are 0 or infinite)";
    /* The comparisons are written so NaN fails them the way LIBSVM's do (NaN passes). */
    if (p->cache_size <= 0) return "cache_size <= 0";
    if (p->eps <= 0) return "eps <= 0";
    if ((st == GS_C_SVC || st == GS_EPSILON_SVR || st == GS_NU_SVR) && p->C <= 0) return "C <= 0";
    if ((st == GS_NU_SVC || st == GS_ONE_CLASS || st == GS_NU_SVR) && (p->nu <= 0 || p->nu > 1))
        return "nu <= 0 or nu > 1";
    if (st == GS_EPSILON_SVR && p->p < 0) return "p < 0";
    if (p->shrinking != 0 && p->shrinking != 1) return "shrinking != 0 and shrinking != 1";
    if (p->probability != 0 && p->probability != 1) return "probability != 0 and probability != 1";
    /* LIBSVM 3.24's text; 3.30+ trains one-class probability models instead (--one-class-prob). */
    if (p->probability == 1 && st == GS_ONE_CLASS && !p->one_class_prob)
        return "one-class SVM probability output not supported yet";
    if (st == GS_NU_SVC && prob) {
        const int f = nu_feasible(p->nu, prob);
        if (f < 0) return "out of memory checking nu";
        if (f == 0) return "specified nu is infeasible";
    }

    /* gpusvm's long options, after LIBSVM's so its messages keep their precedence. */
    /* ws_size 0 is "automatic" here; the CLI refuses an explicit --ws-size 0 itself. The solver's
     * kernels take at most 1024 rows (cs says so in its own words, below). */
    if (p->ws_size != 0 && (p->ws_size < 2 || p->ws_size % 2 != 0 ||
                            (p->ws_size > 1024 && p->multiclass != GS_MC_CS)))
        return "--ws-size must be an even number from 2 to 1024";
    /* without --ws-size the working set can be as small as 128; cs keeps none */
    if (p->multiclass != GS_MC_CS && (p->ws_keep < -1 || p->ws_keep > (p->ws_size ? p->ws_size : 128) - 2))
        return "--ws-keep must be between 0 and ws-size - 2";
    if (p->clusters_active < 1) return "--clusters must be >= 1";
    if (p->cluster_size < 32 || p->cluster_size > 1024 || !is_pow2(p->cluster_size))
        return "--cluster-size must be a power of two from 32 to 1024";
    if (p->device_memory < 0) return "--device-memory must be a number of MB >= 1";
    if (p->multiclass != GS_MC_OVO && p->multiclass != GS_MC_CS) return "--multiclass must be ovo or cs";
    if (p->multiclass == GS_MC_CS) {
        /* Crammer–Singer is one joint C-SVC problem with no bias: the per-pair machinery (Platt
         * pairs, class weights as per-pair C, folds of one-vs-one models) has no counterpart. */
        if (st != GS_C_SVC) return "--multiclass cs needs -s 0 (C-SVC)";
        if (kt == GS_KERNEL_PRECOMPUTED) return "--multiclass cs does not support -t 4 (precomputed kernel)";
        if (p->probability) return "--multiclass cs does not support -b 1 (probability estimates)";
        if (p->nr_weight > 0) return "--multiclass cs does not support -wi (class weights)";
        if (p->cross_validation) return "--multiclass cs does not support -v (cross validation)";
        if (p->ws_size > 1024) return "--multiclass cs needs --ws-size <= 1024";
    }
    return NULL;
}
