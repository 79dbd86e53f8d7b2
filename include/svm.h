/* svm.h — gpusvm's public C API: LIBSVM 3.24's own interface (the same structs, field order and
 * types, enum values and function names, so a program written for LIBSVM compiles and links
 * against libgpusvm unchanged, and a program built against LIBSVM's libsvm.so.3 runs on gpusvm's),
 * followed by a small block of gpusvm_* extensions. docs/library.md says what differs from LIBSVM.
 *
 * Written for gpusvm from LIBSVM's documented interface; the comments are gpusvm's. */
#ifndef _LIBSVM_H
#define _LIBSVM_H

/* LIBSVM's interface version this header reproduces (3.24). */
#define LIBSVM_VERSION 324

#ifdef __cplusplus
extern "C" {
#endif

/* Only the functions and the variable below are exported from libgpusvm.so (it is built with
 * -fvisibility=hidden); the pragma changes nothing for a program that includes this header. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* LIBSVM_VERSION, as a variable a program can read at run time. */
extern int libsvm_version;

/* One feature of a sparse row. A row is an array of nodes with ascending index (>= 1; index 0
 * holds the row's serial number for the precomputed kernel) ended by a node with index -1. */
struct svm_node
{
	int index;
	double value;
};

/* A training set: l rows x[0..l-1] with labels (classification) or targets (regression) y[i]. */
struct svm_problem
{
	int l;
	double *y;
	struct svm_node **x;
};

enum { C_SVC, NU_SVC, ONE_CLASS, EPSILON_SVR, NU_SVR };	/* svm_parameter.svm_type */
enum { LINEAR, POLY, RBF, SIGMOID, PRECOMPUTED };	/* svm_parameter.kernel_type */

/* Training parameters; svm-train's options in brackets. A gamma of 0 is used as 0: svm-train and
 * the python bindings replace it with 1/(largest feature index) before calling svm_train. */
struct svm_parameter
{
	int svm_type;		/* [-s] C_SVC .. NU_SVR */
	int kernel_type;	/* [-t] LINEAR .. PRECOMPUTED */
	int degree;		/* [-d] polynomial degree */
	double gamma;		/* [-g] polynomial, RBF and sigmoid kernels */
	double coef0;		/* [-r] polynomial and sigmoid kernels */

	/* training only */
	double cache_size;	/* [-m] kernel cache in MB (checked > 0; gpusvm keeps no cache) */
	double eps;		/* [-e] stopping tolerance */
	double C;		/* [-c] C_SVC, EPSILON_SVR, NU_SVR */
	int nr_weight;		/* [-wi] number of class weights (C_SVC) */
	int *weight_label;	/* [nr_weight] the classes' labels */
	double *weight;		/* [nr_weight] their C multipliers */
	double nu;		/* [-n] NU_SVC, ONE_CLASS, NU_SVR */
	double p;		/* [-p] EPSILON_SVR's epsilon */
	int shrinking;		/* [-h] 0 or 1; 1 shrinks one problem of 100,000 rows or more (C-SVC two-class, one-class, epsilon-SVR) */
	int probability;	/* [-b] 1: train a probability model */
};

/* A trained or loaded model. Read it through the svm_get_* functions where one exists; free it with
 * svm_free_and_destroy_model. k = nr_class. */
struct svm_model
{
	struct svm_parameter param;	/* the model's kernel; for a trained model a copy of the
					   svm_train argument (weight arrays shared with the caller) */
	int nr_class;		/* k; 2 for one-class and regression */
	int l;			/* number of support vectors */
	struct svm_node **SV;	/* [l] the support vectors, each ended by index -1 */
	double **sv_coef;	/* [k-1][l] their coefficients in the decision functions */
	double *rho;		/* [k(k-1)/2] the decision functions' constants */
	double *probA;		/* [k(k-1)/2] Platt's sigmoid A per class pair, or NULL */
	double *probB;		/* [k(k-1)/2] its B, or NULL */
	int *sv_indices;	/* [l] 1-based training-set row of each SV (trained models; NULL
				   for loaded ones) */

	/* classification only (NULL otherwise) */
	int *label;		/* [k] each class's label, in the model's class order */
	int *nSV;		/* [k] SVs per class; SV[] holds them grouped by class, in that order */

	int free_sv;		/* 1 when the model owns the SV nodes (always, with gpusvm: see
				   docs/library.md) */
};

/* Trains a model. Returns NULL (and prints why on stderr) where LIBSVM would train: parameters
 * that svm_check_parameter refuses, a feature gpusvm does not have yet, rows with descending or
 * negative indices or a value a float cannot hold, no usable OpenCL device. The first call opens
 * the OpenCL device (see gpusvm_set_device); trainings in several threads run one at a time. */
struct svm_model *svm_train(const struct svm_problem *prob, const struct svm_parameter *param);
/* n-fold cross validation with LIBSVM 3.24's folds: target[i] gets row i's prediction by the model
 * trained without its fold (the folds' training lines go to the print function). On failure (the
 * cases svm_train refuses, nr_fold < 2, no rows) every target is NaN and stderr says why. */
void svm_cross_validation(const struct svm_problem *prob, const struct svm_parameter *param, int nr_fold, double *target);

/* Writes the model in LIBSVM's text format (written to a temporary file, then renamed).
 * @return 0, or -1 when the file cannot be written */
int svm_save_model(const char *model_file_name, const struct svm_model *model);
/* Reads a model file (LIBSVM's format, any svm_type). @return the model, or NULL (a malformed
 * file's reason, with file and line, is printed on stderr; a missing file prints nothing) */
struct svm_model *svm_load_model(const char *model_file_name);

int svm_get_svm_type(const struct svm_model *model);
int svm_get_nr_class(const struct svm_model *model);
/* Copies the k labels (classification only; otherwise label is left alone). */
void svm_get_labels(const struct svm_model *model, int *label);
/* Copies the l 1-based training rows of the SVs (left alone when the model has none). */
void svm_get_sv_indices(const struct svm_model *model, int *sv_indices);
int svm_get_nr_sv(const struct svm_model *model);
/* The sigma of a regression probability model's Laplace noise; 0 (with a message on stderr) for
 * any other model. */
double svm_get_svr_probability(const struct svm_model *model);

/* Decision values of row x into dec_values (k(k-1)/2 of them for classification, in class-pair
 * order (0,1),(0,2)..(k-2,k-1); 1 otherwise). @return the prediction: a label, +1/-1 (one-class)
 * or the regression value. Exactly svm-predict's numbers (double precision, LIBSVM's order). */
double svm_predict_values(const struct svm_model *model, const struct svm_node *x, double *dec_values);
/* svm_predict_values without the decision values. */
double svm_predict(const struct svm_model *model, const struct svm_node *x);
/* For a classification model with probability information: the k class probabilities into
 * prob_estimates (model class order) and the most probable label. Otherwise svm_predict(x). */
double svm_predict_probability(const struct svm_model *model, const struct svm_node *x, double *prob_estimates);

/* Frees what the model points to (not the struct itself). */
void svm_free_model_content(struct svm_model *model_ptr);
/* Frees the model and sets *model_ptr_ptr to NULL; NULL and *NULL are fine. */
void svm_free_and_destroy_model(struct svm_model **model_ptr_ptr);
/* Frees the weight arrays of a parameter set the caller filled with malloc'd arrays. */
void svm_destroy_param(struct svm_parameter *param);

/* NULL when svm_train can train with these parameters, else a static message: LIBSVM's texts in
 * LIBSVM's order ("C <= 0", "specified nu is infeasible", ...), then what gpusvm does not support
 * yet ("... is not supported yet"). prob may be NULL (skips the nu feasibility test). */
const char *svm_check_parameter(const struct svm_problem *prob, const struct svm_parameter *param);
/* 1 when svm_predict_probability gives probabilities (C_SVC/NU_SVC with probA and probB, or
 * regression with probA), else 0. */
int svm_check_probability_model(const struct svm_model *model);

/* Where training's informational text (svm-train's stdout lines) goes: print_func, or stdout when
 * NULL. Process-wide, as in LIBSVM; errors always go to stderr. */
void svm_set_print_string_function(void (*print_func)(const char *));

/* ---- gpusvm extensions ---------------------------------------------------------------------
 * Not in LIBSVM: a program that uses them needs gpusvm (test GPUSVM_VERSION with #ifdef). */

/* gpusvm's version, written in this one place: the library reports it (gpusvm_version), both
 * CLIs' --version print it and the Makefile names the shared library after it. */
#define GPUSVM_VERSION "0.9.0"

/* gpusvm's version, GPUSVM_VERSION of the header the library was built with. */
const char *gpusvm_version(void);

/* Chooses the OpenCL device the first svm_train opens: spec as gpusvm-train --device (an index
 * in gpusvm-train --list-devices order, or a case-insensitive substring of "platform / device", or
 * a comma-separated list of them or "all": several devices, as gpusvm-train --device; NULL or "" =
 * automatic: env GPUSVM_DEVICE, else the first GPU, else any device), and at most memory_mb MB of
 * each (0 = all). The device stays open until gpusvm_release_device or the end of
 * the process. @return 0, or -1 when a device is already open (release it first) or spec is too
 * long (over 255 bytes) */
int gpusvm_set_device(const char *spec, int memory_mb);
/* Closes the device svm_train opened (the next svm_train opens one again); waits for a training
 * in another thread to end. Safe to call when none is open. */
void gpusvm_release_device(void);

/* gpusvm-train's solver tunables, for gpusvm_train. */
struct gpusvm_options
{
	int ws_size;		/* --ws-size: working-set size, even, 2..1024; 0 = automatic */
	int ws_keep;		/* --ws-keep: entries kept from the previous set; -1 = half */
	int clusters;		/* --clusters: active clusters of the clustering (default 64) */
	int cluster_size;	/* --cluster-size: rows per cluster, power of two 32..1024 (256) */
	unsigned long long seed;	/* --seed: clustering order (default 1) */
};
/* Fills gpusvm-train's defaults. */
void gpusvm_options_init(struct gpusvm_options *opt);
/* svm_train with tunables (NULL = the defaults); out-of-range ones are refused like bad
 * parameters (NULL returned, message on stderr). The model is the same kind svm_train returns. */
struct svm_model *gpusvm_train(const struct svm_problem *prob, const struct svm_parameter *param,
			       const struct gpusvm_options *opt);

/* Why the last call of this thread that failed (svm_train, gpusvm_train, svm_save_model,
 * svm_load_model returning NULL or -1) failed: a message, "" when none was recorded. */
const char *gpusvm_last_error(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* _LIBSVM_H */
