/* scale.c — svm-scale's passes (scale.h) over a plain or gzip data file.
 *
 * svm-scale reads its file three times: pass 1 for the largest and smallest index, pass 2 for each
 * feature's min and max, where on every line each index from 1 to max_index that the line does not
 * give counts as a 0, and pass 3 to print. Here passes 1 and 2 are one read, the scan, and pass 3
 * is the second. What makes one read enough is that pass 2's zeros can be counted instead of
 * written: on a line whose pair indices rise strictly (nearly every line of every real file) the
 * zeros go to exactly the indices 1..max_index the line lacks, so a feature gets a 0 iff fewer such
 * lines name it than there are such lines; the rare other lines (repeated or falling indices) mark
 * their zero intervals in a difference array, the way svm-scale walks them. min and max do not
 * depend on the order of their inputs unless a value is NaN or -0 (svm-scale's max(a,b) macro,
 * a > b ? a : b, keeps the later of two equal or unordered values); when one occurs pass 2 is
 * replayed literally, line by line in file order, as svm-scale runs it.
 *
 * Both reads go through linechunks.h: chunks of whole lines are parsed on worker threads. The scan
 * keeps one set of per-feature arrays per worker and merges them at the end (min, max and counts
 * do not care about the order, and the replay above is single-threaded); pass 3 formats each chunk
 * into its own buffer, written in file order.
 *
 * Pass 3 prints each line's pairs and, between them, the indices the line lacks whose scaled 0 is
 * printed: those are found once (a sorted list with their text) instead of walking 1..max_index on
 * every line, so sparse data with -l 0 costs its pairs, not its dimension. Numbers are printed with
 * numfmt.h, which gives printf's bytes.
 *
 * Input: a regular file is read twice from its descriptor (never reopened by name, so a rename
 * between the passes changes nothing). Anything else (stdin, a pipe, a device) cannot be read
 * twice; its decoded bytes are copied to an unlinked temporary file during the scan and the later
 * passes read that. */
#define _GNU_SOURCE /* sched_getaffinity: the CPUs this process may use (taskset, cgroups) */
#include "io/scale.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/linechunks.h"
#include "io/scaleline.h"
#include "util/numfmt.h"

enum {
    OUT_ITEM_MAX = 64, /* the longest "index:value " item or label: 11 + 1 + 31 + 1 */
    MAX_THREADS = 8    /* more gain nothing once the reading is the limit */
};

/* svm-scale's max/min macros: a > b ? a : b keeps b when a and b are equal or unordered. */
static inline double fold_max(double a, double b) { return a > b ? a : b; }
static inline double fold_min(double a, double b) { return a < b ? a : b; }

/* What one worker's share of the scan found. Its per-index arrays cover the indices below
 * LOW_INDICES only (at most 96 MB each, whatever the file's dimension); pairs with larger indices,
 * and the zero intervals of lines whose indices do not rise, are logged in the chunk's out buffer
 * and folded into the scaler's arrays on the calling thread (scan_done). */
typedef struct scan_part {
    double *fmin, *fmax; /* [fcap] the explicit values' min and max per index */
    int64_t *named;      /* [fcap] rising lines naming the index */
    int64_t fcap;
    int64_t rising;      /* lines whose pair indices rise strictly */
    int32_t *lidx;       /* the current line's pair indices */
    int64_t lcap;
    bool exact;          /* a NaN or -0 was read */
    double y_min, y_max;
    int32_t max_index, min_index;
    int64_t nonzeros;
    int64_t bad_seq, bad_line;  /* first bad label: chunk and line in it (bad_line 0: none) */
    int64_t neg_seq, neg_line;  /* first negative pair index, likewise */
    int32_t neg_index;
    char pad[128]; /* the workers' parts lie side by side: no shared cache line */
} scan_part;

struct gs_scaler {
    char *path;
    int fd;           /* the data; after a spooled scan, the temporary copy */
    int spool_fd;     /* the temporary copy being written during the scan, or -1 */
    char *spool_dir;
    int threads;
    size_t chunk_bytes;
    bool scanned;

    gs_scale_summary sum;
    double y_min, y_max;
    /* per index: during the scan, what the logs brought (indices >= LOW_INDICES); after it,
     * svm-scale's feature_min/max for 0..max_index */
    double *fmin, *fmax;
    int64_t *named;       /* rising lines naming the index */
    int64_t fcap;
    int64_t *zdiff;       /* [zcap] zero intervals of the lines that do not rise, as differences */
    int64_t zcap;
    int64_t ztail;        /* those lines give every index from here on a 0 (INT64_MAX: none) */
    int64_t mem_limit;    /* bytes the per-index arrays may take: beyond, "can't allocate" */
    scan_part *parts;     /* [threads] during the scan */
    int64_t *chunk_lines; /* lines per chunk of the scan, for line numbers */
    int64_t nchunks, chunks_cap;
};

/* ------------------------------------------------------------------------------------------ */
/* Open / close                                                                                */

/* Three quarters of the physical memory: per-index arrays beyond it are refused ("can't allocate
 * enough memory") rather than taken from an overcommitting kernel that kills the process when
 * they are filled (an index of 2000000000 asks for ~50 GB). */
static int64_t memory_limit(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0) return INT64_MAX;
    return (int64_t)pages / 4 * 3 * (int64_t)size;
}

/* The CPUs this process may run on (a taskset or cgroup limit counts), else the online ones. */
static int usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

gs_status gs_scaler_open(const char *path, const gs_scale_opts *opts, gs_scaler **out)
{
    gs_status st = GS_OK;
    *out = NULL;
    gs_scaler *s = calloc(1, sizeof *s);
    if (!s) return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
    s->fd = s->spool_fd = -1;
    s->ztail = INT64_MAX;
    s->mem_limit = memory_limit();
    s->threads = opts && opts->threads > 0 ? opts->threads : usable_cpus();
    if (s->threads < 1) s->threads = 1;
    if (s->threads > MAX_THREADS) s->threads = MAX_THREADS;
    s->chunk_bytes = opts ? opts->chunk_bytes : 0;
    s->path = strdup(path);
    s->spool_dir = strdup(opts && opts->spool_dir ? opts->spool_dir : "/tmp");
    if (!s->path || !s->spool_dir) {
        st = GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
        goto cleanup;
    }
    struct stat sb;
    s->fd = strcmp(path, "-") == 0 ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0 || fstat(s->fd, &sb) != 0 || S_ISDIR(sb.st_mode)) {
        st = GS_FAIL(GS_ERR_IO, "can't open file %s", path);
        goto cleanup;
    }
    if (!S_ISREG(sb.st_mode)) { /* read once only: copied to an unlinked temporary file */
        const size_t n = strlen(s->spool_dir) + 32;
        char *tmpl = malloc(n);
        if (!tmpl) {
            st = GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
            goto cleanup;
        }
        snprintf(tmpl, n, "%s/gpusvm-scale.XXXXXX", s->spool_dir);
        s->spool_fd = mkstemp(tmpl);
        const int err = errno;
        if (s->spool_fd >= 0) unlink(tmpl);
        free(tmpl);
        if (s->spool_fd < 0) {
            st = GS_FAIL(GS_ERR_IO, "can't read %s: no temporary copy in %s (%s)", path, s->spool_dir,
                         strerror(err));
            goto cleanup;
        }
    }
    *out = s;
    s = NULL;
cleanup:
    gs_scaler_close(s);
    return st;
}

/* Frees a part's arrays; its counts stay. */
static void part_free(scan_part *p)
{
    free(p->fmin);
    free(p->fmax);
    free(p->named);
    free(p->lidx);
    p->fmin = p->fmax = NULL;
    p->named = NULL;
    p->lidx = NULL;
    p->fcap = p->lcap = 0;
}

void gs_scaler_close(gs_scaler *s)
{
    if (!s) return;
    if (s->fd >= 0) close(s->fd);
    if (s->spool_fd >= 0) close(s->spool_fd);
    for (int i = 0; s->parts && i < s->threads; i++) part_free(&s->parts[i]);
    free(s->parts);
    free(s->fmin);
    free(s->fmax);
    free(s->named);
    free(s->zdiff);
    free(s->chunk_lines);
    free(s->path);
    free(s->spool_dir);
    free(s);
}

const gs_scale_summary *gs_scaler_summary(const gs_scaler *s) { return &s->sum; }

/* One pass over the data: from the start of the file (or of its copy), the copy written while the
 * scan reads an unseekable input. */
static gs_status run_pass(gs_scaler *s, int threads, const gs_chunk_job *job)
{
    if (s->spool_fd < 0 && lseek(s->fd, 0, SEEK_SET) < 0)
        return GS_FAIL(GS_ERR_IO, "can't read input file %s: %s", s->path, strerror(errno));
    const gs_chunk_src src = {s->fd, s->path, s->spool_fd, s->spool_dir, s->chunk_bytes};
    return gs_chunks_run(&src, threads, job);
}

/* Splits the chunk [b, e) into NUL-terminated lines in place: the line, and *next after it. */
static inline const char *take_line(char *b, char *e, char **next)
{
    char *nl = memchr(b, '\n', (size_t)(e - b));
    if (nl) {
        *nl = '\0';
        *next = nl + 1;
    } else {
        *e = '\0'; /* the file's last line, without '\n': the chunk has room for this NUL */
        *next = e;
    }
    return b;
}

/* ------------------------------------------------------------------------------------------ */
/* The scan: passes 1 and 2                                                                    */

/* Grows an array to nc elements of size elem. @return 0 or -1 */
static int grow_array(void **p, int64_t nc, size_t elem)
{
    if (nc < 0 || (uint64_t)nc > SIZE_MAX / elem) return -1;
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q) return -1;
    *p = q;
    return 0;
}

/* Doubling, or just what is needed when that is more (one huge index: no room for twice it). */
static int64_t next_cap(int64_t cap, int64_t need)
{
    const int64_t nc = cap < 32 ? 64 : cap > INT64_MAX / 2 ? INT64_MAX : cap * 2;
    return nc < need ? need : nc;
}

/* Per-index arrays (min, max, named) grown to hold indices 0..need-1: new entries start as
 * svm-scale's (min DBL_MAX, max -DBL_MAX), named by no line. cap_limit bounds the capacity. */
static gs_status grow_index_arrays(double **fmin, double **fmax, int64_t **named, int64_t *cap,
                                   int64_t need, int64_t cap_limit)
{
    if (need <= *cap) return GS_OK;
    int64_t nc = next_cap(*cap, need);
    if (nc > cap_limit) nc = cap_limit;
    if (nc < need || grow_array((void **)fmin, nc, sizeof **fmin) != 0 ||
        grow_array((void **)fmax, nc, sizeof **fmax) != 0 || grow_array((void **)named, nc, sizeof **named) != 0)
        return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
    for (int64_t i = *cap; i < nc; i++) {
        (*fmin)[i] = DBL_MAX;
        (*fmax)[i] = -DBL_MAX;
        (*named)[i] = 0;
    }
    *cap = nc;
    return GS_OK;
}

enum {
    LOW_INDICES = 1 << 22, /* indices a worker keeps in its own arrays (24 bytes each) */
    BYTES_PER_INDEX = 2 * sizeof(double) + sizeof(int64_t)
};

/* The scaler's arrays for indices 0..need-1, within the memory limit. */
static gs_status grow_features(gs_scaler *s, int64_t need)
{
    const int64_t limit = s->mem_limit / (int64_t)BYTES_PER_INDEX;
    return grow_index_arrays(&s->fmin, &s->fmax, &s->named, &s->fcap, need,
                             limit < (int64_t)INT32_MAX + 1 ? limit : (int64_t)INT32_MAX + 1);
}

/* What a worker logs for the calling thread (scan_done). */
typedef enum { REC_VALUE, REC_NAMED, REC_ZERO, REC_TAIL } rec_kind;
typedef struct rec {
    int32_t kind;
    int32_t index;   /* REC_VALUE, REC_NAMED */
    int64_t a, b;    /* REC_ZERO: the interval [a, b]; REC_TAIL: from a on */
    double v;        /* REC_VALUE */
} rec;

static gs_status log_rec(gs_chunk *c, rec r)
{
    if (gs_chunk_out_reserve(c, c->out_len + sizeof r) != 0)
        return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
    memcpy(c->out + c->out_len, &r, sizeof r);
    c->out_len += sizeof r;
    return GS_OK;
}

/* A line whose pairs do not rise strictly: the zero intervals svm-scale's pass 2 walks for it
 * (before each pair from the index after the previous one, after the last to max_index). */
static gs_status log_zero_intervals(gs_chunk *c, const int32_t *idx, int64_t n)
{
    gs_status st;
    int64_t next = 1;
    for (int64_t k = 0; k < n; k++) {
        if (idx[k] > next && (st = log_rec(c, (rec){REC_ZERO, 0, next, (int64_t)idx[k] - 1, 0})) != GS_OK)
            return st;
        next = (int64_t)idx[k] + 1;
    }
    return log_rec(c, (rec){REC_TAIL, 0, next, 0, 0});
}

static inline bool needs_exact(double v) { return v != v || (v == 0 && signbit(v)); }

/* The label of one line for the scan. */
static inline void scan_label(scan_part *p, const char *line, int64_t seq, int64_t lineno)
{
    double y;
    if (gs_sl_double(line, &y)) {
        p->exact |= needs_exact(y);
        p->y_max = fold_max(p->y_max, y);
        p->y_min = fold_min(p->y_min, y);
    } else if (!p->bad_line) {
        p->bad_seq = seq;
        p->bad_line = lineno;
    }
}

/* A pass-2 pair (idx >= 0): its value, and the line's list of indices. */
static inline gs_status scan_pair(scan_part *p, gs_chunk *c, int32_t idx, double v, int64_t n)
{
    gs_status st;
    if (n == p->lcap) {
        p->lcap = next_cap(p->lcap, n + 1);
        if (grow_array((void **)&p->lidx, p->lcap, sizeof *p->lidx) != 0)
            return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
    }
    p->lidx[n] = idx;
    p->exact |= needs_exact(v);
    if (idx >= LOW_INDICES) return log_rec(c, (rec){REC_VALUE, idx, 0, 0, v});
    if (idx >= p->fcap &&
        (st = grow_index_arrays(&p->fmin, &p->fmax, &p->named, &p->fcap, (int64_t)idx + 1, LOW_INDICES)) != GS_OK)
        return st;
    p->fmin[idx] = fold_min(p->fmin[idx], v);
    p->fmax[idx] = fold_max(p->fmax[idx], v);
    return GS_OK;
}

/* One line of the scan (line lineno of chunk c). */
static gs_status scan_line(scan_part *p, gs_chunk *c, const char *line, int64_t lineno)
{
    gs_status st;
    scan_label(p, line, c->seq, lineno);
    gs_sl_iter it;
    gs_sl_begin(&it, line);
    int32_t idx;
    double v;
    int kind;
    int64_t n = 0;
    bool rising = true;
    while ((kind = gs_sl_next(&it, &idx, &v)) != GS_SL_END) {
        if (idx > p->max_index) p->max_index = idx;
        if (idx < p->min_index) p->min_index = idx;
        p->nonzeros++;
        if (kind != GS_SL_PAIR) continue;
        if (idx < 0) { /* svm-scale stores it before its arrays: refused by the caller */
            if (!p->neg_line) {
                p->neg_seq = c->seq;
                p->neg_line = lineno;
                p->neg_index = idx;
            }
            it.pass2 = 0;
            continue;
        }
        if ((st = scan_pair(p, c, idx, v, n)) != GS_OK) return st;
        if (rising && n > 0 && idx <= p->lidx[n - 1]) {
            rising = false;
            for (int64_t k = 0; k < n; k++) /* counted as rising: undone */
                if (p->lidx[k] < LOW_INDICES) p->named[p->lidx[k]]--;
        }
        if (rising && idx < LOW_INDICES) p->named[idx]++;
        n++;
    }
    if (!rising) return log_zero_intervals(c, p->lidx, n);
    p->rising++;
    for (int64_t k = n - 1; k >= 0 && p->lidx[k] >= LOW_INDICES; k--) /* the high ones come last */
        if ((st = log_rec(c, (rec){REC_NAMED, p->lidx[k], 0, 0, 0})) != GS_OK) return st;
    return GS_OK;
}

static gs_status scan_work(void *ctx, int worker, gs_chunk *c)
{
    gs_scaler *s = ctx;
    scan_part *p = &s->parts[worker];
    char *next;
    int64_t lineno = 0;
    c->out_len = 0;
    for (char *b = c->text, *e = c->text + c->len; b < e; b = next) {
        const char *line = take_line(b, e, &next);
        const gs_status st = scan_line(p, c, line, ++lineno);
        if (st != GS_OK) return st;
    }
    c->lines = lineno;
    return GS_OK;
}

/* A zero interval [a, b] into the scaler's difference array. */
static gs_status add_zero_interval(gs_scaler *s, int64_t a, int64_t b)
{
    if (b + 2 > s->zcap) {
        const int64_t nc = next_cap(s->zcap, b + 2);
        if (nc > s->mem_limit / (int64_t)sizeof *s->zdiff || grow_array((void **)&s->zdiff, nc, sizeof *s->zdiff) != 0)
            return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
        memset(s->zdiff + s->zcap, 0, (size_t)(nc - s->zcap) * sizeof *s->zdiff);
        s->zcap = nc;
    }
    s->zdiff[a]++;
    s->zdiff[b + 1]--;
    return GS_OK;
}

/* In file order on the calling thread: the chunk's line count and its log. */
static gs_status scan_done(void *ctx, gs_chunk *c)
{
    gs_scaler *s = ctx;
    gs_status st;
    if (s->nchunks == s->chunks_cap) {
        s->chunks_cap = next_cap(s->chunks_cap, s->nchunks + 1);
        if (grow_array((void **)&s->chunk_lines, s->chunks_cap, sizeof *s->chunk_lines) != 0)
            return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
    }
    s->chunk_lines[s->nchunks++] = c->lines;
    for (size_t off = 0; off + sizeof(rec) <= c->out_len; off += sizeof(rec)) {
        rec r;
        memcpy(&r, c->out + off, sizeof r);
        if (r.kind == REC_ZERO) {
            if ((st = add_zero_interval(s, r.a, r.b)) != GS_OK) return st;
        } else if (r.kind == REC_TAIL) {
            if (r.a < s->ztail) s->ztail = r.a;
        } else {
            if (r.index >= s->fcap && (st = grow_features(s, (int64_t)r.index + 1)) != GS_OK) return st;
            if (r.kind == REC_NAMED) {
                s->named[r.index]++;
            } else {
                s->fmin[r.index] = fold_min(s->fmin[r.index], r.v);
                s->fmax[r.index] = fold_max(s->fmax[r.index], r.v);
            }
        }
    }
    return GS_OK;
}

/* Line `line` of chunk seq as a line number of the file. */
static int64_t file_line(const gs_scaler *s, int64_t seq, int64_t line)
{
    for (int64_t i = 0; i < seq && i < s->nchunks; i++) line += s->chunk_lines[i];
    return line;
}

/* True when (seq_a, line_a) comes before (seq_b, line_b); line 0 means none. */
static bool earlier(int64_t seq_a, int64_t line_a, int64_t seq_b, int64_t line_b)
{
    if (!line_a) return false;
    return !line_b || seq_a < seq_b || (seq_a == seq_b && line_a < line_b);
}

/* Folds part q's findings into part p (p keeps the result); the arrays go to the scaler. */
static gs_status merge_part(gs_scaler *s, scan_part *p, scan_part *q)
{
    gs_status st;
    if ((st = grow_features(s, q->fcap)) != GS_OK) return st;
    for (int64_t i = 0; i < q->fcap; i++) {
        s->fmin[i] = fold_min(s->fmin[i], q->fmin[i]);
        s->fmax[i] = fold_max(s->fmax[i], q->fmax[i]);
        s->named[i] += q->named[i];
    }
    if (p == q) return GS_OK;
    p->rising += q->rising;
    p->exact |= q->exact;
    p->y_min = fold_min(p->y_min, q->y_min);
    p->y_max = fold_max(p->y_max, q->y_max);
    if (q->max_index > p->max_index) p->max_index = q->max_index;
    if (q->min_index < p->min_index) p->min_index = q->min_index;
    p->nonzeros += q->nonzeros;
    if (earlier(q->bad_seq, q->bad_line, p->bad_seq, p->bad_line)) {
        p->bad_seq = q->bad_seq;
        p->bad_line = q->bad_line;
    }
    if (earlier(q->neg_seq, q->neg_line, p->neg_seq, p->neg_line)) {
        p->neg_seq = q->neg_seq;
        p->neg_line = q->neg_line;
        p->neg_index = q->neg_index;
    }
    return GS_OK;
}

/* The counted zeros folded in: what svm-scale's pass 2 leaves for 1..max_index. */
static void fold_counted_zeros(gs_scaler *s, int64_t rising)
{
    int64_t z = 0;
    const int64_t m = s->sum.max_index;
    for (int64_t i = 1; i <= m; i++) {
        if (i < s->zcap) z += s->zdiff[i];
        if (s->named[i] < rising || z > 0 || i >= s->ztail) {
            s->fmax[i] = fold_max(s->fmax[i], 0);
            s->fmin[i] = fold_min(s->fmin[i], 0);
        }
    }
}

/* One chunk of pass 2 exactly as svm-scale runs it, every zero in file order (one worker). */
static gs_status replay_work(void *ctx, int worker, gs_chunk *c)
{
    gs_scaler *s = ctx;
    (void)worker;
    const int64_t max_index = s->sum.max_index;
    char *next;
    for (char *b = c->text, *e = c->text + c->len; b < e; b = next) {
        const char *line = take_line(b, e, &next);
        double y, v;
        if (!gs_sl_double(line, &y)) continue;
        s->y_max = fold_max(s->y_max, y);
        s->y_min = fold_min(s->y_min, y);
        gs_sl_iter it;
        gs_sl_begin(&it, line);
        int32_t idx;
        int64_t nx = 1;
        while (gs_sl_next(&it, &idx, &v) == GS_SL_PAIR) {
            for (int64_t i = nx; i < idx; i++) {
                s->fmax[i] = fold_max(s->fmax[i], 0);
                s->fmin[i] = fold_min(s->fmin[i], 0);
            }
            s->fmax[idx] = fold_max(s->fmax[idx], v);
            s->fmin[idx] = fold_min(s->fmin[idx], v);
            nx = (int64_t)idx + 1;
        }
        for (int64_t i = nx; i <= max_index; i++) {
            s->fmax[i] = fold_max(s->fmax[i], 0);
            s->fmin[i] = fold_min(s->fmin[i], 0);
        }
    }
    return GS_OK;
}

/* The workers' parts merged (into parts[0] and the scaler's arrays), and the summary. */
static gs_status finish_scan(gs_scaler *s, int32_t range_max_index)
{
    gs_status st;
    scan_part *p = &s->parts[0];
    for (int i = 0; i < s->threads; i++) {
        if ((st = merge_part(s, p, &s->parts[i])) != GS_OK) return st;
        part_free(&s->parts[i]);
    }
    gs_scale_summary *u = &s->sum;
    for (int64_t i = 0; i < s->nchunks; i++) u->lines += s->chunk_lines[i];
    u->max_index = p->max_index > range_max_index ? p->max_index : range_max_index;
    u->min_index = p->min_index;
    u->nonzeros = p->nonzeros;
    u->bad_label_line = p->bad_line ? file_line(s, p->bad_seq, p->bad_line) : 0;
    u->neg_index_line = p->neg_line ? file_line(s, p->neg_seq, p->neg_line) : 0;
    u->neg_index = p->neg_index;
    s->y_min = p->y_min;
    s->y_max = p->y_max;
    return grow_features(s, (int64_t)u->max_index + 1);
}

gs_status gs_scaler_scan(gs_scaler *s, int32_t range_max_index)
{
    gs_status st = GS_OK;
    if (s->scanned || s->parts) return GS_FAIL(GS_ERR_INTERNAL, "gs_scaler_scan called twice");
    s->parts = calloc((size_t)s->threads, sizeof *s->parts);
    if (!s->parts) return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
    for (int i = 0; i < s->threads; i++) {
        scan_part *p = &s->parts[i];
        p->min_index = 1;
        p->y_max = -DBL_MAX;
        p->y_min = DBL_MAX;
    }
    const gs_chunk_job job = {scan_work, scan_done, s};
    if ((st = run_pass(s, s->threads, &job)) != GS_OK) return st;
    s->scanned = true;
    if (s->spool_fd >= 0) { /* from now on the copy is the data */
        close(s->fd);
        s->fd = s->spool_fd;
        s->spool_fd = -1;
    }
    if ((st = finish_scan(s, range_max_index)) != GS_OK) return st;
    const int64_t rising = s->parts[0].rising;
    const bool exact = s->parts[0].exact;
    if (s->sum.bad_label_line || s->sum.neg_index_line) return GS_OK; /* the caller stops */
    if (!exact) {
        fold_counted_zeros(s, rising);
        return GS_OK;
    }
    for (int64_t i = 0; i < s->fcap; i++) {
        s->fmin[i] = DBL_MAX;
        s->fmax[i] = -DBL_MAX;
    }
    s->y_max = -DBL_MAX;
    s->y_min = DBL_MAX;
    const gs_chunk_job replay = {replay_work, NULL, s};
    return run_pass(s, 1, &replay);
}

/* ------------------------------------------------------------------------------------------ */
/* Pass 2.5: restore or save                                                                   */

gs_status gs_scaler_restore(gs_scaler *s, const gs_range *r, gs_scale_param *p, int32_t **warn,
                            int64_t *nwarn)
{
    *warn = NULL;
    *nwarn = 0;
    if (!s->scanned || r->max_index > s->sum.max_index)
        return GS_FAIL(GS_ERR_INTERNAL, "gs_scaler_restore: the scan did not count the range file's indices");
    int32_t *w = NULL;
    int64_t nw = 0, wcap = 0;
    if (r->has_y) {
        p->y_scaling = 1;
        p->y_lower = r->y_lower;
        p->y_upper = r->y_upper;
        s->y_min = r->y_min;
        s->y_max = r->y_max;
    }
    p->lower = r->lower;
    p->upper = r->upper;
    int64_t next = 1;
    for (int64_t k = 0; k <= r->n; k++) {
        /* the features before this line's index (after the last line: up to max_index) */
        const int64_t stop = k < r->n ? r->f[k].index : (int64_t)s->sum.max_index + 1;
        for (int64_t i = next; i < stop; i++) {
            if (s->fmin[i] == s->fmax[i]) continue;
            if (nw == wcap) {
                wcap = next_cap(wcap, nw + 1);
                if (grow_array((void **)&w, wcap, sizeof *w) != 0) {
                    free(w);
                    return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
                }
            }
            w[nw++] = (int32_t)i;
            s->fmin[i] = 0;
            s->fmax[i] = 0;
        }
        if (k == r->n) break;
        s->fmin[r->f[k].index] = r->f[k].min;
        s->fmax[r->f[k].index] = r->f[k].max;
        next = (int64_t)r->f[k].index + 1;
    }
    *warn = w;
    *nwarn = nw;
    return GS_OK;
}

gs_status gs_scaler_ranges(const gs_scaler *s, const gs_scale_param *p, gs_range *out)
{
    memset(out, 0, sizeof *out);
    int64_t n = 0;
    for (int64_t i = 1; i <= s->sum.max_index; i++) n += s->fmin[i] != s->fmax[i];
    gs_range r = {0};
    r.has_y = p->y_scaling;
    r.y_lower = p->y_lower;
    r.y_upper = p->y_upper;
    r.y_min = s->y_min;
    r.y_max = s->y_max;
    r.lower = p->lower;
    r.upper = p->upper;
    if (n > 0) {
        r.f = malloc((size_t)n * sizeof *r.f);
        if (!r.f) return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
    }
    for (int64_t i = 1; i <= s->sum.max_index; i++) {
        if (s->fmin[i] == s->fmax[i]) continue;
        r.f[r.n++] = (gs_range_feature){(int32_t)i, s->fmin[i], s->fmax[i]};
        r.max_index = (int32_t)i;
    }
    *out = r;
    return GS_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Pass 3: the scaled text                                                                     */


/* What pass 3's workers share (read only but for their own printed[] entry). */
typedef struct writer {
    const gs_scaler *s;
    const gs_scale_param *p;
    FILE *out;
    /* the indices whose absent value prints, ascending, and their "index:value " texts, one after
     * another in pool in the same order: a run of them is one copy */
    int32_t *zero;     /* [nzero] */
    size_t *zero_off;  /* [nzero + 1]: zero[k]'s text is pool[zero_off[k] .. zero_off[k+1]) */
    int64_t nzero;
    char *pool;
    struct printed { int64_t n; char pad[120]; } *printed; /* [threads]: svm-scale's new_num_nonzeros,
                                                              per worker, a cache line each */
    bool write_failed;
    int write_errno;
} writer;

/* svm-scale's output(index, value) before printing: the scaled value. */
static inline double scale_x(const writer *w, int64_t i, double v)
{
    const double lo = w->s->fmin[i], hi = w->s->fmax[i];
    if (v == lo) return w->p->lower;
    if (v == hi) return w->p->upper;
    return w->p->lower + (w->p->upper - w->p->lower) * (v - lo) / (hi - lo);
}

/* "index:" then %g of v and a space. @return the end */
static inline char *put_item(char *p, int64_t index, double v)
{
    char d[12];
    int n = 0;
    uint64_t u = (uint64_t)index;
    do {
        d[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n) *p++ = d[--n];
    *p++ = ':';
    p += gs_fmt_g(v, p);
    *p++ = ' ';
    return p;
}

/* The indices 1..max_index whose absent value prints, with their text. */
static gs_status zero_items(writer *w)
{
    const gs_scaler *s = w->s;
    int64_t n = 0;
    for (int64_t i = 1; i <= s->sum.max_index; i++)
        n += s->fmin[i] != s->fmax[i] && scale_x(w, i, 0) != 0;
    w->zero_off = malloc((size_t)(n + 1) * sizeof *w->zero_off);
    if (!w->zero_off) return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
    w->zero_off[0] = 0;
    if (n == 0) return GS_OK;
    w->zero = malloc((size_t)n * sizeof *w->zero);
    w->pool = malloc((size_t)n * OUT_ITEM_MAX);
    if (!w->zero || !w->pool) return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
    size_t off = 0;
    for (int64_t i = 1; i <= s->sum.max_index; i++) {
        if (s->fmin[i] == s->fmax[i]) continue;
        const double z = scale_x(w, i, 0);
        if (z == 0) continue;
        off = (size_t)(put_item(w->pool + off, i, z) - w->pool);
        w->zero[w->nzero++] = (int32_t)i;
        w->zero_off[w->nzero] = off;
    }
    return GS_OK;
}

/* The first zero item with index >= next. */
static int64_t zero_lower_bound(const writer *w, int64_t next)
{
    int64_t lo = 0, hi = w->nzero;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (w->zero[mid] < next) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Room for one more item in c->out. @return 0 or -1 */
static inline int room(gs_chunk *c)
{
    if (c->out_len + OUT_ITEM_MAX <= c->out_cap) return 0;
    return gs_chunk_out_reserve(c, c->out_len + OUT_ITEM_MAX);
}

/* The zero items from *k with index < stop, in one copy. @return 0 or -1 (memory) */
static inline int put_zeros(const writer *w, gs_chunk *c, int64_t *k, int64_t stop, int64_t *printed)
{
    int64_t e = *k;
    while (e < w->nzero && w->zero[e] < stop) e++;
    if (e == *k) return 0;
    const size_t len = w->zero_off[e] - w->zero_off[*k];
    if (c->out_len + len + OUT_ITEM_MAX > c->out_cap && gs_chunk_out_reserve(c, c->out_len + len + OUT_ITEM_MAX) != 0)
        return -1;
    memcpy(c->out + c->out_len, w->pool + w->zero_off[*k], len);
    c->out_len += len;
    *printed += e - *k;
    *k = e;
    return 0;
}

/* The label as svm-scale's output_target prints it. @return 0 or -1 (memory) */
static inline int put_label(const writer *w, gs_chunk *c, double y)
{
    const gs_scale_param *p = w->p;
    if (p->y_scaling) {
        if (y == w->s->y_min) y = p->y_lower;
        else if (y == w->s->y_max) y = p->y_upper;
        else y = p->y_lower + (p->y_upper - p->y_lower) * (y - w->s->y_min) / (w->s->y_max - w->s->y_min);
    }
    if (room(c) != 0) return -1;
    c->out_len += gs_fmt_g17(y, c->out + c->out_len);
    c->out[c->out_len++] = ' ';
    return 0;
}

/* svm-scale's pass 3 for one line: label, then each pair with the printed zeros before it. */
static gs_status write_line(const writer *w, gs_chunk *c, const char *line, int64_t *printed)
{
    const double *fmin = w->s->fmin, *fmax = w->s->fmax;
    double y, v;
    if (!gs_sl_double(line, &y)) return GS_FAIL(GS_ERR_FORMAT, "ERROR: failed to read labels");
    if (put_label(w, c, y) != 0) goto nomem;
    gs_sl_iter it;
    gs_sl_begin(&it, line);
    int32_t idx;
    int64_t next = 1, k = 0;
    while (gs_sl_next(&it, &idx, &v) == GS_SL_PAIR) {
        if (idx >= next && put_zeros(w, c, &k, idx, printed) != 0) goto nomem;
        if (fmin[idx] != fmax[idx]) { /* a single-valued feature is skipped */
            const double x = scale_x(w, idx, v);
            if (x != 0) {
                if (room(c) != 0) goto nomem;
                c->out_len = (size_t)(put_item(c->out + c->out_len, idx, x) - c->out);
                (*printed)++;
            }
        }
        if ((int64_t)idx + 1 >= next) {
            while (k < w->nzero && w->zero[k] <= idx) k++;
        } else {
            k = zero_lower_bound(w, (int64_t)idx + 1); /* a falling index: back to it */
        }
        next = (int64_t)idx + 1;
    }
    if (put_zeros(w, c, &k, INT64_MAX, printed) != 0 || room(c) != 0) goto nomem;
    c->out[c->out_len++] = '\n';
    return GS_OK;
nomem:
    return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
}

static gs_status write_work(void *ctx, int worker, gs_chunk *c)
{
    const writer *w = ctx;
    char *next;
    int64_t printed = 0;
    c->out_len = 0;
    for (char *b = c->text, *e = c->text + c->len; b < e; b = next) {
        const char *line = take_line(b, e, &next);
        const gs_status st = write_line(w, c, line, &printed);
        if (st != GS_OK) return st;
    }
    w->printed[worker].n += printed;
    return GS_OK;
}

static gs_status write_done(void *ctx, gs_chunk *c)
{
    writer *w = ctx;
    if (!w->write_failed && c->out_len && fwrite(c->out, 1, c->out_len, w->out) != c->out_len) {
        w->write_failed = true;
        w->write_errno = errno;
    }
    return GS_OK;
}

gs_status gs_scaler_write(gs_scaler *s, const gs_scale_param *p, FILE *out, int64_t *new_nonzeros)
{
    gs_status st = GS_OK;
    writer w = {.s = s, .p = p, .out = out};
    *new_nonzeros = 0;
    if (!s->scanned) return GS_FAIL(GS_ERR_INTERNAL, "gs_scaler_write before gs_scaler_scan");
    w.printed = calloc((size_t)s->threads, sizeof *w.printed);
    if (!w.printed) return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
    if ((st = zero_items(&w)) != GS_OK) goto cleanup;
    const gs_chunk_job job = {write_work, write_done, &w};
    st = run_pass(s, s->threads, &job);
    for (int i = 0; i < s->threads; i++) *new_nonzeros += w.printed[i].n;
    if (st == GS_OK && (w.write_failed || fflush(out) != 0 || ferror(out)))
        st = GS_FAIL(GS_ERR_IO, "can't write output: %s", strerror(w.write_failed ? w.write_errno : errno));
cleanup:
    free(w.printed);
    free(w.zero);
    free(w.zero_off);
    free(w.pool);
    return st;
}
