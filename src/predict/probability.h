/* probability.h — LIBSVM's probability outputs, on the CPU in double with LIBSVM's operation order so the
 * printed %g values match svm-predict: Platt's sigmoid per pair (compat §4.4), Wu–Lin–Weng pairwise
 * coupling (method 2, §6.8) for more than two classes, and the one-class density marks (3.30+). */
#ifndef GS_PROBABILITY_H
#define GS_PROBABILITY_H

/* Platt's sigmoid 1/(1+exp(dec*A+B)) in the form that never overflows exp. */
double gs_prob_sigmoid(double dec, double A, double B);

/* Doubles of scratch space gs_prob_classify needs for k classes. */
int gs_prob_work_size(int k);

/* svm_predict_probability for C-SVC/nu-SVC: dec holds the k(k-1)/2 decision values in pair order
 * (0,1),(0,2)..(k-2,k-1), probA/probB the model's sigmoid parameters. Fills p[k] (model label
 * order) and returns the index of the predicted class (argmax, earliest on ties). work holds
 * gs_prob_work_size(k) doubles. *exceeded is set to 1 when the coupling hit its iteration cap
 * (svm-predict then prints "Exceeds max_iter in multiclass_prob"), else left alone. */
int gs_prob_classify(int k, const double *dec, const double *probA, const double *probB, double *p,
                     double *work, int *exceeded);

/* Pairwise coupling alone: r is k*k row-major (r[i*k+j] = P(i | i or j), diagonal unused), p[k] out.
 * work holds k*k + k doubles. @return 1 when the iteration cap was reached, else 0 */
int gs_prob_couple(int k, const double *r, double *p, double *work);

/* P(normal) of a one-class decision value from the model's 10 prob_density_marks. */
double gs_prob_one_class(double dec, const double *marks);

#endif
