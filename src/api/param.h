/* param.h — gs_param: LIBSVM's svm_parameter (same field names and enum numbers) plus gpusvm's
 * long-only GPU options; defaults and the single parameter check shared by the CLIs and the library (svm.h). */
#ifndef GS_PARAM_H
#define GS_PARAM_H

#include <stdint.h>

#include "util/tuning.h"

enum { GS_C_SVC = 0, GS_NU_SVC = 1, GS_ONE_CLASS = 2, GS_EPSILON_SVR = 3, GS_NU_SVR = 4 };
enum { GS_KERNEL_LINEAR = 0, GS_KERNEL_POLY = 1, GS_KERNEL_RBF = 2, GS_KERNEL_SIGMOID = 3,
       GS_KERNEL_PRECOMPUTED = 4 };
/* --multiclass: how C-SVC handles several classes. */
enum { GS_MC_OVO = 0, GS_MC_CS = 1 };

typedef struct gs_param {
    /* LIBSVM's fields */
    int svm_type;        /* -s */
    int kernel_type;     /* -t */
    int degree;          /* -d, poly */
    double gamma;        /* -g, 0 means 1/max_index (applied after reading the data) */
    double coef0;        /* -r */
    double cache_size;   /* -m, MB (accepted; see README for its meaning here) */
    double eps;          /* -e, stopping tolerance on the maximal violating pair gap */
    double C;            /* -c */
    int nr_weight;       /* number of -wi options */
    int *weight_label;   /* [nr_weight] labels of -wi (owned, free with gs_param_free) */
    double *weight;      /* [nr_weight] weights of -wi (owned) */
    double nu;           /* -n */
    double p;            /* -p */
    int shrinking;       /* -h */
    int probability;     /* -b */
    int cross_validation;/* -v given */
    int nr_fold;         /* -v n */
    /* gpusvm's long options */
    int ws_size;         /* --ws-size: working-set size (16 = the GTSVM paper); 0 = automatic:
                            768 for two classes, 128..512 by pair size for one-vs-one (src/train/trainer.c),
                            1024 for --multiclass cs (src/train/cs.c) */
    int ws_keep;         /* --ws-keep: how many of the previous set are kept (0 .. ws_size - 2, so
                            every iteration brings at least one new pair); -1 = half the set */
    int clusters_active; /* --clusters: active clusters k of Algorithm 2 (default 64) */
    int cluster_size;    /* --cluster-size: rows per cluster = work-group size (default 256) */
    uint64_t seed;       /* --seed: clustering order */
    int device_memory;   /* --device-memory: MB of device memory gpusvm may use (0 = the device's own) */
    int multiclass;      /* --multiclass: GS_MC_OVO (LIBSVM's one-vs-one, default) or GS_MC_CS
                            (Crammer–Singer, one cs_svc model; C-SVC only, no -b 1, -wi, -v, -t 4) */
    int one_class_prob;  /* --one-class-prob: -s 2 -b 1 trains LIBSVM 3.30+'s one-class probability
                            model (prob_density_marks) instead of 3.24's refusal */
    gs_tuning tuning;    /* how training runs, never what it computes (util/tuning.h): the code
                            paths the tests force, the batch cap; defaults from gs_tuning_init */
} gs_param;

/* Fills LIBSVM's defaults (svm_type C_SVC, RBF, degree 3, gamma 0, coef0 0, cache 100, eps 1e-3,
 * C 1, nu 0.5, p 0.1, shrinking 1, probability 0, no weights, no CV) and gpusvm's (ws_size 0 and
 * ws_keep -1 = automatic, clusters 64, cluster_size 256, seed 1, multiclass GS_MC_OVO, tuning from
 * gs_tuning_init). */
void gs_param_init(gs_param *p);
/* Frees the weight arrays; p may be NULL. */
void gs_param_free(gs_param *p);
/* Appends one -wi weight (multiplying an earlier one with the same label, like LIBSVM).
 * @return GS_OK or GS_ERR_NOMEM */
int gs_param_add_weight(gs_param *p, int label, double weight);

struct gs_problem;
/* LIBSVM's svm_check_parameter: NULL when fine, else the message without "ERROR: "
 * (e.g. "C <= 0"), in LIBSVM's checking order (compat §2.3, 3.24 texts, including "one-class SVM
 * probability output not supported yet"), then gpusvm's checks of the long options ("--ws-size ...",
 * and what --multiclass cs cannot combine with: "--multiclass cs needs -s 0 (C-SVC)", ...).
 * prob may be NULL (skips the nu feasibility test). The text is a static string. */
const char *gs_param_check(const gs_param *p, const struct gs_problem *prob);


/* A label as LIBSVM groups classes: (int)y, truncating toward zero. Defined for every double: NaN
 * and values outside int's range give INT_MIN, which is what the x86 conversion LIBSVM compiles to
 * produces (a C cast would be undefined there). */
int gs_label_int(double y);

#endif
