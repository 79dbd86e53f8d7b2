/* probability.c — probability estimates exactly as svm-predict computes them (see probability.h). Every
 * expression keeps LIBSVM's evaluation order: the outputs are printed with %g and a different
 * rounding of an intermediate can change the sixth digit. */
#include "predict/probability.h"

#include <math.h>

double gs_prob_sigmoid(double dec, double A, double B)
{
    const double fApB = dec * A + B;
    /* 1-p = exp(fApB)/(1+exp(fApB)); for fApB >= 0 write p with exp(-fApB) so nothing overflows. */
    if (fApB >= 0) return exp(-fApB) / (1.0 + exp(-fApB));
    return 1.0 / (1 + exp(fApB));
}

int gs_prob_work_size(int k)
{
    return 2 * k * k + k;
}

int gs_prob_couple(int k, const double *r, double *p, double *work)
{
    /* Method 2 of Wu, Lin & Weng (2004): minimise p'Qp subject to sum(p) = 1 by cyclic coordinate
     * updates, with Q_tt = sum_{j!=t} r_jt^2 and Q_tj = -r_jt r_tj. */
    double *Q = work, *Qp = work + (long)k * k;
    const int max_iter = k > 100 ? k : 100;
    const double eps = 0.005 / k;
    int iter;
    for (int t = 0; t < k; t++) {
        p[t] = 1.0 / k;
        double qtt = 0;
        for (int j = 0; j < t; j++) {
            qtt += r[j * k + t] * r[j * k + t];
            Q[t * k + j] = Q[j * k + t];
        }
        for (int j = t + 1; j < k; j++) {
            qtt += r[j * k + t] * r[j * k + t];
            Q[t * k + j] = -r[j * k + t] * r[t * k + j];
        }
        Q[t * k + t] = qtt;
    }
    for (iter = 0; iter < max_iter; iter++) {
        /* Qp and p'Qp are recomputed each sweep for accuracy, then the stopping test. */
        double pQp = 0;
        for (int t = 0; t < k; t++) {
            double s = 0;
            for (int j = 0; j < k; j++) s += Q[t * k + j] * p[j];
            Qp[t] = s;
            pQp += p[t] * Qp[t];
        }
        double max_error = 0;
        for (int t = 0; t < k; t++) {
            const double error = fabs(Qp[t] - pQp);
            if (error > max_error) max_error = error;
        }
        if (max_error < eps) break;
        for (int t = 0; t < k; t++) {
            const double diff = (-Qp[t] + pQp) / Q[t * k + t];
            p[t] += diff;
            pQp = (pQp + diff * (diff * Q[t * k + t] + 2 * Qp[t])) / (1 + diff) / (1 + diff);
            for (int j = 0; j < k; j++) {
                Qp[j] = (Qp[j] + diff * Q[t * k + j]) / (1 + diff);
                p[j] /= (1 + diff);
            }
        }
    }
    return iter >= max_iter;
}

int gs_prob_classify(int k, const double *dec, const double *probA, const double *probB, double *p,
                     double *work, int *exceeded)
{
    const double min_prob = 1e-7;
    double *r = work + (long)k * k + k; /* after the coupling's Q and Qp */
    int q = 0;
    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++, q++) {
            double v = gs_prob_sigmoid(dec[q], probA[q], probB[q]);
            if (v < min_prob) v = min_prob;
            if (v > 1 - min_prob) v = 1 - min_prob;
            r[i * k + j] = v;
            r[j * k + i] = 1 - v;
        }
    if (k == 2) {
        p[0] = r[1];
        p[1] = r[2];
    } else if (gs_prob_couple(k, r, p, work)) {
        *exceeded = 1;
    }
    int best = 0;
    for (int i = 1; i < k; i++)
        if (p[i] > p[best]) best = i;
    return best;
}

double gs_prob_one_class(double dec, const double *marks)
{
    /* Ten marks split the decision values into bins with P(normal) = 0.1, 0.2, ...; below the first
     * and above the last the estimate is 0.001 / 0.999. */
    if (dec < marks[0]) return 0.001;
    if (dec > marks[9]) return 0.999;
    for (int i = 1; i < 10; i++)
        if (dec < marks[i]) return (double)i / 10;
    return 0.0;
}
