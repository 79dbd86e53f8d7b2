/* model.c — LIBSVM model files. The writer reproduces svm_save_model byte for byte (compat §3.1);
 * the reader accepts what svm_load_model accepts (§3.5: any whitespace between header tokens, any
 * keyword order, CRLF, tabs, a missing trailing space, lines after the SV section) but checks
 * everything svm_load_model trusts, and names file and line in each error. */
#include "io/model.h"
#include "util/atomic_file.h"
#include "util/numfmt.h"
#include "util/parallel.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const svm_names[] = {"c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr",
                                        "cs_svc"};
static const char *const kernel_names[] = {"linear", "polynomial", "rbf", "sigmoid",
                                           "precomputed"};
#define N_SVM_NAMES ((int)(sizeof svm_names / sizeof svm_names[0]))
#define N_KERNEL_NAMES ((int)(sizeof kernel_names / sizeof kernel_names[0]))

const char *gs_svm_type_name(int t) { return t >= 0 && t < N_SVM_NAMES ? svm_names[t] : NULL; }

const char *gs_kernel_type_name(int t)
{
    return t >= 0 && t < N_KERNEL_NAMES ? kernel_names[t] : NULL;
}

int gs_model_is_classification(int t) { return t == GS_C_SVC || t == GS_NU_SVC || t == GS_CS_SVC; }

static int64_t pair_count(int k) { return k <= 1 ? 0 : (int64_t)k * (k - 1) / 2; }

int64_t gs_model_rho_count(int t, int k)
{
    if (t == GS_CS_SVC) return k < 0 ? 0 : k;
    return pair_count(k);
}

int gs_model_coef_count(int t, int k)
{
    if (t == GS_CS_SVC) return k < 0 ? 0 : k;
    return k <= 1 ? 0 : k - 1;
}

void gs_model_free(gs_model *m)
{
    if (!m) return;
    free(m->rho);
    free(m->label);
    free(m->nSV);
    free(m->probA);
    free(m->probB);
    free(m->prob_density_marks);
    free(m->sv_coef);
    free(m->sv_ptr);
    free(m->sv_idx);
    free(m->sv_val);
    free(m->sv_indices);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------------------------------------
 * Writer */

static int needs_degree(int kt) { return kt == GS_KERNEL_POLY; }
static int needs_gamma(int kt)
{
    return kt == GS_KERNEL_POLY || kt == GS_KERNEL_RBF || kt == GS_KERNEL_SIGMOID;
}
static int needs_coef0(int kt) { return kt == GS_KERNEL_POLY || kt == GS_KERNEL_SIGMOID; }

/* Caller bugs caught before any file is touched, so the writer never reads out of bounds. */
static gs_status check_for_write(const gs_model *m)
{
    if (!gs_svm_type_name(m->svm_type))
        return GS_FAIL(GS_ERR_ARG, "model to save has unknown svm_type %d", m->svm_type);
    if (!gs_kernel_type_name(m->kernel_type))
        return GS_FAIL(GS_ERR_ARG, "model to save has unknown kernel_type %d", m->kernel_type);
    if (m->nr_class < 0 || m->l < 0)
        return GS_FAIL(GS_ERR_ARG, "model to save has nr_class %d, total_sv %d", m->nr_class,
                       (int)m->l);
    if (!gs_model_is_classification(m->svm_type) && m->nr_class != 2)
        return GS_FAIL(GS_ERR_ARG, "model to save: nr_class must be 2 for %s",
                       svm_names[m->svm_type]);
    if (m->n_coef != gs_model_coef_count(m->svm_type, m->nr_class))
        return GS_FAIL(GS_ERR_ARG, "model to save has n_coef %d, expected %d", m->n_coef,
                       gs_model_coef_count(m->svm_type, m->nr_class));
    if (gs_model_rho_count(m->svm_type, m->nr_class) > 0 && !m->rho)
        return GS_FAIL(GS_ERR_ARG, "model to save has no rho");
    if (gs_model_is_classification(m->svm_type) && m->nr_class > 0 && (!m->label || !m->nSV))
        return GS_FAIL(GS_ERR_ARG, "model to save has no label or nr_sv");
    if (m->l > 0 && (!m->sv_ptr || (m->n_coef > 0 && !m->sv_coef)))
        return GS_FAIL(GS_ERR_ARG, "model to save has no support vectors");
    if (m->l > 0 && m->sv_ptr[0] != 0)
        return GS_FAIL(GS_ERR_ARG, "model to save: sv_ptr[0] is not 0");
    for (int32_t s = 0; s < m->l; s++) {
        const int64_t a = m->sv_ptr[s], b = m->sv_ptr[s + 1];
        if (b < a)
            return GS_FAIL(GS_ERR_ARG, "model to save: sv_ptr decreases at SV %d", (int)s);
        if (m->kernel_type == GS_KERNEL_PRECOMPUTED) {
            /* LIBSVM writes (int)value of the first node; out of range would be undefined. */
            const double id = b > a ? m->sv_val[a] : NAN;
            if (!(id >= INT_MIN && id <= INT_MAX))
                return GS_FAIL(GS_ERR_ARG, "model to save: precomputed SV %d has no 0:ID", (int)s);
        }
    }
    return GS_OK;
}

static void put_doubles(FILE *f, const char *key, const double *v, int64_t n)
{
    fputs(key, f);
    for (int64_t i = 0; i < n; i++) fprintf(f, " %.17g", v[i]);
    fputc('\n', f);
}

static void put_ints(FILE *f, const char *key, const int *v, int64_t n)
{
    fputs(key, f);
    for (int64_t i = 0; i < n; i++) fprintf(f, " %d", v[i]);
    fputc('\n', f);
}

/* Formatted numbers by value: SV files repeat few distinct values (pixel levels, bounded
 * coefficients at C), and printf dominates writing them. Direct-mapped, so a miss just formats. */
#define FMT_SLOTS 8192
typedef struct fmt_cache {
    uint64_t key[FMT_SLOTS];
    uint8_t len[FMT_SLOTS];   /* 0: empty */
    char txt[FMT_SLOTS][40];
} fmt_cache;

/* A growing text buffer for one SV line (written with one fwrite). */
typedef struct linebuf {
    char *p;
    size_t n, cap;
    int bad;
} linebuf;

static void lb_put(linebuf *l, const char *s, size_t n)
{
    if (l->n + n > l->cap) {
        size_t c = l->cap ? 2 * l->cap : 4096;
        while (c < l->n + n) c *= 2;
        char *q = realloc(l->p, c);
        if (!q) { l->bad = 1; return; }
        l->p = q;
        l->cap = c;
    }
    memcpy(l->p + l->n, s, n);
    l->n += n;
}

/* Appends printf("%.<prec>g ", v) (prec 8: SV values, 17: coefficients; util/numfmt.h gives
 * printf's text) through the cache c (may be NULL). */
static void put_cached(linebuf *l, fmt_cache *c, int prec, double v)
{
    char tmp[GS_FMT_MAX + 1];
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    const size_t h = (size_t)((b * 0x9E3779B97F4A7C15ull) >> 51) & (FMT_SLOTS - 1);
    if (c && c->len[h] && c->key[h] == b) { lb_put(l, c->txt[h], c->len[h]); return; }
    size_t len = prec == 8 ? gs_fmt_g8(v, tmp) : gs_fmt_g17(v, tmp);
    tmp[len++] = ' ';
    const int n = (int)len;
    if (n <= 1) { l->bad = 1; return; }
    lb_put(l, tmp, (size_t)n);
    if (c && n < (int)sizeof c->txt[h]) {
        memcpy(c->txt[h], tmp, (size_t)n);
        c->key[h] = b;
        c->len[h] = (uint8_t)n;
    }
}

/* Appends "<i>:" */
static void put_index(linebuf *l, int i)
{
    char buf[16];
    unsigned u = i < 0 ? 0u - (unsigned)i : (unsigned)i;
    char *e = buf + sizeof buf;
    *--e = ':';
    do { *--e = (char)('0' + u % 10); u /= 10; } while (u);
    if (i < 0) *--e = '-';
    lb_put(l, e, (size_t)(buf + sizeof buf - e));
}

/* Appends SV s's line: its coefficients, then its pairs (or precomputed "0:ID"). */
static void put_sv_line(linebuf *lb, const gs_model *m, int32_t s, fmt_cache *cc, fmt_cache *vc)
{
    const double *c = m->sv_coef + (int64_t)s * m->n_coef;
    for (int j = 0; j < m->n_coef; j++) put_cached(lb, cc, 17, c[j]);
    const int64_t a = m->sv_ptr[s], b = m->sv_ptr[s + 1];
    if (m->kernel_type == GS_KERNEL_PRECOMPUTED) {
        char tmp[32];
        const int n = snprintf(tmp, sizeof tmp, "0:%d ", (int)m->sv_val[a]);
        lb_put(lb, tmp, (size_t)n);
    } else {
        for (int64_t p = a; p < b; p++) {
            put_index(lb, (int)m->sv_idx[p]);
            put_cached(lb, vc, 8, m->sv_val[p]);
        }
    }
    lb_put(lb, "\n", 1);
}

/* One thread's part of a wave of the SV section: SVs [from, to) formatted into out, with caches
 * of its own that live across waves. */
typedef struct sv_writer {
    const gs_model *m;
    int32_t from, to;      /* this wave's SVs for this thread */
    linebuf out;
    fmt_cache *cc, *vc;    /* NULL: uncached */
    locale_t loc;          /* the caller's locale (the library's model functions use "C" on their
                              thread, uselocale, which a new thread does not inherit) */
} sv_writer;

static void *sv_writer_run(void *arg)
{
    sv_writer *w = arg;
    const locale_t prev = uselocale(w->loc);
    w->out.n = 0;
    for (int32_t s = w->from; s < w->to && !w->out.bad; s++) put_sv_line(&w->out, w->m, s, w->cc, w->vc);
    uselocale(prev);
    return NULL;
}

/* Next chunk end after SV s: about `want` pairs (a chunk holds at least one SV). */
static int32_t chunk_end(const gs_model *m, int32_t s, int64_t want)
{
    const int64_t goal = m->sv_ptr[s] + want;
    int32_t lo = s + 1, hi = m->l; /* the first end whose pairs reach goal, by bisection */
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (m->sv_ptr[mid] >= goal) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* The SV lines in order. Large sections are formatted on the cores in waves of one chunk a thread
 * (~64K pairs, ~1 MB of text each) and written in order: printf is most of a model's writing,
 * and the text is the same bytes whatever the threads (each line depends only on its SV).
 * @return 0 when a line could not be built (out of memory), else 1 */
static int put_svs(FILE *f, const gs_model *m)
{
    enum { MAXT = 16, CHUNK = 65536 };
    const int64_t pairs = m->l > 0 ? m->sv_ptr[m->l] - m->sv_ptr[0] : 0;
    const int64_t work = pairs + (int64_t)m->l * (m->n_coef + 1);
    int nt = work < 4 * CHUNK ? 1 : gs_cpu_threads(MAXT);
    sv_writer w[MAXT];
    int ok = 1;
    const locale_t loc = uselocale((locale_t)0);
    for (int t = 0; t < nt; t++) {
        w[t] = (sv_writer){.m = m, .loc = loc};
        w[t].cc = calloc(1, sizeof *w[t].cc);
        w[t].vc = calloc(1, sizeof *w[t].vc);
    }
    for (int32_t s = 0; s < m->l && ok;) {
        int used = 0;
        for (; used < nt && s < m->l; used++) {
            const int32_t e = nt == 1 ? m->l : chunk_end(m, s, CHUNK);
            w[used].from = s;
            w[used].to = e;
            s = e;
        }
        gs_parallel_run(w, sizeof w[0], used, sv_writer_run);
        for (int t = 0; t < used && ok; t++) {
            if (w[t].out.bad) ok = 0;
            else fwrite(w[t].out.p, 1, w[t].out.n, f);
        }
    }
    for (int t = 0; t < nt; t++) {
        free(w[t].out.p);
        free(w[t].cc);
        free(w[t].vc);
    }
    return ok;
}

/* Writes the whole model; stdio errors are sticky, so the caller checks ferror/fflush once.
 * @return 0 when a line could not be built (out of memory), else 1 */
static int put_model(FILE *f, const gs_model *m)
{
    const int k = m->nr_class, kt = m->kernel_type;
    const int cls = gs_model_is_classification(m->svm_type);
    fprintf(f, "svm_type %s\n", svm_names[m->svm_type]);
    fprintf(f, "kernel_type %s\n", kernel_names[kt]);
    if (needs_degree(kt)) fprintf(f, "degree %d\n", m->degree);
    if (needs_gamma(kt)) fprintf(f, "gamma %.17g\n", m->gamma);
    if (needs_coef0(kt)) fprintf(f, "coef0 %.17g\n", m->coef0);
    fprintf(f, "nr_class %d\n", k);
    fprintf(f, "total_sv %d\n", (int)m->l);
    put_doubles(f, "rho", m->rho, gs_model_rho_count(m->svm_type, k));
    /* LIBSVM writes label/nr_sv when the arrays exist; they always do for classification, even
     * for nr_class 0, which gives the bare "label" and "nr_sv" lines of §3.4. */
    if (cls || m->label) put_ints(f, "label", m->label, k);
    if (m->probA) put_doubles(f, "probA", m->probA, pair_count(k));
    if (m->probB) put_doubles(f, "probB", m->probB, pair_count(k));
    if (m->prob_density_marks) put_doubles(f, "prob_density_marks", m->prob_density_marks, 10);
    if (cls || m->nSV) put_ints(f, "nr_sv", m->nSV, k);
    fputs("SV\n", f);
    return put_svs(f, m);
}

/* Every failure of the writer is this one message, as in LIBSVM (the CLI prints it). */
static gs_status save_failed(const char *path)
{
    return GS_FAIL(GS_ERR_IO, "can't save model to file %s", path);
}

gs_status gs_model_write(const char *path, const gs_model *m)
{
    gs_status st = check_for_write(m);
    gs_atomic_file af = {0};
    if (st != GS_OK) return st;
    /* temp + rename beside the target, symlinks followed, mode kept (atomic_file.h) */
    if (gs_atomic_open(&af, path) != GS_OK) return save_failed(path);
    if (!put_model(af.f, m)) {
        gs_atomic_discard(&af);
        return save_failed(path);
    }
    if (gs_atomic_commit(&af) != GS_OK) return save_failed(path);
    return GS_OK;
}

/* ------------------------------------------------------------------------------------------------
 * Reader. The file is read whole and NUL-terminated; a cursor hands out whitespace-separated
 * tokens with their line numbers (fscanf("%80s") semantics, without the 80-character limit). */

typedef struct reader {
    const char *path;
    const char *buf;
    size_t len;
    size_t pos;
    int line;           /* line of buf[pos], from 1 */
} reader;

typedef struct token {
    const char *s;
    size_t n;           /* 0 at end of file */
    int line;
} token;

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static token next_token(reader *r)
{
    token t = {NULL, 0, 0};
    while (r->pos < r->len && is_ws(r->buf[r->pos])) {
        if (r->buf[r->pos] == '\n') r->line++;
        r->pos++;
    }
    t.s = r->buf + r->pos;
    t.line = r->line;
    while (r->pos < r->len && !is_ws(r->buf[r->pos])) r->pos++;
    t.n = (size_t)(r->buf + r->pos - t.s);
    return t;
}

static token peek_token(const reader *r)
{
    reader c = *r;
    return next_token(&c);
}

/* Messages quote at most this much of a token (a binary file has very long "tokens"). */
#define QUOTE(t) (int)((t).n < 40 ? (t).n : 40), (t).s

/* strtod over exactly [s, s+n); the buffer's NUL or a separator always ends the number. */
static int parse_double(const char *s, size_t n, double *v)
{
    char *end;
    if (n == 0) return 0;
    *v = strtod(s, &end);
    return end == s + n;
}

static int parse_int(const char *s, size_t n, int *v)
{
    char *end;
    if (n == 0) return 0;
    errno = 0;
    const long x = strtol(s, &end, 10);
    if (end != s + n || errno == ERANGE || x < INT_MIN || x > INT_MAX) return 0;
    *v = (int)x;
    return 1;
}

static gs_status slurp(const char *path, char **out, size_t *out_len)
{
    gs_status st = GS_OK;
    char *buf = NULL;
    size_t len = 0, cap = 1 << 16;
    FILE *f = fopen(path, "rb");
    if (!f) return GS_FAIL(GS_ERR_IO, "can't open model file %s", path);
    buf = malloc(cap + 1);
    if (!buf) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory reading model file %s", path); goto cleanup; }
    for (;;) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        if (cap > SIZE_MAX / 2 - 1) {
            st = GS_FAIL(GS_ERR_NOMEM, "model file %s is too large", path);
            goto cleanup;
        }
        char *nb = realloc(buf, cap * 2 + 1);
        if (!nb) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory reading model file %s", path); goto cleanup; }
        buf = nb;
        cap *= 2;
    }
    if (ferror(f)) { st = GS_FAIL(GS_ERR_IO, "can't open model file %s", path); goto cleanup; }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    buf = NULL;
cleanup:
    free(buf);
    fclose(f);
    return st;
}

enum {
    K_SVM_TYPE, K_KERNEL_TYPE, K_DEGREE, K_GAMMA, K_COEF0, K_NR_CLASS, K_TOTAL_SV, K_RHO, K_LABEL,
    K_PROBA, K_PROBB, K_PDM, K_NR_SV, K_SV, K_COUNT
};
static const char *const key_names[K_COUNT] = {
    "svm_type", "kernel_type", "degree", "gamma", "coef0", "nr_class", "total_sv", "rho", "label",
    "probA", "probB", "prob_density_marks", "nr_sv", "SV"};

typedef struct header {
    int line[K_COUNT];  /* line of each keyword, 0 when absent */
    int64_t count[K_COUNT]; /* values read after the array keywords */
} header;

static int find_key(token t)
{
    for (int k = 0; k < K_COUNT; k++)
        if (strlen(key_names[k]) == t.n && memcmp(key_names[k], t.s, t.n) == 0) return k;
    return -1;
}

static gs_status read_name(reader *r, token kw, const char *const *names, int n_names,
                           const char *what, int *out)
{
    const token t = next_token(r);
    if (t.n == 0)
        return GS_FAIL(GS_ERR_FORMAT, "%s:%d: %s needs a value, found end of file", r->path,
                       kw.line, key_names[find_key(kw)]);
    for (int i = 0; i < n_names; i++) {
        if (strlen(names[i]) == t.n && memcmp(names[i], t.s, t.n) == 0) {
            *out = i;
            return GS_OK;
        }
    }
    return GS_FAIL(GS_ERR_FORMAT, "%s:%d: unknown %s '%.*s'", r->path, t.line, what, QUOTE(t));
}

static gs_status read_scalar(reader *r, token kw, int is_int, int *iv, double *dv)
{
    const token t = next_token(r);
    const char *name = key_names[find_key(kw)];
    if (t.n == 0)
        return GS_FAIL(GS_ERR_FORMAT, "%s:%d: %s needs a number, found end of file", r->path,
                       kw.line, name);
    if (is_int ? !parse_int(t.s, t.n, iv) : !parse_double(t.s, t.n, dv))
        return GS_FAIL(GS_ERR_FORMAT, "%s:%d: %s needs %s, found '%.*s'", r->path, t.line, name,
                       is_int ? "an integer" : "a number", QUOTE(t));
    /* svm_load_model takes "nan" and "inf" too; a non-finite gamma or coef0 makes every kernel
     * value NaN (or 0), and each row is then predicted as the same class with exit 0. */
    if (!is_int && !isfinite(*dv))
        return GS_FAIL(GS_ERR_FORMAT, "%s:%d: %s needs a finite number, found '%.*s'", r->path,
                       t.line, name, QUOTE(t));
    return GS_OK;
}

/* Reads the numbers after an array keyword: exactly `want` of them, or when want < 0 (rho before
 * svm_type, whose count depends on it) all that follow, checked once the header is complete.
 * Keywords are never numbers, so a list always ends at the next keyword. */
static gs_status read_array(reader *r, token kw, int is_int, int64_t want, int **iv, double **dv,
                            int64_t *count)
{
    const char *name = key_names[find_key(kw)];
    reader ahead = *r;
    int64_t n = 0;
    double x;
    while (want < 0 || n < want) {
        const token t = peek_token(&ahead);
        if (t.n == 0 || !parse_double(t.s, t.n, &x)) break;
        next_token(&ahead);
        n++;
    }
    if (want >= 0 && n < want)
        return GS_FAIL(GS_ERR_FORMAT, "%s:%d: %s has %lld values, expected %lld", r->path,
                       kw.line, name, (long long)n, (long long)want);
    const size_t bytes = (size_t)(n > 0 ? n : 1) * (is_int ? sizeof(int) : sizeof(double));
    void *a = malloc(bytes);
    if (!a) return GS_FAIL(GS_ERR_NOMEM, "out of memory reading model file %s", r->path);
    for (int64_t i = 0; i < n; i++) {
        const token t = next_token(r);
        if (is_int) {
            if (!parse_int(t.s, t.n, (int *)a + i)) {
                free(a);
                return GS_FAIL(GS_ERR_FORMAT, "%s:%d: %s needs integers, found '%.*s'", r->path,
                               t.line, name, QUOTE(t));
            }
        } else {
            double *const v = (double *)a + i;
            parse_double(t.s, t.n, v);
            /* rho, probA, probB, prob_density_marks: a NaN here predicts one class for every
             * row (LIBSVM trains "rho nan" from NaN features and reads it back silently). An
             * infinite rho is a model LIBSVM trains on purpose: one-class with nu = 1 (every
             * alpha at its bound) writes "rho inf" and predicts -1 for every row. */
            const int is_rho = strcmp(name, "rho") == 0;
            if (is_rho ? isnan(*v) : !isfinite(*v)) {
                free(a);
                return GS_FAIL(GS_ERR_FORMAT, "%s:%d: %s needs %s numbers, found '%.*s'",
                               r->path, t.line, name, is_rho ? "non-NaN" : "finite", QUOTE(t));
            }
        }
    }
    if (is_int) *iv = a; else *dv = a;
    *count = n;
    return GS_OK;
}

static gs_status unknown_word(const reader *r, token t, int prev, const header *h)
{
    double x;
    if (prev < 0 || !parse_double(t.s, t.n, &x))
        return GS_FAIL(GS_ERR_FORMAT, "%s:%d: unknown keyword '%.*s'", r->path, t.line, QUOTE(t));
    if (prev >= K_RHO && prev <= K_NR_SV)
        return GS_FAIL(GS_ERR_FORMAT, "%s:%d: unexpected number '%.*s' after %s's %lld value%s",
                       r->path, t.line, QUOTE(t), key_names[prev], (long long)h->count[prev],
                       h->count[prev] == 1 ? "" : "s");
    return GS_FAIL(GS_ERR_FORMAT, "%s:%d: unexpected number '%.*s' after %s's value", r->path,
                   t.line, QUOTE(t), key_names[prev]);
}

static gs_status read_header(reader *r, gs_model *m, header *h)
{
    gs_status st = GS_OK;
    int prev = -1;
    for (;;) {
        const token kw = next_token(r);
        if (kw.n == 0)
            return GS_FAIL(GS_ERR_FORMAT, "%s:%d: end of file before the SV line", r->path,
                           kw.line);
        const int k = find_key(kw);
        if (k < 0) return unknown_word(r, kw, prev, h);
        if (h->line[k])
            return GS_FAIL(GS_ERR_FORMAT, "%s:%d: %s given twice (first on line %d)", r->path,
                           kw.line, key_names[k], h->line[k]);
        h->line[k] = kw.line;
        if ((k == K_RHO || k == K_LABEL || k == K_PROBA || k == K_PROBB || k == K_NR_SV) &&
            !h->line[K_NR_CLASS])
            return GS_FAIL(GS_ERR_FORMAT, "%s:%d: %s before nr_class", r->path, kw.line,
                           key_names[k]);
        const int nk = m->nr_class;
        switch (k) {
        case K_SVM_TYPE:
            st = read_name(r, kw, svm_names, N_SVM_NAMES, "svm_type", &m->svm_type);
            break;
        case K_KERNEL_TYPE:
            st = read_name(r, kw, kernel_names, N_KERNEL_NAMES, "kernel_type", &m->kernel_type);
            break;
        case K_DEGREE: st = read_scalar(r, kw, 1, &m->degree, NULL); break;
        case K_GAMMA: st = read_scalar(r, kw, 0, NULL, &m->gamma); break;
        case K_COEF0: st = read_scalar(r, kw, 0, NULL, &m->coef0); break;
        case K_NR_CLASS:
            st = read_scalar(r, kw, 1, &m->nr_class, NULL);
            if (st == GS_OK && m->nr_class < 0)
                st = GS_FAIL(GS_ERR_FORMAT, "%s:%d: nr_class %d is negative", r->path, kw.line,
                             m->nr_class);
            break;
        case K_TOTAL_SV: {
            int l = 0;
            st = read_scalar(r, kw, 1, &l, NULL);
            if (st == GS_OK && l < 0)
                st = GS_FAIL(GS_ERR_FORMAT, "%s:%d: total_sv %d is negative", r->path, kw.line, l);
            m->l = l;
            break;
        }
        case K_RHO:
            st = read_array(r, kw, 0, h->line[K_SVM_TYPE] ? gs_model_rho_count(m->svm_type, nk) : -1,
                            NULL, &m->rho, &h->count[k]);
            break;
        case K_LABEL: st = read_array(r, kw, 1, nk, &m->label, NULL, &h->count[k]); break;
        case K_PROBA: st = read_array(r, kw, 0, pair_count(nk), NULL, &m->probA, &h->count[k]); break;
        case K_PROBB: st = read_array(r, kw, 0, pair_count(nk), NULL, &m->probB, &h->count[k]); break;
        case K_PDM:
            st = read_array(r, kw, 0, 10, NULL, &m->prob_density_marks, &h->count[k]);
            break;
        case K_NR_SV: st = read_array(r, kw, 1, nk, &m->nSV, NULL, &h->count[k]); break;
        case K_SV: return GS_OK;
        }
        if (st != GS_OK) return st;
        prev = k;
    }
}

static int cmp_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static gs_status check_count(const reader *r, const header *h, int k, int64_t want)
{
    if (h->line[k] && h->count[k] != want)
        return GS_FAIL(GS_ERR_FORMAT, "%s:%d: %s has %lld values, expected %lld", r->path,
                       h->line[k], key_names[k], (long long)h->count[k], (long long)want);
    return GS_OK;
}

/* What svm_load_model leaves to chance: required keys, array sizes, nr_sv against total_sv. */
static gs_status check_header(const reader *r, const gs_model *m, const header *h)
{
    gs_status st = GS_OK;
    const int sv_line = h->line[K_SV], kt = m->kernel_type, k = m->nr_class;
    const int cls = gs_model_is_classification(m->svm_type);
    int need[K_COUNT] = {0};
    need[K_SVM_TYPE] = need[K_KERNEL_TYPE] = need[K_NR_CLASS] = need[K_TOTAL_SV] = need[K_RHO] = 1;
    for (int i = 0; i <= K_KERNEL_TYPE; i++) {
        if (!h->line[i])
            return GS_FAIL(GS_ERR_FORMAT, "%s:%d: no %s line before SV", r->path, sv_line,
                           key_names[i]);
    }
    need[K_DEGREE] = needs_degree(kt);
    need[K_GAMMA] = needs_gamma(kt);
    need[K_COEF0] = needs_coef0(kt);
    need[K_LABEL] = need[K_NR_SV] = cls;
    for (int i = 0; i < K_COUNT; i++) {
        if (need[i] && !h->line[i])
            return GS_FAIL(GS_ERR_FORMAT, "%s:%d: no %s line before SV (a %s %s model needs it)",
                           r->path, sv_line, key_names[i], svm_names[m->svm_type],
                           kernel_names[kt]);
    }
    if (!cls && k != 2)
        return GS_FAIL(GS_ERR_FORMAT, "%s:%d: nr_class must be 2 for %s, found %d", r->path,
                       h->line[K_NR_CLASS], svm_names[m->svm_type], k);
    /* Only the polynomial kernel reads degree (LIBSVM writes it for no other). A negative one is
     * what svm_check_parameter refuses, and powi makes it 1 for every pair: one class for every
     * row. Above GS_MODEL_MAX_DEGREE, (gamma*u'v+coef0)^degree is 0 or infinite unless the base
     * lies within 0.0008 of +-1, so the model cannot separate anything; such a file is damaged or
     * not a model, and saying so beats printing one class. */
    if (kt == GS_KERNEL_POLY && (m->degree < 0 || m->degree > GS_MODEL_MAX_DEGREE))
        return GS_FAIL(GS_ERR_FORMAT, "%s:%d: degree %d is out of range (a polynomial kernel's "
                       "degree must be 0 to %d)", r->path, h->line[K_DEGREE], m->degree,
                       GS_MODEL_MAX_DEGREE);
    if ((st = check_count(r, h, K_RHO, gs_model_rho_count(m->svm_type, k))) != GS_OK) return st;
    if ((st = check_count(r, h, K_LABEL, k)) != GS_OK) return st;
    if ((st = check_count(r, h, K_NR_SV, k)) != GS_OK) return st;
    if ((st = check_count(r, h, K_PROBA, pair_count(k))) != GS_OK) return st;
    if ((st = check_count(r, h, K_PROBB, pair_count(k))) != GS_OK) return st;
    if ((st = check_count(r, h, K_PDM, 10)) != GS_OK) return st;
    if (m->nSV) {
        int64_t sum = 0;
        for (int i = 0; i < k; i++) {
            if (m->nSV[i] < 0)
                return GS_FAIL(GS_ERR_FORMAT, "%s:%d: nr_sv has a negative count %d", r->path,
                               h->line[K_NR_SV], m->nSV[i]);
            sum += m->nSV[i];
        }
        if (sum != m->l)
            return GS_FAIL(GS_ERR_FORMAT, "%s:%d: nr_sv adds up to %lld, but total_sv is %d",
                           r->path, h->line[K_NR_SV], (long long)sum, (int)m->l);
    }
    if (m->label && k > 1) {
        int *sorted = malloc((size_t)k * sizeof *sorted);
        if (!sorted) return GS_FAIL(GS_ERR_NOMEM, "out of memory reading model file %s", r->path);
        memcpy(sorted, m->label, (size_t)k * sizeof *sorted);
        qsort(sorted, (size_t)k, sizeof *sorted, cmp_int);
        for (int i = 1; i < k && st == GS_OK; i++) {
            if (sorted[i] == sorted[i - 1])
                st = GS_FAIL(GS_ERR_FORMAT, "%s:%d: label %d appears twice", r->path,
                             h->line[K_LABEL], sorted[i]);
        }
        free(sorted);
    }
    return st;
}

static int is_sv_sep(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* The next blank/tab-separated token of the current SV line; n == 0 at the end of the line. */
static token sv_token(reader *r)
{
    token t = {NULL, 0, r->line};
    while (r->pos < r->len && is_sv_sep(r->buf[r->pos])) r->pos++;
    t.s = r->buf + r->pos;
    while (r->pos < r->len && r->buf[r->pos] != '\n' && !is_sv_sep(r->buf[r->pos])) r->pos++;
    t.n = (size_t)(r->buf + r->pos - t.s);
    return t;
}

static void sv_next_line(reader *r)
{
    while (r->pos < r->len && r->buf[r->pos] != '\n') r->pos++;
    if (r->pos < r->len) {
        r->pos++;
        r->line++;
    }
}

/* svm_save_model ends every line with '\n'. Without it the last number may be cut short
 * ("13:0.5" saved, "13:0." left), and that still reads as a number. Called at the end of a line's
 * tokens (r->pos is at its '\n' or at the end of the file). */
static gs_status sv_require_newline(const reader *r, const char *what)
{
    if (r->pos < r->len) return GS_OK;
    return GS_FAIL(GS_ERR_FORMAT, "%s:%d: %s ends without a newline: the file is cut short "
                   "(svm-train ends every line with one)", r->path, r->line, what);
}

/* One "idx:value" token: idx a non-negative int, value a full strtod number. */
static int parse_pair(token t, int32_t *idx, double *val)
{
    const char *colon = memchr(t.s, ':', t.n);
    int i;
    if (!colon || colon == t.s || colon[1] == ':') return 0;
    if (!parse_int(t.s, (size_t)(colon - t.s), &i) || i < 0) return 0;
    if (!parse_double(colon + 1, t.n - (size_t)(colon + 1 - t.s), val)) return 0;
    *idx = i;
    return 1;
}

/* The SV lines, for the count and parse passes (on threads for large models: blocks of lines). */
typedef struct sv_lines {
    reader r0;            /* at the first SV line */
    gs_model *m;
    const size_t *start;  /* [n + 1] where each line starts (and where the section ends) */
    int64_t *at;          /* m->sv_ptr: each line's tokens (count pass), then its first
                             index:value pair (parse pass) */
    int32_t *bad;         /* [blocks] the block's first line that failed to parse, or -1 */
    int32_t n, per;       /* lines, lines per block */
    locale_t loc;         /* the caller's locale, for strtod on the blocks' threads (the library's
                             model functions read in "C" through uselocale, which a new thread
                             does not inherit) */
} sv_lines;

/* The reader at the start of SV line s. */
static reader sv_at(const sv_lines *v, int32_t s)
{
    reader r = v->r0;
    r.pos = v->start[s];
    r.line = v->r0.line + s;
    return r;
}

static gs_status sv_count_block(void *ctx, int b)
{
    sv_lines *v = ctx;
    const int32_t s1 = (int32_t)((int64_t)(b + 1) * v->per < v->n ? (b + 1) * v->per : v->n);
    for (int32_t s = b * v->per; s < s1; s++) {
        reader r = sv_at(v, s);
        int64_t n = 0;
        while (sv_token(&r).n) n++;
        v->at[s] = n;
    }
    return GS_OK;
}

/* Parses SV line s (its tokens counted, at least n_coef) into m's arrays at at[s]. */
static gs_status parse_sv_line(const sv_lines *v, int32_t s)
{
    gs_model *m = v->m;
    const int nc = m->n_coef;
    reader rr = sv_at(v, s), *r = &rr;
    for (int j = 0; j < nc; j++) {
        const token t = sv_token(r);
        double *const c = &m->sv_coef[(int64_t)s * nc + j];
        if (!parse_double(t.s, t.n, c))
            return GS_FAIL(GS_ERR_FORMAT, "%s:%d: bad coefficient '%.*s'", r->path, r->line, QUOTE(t));
        if (!isfinite(*c)) /* one NaN coefficient makes every decision value NaN */
            return GS_FAIL(GS_ERR_FORMAT, "%s:%d: coefficient '%.*s' is not a finite number", r->path, r->line,
                           QUOTE(t));
    }
    int64_t p = v->at[s], prev = -1;
    for (token t = sv_token(r); t.n; t = sv_token(r)) {
        if (!parse_pair(t, &m->sv_idx[p], &m->sv_val[p]))
            return GS_FAIL(GS_ERR_FORMAT, "%s:%d: bad index:value pair '%.*s'", r->path, r->line, QUOTE(t));
        if (m->sv_idx[p] <= prev)
            return GS_FAIL(GS_ERR_FORMAT, "%s:%d: index %d after %lld: indices must ascend", r->path, r->line,
                           (int)m->sv_idx[p], (long long)prev);
        prev = m->sv_idx[p];
        p++;
    }
    if (m->kernel_type == GS_KERNEL_PRECOMPUTED) {
        const int64_t p0 = v->at[s];
        const double id = p > p0 ? m->sv_val[p0] : NAN;
        if (p - p0 != 1 || m->sv_idx[p0] != 0 || !(id >= INT_MIN && id <= INT_MAX) || id != (double)(int)id)
            return GS_FAIL(GS_ERR_FORMAT, "%s:%d: a precomputed SV line needs exactly one 0:ID pair with an "
                           "integer ID", r->path, r->line);
    }
    return GS_OK;
}

/* A block's lines; the first failure is noted (the message is made again on the calling thread). */
static gs_status sv_parse_block(void *ctx, int b)
{
    sv_lines *v = ctx;
    const int32_t s1 = (int32_t)((int64_t)(b + 1) * v->per < v->n ? (b + 1) * v->per : v->n);
    const locale_t prev = uselocale(v->loc);
    v->bad[b] = -1;
    for (int32_t s = b * v->per; s < s1; s++)
        if (parse_sv_line(v, s) != GS_OK) {
            v->bad[b] = s;
            break;
        }
    uselocale(prev);
    return GS_OK;
}

/* Runs fn over the blocks of v, on threads when the section is large (each line is independent;
 * a 138,000-SV model of 2,000 values a row is 3 GB of text, 24 s of strtod on one core). */
static void sv_blocks(sv_lines *v, size_t bytes, gs_status (*fn)(void *ctx, int b))
{
    const int nt = bytes < ((size_t)4 << 20) ? 1 : gs_cpu_threads(32);
    v->per = nt == 1 ? (v->n > 0 ? v->n : 1) : (int32_t)(((int64_t)v->n + 8 * nt - 1) / (8 * nt));
    if (v->per < 1) v->per = 1;
    const int nb = (int)((v->n + v->per - 1) / v->per);
    if (nt == 1)
        for (int b = 0; b < nb; b++) fn(v, b);
    else
        gs_parallel_items(nb, nt, fn, v);
}

/* Grows the line tables (start, at: *cap + 1 entries each) toward l lines, doubling: sized by
 * the lines the file has, not by total_sv, so a short file claiming 2^31 - 1 SVs is refused
 * ("expected ... SV lines, found ...") without asking for 32 GB first. @return 0, -1 */
static int grow_lines(size_t **start, int64_t **at, int32_t *cap, int32_t l)
{
    const int32_t nc = *cap >= l / 2 ? l : (*cap ? 2 * *cap : (l < 4096 ? l : 4096));
    size_t *ns = realloc(*start, ((size_t)nc + 1) * sizeof *ns);
    if (!ns) return -1;
    *start = ns;
    int64_t *na = realloc(*at, ((size_t)nc + 1) * sizeof *na);
    if (!na) return -1;
    *at = na;
    *cap = nc;
    return 0;
}

/* The SV section: l lines of n_coef coefficients and index:value pairs. The line ends are found
 * first, then each line's tokens are counted and parsed (on threads for large models); errors are
 * those of a reading in file order. */
static gs_status read_svs(reader *r, gs_model *m, int sv_line)
{
    const int nc = m->n_coef;
    const int32_t l = m->l;
    gs_status st = GS_OK;
    size_t *start = NULL;
    int32_t *bad = NULL;

    /* The rest of the "SV" line must be empty (LIBSVM skips it unread). */
    {
        const token t = sv_token(r);
        if (t.n)
            return GS_FAIL(GS_ERR_FORMAT, "%s:%d: unexpected '%.*s' after SV", r->path, sv_line,
                           QUOTE(t));
        const gs_status st0 = sv_require_newline(r, "the SV line");
        if (st0 != GS_OK) return st0;
        sv_next_line(r);
    }
    /* Where the lines start; the first that is missing (cut_kind 1) or ends the file without its
     * newline (2: lines still expected after it, 3: the last one). */
    int32_t cut = l, cap = 0;
    int cut_kind = 0;
    size_t pos = r->pos;
    if (grow_lines(&start, &m->sv_ptr, &cap, l)) goto nomem;
    for (int32_t s = 0; s < l; s++) {
        if (s == cap && grow_lines(&start, &m->sv_ptr, &cap, l)) goto nomem;
        if (pos >= r->len) { cut = s; cut_kind = 1; break; }
        start[s] = pos;
        const char *nl = memchr(r->buf + pos, '\n', r->len - pos);
        if (!nl) { cut = s; cut_kind = s < l - 1 ? 2 : 3; break; }
        pos = (size_t)(nl - r->buf) + 1;
    }
    start[cut] = pos;
    int64_t *const at = m->sv_ptr;
    sv_lines v = {.r0 = *r, .m = m, .start = start, .at = at, .n = cut, .loc = uselocale((locale_t)0)};
    sv_blocks(&v, pos - r->pos, sv_count_block);
    /* in file order: a line without its coefficients, else the cut */
    int64_t nnz = 0;
    for (int32_t s = 0; s < cut; s++) {
        if (at[s] < nc) {
            st = GS_FAIL(GS_ERR_FORMAT, "%s:%d: SV line has %lld fields, expected %d coefficient%s first", r->path,
                         r->line + s, (long long)at[s], nc, nc == 1 ? "" : "s");
            goto cleanup;
        }
        const int64_t c = at[s];
        at[s] = nnz; /* now the line's first pair */
        nnz += c - nc;
    }
    at[cut] = nnz;
    if (cut_kind == 1 || cut_kind == 2) {
        st = GS_FAIL(GS_ERR_FORMAT, "%s:%d: expected %d SV lines, found %d", r->path, sv_line, (int)l,
                     (int)cut + (cut_kind == 2));
        goto cleanup;
    }
    if (cut_kind == 3) {
        reader at = sv_at(&v, cut);
        at.pos = r->len;
        st = sv_require_newline(&at, "the last SV line");
        goto cleanup;
    }
    m->sv_coef = malloc(((size_t)nc * (size_t)l + 1) * sizeof *m->sv_coef);
    m->sv_idx = malloc(((size_t)nnz + 1) * sizeof *m->sv_idx);
    m->sv_val = malloc(((size_t)nnz + 1) * sizeof *m->sv_val);
    bad = malloc(((size_t)l + 1) * sizeof *bad);
    if (!m->sv_coef || !m->sv_idx || !m->sv_val || !bad) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory reading model file %s", r->path);
        goto cleanup;
    }
    v.bad = bad;
    sv_blocks(&v, pos - r->pos, sv_parse_block);
    for (int b = 0; (int64_t)b * v.per < l; b++)
        if (bad[b] >= 0) { /* the first failing line again, for its message on this thread */
            st = parse_sv_line(&v, bad[b]);
            goto cleanup;
        }
    r->pos = pos;
    r->line += l;
    goto cleanup;
nomem:
    st = GS_FAIL(GS_ERR_NOMEM, "out of memory reading model file %s", r->path);
cleanup:
    free(start);
    free(bad);
    return st;
}

gs_status gs_model_read(const char *path, gs_model *out)
{
    gs_status st = GS_OK;
    char *buf = NULL;
    size_t len = 0;
    gs_model m;
    header h;
    memset(out, 0, sizeof *out);
    memset(&m, 0, sizeof m);
    memset(&h, 0, sizeof h);

    st = slurp(path, &buf, &len);
    if (st != GS_OK) goto cleanup;
    reader r = {path, buf, len, 0, 1};
    st = read_header(&r, &m, &h);
    if (st != GS_OK) goto cleanup;
    st = check_header(&r, &m, &h);
    if (st != GS_OK) goto cleanup;
    m.n_coef = gs_model_coef_count(m.svm_type, m.nr_class);
    st = read_svs(&r, &m, h.line[K_SV]);
    if (st != GS_OK) goto cleanup;
    *out = m;
    memset(&m, 0, sizeof m);
cleanup:
    gs_model_free(&m);
    free(buf);
    return st;
}

/* ---- SV values ---------------------------------------------------------------------------- */

/* The double whose %.8g text is the shortest decimal that reads back as f (LIBSVM keeps the file's
 * doubles and writes SV values with %.8g; we keep floats, and printing the float's exact value
 * would turn 0.3 into 0.30000001): the smallest precision p <= 8 whose %.*g text reads back as f,
 * and strtod of that text. This is the definition, a few printf and strtof calls per value
 * (integers are returned before it, as they are). */
static double shortest_decimal_slow(float f)
{
    char buf[320]; /* gcc 13 sizes "%.*g" of a double at up to 310 bytes */
    int lo = 1, hi = 9;
    while (lo < hi) { /* the smallest precision that round-trips */
        const int mid = (lo + hi) / 2;
        snprintf(buf, sizeof buf, "%.*g", mid, (double)f);
        if (strtof(buf, NULL) == f) hi = mid; else lo = mid + 1;
    }
    if (lo > 8) return (double)f;
    snprintf(buf, sizeof buf, "%.*g", lo, (double)f);
    return strtod(buf, NULL);
}

/* The same value by arithmetic, taken only where it provably agrees with the definition, else the
 * slow path. For precision p, the digits are m = f * 10^s rounded (s = p - 1 - the decimal
 * exponent): the product is exact to 2^-52 relative, so m is printf's correctly rounded digit string
 * unless the product lies within 1e-6 of a half-integer (then: slow path). m and 10^|s| are exact
 * doubles (m < 10^9, |s| <= 22), so m / 10^s (or m * 10^-s) is the correctly rounded value of the
 * decimal, i.e. strtod's. Whether it reads back as f: rounding the double to float can differ from
 * rounding the decimal directly only when the double sits within a few double ulps of a float
 * rounding boundary, which is checked (then: slow path). */
double gs_model_shortest_decimal(float f)
{
    static const double p10[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (fabsf(f) < 2147483648.0f && f == (float)(int32_t)f) return (double)f; /* integers as they are */
    const double x = fabs((double)f);
    if (!(x >= 1e-12 && x <= 1e12)) return shortest_decimal_slow(f);
    const int e = (int)floor(log10(x)); /* if off by one, m has the wrong digit count: slow path */
    for (int p = 1; p <= 8; p++) {
        const int s = p - 1 - e;
        if (s < -22 || s > 22) return shortest_decimal_slow(f);
        const double y = s >= 0 ? x * p10[s] : x / p10[-s];
        const double m = floor(y + 0.5);
        if (fabs(y - floor(y) - 0.5) < 1e-6 || m < p10[p - 1] || m >= p10[p]) return shortest_decimal_slow(f);
        const double d = s >= 0 ? m / p10[s] : m * p10[-s];
        const float back = (float)d;
        /* the float rounding boundaries around d: halfway to the neighbours of back */
        const double up = ((double)back + (double)nextafterf(back, INFINITY)) / 2;
        const double dn = ((double)back + (double)nextafterf(back, 0.0f)) / 2;
        if (fabs(d - up) <= 4 * fabs(up) * 0x1p-52 || fabs(d - dn) <= 4 * fabs(dn) * 0x1p-52)
            return shortest_decimal_slow(f);
        if (back == (float)x) return f < 0 ? -d : d;
    }
    return (double)f;
}

/* shortest_decimal by value (data sets repeat few distinct values; each call is a few printf and
 * strtof). Direct-mapped; a miss computes. */
#define DEC_SLOTS 16384
typedef struct dec_cache {
    uint32_t key[DEC_SLOTS];
    uint8_t used[DEC_SLOTS];
    double val[DEC_SLOTS];
} dec_cache;

static double decimal_cached(dec_cache *c, float f)
{
    if (!c) return gs_model_shortest_decimal(f);
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    const size_t h = (size_t)((b * 2654435761u) >> 18) & (DEC_SLOTS - 1);
    if (!c->used[h] || c->key[h] != b) {
        c->val[h] = gs_model_shortest_decimal(f);
        c->key[h] = b;
        c->used[h] = 1;
    }
    return c->val[h];
}

typedef struct dec_job {
    double *v;
    int64_t n;
} dec_job;

static void *dec_run(void *arg)
{
    dec_job *j = arg;
    dec_cache *dc = calloc(1, sizeof *dc); /* NULL: uncached */
    for (int64_t i = 0; i < j->n; i++) j->v[i] = decimal_cached(dc, (float)j->v[i]);
    free(dc);
    return NULL;
}

void gs_model_sv_values(double *v, int64_t n)
{
    enum { MAXT = 16 };
    const int nt = n < 20000 ? 1 : gs_cpu_threads(MAXT);
    dec_job jobs[MAXT];
    for (int t = 0; t < nt; t++) jobs[t] = (dec_job){v + n * t / nt, n * (t + 1) / nt - n * t / nt};
    gs_parallel_run(jobs, sizeof jobs[0], nt, dec_run);
}
