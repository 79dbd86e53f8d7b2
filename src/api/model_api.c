/* model_api.c — svm.h's model side: save and load through io/model, the getters, and prediction
 * through the CPU path svm-predict's numbers come from (gs_pred_cpu_dec, probability.c).
 *
 * A prediction reads the svm_model as it is now: its arrays are copied into a gs_model for each
 * call (no hidden state beside the public struct, so a model built or changed by the caller is
 * predicted as it reads). The copy adds a third to two thirds to the kernel evaluations' time
 * (docs/library.md, scripts/bench-api-predict.sh). */
#include "svm.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "api/runtime.h"
#include "predict/predictor.h"
#include "predict/probability.h"
#include "util/status.h"

/* Model files have '.' decimals whatever the program's locale (a program that called
 * setlocale(LC_ALL, "") in a ',' locale would otherwise write "0,5" and misread "0.5"). LIBSVM
 * switches the process's locale with setlocale around its reader and writer; uselocale switches
 * only this thread's, so other threads are not affected. */
typedef struct numeric_c {
    locale_t c, prev;
} numeric_c;

static void numeric_c_begin(numeric_c *s)
{
    s->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    s->prev = s->c ? uselocale(s->c) : (locale_t)0;
}

static void numeric_c_end(numeric_c *s)
{
    if (!s->c) return;
    uselocale(s->prev);
    freelocale(s->c);
}

int svm_save_model(const char *model_file_name, const struct svm_model *model)
{
    gs_model g;
    gs_clear_error();
    if (gs_api_model_to(model, &g) != GS_OK) return -1;
    numeric_c loc;
    numeric_c_begin(&loc);
    const gs_status st = gs_model_write(model_file_name, &g);
    numeric_c_end(&loc);
    gs_model_free(&g);
    return st == GS_OK ? 0 : -1;
}

struct svm_model *svm_load_model(const char *model_file_name)
{
    gs_model g;
    struct svm_model *m = NULL;
    gs_clear_error();
    numeric_c loc;
    numeric_c_begin(&loc);
    const gs_status st = gs_model_read(model_file_name, &g);
    numeric_c_end(&loc);
    /* like svm_load_model: silent when the file cannot be opened, the reason when it is malformed */
    if (st != GS_OK) {
        if (st != GS_ERR_IO) fprintf(stderr, "%s\n", gs_last_error());
        return NULL;
    }
    if (gs_api_model_new(&g, NULL, &m) != GS_OK) fprintf(stderr, "%s\n", gs_last_error());
    gs_model_free(&g);
    return m;
}

int svm_get_svm_type(const struct svm_model *model) { return model->param.svm_type; }

int svm_get_nr_class(const struct svm_model *model) { return model->nr_class; }

void svm_get_labels(const struct svm_model *model, int *label)
{
    if (model->label)
        for (int i = 0; i < model->nr_class; i++) label[i] = model->label[i];
}

void svm_get_sv_indices(const struct svm_model *model, int *sv_indices)
{
    if (model->sv_indices)
        for (int i = 0; i < model->l; i++) sv_indices[i] = model->sv_indices[i];
}

int svm_get_nr_sv(const struct svm_model *model) { return model->l; }

double svm_get_svr_probability(const struct svm_model *model)
{
    const int t = model->param.svm_type;
    if ((t == EPSILON_SVR || t == NU_SVR) && model->probA) return model->probA[0];
    fprintf(stderr, "Model doesn't contain information for SVR probability inference\n");
    return 0;
}

int svm_check_probability_model(const struct svm_model *model)
{
    /* 3.24's rule: one-class models have no probability outputs in this API */
    const int t = model->param.svm_type;
    return ((t == C_SVC || t == NU_SVC) && model->probA && model->probB) ||
           ((t == EPSILON_SVR || t == NU_SVR) && model->probA);
}

/* The model's gs_model copy and x's decision values, *dec holding gs_pred_n_dec(g) of them (at
 * least one slot). On error g and *dec are released. */
static gs_status decision_values(const struct svm_model *model, const struct svm_node *x, gs_model *g,
                                 double **dec)
{
    gs_status st = GS_OK;
    gs_rows row = {0};
    *dec = NULL;
    if (!x) return GS_FAIL(GS_ERR_ARG, "the row is NULL");
    if ((st = gs_api_model_to(model, g))) return st;
    const int nd = gs_pred_n_dec(g);
    *dec = calloc((size_t)(nd > 0 ? nd : 1), sizeof **dec);
    if (!*dec) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory for %d decision values", nd);
        goto cleanup;
    }
    if ((st = gs_api_row_from(x, &row))) goto cleanup;
    st = gs_pred_cpu_dec(g, &row, 0, *dec);

cleanup:
    gs_rows_free(&row);
    if (st != GS_OK) {
        gs_model_free(g);
        free(*dec);
        *dec = NULL;
    }
    return st;
}

double svm_predict_values(const struct svm_model *model, const struct svm_node *x, double *dec_values)
{
    gs_model g;
    double *dec;
    gs_clear_error();
    if (decision_values(model, x, &g, &dec) != GS_OK) {
        /* svm_predict has no error return: NaN matches no label */
        fprintf(stderr, "gpusvm: svm_predict: %s\n", gs_last_error());
        return NAN;
    }
    if (dec_values) memcpy(dec_values, dec, sizeof *dec * (size_t)gs_pred_n_dec(&g));
    int *votes = calloc((size_t)(g.nr_class > 0 ? g.nr_class : 1), sizeof *votes);
    const double pred = votes ? gs_pred_outcome(&g, dec, votes) : NAN;
    free(votes);
    free(dec);
    gs_model_free(&g);
    return pred;
}

double svm_predict(const struct svm_model *model, const struct svm_node *x)
{
    return svm_predict_values(model, x, NULL);
}

double svm_predict_probability(const struct svm_model *model, const struct svm_node *x, double *prob_estimates)
{
    const int t = model->param.svm_type, k = model->nr_class;
    if (!((t == C_SVC || t == NU_SVC) && model->probA && model->probB && k >= 1)) return svm_predict(model, x);
    gs_model g;
    double *dec;
    gs_clear_error();
    if (decision_values(model, x, &g, &dec) != GS_OK) {
        fprintf(stderr, "gpusvm: svm_predict_probability: %s\n", gs_last_error());
        return NAN;
    }
    double *work = malloc(sizeof *work * (size_t)gs_prob_work_size(k));
    double *p = prob_estimates ? prob_estimates : malloc(sizeof *p * (size_t)k);
    double pred = NAN;
    if (work && p) {
        int exceeded = 0;
        const int best = gs_prob_classify(k, dec, g.probA, g.probB, p, work, &exceeded);
        if (exceeded) {
            /* LIBSVM prints it through the print hook */
            const gs_log log = gs_api_log();
            gs_log_info(&log, "Exceeds max_iter in multiclass_prob\n");
        }
        pred = g.label[best];
    } else {
        fprintf(stderr, "gpusvm: svm_predict_probability: out of memory for %d classes\n", k);
    }
    if (p != prob_estimates) free(p);
    free(work);
    free(dec);
    gs_model_free(&g);
    return pred;
}

void svm_free_model_content(struct svm_model *model_ptr) { gs_api_model_free_content(model_ptr); }

void svm_free_and_destroy_model(struct svm_model **model_ptr_ptr)
{
    if (!model_ptr_ptr || !*model_ptr_ptr) return;
    gs_api_model_free_content(*model_ptr_ptr);
    free(*model_ptr_ptr);
    *model_ptr_ptr = NULL;
}
