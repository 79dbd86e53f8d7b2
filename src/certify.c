/* certify.c — see certify.h. The rows go to the predictor in chunks whose decision values and
 * bounds take at most CHUNK_BYTES on the host, so memory stays bounded for many pairs. */
#include "certify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "predictor.h"

#define CHUNK_BYTES ((size_t)64 << 20)

/* Rows [r0, r1) of rows as the predictor takes them: offsets from 0, values in double through
 * gs_model_sv_values (the model's SVs went through it too). out's arrays are reused. */
static gs_status chunk_rows(const gs_cert_rows *rows, int32_t r0, int32_t r1, gs_rows *out)
{
    const int64_t b = rows->row_ptr[r0], nz = rows->row_ptr[r1] - b;
    const int32_t n = r1 - r0;
    if (n > out->cap_rows) {
        free(out->row_ptr);
        out->row_ptr = malloc(sizeof *out->row_ptr * ((size_t)n + 1));
        out->cap_rows = out->row_ptr ? n : 0;
    }
    if (nz > out->cap_nnz || !out->idx) {
        free(out->idx);
        free(out->val);
        out->idx = malloc(sizeof *out->idx * (size_t)(nz ? nz : 1));
        out->val = malloc(sizeof *out->val * (size_t)(nz ? nz : 1));
        out->cap_nnz = out->idx && out->val ? nz : 0;
    }
    if (!out->row_ptr || !out->idx || !out->val) return GS_FAIL(GS_ERR_NOMEM, "out of memory for %d rows", n);
    for (int32_t r = 0; r <= n; r++) out->row_ptr[r] = rows->row_ptr[r0 + r] - b;
    memcpy(out->idx, rows->idx + b, sizeof *out->idx * (size_t)nz);
    for (int64_t e = 0; e < nz; e++) out->val[e] = rows->val[b + e];
    gs_model_sv_values(out->val, nz);
    out->l = n;
    return GS_OK;
}

/* The pair index of classes (i, j), i < j, among k classes in LIBSVM's order. */
static int pair_of(int k, int i, int j)
{
    return i * k - i * (i + 1) / 2 + (j - i - 1);
}

/* Takes one chunk's decision values into the pairs' gradients. */
static void scatter(const gs_cert_rows *rows, const int *want, int32_t r0, int32_t n, const double *dec,
                    const double *bound, int nd, double *const *G, double *const *err)
{
    const int k = rows->k;
    int c = 0;
    for (int32_t r = 0; r < n; r++) {
        const int32_t g = r0 + r;
        while (g >= rows->start[c + 1]) c++;
        for (int o = 0; o < k; o++) {
            if (o == c) continue;
            const int i = c < o ? c : o, j = c < o ? o : c, p = pair_of(k, i, j);
            if (!want[p]) continue;
            const int32_t t = c == i ? g - rows->start[i] : (rows->start[i + 1] - rows->start[i]) + g - rows->start[j];
            const double d = dec[(size_t)r * nd + p];
            G[p][t] = (c == i ? d : -d) - 1.0;
            err[p][t] = bound[(size_t)r * nd + p];
        }
    }
}

/* A second reference to each object of src (the predictor releases the one it is given). */
static void retain_program(gs_pred_program *dst, const gs_pred_program *src)
{
    *dst = *src;
    clRetainProgram(dst->prog);
    clRetainKernel(dst->k_kvals);
    clRetainKernel(dst->k_sum);
    clRetainKernel(dst->k_probe);
}

gs_status gs_certify_gradients(gs_ocl *ocl, const gs_pred_program *prog, const gs_model *m, const gs_cert_rows *rows,
                               const int *want, double *const *G, double *const *err, const gs_log *log)
{
    gs_status st = GS_OK;
    gs_predictor *pred = NULL;
    gs_pred_program prg = {0};
    double t_rows = 0;
    const double t0 = gs_now();
    gs_rows ch = {0};
    double *dec = NULL, *bound = NULL;
    const int nd = gs_pred_n_dec(m);
    int32_t chunk = (int32_t)(CHUNK_BYTES / (2 * sizeof(double) * (size_t)(nd > 0 ? nd : 1)));
    if (chunk < 64) chunk = 64;
    if (chunk > rows->l) chunk = rows->l;
    if (chunk < 1) return GS_OK;
    dec = malloc(sizeof *dec * (size_t)chunk * (size_t)nd);
    bound = malloc(sizeof *bound * (size_t)chunk * (size_t)nd);
    if (!dec || !bound) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory for the certification"); goto cleanup; }
    if ((st = gs_predictor_create(m, &pred))) goto cleanup;
    const double t_layout = gs_now();
    retain_program(&prg, prog);
    if ((st = gs_predictor_attach(pred, ocl, &prg))) goto cleanup;
    const double t_attach = gs_now();
    for (int32_t r0 = 0; r0 < rows->l; r0 += chunk) {
        const int32_t r1 = rows->l - r0 < chunk ? rows->l : r0 + chunk;
        if ((st = chunk_rows(rows, r0, r1, &ch))) goto cleanup;
        const double tr = gs_now();
        if ((st = gs_predictor_start(pred, &ch)) || (st = gs_predictor_finish(pred, dec, bound))) goto cleanup;
        t_rows += gs_now() - tr;
        scatter(rows, want, r0, r1 - r0, dec, bound, nd, G, err);
    }
    {
        const gs_pred_times tm = gs_predictor_times(pred);
        gs_log_verbose(log, "gpusvm: certification's decision values: SV layout %.4f s, upload %.4f s, rows %.4f s "
                       "(device: kernel values %.4f s, sums %.4f s), all %.4f s\n", t_layout - t0,
                       t_attach - t_layout, t_rows, tm.kvals, tm.sum, gs_now() - t0);
    }
cleanup:
    gs_predictor_free(pred); /* waits for the queue before ch goes */
    gs_pred_program_release(&prg);
    gs_rows_free(&ch);
    free(dec);
    free(bound);
    return st;
}

gs_cert_pair gs_certify_pair(const double *alpha, const double *G, const double *err, int32_t n, int32_t ni,
                             double Cp, double Cn)
{
    double m = -INFINITY, M = INFINITY, m_raw = -INFINITY, M_raw = INFINITY, emax = 0;
    double ub = INFINITY, lb = -INFINITY, sum_free = 0, obj2 = 0;
    long nfree = 0;
    for (int32_t t = 0; t < n; t++) {
        const int pos = t < ni;
        const double a = alpha[t], C = pos ? Cp : Cn, yg = pos ? G[t] : -G[t], e = err[t];
        /* LIBSVM's I_up and I_low */
        if (pos ? a < C : a > 0) { m = fmax(m, -yg + e); m_raw = fmax(m_raw, -yg); }
        if (pos ? a > 0 : a < C) { M = fmin(M, -yg - e); M_raw = fmin(M_raw, -yg); }
        if (!(e <= emax)) emax = e; /* a NaN bound too */
        if (a >= C) { if (pos) lb = fmax(lb, yg); else ub = fmin(ub, yg); }
        else if (a <= 0) { if (pos) ub = fmin(ub, yg); else lb = fmax(lb, yg); }
        else { nfree++; sum_free += yg; }
        obj2 += a * (G[t] - 1.0);
    }
    gs_cert_pair c;
    c.gap = m - M;
    c.raw_gap = m_raw - M_raw;
    c.err = emax;
    c.rho = nfree > 0 ? sum_free / (double)nfree : (ub + lb) / 2;
    c.obj = obj2 / 2;
    return c;
}
