/* range.c — range files: the validating reader and svm-scale's writer (range.h).
 *
 * How svm-scale reads one (compat §5.3), and why the reader here is line-based: its first pass
 * skips the header with whole-line reads (one "y" line and two number lines when the file starts
 * with 'y', then the "x" line and the lower/upper line) and collects the indices with
 * fscanf("%d %*f %*f\n") to size its arrays; its second pass reads the same file as a token stream
 * (fscanf("%lf %lf\n") after a 'y' or 'x' character, then "%d %lf %lf\n" per feature) and stops
 * silently at the first mismatch. The two readings agree, and every line is used, exactly when each
 * header line holds what its place needs and each later line holds one index and two numbers (or
 * nothing): that is the format accepted here, token by token with the C library's own scanf
 * conversions, so an accepted file gives svm-scale's numbers. A negative index would be written
 * outside svm-scale's arrays; an index beyond INT32_MAX is wrapped by %d: both are refused. */
#include "io/range.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/atomic_file.h"
#include "util/numfmt.h"

enum { RANGE_TOKEN_MAX = 4096, RANGE_MAX_TOKENS = 4 };

typedef struct tok {
    const char *s;
    size_t len;
} tok;

typedef struct cursor {
    const char *p, *end;
    const char *name;
    int64_t line; /* of the line last returned */
} cursor;

/* C-locale isspace without the locale lookup. */
static int is_ws(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* The next line [*ls, *le) without its '\n'. @return 0 at the end of the text */
static int next_line(cursor *c, const char **ls, const char **le)
{
    if (c->p >= c->end) return 0;
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    *ls = c->p;
    *le = nl ? nl : c->end;
    c->p = nl ? nl + 1 : c->end;
    c->line++;
    return 1;
}

/* Splits a line at white space into at most RANGE_MAX_TOKENS tokens (more count as that many).
 * @return the number of tokens */
static int split(const char *s, const char *e, tok *t)
{
    int n = 0;
    while (s < e && n < RANGE_MAX_TOKENS) {
        while (s < e && is_ws(*s)) s++;
        if (s == e) break;
        const char *b = s;
        while (s < e && !is_ws(*s)) s++;
        t[n].s = b;
        t[n].len = (size_t)(s - b);
        n++;
    }
    return n;
}

/* A whole token as scanf("%lf") reads it. @return 0, or -1 when it is not one whole number */
static int tok_double(const tok *t, double *out)
{
    char buf[RANGE_TOKEN_MAX + 1];
    if (t->len > RANGE_TOKEN_MAX) return -1;
    memcpy(buf, t->s, t->len);
    buf[t->len] = '\0';
    int used = -1;
    if (sscanf(buf, "%lf%n", out, &used) != 1 || used != (int)t->len) return -1;
    return 0;
}

/* A whole token as a feature index: what scanf("%d") reads, within 0..INT32_MAX.
 * @return 0, or -1 with a reason in why */
static int tok_index(const tok *t, int32_t *out, const char **why)
{
    char buf[64];
    *why = "not an integer";
    if (t->len >= sizeof buf) {
        *why = "index out of range";
        return -1;
    }
    memcpy(buf, t->s, t->len);
    buf[t->len] = '\0';
    char *end = NULL;
    errno = 0;
    const long v = strtol(buf, &end, 10);
    if (end == buf || *end != '\0') return -1;
    if (v < 0) {
        *why = "negative index";
        return -1;
    }
    if (errno == ERANGE || v > INT32_MAX) {
        *why = "index out of range";
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

static gs_status bad_line(const cursor *c, const char *what)
{
    return GS_FAIL(GS_ERR_FORMAT, "%s:%lld: %s", c->name, (long long)c->line, what);
}

/* A line that is the letter alone ("y", "x"), at its start, white space after it allowed. */
static int is_marker(const char *s, const char *e, char letter)
{
    if (s == e || *s != letter) return 0;
    for (s++; s < e; s++)
        if (!is_ws(*s)) return 0;
    return 1;
}

/* The next line must hold exactly two numbers. */
static gs_status two_numbers(cursor *c, const char *what, double *a, double *b)
{
    const char *s, *e;
    tok t[RANGE_MAX_TOKENS];
    if (!next_line(c, &s, &e)) {
        c->line++;
        return bad_line(c, what);
    }
    if (split(s, e, t) != 2 || tok_double(&t[0], a) != 0 || tok_double(&t[1], b) != 0)
        return bad_line(c, what);
    return GS_OK;
}

/* One "index min max" line (ls..le) appended to r; blank lines are skipped. */
static gs_status feature_line(cursor *c, const char *s, const char *e, gs_range *r, int64_t *cap)
{
    tok t[RANGE_MAX_TOKENS];
    const int n = split(s, e, t);
    if (n == 0) return GS_OK;
    gs_range_feature f;
    const char *why = NULL;
    if (n != 3) return bad_line(c, "expected \"index min max\"");
    if (tok_index(&t[0], &f.index, &why) != 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s: \"%.*s\"", why, (int)(t[0].len > 40 ? 40 : t[0].len), t[0].s);
        return bad_line(c, msg);
    }
    if (tok_double(&t[1], &f.min) != 0 || tok_double(&t[2], &f.max) != 0)
        return bad_line(c, "expected \"index min max\" (min and max numbers)");
    if (r->n == *cap) {
        const int64_t nc = *cap ? *cap * 2 : 64;
        gs_range_feature *nf = realloc(r->f, (size_t)nc * sizeof *nf);
        if (!nf) return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
        r->f = nf;
        *cap = nc;
    }
    r->f[r->n++] = f;
    if (f.index > r->max_index) r->max_index = f.index;
    return GS_OK;
}

gs_status gs_range_parse(const char *text, size_t len, const char *name, gs_range *out)
{
    gs_status st = GS_OK;
    gs_range r = {0};
    int64_t cap = 0;
    cursor c = {text, text + len, name, 0};
    const char *s, *e;
    memset(out, 0, sizeof *out);

    const char *nul = memchr(text, '\0', len);
    if (nul) {
        c.line = 1;
        for (const char *q = text; q < nul; q++) c.line += *q == '\n';
        return bad_line(&c, "NUL byte");
    }
    if (!next_line(&c, &s, &e)) {
        c.line = 1;
        return bad_line(&c, "empty file (expected \"x\" or \"y\")");
    }
    if (is_marker(s, e, 'y')) {
        r.has_y = 1;
        if ((st = two_numbers(&c, "expected two numbers: y_lower y_upper", &r.y_lower, &r.y_upper)) != GS_OK ||
            (st = two_numbers(&c, "expected two numbers: y_min y_max", &r.y_min, &r.y_max)) != GS_OK)
            goto cleanup;
        if (!next_line(&c, &s, &e)) {
            c.line++;
            s = e = c.end;
        }
    }
    if (!is_marker(s, e, 'x')) {
        st = bad_line(&c, r.has_y ? "expected \"x\" alone on the line" : "expected \"x\" or \"y\" alone on the line");
        goto cleanup;
    }
    if ((st = two_numbers(&c, "expected two numbers: lower upper", &r.lower, &r.upper)) != GS_OK) goto cleanup;
    while (next_line(&c, &s, &e))
        if ((st = feature_line(&c, s, e, &r, &cap)) != GS_OK) goto cleanup;
    *out = r;
    r.f = NULL;
cleanup:
    free(r.f);
    return st;
}

gs_status gs_range_read(const char *path, gs_range *out)
{
    gs_status st = GS_OK;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    struct stat sb;
    /* svm-scale's fopen takes a directory and reads nothing from it; here it cannot be opened */
    if (!f || fstat(fileno(f), &sb) != 0 || S_ISDIR(sb.st_mode)) {
        st = GS_FAIL(GS_ERR_IO, "can't open file %s", path);
        goto cleanup;
    }
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            char *nb = realloc(buf, cap);
            if (!nb) {
                st = GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
                goto cleanup;
            }
            buf = nb;
        }
        const size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        st = GS_FAIL(GS_ERR_IO, "can't read file %s: %s", path, strerror(errno));
        goto cleanup;
    }
    st = gs_range_parse(buf ? buf : "", len, path, out);
cleanup:
    if (f) fclose(f);
    free(buf);
    return st;
}

/* Appends "%.17g" of v and then sep. */
static char *put_num(char *p, double v, char sep)
{
    p += gs_fmt_g17(v, p);
    *p++ = sep;
    return p;
}

gs_status gs_range_format(const gs_range *r, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    /* per line at most: an index (11), two numbers (2 * 24) and separators */
    const size_t need = ((size_t)r->n + 4) * (2 * GS_FMT_MAX + 16);
    char *buf = malloc(need);
    if (!buf) return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
    char *p = buf;
    if (r->has_y) {
        *p++ = 'y';
        *p++ = '\n';
        p = put_num(p, r->y_lower, ' ');
        p = put_num(p, r->y_upper, '\n');
        p = put_num(p, r->y_min, ' ');
        p = put_num(p, r->y_max, '\n');
    }
    *p++ = 'x';
    *p++ = '\n';
    p = put_num(p, r->lower, ' ');
    p = put_num(p, r->upper, '\n');
    for (int64_t i = 0; i < r->n; i++) {
        p += snprintf(p, 16, "%d ", (int)r->f[i].index);
        p = put_num(p, r->f[i].min, ' ');
        p = put_num(p, r->f[i].max, '\n');
    }
    *p = '\0';
    *text = buf;
    *len = (size_t)(p - buf);
    return GS_OK;
}

gs_status gs_range_write(const char *path, const gs_range *r)
{
    gs_status st;
    char *text = NULL;
    size_t len = 0;
    gs_atomic_file af = {0};
    if ((st = gs_range_format(r, &text, &len)) != GS_OK) return st;
    if (gs_atomic_open(&af, path) != GS_OK) {
        free(text);
        return GS_FAIL(GS_ERR_IO, "can't open file %s", path); /* svm-scale's text */
    }
    const size_t wrote = fwrite(text, 1, len, af.f);
    free(text);
    if (wrote != len) {
        const int err = errno;
        gs_atomic_discard(&af);
        return GS_FAIL(GS_ERR_IO, "cannot write %s: %s", path, strerror(err));
    }
    return gs_atomic_commit(&af);
}

void gs_range_free(gs_range *r)
{
    if (!r) return;
    free(r->f);
    memset(r, 0, sizeof *r);
}
