/* subproblem.h — the working-set subproblem on the CPU (GTSVM eq. 5): minimise
 * 1/2 a'Qa - e'a over the set's alphas with the others fixed, subject to 0 <= a_i <= C_i and
 * y'a unchanged, by 2-variable SMO steps with second-order pair selection inside the set. */
#ifndef GS_SUBPROBLEM_H
#define GS_SUBPROBLEM_H

#include <stdint.h>

typedef struct gs_subproblem {
    int n;               /* variables in the set */
    const int *map;      /* [n] row/column of each variable in K */
    const float *K;      /* kernel values K(map[i], map[j]) at K[map[i] * ld + map[j]] */
    int ld;
    const int8_t *y;     /* [n] +1 / -1 */
    const double *C;     /* [n] upper bounds */
    double *alpha;       /* [n] in: current values; out: solution */
    double *g;           /* [n] in: gradient of the full problem; out: updated by the steps */
    double eps;          /* stop when the set's maximal violating pair gap < max(eps, rel * initial gap) */
    double rel;
    long max_steps;
} gs_subproblem;

/* Runs SMO on the set. @return the number of 2-variable steps taken; *gap0 receives the set's
 * initial maximal violating pair gap. */
long gs_subproblem_solve(gs_subproblem *sp, double *gap0);

#endif
