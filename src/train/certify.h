/* certify.h — a trained problem (a C-SVC pair, one-class, epsilon-SVR) checked before its model is written. The device solver's
 * gradients drift from the true ones (float kernel rows, long accumulation), so at its end the
 * solver recomputes every row's gradient from the support vectors in double with an error bound
 * (solver.h, spec->g_exact; kernels/solver.cl k_cert), and LIBSVM's stopping quantity m(a) - M(a)
 * is taken on those gradients, widened by their bounds. rho and the objective come from the same
 * gradients, as LIBSVM computes them. gs_svm_train resumes the pairs that fail. */
#ifndef GS_CERTIFY_H
#define GS_CERTIFY_H

#include <stdint.h>

/* LIBSVM's index sets for variable t of a problem whose variables of sign +1 come first (pos: t below
 * their count) at alpha a with bound C (Cp or Cn by its sign): I_up, where it may grow along y, and
 * I_low, where it may shrink (certify.c, shrink.c). */
static inline int gs_in_up(int pos, double a, double C) { return pos ? a < C : a > 0; }
static inline int gs_in_low(int pos, double a, double C) { return pos ? a > 0 : a < C; }

/* One pair's verdict. */
typedef struct gs_cert_pair {
    double gap;      /* m - M on the recomputed gradients, widened by their error bounds */
    double err;      /* the largest error bound of the pair's gradients */
    double rho, obj; /* LIBSVM's rho and objective from the recomputed gradients */
    double r;        /* the nu rule's r = (r1 + r2) / 2 (0 for the C rule) */
} gs_cert_pair;

/* LIBSVM's stopping quantity, rho and objective for one problem from its gradients (see above):
 * n variables, the first ni with y = +1 and C = Cp (class i of a pair, alpha of epsilon-SVR), the
 * rest with y = -1 and C = Cn; p its linear term (NULL: -1 for every variable, C-SVC). nu: LIBSVM's
 * Solver_NU (the larger of the two signs' gaps; rho = (r1 - r2) / 2 and r = (r1 + r2) / 2 from
 * each sign's G, compat §6.6). skip (may be NULL): the variables left out of the problem
 * (solver.h's spec->skip), whose G and err are not read. */
gs_cert_pair gs_certify_pair(const double *alpha, const double *G, const double *err, int32_t n, int32_t ni,
                             double Cp, double Cn, const double *p, int nu, const uint8_t *skip);

#endif
