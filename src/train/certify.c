/* certify.c — see certify.h. */
#include "train/certify.h"

#include <math.h>

gs_cert_pair gs_certify_pair(const double *alpha, const double *G, const double *err, int32_t n, int32_t ni,
                             double Cp, double Cn, const double *p)
{
    double m = -INFINITY, M = INFINITY, emax = 0;
    double ub = INFINITY, lb = -INFINITY, sum_free = 0, obj2 = 0;
    long nfree = 0;
    for (int32_t t = 0; t < n; t++) {
        const int pos = t < ni;
        const double a = alpha[t], C = pos ? Cp : Cn, yg = pos ? G[t] : -G[t], e = err[t];
        /* LIBSVM's I_up and I_low */
        if (pos ? a < C : a > 0) m = fmax(m, -yg + e);
        if (pos ? a > 0 : a < C) M = fmin(M, -yg - e);
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
    return c;
}
