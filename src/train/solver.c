/* solver.c — host side of the working-set loop (see solver.h and kernels/solver.cl).
 * A batch of binary problems over one clustered data set advances together: per round one
 * non-blocking write of the round table and the alpha changes of every active problem, 6 queued
 * kernels covering all of them (13 for batches with a problem too large for k_select), one read the
 * host waits for (each problem's gap, working set, its gradients and the set's kernel matrix); the
 * CPU then solves every active problem's subproblem, on a pool of threads when there are several.
 * Nothing is allocated inside the loop. Problems stop on their own criterion and leave the
 * launches; batches are sized to fit the device's memory.
 * Two-class training splits each round in two (see solve_batch) so that the next set's selection
 * and kernel matrix run on the device while the CPU finishes the subproblem; the second part's
 * changes reach the set's gradients through k_heads, and every row's after the heads are read.
 * There k_gram computes the matrix's new entries, and the new members' full kernel rows (k_rows,
 * which only the next round's k_update needs) follow the read; the kernel matrices come on a second
 * queue (xfer), so the heads' kernel and read run while the matrices are copied; the host waits for
 * both. On a GPU the split rounds' enqueueing runs on a courier thread (courier.h) beside the
 * second part of the subproblem. A lone large problem may be split by rows over several devices
 * (gs_solver_batch_rows, rsplit below): the same rounds, each device over its slice of the rows. */
#include "train/solver.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/cluster.h"
#include "data/colchunks.h"
#include "data/precomputed.h"
#include "device/dev.h"
#include "kernels/abi.h" /* the problem, round and certification tables (gs_abi_*) */
#include "util/courier.h"
#include "util/pages.h"
#include "util/parallel.h"
#include "train/rowsplit.h"
#include "train/subproblem.h"

#define ITEMS 8 /* positions per work-item in the compaction kernels (H100: 8 a little ahead of 16, 4, 2) */
#define WCH 16
/* k_cert's SVs a pass over a row-wise (ELL) cluster's row on a GPU, for data whose clusters are
 * mostly row-wise and not wide (kernels/solver.cl CERT_CB: the same sums as WCH at a time;
 * GPUSVM_CERT_WIDE=0|1 forces WCH or this). H100, k_cert: text-gen 3.72 -> 2.40 s; built for
 * every layout it slowed dense data (covtype-gen 1.30 -> 2.18 s, year-gen 1.69 -> 2.03 s: the
 * 64-entry accumulator array of the dense path). A CPU device keeps WCH (no gain on PoCL). */
#define CERT_CB_GPU 64
/* Kernel rows by column (k_rows_col): chunks of about COL_CHUNK_ROWS positions (whole clusters),
 * whose sums fill 16 KB of local memory. bench-push (scripts/) on an H200, 384 vectors against
 * text-gen's 200,000 rows: 1.38 ms in chunks of 4,096 against 7.7 ms by row, 2.1 ms in chunks of
 * 2,048, 3.5 ms of 1,024 (a chunk's column searches are the fixed cost). */
#define COL_CHUNK_ROWS 4096
#define USPLIT 4 /* work-groups per cluster in k_update (each sums a quarter of the updates) */
#define GRAM_WG 256 /* k_gram's work-group: a slot's entries for 256 new slots at a time */
/* k_merge's and k_select's work-group, one per problem. 256, not wider where the device allows:
 * building at 1024 first cost a second build on the H100, whose driver runs these kernels 256 wide
 * at most (CL_KERNEL_WORK_GROUP_SIZE), on every run (a second program from the driver's cache) and
 * doubly on the first (two compiles: 4.2 s at 1024, 3.1 s at 256, bench-data/run123.sh). */
#define MWG 256
/* work-groups per chunk in k_hist (H100, device time of k_hist per a9a run: 1.35 ms with 1, 0.9 with
 * 2, 0.7 with 4, 0.65 with 8; ijcnn1 0.8 / 0.6 / 0.45 / 0.45 ms) */
#define HSPLIT 4
_Static_assert(ITEMS % HSPLIT == 0, "k_hist splits a chunk's ITEMS evenly");
_Static_assert(GS_SOLVER_PARTS <= GS_OCL_PARTS_MAX, "the solver's parts fit a gs_dev_kernels (device/ocl.h)");
#define CCH 16
/* Batches whose problems all have at most this many positions are selected by k_hist + k_select
 * (one work-group per problem after the first histogram); larger ones by the chain of k_hist /
 * k_pick x3, k_count, k_scan, k_write, k_merge. On the H100 the two take about the same device
 * time for a9a (~0.1 ms a round), but the host enqueues 7 kernels fewer a round (a9a: 0.011 s
 * against 0.021 s of enqueueing per run) and one-vs-one batches gain most (letter 0.041-0.064 s
 * against 0.055-0.075 s). GPUSVM_SELECT=one|multi forces either (the tests run both). */
#define ONE_GROUP_MAX (1 << 18)
/* The row cache (row_cache_lines) by default: on a GPU, for a lone problem of GS_ROW_CACHE_MIN
 * positions or more, up to GS_ROW_CACHE_MAX_Q working sets of lines. Only a solver that may meet
 * such a problem (or is asked for the cache) has k_cache in its program (-DGS_ROW_CACHE=1). */
#define GS_ROW_CACHE_MIN 65536
#define GS_ROW_CACHE_MAX_Q 32
/* A subproblem stops at REL times its initial gap (or eps). Split rounds (solve_batch) stop at
 * SPLIT_REL, sending the changes made until SPLIT_AT first: on the H100 (rel, split point) of
 * (0.2, 0.3) took a9a from 74 rounds of 25,600 steps to 80 rounds of 19,300 and its training
 * from 0.077 to 0.065 s (medians of 9 runs; 0.35 and 0.4 were about as good there, 0.5 added
 * rounds); unsplit, a looser REL costs as much in rounds as it saves in steps. One-vs-one
 * training (letter, mnist10k) was slower split, so only two-class training is. */
#define REL 0.1
#define SPLIT_REL 0.2
#define SPLIT_AT 0.3

enum { K_INIT, K_UPDATE, K_HIST, K_PICK, K_COUNT, K_SCAN, K_WRITE, K_MERGE, K_SELECT, K_GATHER, K_ROWS,
       K_READBACK, K_HEADS, K_GRAM, K_CERT_GATHER, K_CERT, K_CERT_SUM, K_CAND, K_ROWS_COL, K_CERT_DOTS,
       K_CACHE, K_COUNT_ALL };
static const char *const k_names[K_COUNT_ALL] = {"k_init", "k_update", "k_hist", "k_pick",
    "k_count", "k_scan", "k_write", "k_merge", "k_select", "k_gather_u", "k_rows", "k_readback", "k_heads",
    "k_gram", "k_cert_gather", "k_cert", "k_cert_sum", "k_cand_keys", "k_rows_col", "k_cert_dots", "k_cache"};
/* The same without the multi-kernel selection's own kernels (-DGS_MULTI_SEL=0: a solver whose
 * problems all have at most ONE_GROUP_MAX positions). Its program builds faster: on the H100 ptxas
 * took 0.23-0.31 s for each of the five, 1.92 s for the whole program (docs/performance.md). */
static const char *const k_names_one[K_COUNT_ALL] = {"k_init", "k_update", "k_hist", NULL,
    NULL, NULL, NULL, NULL, "k_select", "k_gather_u", "k_rows", "k_readback", "k_heads",
    "k_gram", "k_cert_gather", "k_cert", "k_cert_sum", NULL, "k_rows_col", "k_cert_dots", "k_cache"};
/* phase of each kernel for the --verbose breakdown */
enum { PH_UPDATE, PH_SELECT, PH_ROWS, PH_TRANSFER, PH_CERT, PH_N };
static const int k_phase[K_COUNT_ALL] = {PH_UPDATE, PH_UPDATE, PH_SELECT, PH_SELECT, PH_SELECT,
    PH_SELECT, PH_SELECT, PH_SELECT, PH_SELECT, PH_ROWS, PH_ROWS, PH_TRANSFER, PH_TRANSFER, PH_ROWS, PH_CERT,
    PH_CERT, PH_CERT, PH_SELECT, PH_ROWS, PH_CERT, PH_SELECT};

/* Device buffers of a batch, kept by the solver and reused (grown when needed) from one batch to
 * the next: NVIDIA allocations synchronise the device. Only gs_dev_buf fields (released as an array). */
typedef struct dev {
    gs_dev_clustered data; /* the clustered rows (gs_dev_upload_clustered) */
    gs_dev_clustered alt;  /* another layout kept on the device (batch_upload), or nothing */
    gs_dev_buf alt_pc[5];  /* its copy by column (pc_cols .. pc_val's order) */
    gs_dev_buf y, ctab, ptab, koff, vc, vch, G, alpha, in_ws, slot_of, state, hist, gmax, gap, gcnt, cand, ws_pos,
        ws_row, new_slots, n_new, u_pos, U, K, upd, rb, kws, keys, fresh, cold, cnew, ccoef, certtab, cvcc, cpart, cgx,
        cmx, ckey, pc_cols, pc_ccol, pc_coff, pc_row, pc_val, vpc, cvpc, cdots, rc;
} dev;

#define N_BUFS (sizeof(dev) / sizeof(gs_dev_buf))

struct gs_solver {
    gs_ocl *ocl;
    const gs_log *log;
    int kernel_type, degree;
    double gamma, coef0, eps;
    int q, keep, wg;
    int wide;              /* built for wide data (gs_clustered.wide): its layout, no dense block U */
    int multi_sel;         /* the program has the multi-kernel selection (some problem may exceed
                            * ONE_GROUP_MAX positions) */
    int row_cache;         /* the program has the row cache's k_cache (-DGS_ROW_CACHE=1) */
    int split;             /* split rounds (see solve_batch): -1 for lone problems that fit, 0 never,
                            * 1 always (GPUSVM_SPLIT) */
    gs_tuning tuning;      /* param->tuning: the forced paths and the batch cap (util/tuning.h) */
    cl_command_queue queue; /* each solver has its own, so pairs can run on several threads */
    cl_command_queue xfer;  /* split rounds: the kernel matrices' reads, beside the heads' kernels */
    gs_dev dev;             /* buffers, launches and profiling on queue (dev.profile: --verbose's) */
    gs_dev_kernels ks;      /* kernels/solver.cl, k_names order */
    const char *names[K_COUNT_ALL]; /* the kernels built (k_names or k_names_one, k_rows_col or NULL) */
    int col_rows;           /* the program has k_rows_col (kernel rows by column: COL_ROWS) */
    int pcl;                /* its chunks' clusters (PCL) */
    double build_seconds;
    dev d;                  /* this solver's buffers (see dev) */
    /* what d.data and d.pc_* hold: the layout (its address and stamp) and its by-column copy, so a
     * batch over the same layout (shrinking's stages, the certification's and the resumed rounds'
     * batches, -v's and the grid's batches) skips their upload; NULL / 0 until the first upload */
    const gs_clustered *up_cl;
    uint64_t up_stamp;
    const gs_colchunks *up_pc;
    /* the same for d.alt and d.alt_pc: the layout before the current one, kept while both fit in
     * an eighth of the device's memory, so shrinking's full-set batches after its stages (the
     * certification's, the resumed rounds') find the whole set's layout still there */
    const gs_clustered *alt_cl;
    uint64_t alt_stamp;
    const gs_colchunks *alt_pc;
    /* the per-round readback [0] and update [1] in pinned, mapped host memory */
    gs_dev_pinned pin[2];
};

static gs_status make_queue(gs_solver *s, int profile)
{
    cl_int e;
    const cl_command_queue_properties props = profile ? CL_QUEUE_PROFILING_ENABLE : 0;
    s->queue = clCreateCommandQueue(s->ocl->ctx, s->ocl->device, props, &e);
    if (e != CL_SUCCESS) return GS_FAIL(GS_ERR_OCL, "clCreateCommandQueue failed: %s", gs_cl_error_name(e));
    s->xfer = clCreateCommandQueue(s->ocl->ctx, s->ocl->device, props, &e);
    if (e != CL_SUCCESS) return GS_FAIL(GS_ERR_OCL, "clCreateCommandQueue(transfers) failed: %s", gs_cl_error_name(e));
    return GS_OK;
}

void gs_solver_free(gs_solver *s)
{
    if (!s) return;
    gs_dev_kernels_release(&s->ks);
    gs_dev_bufs_release((gs_dev_buf *)&s->d, N_BUFS);
    if (s->queue)
        for (int i = 0; i < 2; i++) gs_dev_pinned_release(&s->dev, &s->pin[i]);
    if (s->xfer) { clFinish(s->xfer); clReleaseCommandQueue(s->xfer); }
    if (s->queue) { clFinish(s->queue); clReleaseCommandQueue(s->queue); }
    free(s);
}

int gs_solver_cluster_size(const gs_solver *s) { return s->wg; }

gs_status gs_solver_create(gs_ocl *ocl, const gs_param *param, int precise, int wide, int rowwise,
                           int64_t max_npos, const gs_log *log, gs_solver **out)
{
    gs_status st = GS_OK;
    gs_solver *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    s->ocl = ocl;
    s->log = log;
    s->wide = wide != 0;
    s->kernel_type = param->kernel_type;
    s->degree = param->degree;
    s->gamma = param->gamma;
    s->coef0 = param->coef0;
    s->eps = param->eps;
    s->q = param->ws_size;
    s->keep = param->ws_keep;
    s->tuning = param->tuning;
    s->wg = param->cluster_size;
    /* a forced path (GPUSVM_SELECT, the tests comparing the two) builds the whole program, so both
     * paths' runs share one build */
    s->multi_sel = s->tuning.select != GS_SELECT_AUTO || !(max_npos > 0 && max_npos <= ONE_GROUP_MAX);
    s->row_cache = s->tuning.row_cache > 0 || (s->tuning.row_cache < 0 && (ocl->device_type & CL_DEVICE_TYPE_GPU) &&
                                               max_npos >= GS_ROW_CACHE_MIN);
    if (s->q < 2 || s->keep < 0 || s->keep > s->q - 2) {
        st = GS_FAIL(GS_ERR_ARG, "--ws-size %d / --ws-keep %d: need ws-size >= 2 and ws-keep <= ws-size - 2",
                     s->q, s->keep);
        goto cleanup;
    }
    if (s->q > 1024 || (size_t)s->wg > ocl->max_wg || ocl->max_wg < 256) {
        st = GS_FAIL(GS_ERR_ARG, "--ws-size %d (at most 1024) / --cluster-size %d (device limit %zu)",
                     s->q, s->wg, ocl->max_wg);
        goto cleanup;
    }
    cl_command_queue_properties props = 0;
    clGetCommandQueueInfo(ocl->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    s->split = s->tuning.split; /* 0 or 1: force either round form (the tests run both); -1 auto */
    if ((st = make_queue(s, (props & CL_QUEUE_PROFILING_ENABLE) != 0)) || (st = gs_dev_init(&s->dev, ocl, s->queue)))
        goto cleanup;
    double t0 = gs_now();
    const int cert_wide = s->tuning.cert_wide != GS_TUNE_AUTO
                              ? s->tuning.cert_wide == 1
                              : (ocl->device_type & CL_DEVICE_TYPE_GPU) && rowwise && !s->wide;
    /* by-column kernel rows where their sums are k_rows' (float sums, not -t 4; a chunk's
     * positions numbered in 16 bits) and the device's local memory holds k_cert_dots' sums (a
     * double a chunk's position, and 3 KB) */
    const int pcl = s->pcl = s->wg <= COL_CHUNK_ROWS ? COL_CHUNK_ROWS / s->wg : 1;
    const int col_ok = !precise && s->kernel_type != GS_KERNEL_PRECOMPUTED && (long)pcl * s->wg <= 65536 &&
                       (!ocl->local_mem || ocl->local_mem >= (cl_ulong)pcl * (cl_ulong)s->wg * 8 + 4096);
    s->col_rows = col_ok && (s->tuning.col_rows != GS_TUNE_AUTO
                                 ? s->tuning.col_rows == 1
                                 : (ocl->device_type & CL_DEVICE_TYPE_GPU) && rowwise);
    char opts[352];
    snprintf(opts, sizeof opts, "-DWG=%d -DKTYPE=%d -DWCH=%d -DCCH=%d -DITEMS=%d -DQMAX=%d -DMWG=%d -DUSPLIT=%d "
             "-DHSPLIT=%d -DGRAM_WG=%d -DGS_PRECISE=%d -DGS_WIDE=%d -DGS_MULTI_SEL=%d -DCERT_CB=%d -DGS_COL_ROWS=%d "
             "-DPCL=%d -DGS_ROW_CACHE=%d",
             s->wg, s->kernel_type, WCH, CCH, ITEMS, (s->q + MWG - 1) / MWG * MWG, MWG, USPLIT,
             HSPLIT, GRAM_WG, precise != 0, s->wide, s->multi_sel,
             cert_wide ? CERT_CB_GPU : WCH, s->col_rows, pcl, s->row_cache);
    memcpy(s->names, s->multi_sel ? k_names : k_names_one, sizeof s->names);
    if (!s->col_rows) s->names[K_ROWS_COL] = s->names[K_CERT_DOTS] = NULL;
    if (!s->row_cache) s->names[K_CACHE] = NULL;
    if ((st = gs_dev_kernels_build(ocl, "solver", opts, GS_SOLVER_PARTS, s->names, K_COUNT_ALL, &s->ks)))
        goto cleanup;
    size_t wm = MWG, ws = 0;
    cl_ulong lm = 0, ls = 0;
    if (s->multi_sel) {
        clGetKernelWorkGroupInfo(s->ks.k[K_MERGE], ocl->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wm, &wm, NULL);
        clGetKernelWorkGroupInfo(s->ks.k[K_MERGE], ocl->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL);
    }
    clGetKernelWorkGroupInfo(s->ks.k[K_SELECT], ocl->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof ws, &ws, NULL);
    clGetKernelWorkGroupInfo(s->ks.k[K_SELECT], ocl->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof ls, &ls, NULL);
    const cl_ulong lmax = lm > ls ? lm : ls;
    const int fits = !ocl->local_mem || lmax <= ocl->local_mem;
    if (wm < MWG || ws < MWG || !fits) {
        st = GS_FAIL(GS_ERR_UNSUPPORTED, "the device runs the merge kernels with at most %zu work-items (%d "
                     "needed) and %llu bytes of local memory (%llu needed; a smaller --ws-size needs less)",
                     wm < ws ? wm : ws, MWG, (unsigned long long)ocl->local_mem, (unsigned long long)lmax);
        goto cleanup;
    }
    s->build_seconds = gs_now() - t0;
    gs_log_verbose(log, "gpusvm: solver program %s the multi-kernel selection (%.3f s)\n",
                   s->multi_sel ? "with" : "without", s->build_seconds);
    *out = s;
    return GS_OK;
cleanup:
    gs_solver_free(s);
    return st;
}

/* Sets argument i of kernel kern to v, or leaves through cleanup with st set. */
#define SETARG(kern, i, v)                                                          \
    do {                                                                            \
        if ((st = gs_dev_arg(&s->ks, (kern), (i), sizeof(v), &(v))) != GS_OK) goto cleanup; \
    } while (0)

/* gs_dev_launch of kernel k of the solver's program, without a completion event. */
static gs_status launch(gs_solver *s, gs_dev_prof *pf, int k, size_t g0, size_t g1, size_t local)
{
    return gs_dev_launch(&s->dev, &s->ks, k, pf, g0, g1, local, NULL);
}

/* k_rows over the nvc virtual clusters for up to q_new new slots (WCH a work-group). */
static gs_status launch_rows(gs_solver *s, gs_dev_prof *pf, int nvc, int q_new)
{
    return launch(s, pf, K_ROWS, (size_t)nvc * s->wg, (size_t)((q_new + WCH - 1) / WCH), (size_t)s->wg);
}

/* The round's kernel rows: by column over nvpc virtual chunks (k_rows_col, one work-group a chunk
 * and new slot) when the batch has them, else k_rows over nvc virtual clusters. */
static gs_status launch_rows_any(gs_solver *s, gs_dev_prof *pf, int nvc, int nvpc, int q_new)
{
    if (nvpc > 0) return launch(s, pf, K_ROWS_COL, (size_t)nvpc * 256, (size_t)q_new, 256);
    return launch_rows(s, pf, nvc, q_new);
}

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

/* The chunks of pcl clusters holding the problem's local clusters [c0, c1) (range A's, at a0, then
 * range B's, at b0; all of them: 0, na + nb), those of range A first, then those of range B not
 * listed already, as (tag, chunk) pairs into out; returns how many (at most c1 - c0). */
static int chunk_list(const gs_binary_spec *sp, int pcl, int tag, int c0, int c1, int *out)
{
    const int na = sp->na, a_lo = c0 < na ? c0 : na, a_hi = c1 < na ? c1 : na;
    const int b_lo = (c0 > na ? c0 : na) - na, b_hi = (c1 > na ? c1 : na) - na;
    const int h0[2] = {(sp->a0 + a_lo) / pcl, (sp->b0 + b_lo) / pcl};
    const int h1[2] = {a_hi > a_lo ? (sp->a0 + a_hi - 1) / pcl : -1, b_hi > b_lo ? (sp->b0 + b_hi - 1) / pcl : -1};
    int n = 0;
    for (int r = 0; r < 2; r++)
        for (int h = h0[r]; h <= h1[r]; h++) {
            if (r == 1 && h >= h0[0] && h <= h1[0]) continue; /* range a's too */
            out[2 * n] = tag;
            out[2 * n + 1] = h;
            n++;
        }
    return n;
}

gs_status gs_solver_cluster(const gs_param *param, const int64_t *row_ptr, const int32_t *idx,
                            const float *val, int32_t n, int32_t nseg, const int32_t *seg, gs_clustered *out)
{
    return gs_solver_cluster_wide(param, row_ptr, idx, val, n, nseg, seg, -1, out);
}

gs_status gs_solver_cluster_wide(const gs_param *param, const int64_t *row_ptr, const int32_t *idx,
                                 const float *val, int32_t n, int32_t nseg, const int32_t *seg, int wide,
                                 gs_clustered *out)
{
    /* -t 4: the kernel matrix rows, dense and by position (data/precomputed.h) */
    gs_status st = param->kernel_type == GS_KERNEL_PRECOMPUTED
                       ? gs_precomputed_cluster(row_ptr, idx, val, n, nseg, seg, param->cluster_size, out)
                       : gs_cluster_build_seg_wide(row_ptr, idx, val, n, nseg, seg, param->cluster_size,
                                                   param->clusters_active, param->seed, wide, out);
    if (st != GS_OK) return st;
    /* integer values and squared norms below 2^24: every partial sum of a dot product is an integer
     * a float holds exactly (|sum| <= |x||z|), so the certification may sum in float (a9a, w8a) */
    int ints = 1;
    for (int64_t e = 0; e < row_ptr[n] && ints; e++) ints = val[e] == rintf(val[e]);
    for (int32_t t = 0; t < out->n_pos && ints; t++) ints = out->norm2[t] < 16777216.0;
    out->exact_float_dots = ints;
    return GS_OK;
}

/* Host state of one problem of a batch. */
typedef struct prob {
    gs_binary_spec *spec;
    int npos, pos_off;
    const int8_t *y;     /* [npos] (the batch's array) */
    double *ah;          /* [npos] alphas */
    double *a0;          /* [npos] the starting alphas of a cert_delta problem (warm_start), else NULL */
    int *wsp;            /* [q] position of each slot, -1 when empty */
    int *row;            /* [q] kernel row of each slot's member (the device's ws_row) */
    int nnew;            /* members new to the set this round (p->nn: rows computed for them) */
    double *upd;         /* [4q] alpha changes to send: coef, alpha, kernel row, position */
    int8_t *ysub;        /* [q] the subproblem, kept between its two parts */
    double *asub, *gsub, *csub;
    double tol_b;        /* the second part's gap tolerance */
    long steps_b;        /* its step budget */
    int nupd, nn, done;
    int nupd_b;          /* changes of the last second part (not seen by the set selected meanwhile) */
    const double *rb;    /* this round's readback: head (see k_readback) */
    /* the nu rule (spec->nu_rule): each round selects over the rows of one sign (R_SEL, +1 and -1
     * in turn) and its gap is that sign's; the problem stops when both signs' last gaps are below
     * eps with no change made since the older of the two was measured */
    int nu, sel;
    double gap_sign[2];  /* the last gap measured for y = +1 / y = -1 (INFINITY: not yet) */
    int prev_nupd;       /* changes the previous round's subproblem made */
    int prev_idle;       /* the previous round moved nothing and brought nothing new */
    const float *kws;    /* and the set's kernel matrix */
    long max_inner;
    int nrows;           /* its rows (positions that are not padding) */
    double eps;          /* its stopping tolerance (the subproblems') */
    double stop;         /* the gap below which its rounds stop: eps, or spec->stop_gap above it */
} prob;

/* Scratch of one subproblem thread. */
typedef struct scratch {
    double *work;
    float *kfull;        /* [q * q]: the set's matrix unpacked from the readback's upper triangle */
    /* profiled runs: seconds of the readback's absorbing and the stop tests, the unpacking, the
     * SMO and the changes' records; the solves */
    double t_absorb, t_unpack, t_smo, t_emit;
    long solves;
    char pad[64];        /* the threads' counters apart (each solve writes them) */
} scratch;

/* The q x q matrix of the readback's upper triangle tri (kernels/abi.h GS_RB_TRI: row a holds
 * (a, a..q-1)) into full, its lower half the mirror. */
#define UNPACK_TILE 32
static const float *kws_unpack(const float *tri, int q, float *full)
{
    /* the upper triangle row by row, then the lower one from it by UNPACK_TILE^2 tiles: the
     * column-order writes of one pass (a stride of q floats, the same cache sets at q = 128)
     * made this cost as much as the subproblem (development machine, q = 128: 18 us -> 4.5 us) */
    for (int a = 0; a < q; a++)
        memcpy(full + (size_t)a * q + a, tri + GS_RB_TRI(q, a, a), sizeof(float) * (size_t)(q - a));
    for (int b0 = 0; b0 < q; b0 += UNPACK_TILE)
        for (int a0 = 0; a0 <= b0; a0 += UNPACK_TILE) {
            const int a1 = a0 + UNPACK_TILE < q ? a0 + UNPACK_TILE : q, b1 = b0 + UNPACK_TILE < q ? b0 + UNPACK_TILE : q;
            for (int a = a0; a < a1; a++) {
                const float *fa = full + (size_t)a * q;
                for (int b = b0 > a ? b0 : a + 1; b < b1; b++) full[(size_t)b * q + a] = fa[b];
            }
        }
    return full;
}

/* The per-round host work of a batch: absorb each active problem's readback, test its stop rule,
 * solve its subproblem (phase 0: all of it, or its first part when split; phase 1: the second
 * part). Run by the calling thread and, for several problems, a pool of threads it wakes once
 * per phase (gen) and waits for (pending). */
typedef struct crew {
    gs_solver *s;
    prob *pr;
    const int *act;      /* active problems this round */
    int nact, phase;
    int split;           /* the batch's rounds are split */
    int rbfull;          /* the matrices come whole (batch.rbfull): nothing to unpack */
    atomic_int next;     /* next item, taken without the lock (a preempted lock holder would
                          * stall every thread on a busy host) */
    int quit, gen, pending, nstarted; /* guarded by mu */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    scratch *sc;         /* [nthreads] */
    double *t_sub;       /* [nthreads] */
} crew;

/* Turns the subproblem's new alphas into update records (p->upd, p->nupd of them) and takes them
 * into p->ah. */
static void emit_changes(prob *p, int q)
{
    int nupd = 0;
    for (int i = 0; i < q; i++)
        if (p->wsp[i] >= 0 && p->asub[i] != p->ah[p->wsp[i]]) nupd++;
    int u = 0;
    for (int i = 0; i < q; i++) {
        const int t = p->wsp[i];
        if (t < 0 || p->asub[i] == p->ah[t]) continue;
        p->upd[u] = (double)p->ysub[i] * (p->asub[i] - p->ah[t]);
        p->upd[nupd + u] = p->asub[i];
        p->upd[2 * nupd + u] = (double)p->row[i];
        p->upd[3 * nupd + u] = (double)t;
        p->ah[t] = p->asub[i];
        u++;
    }
    p->nupd = nupd;
}

/* Phase 0: absorbs p's readback, tests the stop rules and runs its subproblem, all of it or (split)
 * until its gap falls to SPLIT_AT times the initial gap. */
static void host_first(gs_solver *s, int split, int rbfull, prob *p, scratch *sc)
{
    const int q = s->q;
    /* the split of the threads' time, in profiled runs only (five clock reads a subproblem) */
    const int timed = s->dev.profile;
    const double ta = timed ? gs_now() : 0;
    const double *rb = p->rb;
    p->nn = (int)rb[2];
    /* the members new to the set: the slots that now hold a member they did not hold (n_new counts
     * the rows computed, which the row cache and a row split's renewed rows make differ) */
    int nnew = 0;
    for (int i = 0; i < q; i++) {
        const int w = (int)rb[4 + q + i];
        nnew += w >= 0 && w != p->wsp[i];
    }
    p->nnew = nnew;
    const double *Gs = rb + 4;
    for (int i = 0; i < q; i++) p->wsp[i] = (int)rb[4 + q + i];
    /* each slot's kernel row (ws_merge: the other bank's for a new member of a split round; k_cache:
     * the row cache's line) */
    for (int i = 0; i < q; i++) p->row[i] = (int)rb[4 + 3 * q + i];
    /* the device refreshed the set's kernel matrix and sent its upper triangle (host_first and
     * host_second unpack it for the subproblem) */
    const float *Kws = p->kws;
    /* the gap and the selection are of the gradients before the last second part's changes: they
     * are the current ones only if it changed nothing */
    const int fresh = p->nupd_b == 0;
    p->nupd = 0;
    p->nupd_b = 0;
    const double gap = rb[0] + rb[1];
    if (p->nu) {
        const int si = p->sel < 0;
        p->gap_sign[si] = gap;
        const int other_current = p->prev_nupd == 0; /* the other sign's gap still holds */
        if (!(gap >= p->stop) && !(p->gap_sign[1 - si] >= p->stop) && other_current) { p->done = 1; return; }
    } else if (!(gap >= p->stop) && fresh) {
        p->done = 1; /* also stops on NaN or an empty side */
        return;
    }
    gs_binary_result *res = &p->spec->res;
    if (res->inner_steps >= p->max_inner) { res->max_iter_hit = 1; p->done = 1; return; }
    for (int i = 0; i < q; i++) {
        const int t = p->wsp[i];
        const int yt = t >= 0 ? p->y[t] : 0;
        p->ysub[i] = (int8_t)yt;
        p->csub[i] = yt > 0 ? p->spec->Cp : (yt < 0 ? p->spec->Cn : 0);
        p->asub[i] = t >= 0 ? p->ah[t] : 0;
        p->gsub[i] = t >= 0 ? Gs[i] : 0;
    }
    /* a set that holds every row of the problem is the problem: solved to eps at once (the next
     * round's gradients, or the certification, say whether that holds on the device's values) */
    int members = 0;
    for (int i = 0; i < q; i++) members += p->wsp[i] >= 0;
    const int whole = !p->nu && members == p->nrows;
    const long budget = whole ? p->max_inner - res->inner_steps : 100L * q + 1000;
    const double tu = timed ? gs_now() : 0;
    gs_subproblem sp = {.n = q, .K = rbfull ? Kws : kws_unpack(Kws, q, sc->kfull), .ld = q, .y = p->ysub, .C = p->csub,
                        .alpha = p->asub, .g = p->gsub, .work = sc->work, .eps = p->eps,
                        .rel = whole ? 0 : split ? SPLIT_AT : REL, .max_steps = budget};
    double g0;
    const double tm = timed ? gs_now() : 0;
    const long steps = p->nu ? gs_subproblem_solve_nu(&sp, &g0) : gs_subproblem_solve(&sp, &g0);
    const double te = timed ? gs_now() : 0;
    sc->solves++;
    res->inner_steps += steps;
    /* the second part goes on to SPLIT_REL: the steps are those of one solve to SPLIT_REL */
    p->tol_b = SPLIT_REL * g0 > p->eps ? SPLIT_REL * g0 : p->eps;
    p->steps_b = budget - steps;
    emit_changes(p, q);
    if (timed) {
        sc->t_absorb += tu - ta;
        sc->t_unpack += tm - tu;
        sc->t_smo += te - tm;
        sc->t_emit += gs_now() - te;
    }
    res->iterations++;
    /* nothing moved and nothing new (selected on current gradients): no progress possible (for
     * the nu rule, in two rounds in a row: one of each sign) */
    const int idle = p->nupd == 0 && nnew == 0 && fresh;
    if (idle && (!p->nu || p->prev_idle)) p->done = 1;
    if (p->nu) {
        p->prev_idle = idle;
        p->prev_nupd = p->nupd;
        p->sel = -p->sel;
    }
}

/* Phase 1 (split): the rest of p's subproblem. */
static void host_second(gs_solver *s, int rbfull, prob *p, scratch *sc)
{
    const int q = s->q;
    p->nupd = 0;
    if (p->done || p->steps_b <= 0) return;
    gs_subproblem sp = {.n = q, .K = rbfull ? p->kws : kws_unpack(p->kws, q, sc->kfull), .ld = q, .y = p->ysub, .C = p->csub,
                        .alpha = p->asub, .g = p->gsub, .work = sc->work, .eps = p->tol_b, .rel = 0,
                        .max_steps = p->steps_b};
    double g0;
    p->spec->res.inner_steps += gs_subproblem_solve(&sp, &g0);
    emit_changes(p, q);
    p->nupd_b = p->nupd;
}

/* One thread's share of a phase, timed once for the share rather than per problem. (On the H100's
 * host letter -v 5's 11,004 subproblems took 1.25 s of the threads' time, of which the unpacking
 * and the SMO were 0.45 s; the clock, 0.04 us a read there, is not the rest.) */
static void crew_items(crew *c, int id)
{
    const double t0 = gs_now();
    for (;;) {
        const int i = atomic_fetch_add(&c->next, 1);
        if (i >= c->nact) break;
        prob *p = &c->pr[c->act[i]];
        if (c->phase == 0) host_first(c->s, c->split, c->rbfull, p, &c->sc[id]);
        else host_second(c->s, c->rbfull, p, &c->sc[id]);
    }
    c->t_sub[id] += gs_now() - t0;
}

typedef struct crew_arg {
    crew *c;
    int id;
} crew_arg;

static void *crew_run(void *arg)
{
    crew_arg *a = arg;
    crew *c = a->c;
    int seen = 0;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        while (c->gen == seen && !c->quit) pthread_cond_wait(&c->go, &c->mu);
        seen = c->gen;
        const int quit = c->quit;
        pthread_mutex_unlock(&c->mu);
        if (quit) break;
        crew_items(c, a->id);
        pthread_mutex_lock(&c->mu);
        if (--c->pending == 0) pthread_cond_signal(&c->done);
        pthread_mutex_unlock(&c->mu);
    }
    return NULL;
}

/* One phase of a round's host work on the calling thread and the started crew threads. */
static void crew_round(crew *c, int nact, int phase)
{
    pthread_mutex_lock(&c->mu);
    c->nact = nact;
    c->phase = phase;
    atomic_store(&c->next, 0);
    c->pending = c->nstarted;
    c->gen++;
    pthread_cond_broadcast(&c->go);
    pthread_mutex_unlock(&c->mu);
    crew_items(c, 0);
    pthread_mutex_lock(&c->mu);
    while (c->pending > 0) pthread_cond_wait(&c->done, &c->mu);
    pthread_mutex_unlock(&c->mu);
}

/* A batch's subproblem threads: GPUSVM_SUB_THREADS, else the host's CPUs, at most 16. */
static int host_threads(const gs_solver *s)
{
    return s->tuning.sub_threads > 0 ? s->tuning.sub_threads : gs_cpu_threads(16);
}

/* Split rounds enqueue their first part on a courier thread (see courier.h) on a GPU when the host
 * has cores to spare for its spinning (4 or more); GPUSVM_COURIER=0|1 forces either (the tests run
 * both). H100, NVIDIA's OpenCL: the host spent ~0.2 ms a round in OpenCL calls (~17 us a kernel),
 * ~0.13 ms of it before the second part of the subproblem. */
static int use_courier(const gs_solver *s)
{
    if (s->tuning.courier == 0) return 0;
    if (s->tuning.courier == 1) return 1;
    return (s->ocl->device_type & CL_DEVICE_TYPE_GPU) && sysconf(_SC_NPROCESSORS_ONLN) >= 4;
}

/* Columns of a problem's block U of working-set vectors: the data's distinct columns and a spare,
 * none for wide data (kernels read the vectors from the layout, gs_sparse_dot). */
static size_t u_cols(const gs_solver *s, const gs_clustered *cl)
{
    return s->wide ? 0 : (size_t)cl->n_ucols + 1;
}

/* Doubles of one problem's readback: header, per-slot G / position / new slot / kernel row, then
 * the set's matrix's upper triangle, q(q+1)/2 floats, or with full (batch.rbfull) all of it. */
static size_t rb_head(int q) { return (size_t)GS_RB_HEAD(q); }
static size_t rb_kws(int q, int full) { return (size_t)(full ? GS_RB_KWS_FULL(q) : GS_RB_KWS(q)); }
static size_t rb_doubles(int q, int full) { return rb_head(q) + rb_kws(q, full); }
/* A row split's heads and picks (rsplit), in doubles. */
static size_t rs_pin_doubles(int q) { return rb_head(q) + (GS_ROWSPLIT_PICK_WORDS(q) + 1) / 2; }

/* Device bytes, pinned bytes and host bytes one problem of npos positions needs, with nbank banks
 * of kernel rows (2 for split rounds). */
static void prob_bytes(const gs_solver *s, size_t npos, size_t ucols, size_t nbank, size_t *dev_b, size_t *pin_b,
                       size_t *host_b)
{
    const size_t q = (size_t)s->q;
    *dev_b = nbank * q * npos * sizeof(float) + ucols * q * sizeof(float) + npos * 30 + q * 36 + 2 * 2048 * 4 +
             q * q * sizeof(float) + rb_doubles(s->q, 0) * sizeof(double);
    *pin_b = nbank * (rb_doubles(s->q, 0) + 4 * q + sizeof(gs_abi_round) / sizeof(int32_t)) * sizeof(double);
    *host_b = npos * 17 + 11 * q * sizeof(double) + 2 * q * sizeof(int) + q;
}

/* Packs the round table rt of the nact active problems (each entry's count and offset of changes
 * filled in here) and their pending changes into the pinned host memory at host, which must stay
 * untouched until the queue has passed its transfer. rtd: doubles the table takes.
 * @return the doubles to send */
static size_t pack_changes(prob *pr, const int *act, int nact, gs_abi_round *rt, size_t rtd, double *host,
                           double *bytes_update)
{
    size_t uoff = 0;
    for (int a = 0; a < nact; a++) {
        prob *p = &pr[act[a]];
        rt[a].nupd = p->nupd;
        rt[a].uoff = (int)(rtd + uoff);
        if (p->nupd) memcpy(host + rtd + uoff, p->upd, sizeof(double) * 4 * (size_t)p->nupd);
        uoff += 4 * (size_t)p->nupd;
        *bytes_update += (double)p->nupd * p->npos * sizeof(float) + (double)p->npos * 16;
    }
    memcpy(host, rt, (size_t)nact * sizeof *rt);
    return rtd + uoff;
}

/* A lone problem split by rows over devices (gs_solver_batch_rows). Every device holds the whole
 * clustered data and the whole per-position state (so positions, kernel rows and working sets are
 * indexed as on one device), but device d updates the gradients, computes the kernel rows and
 * selects only over its slice, the problem's chunks [ch[d], ch[d+1]) (chunks of WG * ITEMS
 * positions, in position order); every device also keeps local cluster 0, whose k_update group
 * writes the alphas and resets the selection's state. Each device selects over its slice (k_select
 * over [t_lo, t_hi), or the multi-kernel chain up to k_write and k_cand_keys) and sends its picks
 * with their keys instead of placing them; the host merges the picks (the largest keys, ties
 * by position: the picks of one device over every row) and every device merges them into its
 * working set (k_merge, each the same). Only device 0 computes the set's matrix (k_gram, with
 * renew: every window slot's entries from the set's vectors) and sends it; each device sends its
 * heads, and a slot's gradient is taken from the device that owns its position. */
#define RS_MAX 16
/* A row split's slices are selected by k_select (one work-group each) up to this many positions,
 * by the chain above: on four H200s covtype-gen's 250,000-position slices trained in 8.5-9.1 s
 * whole process by the chain against 9.6-11.5 s by k_select, interleaved (docs/performance.md, M12);
 * text-gen's 51,000 took the same either way. */
#define RS_ONE_GROUP_MAX (1 << 16)
struct round_jobs;
/* One device's share of a row split round's enqueueing (the rs_*_job functions). */
typedef struct rs_job {
    struct round_jobs *r;
    int d;
} rs_job;
typedef struct rsplit {
    int nd;                  /* devices; 0 when the batch is not split */
    gs_solver *s[RS_MAX];    /* [0] is the batch's solver */
    int ch[RS_MAX + 1];      /* each device's chunks */
    int nvch;                /* chunks per device's table: the largest slice (the others padded with
                              * an empty chunk), so the round table is the same for all */
    int nvc[RS_MAX];         /* clusters in each device's table */
    int *vc[RS_MAX], *vch[RS_MAX]; /* [2 nvc[d]], [2 nvch] */
    int nvpc[RS_MAX], *vpc[RS_MAX]; /* kernel rows by column (batch.pc): each device's chunks of the
                              * layout by column holding its clusters (rs_colchunks), else 0 / NULL */
    /* in each device's pinned readback memory, after the rounds' readbacks (rs_pin_doubles), as
     * reads into plain memory wait for the driver's copy out of its own: */
    double *heads[RS_MAX];   /* [rb_head(q)] devices 1.. read their heads here */
    uint32_t *pick[RS_MAX];  /* [GS_ROWSPLIT_PICK_WORDS(q)] each device's state, cand (2q) and keys (2q) */
    uint32_t mstate[8];      /* the merged picks: state (counts at [3] and [7]) */
    int32_t *mcand;          /* [2q] and the lists */
    uint64_t *sortb;         /* [nd q] scratch: (key, position) of one list's picks */
    /* devices 1..: each one's enqueueing on a thread of its own where the batch has a courier (on
     * a GPU each kernel launch costs the host ~17 us; the devices' launches go at once), else NULL
     * (run in turn on the calling thread); device 0's runs on the calling thread */
    gs_courier *cour[RS_MAX];
    rs_job job[RS_MAX];
    cl_event hev[RS_MAX];    /* each device's heads read (rs_heads_job) */
    double t_pick, t_merge, t_place; /* seconds: the picks' jobs (up to their reads), the host's merge,
                              * the placing's enqueueing (on the caller of rs_enqueue_select) */
    int serial;              /* CPU devices (PoCL): one device's commands at a time, each finished
                              * before the next device's start. PoCL 3.1 keeps one cache of compiled
                              * work-group functions for all its devices, keyed by the program, and
                              * two devices compiling one kernel at once (a cold cache) aborted in
                              * pocl_release_dlhandle_cache about one run in six */
} rsplit;

/* What a round's enqueueing needs (see solve_batch). The loop writes it while no job is pending;
 * the jobs read it, on the courier thread when there is one. */
typedef struct round_jobs {
    gs_solver *s;
    rsplit *rs;                /* the batch's split over devices (rs->nd > 1), else NULL */
    gs_dev_prof *pf;
    int one_group, split, nact, nvc, nvch, q, q_new;
    int cache;                 /* the row cache's k_cache after the merge (batch.rlines > 0) */
    int nvpc;                  /* virtual chunks of the kernel rows by column (vpc), 0: by row */
    int late_update;           /* split: the second parts' changes go through k_heads and k_update */
    int tables;                /* write the cluster and chunk tables first */
    const int *vc, *vch, *vpc;
    double *upd_a, *upd_b;     /* the writes of the first parts' (or all) and the second parts' changes */
    size_t upd_a_n, upd_b_n;   /* their doubles */
    double *rbx;               /* where this round's readback goes */
    size_t nhd, rkd, rbd;      /* doubles of the heads, of a matrix, of a whole readback */
    int rbfull;                /* the matrices read whole (batch.rbfull) */
    cl_event kws_read;         /* split: the matrices' read (out of enqueue_select, released by the loop) */
    int n_first;               /* kernels the first job queued (profiling) */
} round_jobs;

enum { RB_KWS = 1, RB_HEAD = 2, RB_ALL = 3, RB_FULL_BIT = 4 }; /* k_readback's parts (kernels/solver.cl) */

/* The multi-kernel selection over nvch virtual chunks of nact problems, up to k_write (the picks
 * in cand, their counts in state). */
static gs_status launch_chain(gs_solver *s, gs_dev_prof *pf, int nvch, int nact)
{
    gs_status st = GS_OK;
    const int store = 0;
    SETARG(K_HIST, 13, store);
    for (int d = 0; d < 3; d++) {
        SETARG(K_HIST, 8, d);
        SETARG(K_PICK, 4, d);
        if ((st = launch(s, pf, K_HIST, (size_t)nvch * s->wg * HSPLIT, 1, (size_t)s->wg)) ||
            (st = launch(s, pf, K_PICK, (size_t)nact * s->wg, 1, (size_t)s->wg)))
            goto cleanup;
    }
    if ((st = launch(s, pf, K_COUNT, (size_t)nvch * s->wg, 1, (size_t)s->wg)) ||
        (st = launch(s, pf, K_SCAN, (size_t)nact * s->wg, 1, (size_t)s->wg)) ||
        (st = launch(s, pf, K_WRITE, (size_t)nvch * s->wg, 1, (size_t)s->wg)))
        goto cleanup;
cleanup:
    return st;
}

static gs_status rs_enqueue_select(round_jobs *r);
static gs_status rs_enqueue_rows(round_jobs *r);

/* The round's start on solver s: its cluster and chunk tables when they changed (vc: nvc
 * clusters, vch: nvch chunks), the alpha changes (part one's, or all) and k_update over its
 * clusters. */
static gs_status update_on(gs_solver *s, const round_jobs *r, gs_dev_prof *pf, const int *vc, int nvc,
                           const int *vch, int nvch, const int *vpc, int nvpc)
{
    gs_status st = GS_OK;
    dev *const dp = &s->d;
    if (r->tables) {
        GS_CL_CHECK(clEnqueueWriteBuffer(s->queue, dp->vc.mem, CL_FALSE, 0, 2 * (size_t)nvc * sizeof(int), vc, 0, NULL,
                                         NULL));
        if (nvpc > 0)
            GS_CL_CHECK(clEnqueueWriteBuffer(s->queue, dp->vpc.mem, CL_FALSE, 0, 2 * (size_t)nvpc * sizeof(int), vpc,
                                             0, NULL, NULL));
        GS_CL_CHECK(clEnqueueWriteBuffer(s->queue, dp->vch.mem, CL_FALSE, 0, 2 * (size_t)nvch * sizeof(int), vch, 0,
                                         NULL, NULL));
    }
    GS_CL_CHECK(clEnqueueWriteBuffer(s->queue, dp->upd.mem, CL_FALSE, 0, r->upd_a_n * sizeof(double), r->upd_a, 0,
                                     NULL, NULL));
    st = launch(s, pf, K_UPDATE, (size_t)nvc * s->wg * USPLIT, 1, (size_t)s->wg);
cleanup:
    return st;
}

/* Split rounds: the set's kernel matrices (k_readback) read on the transfer queue, so the heads'
 * kernel and read need not wait for them (device-to-host copies and kernels run side by side),
 * into the other half of the pinned memory, as the second parts still read the last ones; the
 * read's event goes to r->kws_read. */
static gs_status kws_read_xfer(gs_solver *s, round_jobs *r, gs_dev_prof *pf)
{
    gs_status st = GS_OK;
    cl_event done = NULL;
    if ((st = gs_dev_launch(&s->dev, &s->ks, K_READBACK, pf, round_up((size_t)r->q * r->q / 4, 256), (size_t)r->nact,
                            256, &done)))
        goto cleanup;
    GS_CL_CHECK(clEnqueueReadBuffer(s->xfer, s->d.rb.mem, CL_FALSE, r->nhd * sizeof(double),
                                    r->rkd * (size_t)r->nact * sizeof(double), r->rbx + r->nhd, 1, &done,
                                    &r->kws_read));
    GS_CL_CHECK(clFlush(s->xfer));
cleanup:
    if (done) clReleaseEvent(done);
    return st;
}

/* The heads on solver s (with the second parts' changes added to the set's gradients when there
 * are some; the first split round's heads alone), then the read of n doubles of its readback into
 * dst, whose event goes to *read. */
static gs_status heads_on(gs_solver *s, const round_jobs *r, gs_dev_prof *pf, size_t n, double *dst,
                          cl_event *read)
{
    gs_status st = GS_OK;
    if (r->late_update) {
        GS_CL_CHECK(clEnqueueWriteBuffer(s->queue, s->d.upd.mem, CL_FALSE, 0, r->upd_b_n * sizeof(double), r->upd_b,
                                         0, NULL, NULL));
        if ((st = launch(s, pf, K_HEADS, round_up((size_t)r->q * USPLIT, 256), (size_t)r->nact, 256))) goto cleanup;
    } else if (r->split) { /* the first round: the heads alone, then back to the matrices */
        const int head_part = RB_HEAD, kws_part = RB_KWS | (r->rbfull ? RB_FULL_BIT : 0);
        SETARG(K_READBACK, 13, head_part);
        st = launch(s, pf, K_READBACK, round_up((size_t)r->q, 256), (size_t)r->nact, 256);
        SETARG(K_READBACK, 13, kws_part);
        if (st) goto cleanup;
    }
    GS_CL_CHECK(clEnqueueReadBuffer(s->queue, s->d.rb.mem, CL_FALSE, 0, n * sizeof(double), dst, 0, NULL, read));
cleanup:
    return st;
}

/* The round up to the heads: the changes, k_update, the selection, the new members' data, their
 * matrix entries (split) or kernel rows, k_readback and (split) the matrices' read on xfer. */
static gs_status enqueue_select(void *arg)
{
    round_jobs *r = arg;
    if (r->rs) return rs_enqueue_select(r);
    gs_solver *s = r->s;
    gs_status st = GS_OK;
    if ((st = update_on(s, r, r->pf, r->vc, r->nvc, r->vch, r->nvch, r->vpc, r->nvpc))) goto cleanup;
    if (r->one_group) { /* the top digit's histogram and the keys (arguments set once), then k_select */
        if ((st = launch(s, r->pf, K_HIST, (size_t)r->nvch * s->wg * HSPLIT, 1, (size_t)s->wg)) ||
            (st = launch(s, r->pf, K_SELECT, (size_t)r->nact * MWG, 1, MWG)))
            goto cleanup;
    } else if ((st = launch_chain(s, r->pf, r->nvch, r->nact)) ||
               (st = launch(s, r->pf, K_MERGE, (size_t)r->nact * MWG, 1, MWG))) {
        goto cleanup;
    }
    if (r->cache && (st = launch(s, r->pf, K_CACHE, (size_t)r->nact * MWG, 1, MWG))) goto cleanup;
    /* split: the set's new matrix entries now, the full rows after the read; unsplit (one-vs-one
     * batches of small problems, where k_gram took longer than k_rows: letter 2.4 against 1.5
     * ms a run on the H100), the rows now and the matrix from them (fresh stays 0) */
    if ((st = launch(s, r->pf, K_GATHER, (size_t)r->q_new * s->wg, (size_t)r->nact, (size_t)s->wg)) ||
        (st = r->split ? launch(s, r->pf, K_GRAM, (size_t)r->q * GRAM_WG, (size_t)r->nact, GRAM_WG)
                       : launch_rows_any(s, r->pf, r->nvc, r->nvpc, r->q_new)))
        goto cleanup;
    /* both parts of the readback in one read later, or (split) the kernel matrices now (its part
     * argument set once: RB_ALL, or RB_KWS split) */
    if (r->split) {
        if ((st = kws_read_xfer(s, r, r->pf))) goto cleanup;
        GS_CL_CHECK(clFlush(s->queue));
    } else if ((st = launch(s, r->pf, K_READBACK, round_up((size_t)r->q * r->q / 4, 256), (size_t)r->nact, 256))) {
        goto cleanup;
    }
    r->n_first = r->pf->n;
cleanup:
    return st;
}

/* The heads (with the second parts' changes added to the set's gradients when there are some)
 * and their read, whose event goes to *read. */
static gs_status enqueue_heads(round_jobs *r, cl_event *read)
{
    return heads_on(r->s, r, r->pf, r->split ? r->nhd : r->rbd * (size_t)r->nact, r->rbx, read);
}

/* Split, after the heads' read: the second parts' k_update over every row and this round's new
 * kernel rows, which the next round's k_update is the first to need; they run while the host
 * solves. */
static gs_status enqueue_rows(void *arg)
{
    round_jobs *r = arg;
    if (r->rs) return rs_enqueue_rows(r);
    gs_solver *s = r->s;
    gs_status st = GS_OK;
    if (r->late_update && (st = launch(s, r->pf, K_UPDATE, (size_t)r->nvc * s->wg * USPLIT, 1, (size_t)s->wg)))
        goto cleanup;
    if (r->split && (st = launch_rows_any(s, r->pf, r->nvc, r->nvpc, r->q_new))) goto cleanup;
    GS_CL_CHECK(clFlush(s->queue));
cleanup:
    return st;
}

/* ---- a lone problem split by rows over devices (rsplit) ---------------------------------------- */

/* The device whose slice holds the problem's local position t. */
static int rs_owner(const rsplit *rs, int wg, int t)
{
    const int c = t / (wg * ITEMS);
    int d = 0;
    while (d + 1 < rs->nd && c >= rs->ch[d + 1]) d++;
    return d;
}

/* Row split: fn for every device, devices 1.. on their couriers, device 0 on this thread; with
 * drain, returns once all have run. @return GS_OK or the first failure */
static gs_status rs_each(rsplit *rs, gs_courier_fn fn, int drain)
{
    gs_status st = GS_OK;
    if (rs->serial) { /* (see rsplit.serial) */
        for (int d = 0; d < rs->nd && st == GS_OK; d++) {
            if (d == 0) st = fn(&rs->job[0]);
            else if ((st = gs_courier_post(rs->cour[d], fn, &rs->job[d])) == GS_OK) st = gs_courier_drain(rs->cour[d]);
            const cl_int e = clFinish(rs->s[d]->queue);
            if (st == GS_OK && e != CL_SUCCESS) st = GS_FAIL(GS_ERR_OCL, "clFinish failed: %s", gs_cl_error_name(e));
        }
        return st;
    }
    for (int d = 1; d < rs->nd && st == GS_OK; d++) st = gs_courier_post(rs->cour[d], fn, &rs->job[d]);
    const gs_status s0 = st == GS_OK ? fn(&rs->job[0]) : GS_OK;
    for (int d = 1; d < rs->nd && drain; d++) {
        const gs_status sd = gs_courier_drain(rs->cour[d]);
        if (st == GS_OK) st = sd;
    }
    return st != GS_OK ? st : s0;
}

/* Waits for every device's courier (its jobs read the round's fields). */
static gs_status rs_drain(rsplit *rs)
{
    gs_status st = GS_OK;
    for (int d = 1; rs && d < rs->nd; d++) {
        const gs_status sd = gs_courier_drain(rs->cour[d]);
        if (st == GS_OK) st = sd;
    }
    return st;
}

/* What a row split's job works with: its round, its device's solver and buffers, and the
 * profiling (device 0's only). */
typedef struct rs_ctx {
    round_jobs *r;
    rsplit *rs;
    int d, q;
    gs_solver *s;
    dev *dp;
    gs_dev_prof *pf;
} rs_ctx;

static rs_ctx rs_ctx_of(const void *arg)
{
    const rs_job *j = arg;
    rsplit *rs = j->r->rs;
    gs_solver *s = rs->s[j->d];
    return (rs_ctx){.r = j->r, .rs = rs, .d = j->d, .q = j->r->q, .s = s, .dp = &s->d,
                    .pf = j->d == 0 ? j->r->pf : NULL};
}

/* Row split, one device: the changes, k_update over its clusters and the selection over its
 * chunks up to its picks and their keys, read into rs->picks; returns once they are there. */
static gs_status rs_pick_job(void *arg)
{
    const rs_ctx c = rs_ctx_of(arg);
    const round_jobs *r = c.r;
    const cl_command_queue cq = c.s->queue;
    uint32_t *h = c.rs->pick[c.d];
    const size_t wg = (size_t)c.s->wg;
    gs_status st = GS_OK;
    cl_event rd = NULL;
    if ((st = update_on(c.s, r, c.pf, c.rs->vc[c.d], c.rs->nvc[c.d], c.rs->vch[c.d], c.rs->nvch, c.rs->vpc[c.d],
                        c.rs->nvpc[c.d])))
        goto cleanup;
    if (r->one_group) { /* k_hist (keys stored) and k_select with its picks sent */
        if ((st = launch(c.s, c.pf, K_HIST, (size_t)c.rs->nvch * wg * HSPLIT, 1, wg)) ||
            (st = launch(c.s, c.pf, K_SELECT, (size_t)r->nact * MWG, 1, MWG)))
            goto cleanup;
    } else if ((st = launch_chain(c.s, c.pf, c.rs->nvch, r->nact)) ||
               (st = launch(c.s, c.pf, K_CAND, (size_t)r->nact * MWG, 1, MWG))) {
        goto cleanup;
    }
    GS_CL_CHECK(clEnqueueReadBuffer(cq, c.dp->state.mem, CL_FALSE, 0, 8 * sizeof(uint32_t), h, 0, NULL, NULL));
    GS_CL_CHECK(clEnqueueReadBuffer(cq, c.dp->cand.mem, CL_FALSE, 0, 2 * (size_t)c.q * sizeof(int32_t), h + 8, 0,
                                    NULL, NULL));
    GS_CL_CHECK(clEnqueueReadBuffer(cq, c.dp->ckey.mem, CL_FALSE, 0, 2 * (size_t)c.q * sizeof(uint32_t),
                                    h + 8 + 2 * (size_t)c.q, 0, NULL, &rd));
    GS_CL_CHECK(clWaitForEvents(1, &rd));
cleanup:
    if (rd) clReleaseEvent(rd);
    return st;
}

/* Row split, one device: the merged picks into its working set (k_merge, renewing kept slots), the
 * new members' vectors; unsplit, device 0's matrix entries (k_gram), the rows and the readback;
 * split, device 0's matrix entries and their read on xfer (r->kws_read). */
static gs_status rs_place_job(void *arg)
{
    const rs_ctx c = rs_ctx_of(arg);
    round_jobs *r = c.r;
    const cl_command_queue cq = c.s->queue;
    const size_t q = (size_t)c.q, na = (size_t)r->nact;
    gs_status st = GS_OK;
    GS_CL_CHECK(clEnqueueWriteBuffer(cq, c.dp->state.mem, CL_FALSE, 0, sizeof c.rs->mstate, c.rs->mstate, 0, NULL,
                                     NULL));
    GS_CL_CHECK(clEnqueueWriteBuffer(cq, c.dp->cand.mem, CL_FALSE, 0, 2 * q * sizeof(int32_t), c.rs->mcand, 0, NULL,
                                     NULL));
    if ((st = launch(c.s, c.pf, K_MERGE, na * MWG, 1, MWG)) ||
        (st = launch(c.s, c.pf, K_GATHER, (size_t)r->q_new * c.s->wg, na, (size_t)c.s->wg)) ||
        (c.d == 0 && (st = launch(c.s, c.pf, K_GRAM, q * GRAM_WG, na, GRAM_WG))))
        goto cleanup;
    /* unsplit: the whole readback, which reads no kernel row (every window slot's entries are
     * k_gram's: renew), so the rows follow the read (rs_rows_job) and run while the host solves;
     * split: device 0's matrices, read on xfer */
    if (!r->split) {
        if ((st = launch(c.s, c.pf, K_READBACK, round_up(q * q / 4, 256), na, 256))) goto cleanup;
    } else if (c.d == 0 && (st = kws_read_xfer(c.s, r, c.pf))) {
        goto cleanup;
    }
    GS_CL_CHECK(clFlush(cq));
cleanup:
    return st;
}

/* Row split, the round up to the heads: every device's picks (rs_pick_job), the host's merge, then
 * every device's placing (rs_place_job). */
static gs_status rs_enqueue_select(round_jobs *r)
{
    rsplit *rs = r->rs;
    const double t0 = gs_now();
    gs_status st = rs_each(rs, rs_pick_job, 1);
    if (st != GS_OK) return st;
    const double t1 = gs_now();
    const int want[2] = {r->q_new / 2, r->q_new - r->q_new / 2}; /* k_up, k_low (round_tables) */
    gs_rowsplit_merge((const uint32_t *const *)rs->pick, rs->nd, r->q, want, rs->mstate, rs->mcand, rs->sortb);
    const double t2 = gs_now();
    st = rs_each(rs, rs_place_job, 0);
    rs->t_pick += t1 - t0;
    rs->t_merge += t2 - t1;
    rs->t_place += gs_now() - t2;
    if (st != GS_OK) return st;
    r->n_first = r->pf->n;
    return GS_OK;
}

/* Row split, one device: its heads (with the second parts' changes when there are some), read into
 * the round's readback (device 0, unsplit with the matrices) or rs->heads[d]; rs->hev[d] the read. */
static gs_status rs_heads_job(void *arg)
{
    const rs_ctx c = rs_ctx_of(arg);
    const round_jobs *r = c.r;
    gs_status st = GS_OK;
    const size_t n = c.d == 0 && !r->split ? r->rbd * (size_t)r->nact : r->nhd;
    if ((st = heads_on(c.s, r, c.pf, n, c.d == 0 ? r->rbx : c.rs->heads[c.d], &c.rs->hev[c.d]))) goto cleanup;
    GS_CL_CHECK(clFlush(c.s->queue));
cleanup:
    return st;
}

/* Row split: every device's heads; rs->hev[d] their reads (the caller waits for and releases them). */
static gs_status rs_enqueue_heads(round_jobs *r)
{
    for (int d = 0; d < r->rs->nd; d++) r->rs->hev[d] = NULL;
    return rs_each(r->rs, rs_heads_job, 1);
}

/* Row split, after the heads' reads: the gap's two sides are the devices' largest, and each slot's
 * gradient is its owner's (the other devices do not update that row). */
static void rs_heads_merge(const rsplit *rs, double *h, int q, int wg)
{
    for (int d = 1; d < rs->nd; d++) {
        h[0] = fmax(h[0], rs->heads[d][0]);
        h[1] = fmax(h[1], rs->heads[d][1]);
    }
    for (int sl = 0; sl < q; sl++) {
        const int t = (int)h[4 + q + sl];
        const int d = t >= 0 ? rs_owner(rs, wg, t) : 0;
        if (d > 0) h[4 + sl] = rs->heads[d][4 + sl];
    }
}

/* Row split, one device, after the heads' read: the second parts' k_update and the new kernel rows
 * over its clusters (either round form: the next k_update is the first to need them). */
static gs_status rs_rows_job(void *arg)
{
    const rs_ctx c = rs_ctx_of(arg);
    const size_t wg = (size_t)c.s->wg, nvc = (size_t)c.rs->nvc[c.d];
    gs_status st = GS_OK;
    if ((c.r->late_update && (st = launch(c.s, c.pf, K_UPDATE, nvc * wg * USPLIT, 1, wg))) ||
        (st = launch_rows_any(c.s, c.pf, (int)nvc, c.rs->nvpc[c.d], c.r->q_new)))
        goto cleanup;
    GS_CL_CHECK(clFlush(c.s->queue));
cleanup:
    return st;
}

static gs_status rs_enqueue_rows(round_jobs *r) { return rs_each(r->rs, rs_rows_job, 0); }

/* Index of position t of problem sp in its alpha array (range A's rows first, then range B's), or
 * -1 for a padding position. */
static int64_t pos_index(const gs_clustered *cl, const gs_binary_spec *sp, int wg, int t)
{
    const int lc = t / wg;
    const int c = lc < sp->na ? sp->a0 + lc : sp->b0 + (lc - sp->na);
    const int r = cl->perm[(size_t)c * wg + t % wg];
    if (r < 0) return -1;
    return lc < sp->na ? (int64_t)r - sp->rowA0 : (int64_t)sp->nrowA + (r - sp->rowB0);
}

/* Problems resumed from a given point (spec->g_init, after a failed certification): their alphas
 * and gradients replace k_init's zeros and -1, on the device and in the host's alphas; a
 * cert_delta problem's starting alphas are kept in a0b (total doubles, allocated here, freed with
 * the batch). Gh is scratch of total doubles. Blocking writes: a rare path. */
static gs_status warm_start(gs_solver *s, const gs_clustered *cl, prob *pr, int np, double *Gh, const double *ahb,
                            size_t total, double **a0b)
{
    gs_status st = GS_OK;
    int any = 0, delta = 0;
    for (int i = 0; i < np; i++) {
        any |= pr[i].spec->g_init != NULL;
        delta |= pr[i].spec->g_init != NULL && pr[i].spec->cert_delta;
    }
    if (!any) return GS_OK;
    if (delta && !(*a0b = calloc(total, sizeof **a0b)))
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for %zu starting alphas", total);
    for (int i = 0; i < np; i++) {
        prob *p = &pr[i];
        const gs_binary_spec *sp = p->spec;
        double *G = Gh + p->pos_off;
        if (sp->g_init && sp->cert_delta) p->a0 = *a0b + p->pos_off;
        for (int t = 0; t < p->npos; t++) {
            G[t] = p->y[t] ? -1.0 : 0.0;
            const int64_t k = sp->g_init && p->y[t] ? pos_index(cl, sp, s->wg, t) : -1;
            if (k < 0) continue;
            G[t] = sp->g_init[k];
            p->ah[t] = sp->alpha[k];
            if (p->a0) p->a0[t] = sp->alpha[k];
        }
    }
    GS_CL_CHECK(clEnqueueWriteBuffer(s->queue, s->d.G.mem, CL_TRUE, 0, total * sizeof(double), Gh, 0, NULL, NULL));
    GS_CL_CHECK(clEnqueueWriteBuffer(s->queue, s->d.alpha.mem, CL_TRUE, 0, total * sizeof(double), ahb, 0, NULL, NULL));
cleanup:
    return st;
}

/* k_cert's groups per row at most (each a partial sum per row: enough work-groups for a small
 * problem, CERT_WGS of them, without a large partials buffer for a big one). */
#define CERT_GROUPS 8
#define CERT_WGS 2048

/* The device bytes of cl's clustered layout (gs_dev_upload_clustered). */
static size_t data_bytes(const gs_solver *s, const gs_clustered *cl)
{
    const int ncl = cl->n_clusters;
    const size_t wg = (size_t)s->wg, ncols = (size_t)cl->col_off[ncl], nell = (size_t)cl->ell_nnz;
    return ncols * 4 + ncols * wg * 4 + (size_t)ncl * 20 + 16 + nell * 8 + (size_t)cl->n_pos * 8 +
           (cl->wide ? ((size_t)cl->n_pos + 1) * 8 : 0); /* wide: ell_off per position */
}

/* The certification's host side (certify_batch): each problem's support vectors, and every pass's
 * tables (problem a of a pass at slot base + a), built before the first launch so that no pass
 * waits for the device before it writes its own. */
typedef struct cert {
    int *svpos, *svn;      /* [total], [np]: each problem's SVs' clustered positions, from its pos_off on */
    double *svcoef;        /* [total] their y alpha */
    int *old, *nold;       /* [np q], [np]: the rows each problem's U block holds, how many */
    int maxch;             /* passes: q SVs of each problem a pass */
    size_t slots, vslots;  /* problem slots and virtual clusters of all passes */
    int *cold, *cnew;      /* [slots q] a slot's U rows before and after its pass */
    double *ccoef;         /* [slots q] their coefficients */
    gs_abi_cert *ctab;     /* [slots] */
    int *vcc;              /* [2 vslots] (slot in its pass, local cluster) */
    int *pass_na, *pass_nvc; /* [maxch] each pass's slots and clusters */
    int gmax;              /* k_cert's groups per row at most (the partials' stride) */
    int *pass_g;           /* [maxch] each pass's largest groups per row */
    /* by column (k_cert_dots, when pc): each pass's virtual chunks (slot in its pass, chunk of pc),
     * how many, the pass's most SVs a slot; dstride: the dots' stride a SV (positions) */
    const gs_colchunks *pc;
    int *cvpc, *pass_nvpc, *pass_nmax;
    size_t vpslots;
    cl_long dstride;
    double *gx, *mx;       /* [total] exact gradients' sums and magnitudes, read back */
    char *arena;           /* the rounds' pinned readback memory, free once they are over (see cert_take) */
    size_t arena_left;
    void *own[24];         /* what cert_take allocated instead */
    int nown;
} cert;

/* bytes of host memory for the certification: carved from the pinned readback memory while it
 * lasts (its pages are resident: the first writes to fresh malloc'd pages cost letter's 325 pairs
 * about 1 ms each in the SV lists and the sums' copy, page faults on a virtual machine), else
 * allocated; zeroed if zero. NULL: out of memory. */
static void *cert_take(cert *c, size_t bytes, int zero)
{
    bytes = bytes ? (bytes + 63) / 64 * 64 : 64;
    void *r = NULL;
    if (c->arena && bytes <= c->arena_left) {
        r = c->arena;
        c->arena += bytes;
        c->arena_left -= bytes;
        if (zero) memset(r, 0, bytes);
        return r;
    }
    if (c->nown == (int)(sizeof c->own / sizeof c->own[0])) return NULL;
    r = zero ? calloc(1, bytes) : malloc(bytes);
    if (r) c->own[c->nown++] = r;
    return r;
}

static void cert_free(cert *c)
{
    for (int i = 0; i < c->nown; i++) free(c->own[i]);
}

/* Positions a thread of the certification's host loops takes at least: below it, starting threads
 * costs more than the loop (a9a's 32561 positions take a fraction of a millisecond; letter's 325
 * pairs have 500,000). */
#define CERT_THREAD_MIN 65536

/* One thread's share of the certification's host loops (cert_list_job, cert_out): the positions
 * [p0, p1) of the batch (the problems' positions follow one another). */
typedef struct cert_job {
    const gs_solver *s;
    const gs_clustered *cl;
    const prob *pr;
    cert *c;
    int np;
    size_t p0, p1;
} cert_job;

/* Runs fn over the positions on up to 16 threads, CERT_THREAD_MIN positions each at least. */
static void cert_parallel(const gs_solver *s, const gs_clustered *cl, const prob *pr, int np, size_t total,
                          cert *c, void *(*fn)(void *))
{
    cert_job jobs[16];
    int nt = gs_cpu_threads(16);
    if ((size_t)nt > total / CERT_THREAD_MIN) nt = total / CERT_THREAD_MIN > 1 ? (int)(total / CERT_THREAD_MIN) : 1;
    for (int k = 0; k < nt; k++)
        jobs[k] = (cert_job){.s = s, .cl = cl, .pr = pr, .c = c, .np = np,
                             .p0 = total * (size_t)k / (size_t)nt, .p1 = total * (size_t)(k + 1) / (size_t)nt};
    gs_parallel_run(jobs, sizeof jobs[0], nt, fn);
}

/* The SV lists: each problem whole in the job where its positions start writes its SVs' positions
 * and coefficients from its pos_off on, their count into svn[i]. */
static void *cert_list_job(void *arg)
{
    const cert_job *j = arg;
    const int wg = j->s->wg;
    for (int i = 0; i < j->np; i++) {
        const prob *p = &j->pr[i];
        const gs_binary_spec *sp = p->spec;
        if (!sp->g_exact || (size_t)p->pos_off < j->p0 || (size_t)p->pos_off >= j->p1) continue;
        int *const pos = j->c->svpos + p->pos_off;
        double *const coef = j->c->svcoef + p->pos_off;
        int n = 0;
        for (int t = 0; t < p->npos; t++) {
            /* a cert_delta problem's changed alphas (the difference is exact where the two are
             * within a factor 2 of each other, else within 2^-53 of it: cert_out's bound) */
            const double a = p->a0 ? p->ah[t] - p->a0[t] : p->ah[t];
            if (!p->y[t] || (p->a0 ? a == 0 : !(a > 0))) continue;
            const int lc = t / wg;
            pos[n] = (lc < sp->na ? sp->a0 + lc : sp->b0 + (lc - sp->na)) * wg + t % wg;
            coef[n++] = p->y[t] * a;
        }
        j->c->svn[i] = n;
    }
    return NULL;
}

/* Each problem that asks for exact gradients: its SVs (positions and coefficients) and passes. */
static gs_status cert_lists(const gs_solver *s, const gs_clustered *cl, const prob *pr, int np, size_t total,
                            cert *c)
{
    const int q = s->q;
    c->svcoef = cert_take(c, sizeof(double) * total, 0);
    c->svpos = cert_take(c, sizeof(int) * total, 0);
    c->svn = cert_take(c, sizeof(int) * ((size_t)np + 1), 1);
    c->old = cert_take(c, sizeof(int) * (size_t)np * q, 0);
    c->nold = cert_take(c, sizeof(int) * (size_t)np, 0);
    if (!c->svpos || !c->svn || !c->svcoef || !c->old || !c->nold)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for the certification");
    cert_parallel(s, cl, pr, np, total, c, cert_list_job);
    for (int i = 0; i < np; i++) {
        const gs_binary_spec *sp = pr[i].spec;
        if (!sp->g_exact) continue;
        const int nch = (c->svn[i] + q - 1) / q;
        if (nch > c->maxch) c->maxch = nch;
        c->slots += (size_t)nch;
        c->vslots += (size_t)nch * (size_t)(sp->na + sp->nb);
        c->nold[i] = q;
    }
    const size_t slots = c->slots ? c->slots : 1, passes = (size_t)(c->maxch ? c->maxch : 1);
    c->ccoef = cert_take(c, sizeof(double) * slots * (size_t)q, 0);
    c->cold = cert_take(c, sizeof(int) * slots * (size_t)q, 0);
    c->cnew = cert_take(c, sizeof(int) * slots * (size_t)q, 0);
    c->ctab = cert_take(c, slots * sizeof *c->ctab, 1);
    c->vcc = cert_take(c, sizeof(int) * 2 * (c->vslots ? c->vslots : 1), 0);
    c->pass_na = cert_take(c, sizeof(int) * passes, 0);
    c->pass_nvc = cert_take(c, sizeof(int) * passes, 0);
    c->pass_g = cert_take(c, sizeof(int) * passes, 0);
    if (!c->cold || !c->cnew || !c->ccoef || !c->ctab || !c->vcc || !c->pass_na || !c->pass_nvc || !c->pass_g)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for the certification");
    if (c->pc) { /* a slot's chunks are at most its clusters */
        c->cvpc = cert_take(c, sizeof(int) * 2 * (c->vslots ? c->vslots : 1), 0);
        c->pass_nvpc = cert_take(c, sizeof(int) * passes, 0);
        c->pass_nmax = cert_take(c, sizeof(int) * passes, 0);
        if (!c->cvpc || !c->pass_nvpc || !c->pass_nmax)
            return GS_FAIL(GS_ERR_NOMEM, "out of memory for the certification");
    }
    return GS_OK;
}

/* Every pass's tables, from the rows the U blocks hold (c->old, read from the device) on. */
static void cert_tables(const gs_solver *s, const prob *pr, int np, cert *c)
{
    const int q = s->q;
    size_t base = 0, vbase = 0, vpbase = 0;
    c->gmax = 1;
    for (int ci = 0; ci < c->maxch; ci++) {
        int na = 0, nvc = 0, pg = 1, nvpc = 0, nmax = 0;
        int *const cold_p = c->cold + base * q, *const cnew_p = c->cnew + base * q;
        gs_abi_cert *const ctab_p = c->ctab + base;
        int *const vcc_p = c->vcc + 2 * vbase;
        double *const ccoef_p = c->ccoef + base * q;
        for (int i = 0; i < np; i++) {
            const int nsv = c->svn[i];
            if (!pr[i].spec->g_exact || ci * q >= nsv) continue;
            const int n = nsv - ci * q < q ? nsv - ci * q : q;
            /* enough work-groups for a small problem, CERT_WGS of them, without a large partials
               buffer for a big one; the problem's own, whatever shares the pass */
            const int pnvc = pr[i].spec->na + pr[i].spec->nb;
            const int ngrp = pnvc >= CERT_WGS ? 1 : (CERT_WGS / pnvc < CERT_GROUPS ? CERT_WGS / pnvc : CERT_GROUPS);
            if (ngrp > pg) pg = ngrp;
            ctab_p[na] = (gs_abi_cert){.prob = i, .n = n, .nold = c->nold[i], .ngrp = ngrp, .nsv = nsv};
            memcpy(cold_p + (size_t)na * q, c->old + (size_t)i * q, sizeof(int) * (size_t)q);
            memcpy(cnew_p + (size_t)na * q, c->svpos + pr[i].pos_off + (size_t)ci * q, sizeof(int) * (size_t)n);
            memcpy(ccoef_p + (size_t)na * q, c->svcoef + pr[i].pos_off + (size_t)ci * q, sizeof(double) * (size_t)n);
            for (int cc = 0; cc < pr[i].spec->na + pr[i].spec->nb; cc++, nvc++) {
                vcc_p[2 * nvc] = na;
                vcc_p[2 * nvc + 1] = cc;
            }
            if (c->pc) {
                nvpc += chunk_list(pr[i].spec, c->pc->chunk_clusters, na, 0, pnvc,
                                   c->cvpc + 2 * (vpbase + (size_t)nvpc));
                if (n > nmax) nmax = n;
            }
            /* after the pass the block holds these n rows, its other columns cleared */
            memcpy(c->old + (size_t)i * q, cnew_p + (size_t)na * q, sizeof(int) * (size_t)n);
            c->nold[i] = n;
            na++;
        }
        c->pass_na[ci] = na;
        c->pass_nvc[ci] = nvc;
        c->pass_g[ci] = pg;
        if (pg > c->gmax) c->gmax = pg;
        if (c->pc) {
            c->pass_nvpc[ci] = nvpc;
            c->pass_nmax[ci] = nmax;
        }
        base += (size_t)na;
        vbase += (size_t)nvc;
        vpbase += (size_t)nvpc;
    }
    c->slots = base;
    c->vslots = vbase;
    c->vpslots = vpbase;
}

/* The certification kernels' arguments but for the passes' offsets. */
static gs_status cert_args(gs_solver *s, const gs_clustered *cl, int gstride, const cert *c)
{
    const int use_d = c->pc != NULL;
    const cl_long dstride = c->dstride;
    gs_status st = GS_OK;
    const dev *const dp = &s->d;
    const int q = s->q;
    const cl_long uq = (cl_long)(u_cols(s, cl) * (size_t)q);
    const int zero = 0, ncols = cl->n_ucols; /* k_cert's rho: cert_out's factor's ncols */
    const gs_dev_karg a_gather[] = {GS_KARG_BUF(dp->cold), GS_KARG_BUF(dp->cnew), GS_KARG_BUF(dp->certtab),
                                    GS_KARG_BUF(dp->data.col_off), GS_KARG_BUF(dp->data.cols),
                                    GS_KARG_BUF(dp->data.vals), GS_KARG_BUF(dp->data.ell_w),
                                    GS_KARG_BUF(dp->data.ell_off), GS_KARG_BUF(dp->data.ell_idx),
                                    GS_KARG_BUF(dp->data.ell_val), GS_KARG_BUF(dp->U), GS_KARG(q), GS_KARG(uq),
                                    GS_KARG(zero)};
    const gs_dev_karg a_cert[] = {GS_KARG_BUF(dp->data.col_off), GS_KARG_BUF(dp->data.cols),
                                  GS_KARG_BUF(dp->data.vals), GS_KARG_BUF(dp->data.norm2), GS_KARG_BUF(dp->U),
                                  GS_KARG_BUF(dp->cnew), GS_KARG_BUF(dp->ccoef), GS_KARG(q), GS_KARG(s->gamma),
                                  GS_KARG(s->coef0), GS_KARG(s->degree), GS_KARG_BUF(dp->data.ell_w),
                                  GS_KARG_BUF(dp->data.ell_off), GS_KARG_BUF(dp->data.ell_idx),
                                  GS_KARG_BUF(dp->data.ell_val), GS_KARG_BUF(dp->ptab), GS_KARG_BUF(dp->cpart),
                                  GS_KARG_BUF(dp->certtab), GS_KARG_BUF(dp->cvcc), GS_KARG(uq),
                                  GS_KARG(cl->exact_float_dots), GS_KARG(zero), GS_KARG(zero), GS_KARG(gstride),
                                  GS_KARG_BUF(dp->cdots), GS_KARG(use_d), GS_KARG(dstride), GS_KARG(ncols)};
    const gs_dev_karg a_dots[] = {GS_KARG_BUF(dp->pc_cols), GS_KARG_BUF(dp->pc_ccol), GS_KARG_BUF(dp->pc_coff),
                                  GS_KARG_BUF(dp->pc_row), GS_KARG_BUF(dp->pc_val), GS_KARG_BUF(dp->data.col_off),
                                  GS_KARG_BUF(dp->data.cols), GS_KARG_BUF(dp->data.vals),
                                  GS_KARG_BUF(dp->data.ell_w), GS_KARG_BUF(dp->data.ell_off),
                                  GS_KARG_BUF(dp->data.ell_idx), GS_KARG_BUF(dp->data.ell_val), GS_KARG_BUF(dp->cnew),
                                  GS_KARG(q), GS_KARG_BUF(dp->ptab), GS_KARG_BUF(dp->certtab), GS_KARG_BUF(dp->cvpc),
                                  GS_KARG(zero), GS_KARG(zero), GS_KARG_BUF(dp->cdots), GS_KARG(dstride)};
    const gs_dev_karg a_sum[] = {GS_KARG_BUF(dp->cpart), GS_KARG_BUF(dp->certtab), GS_KARG_BUF(dp->cvcc),
                                 GS_KARG_BUF(dp->ptab), GS_KARG_BUF(dp->cgx), GS_KARG_BUF(dp->cmx), GS_KARG(gstride),
                                 GS_KARG(zero), GS_KARG(zero)};
    if ((st = GS_DEV_ARGS(&s->ks, K_CERT_GATHER, a_gather)) || (st = GS_DEV_ARGS(&s->ks, K_CERT, a_cert)) ||
        (st = GS_DEV_ARGS(&s->ks, K_CERT_SUM, a_sum)) || (use_d && (st = GS_DEV_ARGS(&s->ks, K_CERT_DOTS, a_dots))))
        return st;
    return GS_OK;
}

/* Every pass's launches: its offsets, then k_cert_gather, k_cert, k_cert_sum over the pass's
 * pass_nvc[pass] virtual clusters (c->pass_nvc, or a row split's device's share), by column first
 * k_cert_dots over its pass_nvpc[pass] virtual chunks (alike). */
static gs_status cert_passes(gs_solver *s, const cert *c, const int *pass_nvc, const int *pass_nvpc, gs_dev_prof *pf,
                             double *ph, double *per_kernel)
{
    gs_status st = GS_OK;
    const int q = s->q, wg = s->wg;
    int sb = 0, vb = 0, vpb = 0;
    for (int ci = 0; ci < c->maxch; ci++) {
        const int na = c->pass_na[ci], nvc = pass_nvc[ci];
        const int ngrp = c->pass_g[ci];
        SETARG(K_CERT_GATHER, 13, sb);
        SETARG(K_CERT, 21, sb); SETARG(K_CERT, 22, vb);
        SETARG(K_CERT_SUM, 7, sb); SETARG(K_CERT_SUM, 8, vb);
        if (c->pc) { /* the pass's dot products by column first (k_cert reads them) */
            const int nvpc = pass_nvpc[ci];
            SETARG(K_CERT_DOTS, 17, sb); SETARG(K_CERT_DOTS, 18, vpb);
            if (nvpc > 0 &&
                (st = launch(s, pf, K_CERT_DOTS, (size_t)nvpc * 256, (size_t)c->pass_nmax[ci], 256)))
                goto cleanup;
            vpb += nvpc;
        }
        if ((na > 0 && (st = launch(s, pf, K_CERT_GATHER, (size_t)q * wg, (size_t)na, (size_t)wg))) ||
            (nvc > 0 && ((st = launch(s, pf, K_CERT, (size_t)nvc * wg, (size_t)ngrp, (size_t)wg)) ||
                         (st = launch(s, pf, K_CERT_SUM, (size_t)nvc * wg, 1, (size_t)wg)))))
            goto cleanup;
        if (s->dev.profile && pf) {
            GS_CL_CHECK(clFinish(s->queue));
            gs_dev_prof_collect(pf, k_phase, ph, per_kernel, 0);
        }
        sb += na;
        vb += nvc;
    }
cleanup:
    return st;
}

/* The exact gradients into each problem's g_exact / g_err in alpha order. */
static void *cert_out(void *arg)
{
    const cert_job *j = arg;
    const gs_clustered *cl = j->cl;
    for (int i = 0; i < j->np; i++) {
        const prob *p = &j->pr[i];
        const gs_binary_spec *sp = p->spec;
        const size_t a = p->pos_off, b = p->pos_off + (size_t)p->npos;
        if (!sp->g_exact || b <= j->p0 || a >= j->p1) continue;
        /* (+1 for a cert_delta problem's differences of alphas, cert_list_job) */
        const double f =
            ((double)cl->n_ucols + (double)j->c->svn[i] + 17) * ldexp(1.0, -53) * 1.01;
        const int t0 = a < j->p0 ? (int)(j->p0 - a) : 0, t1 = b > j->p1 ? (int)(j->p1 - a) : p->npos;
        const double *const gx = j->c->gx + p->pos_off, *const mx = j->c->mx + p->pos_off;
        for (int t = t0; t < t1; t++) {
            const int64_t k = p->y[t] ? pos_index(cl, sp, j->s->wg, t) : -1;
            if (k < 0) continue;
            if (p->a0) { /* cert_delta: onto the starting point's exact gradient and its bound,
                            plus the rounding of this addition */
                sp->g_exact[k] += p->y[t] * gx[t];
                sp->g_err[k] += f * mx[t] + ldexp(fabs(sp->g_exact[k]), -53);
                continue;
            }
            sp->g_exact[k] = p->y[t] * gx[t] + (sp->p_lin ? sp->p_lin[k] : -1.0);
            sp->g_err[k] = f * mx[t] + 1e-300;
        }
    }
    return NULL;
}

/* One device's certification: the passes' tables uploaded (vcc / pass_nvc: the virtual clusters
 * it sums, vslots of them; by column cvpc / pass_nvpc: the virtual chunks whose dot products it
 * computes, vpslots of them), the passes queued, and the sums of positions [t0, t1) read into c->gx
 * and c->mx behind them (the caller waits for the queue). */
static gs_status cert_device(gs_solver *s, const gs_clustered *cl, const cert *c, const int *vcc, const int *pass_nvc,
                             size_t vslots, const int *cvpc, const int *pass_nvpc, size_t vpslots, size_t total,
                             size_t t0, size_t t1, gs_dev_prof *pf, double *ph, double *per_kernel)
{
    gs_status st = GS_OK;
    dev *const dp = &s->d;
    const gs_dev *d = &s->dev;
    const size_t q = (size_t)s->q;
    if ((st = gs_dev_buf_ensure(d, &dp->cold, c->slots * q * sizeof(int), c->cold, "certification positions")) ||
        (st = gs_dev_buf_ensure(d, &dp->cnew, c->slots * q * sizeof(int), c->cnew, "certification positions")) ||
        (st = gs_dev_buf_ensure(d, &dp->ccoef, c->slots * q * sizeof(double), c->ccoef, "certification coefficients")) ||
        (st = gs_dev_buf_ensure(d, &dp->certtab, c->slots * sizeof *c->ctab, c->ctab, "certification table")) ||
        (st = gs_dev_buf_ensure(d, &dp->cvcc, 2 * (vslots ? vslots : 1) * sizeof(int), vcc, "certification clusters")) ||
        (st = gs_dev_buf_ensure(d, &dp->cpart, 2 * (size_t)c->gmax * total * sizeof(double), NULL,
                                "certification sums")) ||
        (c->pc && ((st = gs_dev_buf_ensure(d, &dp->cvpc, 2 * (vpslots ? vpslots : 1) * sizeof(int), cvpc,
                                           "certification chunks")) ||
                   (st = gs_dev_buf_ensure(d, &dp->cdots, q * total * sizeof(double), NULL,
                                           "certification dot products")))) ||
        (st = cert_args(s, cl, c->gmax, c)) ||
        (st = cert_passes(s, c, pass_nvc, pass_nvpc, pf, ph, per_kernel)))
        goto cleanup;
    GS_CL_CHECK(clEnqueueReadBuffer(s->queue, dp->cgx.mem, CL_FALSE, t0 * sizeof(double), (t1 - t0) * sizeof(double),
                                    c->gx + t0, 0, NULL, NULL));
    GS_CL_CHECK(clEnqueueReadBuffer(s->queue, dp->cmx.mem, CL_FALSE, t0 * sizeof(double), (t1 - t0) * sizeof(double),
                                    c->mx + t0, 0, NULL, NULL));
cleanup:
    return st;
}

/* Waits for the batch's queues: a row split's every device's, else s's. @return the first error */
static cl_int finish_queues(gs_solver *s, const rsplit *rs)
{
    cl_int e = CL_SUCCESS;
    for (int k = 0; k < (rs ? rs->nd : 1); k++) {
        const cl_int ek = clFinish((rs ? rs->s[k] : s)->queue);
        if (e == CL_SUCCESS) e = ek;
    }
    return e;
}

/* Row split (one problem): each device sums the rows of its own clusters (every pass's virtual
 * clusters filtered to its slice) and sends their sums; a row's groups and their order are the
 * problem's (ngrp), so the sums are one device's. By column, each device computes the dot products
 * of the chunks holding its clusters (chunk_list over its slice; a chunk across two slices' edge is
 * both devices', each reading only its own positions' sums). */
static gs_status rs_certify(const rsplit *rs, const gs_clustered *cl, const gs_binary_spec *sp, const cert *c,
                            size_t total, gs_dev_prof *pf, double *ph, double *per_kernel)
{
    gs_status st = GS_OK;
    const int wg = rs->s[0]->wg, nd = rs->nd, passes = c->maxch ? c->maxch : 1;
    int *vcc = malloc(sizeof(int) * 2 * (c->vslots ? c->vslots : 1) * (size_t)nd);
    int *pnvc = malloc(sizeof(int) * (size_t)passes * (size_t)nd);
    int *vpc = c->pc ? malloc(sizeof(int) * 2 * (c->vpslots ? c->vpslots : 1) * (size_t)nd) : NULL;
    int *pnvpc = c->pc ? malloc(sizeof(int) * (size_t)passes * (size_t)nd) : NULL;
    if (!vcc || !pnvc || (c->pc && (!vpc || !pnvpc))) {
        st = GS_FAIL(GS_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    for (int d = nd - 1; d >= 0; d--) { /* device 0 last: profiled, it waits for each pass */
        const int lo = rs->ch[d] * ITEMS, hi = rs->ch[d + 1] * ITEMS;
        int *const v = vcc + 2 * c->vslots * (size_t)d, *const pn = pnvc + (size_t)passes * d;
        size_t vb = 0, o = 0;
        for (int ci = 0; ci < c->maxch; ci++) {
            pn[ci] = 0;
            for (size_t k = vb; k < vb + (size_t)c->pass_nvc[ci]; k++) {
                const int cc = c->vcc[2 * k + 1];
                if (cc < lo || cc >= hi) continue;
                v[2 * o] = c->vcc[2 * k];
                v[2 * o + 1] = cc;
                o++;
                pn[ci]++;
            }
            vb += (size_t)c->pass_nvc[ci];
        }
        int *const vp = vpc ? vpc + 2 * c->vpslots * (size_t)d : NULL;
        int *const pnp = pnvpc ? pnvpc + (size_t)passes * d : NULL;
        size_t po = 0;
        const int ncp = sp->na + sp->nb;
        for (int ci = 0, pb = 0; c->pc && ci < c->maxch; pb += c->pass_nvpc[ci], ci++) {
            /* the lone problem's slot in the pass (its tag), the chunks of this device's clusters */
            pnp[ci] = c->pass_nvpc[ci] > 0 ? chunk_list(sp, c->pc->chunk_clusters, c->cvpc[2 * pb], lo,
                                                        hi < ncp ? hi : ncp, vp + 2 * po)
                                           : 0;
            po += (size_t)pnp[ci];
        }
        size_t t1 = (size_t)hi * wg;
        if (t1 > total) t1 = total;
        if ((st = cert_device(rs->s[d], cl, c, v, pn, o, vp, pnp, po, total, (size_t)lo * wg, t1, d == 0 ? pf : NULL,
                              ph, per_kernel)))
            goto cleanup;
        if (rs->serial) GS_CL_CHECK(clFinish(rs->s[d]->queue)); /* (see rsplit.serial) */
        else GS_CL_CHECK(clFlush(rs->s[d]->queue));
    }
cleanup:
    /* the tables' writes read vcc, pnvc and vpc, freed here (on an error path too) */
    {
        const cl_int e = finish_queues(rs->s[0], rs);
        if (e != CL_SUCCESS && st == GS_OK) st = GS_FAIL(GS_ERR_OCL, "clFinish failed: %s", gs_cl_error_name(e));
    }
    free(vcc);
    free(pnvc);
    free(vpc);
    free(pnvpc);
    return st;
}

/* The exact gradients (kernels/solver.cl k_cert) of the batch's problems that ask for them, at
 * their final alphas, into spec->g_exact / spec->g_err (alpha order): each problem's support
 * vectors q at a time in its U block (free once the rounds are over), all problems in the same
 * launches. The bound: rounding of the dot products (at most ucols terms each), of the kernel and
 * of the sum over nsv terms, each a few units of 2^-53 times the magnitudes k_cert adds up.
 * gx and mx (total doubles each) receive the sums: the batch's gradients and alphas, no longer
 * needed once the SV lists are built, and already in memory (fresh pages cost letter's 325
 * problems 5 ms of page faults there). */
static gs_status certify_batch(gs_solver *s, const rsplit *rs, const gs_clustered *cl, const gs_colchunks *pc,
                               const prob *pr, int np, size_t total, double *gx, double *mx, gs_dev_prof *pf,
                               double *ph, double *per_kernel)
{
    gs_status st = GS_OK;
    dev *const dp = &s->d;
    const int q = s->q;
    cert c;
    memset(&c, 0, sizeof c);
    /* the dot products by column (the batch's kernel rows are) into a buffer of q SVs x the batch's
     * positions, where that takes at most 2 GiB and an eighth of what the clustered data and its
     * copy by column leave of the device's memory (the batch took at most half, the copy a quarter) */
    const size_t dbytes = (size_t)q * total * sizeof(double), gm = (size_t)s->ocl->global_mem;
    const size_t held = pc ? data_bytes(s, cl) + (size_t)gs_colchunks_bytes(pc) : 0;
    if (pc && held < gm && dbytes <= ((size_t)2 << 30) && dbytes <= (gm - held) / 8 &&
        (!s->ocl->max_alloc || dbytes <= (size_t)s->ocl->max_alloc)) {
        c.pc = pc;
        c.dstride = (cl_long)total;
    }
    /* --verbose: start, lists built, buffers ready, tables built, uploaded, passes enqueued */
    double tm[6] = {gs_now(), 0, 0, 0, 0, 0};
    /* the sums' buffers cleared on the device while the host builds the SV lists */
    for (int k = 0; k < (rs ? rs->nd : 1); k++) { /* (a row split: every device's) */
        gs_solver *sk = rs ? rs->s[k] : s;
        const gs_dev *dk = &sk->dev;
        if ((st = gs_dev_buf_ensure(dk, &sk->d.cgx, total * sizeof(double), NULL, "exact gradients")) ||
            (st = gs_dev_buf_ensure(dk, &sk->d.cmx, total * sizeof(double), NULL, "gradient bounds")) ||
            (st = gs_dev_buf_fill(dk, &sk->d.cgx, 0, total * sizeof(double))) ||
            (st = gs_dev_buf_fill(dk, &sk->d.cmx, 0, total * sizeof(double))))
            goto cleanup;
        if (rs && rs->serial) GS_CL_CHECK(clFinish(sk->queue)); /* (see rsplit.serial) */
        else GS_CL_CHECK(clFlush(sk->queue));
    }
    /* The sums are read into the rounds' pinned readback memory where it holds them (free now that
     * the rounds are over; letter's 325 pairs' 8 MB came back in 1.2 ms through the driver's
     * staging copy), else into gx / mx (the alphas, p->ah, are not read after cert_lists); the
     * host's scratch follows them there while it lasts (cert_take). */
    c.arena = s->pin[0].host;
    c.arena_left = s->pin[0].cap;
    if (!(c.gx = cert_take(&c, 2 * total * sizeof(double), 0)) || c.nown) {
        cert_free(&c);
        c.nown = 0;
        c.arena = NULL;
        c.gx = gx;
        c.mx = mx;
    } else {
        c.mx = c.gx + total;
    }
    if ((st = cert_lists(s, cl, pr, np, total, &c))) goto cleanup;
    tm[1] = gs_now();
    /* each U block holds its problem's last working set: cleared as the SVs come in */
    GS_CL_CHECK(clEnqueueReadBuffer(s->queue, dp->u_pos.mem, CL_TRUE, 0, (size_t)np * q * sizeof(int), c.old, 0,
                                    NULL, NULL));
    tm[2] = gs_now();
    /* every pass's tables first (host), then one upload, then the passes' launches */
    cert_tables(s, pr, np, &c);
    tm[3] = gs_now();
    tm[4] = gs_now();
    if (!rs) {
        if ((st = cert_device(s, cl, &c, c.vcc, c.pass_nvc, c.vslots, c.cvpc, c.pass_nvpc, c.vpslots, total, 0, total,
                              pf, ph, per_kernel)))
            goto cleanup;
    } else if ((st = rs_certify(rs, cl, pr[0].spec, &c, total, pf, ph, per_kernel))) {
        goto cleanup;
    }
    tm[5] = gs_now();
    GS_CL_CHECK(finish_queues(s, rs));
    const double t_read = gs_now();
    cert_parallel(s, cl, pr, np, total, &c, cert_out);
    gs_log_verbose(s->log, "gpusvm: certification of %d problem(s): SV lists %.4f s, buffers %.4f s, tables %.4f s, "
                   "uploads %.4f s, %d pass(es)%s and reads enqueued %.4f s, done %.4f s (%s), to the problems %.4f s\n",
                   np, tm[1] - tm[0], tm[2] - tm[1], tm[3] - tm[2], tm[4] - tm[3], c.maxch,
                   c.pc ? " (dot products by column)" : "", tm[5] - tm[4],
                   t_read - tm[5], c.gx == gx ? "read into plain memory" : "read into pinned memory",
                   gs_now() - t_read);
cleanup:
    /* the writes read the tables freed below (done already when all went well) */
    finish_queues(s, rs);
    cert_free(&c);
    return st;
}

/* A batch of problems being solved (solve_batch): its host arrays, pinned memory, crew and round
 * state, and what --verbose reports of it. Zero-initialised by solve_batch; batch_free releases it
 * whatever was reached. */
typedef struct batch {
    const gs_clustered *cl;
    int np, split, nbank;
    int rlines;            /* the row cache's lines of kernel rows (row_cache_lines; 0: none, the
                            * nbank banks of q rows) */
    int one_group;         /* the selection's path (see ONE_GROUP_MAX) */
    size_t rtd;            /* doubles the round table takes at the head of the update buffer */
    int64_t total, ktotal; /* positions of all problems; floats of their kernel rows */
    int64_t nvc_all, nvch_all; /* virtual clusters and chunks of all problems */
    prob *pr;              /* [np] */
    gs_abi_problem *ptab;  /* [np] problem table */
    cl_long *koff;         /* [np] where each problem's kernel rows start */
    double *ctab;          /* [2 np] Cp, Cn */
    int *act;              /* [np] the active problems */
    gs_abi_round *rt;      /* [np] round table (of the active problems) */
    int8_t *yb;            /* [total] labels */
    double *ahb, *Gh;      /* [total] alphas; gradients (read at the end) */
    double *a0b;           /* [total] cert_delta problems' starting alphas (warm_start), or NULL */
    int *wsps, *rowmap;    /* [np * q] prob.wsp, prob.row */
    double *upds, *subs;   /* [np * 4q] prob.upd; [np * 3q] prob.asub, gsub, csub */
    int8_t *ysubs;         /* [np * q] prob.ysub */
    int *vc, *vch;         /* [2 nvc_all], [2 nvch_all] virtual cluster and chunk tables */
    const gs_colchunks *pc; /* the layout by column (cl's) when k_rows_col computes the kernel rows
                             * (batch_colrows), else NULL */
    int finite;            /* every value of cl finite (then every norm is) */
    int rbfull;            /* the working sets' matrices read back whole (rbfull_wanted), else their
                            * upper triangles, which the host unpacks */
    int *vpc;              /* [2 nvc_all] its virtual chunks: (round entry, chunk of pc) */
    double *rb, *updp;     /* pinned: the readbacks; the round tables and alpha changes */
    crew cw;
    int nth, crew_ready;
    crew_arg *cargs;
    pthread_t *th;
    gs_courier *cour;      /* split rounds' enqueueing thread (see use_courier) */
    rsplit rs;             /* a lone problem split by rows over devices (rs.nd > 1) */
    round_jobs rj;
    gs_dev_prof pf;
    /* the rounds */
    int nact, nvc, nvch, nvpc, tables_dirty, head;
    long round;
    /* times (s) and bytes for --verbose and the stats */
    double ph[PH_N], per_kernel[K_COUNT_ALL];
    double t_wait, t_enq, t_abs, t_loop0;
    double t_pinned;       /* --verbose: batch_upload's pinned memory (allocated and mapped when it grows) */
    int data_kept;         /* --verbose: the layout (and its copy by column) was on the device already */
    double t_overlap;      /* split, profiled: device time during the second parts (estimate) */
    double t_seldrain, t_heads; /* the loop's waits for the selection's enqueueing (its courier) and
                                 * its enqueueing of the heads (with their read) */
    double t_tables, t_gread, t_results; /* --verbose: round tables and changes packed, the final
                                 * gradients' read, the problems' results */
    double bytes_rows, bytes_update, clustered_bytes_per_pos;
    long n_members, n_rows; /* --verbose: members new to the sets, kernel rows computed */
} batch;

/* Whether a batch of np problems reads its working sets' matrices back whole rather than their
 * upper triangles: when it has fewer problems than the host has threads for their subproblems, so
 * each unpacking would be a thread's alone (a9a, one problem with q = 768: 2.4 MB a round, twice
 * with the split rounds, on one thread), and the whole matrices fit in RBFULL_MAX bytes of pinned
 * memory. Many problems (one-vs-one, folds, grid cells) keep the triangles: half the pinned memory
 * and bytes, their unpacking spread over the threads. GPUSVM_RB_FULL=0|1 forces either. */
#define RBFULL_MAX ((size_t)64 << 20)
static int rbfull_wanted(const gs_solver *s, int np)
{
    if (s->tuning.rb_full != GS_TUNE_AUTO) return s->tuning.rb_full;
    return np < host_threads(s) && (size_t)np * (size_t)s->q * (size_t)s->q * sizeof(float) <= RBFULL_MAX;
}

/* batch_layout's part for problem i: its labels by position (0 for padding and left-out rows),
 * its host arrays and limits. */
typedef struct layout_ctx {
    const gs_solver *s;
    batch *b;
    const int8_t *ysign;
} layout_ctx;

static gs_status layout_one(void *ctx, int i)
{
    const layout_ctx *lc0 = ctx;
    const gs_solver *s = lc0->s;
    batch *b = lc0->b;
    const int8_t *ysign = lc0->ysign;
    const gs_clustered *cl = b->cl;
    const int q = s->q, wg = s->wg;
    prob *p = &b->pr[i];
    const gs_binary_spec *sp = p->spec;
    int8_t *y = b->yb + p->pos_off;
    int nrows = 0;
    for (int t = 0; t < p->npos; t++) {
        const int lc = t / wg;
        const int c = lc < sp->na ? sp->a0 + lc : sp->b0 + (lc - sp->na);
        const int r = cl->perm[(size_t)c * wg + t % wg];
        if (r < 0) continue;
        /* a left-out variable is padding to this problem (y = 0) */
        if (sp->skip && sp->skip[lc < sp->na ? (int64_t)r - sp->rowA0 : (int64_t)sp->nrowA + (r - sp->rowB0)])
            continue;
        y[t] = (int8_t)((lc < sp->na ? 1 : -1) * ysign[r]);
        nrows++;
    }
    p->y = y;
    /* the final gradients' read fills Gh: its pages made here, on the threads, not by the driver's
     * copy on one (letter -v 5: 20 MB read in 0.0175 s on the H100's host) */
    gs_pages_touch(b->Gh + p->pos_off, sizeof *b->Gh * (size_t)p->npos);
    /* and the pages the rounds' subproblems first touch, here too, the alphas zeroed rather than
     * calloc'd (a page read first may be the shared zero page, replaced under every thread at the
     * first write). On an H200's host, letter -v 5's gathers and changes in the rounds took 1.79 s
     * of the 16 crew threads' time, 0.33 s on 8, while the SMO took the same on both */
    p->ah = b->ahb + p->pos_off;
    memset(p->ah, 0, sizeof *p->ah * (size_t)p->npos);
    p->wsp = b->wsps + (size_t)i * q;
    p->upd = b->upds + (size_t)i * 4 * q;
    gs_pages_touch(p->upd, sizeof *p->upd * 4 * (size_t)q);
    p->row = b->rowmap + (size_t)i * q;
    p->asub = b->subs + (size_t)i * 3 * q;
    gs_pages_touch(p->asub, sizeof *p->asub * 3 * (size_t)q);
    p->gsub = p->asub + q;
    p->csub = p->gsub + q;
    p->ysub = b->ysubs + (size_t)i * q;
    gs_pages_touch(p->ysub, (size_t)q);
    /* LIBSVM's max_iter, less what earlier solves of the problem took */
    const long max_iter = nrows > 100000 ? 100L * nrows : 10000000L;
    p->max_inner = sp->steps_before < max_iter ? max_iter - sp->steps_before : 0;
    p->nrows = nrows;
    p->eps = sp->eps > 0 ? sp->eps : s->eps;
    p->stop = sp->stop_gap > p->eps ? sp->stop_gap : p->eps;
    for (int k = 0; k < q; k++) { p->wsp[k] = -1; p->row[k] = k; }
    return GS_OK;
}

/* Positions from which batch_layout's and batch_results' per-problem loops run on threads. */
#define PAR_POSITIONS 65536

static int par_threads(const batch *b)
{
    return b->np > 1 && b->total >= PAR_POSITIONS ? gs_cpu_threads(16) : 1; /* at most np run */
}

/* The problem table, the per-position labels and each problem's host state. */
static gs_status batch_layout(const gs_solver *s, batch *b, const int8_t *ysign, gs_binary_spec *specs)
{
    const gs_clustered *cl = b->cl;
    const int np = b->np, q = s->q, wg = s->wg;
    b->rtd = ((size_t)np * sizeof *b->rt + sizeof(double) - 1) / sizeof(double);
    b->pr = calloc((size_t)np, sizeof *b->pr);
    b->ptab = calloc((size_t)np, sizeof *b->ptab);
    b->koff = calloc((size_t)np, sizeof *b->koff);
    b->ctab = calloc(2 * (size_t)np, sizeof *b->ctab);
    b->act = malloc(sizeof *b->act * (size_t)np);
    b->rt = calloc((size_t)np, sizeof *b->rt);
    if (!b->pr || !b->ptab || !b->koff || !b->ctab || !b->act || !b->rt) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    int64_t total = 0, ktotal = 0, nvc_all = 0, nvch_all = 0;
    for (int i = 0; i < np; i++) {
        gs_binary_spec *sp = &specs[i];
        memset(&sp->res, 0, sizeof sp->res);
        prob *p = &b->pr[i];
        p->spec = sp;
        p->nu = sp->nu_rule != 0;
        p->sel = 1;
        p->gap_sign[0] = p->gap_sign[1] = INFINITY;
        p->prev_nupd = 1;
        p->npos = (sp->na + sp->nb) * wg;
        p->pos_off = (int)total;
        b->ptab[i] = (gs_abi_problem){.a0 = sp->a0, .na = sp->na, .b0 = sp->b0, .nb = sp->nb, .npos = p->npos,
                                      .poff = p->pos_off};
        b->koff[i] = ktotal;
        b->ctab[2 * i] = sp->Cp;
        b->ctab[2 * i + 1] = sp->Cn;
        total += p->npos;
        ktotal += (int64_t)(b->rlines > 0 ? b->rlines : b->nbank * q) * p->npos;
        nvc_all += sp->na + sp->nb;
        nvch_all += (p->npos + wg * ITEMS - 1) / (wg * ITEMS);
    }
    if (total > INT32_MAX - 1) return GS_FAIL(GS_ERR_ARG, "batch of %lld positions is too large", (long long)total);
    b->total = total;
    b->rbfull = rbfull_wanted(s, np);
    b->ktotal = ktotal;
    b->nvc_all = nvc_all;
    b->nvch_all = nvch_all;
    b->yb = calloc((size_t)total, 1);
    b->ahb = malloc(sizeof *b->ahb * (size_t)total); /* zeroed by layout_one */
    b->Gh = malloc(sizeof *b->Gh * (size_t)total);
    b->wsps = malloc(sizeof *b->wsps * (size_t)np * q);
    b->rowmap = malloc(sizeof *b->rowmap * (size_t)np * q);
    b->upds = malloc(sizeof *b->upds * (size_t)np * 4 * q);
    b->subs = malloc(sizeof *b->subs * (size_t)np * 3 * q);
    b->ysubs = malloc((size_t)np * q);
    b->vc = malloc(sizeof *b->vc * 2 * (size_t)nvc_all);
    b->vch = malloc(sizeof *b->vch * 2 * (size_t)nvch_all);
    if (!b->yb || !b->ahb || !b->Gh || !b->wsps || !b->rowmap || !b->upds || !b->subs || !b->ysubs || !b->vc ||
        !b->vch)
        return GS_FAIL(GS_ERR_NOMEM, "out of memory for the solver's host arrays (%d problems)", np);
    {
        layout_ctx lx = {.s = s, .b = b, .ysign = ysign};
        const gs_status st = gs_parallel_items(np, par_threads(b), layout_one, &lx);
        if (st != GS_OK) return st;
    }
    b->finite = 1; /* a non-finite value makes its row's norm so */
    for (int32_t t = 0; t < cl->n_pos && b->finite; t++) b->finite = isfinite(cl->norm2[t]) != 0;
    b->one_group = 1;
    for (int i = 0; i < np; i++)
        if (b->pr[i].npos > ONE_GROUP_MAX) b->one_group = 0;
    if (s->tuning.select == GS_SELECT_ONE) b->one_group = 1;
    if (s->tuning.select == GS_SELECT_MULTI) b->one_group = 0;
    if (!b->one_group && !s->multi_sel)
        return GS_FAIL(GS_ERR_INTERNAL, "a problem over %d positions given a solver built for at most %d",
                       ONE_GROUP_MAX, ONE_GROUP_MAX);
    return GS_OK;
}

/* The copy by column's device buffers, in alt_pc's order. */
static gs_dev_buf *pc_buf(dev *dp, int i)
{
    gs_dev_buf *const b[5] = {&dp->pc_cols, &dp->pc_ccol, &dp->pc_coff, &dp->pc_row, &dp->pc_val};
    return b[i];
}

/* Device bytes of a layout slot's buffers (data and its copy by column). */
static size_t slot_bytes(const gs_dev_clustered *d, gs_dev_buf *const *pc)
{
    size_t n = 0;
    const gs_dev_buf *b = &d->cols;
    for (size_t i = 0; i < GS_DEV_CLUSTERED_BUFS; i++) n += b[i].cap;
    for (int i = 0; i < 5; i++) n += pc[i]->cap;
    return n;
}

/* Exchanges the current layout's buffers and keys with the kept one's. */
static void swap_layouts(gs_solver *s)
{
    dev *const dp = &s->d;
    const gs_dev_clustered t = dp->data;
    dp->data = dp->alt;
    dp->alt = t;
    for (int i = 0; i < 5; i++) {
        const gs_dev_buf b = *pc_buf(dp, i);
        *pc_buf(dp, i) = dp->alt_pc[i];
        dp->alt_pc[i] = b;
    }
    const gs_clustered *c = s->up_cl;
    const uint64_t st = s->up_stamp;
    const gs_colchunks *pc = s->up_pc;
    s->up_cl = s->alt_cl, s->up_stamp = s->alt_stamp, s->up_pc = s->alt_pc;
    s->alt_cl = c, s->alt_stamp = st, s->alt_pc = pc;
}

/* Makes cl the current layout slot's: found there or in the kept slot (swapped in), else uploaded,
 * the current one kept beside it while both fit in an eighth of the device's memory (else the kept
 * slot is released first). Sets *same when cl was on the device already. */
static gs_status layout_to_device(gs_solver *s, const gs_clustered *cl, int *same)
{
    dev *const dp = &s->d;
    gs_dev_buf *alt_pc[5], *cur_pc[5];
    for (int i = 0; i < 5; i++) alt_pc[i] = &dp->alt_pc[i], cur_pc[i] = pc_buf(dp, i);
    *same = 0;
    if (cl->stamp == 0 || s->tuning.keep_data == 0) { /* no identity (or GPUSVM_KEEP_DATA=0): never kept */
        s->up_cl = NULL;
        s->up_pc = NULL;
    } else if (s->up_cl == cl && s->up_stamp == cl->stamp) {
        *same = 1;
        return GS_OK;
    } else if (s->alt_cl == cl && s->alt_stamp == cl->stamp) {
        swap_layouts(s);
        *same = 1;
        return GS_OK;
    }
    const size_t cap = (size_t)s->ocl->global_mem / 8;
    const size_t want = data_bytes(s, cl) + (cl->bycol ? (size_t)gs_colchunks_bytes(cl->bycol) : 0);
    if (s->up_cl && s->tuning.keep_data != 0 && slot_bytes(&dp->data, cur_pc) + want <= cap) {
        swap_layouts(s); /* the current layout becomes the kept one; the old kept buffers are reused */
    } else {
        gs_dev_bufs_release(&dp->alt.cols, GS_DEV_CLUSTERED_BUFS);
        for (int i = 0; i < 5; i++) gs_dev_buf_release(alt_pc[i]);
        s->alt_cl = NULL;
        s->alt_pc = NULL;
    }
    s->up_cl = NULL;
    s->up_pc = NULL;
    const gs_status st = gs_dev_upload_clustered(&s->dev, cl, &dp->data);
    if (st != GS_OK) return st;
    s->up_cl = cl;
    s->up_stamp = cl->stamp;
    return GS_OK;
}

void gs_solver_take_layouts(gs_solver *dst, gs_solver *src)
{
    if (!dst || !src || dst == src || dst->ocl != src->ocl) return;
    clFinish(src->queue); /* its last uses of the buffers are done */
    dev *const a = &dst->d, *const b = &src->d;
    gs_dev_bufs_release(&a->data.cols, GS_DEV_CLUSTERED_BUFS);
    gs_dev_bufs_release(&a->alt.cols, GS_DEV_CLUSTERED_BUFS);
    a->data = b->data;
    a->alt = b->alt;
    memset(&b->data, 0, sizeof b->data);
    memset(&b->alt, 0, sizeof b->alt);
    for (int i = 0; i < 5; i++) {
        gs_dev_buf_release(pc_buf(a, i));
        gs_dev_buf_release(&a->alt_pc[i]);
        *pc_buf(a, i) = *pc_buf(b, i);
        a->alt_pc[i] = b->alt_pc[i];
        memset(pc_buf(b, i), 0, sizeof(gs_dev_buf));
        memset(&b->alt_pc[i], 0, sizeof(gs_dev_buf));
    }
    dst->up_cl = src->up_cl, dst->up_stamp = src->up_stamp, dst->up_pc = src->up_pc;
    dst->alt_cl = src->alt_cl, dst->alt_stamp = src->alt_stamp, dst->alt_pc = src->alt_pc;
    src->up_cl = src->alt_cl = NULL;
    src->up_pc = src->alt_pc = NULL;
}

/* The row cache's state (k_cache), every word -1: no line holding a row, no position a line, no
 * round yet; nothing when the batch has no cache. */
static gs_status rc_upload(gs_solver *s, const batch *b)
{
    if (b->rlines <= 0) return GS_OK;
    const size_t bytes = (2 + 2 * (size_t)b->rlines + (size_t)b->pr[0].npos) * sizeof(int);
    gs_status st = gs_dev_buf_ensure(&s->dev, &s->d.rc, bytes, NULL, "row cache");
    return st ? st : gs_dev_buf_fill(&s->dev, &s->d.rc, -1, bytes);
}

/* The pinned memory and the device buffers of the batch: the clustered data, the tables and the
 * solver's state uploaded or cleared; returns once the queue has done it. */
static gs_status batch_upload(gs_solver *s, batch *b, double **rb, double **updp)
{
    gs_status st = GS_OK;
    dev *const dp = &s->d;
    const gs_clustered *cl = b->cl;
    const int np = b->np, q = s->q;
    const size_t total = (size_t)b->total, ucols = u_cols(s, cl), rtd = b->rtd;
    const size_t rb_prob = rb_doubles(q, b->rbfull) * sizeof(double);
    int *neg = NULL;
    void *h0 = NULL, *h1 = NULL;
    const double t_pin0 = gs_now();
    const size_t rs_b = b->rs.nd > 1 ? rs_pin_doubles(q) * sizeof(double) : 0;
    if ((st = gs_dev_pinned_ensure(&s->dev, &s->pin[0], b->nbank * rb_prob * (size_t)np + rs_b, &h0)) ||
        (st = gs_dev_pinned_ensure(&s->dev, &s->pin[1], b->nbank * (rtd + 4 * (size_t)q * np) * sizeof(double), &h1)))
        goto cleanup;
    *rb = h0;
    *updp = h1;
    if (rs_b > 0) { /* this device's place in b->rs (its index: the solver's) */
        int d = 0;
        while (b->rs.s[d] != s) d++;
        b->rs.heads[d] = *rb + b->nbank * rb_doubles(q, b->rbfull) * (size_t)np;
        b->rs.pick[d] = (uint32_t *)(b->rs.heads[d] + rb_head(q));
    }
    if (rb == &b->rb) b->t_pinned = gs_now() - t_pin0; /* the batch's own device (a row split's others: threads) */
    neg = malloc(sizeof *neg * (size_t)np * q);
    if (!neg) { st = GS_FAIL(GS_ERR_NOMEM, "out of memory"); goto cleanup; }
    for (size_t k = 0; k < (size_t)np * q; k++) neg[k] = -1;
    /* the layout's arrays are never changed once made, and kernels only read them */
    int same_cl = 0;
    if ((st = layout_to_device(s, cl, &same_cl))) goto cleanup;
    if (rb == &b->rb) b->data_kept = same_cl && (!b->pc || s->up_pc == b->pc);
    if ((st = gs_dev_buf_ensure(&s->dev, &dp->y, total, b->yb, "y")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->ctab, 2 * (size_t)np * sizeof(double), b->ctab, "C table")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->ptab, (size_t)np * sizeof *b->ptab, b->ptab, "problem table")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->koff, (size_t)np * sizeof(cl_long), b->koff, "kernel row offsets")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->vc, 2 * (size_t)b->nvc_all * sizeof(int), NULL, "cluster table")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->vch, 2 * (size_t)b->nvch_all * sizeof(int), NULL, "chunk table")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->G, total * sizeof(double), NULL, "G")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->alpha, total * sizeof(double), NULL, "alpha")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->in_ws, total, NULL, "in_ws")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->slot_of, total * sizeof(int), NULL, "slot_of")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->state, 8 * (size_t)np * sizeof(cl_uint), NULL, "state")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->hist, 2 * 2048 * (size_t)np * sizeof(cl_uint), NULL, "hist")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->gmax, 2 * (size_t)b->nvch_all * HSPLIT * sizeof(double), NULL, "gmax")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->gap, 2 * (size_t)np * sizeof(double), NULL, "gap")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->gcnt, 4 * (size_t)b->nvch_all * sizeof(cl_uint), NULL, "gcnt")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->cand, 2 * (size_t)q * np * sizeof(int), NULL, "cand")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->ws_pos, (size_t)q * np * sizeof(int), neg, "ws_pos")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->ws_row, (size_t)q * np * sizeof(int), b->rowmap, "kernel row map")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->new_slots, (size_t)q * np * sizeof(int), NULL, "new_slots")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->n_new, (size_t)np * sizeof(int), NULL, "n_new")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->u_pos, (size_t)q * np * sizeof(int), neg, "u_pos")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->U, ucols * (size_t)q * np * sizeof(float), NULL, "U")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->K, (size_t)b->ktotal * sizeof(float), NULL, "kernel rows")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->upd, (rtd + 4 * (size_t)q * np) * sizeof(double), NULL, "round table and updates")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->rb, rb_prob * (size_t)np, NULL, "readback")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->kws, (size_t)q * q * np * sizeof(float), NULL, "working-set kernel matrices")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->keys, total * 2 * sizeof(cl_uint), NULL, "selection keys")) ||
        (st = gs_dev_buf_ensure(&s->dev, &dp->fresh, (size_t)q * np, NULL, "new-row flags")) ||
        (b->rs.nd > 1 &&
         (st = gs_dev_buf_ensure(&s->dev, &dp->ckey, 2 * (size_t)q * np * sizeof(cl_uint), NULL, "pick keys"))))
        goto cleanup;
    if ((st = rc_upload(s, b))) goto cleanup;
    if (b->pc && s->up_pc != b->pc) { /* the copy is the layout's (cl->bycol), freed with it */
        const gs_colchunks *pc = b->pc;
        const size_t nk = (size_t)pc->n_cols, ne = (size_t)pc->n_entries;
        s->up_pc = NULL;
        if ((st = gs_dev_buf_ensure(&s->dev, &dp->pc_cols, ((size_t)pc->n_chunks + 1) * 4, pc->chunk_cols,
                                    "chunk columns")) ||
            (st = gs_dev_buf_ensure(&s->dev, &dp->pc_ccol, (nk + 1) * 4, pc->cols, "columns by chunk")) ||
            (st = gs_dev_buf_ensure(&s->dev, &dp->pc_coff, (nk + 1) * 4, pc->col_off, "column offsets")) ||
            (st = gs_dev_buf_ensure(&s->dev, &dp->pc_row, (ne + 1) * 2, pc->row, "entries' rows")) ||
            (st = gs_dev_buf_ensure(&s->dev, &dp->pc_val, (ne + 1) * 4, pc->val, "entries' values")))
            goto cleanup;
        if (s->up_cl == cl) s->up_pc = pc;
    }
    if (b->pc && (st = gs_dev_buf_ensure(&s->dev, &dp->vpc, 2 * (size_t)b->nvc_all * sizeof(int), NULL, "chunk table")))
        goto cleanup;
    if ((st = gs_dev_buf_fill(&s->dev, &dp->hist, 0, 2 * 2048 * (size_t)np * sizeof(cl_uint))) ||
        (ucols && (st = gs_dev_buf_fill(&s->dev, &dp->U, 0, ucols * (size_t)q * np * sizeof(float)))) ||
        (st = gs_dev_buf_fill(&s->dev, &dp->kws, 0, (size_t)q * q * np * sizeof(float))) ||
        (st = gs_dev_buf_fill(&s->dev, &dp->fresh, 0, (size_t)q * np)))
        goto cleanup;
cleanup:
    { /* the uploads above are queued; neg must live until they are done */
        const cl_int e = clFinish(s->queue);
        if (st == GS_OK && e != CL_SUCCESS) st = GS_FAIL(GS_ERR_OCL, "clFinish failed: %s", gs_cl_error_name(e));
    }
    if (st != GS_OK) { /* whatever was queued, the buffers are not trusted */
        s->up_cl = NULL;
        s->up_pc = NULL;
        s->alt_cl = NULL;
        s->alt_pc = NULL;
    }
    free(neg);
    return st;
}

/* The kernels' arguments that stay for the whole batch. */
static gs_status batch_args(gs_solver *s, const batch *b)
{
    gs_status st = GS_OK;
    const dev *const dp = &s->d;
    const gs_clustered *cl = b->cl;
    const int q = s->q, nbank = b->nbank;
    const cl_long uq = (cl_long)(u_cols(s, cl) * (size_t)q);
    const int itotal = (int)b->total, qh = q;
    /* k_hist's digit and store flag: the one-group path's first histogram (digit 0, storing the keys)
     * each round; the chain sets both itself */
    const int zero = 0;
    /* k_readback's part (enqueue_heads switches it); a row split's other devices send heads only */
    const int part = (b->split ? RB_KWS : b->rs.nd > 1 && s != b->rs.s[0] ? RB_HEAD : RB_ALL) |
                     (b->rbfull ? RB_FULL_BIT : 0);
    const int rbfull = b->rbfull;
    const int renew = b->rs.nd > 1; /* rsplit: kept slots' rows renewed */
    const int rlines = b->rlines;   /* the row cache's lines (0: none) */
    const int mbank = rlines > 0 ? 1 : nbank; /* the merge's banks: with the cache k_cache picks the lines */
    /* k_select's positions (a row split: this device's slice, its picks sent to the host) */
    int t_lo = 0, t_hi = INT32_MAX;
    const cl_mem ckey_mem = renew ? dp->ckey.mem : dp->cand.mem; /* (unused unless renew) */
    for (int d = 0; d < b->rs.nd && renew; d++)
        if (b->rs.s[d] == s) { t_lo = b->rs.ch[d] * s->wg * ITEMS; t_hi = b->rs.ch[d + 1] * s->wg * ITEMS; }
    const int skip0 = b->finite; /* k_gram may skip a dense row's zeros only if every value is finite */
    const gs_dev_karg a_init[] = {GS_KARG_BUF(dp->G), GS_KARG_BUF(dp->alpha), GS_KARG_BUF(dp->in_ws),
                                  GS_KARG_BUF(dp->slot_of), GS_KARG_BUF(dp->y), GS_KARG(itotal)};
    const gs_dev_karg a_update[] = {GS_KARG_BUF(dp->G), GS_KARG_BUF(dp->alpha), GS_KARG_BUF(dp->y),
                                    GS_KARG_BUF(dp->K), GS_KARG_BUF(dp->koff), GS_KARG_BUF(dp->upd),
                                    GS_KARG_BUF(dp->upd), GS_KARG_BUF(dp->ptab), GS_KARG_BUF(dp->vc),
                                    GS_KARG_BUF(dp->state)};
    const gs_dev_karg a_hist[] = {GS_KARG_BUF(dp->y), GS_KARG_BUF(dp->G), GS_KARG_BUF(dp->alpha),
                                  GS_KARG_BUF(dp->ctab), GS_KARG_BUF(dp->in_ws), GS_KARG_BUF(dp->state),
                                  GS_KARG_BUF(dp->hist), GS_KARG_BUF(dp->gmax), GS_KARG(zero), GS_KARG_BUF(dp->upd),
                                  GS_KARG_BUF(dp->ptab), GS_KARG_BUF(dp->vch), GS_KARG_BUF(dp->keys),
                                  GS_KARG(b->one_group)};
    const gs_dev_karg a_select[] = {GS_KARG_BUF(dp->keys), GS_KARG_BUF(dp->hist), GS_KARG_BUF(dp->gmax),
                                    GS_KARG_BUF(dp->gap), GS_KARG_BUF(dp->ws_pos), GS_KARG_BUF(dp->slot_of),
                                    GS_KARG_BUF(dp->in_ws), GS_KARG_BUF(dp->new_slots), GS_KARG_BUF(dp->n_new),
                                    GS_KARG(q), GS_KARG_BUF(dp->upd), GS_KARG_BUF(dp->ptab), GS_KARG_BUF(dp->ws_row),
                                    GS_KARG(mbank), GS_KARG(t_lo), GS_KARG(t_hi), GS_KARG(renew),
                                    GS_KARG_BUF(dp->cand), GS_KARG_BUF(dp->state), GS_KARG(ckey_mem)};
    const gs_dev_karg a_pick[] = {GS_KARG_BUF(dp->state), GS_KARG_BUF(dp->hist), GS_KARG_BUF(dp->gmax),
                                  GS_KARG_BUF(dp->gap), GS_KARG(zero), GS_KARG_BUF(dp->upd)};
    const gs_dev_karg a_count[] = {GS_KARG_BUF(dp->y), GS_KARG_BUF(dp->G), GS_KARG_BUF(dp->alpha),
                                   GS_KARG_BUF(dp->ctab), GS_KARG_BUF(dp->in_ws), GS_KARG_BUF(dp->state),
                                   GS_KARG_BUF(dp->gcnt), GS_KARG_BUF(dp->upd), GS_KARG_BUF(dp->ptab),
                                   GS_KARG_BUF(dp->vch)};
    const gs_dev_karg a_scan[] = {GS_KARG_BUF(dp->gcnt), GS_KARG_BUF(dp->upd)};
    const gs_dev_karg a_write[] = {GS_KARG_BUF(dp->y), GS_KARG_BUF(dp->G), GS_KARG_BUF(dp->alpha),
                                   GS_KARG_BUF(dp->ctab), GS_KARG_BUF(dp->in_ws), GS_KARG_BUF(dp->state),
                                   GS_KARG_BUF(dp->gcnt), GS_KARG_BUF(dp->cand), GS_KARG(qh), GS_KARG_BUF(dp->upd),
                                   GS_KARG_BUF(dp->ptab), GS_KARG_BUF(dp->vch)};
    const gs_dev_karg a_merge[] = {GS_KARG_BUF(dp->state), GS_KARG_BUF(dp->cand), GS_KARG(qh),
                                   GS_KARG_BUF(dp->ws_pos), GS_KARG_BUF(dp->slot_of), GS_KARG_BUF(dp->in_ws),
                                   GS_KARG_BUF(dp->new_slots), GS_KARG_BUF(dp->n_new), GS_KARG(q),
                                   GS_KARG_BUF(dp->upd), GS_KARG_BUF(dp->ptab), GS_KARG_BUF(dp->ws_row),
                                   GS_KARG(mbank), GS_KARG(renew)};
    const gs_dev_karg a_cache[] = {GS_KARG_BUF(dp->ws_pos), GS_KARG_BUF(dp->ws_row), GS_KARG_BUF(dp->new_slots),
                                   GS_KARG_BUF(dp->n_new), GS_KARG(q), GS_KARG_BUF(dp->upd), GS_KARG_BUF(dp->rc),
                                   GS_KARG(rlines)};
    const gs_dev_karg a_cand[] = {GS_KARG_BUF(dp->y), GS_KARG_BUF(dp->G), GS_KARG_BUF(dp->alpha),
                                  GS_KARG_BUF(dp->ctab), GS_KARG_BUF(dp->in_ws), GS_KARG_BUF(dp->state),
                                  GS_KARG_BUF(dp->cand), GS_KARG(qh), GS_KARG_BUF(dp->upd), GS_KARG_BUF(dp->ptab),
                                  GS_KARG_BUF(dp->ckey)};
    const gs_dev_karg a_gather[] = {GS_KARG_BUF(dp->ws_pos), GS_KARG_BUF(dp->new_slots), GS_KARG_BUF(dp->n_new),
                                    GS_KARG_BUF(dp->u_pos), GS_KARG_BUF(dp->data.col_off),
                                    GS_KARG_BUF(dp->data.cols), GS_KARG_BUF(dp->data.vals), GS_KARG_BUF(dp->U),
                                    GS_KARG(q), GS_KARG_BUF(dp->data.ell_w), GS_KARG_BUF(dp->data.ell_off),
                                    GS_KARG_BUF(dp->data.ell_idx), GS_KARG_BUF(dp->data.ell_val),
                                    GS_KARG_BUF(dp->upd), GS_KARG_BUF(dp->ptab), GS_KARG(uq)};
    const gs_dev_karg a_rows[] = {GS_KARG_BUF(dp->data.col_off), GS_KARG_BUF(dp->data.cols),
                                  GS_KARG_BUF(dp->data.vals), GS_KARG_BUF(dp->data.norm2), GS_KARG_BUF(dp->U),
                                  GS_KARG_BUF(dp->ws_pos), GS_KARG_BUF(dp->new_slots), GS_KARG_BUF(dp->n_new),
                                  GS_KARG_BUF(dp->K), GS_KARG_BUF(dp->koff), GS_KARG(q), GS_KARG(s->gamma),
                                  GS_KARG(s->coef0), GS_KARG(s->degree), GS_KARG_BUF(dp->data.ell_w),
                                  GS_KARG_BUF(dp->data.ell_off), GS_KARG_BUF(dp->data.ell_idx),
                                  GS_KARG_BUF(dp->data.ell_val), GS_KARG_BUF(dp->upd), GS_KARG_BUF(dp->ptab),
                                  GS_KARG_BUF(dp->vc), GS_KARG(uq), GS_KARG_BUF(dp->ws_row)};
    const gs_dev_karg a_rows_col[] = {GS_KARG_BUF(dp->pc_cols), GS_KARG_BUF(dp->pc_ccol), GS_KARG_BUF(dp->pc_coff),
                                      GS_KARG_BUF(dp->pc_row), GS_KARG_BUF(dp->pc_val), GS_KARG_BUF(dp->data.col_off),
                                      GS_KARG_BUF(dp->data.cols), GS_KARG_BUF(dp->data.vals),
                                      GS_KARG_BUF(dp->data.ell_w), GS_KARG_BUF(dp->data.ell_off),
                                      GS_KARG_BUF(dp->data.ell_idx), GS_KARG_BUF(dp->data.ell_val),
                                      GS_KARG_BUF(dp->data.norm2), GS_KARG_BUF(dp->ws_pos),
                                      GS_KARG_BUF(dp->new_slots), GS_KARG_BUF(dp->n_new), GS_KARG_BUF(dp->K),
                                      GS_KARG_BUF(dp->koff), GS_KARG(q), GS_KARG(s->gamma), GS_KARG(s->coef0),
                                      GS_KARG(s->degree), GS_KARG_BUF(dp->upd), GS_KARG_BUF(dp->ptab),
                                      GS_KARG_BUF(dp->vpc), GS_KARG_BUF(dp->ws_row)};
    const gs_dev_karg a_readback[] = {GS_KARG_BUF(dp->gap), GS_KARG_BUF(dp->n_new), GS_KARG_BUF(dp->ws_pos),
                                      GS_KARG_BUF(dp->new_slots), GS_KARG_BUF(dp->G), GS_KARG_BUF(dp->K),
                                      GS_KARG_BUF(dp->koff), GS_KARG_BUF(dp->rb), GS_KARG(q), GS_KARG_BUF(dp->upd),
                                      GS_KARG_BUF(dp->ptab), GS_KARG_BUF(dp->kws), GS_KARG_BUF(dp->ws_row),
                                      GS_KARG(part), GS_KARG_BUF(dp->fresh)};
    const gs_dev_karg a_gram[] = {GS_KARG_BUF(dp->data.col_off), GS_KARG_BUF(dp->data.cols),
                                  GS_KARG_BUF(dp->data.vals), GS_KARG_BUF(dp->data.norm2), GS_KARG_BUF(dp->U),
                                  GS_KARG_BUF(dp->ws_pos), GS_KARG_BUF(dp->new_slots), GS_KARG_BUF(dp->n_new),
                                  GS_KARG(q), GS_KARG(s->gamma), GS_KARG(s->coef0), GS_KARG(s->degree),
                                  GS_KARG_BUF(dp->data.ell_w), GS_KARG_BUF(dp->data.ell_off),
                                  GS_KARG_BUF(dp->data.ell_idx), GS_KARG_BUF(dp->data.ell_val), GS_KARG_BUF(dp->upd),
                                  GS_KARG_BUF(dp->ptab), GS_KARG(uq), GS_KARG_BUF(dp->rb), GS_KARG_BUF(dp->kws),
                                  GS_KARG_BUF(dp->fresh), GS_KARG(skip0), GS_KARG(rbfull)};
    const gs_dev_karg a_heads[] = {GS_KARG_BUF(dp->gap), GS_KARG_BUF(dp->n_new), GS_KARG_BUF(dp->ws_pos),
                                   GS_KARG_BUF(dp->new_slots), GS_KARG_BUF(dp->G), GS_KARG_BUF(dp->K),
                                   GS_KARG_BUF(dp->koff), GS_KARG_BUF(dp->rb), GS_KARG(q), GS_KARG_BUF(dp->upd),
                                   GS_KARG_BUF(dp->ptab), GS_KARG_BUF(dp->upd), GS_KARG_BUF(dp->y),
                                   GS_KARG_BUF(dp->ws_row)};
    if ((st = GS_DEV_ARGS(&s->ks, K_INIT, a_init)) ||
        (st = GS_DEV_ARGS(&s->ks, K_UPDATE, a_update)) ||
        (st = GS_DEV_ARGS(&s->ks, K_HIST, a_hist)) ||
        (st = GS_DEV_ARGS(&s->ks, K_SELECT, a_select)) ||
        (s->multi_sel && ((st = GS_DEV_ARGS(&s->ks, K_PICK, a_pick)) ||
                          (st = GS_DEV_ARGS(&s->ks, K_COUNT, a_count)) ||
                          (st = GS_DEV_ARGS(&s->ks, K_SCAN, a_scan)) ||
                          (st = GS_DEV_ARGS(&s->ks, K_WRITE, a_write)) ||
                          (st = GS_DEV_ARGS(&s->ks, K_MERGE, a_merge)))) ||
        (renew && (st = GS_DEV_ARGS(&s->ks, K_CAND, a_cand))) ||
        (rlines > 0 && (st = GS_DEV_ARGS(&s->ks, K_CACHE, a_cache))) ||
        (st = GS_DEV_ARGS(&s->ks, K_GATHER, a_gather)) ||
        (st = GS_DEV_ARGS(&s->ks, K_ROWS, a_rows)) ||
        (b->pc && (st = GS_DEV_ARGS(&s->ks, K_ROWS_COL, a_rows_col))) ||
        (st = GS_DEV_ARGS(&s->ks, K_READBACK, a_readback)) ||
        (st = GS_DEV_ARGS(&s->ks, K_GRAM, a_gram)) ||
        (st = GS_DEV_ARGS(&s->ks, K_HEADS, a_heads)))
        goto cleanup;
cleanup:
    return st;
}

/* The starting point: k_init's alpha = 0, G = -1, or the given one (warm_start). */
static gs_status batch_start(gs_solver *s, batch *b)
{
    gs_status st = GS_OK;
    if ((st = launch(s, &b->pf, K_INIT, round_up((size_t)b->total, (size_t)s->wg), 1, (size_t)s->wg)) ||
        (st = warm_start(s, b->cl, b->pr, b->np, b->Gh, b->ahb, (size_t)b->total, &b->a0b)))
        goto cleanup;
cleanup:
    return st;
}

/* The subproblem crew: one thread per problem up to the host's cores, the calling thread one of
 * them; and the courier of split rounds. */
static gs_status crew_start(gs_solver *s, batch *b)
{
    crew *cw = &b->cw;
    b->nth = 1;
    if (b->np > 1) {
        b->nth = host_threads(s);
        if (b->nth > b->np) b->nth = b->np;
    }
    const int nth = b->nth;
    cw->sc = calloc((size_t)nth, sizeof *cw->sc);
    cw->t_sub = calloc((size_t)nth, sizeof *cw->t_sub);
    if (!cw->sc || !cw->t_sub) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < nth; i++) {
        cw->sc[i].work = malloc(sizeof(double) * 4 * (size_t)s->q);
        cw->sc[i].kfull = malloc(sizeof(float) * (size_t)s->q * (size_t)s->q);
        if (!cw->sc[i].work || !cw->sc[i].kfull) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    }
    cw->s = s;
    cw->split = b->split;
    cw->rbfull = b->rbfull;
    cw->pr = b->pr;
    cw->act = b->act;
    pthread_mutex_init(&cw->mu, NULL);
    pthread_cond_init(&cw->go, NULL);
    pthread_cond_init(&cw->done, NULL);
    b->crew_ready = 1;
    if (nth > 1) {
        b->th = calloc((size_t)nth, sizeof *b->th);
        b->cargs = calloc((size_t)nth, sizeof *b->cargs);
        if (!b->th || !b->cargs) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
        for (int i = 1; i < nth; i++) { /* a thread that does not start leaves its share to the others */
            b->cargs[i] = (crew_arg){cw, i};
            if (pthread_create(&b->th[cw->nstarted + 1], NULL, crew_run, &b->cargs[i]) == 0) cw->nstarted++;
        }
    }
    if (b->rs.nd > 1 && use_courier(s)) /* a row split's other devices: a thread each */
        for (int d = 1; d < b->rs.nd; d++) {
            const gs_status st = gs_courier_create(&b->rs.cour[d]);
            if (st != GS_OK) return st;
        }
    if (b->split && use_courier(s)) return gs_courier_create(&b->cour);
    return GS_OK;
}

/* Stops and joins the crew's threads; frees its scratch. */
static void crew_stop(batch *b)
{
    crew *cw = &b->cw;
    if (b->crew_ready) {
        pthread_mutex_lock(&cw->mu);
        cw->quit = 1;
        pthread_cond_broadcast(&cw->go);
        pthread_mutex_unlock(&cw->mu);
        for (int i = 1; i <= cw->nstarted; i++) pthread_join(b->th[i], NULL);
        pthread_cond_destroy(&cw->go);
        pthread_cond_destroy(&cw->done);
        pthread_mutex_destroy(&cw->mu);
        b->crew_ready = 0;
    }
    if (cw->sc)
        for (int i = 0; i < b->nth; i++) {
            free(cw->sc[i].work);
            free(cw->sc[i].kfull);
        }
    free(cw->sc);
    free(cw->t_sub);
    free(b->th);
    free(b->cargs);
    cw->sc = NULL;
    cw->t_sub = NULL;
    b->th = NULL;
    b->cargs = NULL;
}

/* The round table of the active problems, with (after a problem left) the virtual cluster and
 * chunk tables, in active order. */
static void round_tables(const gs_solver *s, batch *b, int q_new)
{
    const int q = s->q, wg = s->wg;
    gs_abi_round *const rt = b->rt;
    b->rj.tables = b->tables_dirty;
    if (b->tables_dirty) {
        b->nvc = 0;
        b->nvch = 0;
        b->nvpc = 0;
        for (int a = 0; a < b->nact; a++) {
            const prob *p = &b->pr[b->act[a]];
            const int ncp = p->spec->na + p->spec->nb, nch = (p->npos + wg * ITEMS - 1) / (wg * ITEMS);
            for (int c = 0; c < ncp; c++) { b->vc[2 * b->nvc] = a; b->vc[2 * b->nvc + 1] = c; b->nvc++; }
            if (b->pc) b->nvpc += chunk_list(p->spec, b->pc->chunk_clusters, a, 0, ncp, b->vpc + 2 * b->nvpc);
            rt[a].ch0 = b->nvch;
            rt[a].nch = nch;
            for (int c = 0; c < nch; c++) { b->vch[2 * b->nvch] = a; b->vch[2 * b->nvch + 1] = c; b->nvch++; }
        }
        b->tables_dirty = 0;
    }
    for (int a = 0; a < b->nact; a++) {
        gs_abi_round *r = rt + a;
        const prob *p = &b->pr[b->act[a]];
        r->pid = b->act[a];
        r->q_new = q_new;
        r->q_next = q - s->keep;
        r->head = b->head;
        r->k_up = q_new / 2;
        r->k_low = q_new - q_new / 2;
        r->sel = p->nu ? p->sel : 0;
    }
    if (b->rs.nd > 1) { /* every device's chunk table has rs.nvch entries (rsplit) */
        rt[0].ch0 = 0;
        rt[0].nch = b->rs.nvch;
    }
}

/* One round of the active problems: their changes, the selection and kernel rows queued (on the
 * courier when split, while this thread solves the second parts), the heads read, then every
 * active problem's readback and subproblem on the crew; drops the problems that stopped. */
static gs_status batch_round(gs_solver *s, batch *b)
{
    gs_status st = GS_OK;
    round_jobs *const rj = &b->rj;
    const int q = s->q, nact = b->nact;
    double te = gs_now();
    /* the last round's enqueue_rows read rj (and a row split's devices' jobs) */
    if ((st = gs_courier_drain(b->cour)) || (st = rs_drain(rj->rs))) goto cleanup;
    const int q_new = b->round == 0 ? q : q - s->keep;
    const double tt0 = gs_now();
    round_tables(s, b, q_new);
    rj->nact = nact;
    rj->nvc = b->nvc;
    rj->nvch = b->nvch;
    rj->nvpc = b->nvpc;
    rj->q_new = q_new;
    rj->late_update = 0;
    rj->rbx = b->rb + (b->split ? (size_t)(b->round & 1) * rj->rbd * b->np : 0);
    rj->nhd = rb_head(q) * (size_t)nact;
    /* the alpha changes (part one's, or all), the selection and the new members' matrix
     * entries or rows: on the courier thread (split), while this one solves the second parts */
    rj->upd_a_n = pack_changes(b->pr, b->act, nact, b->rt, b->rtd, rj->upd_a, &b->bytes_update);
    b->t_tables += gs_now() - tt0;
    if ((st = gs_courier_post(b->cour, enqueue_select, rj))) goto cleanup;
    double t_second = 0; /* wall time of the second parts */
    if (b->split && b->round > 0) {
        const double tb = gs_now();
        b->t_enq += tb - te;
        crew_round(&b->cw, nact, 1);
        te = gs_now();
        t_second = te - tb;
        b->t_abs += t_second;
        rj->upd_b_n = pack_changes(b->pr, b->act, nact, b->rt, b->rtd, rj->upd_b, &b->bytes_update);
        rj->late_update = 1;
    }
    const double td = gs_now();
    if ((st = gs_courier_drain(b->cour))) goto cleanup;
    const int n_first = rj->n_first; /* kernels queued before the second parts */
    cl_event ev[2] = {NULL, rj->kws_read}; /* a row split's other devices' heads: rs->hev[1..] */
    rj->kws_read = NULL;
    const double th = gs_now();
    b->t_seldrain += th - td;
    st = rj->rs ? rs_enqueue_heads(rj) : enqueue_heads(rj, &ev[0]);
    b->t_heads += gs_now() - th;
    if (rj->rs) { ev[0] = rj->rs->hev[0]; rj->rs->hev[0] = NULL; }
    for (int a = 0; a < nact; a++) {
        prob *p = &b->pr[b->act[a]];
        p->rb = rj->rbx + rb_head(q) * (size_t)a;
        p->kws = (const float *)(rj->rbx + rj->nhd + rj->rkd * (size_t)a);
    }
    b->head = (b->head + q_new) % q;
    const double tw = gs_now();
    b->t_enq += tw - te;
    /* wait for the heads (and the matrices: unsplit in the same read, split on xfer) */
    if (st == GS_OK) st = gs_courier_post(b->cour, enqueue_rows, rj);
    {
        cl_int e = st == GS_OK ? clWaitForEvents(b->split ? 2 : 1, ev) : CL_SUCCESS;
        for (int d = 1; rj->rs && d < rj->rs->nd; d++) { /* one context each */
            cl_event *h = &rj->rs->hev[d];
            if (e == CL_SUCCESS && st == GS_OK) e = clWaitForEvents(1, h);
            if (*h) clReleaseEvent(*h);
            *h = NULL;
        }
        if (ev[0]) clReleaseEvent(ev[0]);
        if (ev[1]) clReleaseEvent(ev[1]);
        if (st != GS_OK) goto cleanup;
        if (e != CL_SUCCESS) {
            st = GS_FAIL(GS_ERR_OCL, "reading the round's results failed: %s", gs_cl_error_name(e));
            goto cleanup;
        }
        if (s->dev.profile) { /* the later kernels' events too */
            if ((st = gs_courier_drain(b->cour))) goto cleanup;
            GS_CL_CHECK(clFinish(s->queue));
        }
    }
    if (rj->rs) rs_heads_merge(rj->rs, rj->rbx, q, s->wg);
    const double ta = gs_now();
    b->t_wait += ta - tw;
    if (s->dev.profile) {
        const double dev_first = gs_dev_prof_collect(&b->pf, k_phase, b->ph, b->per_kernel, n_first);
        b->t_overlap += dev_first < t_second ? dev_first : t_second;
    }
    /* every active problem's readback and subproblem (its first part when split), on the crew */
    crew_round(&b->cw, nact, 0);
    int na = 0;
    for (int a = 0; a < nact; a++) {
        const prob *p = &b->pr[b->act[a]];
        b->bytes_rows += b->clustered_bytes_per_pos * p->npos * (double)((p->nn + WCH - 1) / WCH);
        b->n_members += p->nnew;
        b->n_rows += p->nn;
        if (!p->done) b->act[na++] = b->act[a];
    }
    if (na != nact) b->tables_dirty = 1;
    b->nact = na;
    b->t_abs += gs_now() - ta;
    b->round++;
cleanup:
    return st;
}

/* Rounds until every problem has stopped. Each: the round table and the alpha changes of the last
 * subproblems in one transfer, k_update, the selection, k_gather_u, k_rows, k_readback, the
 * read, then the host solves. Split: the host sends the changes of the first part of each
 * subproblem; while the device updates, selects the next set (on gradients without the second
 * part's changes), computes its new matrix entries (k_gram) and sends its kernel matrix (on xfer),
 * the host solves the second part; k_heads adds its changes to the set's gradients for the heads'
 * read, and a second k_update applies them to every row after that read, then k_rows. Returns
 * with the gradients read into b->Gh. */
static gs_status batch_rounds(gs_solver *s, batch *b)
{
    gs_status st = GS_OK;
    const gs_clustered *cl = b->cl;
    const int q = s->q, ncl = cl->n_clusters;
    b->clustered_bytes_per_pos = ((double)cl->col_off[ncl] * s->wg + (double)cl->ell_nnz) * sizeof(float) /
                                 (cl->n_pos ? cl->n_pos : 1);
    b->nact = b->np;
    b->tables_dirty = 1;
    const size_t upd_region = b->rtd + 4 * (size_t)q * b->np;
    b->rj = (round_jobs){.s = s, .rs = b->rs.nd > 1 ? &b->rs : NULL, .pf = &b->pf, .one_group = b->one_group,
                         .split = b->split, .cache = b->rlines > 0, .q = q, .vc = b->vc, .vpc = b->vpc,
                         .vch = b->vch, .upd_a = b->updp, .upd_b = b->updp + upd_region, .rkd = rb_kws(q, b->rbfull),
                         .rbd = rb_doubles(q, b->rbfull), .rbfull = b->rbfull};
    for (int i = 0; i < b->np; i++) b->act[i] = i;
    while (b->nact > 0)
        if ((st = batch_round(s, b))) goto cleanup;
    /* the last k_update is queued */
    if ((st = gs_courier_drain(b->cour)) || (st = rs_drain(b->rj.rs))) goto cleanup;
    const double tg = gs_now();
    if (b->rs.nd > 1) { /* each slice from its device (one problem: positions from 0) */
        const size_t chunk = (size_t)s->wg * ITEMS;
        for (int d = 0; d < b->rs.nd; d++) {
            const size_t t0 = (size_t)b->rs.ch[d] * chunk;
            size_t t1 = (size_t)b->rs.ch[d + 1] * chunk;
            if (t1 > (size_t)b->total) t1 = (size_t)b->total;
            GS_CL_CHECK(clEnqueueReadBuffer(b->rs.s[d]->queue, b->rs.s[d]->d.G.mem, CL_TRUE, t0 * sizeof(double),
                                            (t1 - t0) * sizeof(double), b->Gh + t0, 0, NULL, NULL));
        }
    } else {
        GS_CL_CHECK(clEnqueueReadBuffer(s->queue, s->d.G.mem, CL_TRUE, 0, (size_t)b->total * sizeof(double), b->Gh, 0,
                                        NULL, NULL));
    }
    b->t_gread = gs_now() - tg;
cleanup:
    return st;
}

/* Problem i's answer from its final alphas and gradients: rho and obj as LIBSVM computes them, the
 * alphas by row; its relative duality gap into dg[i]. */
typedef struct results_ctx {
    const gs_solver *s;
    const batch *b;
    double *dg;
} results_ctx;

static gs_status result_one(void *ctx, int i)
{
    const results_ctx *rc = ctx;
    const gs_solver *s = rc->s;
    const batch *b = rc->b;
    const prob *p = &b->pr[i];
    gs_binary_spec *sp = p->spec;
    gs_binary_result *res = &sp->res;
    const int8_t *y = p->y;
    const double *ah = p->ah, *G = b->Gh + p->pos_off;
    /* rho as LIBSVM: mean of y G over free variables, else the midpoint of the bounds */
    double ub = INFINITY, lb = -INFINITY, sum_free = 0, obj2 = 0;
    long nfree = 0;
    for (int t = 0; t < p->npos; t++) {
        if (!y[t]) continue;
        const double yg = y[t] * G[t], a = ah[t], c = y[t] > 0 ? sp->Cp : sp->Cn;
        if (a >= c) { if (y[t] < 0) ub = fmin(ub, yg); else lb = fmax(lb, yg); }
        else if (a <= 0) { if (y[t] > 0) ub = fmin(ub, yg); else lb = fmax(lb, yg); }
        else { nfree++; sum_free += yg; }
        obj2 += a * (G[t] - 1.0);
    }
    res->rho = nfree > 0 ? sum_free / (double)nfree : (ub + lb) / 2;
    res->obj = obj2 / 2;
    /* relative duality gap (the paper's criterion), for --verbose */
    double wtw = 0, suma = 0, hinge = 0;
    for (int t = 0; t < p->npos; t++) {
        if (!y[t]) continue;
        wtw += ah[t] * (G[t] + 1.0);
        suma += ah[t];
        const double h = y[t] * res->rho - G[t];
        if (h > 0) hinge += (y[t] > 0 ? sp->Cp : sp->Cn) * h;
    }
    const double primal = 0.5 * wtw + hinge, dual = suma - 0.5 * wtw;
    rc->dg[i] = primal != 0 ? (primal - dual) / fabs(primal) : 0;
    /* alphas by row: range A's rows first, then range B's */
    for (int t = 0; t < p->npos; t++) {
        const int64_t k = pos_index(b->cl, sp, s->wg, t);
        if (k < 0) continue;
        sp->alpha[k] = ah[t];
        if (sp->g_out) sp->g_out[k] = G[t];
    }
    return GS_OK;
}

/* Every problem's answer (result_one, on threads for large batches); the largest duality gap and
 * the round counts into stats. */
static gs_status batch_results(const gs_solver *s, const batch *b, gs_train_stats *stats)
{
    results_ctx rc = {.s = s, .b = b, .dg = malloc(sizeof(double) * (size_t)(b->np ? b->np : 1))};
    if (!rc.dg) return GS_FAIL(GS_ERR_NOMEM, "out of memory for %d problems' results", b->np);
    const gs_status st = gs_parallel_items(b->np, par_threads(b), result_one, &rc);
    for (int i = 0; i < b->np && st == GS_OK && stats; i++) {
        if (rc.dg[i] > stats->duality_gap) stats->duality_gap = rc.dg[i];
        stats->iterations += b->pr[i].spec->res.iterations;
        stats->inner_steps += b->pr[i].spec->res.inner_steps;
    }
    free(rc.dg);
    return st;
}

/* --verbose's lines of the batch and its share of the per-phase times (t_cert: the
 * certification's wall time, not part of the loop's). */
static void batch_report(const gs_solver *s, const batch *b, double t_cert, gs_train_stats *stats)
{
    double t_sub = 0;
    for (int i = 0; i < b->nth; i++) t_sub += b->cw.t_sub[i];
    gs_log_verbose(s->log, "gpusvm: host per batch of %d problem(s): enqueue %.4f s (and %.4f s on the courier "
                   "thread), blocking read %.4f s, readback absorb + subproblems %.4f s (subproblems %.4f s on %d "
                   "thread(s)), %ld %srounds\n",
                   b->np, b->t_enq, gs_courier_busy(b->cour), b->t_wait, b->t_abs, t_sub, b->nth, b->round,
                   b->split ? "split " : "");
    if (b->cw.sc) {
        double ta = 0, tu = 0, tm = 0, te = 0;
        long ns = 0;
        for (int i = 0; i < b->nth; i++) {
            ta += b->cw.sc[i].t_absorb;
            tu += b->cw.sc[i].t_unpack;
            tm += b->cw.sc[i].t_smo;
            te += b->cw.sc[i].t_emit;
            ns += b->cw.sc[i].solves;
        }
        if (s->dev.profile)
            gs_log_verbose(s->log, "gpusvm: host per batch: %ld subproblems (first parts): readbacks absorbed in "
                           "%.4f s, matrices unpacked %.4f s, SMO %.4f s, changes %.4f s (of the threads' time)\n",
                           ns, ta, tu, tm, te);
        else
            gs_log_verbose(s->log, "gpusvm: host per batch: %ld subproblems (first parts)\n", ns);
    }
    gs_log_verbose(s->log, "gpusvm: host per batch: waiting for the selection's enqueueing %.4f s, the heads' %.4f s; "
                   "round tables and changes %.4f s, final gradients read %.4f s, results %.4f s\n",
                   b->t_seldrain, b->t_heads, b->t_tables, b->t_gread, b->t_results);
    if (b->rlines > 0)
        gs_log_verbose(s->log, "gpusvm: row cache of %d lines: %ld kernel rows computed for %ld new members (%.1f%% "
                       "found)\n", b->rlines, b->n_rows, b->n_members,
                       b->n_members > 0 ? 100.0 * (double)(b->n_members - b->n_rows) / (double)b->n_members : 0.0);
    if (b->rs.nd > 1)
        gs_log_verbose(s->log, "gpusvm: row split: the devices' picks %.4f s (up to their reads), merge %.4f s, "
                       "placing %.4f s\n", b->rs.t_pick, b->rs.t_merge, b->rs.t_place);
    if (s->dev.profile) {
        char line[512];
        int o = snprintf(line, sizeof line, "gpusvm: device seconds per kernel:");
        for (int k = 0; k < K_COUNT_ALL && o > 0 && (size_t)o < sizeof line; k++)
            o += snprintf(line + o, sizeof line - (size_t)o, " %s %.4f", k_names[k], b->per_kernel[k]);
        gs_log_verbose(s->log, "%s\n", line);
    }
    if (!stats) return;
    const double loop = gs_now() - b->t_loop0 - t_cert;
    const double sub_wall = b->nth > 1 ? b->t_abs : t_sub;
    const double *ph = b->ph;
    stats->subproblem += sub_wall;
    if (s->dev.profile) {
        stats->update += ph[PH_UPDATE];
        stats->select += ph[PH_SELECT];
        stats->rows += ph[PH_ROWS];
        stats->transfer += ph[PH_TRANSFER];
        /* split, the phases overlap: the device time that ran during the second parts (the
         * shorter of the two each round) is counted once, in its device phase */
        stats->other += loop - sub_wall - ph[PH_UPDATE] - ph[PH_SELECT] - ph[PH_ROWS] - ph[PH_TRANSFER] + b->t_overlap;
        stats->overlap += b->t_overlap;
    } else {
        stats->transfer += b->t_wait; /* device work and transfers, not separable without profiling */
        stats->other += loop - sub_wall - b->t_wait;
    }
    stats->update_bytes += b->bytes_rows + b->bytes_update;
}

/* Row split (rsplit): the problem's chunks dealt to the devices in position order by the work
 * they carry (a cluster's stored values and its rows), each device's cluster and chunk tables, and
 * the host's buffers. One problem (np == 1); every device gets a chunk or more. */
static gs_status rs_layout(gs_solver *s, batch *b, gs_solver *const *peers, int npeers)
{
    rsplit *rs = &b->rs;
    const gs_clustered *cl = b->cl;
    const gs_binary_spec *sp = b->pr[0].spec;
    const int wg = s->wg, q = s->q, ncp = sp->na + sp->nb, nd = npeers + 1;
    const int nch = (b->pr[0].npos + wg * ITEMS - 1) / (wg * ITEMS);
    rs->nd = nd;
    rs->s[0] = s;
    for (int d = 1; d < nd; d++) rs->s[d] = peers[d - 1];
    for (int d = 0; d < nd; d++) {
        rs->job[d] = (rs_job){.r = &b->rj, .d = d};
        rs->serial |= !(rs->s[d]->ocl->device_type & CL_DEVICE_TYPE_GPU);
    }
    double *w = calloc((size_t)nch, sizeof *w);
    if (!w) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    for (int lc = 0; lc < ncp; lc++) {
        const int c = lc < sp->na ? sp->a0 + lc : sp->b0 + (lc - sp->na);
        double v = (double)(cl->col_off[c + 1] - cl->col_off[c]) * wg + wg;
        if (cl->ell_w[c] > 0)
            v += cl->wide ? (double)(cl->ell_off[(size_t)(c + 1) * wg] - cl->ell_off[(size_t)c * wg])
                          : (double)(cl->ell_off[c + 1] - cl->ell_off[c]);
        w[lc / ITEMS] += v;
    }
    gs_rowsplit_deal(w, nch, nd, rs->ch);
    free(w);
    rs->nvch = 0;
    for (int d = 0; d < nd; d++)
        if (rs->ch[d + 1] - rs->ch[d] > rs->nvch) rs->nvch = rs->ch[d + 1] - rs->ch[d];
    for (int d = 0; d < nd; d++) {
        const int c0 = rs->ch[d] * ITEMS, c1 = rs->ch[d + 1] * ITEMS < ncp ? rs->ch[d + 1] * ITEMS : ncp;
        rs->vc[d] = malloc(sizeof(int) * 2 * (size_t)(c1 - c0 + 1));
        rs->vch[d] = malloc(sizeof(int) * 2 * (size_t)rs->nvch);
        if (!rs->vc[d] || !rs->vch[d]) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
        int n = 0;
        if (d > 0) { rs->vc[d][0] = 0; rs->vc[d][1] = 0; n = 1; } /* cluster 0: the alphas and the state */
        for (int c = c0; c < c1; c++) { rs->vc[d][2 * n] = 0; rs->vc[d][2 * n + 1] = c; n++; }
        rs->nvc[d] = n;
        for (int k = 0; k < rs->nvch; k++) { /* past the slice: a chunk beyond the problem's, empty */
            const int jc = rs->ch[d] + k < rs->ch[d + 1] ? rs->ch[d] + k : nch;
            rs->vch[d][2 * k] = 0;
            rs->vch[d][2 * k + 1] = jc;
        }
    }
    rs->mcand = calloc(2 * (size_t)q, sizeof *rs->mcand);
    rs->sortb = malloc(sizeof *rs->sortb * (size_t)nd * q);
    if (!rs->mcand || !rs->sortb) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    /* the selection over each slice: k_select where the slices are small (RS_ONE_GROUP_MAX), else the
     * chain; either sends its picks (the same sets) */
    const int sel = s->tuning.select;
    b->one_group = sel == GS_SELECT_ONE || (sel == GS_SELECT_AUTO && (int64_t)rs->nvch * wg * ITEMS <= RS_ONE_GROUP_MAX);
    char line[256];
    int o = snprintf(line, sizeof line, "gpusvm: one problem split by rows over %d devices, chunks of %d rows:", nd,
                     wg * ITEMS);
    for (int d = 0; d < nd && o > 0 && (size_t)o < sizeof line; d++)
        o += snprintf(line + o, sizeof line - (size_t)o, " %d", rs->ch[d + 1] - rs->ch[d]);
    gs_log_verbose(s->log, "%s\n", line);
    return GS_OK;
}

/* Row split: one other device's buffers, arguments and starting point (device 0's, which
 * batch_start and warm_start left in b->Gh and b->ahb when a problem starts from a given point);
 * the devices are set up at once, one thread each. */
typedef struct rs_setup_job {
    batch *b;
    int d, warm;
    gs_status st;
    char err[1024];
} rs_setup_job;

static void *rs_setup_one(void *arg)
{
    rs_setup_job *j = arg;
    batch *b = j->b;
    gs_solver *s = b->rs.s[j->d];
    gs_status st = GS_OK;
    double *rb = NULL, *updp = NULL;
    if ((st = batch_upload(s, b, &rb, &updp)) || (st = batch_args(s, b)) ||
        (st = launch(s, NULL, K_INIT, round_up((size_t)b->total, (size_t)s->wg), 1, (size_t)s->wg)))
        goto cleanup;
    if (j->warm) {
        GS_CL_CHECK(clEnqueueWriteBuffer(s->queue, s->d.G.mem, CL_TRUE, 0, (size_t)b->total * sizeof(double), b->Gh, 0,
                                         NULL, NULL));
        GS_CL_CHECK(clEnqueueWriteBuffer(s->queue, s->d.alpha.mem, CL_TRUE, 0, (size_t)b->total * sizeof(double),
                                         b->ahb, 0, NULL, NULL));
    }
cleanup:
    j->st = st;
    if (st != GS_OK) snprintf(j->err, sizeof j->err, "%s", gs_last_error());
    return NULL;
}

static gs_status rs_setup(batch *b)
{
    rs_setup_job jobs[RS_MAX];
    int warm = 0;
    for (int i = 0; i < b->np; i++) warm |= b->pr[i].spec->g_init != NULL;
    const int n = b->rs.nd - 1;
    for (int k = 0; k < n; k++) jobs[k] = (rs_setup_job){.b = b, .d = k + 1, .warm = warm};
    if (b->rs.serial) { /* one device at a time (see rsplit.serial) */
        clFinish(b->rs.s[0]->queue);
        for (int k = 0; k < n; k++) {
            rs_setup_one(&jobs[k]);
            clFinish(b->rs.s[k + 1]->queue);
        }
    } else {
        gs_parallel_run(jobs, sizeof *jobs, n, rs_setup_one);
    }
    for (int k = 0; k < n; k++) /* the first failure, its message re-recorded here */
        if (jobs[k].st != GS_OK) return GS_FAIL(jobs[k].st, "%s", jobs[k].err);
    return GS_OK;
}

/* Row split: the host buffers (the devices' queues are drained by batch_free). */
static void rs_free(rsplit *rs)
{
    for (int d = 0; d < RS_MAX; d++) {
        free(rs->vc[d]);
        free(rs->vch[d]);
        free(rs->vpc[d]);
    }
    free(rs->mcand);
    free(rs->sortb);
}

/* Releases what the batch holds; on an error path (failed) first waits for the queues, whose
 * transfers may still read the host arrays. */
static void batch_free(gs_solver *s, batch *b, int failed)
{
    gs_courier_free(b->cour); /* before anything its jobs use goes */
    b->cour = NULL;
    for (int d = 1; d < b->rs.nd; d++) {
        gs_courier_free(b->rs.cour[d]);
        b->rs.cour[d] = NULL;
    }
    if (failed) {
        clFinish(s->queue);
        clFinish(s->xfer);
        for (int d = 1; d < b->rs.nd; d++) clFinish(b->rs.s[d]->queue);
    }
    if (b->rj.kws_read) clReleaseEvent(b->rj.kws_read);
    crew_stop(b);
    for (int i = 0; i < b->pf.n; i++) clReleaseEvent(b->pf.ev[i]);
    free(b->pr); free(b->ptab); free(b->koff); free(b->ctab); free(b->act); free(b->rt);
    free(b->yb); free(b->ahb); free(b->a0b); free(b->Gh); free(b->wsps); free(b->rowmap); free(b->upds); free(b->subs);
    free(b->ysubs); free(b->vc); free(b->vch); free(b->vpc);
    rs_free(&b->rs);
}

/* Whether the batch's kernel rows go by column (k_rows_col), and if so its layout by column and
 * virtual chunk table: the solver built for it, every value finite (k_rows_col's sums are k_rows'
 * only then), and the copy within a quarter of what the clustered data leaves of the device's
 * memory (batches take at most half: plan_batches). A row split's devices each take their own
 * chunks of it (rs_colchunks). */
static gs_status batch_colrows(const gs_solver *s, batch *b)
{
    gs_status st = GS_OK;
    const gs_clustered *cl = b->cl;
    if (!s->col_rows) return GS_OK;
    if (!b->finite) return GS_OK;
    const double t0 = gs_now();
    const gs_colchunks *pc = NULL;
    if ((st = gs_colchunks_of(cl, s->pcl, &pc)) != GS_OK) {
        if (st == GS_ERR_UNSUPPORTED) { gs_clear_error(); return GS_OK; } /* by row, as before */
        return st;
    }
    const size_t data_b = data_bytes(s, cl), gm = (size_t)s->ocl->global_mem;
    const size_t bytes = (size_t)gs_colchunks_bytes(pc);
    if (data_b >= gm || bytes > (gm - data_b) / 4) return GS_OK;
    b->pc = pc;
    b->vpc = malloc(sizeof *b->vpc * 2 * (size_t)b->nvc_all);
    if (!b->vpc) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
    gs_log_verbose(s->log, "gpusvm: kernel rows by column: %d chunks of %d rows, %lld columns, %lld entries, "
                   "%.1f MB, %.4f s\n", pc->n_chunks, pc->chunk_rows, (long long)pc->n_cols,
                   (long long)pc->n_entries, (double)bytes / 1048576.0, gs_now() - t0);
    return GS_OK;
}

/* Row split by column: each device's virtual chunk table (rs->vpc[d]: round entry 0 and the chunks
 * holding its clusters, chunk_list over its slice; a chunk across two slices' edge is computed on
 * both, each device's positions its own). */
static gs_status rs_colchunks(batch *b)
{
    rsplit *rs = &b->rs;
    const gs_binary_spec *sp = b->pr[0].spec;
    const int ncp = sp->na + sp->nb;
    for (int d = 0; d < rs->nd; d++) {
        const int c0 = rs->ch[d] * ITEMS, c1 = rs->ch[d + 1] * ITEMS < ncp ? rs->ch[d + 1] * ITEMS : ncp;
        rs->vpc[d] = malloc(sizeof(int) * 2 * (size_t)(c1 - c0 + 1));
        if (!rs->vpc[d]) return GS_FAIL(GS_ERR_NOMEM, "out of memory");
        rs->nvpc[d] = chunk_list(sp, b->pc->chunk_clusters, 0, c0, c1, rs->vpc[d]);
    }
    return GS_OK;
}

/* The row cache's lines for a batch (batch.rlines; k_cache in kernels/solver.cl): 0 (the banks
 * alone) unless the batch is one problem on one device, and then, as GPUSVM_ROW_CACHE asks
 * (gs_tuning.row_cache: N lines beyond the banks, 0 none) or by default on a GPU for a problem of
 * GS_ROW_CACHE_MIN positions or more, as many lines as fit a kernel-row buffer of at most the
 * device's largest allocation and half of what the data and the problem's other buffers leave
 * (and within gs_tuning.batch_mb, a lane's share of the device), up to GS_ROW_CACHE_MAX_Q working
 * sets; at least 4q lines (k_cache's pass), else none. The cache
 * changes which rows are computed, never their values: the models are the same. */
static int row_cache_lines(const gs_solver *s, const gs_clustered *cl, const gs_binary_spec *spec, int np, int nbank,
                           int npeers)
{
    const long want = s->tuning.row_cache;
    /* s->row_cache: asked for (want > 0), or by default (want < 0) a GPU's solver; never for 0 */
    if (!s->row_cache || np != 1 || npeers > 0) return 0;
    const size_t q = (size_t)s->q, npos = (size_t)(spec->na + spec->nb) * (size_t)s->wg;
    if (want < 0 && npos < GS_ROW_CACHE_MIN) return 0;
    size_t d1, p1, h1;
    prob_bytes(s, npos, u_cols(s, cl), (size_t)nbank, &d1, &p1, &h1);
    const size_t used = data_bytes(s, cl) + d1, mem = (size_t)s->ocl->global_mem;
    size_t cap = used < mem ? (mem - used) / 2 + (size_t)nbank * q * npos * 4 : 0;
    if (s->ocl->max_alloc && cap > (size_t)s->ocl->max_alloc) cap = (size_t)s->ocl->max_alloc;
    if (s->tuning.batch_mb > 0) { /* a share of the device (gpusvm-grid's lanes): the cache within it */
        const size_t share = (size_t)s->tuning.batch_mb << 20;
        const size_t in_share = (share > d1 ? share - d1 : 0) + (size_t)nbank * q * npos * 4;
        if (cap > in_share) cap = in_share;
    }
    size_t lines = cap / (npos * 4);
    const size_t ask = want > 0 ? (size_t)nbank * q + (size_t)want : GS_ROW_CACHE_MAX_Q * q;
    if (lines > ask) lines = ask;
    if (lines < 4 * q) lines = want > 0 && 4 * q * npos * 4 <= cap ? 4 * q : 0;
    return lines > (size_t)INT32_MAX / 2 ? 0 : (int)lines;
}

/* Solves specs[0..np) (one batch: they fit the device together), in split rounds if split: lays
 * the problems out, uploads, runs the rounds, then computes the answers and (for the problems
 * that ask) the certification's exact gradients. */
static gs_status solve_batch(gs_solver *s, const gs_clustered *cl, const int8_t *ysign, gs_binary_spec *specs,
                             int np, int split, gs_solver *const *peers, int npeers, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    batch b;
    memset(&b, 0, sizeof b);
    atomic_init(&b.cw.next, 0);
    b.cl = cl;
    b.np = np;
    b.split = split;
    b.nbank = split ? 2 : 1;
    b.rlines = row_cache_lines(s, cl, specs, np, b.nbank, npeers);
    double ts[6]; /* --verbose: the set-up's steps */
    ts[0] = gs_now();
    if ((st = batch_layout(s, &b, ysign, specs)) || (npeers > 0 && (st = rs_layout(s, &b, peers, npeers))) ||
        (st = batch_colrows(s, &b)) || (b.pc && npeers > 0 && (st = rs_colchunks(&b))))
        goto cleanup;
    ts[1] = gs_now();
    if ((st = batch_upload(s, &b, &b.rb, &b.updp))) goto cleanup;
    ts[2] = gs_now();
    if ((st = batch_args(s, &b))) goto cleanup;
    ts[3] = gs_now();
    if ((st = batch_start(s, &b)) || (npeers > 0 && (st = rs_setup(&b)))) goto cleanup;
    ts[4] = gs_now();
    if ((st = crew_start(s, &b))) goto cleanup;
    b.t_loop0 = ts[5] = gs_now();
    const double t_setup0 = ts[0];
    gs_log_verbose(s->log, "gpusvm: batch of %d problem(s), %lld positions, set up: layout %.4f s, upload %.4f s%s, "
                   "arguments %.4f s, start %.4f s, crew %.4f s; pinned memory %.1f MB in %.4f s\n", np,
                   (long long)b.total, ts[1] - ts[0], ts[2] - ts[1], b.data_kept ? " (the data already there)" : "",
                   ts[3] - ts[2], ts[4] - ts[3], ts[5] - ts[4],
                   (double)(s->pin[0].cap + s->pin[1].cap) / 1048576.0, b.t_pinned);
    if (stats) stats->setup += b.t_loop0 - t_setup0;
    if (stats && stats->t_on_device == 0) stats->t_on_device = b.t_loop0;
    if ((st = batch_rounds(s, &b))) goto cleanup;
    b.t_results = gs_now();
    if ((st = batch_results(s, &b, stats))) goto cleanup;
    b.t_results = gs_now() - b.t_results;
    /* the certification's exact gradients, for the problems that ask for them (spec->g_exact) */
    double t_cert = gs_now();
    if ((st = certify_batch(s, b.rs.nd > 1 ? &b.rs : NULL, cl, b.pc, b.pr, np, (size_t)b.total,
                            b.Gh, b.ahb, &b.pf, b.ph, b.per_kernel)))
        goto cleanup;
    t_cert = gs_now() - t_cert;
    if (stats) stats->certify += t_cert;
    batch_report(s, &b, t_cert, stats);
cleanup:
    batch_free(s, &b, st != GS_OK);
    return st;
}

double gs_solver_float_error(const gs_param *param, const gs_clustered *cl, int32_t max_row_nnz)
{
    if (param->kernel_type == GS_KERNEL_LINEAR) return 0; /* K's relative error is the sum's: no gain */
    if (param->kernel_type == GS_KERNEL_PRECOMPUTED) return 0; /* K is read, not summed */
    double n2 = 0;
    for (int32_t t = 0; t < cl->n_pos; t++)
        if (isfinite(cl->norm2[t]) && cl->norm2[t] > n2) n2 = cl->norm2[t];
    return fabs(param->gamma) * n2 * sqrt((double)max_row_nnz) * ldexp(1.0, -24);
}

/* The budgets of a batch on s (what gs_solver_batch decides before solving): the round form
 * (*split), the device, pinned and host bytes a batch may take, and the clustered data's device
 * bytes (*data_b). Refuses, with the figures, data and a largest problem that cannot fit. */
typedef struct batch_plan {
    int split;
    size_t dev_cap, pin_cap, host_cap, data_b;
} batch_plan;

static gs_status plan_batches(const gs_solver *s, const gs_clustered *cl, const gs_binary_spec *specs, int nspec,
                              int whole, batch_plan *plan)
{
    if (cl->wide != s->wide)
        return GS_FAIL(GS_ERR_INTERNAL, "solver built for %s data given %s data", s->wide ? "wide" : "narrow",
                       cl->wide ? "wide" : "narrow");
    /* batches: as many problems as fit a share of the device memory (the kernel rows are one
     * buffer, so also the largest allocation), of pinned memory and of host memory */
    const size_t ucols = u_cols(s, cl);
    /* Before any work: the clustered data and the largest problem alone must fit the device (its
     * memory, or --device-memory), and each buffer its largest allocation; otherwise stop with the
     * figures, never a bare CL_INVALID_BUFFER_SIZE or an out-of-memory kill later. */
    const int ncl = cl->n_clusters;
    const size_t wg = (size_t)s->wg, q = (size_t)s->q, ncols = (size_t)cl->col_off[ncl];
    const size_t nell = (size_t)cl->ell_nnz;
    const size_t data_b = data_bytes(s, cl);
    size_t big_b = 0, big_npos = 0;
    for (int k = 0; k < nspec; k++) {
        size_t d1, p1, h1;
        const size_t npos = (size_t)(specs[k].na + specs[k].nb) * wg;
        prob_bytes(s, npos, ucols, 1, &d1, &p1, &h1);
        if (d1 > big_b) { big_b = d1; big_npos = npos; }
    }
    {
        const size_t avail = (size_t)s->ocl->global_mem, amax = (size_t)s->ocl->max_alloc;
        const size_t largest[4] = {ncols * wg * 4, nell * 8, ucols * q * 4, q * big_npos * 4};
        size_t lbuf = 0;
        for (int k = 0; k < 4; k++) if (largest[k] > lbuf) lbuf = largest[k];
        if (data_b + big_b > avail || (amax && lbuf > amax)) {
            char mem[384];
            gs_ocl_describe_memory(s->ocl, mem, sizeof mem);
            return GS_FAIL(GS_ERR_NOMEM, "not enough device memory: training needs %zu bytes (%zu for the clustered "
                           "data, %zu for the working set of its largest problem; largest buffer %zu bytes); %s",
                           data_b + big_b, data_b, big_b, lbuf, mem);
        }
    }
    size_t dev_cap = (size_t)s->ocl->global_mem / 3;
    if (s->ocl->max_alloc && dev_cap > (size_t)s->ocl->max_alloc) dev_cap = (size_t)s->ocl->max_alloc;
    /* and at most 4 GiB: on an H100, NVIDIA's OpenCL lost the queue (CL_INVALID_COMMAND_QUEUE at the
     * first clFinish) with sector's batches of 10-18 GB, whose working-set block U exceeded 4 GiB, and
     * ran them all in 4 GB batches; the cause was not isolated (a lone problem larger than this still
     * gets a batch of its own) */
    if (dev_cap > ((size_t)4 << 30) - ((size_t)64 << 20)) dev_cap = ((size_t)4 << 30) - ((size_t)64 << 20);
    size_t pin_cap = (size_t)512 << 20, host_cap = (size_t)1 << 30;
    if (s->tuning.batch_mb > 0) { /* a smaller budget, e.g. to test several batches */
        const size_t cap = (size_t)s->tuning.batch_mb << 20;
        if (cap < dev_cap) dev_cap = cap;
        if (cap < pin_cap) pin_cap = cap;
        if (cap < host_cap) host_cap = cap;
    }
    /* split rounds: forced, or for a lone problem (two-class training; alone on every device too)
     * whose second bank of kernel rows fits too */
    int split = s->split == 1;
    int nu = 0;
    for (int i = 0; i < nspec; i++) nu |= specs[i].nu_rule != 0;
    if (nu) split = 0; /* the nu rule's stopping test counts on each round's changes being whole */
    else if (s->split < 0 && nspec == 1 && whole <= 1) {
        size_t d2, p2, h2;
        /* with the block U the narrow layout would need, whatever the data: the split choice (and
         * so the model) does not depend on the layout */
        prob_bytes(s, (size_t)(specs[0].na + specs[0].nb) * s->wg, (size_t)cl->n_ucols + 1, 2, &d2, &p2, &h2);
        split = d2 <= dev_cap && p2 <= pin_cap && h2 <= host_cap && data_b + d2 <= (size_t)s->ocl->global_mem;
    }
    /* Batches of several problems (the choice of split above stays the device's, so models do not
     * depend on these caps): what the data leaves of the device's memory, and on a CPU device,
     * whose device memory is the host's, about what the data itself takes (16 MiB at least, 4 for wide data), so
     * memory grows with the data and the working set, not with the number of problems times the
     * columns (news20.t's 78-problem batches took 2.5 GB of U). */
    if (dev_cap > ((size_t)s->ocl->global_mem - data_b) / 2) dev_cap = ((size_t)s->ocl->global_mem - data_b) / 2;
    if (!(s->ocl->device_type & CL_DEVICE_TYPE_GPU)) {
        /* wide data's problems are small without their blocks U: 4 MiB of them kept the 500-row
         * news20.t subset of test_memory.sh within 3x LIBSVM's peak (16 MiB did not) */
        const size_t floor_b = (size_t)(s->wide ? 4 : 16) << 20;
        const size_t host_share = data_b > floor_b ? data_b : floor_b;
        if (dev_cap > host_share) dev_cap = host_share;
    }
    *plan = (batch_plan){.split = split, .dev_cap = dev_cap, .pin_cap = pin_cap, .host_cap = host_cap,
                         .data_b = data_b};
    return GS_OK;
}

gs_status gs_solver_batch(gs_solver *s, const gs_clustered *cl, const int8_t *ysign, gs_binary_spec *specs,
                          int nspec, int whole, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    if (nspec <= 0) return GS_OK;
    batch_plan pl;
    if ((st = plan_batches(s, cl, specs, nspec, whole, &pl))) return st;
    const size_t ucols = u_cols(s, cl), nbank = pl.split ? 2 : 1;
    const size_t dev_cap = pl.dev_cap, pin_cap = pl.pin_cap, host_cap = pl.host_cap;
    const int split = pl.split;
    int i = 0, nbatch = 0;
    while (i < nspec) {
        size_t db = 0, pb = 0, hb = 0;
        int j = i;
        while (j < nspec) {
            size_t d1, p1, h1;
            prob_bytes(s, (size_t)(specs[j].na + specs[j].nb) * s->wg, ucols, nbank, &d1, &p1, &h1);
            if (j > i && (db + d1 > dev_cap || pb + p1 > pin_cap || hb + h1 > host_cap)) break;
            db += d1; pb += p1; hb += h1;
            j++;
        }
        if ((st = solve_batch(s, cl, ysign, specs + i, j - i, split, NULL, 0, stats))) return st;
        nbatch++;
        i = j;
    }
    if (nbatch > 1) gs_log_verbose(s->log, "gpusvm: %d problems in %d batches\n", nspec, nbatch);
    return GS_OK;
}

gs_status gs_solver_batch_rows(gs_solver *const *ss, int nd, const gs_clustered *cl, const int8_t *ysign,
                               gs_binary_spec *spec, gs_train_stats *stats)
{
    gs_status st = GS_OK;
    gs_solver *s = ss[0];
    batch_plan pl;
    if ((st = plan_batches(s, cl, spec, 1, 1, &pl))) return st;
    const size_t npos = (size_t)(spec->na + spec->nb) * s->wg, chunk = (size_t)s->wg * ITEMS;
    size_t d2, p2, h2;
    prob_bytes(s, npos, u_cols(s, cl), pl.split ? 2 : 1, &d2, &p2, &h2);
    /* a chunk for each device, and on each device the same program and room for the data and the
     * problem (either round form: only device 0 computes the set's matrix, k_gram) */
    int ok = nd > 1 && nd <= RS_MAX && (npos + chunk - 1) / chunk >= (size_t)nd;
    for (int d = 0; d < nd && ok; d++) {
        const gs_solver *t = ss[d];
        ok = t->multi_sel && t->wide == s->wide && t->q == s->q && t->keep == s->keep && t->wg == s->wg &&
             pl.data_b + d2 <= (size_t)t->ocl->global_mem && (!t->ocl->max_alloc || d2 <= (size_t)t->ocl->max_alloc);
    }
    if (!ok) return gs_solver_batch(s, cl, ysign, spec, 1, 1, stats);
    return solve_batch(s, cl, ysign, spec, 1, pl.split, ss + 1, nd - 1, stats);
}
