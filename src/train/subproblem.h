/* subproblem.h — the working-set subproblem on the CPU (GTSVM eq. 5): minimise
 * 1/2 a'Qa - e'a over the set's alphas with the others fixed, subject to 0 <= a_i <= C_i and
 * y'a unchanged, by 2-variable SMO steps with second-order pair selection inside the set.
 * Works directly in slot space (empty slots have y = 0) so the loops are contiguous. */
#ifndef GS_SUBPROBLEM_H
#define GS_SUBPROBLEM_H

#include <stdint.h>

typedef struct gs_subproblem {
    int n;               /* slots */
    const float *K;      /* K(s, t) at K[s * ld + t] */
    int ld;
    const int8_t *y;     /* [n] +1 / -1, 0 for an empty slot */
    const double *C;     /* [n] upper bounds */
    double *alpha;       /* [n] in: current values; out: solution */
    double *g;           /* [n] in: gradient of the full problem; out: updated by the steps */
    double *work;        /* [4n] scratch */
    double eps;          /* stop when the set's maximal violating pair gap < max(eps, rel * initial gap) */
    double rel;
    long max_steps;
} gs_subproblem;

/* Runs SMO on the set. @return the number of 2-variable steps taken; *gap0 receives the set's
 * initial maximal violating pair gap. */
long gs_subproblem_solve(gs_subproblem *sp, double *gap0);

/* gs_subproblem_solve with one instruction set's loops (the tests compare them: they take the same
 * steps bit for bit): GS_ISA_SCALAR the plain loops, GS_ISA_AVX2 and GS_ISA_AVX512 the x86-64
 * clones of 256- and 512-bit vectors; gs_subproblem_solve picks the widest the CPU has.
 * @return as gs_subproblem_solve, or -1 (nothing done) where the build or the CPU lacks it */
enum { GS_ISA_SCALAR = 0, GS_ISA_AVX2 = 1, GS_ISA_AVX512 = 2 };
long gs_subproblem_solve_isa(gs_subproblem *sp, double *gap0, int isa);

/* The same with LIBSVM's nu rule (nu-SVC, nu-SVR): pairs of one sign only, so the sum of each
 * sign's alphas is kept too; the gap is the larger of the two signs' (compat §6.3). K is read in
 * slot space as above; work is unused. @return steps taken; *gap0 the set's initial nu gap. */
long gs_subproblem_solve_nu(gs_subproblem *sp, double *gap0);

#endif
