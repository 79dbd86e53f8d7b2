/* kkt_check.c — an independent optimality check of a C-SVC model against its training file, for
 * the tests: every training row's gradient G_t = y_t sum_s coef_s K(x_s, x_t) - 1 is recomputed in
 * long double from the model file and the data file (its own parsers, nothing of gpusvm's), and per
 * class pair LIBSVM's stopping quantity m - M (max over I_up of -y G minus min over I_low) is
 * printed, with the objective 1/2 sum a (G - 1) and the rho the gradients give.
 *
 * Usage: kkt_check [-f] data_file model_file [C [label:weight ...]]   (plain text files; C default 1;
 * the weights as -wi gave them, for the C of each class). -f: every feature value rounded to the
 * nearest float first, as gpusvm-train holds the data (its certification is exact for that). 
 * Prints "pair LI LJ gap G obj O rho R model_rho R'" per pair, then "max_gap G". Exit 0, or 2 on
 * a file it cannot read. SVs are matched to training rows as the model stores them: per class, in
 * file order, a subsequence of that class's rows (equal indices, values equal to 1e-6 relative);
 * for identical rows the match may pick another copy, which gives the same (G, alpha) multiset and
 * so the same gap and objective. */
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
        coef[c] = strtold(s, &e);
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

static int same_row(const row *a, const row *b)
{
    if (a->n != b->n) return 0;
    for (int i = 0; i < a->n; i++)
        if (a->idx[i] != b->idx[i] || fabsl(a->val[i] - b->val[i]) > 1e-6L * fabsl(a->val[i])) return 0;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "-f")) { as_float = 1; argv++; argc--; }
    if (argc < 3) { fprintf(stderr, "usage: kkt_check data_file model_file [C [label:weight ...]]\n"); return 2; }
    const long double C0 = argc > 3 ? strtold(argv[3], NULL) : 1.0L;
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
        if (!strcmp(w, "kernel_type")) {
            const char *names[] = {"linear", "polynomial", "rbf", "sigmoid"};
            for (int i = 0; i < 4; i++) if (strstr(a, names[i])) kt = i;
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
    row *sv = calloc((size_t)l, sizeof *sv);
    long double *coef = calloc((size_t)l * (k - 1), sizeof *coef);
    int *sv_class = calloc((size_t)l, sizeof *sv_class);
    for (int s = 0, c = 0, in_c = 0; s < l; s++) {
        if (getline(&line, &cap, fm) <= 0 || parse_row(line, &sv[s], k - 1, coef + (size_t)s * (k - 1))) {
            fprintf(stderr, "kkt_check: bad SV line %d\n", s + 1);
            return 2;
        }
        while (in_c >= nsv[c]) { c++; in_c = 0; }
        sv_class[s] = c;
        in_c++;
    }
    int nrow = 0, rcap = 1024;
    row *x = malloc(sizeof *x * rcap);
    long double dummy;
    while (getline(&line, &cap, fd) > 0) {
        if (nrow == rcap) x = realloc(x, sizeof *x * (rcap *= 2));
        if (parse_row(line, &x[nrow], 0, &dummy)) { fprintf(stderr, "kkt_check: bad data line %d\n", nrow + 1); return 2; }
        nrow++;
    }
    /* class of each row and its matched SV (-1: none) */
    int *rc = malloc(sizeof(int) * (nrow ? nrow : 1)), *rsv = malloc(sizeof(int) * (nrow ? nrow : 1));
    int next[1024], end[1024];
    for (int c = 0, s = 0; c < k; c++) { next[c] = s; s += nsv[c]; end[c] = s; }
    for (int t = 0; t < nrow; t++) {
        rc[t] = -1;
        rsv[t] = -1;
        for (int c = 0; c < k; c++) if ((long double)label[c] == x[t].y) rc[t] = c;
        const int c = rc[t];
        if (c >= 0 && next[c] < end[c] && same_row(&sv[next[c]], &x[t])) rsv[t] = next[c]++;
    }
    for (int c = 0; c < k; c++)
        if (next[c] != end[c]) { fprintf(stderr, "kkt_check: %d SVs of class %d not found in the data\n", end[c] - next[c], label[c]); return 2; }
    long double *K = malloc(sizeof(long double) * (size_t)l);
    long double *G = malloc(sizeof(long double) * (size_t)(nrow ? nrow : 1) * (k * (k - 1) / 2));
    const int npair = k * (k - 1) / 2;
    for (int t = 0; t < nrow; t++) {
        if (rc[t] < 0) continue;
        for (int s = 0; s < l; s++) {
            long double v;
            if (kt == 2) v = expl(-gamma * dist2(&sv[s], &x[t]));
            else if (kt == 0) v = dot(&sv[s], &x[t]);
            else if (kt == 1) v = powl(gamma * dot(&sv[s], &x[t]) + coef0, degree);
            else v = tanhl(gamma * dot(&sv[s], &x[t]) + coef0);
            K[s] = v;
        }
        for (int i = 0, p = 0; i < k; i++)
            for (int j = i + 1; j < k; j++, p++) {
                if (rc[t] != i && rc[t] != j) continue;
                long double f = 0; /* the model's SVs are grouped by class */
                for (int s = next[i] - nsv[i]; s < next[i]; s++) f += coef[(size_t)s * (k - 1) + j - 1] * K[s];
                for (int s = next[j] - nsv[j]; s < next[j]; s++) f += coef[(size_t)s * (k - 1) + i] * K[s];
                G[(size_t)t * npair + p] = (rc[t] == i ? f : -f) - 1;
            }
    }
    long double max_gap = 0;
    for (int i = 0, p = 0; i < k; i++)
        for (int j = i + 1; j < k; j++, p++) {
            long double m = -INFINITY, M = INFINITY, obj = 0, ub = INFINITY, lb = -INFINITY, sfree = 0;
            long nfree = 0;
            for (int t = 0; t < nrow; t++) {
                if (rc[t] != i && rc[t] != j) continue;
                const int y = rc[t] == i ? 1 : -1;
                long double a = 0;
                if (rsv[t] >= 0) a = fabsl(coef[(size_t)rsv[t] * (k - 1) + (y > 0 ? j - 1 : i)]);
                const long double g = G[(size_t)t * npair + p], yg = y * g;
                /* the row's C (the model does not state it): C times its class's weights */
                long double C = C0;
                for (int w = 4; w < argc; w++)
                    if (atoi(argv[w]) == label[rc[t]] && strchr(argv[w], ':')) C *= strtold(strchr(argv[w], ':') + 1, NULL);
                const int up = (y > 0 && a < C) || (y < 0 && a > 0);
                const int low = (y > 0 && a > 0) || (y < 0 && a < C);
                if (up && -yg > m) m = -yg;
                if (low && -yg < M) M = -yg;
                if (a > 0 && a < C) { nfree++; sfree += yg; }
                else if ((a >= C) == (y < 0)) { if (yg < ub) ub = yg; }
                else if (yg > lb) lb = yg;
                obj += a * (g - 1);
            }
            const long double rho = nfree ? sfree / nfree : (ub + lb) / 2;
            printf("pair %d %d gap %.9Lg obj %.9Lf rho %.9Lf model_rho %.9f\n", label[i], label[j], m - M, obj / 2,
                   rho, mrho[p]);
            if (m - M > max_gap) max_gap = m - M;
        }
    printf("max_gap %.9Lg\n", max_gap);
    for (int s = 0; s < l; s++) { free(sv[s].idx); free(sv[s].val); }
    for (int t = 0; t < nrow; t++) { free(x[t].idx); free(x[t].val); }
    free(sv); free(coef); free(sv_class); free(x); free(rc); free(rsv); free(K); free(G); free(line);
    fclose(fd);
    fclose(fm);
    return 0;
}
