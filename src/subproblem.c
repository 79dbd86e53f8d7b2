/* subproblem.c — SMO on a working set. Pair selection is the second-order rule of Fan, Chen and
 * Lin (2005) restricted to the set: i maximises -y g over I_up, j minimises -b^2/a over I_low;
 * the analytic 2-variable step keeps y_i a_i + y_j a_j and clips to the box. */
#include "subproblem.h"

#include <math.h>

#define TAU 1e-12

static inline int in_up(int8_t y, double a, double c) { return y > 0 ? a < c : a > 0; }
static inline int in_low(int8_t y, double a, double c) { return y > 0 ? a > 0 : a < c; }

long gs_subproblem_solve(gs_subproblem *sp, double *gap0)
{
    const int n = sp->n;
    const int8_t *y = sp->y;
    const double *C = sp->C;
    double *a = sp->alpha, *g = sp->g;
    const float *K = sp->K;
    const int ld = sp->ld;
    const int *map = sp->map;
    long steps = 0;
    double tol = sp->eps;
    *gap0 = 0;
    for (;;) {
        double gmax = -INFINITY, gmax2 = -INFINITY;
        int i = -1;
        for (int t = 0; t < n; t++) {
            if (in_up(y[t], a[t], C[t])) {
                const double v = -y[t] * g[t];
                if (v >= gmax) { gmax = v; i = t; }
            }
            if (in_low(y[t], a[t], C[t])) {
                const double v = y[t] * g[t];
                if (v > gmax2) gmax2 = v;
            }
        }
        if (steps == 0) {
            *gap0 = (i >= 0 && gmax2 > -INFINITY) ? gmax + gmax2 : 0;
            if (sp->rel * *gap0 > tol) tol = sp->rel * *gap0;
        }
        if (i < 0 || gmax + gmax2 < tol || steps >= sp->max_steps) break;
        const float *Ki = K + (long)map[i] * ld;
        const double kii = Ki[map[i]];
        int j = -1;
        double best = INFINITY;
        for (int t = 0; t < n; t++) {
            if (!in_low(y[t], a[t], C[t])) continue;
            const double b = gmax + y[t] * g[t];
            if (b <= 0) continue;
            double q = kii + (double)K[(long)map[t] * ld + map[t]] - 2.0 * (double)Ki[map[t]];
            if (q <= 0) q = TAU;
            const double v = -(b * b) / q;
            if (v <= best) { best = v; j = t; }
        }
        if (j < 0) break;
        const float *Kj = K + (long)map[j] * ld;
        const double kjj = Kj[map[j]], kij = Ki[map[j]];
        const double ai = a[i], aj = a[j], Ci = C[i], Cj = C[j];
        double ni, nj;
        if (y[i] != y[j]) {
            double quad = kii + kjj - 2.0 * kij;
            if (quad <= 0) quad = TAU;
            const double delta = (-g[i] - g[j]) / quad;
            const double diff = ai - aj;
            ni = ai + delta;
            nj = aj + delta;
            if (diff > 0) { if (nj < 0) { nj = 0; ni = diff; } }
            else { if (ni < 0) { ni = 0; nj = -diff; } }
            if (diff > Ci - Cj) { if (ni > Ci) { ni = Ci; nj = Ci - diff; } }
            else { if (nj > Cj) { nj = Cj; ni = Cj + diff; } }
        } else {
            double quad = kii + kjj - 2.0 * kij;
            if (quad <= 0) quad = TAU;
            const double delta = (g[i] - g[j]) / quad;
            const double sum = ai + aj;
            ni = ai - delta;
            nj = aj + delta;
            if (sum > Ci) { if (ni > Ci) { ni = Ci; nj = sum - Ci; } }
            else { if (nj < 0) { nj = 0; ni = sum; } }
            if (sum > Cj) { if (nj > Cj) { nj = Cj; ni = sum - Cj; } }
            else { if (ni < 0) { ni = 0; nj = sum; } }
        }
        const double di = ni - ai, dj = nj - aj;
        a[i] = ni;
        a[j] = nj;
        /* g_t += Q_ti di + Q_tj dj with Q_tu = y_t y_u K_tu */
        const double ci = y[i] * di, cj = y[j] * dj;
        for (int t = 0; t < n; t++) {
            const double d = ci * (double)Ki[map[t]] + cj * (double)Kj[map[t]];
            g[t] += y[t] > 0 ? d : -d;
        }
        steps++;
    }
    return steps;
}
