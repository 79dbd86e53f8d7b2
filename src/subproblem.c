/* subproblem.c — SMO on a working set. Pair selection is the second-order rule of Fan, Chen and
 * Lin (2005) restricted to the set: i maximises -y g over I_up, j minimises -b^2/a over I_low;
 * the analytic 2-variable step keeps y_i a_i + y_j a_j and clips to the box. The loops run over
 * v = y g with -INF sentinels for rows outside I_up / I_low, so they are branch-free. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif
#include "subproblem.h"

#include <math.h>

#define TAU 1e-12

static inline int in_up(int8_t y, double a, double c) { return y > 0 ? a < c : (y < 0 && a > 0); }
static inline int in_low(int8_t y, double a, double c) { return y > 0 ? a > 0 : (y < 0 && a < c); }

long gs_subproblem_solve(gs_subproblem *sp, double *gap0)
{
    const int n = sp->n, ld = sp->ld;
    const int8_t *y = sp->y;
    const double *C = sp->C;
    double *a = sp->alpha, *g = sp->g;
    const float *K = sp->K;
    double *v = sp->work;           /* y g */
    double *up = sp->work + n;      /* -y g on I_up, else -INF */
    double *low = sp->work + 2 * n; /* y g on I_low, else -INF */
    double *diag = sp->work + 3 * n;
    long steps = 0;
    double tol = sp->eps;
    for (int t = 0; t < n; t++) {
        v[t] = y[t] * g[t];
        up[t] = in_up(y[t], a[t], C[t]) ? -v[t] : -INFINITY;
        low[t] = in_low(y[t], a[t], C[t]) ? v[t] : -INFINITY;
        diag[t] = K[(long)t * ld + t];
    }
    *gap0 = 0;
    double gmax = -INFINITY, gmax2 = -INFINITY;
    int i = -1;
    for (int t = 0; t < n; t++) {
        if (up[t] >= gmax) { gmax = up[t]; i = t; }
        gmax2 = low[t] > gmax2 ? low[t] : gmax2;
    }
    for (;;) {
        if (gmax == -INFINITY) i = -1;
        if (steps == 0) {
            *gap0 = (i >= 0 && gmax2 > -INFINITY) ? gmax + gmax2 : 0;
            if (sp->rel * *gap0 > tol) tol = sp->rel * *gap0;
        }
        if (i < 0 || !(gmax + gmax2 >= tol) || steps >= sp->max_steps) break;
        const float *Ki = K + (long)i * ld;
        const double kii = diag[i];
        int j = -1;
        double best = INFINITY;
        for (int t = 0; t < n; t++) {
            const double b = gmax + low[t]; /* -INF when t is outside I_low */
            double q = kii + diag[t] - 2.0 * (double)Ki[t];
            q = q > 0 ? q : TAU;
            const double val = b > 0 ? -(b * b) / q : INFINITY;
            if (val <= best) { best = val; j = t; }
        }
        if (j < 0 || best == INFINITY) break;
        const float *Kj = K + (long)j * ld;
        const double kjj = diag[j], kij = Ki[j];
        const double ai = a[i], aj = a[j], Ci = C[i], Cj = C[j];
        double ni, nj;
        double quad = kii + kjj - 2.0 * kij;
        if (quad <= 0) quad = TAU;
        if (y[i] != y[j]) {
            const double delta = (-y[i] * v[i] - y[j] * v[j]) / quad;
            const double diff = ai - aj;
            ni = ai + delta;
            nj = aj + delta;
            if (diff > 0) { if (nj < 0) { nj = 0; ni = diff; } }
            else { if (ni < 0) { ni = 0; nj = -diff; } }
            if (diff > Ci - Cj) { if (ni > Ci) { ni = Ci; nj = Ci - diff; } }
            else { if (nj > Cj) { nj = Cj; ni = Cj + diff; } }
        } else {
            const double delta = (y[i] * v[i] - y[j] * v[j]) / quad;
            const double sum = ai + aj;
            ni = ai - delta;
            nj = aj + delta;
            if (sum > Ci) { if (ni > Ci) { ni = Ci; nj = sum - Ci; } }
            else { if (nj < 0) { nj = 0; ni = sum; } }
            if (sum > Cj) { if (nj > Cj) { nj = Cj; ni = sum - Cj; } }
            else { if (ni < 0) { ni = 0; nj = sum; } }
        }
        a[i] = ni;
        a[j] = nj;
        /* y_t g_t += y_t (Q_ti di + Q_tj dj) = y_i di K_ti + y_j dj K_tj */
        const double ci = y[i] * (ni - ai), cj = y[j] * (nj - aj);
        const int ii = i;
        for (int t = 0; t < n; t++) v[t] += ci * (double)Ki[t] + cj * (double)Kj[t];
        /* i and j may have entered or left I_up / I_low */
        up[ii] = in_up(y[ii], ni, Ci) ? 0 : -INFINITY;
        low[ii] = in_low(y[ii], ni, Ci) ? 0 : -INFINITY;
        up[j] = in_up(y[j], nj, Cj) ? 0 : -INFINITY;
        low[j] = in_low(y[j], nj, Cj) ? 0 : -INFINITY;
        /* refresh the sentinel arrays and find the next i in the same pass */
        gmax = -INFINITY;
        gmax2 = -INFINITY;
        i = -1;
        for (int t = 0; t < n; t++) {
            const double u = up[t] == -INFINITY ? -INFINITY : -v[t];
            const double w = low[t] == -INFINITY ? -INFINITY : v[t];
            up[t] = u;
            low[t] = w;
            if (u >= gmax) { gmax = u; i = t; }
            gmax2 = w > gmax2 ? w : gmax2;
        }
        steps++;
    }
    for (int t = 0; t < n; t++) g[t] = y[t] * v[t];
    return steps;
}
