/* linechunks.c — chunks of whole lines through worker threads, finished in order (linechunks.h).
 *
 * The calling thread reads: it fills slot seq % NSLOTS with the unfinished line left from the
 * previous chunk and new bytes up to the last '\n', so each chunk is whole lines; it then hands
 * the slot to the workers, which take chunks in file order and process them concurrently, and it
 * finishes done chunks strictly in file order (done()), which frees their slots for reading. A
 * slot is refilled only after it was finished, so at most NSLOTS chunks are in flight and memory
 * stays bounded whatever the file's size. Reading goes through zlib's gzread, which passes plain
 * files through and decodes gzip ones (members concatenated; trailing garbage ignored, as gzip
 * -d does); a gzip stream cut short is an error. */
#include "io/linechunks.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

enum {
    CHUNK_BYTES = 2 << 20, /* default bytes read per chunk; a longer line grows its slot */
    MAX_THREADS = 64
};

typedef enum { SLOT_FREE, SLOT_FILLED, SLOT_TAKEN, SLOT_DONE } slot_state;

typedef struct slot {
    gs_chunk c;
    size_t cap;          /* text has cap + 1 bytes */
    slot_state state;
    gs_status st;        /* the work's result */
    char err[512];       /* its message */
} slot;

typedef struct run {
    const gs_chunk_src *src;
    const gs_chunk_job *job;
    slot *slots;
    int nslots;
    pthread_mutex_t mu;
    pthread_cond_t cv_work; /* a chunk was filled, or stopping */
    pthread_cond_t cv_done; /* a chunk was done */
    int64_t filled;         /* chunks filled so far */
    int64_t taken;          /* chunks taken by workers */
    bool stop;
    /* reader (calling thread) only */
    gzFile gz;
    char *carry;            /* the unfinished line after the last chunk */
    size_t carry_len, carry_cap;
    bool eof;
    size_t chunk;           /* bytes read per chunk */
} run;

int gs_chunk_out_reserve(gs_chunk *c, size_t need)
{
    if (need <= c->out_cap) return 0;
    size_t nc = c->out_cap ? c->out_cap : 1 << 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return -1;
        nc *= 2;
    }
    char *p = realloc(c->out, nc);
    if (!p) return -1;
    c->out = p;
    c->out_cap = nc;
    return 0;
}

static void *worker_main(void *arg);

typedef struct worker_arg {
    run *r;
    int id;
} worker_arg;

static void *worker_main(void *arg)
{
    const worker_arg *wa = arg;
    run *r = wa->r;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        while (!r->stop && r->taken == r->filled) pthread_cond_wait(&r->cv_work, &r->mu);
        if (r->stop) {
            pthread_mutex_unlock(&r->mu);
            return NULL;
        }
        slot *s = &r->slots[r->taken % r->nslots];
        r->taken++;
        s->state = SLOT_TAKEN;
        pthread_mutex_unlock(&r->mu);

        gs_clear_error();
        s->st = r->job->work(r->job->ctx, wa->id, &s->c);
        if (s->st != GS_OK) snprintf(s->err, sizeof s->err, "%s", gs_last_error());

        pthread_mutex_lock(&r->mu);
        s->state = SLOT_DONE;
        pthread_cond_broadcast(&r->cv_done);
        pthread_mutex_unlock(&r->mu);
    }
}

/* Writes all of buf to fd. @return 0, or -1 (errno) */
static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        const ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Decoded bytes into buf (also to the copy). @return bytes (0 at the end), or -1 (recorded) */
static long read_some(run *r, char *buf, size_t cap)
{
    const gs_chunk_src *src = r->src;
    const unsigned want = cap > (1u << 30) ? (1u << 30) : (unsigned)cap;
    const int n = gzread(r->gz, buf, want);
    int zerr = Z_OK;
    const char *zmsg = gzerror(r->gz, &zerr);
    if (n < 0 || (zerr != Z_OK && zerr != Z_BUF_ERROR)) {
        GS_FAIL(GS_ERR_IO, "can't read input file %s: %s", src->path,
                zerr == Z_ERRNO ? strerror(errno) : zerr == Z_DATA_ERROR ? "bad gzip data" : zmsg);
        return -1;
    }
    if (n == 0 && zerr == Z_BUF_ERROR) {
        GS_FAIL(GS_ERR_IO, "can't read input file %s: unexpected end of gzip data", src->path);
        return -1;
    }
    if (n > 0 && src->copy_fd >= 0 && write_all(src->copy_fd, buf, (size_t)n) != 0) {
        GS_FAIL(GS_ERR_IO, "can't read input file %s: writing its temporary copy in %s: %s", src->path,
                src->copy_name, strerror(errno));
        return -1;
    }
    return n;
}

/* Grows a buffer of *cap (+1) bytes to at least need (+1). @return 0 or -1 */
static int grow_text(char **p, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) {
        if (nc > SIZE_MAX / 4) return -1;
        nc *= 2;
    }
    char *q = realloc(*p, nc + 1);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* Fills s with the carried line and new bytes up to the last '\n' (all of them at the end of the
 * input). @return GS_OK; s->c.len == 0 means the input has ended */
static gs_status fill_slot(run *r, slot *s)
{
    gs_chunk *c = &s->c;
    if (grow_text(&c->text, &s->cap, r->carry_len + r->chunk) != 0)
        return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
    if (r->carry_len) memcpy(c->text, r->carry, r->carry_len);
    size_t len = r->carry_len, fresh = r->carry_len; /* bytes before fresh hold no '\n' */
    r->carry_len = 0;
    size_t end = 0; /* the chunk's end: after its last '\n' */
    while (!r->eof) {
        if (len == s->cap && grow_text(&c->text, &s->cap, s->cap * 2) != 0)
            return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
        const size_t want = s->cap - len < r->chunk ? s->cap - len : r->chunk;
        const long n = read_some(r, c->text + len, want);
        if (n < 0) return GS_ERR_IO;
        if (n == 0) {
            r->eof = true;
            break;
        }
        len += (size_t)n;
        for (size_t i = len; i > fresh; i--)
            if (c->text[i - 1] == '\n') { end = i; break; }
        if (end) break;
        fresh = len;
    }
    if (r->eof) end = len;
    if (len > end) { /* the unfinished line waits for the next chunk */
        if (grow_text(&r->carry, &r->carry_cap, len - end) != 0)
            return GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
        memcpy(r->carry, c->text + end, len - end);
        r->carry_len = len - end;
    }
    c->len = end;
    return GS_OK;
}

/* The reading and finishing loop of the calling thread. */
static gs_status drive(run *r)
{
    gs_status st = GS_OK;
    int64_t finished = 0;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        const bool room = !r->eof && r->filled - finished < r->nslots;
        pthread_mutex_unlock(&r->mu);
        if (room) {
            slot *s = &r->slots[r->filled % r->nslots];
            if ((st = fill_slot(r, s)) != GS_OK) return st;
            if (s->c.len == 0) continue; /* r->eof is set: nothing more to hand out */
            pthread_mutex_lock(&r->mu);
            s->c.seq = r->filled;
            s->state = SLOT_FILLED;
            r->filled++;
            pthread_cond_signal(&r->cv_work);
            pthread_mutex_unlock(&r->mu);
            continue;
        }
        if (finished == r->filled) return GS_OK; /* the input ended and all is done */
        slot *s = &r->slots[finished % r->nslots];
        pthread_mutex_lock(&r->mu);
        while (s->state != SLOT_DONE) pthread_cond_wait(&r->cv_done, &r->mu);
        pthread_mutex_unlock(&r->mu);
        if (s->st != GS_OK) return GS_FAIL(s->st, "%s", s->err);
        if (r->job->done && (st = r->job->done(r->job->ctx, &s->c)) != GS_OK) return st;
        s->state = SLOT_FREE;
        finished++;
    }
}

gs_status gs_chunks_run(const gs_chunk_src *src, int threads, const gs_chunk_job *job)
{
    gs_status st = GS_OK;
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    run r = {.src = src, .job = job, .nslots = threads + 2};
    r.chunk = src->chunk_bytes ? src->chunk_bytes : CHUNK_BYTES;
    pthread_t tid[MAX_THREADS];
    worker_arg args[MAX_THREADS];
    int started = 0;
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv_work, NULL);
    pthread_cond_init(&r.cv_done, NULL);
    r.slots = calloc((size_t)r.nslots, sizeof *r.slots);
    const int fd = dup(src->fd);
    if (fd >= 0) r.gz = gzdopen(fd, "rb");
    if (!r.slots || !r.gz) {
        if (fd >= 0 && !r.gz) close(fd);
        st = fd < 0 ? GS_FAIL(GS_ERR_IO, "can't read input file %s: %s", src->path, strerror(errno))
                    : GS_FAIL(GS_ERR_NOMEM, "can't allocate enough memory");
        goto cleanup;
    }
    gzbuffer(r.gz, 1 << 18);
    for (; started < threads; started++) {
        args[started] = (worker_arg){&r, started};
        if (pthread_create(&tid[started], NULL, worker_main, &args[started]) != 0) break;
    }
    if (started == 0) {
        st = GS_FAIL(GS_ERR_NOMEM, "can't start a worker thread");
        goto cleanup;
    }
    st = drive(&r);
cleanup:
    pthread_mutex_lock(&r.mu);
    r.stop = true;
    pthread_cond_broadcast(&r.cv_work);
    pthread_mutex_unlock(&r.mu);
    /* a worker busy with a chunk finishes it first; none waits for anything else */
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
    if (r.gz) gzclose_r(r.gz);
    for (int i = 0; r.slots && i < r.nslots; i++) {
        free(r.slots[i].c.text);
        free(r.slots[i].c.out);
    }
    free(r.slots);
    free(r.carry);
    pthread_cond_destroy(&r.cv_done);
    pthread_cond_destroy(&r.cv_work);
    pthread_mutex_destroy(&r.mu);
    return st;
}
