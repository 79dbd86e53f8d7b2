/* grid.c — see grid.h. */
#include "train/grid.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/cv.h"
#include "util/numfmt.h"
#include "util/order.h"

enum { GRID_MAX_CELLS = 1000000 };

int gs_grid_axis_parse(const char *s, gs_grid_axis *out)
{
    if (strcmp(s, "null") == 0) {
        *out = (gs_grid_axis){0};
        return 0;
    }
    double v[3];
    const char *p = s;
    for (int i = 0; i < 3; i++) {
        char *end = NULL;
        errno = 0;
        v[i] = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(v[i])) return -1;
        if (*end != (i < 2 ? ',' : '\0')) return -1;
        p = end + 1;
    }
    if (v[2] == 0) return -1; /* grid.py would count forever */
    *out = (gs_grid_axis){.on = 1, .begin = v[0], .end = v[1], .step = v[2]};
    return 0;
}

/* The axis' values begin, begin+step, ... (accumulated) while not past end. *n is 0 when there is
 * none, -1 when there are more than GRID_MAX_CELLS. */
static double *axis_values(const gs_grid_axis *a, int *n)
{
    *n = 0;
    int cap = 16;
    double *v = malloc(sizeof *v * (size_t)cap);
    for (double x = a->begin; v && !(a->step > 0 && x > a->end) && !(a->step < 0 && x < a->end); x += a->step) {
        if (*n == GRID_MAX_CELLS) { *n = -1; break; }
        if (*n == cap) {
            double *w = realloc(v, sizeof *v * (size_t)(cap *= 2));
            if (!w) { free(v); return NULL; }
            v = w;
        }
        v[(*n)++] = x;
    }
    return v;
}

/* out[0..n): seq's middle element, then the two halves' own orders taken alternately, left first.
 * @return 0, or -1 out of memory */
static int middle_out(const double *seq, int n, double *out)
{
    if (n <= 0) return 0;
    const int mid = n / 2, nl = mid, nr = n - mid - 1;
    double *half = malloc(sizeof *half * (size_t)(n > 1 ? n - 1 : 1));
    if (!half || middle_out(seq, nl, half) || middle_out(seq + mid + 1, nr, half + nl)) {
        free(half);
        return -1;
    }
    out[0] = seq[mid];
    int k = 1;
    for (int i = 0; i < nl || i < nr; i++) {
        if (i < nl) out[k++] = half[i];
        if (i < nr) out[k++] = half[nl + i];
    }
    free(half);
    return 0;
}

/* An axis' values in visiting order, or {NAN} (one value) when it is off. */
static gs_status axis_order(const gs_grid_axis *a, const char *name, double **out, int *n)
{
    *out = NULL;
    if (!a->on) {
        if (!(*out = malloc(sizeof **out))) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
        (*out)[0] = NAN;
        *n = 1;
        return GS_OK;
    }
    double *seq = axis_values(a, n);
    if (!seq) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    if (*n <= 0) {
        free(seq);
        return *n == 0 ? GS_FAIL(GS_ERR_ARG, "-%s %g,%g,%g: the range has no value", name, a->begin, a->end, a->step)
                       : GS_FAIL(GS_ERR_ARG, "-%s %g,%g,%g: more than %d values", name, a->begin, a->end, a->step,
                                 GRID_MAX_CELLS);
    }
    *out = malloc(sizeof **out * (size_t)*n);
    if (!*out || middle_out(seq, *n, *out)) {
        free(seq);
        free(*out);
        *out = NULL;
        return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    }
    free(seq);
    return GS_OK;
}

/* grid.py's C x gamma order: each step adds the next C (with every gamma already visited) or the
 * next gamma (with every C already visited), whichever axis has covered the smaller fraction of
 * its values, gamma on a tie; so the cells fill the grid coarse to fine. */
static int plan_cg(const double *c, int nc, const double *g, int ng, double p, gs_grid_cell *out)
{
    int i = 0, j = 0, k = 0;
    while (i < nc || j < ng) {
        if ((double)i / nc < (double)j / ng) {
            for (int t = 0; t < j; t++) out[k++] = (gs_grid_cell){.v = {c[i], g[t], p}};
            i++;
        } else {
            for (int t = 0; t < i; t++) out[k++] = (gs_grid_cell){.v = {c[t], g[j], p}};
            j++;
        }
    }
    return k;
}

gs_status gs_grid_plan(const gs_grid_axis *axes, gs_grid_cell **cells, int *n)
{
    static const char *const names[GS_GRID_AXES] = {"log2c", "log2g", "log2p"};
    double *v[GS_GRID_AXES] = {NULL, NULL, NULL};
    int nv[GS_GRID_AXES] = {0, 0, 0};
    gs_status st = GS_OK;
    *cells = NULL;
    *n = 0;
    if (!axes[GS_GRID_C].on && !axes[GS_GRID_G].on)
        return GS_FAIL(GS_ERR_ARG, "-log2c and -log2g should not be null simultaneously");
    for (int a = 0; a < GS_GRID_AXES; a++)
        if ((st = axis_order(&axes[a], names[a], &v[a], &nv[a]))) goto cleanup;
    const double total = (double)nv[0] * nv[1] * nv[2];
    if (total > GRID_MAX_CELLS) {
        st = GS_FAIL(GS_ERR_ARG, "the grid has %.0f cells, more than %d", total, GRID_MAX_CELLS);
        goto cleanup;
    }
    if (!(*cells = malloc(sizeof **cells * (size_t)total))) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
    for (int q = 0; q < nv[GS_GRID_P]; q++)
        *n += plan_cg(v[GS_GRID_C], nv[GS_GRID_C], v[GS_GRID_G], nv[GS_GRID_G], v[GS_GRID_P][q], *cells + *n);
    for (int i = 0; i < *n; i++)
        for (int a = 0; a < GS_GRID_AXES; a++) (*cells)[i].ints[a] = (unsigned char)(axes[a].on && axes[a].ints);
cleanup:
    for (int a = 0; a < GS_GRID_AXES; a++) free(v[a]);
    return st;
}

size_t gs_grid_fmt_value(const gs_grid_cell *c, int k, char *out)
{
    if (c->ints[k] && fabs(c->v[k]) < 1e15) return (size_t)snprintf(out, GS_FMT_MAX, "%.0f", c->v[k]);
    return gs_fmt_repr(c->v[k], out);
}

static int same_value(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

int gs_grid_same(const gs_grid_cell *a, const gs_grid_cell *b)
{
    for (int k = 0; k < GS_GRID_AXES; k++)
        if (!same_value(a->v[k], b->v[k])) return 0;
    return 1;
}

void gs_grid_best_init(gs_grid_best *b, int lower)
{
    memset(b, 0, sizeof *b);
    b->lower = lower;
    b->rate = lower ? INFINITY : -1; /* grid.py starts from -1: any rate wins */
    for (int k = 0; k < GS_GRID_AXES; k++) b->cell.v[k] = NAN;
}

int gs_grid_better(gs_grid_best *b, const gs_grid_cell *c, double rate)
{
    const int wins = b->lower ? rate < b->rate : rate > b->rate;
    /* a tie goes to the smaller C at the same gamma (and p): grid.py's rule, which ignores ties
     * across gammas */
    const int tie = rate == b->rate && same_value(c->v[GS_GRID_G], b->cell.v[GS_GRID_G]) &&
                    same_value(c->v[GS_GRID_P], b->cell.v[GS_GRID_P]) && c->v[GS_GRID_C] < b->cell.v[GS_GRID_C];
    if (!b->any || wins || tie) {
        b->any = 1;
        b->cell = *c;
        b->rate = rate;
        return 1;
    }
    return 0;
}

void gs_grid_cell_param(const gs_grid_cell *c, gs_param *p)
{
    if (!isnan(c->v[GS_GRID_C])) p->C = pow(2.0, c->v[GS_GRID_C]);
    if (!isnan(c->v[GS_GRID_G])) p->gamma = pow(2.0, c->v[GS_GRID_G]);
    if (!isnan(c->v[GS_GRID_P])) p->p = pow(2.0, c->v[GS_GRID_P]);
}

/* The rate of one cell's predictions, as svm-train -v prints it (gs_cross_validation_print's %g)
 * and grid.py reads it back. */
static double rate_of(const gs_problem *prob, int regression, const double *target)
{
    double r = 0;
    const int l = prob->l;
    if (regression) {
        for (int i = 0; i < l; i++) r += (target[i] - prob->y[i]) * (target[i] - prob->y[i]);
        r /= l;
    } else {
        int correct = 0;
        for (int i = 0; i < l; i++) correct += target[i] == prob->y[i];
        r = 100.0 * correct / l;
    }
    char txt[GS_FMT_MAX];
    gs_fmt_g(r, txt);
    return strtod(txt, NULL);
}

gs_status gs_grid_cell_rate(const gs_device_provider *dev, const gs_problem *prob, const gs_param *base,
                            int nr_fold, const gs_grid_cell *c, double *target, double *rate)
{
    gs_param p = *base; /* shallow: the weight table is only read */
    gs_grid_cell_param(c, &p);
    const gs_log quiet = {.quiet = 1};
    gs_status st = gs_cross_validation(dev, prob, &p, nr_fold, &quiet, target);
    if (st == GS_OK) *rate = rate_of(prob, p.svm_type == GS_EPSILON_SVR || p.svm_type == GS_NU_SVR, target);
    return st;
}

int gs_grid_batchable(const gs_param *base, const gs_grid_axis *axes)
{
    return base->svm_type == GS_C_SVC && !base->probability && axes[GS_GRID_C].on;
}

int gs_grid_batches(const gs_grid_cell *cells, const int *todo, int n, int batch_max, int *order, int *start)
{
    char *taken = calloc((size_t)(n ? n : 1), 1);
    int ng = 0, k = 0;
    for (int i = 0; i < n; i++) {
        if (taken && taken[i]) continue;
        start[ng++] = k;
        order[k++] = todo[i];
        if (!taken || batch_max <= 1) continue;
        gs_grid_cell key = cells[todo[i]];
        int size = 1;
        for (int j = i + 1; j < n && size < batch_max && size < GS_GRID_BATCH_MAX; j++) {
            key.v[GS_GRID_C] = cells[todo[j]].v[GS_GRID_C];
            key.ints[GS_GRID_C] = cells[todo[j]].ints[GS_GRID_C];
            if (taken[j] || !gs_grid_same(&key, &cells[todo[j]])) continue;
            taken[j] = 1;
            order[k++] = todo[j];
            size++;
        }
    }
    start[ng] = k;
    free(taken);
    return ng;
}

/* ||x_a - x_b||^2 of two rows of prob (ascending indices: a merge) */
static double row_dist2(const gs_problem *prob, int32_t a, int32_t b)
{
    int64_t i = prob->row_ptr[a], j = prob->row_ptr[b];
    const int64_t ie = prob->row_ptr[a + 1], je = prob->row_ptr[b + 1];
    double d = 0;
#define GS_VAL(k) (prob->val ? (double)prob->val[k] : prob->dval[k])
    while (i < ie || j < je) {
        double t;
        if (j >= je || (i < ie && prob->idx[i] < prob->idx[j])) t = GS_VAL(i++);
        else if (i >= ie || prob->idx[j] < prob->idx[i]) t = GS_VAL(j++);
        else { t = GS_VAL(i) - GS_VAL(j); i++; j++; }
        d += t * t;
    }
#undef GS_VAL
    return d;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gs_grid_rbf_scale(const gs_problem *prob)
{
    const int32_t l = prob->l;
    if (l < 2 || (!prob->val && !prob->dval)) return 0;
    const int64_t pairs = (int64_t)l * (l - 1) / 2;
    const int m = pairs < GS_GRID_SCALE_PAIRS ? (int)pairs : GS_GRID_SCALE_PAIRS;
    double d[GS_GRID_SCALE_PAIRS];
    uint64_t x = 0x9E3779B97F4A7C15ull; /* a fixed xorshift stream: the same pairs every run */
    for (int k = 0; k < m; k++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        const int32_t a = (int32_t)(x % (uint64_t)l);
        const int32_t b = (int32_t)((a + 1 + (int64_t)((x >> 32) % (uint64_t)(l - 1))) % l);
        d[k] = row_dist2(prob, a, b);
    }
    qsort(d, (size_t)m, sizeof d[0], cmp_double);
    const double med = d[m / 2];
    return isfinite(med) && med > 0 ? med : 0;
}

gs_status gs_grid_cost_order(const gs_grid_cell *cells, int *idx, int n, double scale)
{
    if (n < 2) return GS_OK;
    double *cost = malloc(sizeof *cost * (size_t)n);
    int *order = malloc(sizeof *order * (size_t)n), *was = malloc(sizeof *was * (size_t)n);
    gs_status st = cost && order && was ? GS_OK : GS_FAIL(GS_ERR_NOMEM, "out of memory");
    const double ls = scale > 0 ? log2(scale) : NAN;
    for (int i = 0; st == GS_OK && i < n; i++) {
        const double c = cells[idx[i]].v[GS_GRID_C], g = cells[idx[i]].v[GS_GRID_G];
        cost[i] = (isnan(c) ? 0 : c) - (isnan(g) || isnan(ls) ? 0 : fabs(g + ls));
        was[i] = idx[i];
    }
    if (st == GS_OK) st = gs_order_by_cost(cost, order, n);
    for (int i = 0; st == GS_OK && i < n; i++) idx[i] = was[order[i]];
    free(cost); free(order); free(was);
    return st;
}

gs_status gs_grid_batch_rates(const gs_device_provider *dev, const gs_problem *prob, const gs_param *base,
                              int nr_fold, const gs_grid_cell *cells, const int *idx, int n, double *target,
                              double *rates)
{
    const gs_log quiet = {.quiet = 1};
    if (n == 1 || base->svm_type != GS_C_SVC || base->probability) { /* -b 1: each cell its own rand() stream */
        for (int i = 0; i < n; i++) {
            gs_status st = gs_grid_cell_rate(dev, prob, base, nr_fold, &cells[idx[i]], target, &rates[i]);
            if (st != GS_OK) return st;
        }
        return GS_OK;
    }
    double *C = calloc((size_t)n, sizeof *C);
    if (!C) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    gs_param p = *base; /* shallow: the weight table is only read */
    gs_grid_cell_param(&cells[idx[0]], &p); /* gamma (the cells differ only in C) */
    for (int i = 0; i < n; i++) C[i] = pow(2.0, cells[idx[i]].v[GS_GRID_C]);
    gs_status st = gs_cross_validation_c_values(dev, prob, &p, nr_fold, C, n, &quiet, target);
    for (int i = 0; i < n && st == GS_OK; i++) rates[i] = rate_of(prob, 0, target + (size_t)i * (size_t)prob->l);
    free(C);
    return st;
}

size_t gs_grid_line(const gs_grid_cell *c, double rate, char *buf, size_t cap)
{
    static const char *const key[GS_GRID_AXES] = {"log2c=", "log2g=", "log2p="};
    char num[GS_FMT_MAX];
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < GS_GRID_AXES; k++) {
        if (isnan(c->v[k])) continue;
        gs_grid_fmt_value(c, k, num);
        n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, "%s%s ", key[k], num);
    }
    gs_fmt_repr(rate, num);
    n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, "rate=%s", num);
    return n;
}

/* The number after key in line: the longest run of chars from `set` (at least one), read whole.
 * @return 1 found, 0 absent, -1 there but not a number */
static int field(const char *line, const char *key, const char *set, double *out)
{
    const char *k = strstr(line, key);
    if (!k) return 0;
    const char *s = k + strlen(key);
    const size_t len = strspn(s, set);
    if (len == 0) return 0; /* grid.py's pattern needs one character: no match at all */
    char buf[64];
    if (len >= sizeof buf) return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    *out = strtod(buf, &end);
    return *end == '\0' && end != buf ? 1 : -1;
}

/* Adds or updates (a repeated cell keeps its place and takes the later rate). */
static gs_status resumed_put(gs_grid_resumed *r, int *cap, const gs_grid_cell *c, double rate)
{
    for (int i = 0; i < r->n; i++)
        if (gs_grid_same(&r->cell[i], c)) {
            r->rate[i] = rate;
            return GS_OK;
        }
    if (r->n == *cap) {
        const int nc = *cap ? 2 * *cap : 64;
        gs_grid_cell *c2 = realloc(r->cell, sizeof *c2 * (size_t)nc);
        if (c2) r->cell = c2;
        double *r2 = c2 ? realloc(r->rate, sizeof *r2 * (size_t)nc) : NULL;
        if (r2) r->rate = r2;
        if (!c2 || !r2) return GS_FAIL(GS_ERR_NOMEM, "out of memory reading the resume file");
        *cap = nc;
    }
    r->cell[r->n] = *c;
    r->rate[r->n++] = rate;
    return GS_OK;
}

gs_status gs_grid_resume_read(const char *path, gs_grid_resumed *out)
{
    static const char *const key[GS_GRID_AXES] = {"log2c=", "log2g=", "log2p="};
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f) return GS_FAIL(GS_ERR_IO, "can't open resume file %s: %s", path, strerror(errno));
    gs_status st = GS_OK;
    char *line = NULL;
    size_t lcap = 0;
    int cap = 0;
    for (long no = 1; getline(&line, &lcap, f) >= 0; no++) {
        double rate = 0;
        const int hr = field(line, "rate=", "0123456789.", &rate);
        if (hr == 0) continue;
        gs_grid_cell c = {.ints = {0, 0, 0}};
        int bad = hr < 0;
        for (int k = 0; k < GS_GRID_AXES && !bad; k++) {
            const int h = field(line, key[k], "0123456789.-", &c.v[k]);
            if (h == 0) c.v[k] = NAN;
            bad = h < 0;
        }
        if (bad) { st = GS_FAIL(GS_ERR_FORMAT, "resume file %s, line %ld: a value that is not a number", path, no); break; }
        if ((st = resumed_put(out, &cap, &c, rate))) break;
    }
    if (st == GS_OK && ferror(f)) st = GS_FAIL(GS_ERR_IO, "can't read resume file %s", path);
    free(line);
    fclose(f);
    if (st != GS_OK) gs_grid_resumed_free(out);
    return st;
}

void gs_grid_resumed_free(gs_grid_resumed *r)
{
    if (!r) return;
    free(r->cell);
    free(r->rate);
    memset(r, 0, sizeof *r);
}

/* qsort order of the plot's points: log2 C ascending, then log2 gamma descending (one contour line
 * per C column, as gnuplot's grid data wants). */
static int by_c_then_g_desc(const void *pa, const void *pb)
{
    const double *a = pa, *b = pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return a[1] > b[1] ? -1 : a[1] < b[1];
}

/* src with '\\' and '"' escaped for a gnuplot double-quoted string, cut to fit cap. */
static void gp_quote(const char *src, char *dst, size_t cap)
{
    size_t k = 0;
    for (; *src && k + 3 < cap; src++) {
        if (*src == '\\' || *src == '"') dst[k++] = '\\';
        dst[k++] = *src;
    }
    dst[k] = '\0';
}

int gs_grid_plot(FILE *gp, const char *png_path, const char *title, const gs_grid_axis *axes,
                 const gs_grid_cell *cells, const double *rates, int n, const gs_grid_best *best)
{
    if (n <= 0 || !best->any) return 0;
    int vary[3] = {0, 0, 0};
    double top = rates[0];
    for (int i = 1; i < n; i++) {
        vary[0] |= cells[i].v[GS_GRID_C] != cells[0].v[GS_GRID_C];
        vary[1] |= cells[i].v[GS_GRID_G] != cells[0].v[GS_GRID_G];
        vary[2] |= rates[i] != rates[0];
        if (rates[i] > top) top = rates[i];
    }
    if (!vary[0] || !vary[1] || !vary[2]) return 0; /* no contour to draw */
    double *pts = malloc(sizeof *pts * 3 * (size_t)n);
    if (!pts) return 0;
    for (int i = 0; i < n; i++) {
        pts[3 * i] = cells[i].v[GS_GRID_C];
        pts[3 * i + 1] = cells[i].v[GS_GRID_G];
        pts[3 * i + 2] = rates[i];
    }
    qsort(pts, (size_t)n, 3 * sizeof *pts, by_c_then_g_desc);
    char bc[GS_FMT_MAX], bg[GS_FMT_MAX], br[GS_FMT_MAX], c2[GS_FMT_MAX], g2[GS_FMT_MAX];
    gs_grid_fmt_value(&best->cell, GS_GRID_C, bc);
    gs_grid_fmt_value(&best->cell, GS_GRID_G, bg);
    gs_fmt_repr(best->rate, br);
    /* grid.py's label takes 2**log2c, an int for an int log2c >= 0 (2048), else a float */
    gs_grid_cell two = best->cell;
    for (int k = 0; k < GS_GRID_AXES; k++) {
        two.ints[k] = two.ints[k] && two.v[k] >= 0;
        two.v[k] = pow(2.0, two.v[k]);
    }
    gs_grid_fmt_value(&two, GS_GRID_C, c2);
    gs_grid_fmt_value(&two, GS_GRID_G, g2);
    const gs_grid_axis *ac = &axes[GS_GRID_C], *ag = &axes[GS_GRID_G];
    char png_q[1024], title_q[512];
    gp_quote(png_path, png_q, sizeof png_q);
    gp_quote(title, title_q, sizeof title_q);
    /* levels from the best rate rounded (half to even, as Python's round) less 3, every 0.5 */
    fprintf(gp, "set term png transparent small linewidth 2 medium enhanced\nset output \"%s\"\n"
                "set xlabel \"log2(C)\"\nset ylabel \"log2(gamma)\"\nset xrange [%.17g:%.17g]\n"
                "set yrange [%.17g:%.17g]\nset contour\nset cntrparam levels incremental %.17g,0.5,100\n"
                "unset surface\nunset ztics\nset view 0,0\nset title \"%s\"\nunset label\n"
                "set label \"Best log2(C) = %s  log2(gamma) = %s  %s = %s%s\" at screen 0.5,0.85 center\n"
                "set label \"C = %s  gamma = %s\" at screen 0.5,0.8 center\n"
                "set key at screen 0.9,0.9\nsplot \"-\" with lines\n",
            png_q, ac->begin, ac->end, ag->begin, ag->end, nearbyint(top) - 3, title_q, bc, bg,
            best->lower ? "MSE" : "accuracy", br, best->lower ? "" : "%", c2, g2);
    for (int i = 0; i < n; i++) {
        if (i > 0 && pts[3 * i] != pts[3 * (i - 1)]) fputc('\n', gp);
        char x[GS_FMT_MAX], y[GS_FMT_MAX], z[GS_FMT_MAX];
        gs_fmt_repr(pts[3 * i], x);
        gs_fmt_repr(pts[3 * i + 1], y);
        gs_fmt_repr(pts[3 * i + 2], z);
        fprintf(gp, "%s %s %s\n", x, y, z);
    }
    fputs("e\n\n", gp);
    fflush(gp);
    free(pts);
    return 1;
}
