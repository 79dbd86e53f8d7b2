/* kkt_check.c — an independent optimality check of a model against its training file, for the
 * tests and scripts/fidelity-sweep.py: every training row's gradient is recomputed in long double
 * from the model file and the data file (its own parsers, nothing of gpusvm's), and per class pair
 * (one problem for one-class and SVR) LIBSVM's stopping quantity is printed, with the objective and
 * rho the gradients give, in the scale LIBSVM prints them.
 *
 * The dual LIBSVM solves, per type (a_t the solver's variables, y_t = +-1, G_t = (Q a)_t + p_t):
 *   C-SVC    a_t = |coef| in [0, C_t], p_t = -1
 *   nu-SVC   a_t = y coef r in [0, 1], p_t = 0, r = nu l / sum y coef (the model's coef are a y / r, and
 *            r < 0 where a nearly separable pair's ends below 0, as LIBSVM's can);
 *            printed obj and the model's rho are divided by r^2 and r
 *   one-class a_t = coef in [0, 1], p_t = 0
 *   eps-SVR  2l variables: a_t = max(coef, 0) (y +1, p = eps - z_t), a*_t = max(-coef, 0) (y -1,
 *            p = eps + z_t), in [0, C], z_t the row's target
 *   nu-SVR   the same with p = -z_t / +z_t
 * The gap is m - M with m = max over I_up of -y G and M = min over I_low; for nu-SVC and nu-SVR
 * (LIBSVM's Solver_NU) the larger of the two taken over each sign of y alone.
 *
 * -t 4 (precomputed) models: K(x_s, x_t) is the data row's value at the SV's serial number.
 *
 * Usage: kkt_check [-f] [-n nu] [-p eps] data_file model_file [C [label:weight ...]]   (the type is
 * the model's svm_type; nu and eps as training had them, for nu-SVC and epsilon-SVR)
 * (plain text files; C default 1; the weights as -wi gave them, for the C of each class in C-SVC).
 * -f: every feature value rounded to the nearest float first, as gpusvm-train holds the data (its
 * certification is exact for that). Prints "pair LI LJ gap G obj O rho R model_rho R'" per pair
 * (LI LJ 0 0 for one-class and SVR), then "max_gap G". Exit 0, or 2 on a file it cannot read. SVs
 * are matched to training rows as the model stores them: per class, in file order, a subsequence of
 * that class's rows (one-class and SVR: of all rows; equal indices, values equal to 1e-6
 * relative); for identical rows the match may pick another copy, which gives the same (G, alpha)
 * multiset and so the same gap and objective. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row { int n; int *idx; long double *val; long double y; } row;

static int as_float; /* -f */

static int parse_row(char *s, row *r, int ncoef, long double *coef)
{
    char *e;
    r->n = 0;
    r->idx = NULL;
    r->val = NULL;
    for (int c = 0; c < ncoef; c++) {
        coef[c] = strtod(s, &e); /* a double, as written (%.17g): at its bound exactly when it is */
        if (e == s) return -1;
        s = e;
    }
    if (ncoef == 0) {
        r->y = strtold(s, &e);
        if (e == s) return -1;
        s = e;
    }
    int cap = 16;
    r->idx = malloc(sizeof(int) * cap);
    r->val = malloc(sizeof(long double) * cap);
    for (;;) {
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\n' || *s == '\r' || *s == 0) break;
        long i = strtol(s, &e, 10);
        if (e == s || *e != ':') return -1;
        s = e + 1;
        long double v = strtold(s, &e);
        if (e == s) return -1;
        if (as_float) v = (float)v;
        s = e;
        if (r->n == cap) {
            cap *= 2;
            r->idx = realloc(r->idx, sizeof(int) * cap);
            r->val = realloc(r->val, sizeof(long double) * cap);
        }
        r->idx[r->n] = (int)i;
        r->val[r->n++] = v;
    }
    return 0;
}

static long double dot(const row *a, const row *b)
{
    long double s = 0;
    for (int i = 0, j = 0; i < a->n && j < b->n;) {
        if (a->idx[i] == b->idx[j]) s += a->val[i++] * b->val[j++];
        else if (a->idx[i] < b->idx[j]) i++;
        else j++;
    }
    return s;
}

static long double dist2(const row *a, const row *b)
{
    long double s = 0, d;
    int i = 0, j = 0;
    while (i < a->n || j < b->n) {
        if (j >= b->n || (i < a->n && a->idx[i] < b->idx[j])) d = a->val[i++];
        else if (i >= a->n || b->idx[j] < a->idx[i]) d = b->val[j++];
        else d = a->val[i++] - b->val[j++];
        s += d * d;
    }
    return s;
}

/* -t 4: K(x_s, x_t) is row t's value at column s's serial number (its "0:serial"), 0 if absent. */
static long double kernel_value(const row *x, long serial)
{
    for (int i = 0; i < x->n; i++)
        if (x->idx[i] == serial) return x->val[i];
    return 0;
}

static int same_row(const row *a, const row *b)
{
    if (a->n != b->n) return 0;
    for (int i = 0; i < a->n; i++)
        if (a->idx[i] != b->idx[i] || fabsl(a->val[i] - b->val[i]) > 1e-6L * fabsl(a->val[i])) return 0;
    return 1;
}

/* One problem's variables: y, a, upper bound, p and gradient G (solver scale). */
typedef struct var { int y; long double a, ub, p, g; } var;

/* rho as LIBSVM's calculate_rho gives it over the variables of one sign (sign 0: all). */
static long double rho_of(const var *v, long n, int sign, int by_y)
{
    long double ub = INFINITY, lb = -INFINITY, sfree = 0;
    long nfree = 0;
    for (long t = 0; t < n; t++) {
        if (sign && v[t].y != sign) continue;
        const long double yg = by_y ? v[t].y * v[t].g : v[t].g;
        const int pos = by_y ? v[t].y > 0 : 1;
        if (v[t].a >= v[t].ub) { if (!pos) { if (yg < ub) ub = yg; } else if (yg > lb) lb = yg; }
        else if (v[t].a <= 0) { if (pos) { if (yg < ub) ub = yg; } else if (yg > lb) lb = yg; }
        else { nfree++; sfree += yg; }
    }
    return nfree ? sfree / nfree : (ub + lb) / 2;
}

/* m - M over the variables of one sign (0: all). */
static long double gap_of(const var *v, long n, int sign)
{
    long double m = -INFINITY, M = INFINITY;
    for (long t = 0; t < n; t++) {
        if (sign && v[t].y != sign) continue;
        const long double vy = -v[t].y * v[t].g;
        const int up = (v[t].y > 0 && v[t].a < v[t].ub) || (v[t].y < 0 && v[t].a > 0);
        const int low = (v[t].y > 0 && v[t].a > 0) || (v[t].y < 0 && v[t].a < v[t].ub);
        if (up && vy > m) m = vy;
        if (low && vy < M) M = vy;
    }
    return m - M < 0 ? 0 : m - M;
}

int main(int argc, char **argv)
{
    int stype = 0;
    long double nu = 0.5L, eps_p = 0.1L;
    for (;;) {
        if (argc > 1 && !strcmp(argv[1], "-f")) { as_float = 1; argv++; argc--; }
        else if (argc > 2 && !strcmp(argv[1], "-n")) { nu = strtold(argv[2], NULL); argv += 2; argc -= 2; }
        else if (argc > 2 && !strcmp(argv[1], "-p")) { eps_p = strtold(argv[2], NULL); argv += 2; argc -= 2; }
        else break;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: kkt_check [-f] [-n nu] [-p eps] data_file model_file [C [label:weight ...]]\n");
        return 2;
    }
    /* C and the weights in double, their product too, as LIBSVM forms each class's C */
    const double C0 = argc > 3 ? strtod(argv[3], NULL) : 1.0;
    FILE *fd = fopen(argv[1], "r"), *fm = fopen(argv[2], "r");
    if (!fd || !fm) { fprintf(stderr, "kkt_check: can't open input\n"); return 2; }
    size_t cap = 0;
    char *line = NULL;
    int kt = 2, degree = 3, k = 0, l = 0;
    long double gamma = 0, coef0 = 0;
    int label[1024], nsv[1024];
    double mrho[1024 * 1023 / 2];
    while (getline(&line, &cap, fm) > 0) {
        char w[64];
        if (sscanf(line, "%63s", w) != 1) continue;
        if (!strcmp(w, "SV")) break;
        char *a = line + strlen(w);
        if (!strcmp(w, "svm_type")) {
            const char *names[] = {"c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr"};
            char t[64] = "";
            if (sscanf(a, "%63s", t) == 1)
                for (int i = 0; i < 5; i++) if (!strcmp(t, names[i])) stype = i;
        } else if (!strcmp(w, "kernel_type")) {
            const char *names[] = {"linear", "polynomial", "rbf", "sigmoid", "precomputed"};
            for (int i = 0; i < 5; i++) if (strstr(a, names[i])) kt = i;
        } else if (!strcmp(w, "degree")) degree = atoi(a);
        else if (!strcmp(w, "gamma")) gamma = strtold(a, NULL);
        else if (!strcmp(w, "coef0")) coef0 = strtold(a, NULL);
        else if (!strcmp(w, "nr_class")) k = atoi(a);
        else if (!strcmp(w, "total_sv")) l = atoi(a);
        else if (!strcmp(w, "rho")) { char *e = a; for (int p = 0; p < k * (k - 1) / 2; p++) mrho[p] = strtod(e, &e); }
        else if (!strcmp(w, "label")) { char *e = a; for (int c = 0; c < k; c++) label[c] = (int)strtol(e, &e, 10); }
        else if (!strcmp(w, "nr_sv")) { char *e = a; for (int c = 0; c < k; c++) nsv[c] = (int)strtol(e, &e, 10); }
    }
    if (k < 2 || k > 1024 || l <= 0) { fprintf(stderr, "kkt_check: model without classes or SVs\n"); return 2; }
    const int classify = stype <= 1; /* the model's svm_type */
    if (!classify) { k = 2; nsv[0] = l; nsv[1] = 0; label[0] = label[1] = 0; }
    const int ncoef = classify ? k - 1 : 1;
    row *sv = calloc((size_t)l, sizeof *sv);
    long double *coef = calloc((size_t)l * ncoef, sizeof *coef);
    for (int s = 0; s < l; s++) {
        if (getline(&line, &cap, fm) <= 0 || parse_row(line, &sv[s], ncoef, coef + (size_t)s * ncoef)) {
            fprintf(stderr, "kkt_check: bad SV line %d\n", s + 1);
            return 2;
        }
    }
    int nrow = 0, rcap = 1024;
    row *x = malloc(sizeof *x * rcap);
    long double dummy;
    while (getline(&line, &cap, fd) > 0) {
        if (nrow == rcap) x = realloc(x, sizeof *x * (rcap *= 2));
        if (parse_row(line, &x[nrow], 0, &dummy)) { fprintf(stderr, "kkt_check: bad data line %d\n", nrow + 1); return 2; }
        nrow++;
    }
    /* class of each row (0 for one-class and SVR) and its matched SV (-1: none) */
    int *rc = malloc(sizeof(int) * (nrow ? nrow : 1)), *rsv = malloc(sizeof(int) * (nrow ? nrow : 1));
    int next[1024], end[1024];
    for (int c = 0, s = 0; c < k; c++) { next[c] = s; s += nsv[c]; end[c] = s; }
    for (int t = 0; t < nrow; t++) {
        rc[t] = classify ? -1 : 0;
        rsv[t] = -1;
        for (int c = 0; classify && c < k; c++) if ((long double)label[c] == x[t].y) rc[t] = c;
        const int c = rc[t];
        if (c < 0 || next[c] >= end[c]) continue;
        const row *m = &sv[next[c]];
        const int match = kt == 4 ? m->n > 0 && x[t].n > 0 && x[t].idx[0] == 0 && x[t].val[0] == m->val[0]
                                  : same_row(m, &x[t]);
        if (match) rsv[t] = next[c]++;
    }
    for (int c = 0; c < k; c++)
        if (next[c] != end[c]) { fprintf(stderr, "kkt_check: %d SVs of class %d not found in the data\n", end[c] - next[c], label[c]); return 2; }
    const int npair = classify ? k * (k - 1) / 2 : 1;
    long double *K = malloc(sizeof(long double) * (size_t)l);
    /* f[t][p]: sum over the pair's SVs of coef K(x_s, x_t), the decision value before rho */
    long double *F = malloc(sizeof(long double) * (size_t)(nrow ? nrow : 1) * npair);
    for (int t = 0; t < nrow; t++) {
        if (rc[t] < 0) continue;
        for (int s = 0; s < l; s++) {
            long double v;
            if (kt == 2) v = expl(-gamma * dist2(&sv[s], &x[t]));
            else if (kt == 0) v = dot(&sv[s], &x[t]);
            else if (kt == 1) v = powl(gamma * dot(&sv[s], &x[t]) + coef0, degree);
            else if (kt == 3) v = tanhl(gamma * dot(&sv[s], &x[t]) + coef0);
            else v = kernel_value(&x[t], sv[s].n ? (long)sv[s].val[0] : 0);
            K[s] = v;
        }
        if (!classify) {
            long double f = 0;
            for (int s = 0; s < l; s++) f += coef[s] * K[s];
            F[t] = f;
            continue;
        }
        for (int i = 0, p = 0; i < k; i++)
            for (int j = i + 1; j < k; j++, p++) {
                if (rc[t] != i && rc[t] != j) continue;
                long double f = 0; /* the model's SVs are grouped by class */
                for (int s = end[i] - nsv[i]; s < end[i]; s++) f += coef[(size_t)s * (k - 1) + j - 1] * K[s];
                for (int s = end[j] - nsv[j]; s < end[j]; s++) f += coef[(size_t)s * (k - 1) + i] * K[s];
                F[(size_t)t * npair + p] = f;
            }
    }
    var *v = malloc(sizeof *v * 2 * (size_t)(nrow ? nrow : 1));
    long double max_gap = 0;
    for (int i = 0, p = 0; i < (classify ? k : 1); i++)
        for (int j = i + 1; j < (classify ? k : 2); j++, p++) {
            long n = 0;
            long double sum_a = 0, r = 1;
            for (int t = 0; t < nrow; t++) {
                if (rc[t] != i && rc[t] != j) continue;
                const long double f = F[(size_t)t * npair + p];
                if (!classify) {
                    const long double b = rsv[t] >= 0 ? coef[rsv[t]] : 0, z = x[t].y;
                    if (stype == 2) { v[n++] = (var){1, b, 1, 0, f}; continue; }
                    const long double e = stype == 3 ? eps_p : 0;
                    v[n++] = (var){1, b > 0 ? b : 0, C0, e - z, f + e - z};
                    v[n++] = (var){-1, b < 0 ? -b : 0, C0, e + z, -f + e + z};
                    continue;
                }
                const int y = rc[t] == i ? 1 : -1;
                long double a = 0;
                if (rsv[t] >= 0) {
                    const long double c = coef[(size_t)rsv[t] * (k - 1) + (y > 0 ? j - 1 : i)];
                    a = stype == 1 ? y * c : fabsl(c); /* nu-SVC: a / r, of r's sign */
                }
                sum_a += a;
                /* the row's C (the model does not state it): C times its class's weights */
                double C = C0;
                for (int w = 4; w < argc; w++)
                    if (atoi(argv[w]) == label[rc[t]] && strchr(argv[w], ':')) C *= strtod(strchr(argv[w], ':') + 1, NULL);
                v[n++] = stype == 0 ? (var){y, a, C, -1, y * f - 1} : (var){y, a, 1, 0, y * f};
            }
            if (stype == 1) { /* alpha = y coef r, G = r y f */
                r = sum_a != 0 ? nu * n / sum_a : 1;
                for (long t = 0; t < n; t++) {
                    v[t].a *= r;
                    v[t].g *= r;
                    /* r is the model's to about 1e-16: an alpha a few ulps from 1 is at the bound */
                    if (fabsl(v[t].a - 1) <= 1e-12L) v[t].a = 1;
                }
            }
            long double obj = 0;
            for (long t = 0; t < n; t++) obj += v[t].a * (v[t].g + v[t].p);
            obj /= 2;
            long double gap, rho;
            if (stype == 1 || stype == 4) {
                const long double gp = gap_of(v, n, 1), gn = gap_of(v, n, -1);
                gap = gp > gn ? gp : gn;
                const long double r1 = rho_of(v, n, 1, 0), r2 = rho_of(v, n, -1, 0);
                rho = (r1 - r2) / 2;
                if (stype == 1) { const long double rr = (r1 + r2) / 2; obj /= rr * rr; rho /= rr; }
            } else {
                gap = gap_of(v, n, 0);
                rho = rho_of(v, n, 0, 1);
            }
            printf("pair %d %d gap %.9Lg obj %.9Lf rho %.9Lf model_rho %.9f\n", label[i], label[j], gap, obj, rho, mrho[p]);
            if (gap > max_gap) max_gap = gap;
        }
    printf("max_gap %.9Lg\n", max_gap);
    for (int s = 0; s < l; s++) { free(sv[s].idx); free(sv[s].val); }
    for (int t = 0; t < nrow; t++) { free(x[t].idx); free(x[t].val); }
    free(sv); free(coef); free(x); free(rc); free(rsv); free(K); free(F); free(v); free(line);
    fclose(fd);
    fclose(fm);
    return 0;
}
