/* certify.c — see certify.h. */
#include "train/certify.h"

#include <math.h>

/* The nu rule: each sign's I_up maximum of -yG and I_low maximum of yG (widened by the bounds) give
 * its gap; r1 / r2 are the means of G over each sign's free variables (else the midpoint of its
 * bound variables' limits), as LIBSVM's Solver_NU::calculate_rho. */
static gs_cert_pair certify_nu(const double *alpha, const double *G, const double *err, int32_t n, int32_t ni,
                               double Cp, double Cn, const double *p, const uint8_t *skip)
{
    double up[2] = {-INFINITY, -INFINITY}, low[2] = {-INFINITY, -INFINITY}, emax = 0;
    double ub[2] = {INFINITY, INFINITY}, lb[2] = {-INFINITY, -INFINITY}, sum[2] = {0, 0}, obj2 = 0;
    long nfree[2] = {0, 0};
    for (int32_t t = 0; t < n; t++) {
        if (skip && skip[t]) continue;
        const int pos = t < ni, s = !pos;
        const double a = alpha[t], C = pos ? Cp : Cn, yg = pos ? G[t] : -G[t], e = err[t];
        if (gs_in_up(pos, a, C)) up[s] = fmax(up[s], -yg + e);
        if (gs_in_low(pos, a, C)) low[s] = fmax(low[s], yg + e);
        if (!(e <= emax)) emax = e;
        if (a >= C) lb[s] = fmax(lb[s], G[t]);
        else if (a <= 0) ub[s] = fmin(ub[s], G[t]);
        else { nfree[s]++; sum[s] += G[t]; }
        obj2 += a * (G[t] + (p ? p[t] : -1.0));
    }
    const double gp = up[0] + low[0], gn = up[1] + low[1];
    const double r1 = nfree[0] > 0 ? sum[0] / (double)nfree[0] : (ub[0] + lb[0]) / 2;
    const double r2 = nfree[1] > 0 ? sum[1] / (double)nfree[1] : (ub[1] + lb[1]) / 2;
    gs_cert_pair c;
    /* a sign without both an I_up and an I_low member has nothing to violate */
    c.gap = fmax(isfinite(gp) ? gp : -INFINITY, isfinite(gn) ? gn : -INFINITY);
    if (isnan(gp) || isnan(gn)) c.gap = NAN;
    c.err = emax;
    c.rho = (r1 - r2) / 2;
    c.r = (r1 + r2) / 2;
    c.obj = obj2 / 2;
    return c;
}

gs_cert_pair gs_certify_pair(const double *alpha, const double *G, const double *err, int32_t n, int32_t ni,
                             double Cp, double Cn, const double *p, int nu, const uint8_t *skip)
{
    if (nu) return certify_nu(alpha, G, err, n, ni, Cp, Cn, p, skip);
    double m = -INFINITY, M = INFINITY, emax = 0;
    double ub = INFINITY, lb = -INFINITY, sum_free = 0, obj2 = 0;
    long nfree = 0;
    for (int32_t t = 0; t < n; t++) {
        if (skip && skip[t]) continue;
        const int pos = t < ni;
        const double a = alpha[t], C = pos ? Cp : Cn, yg = pos ? G[t] : -G[t], e = err[t];
        /* LIBSVM's I_up and I_low */
        if (gs_in_up(pos, a, C)) m = fmax(m, -yg + e);
        if (gs_in_low(pos, a, C)) M = fmin(M, -yg - e);
        if (!(e <= emax)) emax = e; /* a NaN bound too */
        if (a >= C) { if (pos) lb = fmax(lb, yg); else ub = fmin(ub, yg); }
        else if (a <= 0) { if (pos) ub = fmin(ub, yg); else lb = fmax(lb, yg); }
        else { nfree++; sum_free += yg; }
        obj2 += a * (G[t] + (p ? p[t] : -1.0));
    }
    gs_cert_pair c;
    c.gap = m - M;
    c.err = emax;
    c.rho = nfree > 0 ? sum_free / (double)nfree : (ub + lb) / 2;
    c.obj = obj2 / 2;
    c.r = 0;
    return c;
}
