/* solver.cl — device side of the GTSVM working-set solver (binary C-SVC), for a batch of binary
 * problems that share one clustered data set (one problem for a two-class set; every one-vs-one pair
 * of a multiclass set, each over its two classes' clusters), all advanced by the same launches.
 *
 * Problem p (ptab[p], kernels/abi.h gs_abi_problem): clusters [a0, a0+na) then [b0, b0+nb) of the shared layout, local
 * positions t in [0, npos) = cluster t / WG of that list, row t % WG; its per-position arrays (y, G,
 * alpha, in_ws, slot_of) start at pos_off, its kernel rows at koff[p], its working-set vectors at
 * p * uq in U, and its small per-round arrays at p * (their size). Padding rows have y = 0 and never
 * enter a working set. A round's active problems are listed in rt (gs_abi_round);
 * element-wise kernels run over virtual clusters vc[] = (active index, local cluster) or virtual
 * chunks vch[] = (active index, local chunk of WG*ITEMS positions), per-problem reductions over one
 * work-group per active problem. Per round the host enqueues:
 *   k_update  : G_t += y_t * sum_u coef_u * K[row_u][t]  (coef_u = y_u * dalpha_u), alpha writes
 *   k_hist/k_pick x3 : radix select (11/11/10 bits) of the top-k heuristic keys of two lists:
 *                      list 0 "up"  = -y G over I_up, list 1 "low" = y G over I_low (SVM-light's
 *                      rule), excluding the rows kept in the working set; round 0 also reduces the
 *                      maximal violating pair gap over every row
 *   k_count/k_scan/k_write : ordered compaction of the selected rows (index order, deterministic)
 *   k_merge   : puts the picks into the evicted ring slots of the working set
 *   (or, for problems of at most ONE_GROUP_MAX positions (src/train/solver.c): k_hist round 0, which
 *   also stores every row's keys, then k_select, one work-group per problem doing the remaining
 *   picks, the compaction and the merge over the stored keys: the same working sets)
 *   k_gather_u: copies the new working-set vectors into the dense block U[col][w]
 *   k_gram    : the new vectors' kernel values against the set's members (the set's matrix entries
 *               the new rows would give, the same values)
 *   k_readback: gap, slot positions, G of the set and the set's kernel matrix -> one buffer
 *   k_heads   : (split rounds) the same heads, the second part's changes added to the set's G
 *   k_rows    : after the read: kernel rows K[ws_row[slot]][t] for the new slots over every row
 *               (Algorithm 1's staging), needed from the next round's k_update on
 * The host reads the buffer, solves the subproblems (while k_rows runs) and starts the next round.
 * One problem split by rows over several devices (src/train/solver.c, rsplit): each device runs
 * k_update, k_rows and the selection over its slice only; k_select (over positions [t_lo, t_hi),
 * cand_out) or the chain and k_cand_keys send the slice's picks and their keys to the host, which
 * merges them and writes them back for k_merge (renew: kept slots' rows computed again, so that
 * k_gram, on device 0, gives every window entry of the set's matrix).
 * Split rounds (src/train/solver.c): the host sends the first part of a subproblem's changes, the device
 * updates and selects the next set and sends its kernel matrix while the host finishes the
 * subproblem; then k_heads reads the set's gradients with the rest of the changes added, and the
 * second k_update applies them to every row after that read, off the round's critical path.
 *
 * Kernel rows: slot s of problem p has its row at K[koff[p] + ws_row[p*q + s] * npos]. With one
 * bank ws_row[s] = s; with two (q + q rows) a slot that gets a new member switches bank, so the
 * previous member's row survives until the second update, which still needs it (update records
 * carry kernel rows, not slots).
 *
 * Tunables (-D): WG (cluster size = work-group size), KTYPE (0 linear, 1 poly, 2 rbf, 3 sigmoid,
 * 4 precomputed: the rows are the kernel matrix's, K read from them, see gs_pre_serial),
 * WCH (working-set vectors per register block), CCH (columns of a row loaded at once in k_rows),
 * ITEMS (elements per work-item in the compaction kernels), QMAX / MWG (k_merge and k_select: a
 * multiple of MWG >= q, and their work-group; the host builds with MWG 256). */
/* The program in parts (-DGS_PART=k, 1 <= k <= GS_SOLVER_PARTS in abi.h): part k holds the
 * kernels marked GS_IN_PART(k) and the static helpers they call, so that the parts can be built
 * at once by separate processes (src/device/ocl.h gs_ocl_build_parts); without GS_PART, or 0, the
 * whole program. The four parts take about as long each to compile (clang's PTX of a9a's options:
 * 2,326, 2,649, 1,945 and 2,608 lines; scripts/ptx-size.sh). */
#ifndef GS_PART
#define GS_PART 0
#endif
#define GS_IN_PART(k) (GS_PART == 0 || GS_PART == (k))
#ifndef WG
#define WG 256
#endif
#ifndef KTYPE
#define KTYPE 2
#endif
#ifndef WCH
#define WCH 16
#endif
#ifndef CCH
#define CCH 16
#endif
/* CERT_CB: k_cert's SVs a pass over a row-wise cluster's row (a multiple of WCH; the host builds
 * with 64 on a GPU for mostly row-wise data: each of a row's values then serves 64 SVs, not WCH) */
#ifndef CERT_CB
#define CERT_CB WCH
#endif
#ifndef ITEMS
#define ITEMS 8
#endif
#define NBINS 2048
#define EXCLUDED 0u

/* The problem table (ptab: gs_abi_problem), the round table (rt: gs_abi_round, sent at the head of
 * the update buffer, so rt and upd are one transfer a round) and the certification table (ctab:
 * gs_abi_cert) are kernels/abi.h's, shared with src/train/solver.c. */

#if KTYPE == 4
/* -t 4 (src/data/precomputed.h): each row is stored by position, column 0 holding its serial number
 * ID, so the kernel row of working-set row u at row t, K(u, t) = x_u[ID_t] (LIBSVM's Q row of u),
 * is column ID_t of u's vector in U. The ID of the row at (cluster c, lane t); 0 for padding. */
inline int gs_pre_serial(__global const long *col_off, __global const float *vals, int c, int t)
{
    return (int)vals[col_off[c] * WG + t];
}
#endif

/* Global cluster of problem p's local cluster c. */
inline int gcl(__global const gs_abi_problem *pt, int c)
{
    return c < pt->na ? pt->a0 + c : pt->b0 + (c - pt->na);
}

/* Global position of local position t. */
inline int gpos(__global const gs_abi_problem *pt, int t)
{
    return gcl(pt, t / WG) * WG + t % WG;
}

/* Orderable unsigned image of a float: larger float -> larger uint; 0 is never produced for a
 * finite value, so it marks "not eligible". */
inline uint key_of(float f)
{
    uint u = as_uint(f);
    uint k = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return k == 0u ? 1u : k;
}

/* Heuristic keys of row t for both lists; up_v and low_v receive the violation values (or -INF).
 * The arrays are the problem's (offset by pos_off); Cp / Cn bound the +1 / -1 rows; sel (gs_abi_round.sel)
 * leaves out the rows of the other sign. */
inline void row_keys(int t, __global const char *y, __global const double *G,
                     __global const double *alpha, double Cp, double Cn, int sel,
                     __global const uchar *in_ws, uint *k_up, uint *k_low, double *up_v, double *low_v)
{
    const int yt = y[t];
    *k_up = EXCLUDED; *k_low = EXCLUDED;
    *up_v = -INFINITY; *low_v = -INFINITY;
    if (yt == 0 || (sel != 0 && yt != sel)) return;
    const double a = alpha[t], c = yt > 0 ? Cp : Cn, g = G[t];
    const int up = (yt > 0) ? (a < c) : (a > 0.0);
    const int low = (yt > 0) ? (a > 0.0) : (a < c);
    const double yg = yt > 0 ? g : -g;
    if (up) *up_v = -yg;
    if (low) *low_v = yg;
    if (in_ws[t]) return;
    if (up) *k_up = key_of((float)(-yg));
    if (low) *k_low = key_of((float)yg);
}

/* Counting into a local histogram with one pending (bin, count) per list and work-item: a run of
 * keys in one bin costs one atomic add, not one each (early rounds, when most rows' gradients are
 * still equal, would otherwise serialise on a single bin). */
typedef struct run { uint bin, n; } run;
inline void run_add(__local uint *h, run *r, uint bin)
{
    if (r->n > 0 && r->bin == bin) { r->n++; return; }
    if (r->n > 0) atomic_add(&h[r->bin], r->n);
    r->bin = bin;
    r->n = 1;
}
inline void run_flush(__local uint *h, run *r)
{
    if (r->n > 0) atomic_add(&h[r->bin], r->n);
    r->n = 0;
}

/* Starts every problem of the batch: G = -1 on rows, alpha 0, nothing in a working set. One
 * work-item per position of the concatenated per-problem arrays. */
#if GS_IN_PART(4)
__kernel void k_init(__global double *G, __global double *alpha, __global uchar *in_ws,
                     __global int *slot_of, __global const char *y, int total)
{
    int t = get_global_id(0);
    if (t >= total) return;
    G[t] = y[t] ? -1.0 : 0.0;
    alpha[t] = 0.0;
    in_ws[t] = 0;
    slot_of[t] = -1;
}
#endif

/* USPLIT work-groups per virtual cluster, each for WG / USPLIT of its rows: work-item (row, slice)
 * sums the updates slice, slice + USPLIT, ... for its row, and the slices' partial sums are added
 * in slice order (deterministic). Splitting the update list gives the device USPLIT times as many
 * threads as rows, which a set of a few ten thousand rows needs to keep its loads in flight.
 * upd (doubles, per problem from its round entry's uoff, nupd entries each, nupd <= q): [coef = y*dalpha][new
 * alpha][kernel row of the slot (see ws_row)][position]. The problem's local cluster 0 (first
 * group) also stores the new alphas and resets the selection state for this round (k_up and k_low
 * rows wanted). */
#ifndef USPLIT
#define USPLIT 4
#endif
#define UROWS (WG / USPLIT)
#define UB 8 /* update records whose kernel values are loaded together */

/* A problem's update records' coefficients and kernel rows into local memory (lc, lr: QMAX each),
 * by the whole work-group of n work-items (it has a barrier). */
inline void upd_stage(__global const double *u, int nupd, __local double *lc, __local int *lr, int lid, int n)
{
    for (int i = lid; i < nupd; i += n) { lc[i] = u[i]; lr[i] = (int)u[2 * nupd + i]; }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Sum over the records slice, slice + USPLIT, ... (in that order) of coef * K(row, t); the kernel
 * values of UB records are loaded before any is added (one memory latency per UB records). */
inline double upd_sum(__local const double *lc, __local const int *lr, int nupd, int slice,
                      __global const float *K, int npos, int t)
{
    double acc = 0.0;
    int i = slice;
    for (; i + (UB - 1) * USPLIT < nupd; i += UB * USPLIT) {
        float kv[UB];
        for (int k = 0; k < UB; k++) kv[k] = K[(long)lr[i + k * USPLIT] * npos + t];
        for (int k = 0; k < UB; k++) acc += lc[i + k * USPLIT] * (double)kv[k];
    }
    for (; i < nupd; i += USPLIT) acc += lc[i] * (double)K[(long)lr[i] * npos + t];
    return acc;
}

#if GS_IN_PART(4)
__kernel void k_update(__global double *G, __global double *alpha, __global const char *y,
                       __global const float *K, __global const long *koff, __global const double *upd,
                       __global const gs_abi_round *rt, __global const gs_abi_problem *ptab, __global const int *vc,
                       __global uint *state)
{
    __local double part[WG];
    __local double lc[QMAX];
    __local int lr[QMAX];
    const int g = get_group_id(0), lid = get_local_id(0);
    const int v = g / USPLIT, sub = g % USPLIT;
    __global const gs_abi_round *r = rt + vc[2 * v];
    const int c = vc[2 * v + 1], pid = r->pid, nupd = r->nupd;
    __global const gs_abi_problem *pt = ptab + pid;
    const int npos = pt->npos, poff = pt->poff;
    __global const double *u = upd + r->uoff;
    G += poff; alpha += poff; y += poff;
    K += koff[pid];
    if (c == 0 && sub == 0) {
        for (int i = lid; i < nupd; i += WG) alpha[(int)u[3 * nupd + i]] = u[nupd + i];
        if (lid == 0) {
            __global uint *st = state + 8 * pid;
            st[0] = 0; st[1] = 0; st[2] = (uint)r->k_up; st[3] = 0;
            st[4] = 0; st[5] = 0; st[6] = (uint)r->k_low; st[7] = 0;
        }
    }
    upd_stage(u, nupd, lc, lr, lid, WG);
    const int row = lid % UROWS, slice = lid / UROWS;
    const int t = c * WG + sub * UROWS + row;
    part[lid] = y[t] != 0 ? upd_sum(lc, lr, nupd, slice, K, npos, t) : 0.0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (slice == 0 && y[t] != 0) {
        double sum = part[row];
        for (int k = 1; k < USPLIT; k++) sum += part[k * UROWS + row];
        G[t] += y[t] > 0 ? sum : -sum;
    }
}
#endif

/* HSPLIT work-groups per virtual chunk, each for ITEMS / HSPLIT of its work-items' positions (more
 * work-groups keep more loads in flight). state[pid*8 + L*4 + 0..3] = prefix, mask, k remaining, k
 * taken in all (per list L); hist[pid * 2 * NBINS ..]; gmax[2 * (chunk * HSPLIT + part) ..] (round 0). */
#ifndef HSPLIT
#define HSPLIT 1
#endif
/* GS_MULTI_SEL 0: the multi-kernel selection's own kernels (k_pick, k_count, k_scan, k_write,
 * k_merge) are left out, for a solver whose problems all take k_select (ONE_GROUP_MAX): a program
 * that builds in less time (src/train/solver.c). */
#ifndef GS_MULTI_SEL
#define GS_MULTI_SEL 1
#endif
#if GS_IN_PART(3)
__kernel void k_hist(__global const char *y, __global const double *G,
                     __global const double *alpha, __global const double *ctab,
                     __global const uchar *in_ws, __global const uint *state,
                     __global uint *hist, __global double *gmax, int round,
                     __global const gs_abi_round *rt, __global const gs_abi_problem *ptab, __global const int *vch,
                     __global uint2 *keys, int store_keys)
{
    __local uint lh[2 * NBINS];
    __local double lmax[2 * WG];
    const int gid = get_group_id(0), lid = get_local_id(0);
    const int v = gid / HSPLIT, i0 = gid % HSPLIT * (ITEMS / HSPLIT);
    const int pid = rt[vch[2 * v]].pid, j = vch[2 * v + 1], sel = rt[vch[2 * v]].sel;
    __global const gs_abi_problem *pt = ptab + pid;
    const int npos = pt->npos, poff = pt->poff;
    const double Cp = ctab[2 * pid], Cn = ctab[2 * pid + 1];
    y += poff; G += poff; alpha += poff; in_ws += poff; keys += poff;
    state += 8 * pid;
    hist += 2 * NBINS * pid;
    for (int i = lid; i < 2 * NBINS; i += WG) lh[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int shift = round == 0 ? 21 : (round == 1 ? 10 : 0);
    const uint dmask = round == 2 ? 0x3FFu : 0x7FFu;
    const uint p0 = state[0], m0 = state[1], p1 = state[4], m1 = state[5];
    double mu = -INFINITY, ml = -INFINITY;
    const int end = min(npos, (j + 1) * WG * ITEMS);
    /* every key of the work-item first (its loads all in flight together), then the counting */
    uint ku[ITEMS / HSPLIT], kl[ITEMS / HSPLIT];
    for (int i = 0; i < ITEMS / HSPLIT; i++) {
        const int t = j * WG * ITEMS + lid + (i0 + i) * WG;
        double vu = -INFINITY, vl = -INFINITY;
        ku[i] = EXCLUDED;
        kl[i] = EXCLUDED;
        if (t < end) row_keys(t, y, G, alpha, Cp, Cn, sel, in_ws, &ku[i], &kl[i], &vu, &vl);
        mu = fmax(mu, vu);
        ml = fmax(ml, vl);
    }
    run ru = {0u, 0u}, rl = {0u, 0u};
    for (int i = 0; i < ITEMS / HSPLIT; i++) {
        const int t = j * WG * ITEMS + lid + (i0 + i) * WG;
        if (store_keys && t < end) keys[t] = (uint2)(ku[i], kl[i]);
        if (ku[i] != EXCLUDED && (ku[i] & m0) == p0) run_add(lh, &ru, (ku[i] >> shift) & dmask);
        if (kl[i] != EXCLUDED && (kl[i] & m1) == p1) run_add(lh, &rl, NBINS + ((kl[i] >> shift) & dmask));
    }
    run_flush(lh, &ru);
    run_flush(lh, &rl);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < 2 * NBINS; i += WG)
        if (lh[i]) atomic_add(&hist[i], lh[i]);
    if (round == 0) {
        lmax[lid] = mu;
        lmax[WG + lid] = ml;
        barrier(CLK_LOCAL_MEM_FENCE);
        #pragma unroll 1
        for (int s = WG / 2; s > 0; s >>= 1) {
            if (lid < s) {
                lmax[lid] = fmax(lmax[lid], lmax[lid + s]);
                lmax[WG + lid] = fmax(lmax[WG + lid], lmax[WG + lid + s]);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            gmax[2 * gid] = lmax[0];
            gmax[2 * gid + 1] = lmax[WG];
        }
    }
}
#endif

/* The problem's maximal violating pair parts: the maxima of its nch gmax entries (from ch0) into
 * gap[2 pid ..], by a work-group of n work-items with lm (2 n doubles of local memory). */
static void gap_reduce(__global const double *gmax, __global double *gap, int ch0, int nch, int pid,
                __local double *lm, int lid, int n)
{
    double a = -INFINITY, b = -INFINITY;
    for (int g = lid; g < nch; g += n) { a = fmax(a, gmax[2 * (ch0 + g)]); b = fmax(b, gmax[2 * (ch0 + g) + 1]); }
    lm[lid] = a;
    lm[n + lid] = b;
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll 1
    for (int s = n / 2; s > 0; s >>= 1) {
        if (lid < s) { lm[lid] = fmax(lm[lid], lm[lid + s]); lm[n + lid] = fmax(lm[n + lid], lm[n + lid + s]); }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) { gap[2 * pid] = lm[0]; gap[2 * pid + 1] = lm[n]; }
}

/* One work-group of WG per active problem: finds the digit holding the k-th largest key of each
 * list; round 0 also reduces the problem's chunks' maxima to its gap[2 * pid ..]. */
#if GS_MULTI_SEL
#if GS_IN_PART(1)
__kernel void k_pick(__global uint *state, __global uint *hist, __global const double *gmax,
                     __global double *gap, int round, __global const gs_abi_round *rt)
{
    __local uint h[NBINS];
    __local uint part[WG];
    __local double lm[2 * WG];
    const int lid = get_local_id(0);
    __global const gs_abi_round *r = rt + get_group_id(0);
    const int pid = r->pid, ch0 = r->ch0, nch = r->nch;
    state += 8 * pid;
    hist += 2 * NBINS * pid;
    const int shift = round == 0 ? 21 : (round == 1 ? 10 : 0);
    const uint dmask = round == 2 ? 0x3FFu : 0x7FFu;
    const int per = NBINS / WG;
    #pragma unroll 1
    for (int L = 0; L < 2; L++) {
        for (int i = lid; i < NBINS; i += WG) { h[i] = hist[L * NBINS + i]; hist[L * NBINS + i] = 0; }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* work-item lid owns bins NBINS-1-(lid*per) down to NBINS-per-(lid*per): from the top */
        uint s = 0;
        for (int i = 0; i < per; i++) s += h[NBINS - 1 - (lid * per + i)];
        part[lid] = s;
        gs_scan_u(part, lid, WG);
        uint need = state[L * 4 + 2];
        if (round == 0) {
            const uint total = part[WG - 1];
            if (need > total) need = total;
            if (lid == 0) state[L * 4 + 3] = need;
        }
        const uint above = lid ? part[lid - 1] : 0u;
        if (need > 0 && above < need && need <= part[lid]) {
            uint cum = above;
            for (int i = 0; i < per; i++) {
                const int b = NBINS - 1 - (lid * per + i);
                if (cum + h[b] >= need) {
                    state[L * 4 + 0] |= ((uint)b & dmask) << shift;
                    state[L * 4 + 1] |= dmask << shift;
                    state[L * 4 + 2] = need - cum;
                    break;
                }
                cum += h[b];
            }
        }
        if (need == 0 && lid == 0) { /* nothing to take: a threshold no key reaches */
            state[L * 4 + 0] = 0xFFFFFFFFu;
            state[L * 4 + 1] = 0xFFFFFFFFu;
            state[L * 4 + 2] = 0u;
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    }
    if (round == 0) gap_reduce(gmax, gap, ch0 * HSPLIT, nch * HSPLIT, pid, lm, lid, WG);
}
#endif
#endif

/* Counts this work-item's ITEMS rows from base whose keys are above / equal to the thresholds:
 * c[0], c[1] for list 0 ("up"), c[2], c[3] for list 1 ("low"). */
inline void count_items(int base, int npos, __global const char *y, __global const double *G,
                        __global const double *alpha, double Cp, double Cn, int sel,
                        __global const uchar *in_ws, uint T0, uint T1, uint *c)
{
    c[0] = c[1] = c[2] = c[3] = 0;
    for (int i = 0; i < ITEMS; i++) {
        const int t = base + i;
        if (t >= npos) break;
        uint ku, kl;
        double vu, vl;
        row_keys(t, y, G, alpha, Cp, Cn, sel, in_ws, &ku, &kl, &vu, &vl);
        if (ku != EXCLUDED) { c[0] += ku > T0; c[1] += ku == T0; }
        if (kl != EXCLUDED) { c[2] += kl > T1; c[3] += kl == T1; }
    }
}

/* Per virtual chunk: how many keys are above the threshold and equal to it (per list). */
#if GS_MULTI_SEL
#if GS_IN_PART(3)
__kernel void k_count(__global const char *y, __global const double *G,
                      __global const double *alpha, __global const double *ctab,
                      __global const uchar *in_ws, __global const uint *state,
                      __global uint *gcnt, __global const gs_abi_round *rt, __global const gs_abi_problem *ptab,
                      __global const int *vch)
{
    __local uint red[4 * WG];
    const int v = get_group_id(0), lid = get_local_id(0);
    const int pid = rt[vch[2 * v]].pid, j = vch[2 * v + 1], sel = rt[vch[2 * v]].sel;
    __global const gs_abi_problem *pt = ptab + pid;
    const int npos = pt->npos, poff = pt->poff;
    y += poff; G += poff; alpha += poff; in_ws += poff;
    state += 8 * pid;
    const int base = j * WG * ITEMS + lid * ITEMS;
    uint c[4];
    count_items(base, npos, y, G, alpha, ctab[2 * pid], ctab[2 * pid + 1], sel, in_ws, state[0], state[4], c);
    for (int k = 0; k < 4; k++) red[k * WG + lid] = c[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll 1
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            for (int k = 0; k < 4; k++) red[k * WG + lid] += red[k * WG + lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < 4) gcnt[v * 4 + lid] = red[lid * WG];
}
#endif
#endif

/* Inclusive scan over a work-group of n of four counters held as part[j*n + lid]. */
inline void scan4(__local uint *part, int lid, int n)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll 1
    for (int off = 1; off < n; off <<= 1) {
        uint v[4];
        for (int j = 0; j < 4; j++) v[j] = lid >= off ? part[j * n + lid - off] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < 4; j++) part[j * n + lid] += v[j];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* One work-group per active problem: exclusive prefix sums of gcnt over its chunks, in place. */
#if GS_MULTI_SEL
#if GS_IN_PART(3)
__kernel void k_scan(__global uint *gcnt, __global const gs_abi_round *rt)
{
    __local uint part[4 * WG];
    const int lid = get_local_id(0);
    __global const gs_abi_round *r = rt + get_group_id(0);
    const int nchunks = r->nch;
    gcnt += 4 * r->ch0;
    const int per = (nchunks + WG - 1) / WG;
    const int b = lid * per;
    for (int j = 0; j < 4; j++) {
        uint s = 0;
        for (int g = b; g < b + per && g < nchunks; g++) s += gcnt[g * 4 + j];
        part[j * WG + lid] = s;
    }
    scan4(part, lid, WG);
    for (int j = 0; j < 4; j++) {
        uint run = lid ? part[j * WG + lid - 1] : 0u;
        for (int g = b; g < b + per && g < nchunks; g++) {
            const uint c = gcnt[g * 4 + j];
            gcnt[g * 4 + j] = run;
            run += c;
        }
    }
}
#endif
#endif

/* Writes the selected rows of each list in index order to the problem's cand[L * qh + rank]. */
#if GS_MULTI_SEL
#if GS_IN_PART(3)
__kernel void k_write(__global const char *y, __global const double *G,
                      __global const double *alpha, __global const double *ctab,
                      __global const uchar *in_ws, __global const uint *state,
                      __global const uint *gcnt, __global int *cand, int qh,
                      __global const gs_abi_round *rt, __global const gs_abi_problem *ptab, __global const int *vch)
{
    __local uint part[4 * WG];
    const int lid = get_local_id(0);
    const int g = get_group_id(0);
    const int pid = rt[vch[2 * g]].pid, jc = vch[2 * g + 1], sel = rt[vch[2 * g]].sel;
    __global const gs_abi_problem *pt = ptab + pid;
    const int npos = pt->npos, poff = pt->poff;
    const double Cp = ctab[2 * pid], Cn = ctab[2 * pid + 1];
    y += poff; G += poff; alpha += poff; in_ws += poff;
    state += 8 * pid;
    cand += 2 * qh * pid;
    const int base = jc * WG * ITEMS + lid * ITEMS;
    const uint T[2] = {state[0], state[4]};
    const uint need[2] = {state[2], state[6]};
    uint c[4];
    count_items(base, npos, y, G, alpha, Cp, Cn, sel, in_ws, T[0], T[1], c);
    for (int j = 0; j < 4; j++) part[j * WG + lid] = c[j];
    scan4(part, lid, WG);
    uint r[4];
    for (int j = 0; j < 4; j++) r[j] = gcnt[g * 4 + j] + (lid ? part[j * WG + lid - 1] : 0u);
    for (int i = 0; i < ITEMS; i++) {
        const int t = base + i;
        if (t >= npos) break;
        uint k[2];
        double vu, vl;
        row_keys(t, y, G, alpha, Cp, Cn, sel, in_ws, &k[0], &k[1], &vu, &vl);
        #pragma unroll 1
        for (int L = 0; L < 2; L++) {
            if (k[L] == EXCLUDED) continue;
            const uint gt = r[2 * L], eq = r[2 * L + 1];
            if (k[L] > T[L]) {
                cand[L * qh + gt + min(eq, need[L])] = t;
                r[2 * L]++;
            } else if (k[L] == T[L]) {
                if (eq < need[L]) cand[L * qh + gt + eq] = t;
                r[2 * L + 1]++;
            }
        }
    }
}
#endif
#endif

/* One work-group of MWG work-items; each owns QMAX / MWG consecutive entries of the
 * q <= QMAX slots. Ring working set of q slots: this round replaces the q_new slots from head (E);
 * the next round replaces q_next slots from head + q_new, and only the other slots are marked
 * in_ws (excluded from the next selection). A candidate already sitting in an E slot keeps it, so
 * its kernel row stays valid. */
#ifndef QMAX
#define QMAX 512
#endif
#ifndef MWG
#define MWG 256
#endif
#ifndef GS_ROW_CACHE
#define GS_ROW_CACHE 0
#endif

/* The kernel-row cache of a lone problem (rlines > 0 lines of kernel rows, src/train/solver.c
 * row_cache_lines), one work-group of MWG per active problem (a lone one) after the selection's
 * merge (k_select or k_merge, which then leave every slot's row as it was): a line keeps the row of
 * the position it was computed for until it is taken for another, so a member that comes back to
 * the set finds its row there and is not computed again (the same values: a row depends only on
 * its position). rc, all -1 at first: [0] the next line to consider, [1] the last round's stamp,
 * [2, 2 + rlines) each line's position (-1 none), then each line's stamp, then [npos] each
 * position's line (-1 none). Each new slot (new_slots[0, n_new)) takes its member's cached line
 * (no row to compute), else the next line in turn that this round does not use: the kept members'
 * lines, the replaced members' (a split round's second update still reads them) and the cached
 * lines taken. At most 2q lines are in use and rlines >= 4q, so one pass over the lines finds
 * enough. Only the slots whose row is not cached stay new, in slot order. A kernel of its own, not
 * a step of ws_merge: inlined into k_select and k_merge it took PoCL's cold build of the solver
 * program from 20 s to 88 s (heart_scale, 2 cores). */
#if GS_ROW_CACHE
#if GS_IN_PART(4)
__kernel void k_cache(__global const int *ws_pos, __global int *ws_row, __global int *new_slots,
                      __global int *n_new, int q, __global const gs_abi_round *rt, __global int *rc, int rlines)
{
    __local int need[QMAX], hit[QMAX], flag[QMAX], victim[QMAX], rank[QMAX], v[QMAX], part[MWG];
    const int lid = get_local_id(0), pid = rt[get_group_id(0)].pid;
    ws_pos += q * pid;
    ws_row += q * pid;
    new_slots += q * pid;
    __global int *line_pos = rc + 2, *mark = rc + 2 + rlines, *pos_line = rc + 2 + 2 * rlines;
    const int nn = n_new[pid], stamp = rc[1] + 1; /* from 0 (rc starts as -1 everywhere) */
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) need[e] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll 1
    for (int e = lid; e < nn; e += MWG) need[new_slots[e]] = 1;
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    /* the lines this round uses: every member's (a new one's: the member it replaces), and the
     * cached lines of returning members */
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) {
        hit[e] = -1;
        if (e >= q) continue;
        if (need[e]) {
            mark[ws_row[e]] = stamp;
            const int l = pos_line[ws_pos[e]];
            if (l >= 0) { hit[e] = l; mark[l] = stamp; }
        } else if (ws_pos[e] >= 0) {
            mark[ws_row[e]] = stamp;
        }
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) rank[e] = e < q && need[e] && hit[e] < 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the misses' lines: the next unmarked ones from the hand, span at a time */
    const int nmiss = gs_block_scan(rank, part, lid);
    const int span = rlines < QMAX ? rlines : QMAX;
    int hand = rc[0] < 0 ? 0 : rc[0], got = 0;
    #pragma unroll 1
    for (int it = 0; got < nmiss && it <= rlines / span + 1; it++) {
        #pragma unroll 1
        for (int e = lid; e < QMAX; e += MWG) {
            flag[e] = e < span && mark[(hand + e) % rlines] != stamp;
            v[e] = flag[e];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const int nf = gs_block_scan(v, part, lid), want = nmiss - got;
        #pragma unroll 1
        for (int e = lid; e < span; e += MWG)
            if (flag[e] && v[e] < want) {
                victim[got + v[e]] = (hand + e) % rlines;
                if (v[e] == want - 1) rc[0] = (hand + e + 1) % rlines;
            }
        got += nf < want ? nf : want;
        hand = (hand + span) % rlines;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    #pragma unroll 1
    for (int e = lid; e < q; e += MWG) {
        if (!need[e]) continue;
        if (hit[e] >= 0) {
            ws_row[e] = hit[e];
            need[e] = 0;
            continue;
        }
        const int l = victim[rank[e]], p = ws_pos[e], old = line_pos[l];
        if (old >= 0) pos_line[old] = -1;
        line_pos[l] = p;
        pos_line[p] = l;
        ws_row[e] = l;
    }
    if (lid == 0) rc[1] = stamp;
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    /* the slots still new, in slot order */
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) v[e] = need[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int m = gs_block_scan(v, part, lid);
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) if (need[e]) new_slots[v[e]] = e;
    if (lid == 0) n_new[pid] = m;
}
#endif
#endif

/* The merge of one problem's picks (cand: up list [0, n_up), low list [qh, qh + n_low), each in
 * ascending position order) into its working set, by the whole work-group of MWG. scr: 6 * QMAX +
 * MWG ints of local scratch. renew: a candidate that keeps its E slot gets its kernel row computed
 * again too (a problem split by rows over devices: the set's matrix entries then all come from
 * k_gram, which needs no other device's rows; the row's values are the same bits). */
static void ws_merge(__local const int *cand, int qh, int n_up, int n_low, __local int *scr, int lid, int head,
              int q_new, int q_next, int q, __global int *ws_pos, __global int *slot_of,
              __global uchar *in_ws, __global int *new_slots, __global int *n_new, __global int *ws_row,
              int nbank, int renew)
{
    __local int *lc = scr;                  /* combined candidates */
    __local int *v = scr + QMAX;            /* scan scratch */
    __local int *taken = scr + 2 * QMAX;    /* E slot k (offset from head) keeps its occupant */
    __local int *placed = scr + 3 * QMAX;
    __local int *freeslot = scr + 4 * QMAX;
    __local int *need_row = scr + 5 * QMAX;
    __local int *part = scr + 6 * QMAX;
    /* a: candidates = up list, then the low picks the up list does not hold (binary search: the up
     * list is in ascending order) */
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) {
        int keep = 0;
        if (e < n_low) {
            const int c = cand[qh + e];
            int lo = 0, hi = n_up;
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                if (cand[mid] < c) lo = mid + 1; else hi = mid;
            }
            keep = !(lo < n_up && cand[lo] == c);
        }
        taken[e] = 0; placed[e] = 0; need_row[e] = 0;
        lc[e] = keep; /* temporarily: keep flag by low index */
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) v[e] = lc[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int nkeep = gs_block_scan(v, part, lid);
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) {
        if (e < n_low && lc[e]) freeslot[n_up + v[e]] = cand[qh + e];
        if (e < n_up) freeslot[e] = cand[e];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int nc = n_up + nkeep;
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) lc[e] = e < nc ? freeslot[e] : -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* b: a candidate already in an E slot keeps it */
    #pragma unroll 1
    for (int e = lid; e < nc; e += MWG) {
        const int s = slot_of[lc[e]];
        if (s >= 0) {
            const int k = (s - head + q) % q;
            if (k < q_new) { taken[k] = 1; placed[e] = 1; need_row[s] = renew; }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* c: rank the unplaced candidates and the free E slots */
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) v[e] = (e < q_new && !taken[e]) ? 1 : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int nfree = gs_block_scan(v, part, lid);
    #pragma unroll 1
    for (int e = lid; e < q_new; e += MWG) if (!taken[e]) freeslot[v[e]] = e;
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) v[e] = (e < nc && !placed[e]) ? 1 : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    gs_block_scan(v, part, lid);
    /* d: evict the untaken E slots' occupants */
    #pragma unroll 1
    for (int e = lid; e < q_new; e += MWG) {
        if (taken[e]) continue;
        const int s = (head + e) % q;
        const int old = ws_pos[s];
        if (old >= 0) slot_of[old] = -1;
        ws_pos[s] = -1;
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    #pragma unroll 1
    for (int e = lid; e < nc; e += MWG) {
        if (placed[e] || v[e] >= nfree) continue;
        const int s = (head + freeslot[v[e]]) % q;
        ws_pos[s] = lc[e];
        slot_of[lc[e]] = s;
        need_row[s] = 1;
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    /* with two banks a slot that gets a new row takes the other bank's: the old row stays valid for
     * the update of the set being solved meanwhile (see ws_row); with the row cache (nbank 1 here),
     * k_cache gives it a line next */
    if (nbank == 2)
        #pragma unroll 1
        for (int e = lid; e < q; e += MWG)
            if (need_row[e]) ws_row[e] = ws_row[e] < q ? ws_row[e] + q : ws_row[e] - q;
    /* e: in_ws for the next selection = every filled slot outside the next eviction window */
    #pragma unroll 1
    for (int e = lid; e < q; e += MWG) {
        const int p = ws_pos[e];
        if (p >= 0) {
            const int k = (e - (head + q_new) % q + q) % q;
            in_ws[p] = k < q_next ? 0 : 1;
        }
    }
    /* f: the slots whose kernel rows must be computed, in slot order */
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) v[e] = need_row[e];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int nn = gs_block_scan(v, part, lid);
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) if (need_row[e]) new_slots[v[e]] = e;
    if (lid == 0) n_new[0] = nn;
}

/* The merge after the multi-kernel selection: one work-group of MWG per active problem. */
#if GS_MULTI_SEL
#if GS_IN_PART(1)
__kernel void k_merge(__global const uint *state, __global const int *cand, int qh,
                      __global int *ws_pos, __global int *slot_of, __global uchar *in_ws,
                      __global int *new_slots, __global int *n_new, int q, __global const gs_abi_round *rt,
                      __global const gs_abi_problem *ptab, __global int *ws_row, int nbank, int renew)
{
    __local int lcand[2 * QMAX];
    __local int scr[6 * QMAX + MWG];
    const int lid = get_local_id(0);
    __global const gs_abi_round *r = rt + get_group_id(0);
    const int pid = r->pid;
    const int poff = ptab[pid].poff;
    state += 8 * pid;
    cand += 2 * qh * pid;
    const int n_up = (int)state[3], n_low = (int)state[7];
    #pragma unroll 1
    for (int e = lid; e < QMAX; e += MWG) {
        lcand[e] = e < n_up ? cand[e] : -1;
        lcand[QMAX + e] = e < n_low ? cand[qh + e] : -1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    ws_merge(lcand, QMAX, n_up, n_low, scr, lid, r->head, r->q_new, r->q_next, q, ws_pos + q * pid,
             slot_of + poff, in_ws + poff, new_slots + q * pid, n_new + pid, ws_row + q * pid, nbank, renew);
}
#endif

/* A problem split by rows over devices (src/train/solver.c): after k_write, the keys of this
 * device's picks (cand's lists), so that the host can merge every device's picks into the ones a
 * single device would make (the largest keys, ties by position). One work-group per active
 * problem. */
#if GS_IN_PART(3)
__kernel void k_cand_keys(__global const char *y, __global const double *G, __global const double *alpha,
                          __global const double *ctab, __global const uchar *in_ws, __global const uint *state,
                          __global const int *cand, int qh, __global const gs_abi_round *rt,
                          __global const gs_abi_problem *ptab, __global uint *ckeys)
{
    const int lid = get_local_id(0);
    __global const gs_abi_round *r = rt + get_group_id(0);
    const int pid = r->pid;
    __global const gs_abi_problem *pt = ptab + pid;
    const int poff = pt->poff;
    y += poff; G += poff; alpha += poff; in_ws += poff;
    state += 8 * pid;
    cand += 2 * qh * pid;
    ckeys += 2 * qh * pid;
    const int n_up = (int)state[3], n_low = (int)state[7];
    for (int e = lid; e < n_up + n_low; e += (int)get_local_size(0)) {
        const int L = e >= n_up, i = L ? e - n_up : e;
        uint k[2];
        double vu, vl;
        row_keys(cand[L * qh + i], y, G, alpha, ctab[2 * pid], ctab[2 * pid + 1], r->sel, in_ws, &k[0], &k[1],
                 &vu, &vl);
        ckeys[L * qh + i] = k[L];
    }
}
#endif
#endif

/* Both lists' digit picks at once over the histograms h[0..NBINS) (list 0) and h[NBINS..) (list 1):
 * for each list L with need[L] > 0 (first lowered to the list's total when clamp), the bin b
 * holding the need-th largest key (bins from the top), the count of keys in higher bins and the
 * count in b. part: 2 * MWG uints, res: 6 uints (local); the whole work-group calls it. */
static void pick_bins(__local const uint *h, __local uint *part, __local uint *res, int lid, uint *need, int clamp,
               uint *bin, uint *above, uint *inbin)
{
    const int per = NBINS / MWG;
    #pragma unroll 1
    for (int L = 0; L < 2; L++) {
        uint s = 0;
        #pragma unroll 1
        for (int i = 0; i < per; i++) s += h[L * NBINS + NBINS - 1 - (lid * per + i)];
        part[L * MWG + lid] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll 1
    for (int off = 1; off < MWG; off <<= 1) { /* inclusive scans */
        const uint v0 = lid >= off ? part[lid - off] : 0u, v1 = lid >= off ? part[MWG + lid - off] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        part[lid] += v0;
        part[MWG + lid] += v1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    #pragma unroll 1
    for (int L = 0; L < 2; L++) {
        if (clamp) need[L] = min(need[L], part[L * MWG + MWG - 1]);
        const uint before = lid ? part[L * MWG + lid - 1] : 0u;
        if (need[L] > 0 && before < need[L] && need[L] <= part[L * MWG + lid]) {
            uint cum = before;
            #pragma unroll 1
            for (int i = 0; i < per; i++) {
                const int b = NBINS - 1 - (lid * per + i);
                const uint c = h[L * NBINS + b];
                if (cum + c >= need[L]) { res[2 * L] = (uint)b; res[2 * L + 1] = cum; res[4 + L] = c; break; }
                cum += c;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll 1
    for (int L = 0; L < 2; L++) {
        bin[L] = res[2 * L];
        above[L] = res[2 * L + 1];
        inbin[L] = res[4 + L];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* keys per batch of loads in k_select, and per work-item in a compaction tile (H100, a9a: 5.8 ms of
 * k_select a run against 6.3 with 8 and 7.0 with 32) */
#define KB 16
#define SEL_A (2 * NBINS + 2 * MWG + 6)
#define SEL_B (6 * QMAX + MWG)
#define SEL_C (MWG * KB / 4 + 2 * MWG)
#define SEL_POOL (SEL_A > SEL_B ? (SEL_A > SEL_C ? SEL_A : SEL_C) : (SEL_B > SEL_C ? SEL_B : SEL_C))

/* The whole selection of one active problem in one work-group of MWG, for problems small enough
 * that a single work-group goes through their keys faster than a chain of launches: after k_hist
 * (round 0, which wrote every row's keys and the top digit's histogram), the gap, the three digit
 * picks (the second and third histograms over the stored keys), the ordered compaction of the
 * picks and the merge. The same picks as k_pick x3, k_count, k_scan, k_write and k_merge. */
#if GS_IN_PART(1)
__kernel void k_select(__global const uint2 *keys, __global uint *hist, __global const double *gmax,
                       __global double *gap, __global int *ws_pos, __global int *slot_of,
                       __global uchar *in_ws, __global int *new_slots, __global int *n_new, int q,
                       __global const gs_abi_round *rt, __global const gs_abi_problem *ptab, __global int *ws_row, int nbank,
                       int t_lo, int t_hi, int cand_out, __global int *cand, __global uint *state, __global uint *ckeys)
{
    /* one pool, reused by the phases: 2 * MWG doubles for the gap, 2 * NBINS + 2 * MWG + 6 uints
     * for the digits, 4 * MWG for the compaction's scans, 6 * QMAX + MWG ints for the merge */
    __local ulong pool[(SEL_POOL + 1) / 2];
    __local int lcand[2 * QMAX];
    const int lid = get_local_id(0);
    __global const gs_abi_round *r = rt + get_group_id(0);
    const int pid = r->pid, ch0 = r->ch0, nch = r->nch;
    __global const gs_abi_problem *pt = ptab + pid;
    const int npos = pt->npos, poff = pt->poff;
    /* the positions [lo, hi) selected over: all, or a row split's slice (cand_out: the picks and
     * their keys go to cand / ckeys / state for the host's merge, not into the working set) */
    const int lo = t_lo, hi = min(t_hi, npos);
    keys += poff;
    hist += 2 * NBINS * pid;
    gap_reduce(gmax, gap, ch0 * HSPLIT, nch * HSPLIT, pid, (__local double *)pool, lid, MWG);
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint *h = (__local uint *)pool;
    __local uint *part = h + 2 * NBINS;
    __local uint *res = part + 2 * MWG;
    uint need[2] = {(uint)r->k_up, (uint)r->k_low}, pre[2] = {0u, 0u}, msk[2] = {0u, 0u}, taken[2] = {0u, 0u};
    /* A list is settled once the bin just picked holds exactly the keys still needed: they are
     * all taken whatever their lower digits, so the threshold stays a prefix (compared under msk)
     * and the list's later passes are skipped (the same picks as three passes). */
    int settled[2] = {0, 0};
    for (int pass = 0; pass < 3; pass++) {
        if (pass > 0 && (settled[0] || need[0] == 0) && (settled[1] || need[1] == 0)) break;
        uint act[2] = {settled[0] ? 0u : need[0], settled[1] ? 0u : need[1]};
        const int shift = pass == 0 ? 21 : (pass == 1 ? 10 : 0);
        const uint dmask = pass == 2 ? 0x3FFu : 0x7FFu;
        if (pass == 0) {
            for (int i = lid; i < 2 * NBINS; i += MWG) { h[i] = hist[i]; hist[i] = 0; }
        } else {
            for (int i = lid; i < 2 * NBINS; i += MWG) h[i] = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            run ru = {0u, 0u}, rl = {0u, 0u};
            for (int t0 = lo + lid; t0 < hi; t0 += KB * MWG) {
                uint2 kb[KB]; /* KB keys loaded before any is counted: one memory latency per KB */
                for (int i = 0; i < KB; i++) kb[i] = t0 + i * MWG < hi ? keys[t0 + i * MWG] : (uint2)(EXCLUDED);
                for (int i = 0; i < KB; i++) {
                    const uint2 k = kb[i];
                    if (act[0] > 0 && k.x != EXCLUDED && (k.x & msk[0]) == pre[0]) run_add(h, &ru, (k.x >> shift) & dmask);
                    if (act[1] > 0 && k.y != EXCLUDED && (k.y & msk[1]) == pre[1])
                        run_add(h, &rl, NBINS + ((k.y >> shift) & dmask));
                }
            }
            run_flush(h, &ru);
            run_flush(h, &rl);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        uint bin[2], above[2], inbin[2];
        pick_bins(h, part, res, lid, act, pass == 0, bin, above, inbin);
        #pragma unroll 1
        for (int L = 0; L < 2; L++) {
            if (pass == 0) taken[L] = need[L] = act[L]; /* clamped to the list's keys */
            if (act[L] > 0) {
                pre[L] |= (bin[L] & dmask) << shift;
                msk[L] |= dmask << shift;
                need[L] -= above[L];
                settled[L] = inbin[L] == need[L];
            }
        }
    }
    #pragma unroll 1
    for (int L = 0; L < 2; L++)
        if (taken[L] == 0) { pre[L] = msk[L] = 0xFFFFFFFFu; need[L] = 0u; } /* a threshold no key passes */
    /* ordered compaction, MWG * KB positions (a tile) at a time: each work-item loads KB keys MWG
     * apart (coalesced) and puts their 4 flags (> or == each list's threshold) in local memory,
     * then takes the flags of KB consecutive positions, so the work-items' ranks (a scan of their
     * counts, packed 16 bits per flag) follow position order */
    __local uchar *fl = (__local uchar *)pool;
    __local ulong *sc = pool + MWG * KB / 8;
    uint base[4] = {0u, 0u, 0u, 0u};
    for (int t0 = lo; t0 < hi; t0 += MWG * KB) {
        for (int i = 0; i < KB; i++) {
            const int t = t0 + i * MWG + lid;
            const uint2 k = t < hi ? keys[t] : (uint2)(EXCLUDED);
            uint f = 0u;
            const uint kx = k.x & msk[0], ky = k.y & msk[1];
            if (k.x != EXCLUDED) f = (uint)(kx > pre[0]) | (uint)(kx == pre[0]) << 1;
            if (k.y != EXCLUDED) f |= (uint)(ky > pre[1]) << 2 | (uint)(ky == pre[1]) << 3;
            fl[i * MWG + lid] = (uchar)f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        uchar f[KB];
        ulong cnt = 0;
        for (int j = 0; j < KB; j++) {
            f[j] = fl[lid * KB + j];
            cnt += (ulong)(f[j] & 1u) | (ulong)((f[j] >> 1) & 1u) << 16 | (ulong)((f[j] >> 2) & 1u) << 32 |
                   (ulong)(f[j] >> 3) << 48;
        }
        sc[lid] = cnt;
        gs_scan_ul(sc, lid, MWG);
        const ulong ex = sc[lid] - cnt, tot = sc[MWG - 1];
        uint rk[4];
        for (int j = 0; j < 4; j++) rk[j] = base[j] + (uint)(ex >> (16 * j) & 0xFFFFu);
        for (int j = 0; j < KB; j++) {
            const int t = t0 + lid * KB + j;
            #pragma unroll 1
            for (int L = 0; L < 2; L++) {
                const uint gt = rk[2 * L], eq = rk[2 * L + 1];
                if (f[j] >> (2 * L) & 1u) {
                    lcand[L * QMAX + gt + min(eq, need[L])] = t;
                    rk[2 * L]++;
                } else if (f[j] >> (2 * L + 1) & 1u) {
                    if (eq < need[L]) lcand[L * QMAX + gt + eq] = t;
                    rk[2 * L + 1]++;
                }
            }
        }
        for (int j = 0; j < 4; j++) base[j] += (uint)(tot >> (16 * j) & 0xFFFFu);
        barrier(CLK_LOCAL_MEM_FENCE); /* fl and sc are rewritten by the next tile; lcand is read next */
    }
    if (cand_out) {
        #pragma unroll 1
        for (int e = lid; e < (int)taken[0]; e += MWG) {
            cand[2 * q * pid + e] = lcand[e];
            ckeys[2 * q * pid + e] = keys[lcand[e]].x;
        }
        #pragma unroll 1
        for (int e = lid; e < (int)taken[1]; e += MWG) {
            cand[2 * q * pid + q + e] = lcand[QMAX + e];
            ckeys[2 * q * pid + q + e] = keys[lcand[QMAX + e]].y;
        }
        if (lid == 0) { state[8 * pid + 3] = taken[0]; state[8 * pid + 7] = taken[1]; }
        return;
    }
    ws_merge(lcand, QMAX, (int)taken[0], (int)taken[1], (__local int *)pool, lid, r->head, r->q_new,
             r->q_next, q, ws_pos + q * pid, slot_of + poff, in_ws + poff, new_slots + q * pid, n_new + pid,
             ws_row + q * pid, nbank, 0);
}
#endif

/* Work-group (k, active problem): new slot k's vector into the problem's U. u_pos keeps the global
 * position each column holds, so it can be cleared first. */
#if GS_IN_PART(4)
__kernel void k_gather_u(__global const int *ws_pos, __global const int *new_slots,
                         __global const int *n_new, __global int *u_pos,
                         __global const long *col_off, __global const int *cols,
                         __global const float *vals, __global float *U, int qn,
                         __global const int *ell_w, __global const long *ell_off,
                         __global const int *ell_idx, __global const float *ell_val,
                         __global const gs_abi_round *rt, __global const gs_abi_problem *ptab, long uq)
{
    const int k = get_group_id(0), lid = get_local_id(0);
    const int pid = rt[get_group_id(1)].pid;
    __global const gs_abi_problem *pt = ptab + pid;
    if (k >= n_new[pid] || GS_WIDE) return; /* wide data: no block U (k_rows) */
    ws_pos += qn * pid;
    new_slots += qn * pid;
    u_pos += qn * pid;
    U += uq * pid;
    const int old = u_pos[k];
    if (old >= 0) gs_put_row(old, 1, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val, U, qn, k);
    barrier(CLK_GLOBAL_MEM_FENCE);
    const int p = gpos(pt, ws_pos[new_slots[k]]);
    gs_put_row(p, 0, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val, U, qn, k);
    if (lid == 0) u_pos[k] = p;
}
#endif

#if GS_WIDE && KTYPE != 4
/* Wide data's k_rows and k_cert dots without a block U: the group's m <= WCH vectors (positions lg)
 * go into a local hash table keyed by column (GS_HT entries: ht the column, hv the value, hw the
 * vector; zeros left out), then each work-item walks its row's nonzeros in column order and adds
 * x * v to acc[vector] for every entry of that column: per vector the terms and the order of
 * gs_sparse_dot, so the same bits (k_gram merges; k_cert looks up too). Vectors of more than GS_HT_MAX
 * entries in all are merged instead (the same choice in the whole group). */
#define GS_HT 4096
#define GS_HT_SHIFT 20 /* 32 - log2(GS_HT) */
#define GS_HT_MAX 3072
#define GS_BLOCK_DOTS_WIDE_DEF(NAME, ACC, DOT)                                                                     \
static void NAME(int p, int m, __local const int *lg, __global const long *col_off,                                \
                        __global const int *cols, __global const float *vals, __global const int *ell_w,           \
                        __global const long *ell_off, __global const int *ell_idx, __global const float *ell_val,  \
                        __local int *ht, __local float *hv, __local uchar *hw, ACC *acc)                           \
{                                                                                                                  \
    const int t = get_local_id(0);                                                                                 \
    long len[WCH], tot = 0;                                                                                        \
    for (int w = 0; w < WCH; w++) {                                                                                \
        len[w] = 0;                                                                                                \
        if (w < m) {                                                                                               \
            const int c = lg[w] / WG;                                                                              \
            len[w] = ell_w[c] > 0 ? ell_off[lg[w] + 1] - ell_off[lg[w]] : col_off[c + 1] - col_off[c];             \
        }                                                                                                          \
        tot += len[w];                                                                                             \
        acc[w] = (ACC)0;                                                                                           \
    }                                                                                                              \
    const int use_ht = tot <= GS_HT_MAX; /* the barriers stay outside the branches (PoCL) */                       \
    for (int i = t; i < GS_HT && use_ht; i += WG) ht[i] = -1;                                                      \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                                  \
    for (long f = t; f < tot && use_ht; f += WG) { /* flat entry f: vector w's e-th */                             \
        int w = 0;                                                                                                 \
        long e = f;                                                                                                \
        while (e >= len[w]) e -= len[w++];                                                                         \
        __global const int *ix;                                                                                    \
        __global const float *vx;                                                                                  \
        long n;                                                                                                    \
        int st;                                                                                                    \
        GS_ROW_AT(lg[w], ix, vx, n, st);                                                                           \
        const float v = vx[e * st];                                                                                \
        if (v == 0.0f) continue;                                                                                   \
        const int col = ix[e];                                                                                     \
        uint h = ((uint)col * 2654435761u) >> GS_HT_SHIFT;                                                         \
        while (atomic_cmpxchg((volatile __local int *)&ht[h], -1, col) != -1) h = (h + 1) & (GS_HT - 1);           \
        hv[h] = v;                                                                                                 \
        hw[h] = (uchar)w;                                                                                          \
    }                                                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                                  \
    if (!use_ht) { /* too many entries for the table: merge */                                                     \
        for (int w = 0; w < m; w++)                                                                                \
            acc[w] = DOT(p, lg[w], col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val);                         \
        return;                                                                                                    \
    }                                                                                                              \
    __global const int *ia;                                                                                        \
    __global const float *va;                                                                                      \
    long na;                                                                                                       \
    int sa;                                                                                                        \
    GS_ROW_AT(p, ia, va, na, sa);                                                                                  \
    for (long i = 0; i < na; i++) {                                                                                \
        const float x = va[i * sa];                                                                                \
        if (x == 0.0f) continue;                                                                                   \
        const int col = ia[i];                                                                                     \
        for (uint h = ((uint)col * 2654435761u) >> GS_HT_SHIFT; ht[h] != -1; h = (h + 1) & (GS_HT - 1))            \
            if (ht[h] == col) acc[hw[h]] = fma((ACC)x, (ACC)hv[h], acc[hw[h]]);                                    \
    }                                                                                                              \
}
GS_BLOCK_DOTS_WIDE_DEF(gs_block_dots_wide_f, float, gs_sparse_dot_f)
GS_BLOCK_DOTS_WIDE_DEF(gs_block_dots_wide_d, double, gs_sparse_dot_d)
#if GS_PRECISE /* k_rows' sums (k_cert picks its own) */
#define gs_block_dots_wide gs_block_dots_wide_d
#else
#define gs_block_dots_wide gs_block_dots_wide_f
#endif
#endif

/* Work-group (virtual cluster, block w0/WCH), work-item = row: the kernel rows of WCH new slots. The
 * second dimension spreads the new slots over many work-groups so the whole device is busy. */
#if GS_IN_PART(4)
__kernel void k_rows(__global const long *col_off, __global const int *cols,
                     __global const float *vals, __global const double *norm2,
                     __global const float *U, __global const int *ws_pos,
                     __global const int *new_slots, __global const int *n_new,
                     __global float *K, __global const long *koff, int qn, double gamma, double coef0,
                     int degree, __global const int *ell_w, __global const long *ell_off,
                     __global const int *ell_idx, __global const float *ell_val,
                     __global const gs_abi_round *rt, __global const gs_abi_problem *ptab, __global const int *vc, long uq,
                     __global const int *ws_row)
{
#if !GS_WIDE
    __local float4 lu[GS_LU_FLOAT4S];
#endif
    const int v = get_group_id(0), t = get_local_id(0);
    const int pid = rt[vc[2 * v]].pid, lc = vc[2 * v + 1];
    __global const gs_abi_problem *pt = ptab + pid;
    const int w0 = get_group_id(1) * WCH;
    const int nn = n_new[pid];
    if (w0 >= nn) return;
    const int npos = pt->npos;
    const int c = gcl(pt, lc);
    ws_pos += qn * pid;
    new_slots += qn * pid;
    U += uq * pid;
    K += koff[pid];
    const int pos = lc * WG + t;
    const double ni = norm2[c * WG + t];
    /* the block's kernel rows, positions and norms, looked up once for the group */
    __local int ls[WCH], lp[WCH], lg[WCH];
    __local double ln[WCH];
    if (t < WCH && w0 + t < nn) {
        const int sl = new_slots[w0 + t], p = ws_pos[sl];
        ls[t] = ws_row[qn * pid + sl];
        lp[t] = p;
        lg[t] = gpos(pt, p);
        ln[t] = norm2[lg[t]];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if KTYPE == 4
    const int sr = gs_pre_serial(col_off, vals, c, t);
    for (int w = 0; w < WCH; w++) {
        if (w0 + w >= nn) break;
        K[(long)ls[w] * npos + pos] = sr > 0 ? U[(long)sr * qn + w0 + w] : 0.0f;
    }
#else
    gs_acc_t acc[WCH];
#if GS_WIDE /* no block U: the new vectors read from the layout */
    __local int ht[GS_HT];
    __local float hv[GS_HT];
    __local uchar hw[GS_HT];
    gs_block_dots_wide(c * WG + t, min(WCH, nn - w0), lg, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val,
                       ht, hv, hw, acc);
#else
    gs_row_dots(c, t, w0, nn, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val, U, qn, lu, acc);
#endif
    for (int w = 0; w < WCH; w++) {
        if (w0 + w >= nn) break;
        const double dot = pos == lp[w] ? ni : (double)acc[w];
        K[(long)ls[w] * npos + pos] = (float)gs_kfun(dot, ni, ln[w], gamma, coef0, degree);
    }
#endif
}
#endif

#if GS_COL_ROWS
/* By-column sums (src/data/colchunks.h), for data whose clusters are mostly row-wise (text): the
 * dot products of the row at global position g (a working-set vector, or an SV) with chunk h's
 * PCL * WG positions into acc (local). The vector's nonzeros, 256 at a time, each find their
 * column among the chunk's (a binary search a work-item); then each column the chunk has adds its
 * entries times the vector's value into the positions' sums, one column after another in ascending
 * order. A position's sum thus gets the products of its nonzeros with the vector's in column order,
 * one fma each from 0, as gs_row_dots / GS_ELL_DOTS add them (the terms they have beside these have
 * a zero factor and leave a finite sum as it was, which is never -0): the same bits as by row (and
 * as the wide form's gs_sparse_dot order), in float or in double (ACC). Only for finite data
 * (src/train/solver.c decides). Work-groups of 256; every work-item must call it (barriers). */
#define PCH (PCL * WG)
#define GS_COL_SUMS_DEF(NAME, ACC)                                                                         \
static void NAME(int g, int h, __global const int *pc_cols, __global const int *pc_ccol,                  \
          __global const int *pc_coff, __global const ushort *pc_row, __global const float *pc_val,       \
          __global const long *col_off, __global const int *cols, __global const float *vals,             \
          __global const int *ell_w, __global const long *ell_off, __global const int *ell_idx,           \
          __global const float *ell_val, __local ACC *acc, __local int *s0, __local int *s1,              \
          __local float *sv)                                                                               \
{                                                                                                          \
    const int t = get_local_id(0);                                                                         \
    /* the vector: a row-wise cluster's run (wide) or ELL slots (column -1 past the row's end), or a      \
     * dense one's union */                                                                                \
    const int gc = g / WG, gt = g % WG, ew = ell_w[gc];                                                    \
    const long vb = ew > 0 ? GS_ROW_BASE(gc, gt) : col_off[gc];                                            \
    const long len = ew > 0 ? GS_ROW_LEN(gc, gt, ew) : col_off[gc + 1] - vb;                               \
    for (int r = t; r < PCH; r += 256) acc[r] = (ACC)0;                                                    \
    const int k0 = pc_cols[h], k1 = pc_cols[h + 1];                                                        \
    for (long pb = 0; pb < len; pb += 256) {                                                               \
        barrier(CLK_LOCAL_MEM_FENCE); /* acc's zeros, or the last block's slots read */                   \
        int a = 0, b = 0;                                                                                  \
        float x = 0.0f;                                                                                    \
        if (pb + t < len) {                                                                                \
            const long e = pb + t;                                                                         \
            const int col = ew > 0 ? ell_idx[vb + e * GS_ROW_STEP] : cols[vb + e];                         \
            x = ew > 0 ? ell_val[vb + e * GS_ROW_STEP] : vals[(vb + e) * WG + gt];                         \
            if (col >= 0 && x != 0.0f) {                                                                   \
                int lo = k0, hi = k1;                                                                      \
                while (lo < hi) {                                                                          \
                    const int mid = (lo + hi) >> 1;                                                        \
                    if (pc_ccol[mid] < col) lo = mid + 1;                                                  \
                    else hi = mid;                                                                         \
                }                                                                                          \
                if (lo < k1 && pc_ccol[lo] == col) { a = pc_coff[lo]; b = pc_coff[lo + 1]; }               \
            }                                                                                              \
        }                                                                                                  \
        s0[t] = a;                                                                                         \
        s1[t] = b;                                                                                         \
        sv[t] = x;                                                                                         \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                      \
        const int m = (int)min((long)256, len - pb);                                                       \
        for (int k = 0; k < m; k++) {                                                                      \
            const int ka = s0[k], kb = s1[k];                                                              \
            if (ka == kb) continue; /* the same for the whole group */                                     \
            const ACC xk = (ACC)sv[k];                                                                     \
            for (int e = ka + t; e < kb; e += 256) acc[pc_row[e]] = fma((ACC)pc_val[e], xk, acc[pc_row[e]]); \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
        }                                                                                                  \
    }                                                                                                      \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                          \
}
GS_COL_SUMS_DEF(gs_col_sums_f, float)
GS_COL_SUMS_DEF(gs_col_sums_d, double)

/* The problem's local position of its range k (0: a, 1: b) for global cluster c, or -1. */
inline int gs_range_pos(__global const gs_abi_problem *pt, int k, int c, int lane)
{
    if (k == 0) return c >= pt->a0 && c < pt->a0 + pt->na ? (c - pt->a0) * WG + lane : -1;
    return c >= pt->b0 && c < pt->b0 + pt->nb ? (pt->na + (c - pt->b0)) * WG + lane : -1;
}

/* k_rows by column: work-group (virtual chunk v, new slot w), the slot's kernel row over the chunk's
 * positions, written into the problem's positions of each range holding them (both for
 * regression's two copies of the rows; none for another problem's rows or past the layout).
 * vpc: (round entry, global chunk) pairs. */
#if GS_IN_PART(4)
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void k_rows_col(__global const int *pc_cols, __global const int *pc_ccol, __global const int *pc_coff,
                __global const ushort *pc_row, __global const float *pc_val, __global const long *col_off,
                __global const int *cols, __global const float *vals, __global const int *ell_w,
                __global const long *ell_off, __global const int *ell_idx, __global const float *ell_val,
                __global const double *norm2, __global const int *ws_pos, __global const int *new_slots,
                __global const int *n_new, __global float *K, __global const long *koff, int qn, double gamma,
                double coef0, int degree, __global const gs_abi_round *rt, __global const gs_abi_problem *ptab,
                __global const int *vpc, __global const int *ws_row)
{
    __local float acc[PCH];
    __local int s0[256], s1[256];
    __local float sv[256];
    const int v = get_group_id(0), w = get_group_id(1), t = get_local_id(0);
    const int pid = rt[vpc[2 * v]].pid, h = vpc[2 * v + 1];
    if (w >= n_new[pid]) return;
    __global const gs_abi_problem *pt = ptab + pid;
    const int sl = new_slots[qn * pid + w], p = ws_pos[qn * pid + sl], g = gpos(pt, p);
    const double ln = norm2[g];
    gs_col_sums_f(g, h, pc_cols, pc_ccol, pc_coff, pc_row, pc_val, col_off, cols, vals, ell_w, ell_off, ell_idx,
                  ell_val, acc, s0, s1, sv);
    K += koff[pid] + (long)ws_row[qn * pid + sl] * pt->npos;
    for (int r = t; r < PCH; r += 256) {
        const int gp = h * PCH + r;
        for (int k = 0; k < 2; k++) {
            const int pos = gs_range_pos(pt, k, gp / WG, gp % WG);
            if (pos < 0) continue;
            const double ni = norm2[gp];
            const double dot = pos == p ? ni : (double)acc[r];
            K[pos] = (float)gs_kfun(dot, ni, ln, gamma, coef0, degree);
        }
    }
}
#endif

/* The certification's dot products by column, in double: work-group (virtual chunk v of the pass,
 * SV w), SV w of pass slot a against the chunk's positions into D[w * dstride + the problem's
 * position] (both ranges' positions, as k_rows_col), which k_cert reads instead of summing them
 * itself (the same bits). cvpc: (slot in the pass, global chunk) pairs. */
#if GS_IN_PART(2)
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void k_cert_dots(__global const int *pc_cols, __global const int *pc_ccol, __global const int *pc_coff,
                 __global const ushort *pc_row, __global const float *pc_val, __global const long *col_off,
                 __global const int *cols, __global const float *vals, __global const int *ell_w,
                 __global const long *ell_off, __global const int *ell_idx, __global const float *ell_val,
                 __global const int *cnew, int q, __global const gs_abi_problem *ptab,
                 __global const gs_abi_cert *ctab, __global const int *cvpc, int sbase, int vbase,
                 __global double *D, long dstride)
{
    __local double acc[PCH];
    __local int s0[256], s1[256];
    __local float sv[256];
    const int v = vbase + get_group_id(0), w = get_group_id(1), t = get_local_id(0);
    const int a = sbase + cvpc[2 * v], h = cvpc[2 * v + 1];
    __global const gs_abi_cert *ct = ctab + a;
    if (w >= ct->n) return;
    __global const gs_abi_problem *pt = ptab + ct->prob;
    gs_col_sums_d(cnew[a * q + w], h, pc_cols, pc_ccol, pc_coff, pc_row, pc_val, col_off, cols, vals, ell_w,
                  ell_off, ell_idx, ell_val, acc, s0, s1, sv);
    D += (long)w * dstride + pt->poff;
    for (int r = t; r < PCH; r += 256) {
        const int gp = h * PCH + r;
        for (int k = 0; k < 2; k++) {
            const int pos = gs_range_pos(pt, k, gp / WG, gp % WG);
            if (pos >= 0) D[pos] = acc[r];
        }
    }
}
#endif
#endif

#define RB_HEAD GS_RB_HEAD(q)
/* A problem's head: gap parts, count of new slots; per slot its G, position, the new slots and its
 * kernel row (ws_row). */
inline void head_top(__global double *h, __global const double *gap, int pid, int nn)
{
    h[0] = gap[2 * pid];
    h[1] = gap[2 * pid + 1];
    h[2] = (double)nn;
    h[3] = 0.0;
}
inline void head_slot(__global double *h, int q, int s, int p, double g, int nn, __global const int *new_slots,
                      int row)
{
    h[4 + s] = g;
    h[4 + q + s] = (double)p;
    h[4 + 2 * q + s] = s < nn ? (double)new_slots[s] : -1.0;
    h[4 + 3 * q + s] = (double)row;
}

/* The heads of a split round whose second part changed alphas, before its k_update: the set's
 * gradients include the update records in upd. Work-item (slot, slice) sums a slice as k_update
 * does and the slices are added in the same order, so the values are those k_update then leaves in
 * G. Work-group (256 work-items, a multiple of USPLIT) row = active problem. */
#if GS_IN_PART(4)
__kernel void k_heads(__global const double *gap, __global const int *n_new, __global const int *ws_pos,
                      __global const int *new_slots, __global const double *G, __global const float *K,
                      __global const long *koff, __global double *rb, int q, __global const gs_abi_round *rt,
                      __global const gs_abi_problem *ptab, __global const double *upd, __global const char *y,
                      __global const int *ws_row)
{
    __local double lc[QMAX];
    __local int lr[QMAX];
    __local double part[256];
    const int i = get_global_id(0), ai = get_group_id(1), lid = get_local_id(0);
    __global const gs_abi_round *r = rt + ai;
    const int pid = r->pid, nupd = r->nupd;
    __global const gs_abi_problem *pt = ptab + pid;
    const int npos = pt->npos, poff = pt->poff;
    G += poff;
    y += poff;
    K += koff[pid];
    ws_pos += q * pid;
    new_slots += q * pid;
    upd_stage(upd + r->uoff, nupd, lc, lr, lid, (int)get_local_size(0));
    const int sl = i / USPLIT, slice = i % USPLIT;
    const int p = sl < q ? ws_pos[sl] : -1;
    part[lid] = p >= 0 && y[p] != 0 ? upd_sum(lc, lr, nupd, slice, K, npos, p) : 0.0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __global double *h = rb + (long)ai * RB_HEAD;
    const int nn = n_new[pid];
    if (slice == 0 && sl < q) {
        double sum = part[lid];
        for (int k = 1; k < USPLIT; k++) sum += part[lid + k];
        head_slot(h, q, sl, p, p >= 0 ? G[p] + (y[p] > 0 ? sum : -sum) : 0.0, nn, new_slots, ws_row[q * pid + sl]);
    }
    if (i == 0) head_top(h, gap, pid, nn);
}
#endif

/* Work-group row (i, active problem a). rb holds every active problem's head (RB_HEAD doubles
 * from a * RB_HEAD), then their matrices (RB_KWS doubles from n * RB_HEAD + a * RB_KWS, n the
 * active problems), so either part is one contiguous read. Head: [0] max up, [1] max low,
 * [2] n_new, [3] 0, [4..4+q) G per slot, [4+q..4+2q) ws_pos, [4+2q..4+3q) new_slots, [4+3q..4+4q) ws_row. Matrix: the
 * upper triangle of the working set's kernel matrix in slot space, row by row ((a, a..q-1) from
 * RB_TRI(a, a): q(q+1)/2 floats, half the pinned memory and bytes of the whole), which the host
 * unpacks for its subproblem. For finite data the matrix is symmetric bit for bit (K(a, b) and
 * K(b, a) add the same products in the same column order; zeros add nothing), so the lower half
 * is its mirror. It persists in kws (q*q floats per problem): entry (a, b) is refreshed when slot b is
 * in this round's ring window (the offsets 0..q_new-1 from head, retained or empty ones included),
 * from b's row, K(b, pos a); else when slot a is, from K(a, pos b); otherwise it keeps its value.
 * Empty slots give 0. Entries from a row computed this round (fresh) were written by k_gram, which
 * runs just before; the others come from the kernel rows. parts: 1 the matrices, 2 the heads, 3
 * both (the matrices do not depend on the gradients, so a split round reads them before its second
 * update); with 4 (RB_FULL_BIT) the matrices go whole, q*q floats from n * RB_HEAD + a * RB_FULL,
 * for batches of a few problems with large sets, where unpacking cost the host more than the
 * bytes (solver.c, batch.rbfull). */
#define RB_KWS GS_RB_KWS(q)
#define RB_FULL GS_RB_KWS_FULL(q)
#define RB_TRI(a, b) GS_RB_TRI(q, a, b)
#if GS_IN_PART(4)
__kernel void k_readback(__global const double *gap, __global const int *n_new,
                         __global const int *ws_pos, __global const int *new_slots,
                         __global const double *G, __global const float *K, __global const long *koff,
                         __global double *rb, int q, __global const gs_abi_round *rt, __global const gs_abi_problem *ptab,
                         __global float *kws, __global const int *ws_row, int parts,
                         __global const uchar *fresh)
{
    const int i = get_global_id(0), ai = get_group_id(1);
    __global const gs_abi_round *r = rt + ai;
    const int pid = r->pid, head = r->head, q_new = r->q_new;
    __global const gs_abi_problem *pt = ptab + pid;
    const int npos = pt->npos;
    G += pt->poff;
    K += koff[pid];
    ws_pos += q * pid;
    new_slots += q * pid;
    kws += (long)q * q * pid;
    ws_row += q * pid;
    fresh += q * pid;
    if (parts & 2) {
        __global double *h = rb + (long)ai * RB_HEAD;
        const int nn = n_new[pid];
        if (i < q) head_slot(h, q, i, ws_pos[i], ws_pos[i] >= 0 ? G[ws_pos[i]] : 0.0, nn, new_slots, ws_row[i]);
        if (i == 0) head_top(h, gap, pid, nn);
    }
    if (!(parts & 1)) return;
    const int full = (parts & 4) != 0;
    __global float *out = (__global float *)(rb + (long)get_num_groups(1) * RB_HEAD + ai * (full ? RB_FULL : RB_KWS));
    for (int e = i; e < q * q; e += get_global_size(0)) {
        const int a = e / q, b = e % q;
        const int b_win = (b - head + q) % q < q_new, a_win = (a - head + q) % q < q_new;
        float v;
        if (b_win || a_win) {
            if (b_win ? fresh[b] : fresh[a]) continue; /* k_gram's */
            const int pa = ws_pos[a], pb = ws_pos[b];
            v = (pa < 0 || pb < 0) ? 0.0f : (b_win ? K[(long)ws_row[b] * npos + pa] : K[(long)ws_row[a] * npos + pb]);
            kws[e] = v;
        } else {
            v = kws[e];
        }
        if (full) out[e] = v;
        else if (a <= b) out[RB_TRI(a, b)] = v;
    }
}
#endif

/* Work-group (slot a, active problem), GRAM_WG work-items over the new slots (each up to GRAM_KPI
 * of them, accumulated together so a's entries are staged once): the set's matrix entries that
 * come from this round's new kernel rows, without the rows. For new slot b (U column k) it
 * computes K(b, pos a) with the very multiply-adds k_rows (gs_row_dots) does for row a and vector
 * k, in the same order (a dense cluster's columns; a row-wise cluster's entries, zeros skipped), so
 * the value is the one k_rows writes into b's new row, bit for bit. A dense row's zeros are skipped
 * too when skip0 (every value of the data finite: then fma(0, u, acc) == acc, acc never being -0),
 * so only a's nonzeros read U. It writes entry (a, b) and, when slot a is outside the ring window,
 * (b, a) (see k_readback), to kws and the readback; work-group 0 marks the slots with new rows in
 * fresh. The full rows are then only needed by the next k_update, so k_rows runs after the read. */
#ifndef GRAM_WG
#define GRAM_WG 256
#endif
#define GRAM_KPI ((QMAX + GRAM_WG - 1) / GRAM_WG) /* new slots per work-item, at most */
#define GRAM_CH 256 /* a's columns staged at once */
#define GRAM_B 8    /* U loads in flight per work-item */
#if GS_IN_PART(3)
__kernel __attribute__((reqd_work_group_size(GRAM_WG, 1, 1)))
void k_gram(__global const long *col_off, __global const int *cols, __global const float *vals,
            __global const double *norm2, __global const float *U, __global const int *ws_pos,
            __global const int *new_slots, __global const int *n_new, int q, double gamma, double coef0,
            int degree, __global const int *ell_w, __global const long *ell_off, __global const int *ell_idx,
            __global const float *ell_val, __global const gs_abi_round *rt, __global const gs_abi_problem *ptab, long uq,
            __global double *rb, __global float *kws, __global uchar *fresh, int skip0, int rbfull)
{
    __local int lcol[GRAM_CH];
    __local float lx[GRAM_CH];
    __local int lm;
    const int a = get_group_id(0), ai = get_group_id(1), lid = get_local_id(0);
    __global const gs_abi_round *r = rt + ai;
    const int pid = r->pid, head = r->head, q_new = r->q_new;
    __global const gs_abi_problem *pt = ptab + pid;
    const int nn = n_new[pid];
    ws_pos += q * pid;
    new_slots += q * pid;
    U += uq * pid;
    kws += (long)q * q * pid;
    fresh += q * pid;
    if (a == 0)
        for (int e = lid; e < q; e += GRAM_WG) fresh[e] = 0;
    barrier(CLK_GLOBAL_MEM_FENCE); /* outside the branch: PoCL crashed on a barrier under it */
    if (a == 0)
        for (int k = lid; k < nn; k += GRAM_WG) fresh[new_slots[k]] = 1;
    if (nn == 0) return;
    const int pa = ws_pos[a];
    const int a_win = (a - head + q) % q < q_new;
    __global float *out = (__global float *)(rb + (long)get_num_groups(1) * RB_HEAD + ai * (rbfull ? RB_FULL : RB_KWS));
    /* this work-item's new slots k = lid + i * GRAM_WG: their slot, position and norm, loaded first */
    int kb[GRAM_KPI], kp[GRAM_KPI];
    double kn[GRAM_KPI];
    gs_acc_t acc[GRAM_KPI];
    for (int i = 0; i < GRAM_KPI; i++) {
        const int k = lid + i * GRAM_WG;
        kb[i] = k < nn ? new_slots[k] : 0;
        kp[i] = k < nn ? ws_pos[kb[i]] : -1;
        kn[i] = kp[i] >= 0 ? norm2[gpos(pt, kp[i])] : 0.0;
        acc[i] = 0.0f;
    }
    double na = 0.0;
    int ew = 0, cnt = 0, lane = 0;
    long b0 = 0;
    if (pa >= 0) {
        const int gp = gpos(pt, pa), c = gp / WG;
        lane = gp % WG;
        na = norm2[gp];
        ew = ell_w[c];
        b0 = ew > 0 ? GS_ROW_BASE(c, lane) : col_off[c];
        cnt = (int)(ew > 0 ? GS_ROW_LEN(c, lane, ew) : col_off[c + 1] - col_off[c]);
    }
#if KTYPE == 4
    /* nothing to sum: b's row at a is column ID_a of b's vector, as k_rows reads it */
    const int sa = pa >= 0 ? gs_pre_serial(col_off, vals, gpos(pt, pa) / WG, gpos(pt, pa) % WG) : 0;
    cnt = 0;
#elif GS_WIDE
    /* no block U: the new vectors read from the layout, as k_rows reads them for row a */
    for (int i = 0; i < GRAM_KPI; i++)
        if (kp[i] >= 0 && pa >= 0 && na != 0.0)
            acc[i] = gs_sparse_dot(gpos(pt, pa), gpos(pt, kp[i]), col_off, cols, vals, ell_w, ell_off, ell_idx,
                                   ell_val);
    cnt = 0;
#endif
    for (int j0 = 0; j0 < cnt; j0 += GRAM_CH) {
        const int jn = min(GRAM_CH, cnt - j0);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = lid; i < jn; i += GRAM_WG) {
            if (ew > 0) {
                lcol[i] = ell_idx[b0 + (long)(j0 + i) * GS_ROW_STEP];
                lx[i] = ell_val[b0 + (long)(j0 + i) * GS_ROW_STEP];
            } else {
                lcol[i] = cols[b0 + j0 + i];
                lx[i] = vals[(b0 + j0 + i) * WG + lane];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) { /* the entries that take part, in order (a few hundred at most: serial) */
            int m = 0;
            for (int i = 0; i < jn; i++) {
                const float xv = lx[i];
                if (xv != 0.0f || (ew == 0 && !skip0)) { lcol[m] = lcol[i]; lx[m] = xv; m++; }
            }
            lm = m;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const int m = lm;
        for (int i0 = 0; i0 < m; i0 += GRAM_B)
            for (int i = 0; i < GRAM_KPI; i++) {
                const int k = lid + i * GRAM_WG;
                if (k >= nn) break;
                __global const float *u = U + k;
                float uv[GRAM_B];
                for (int t = 0; t < GRAM_B; t++) uv[t] = i0 + t < m ? u[(long)lcol[i0 + t] * q] : 0.0f;
                for (int t = 0; t < GRAM_B && i0 + t < m; t++)
                    acc[i] = fma((gs_acc_t)lx[i0 + t], (gs_acc_t)uv[t], acc[i]);
            }
    }
    for (int i = 0; i < GRAM_KPI; i++) {
        const int k = lid + i * GRAM_WG;
        if (k >= nn) break;
        const int b = kb[i], pb = kp[i];
        float v = 0.0f;
        if (pa >= 0 && pb >= 0) {
#if KTYPE == 4
            v = sa > 0 ? U[(long)sa * q + k] : 0.0f;
#else
            const double dot = pa == pb ? na : (double)acc[i];
            v = (float)gs_kfun(dot, na, kn[i], gamma, coef0, degree);
#endif
        }
        const long e1 = (long)a * q + b;
        kws[e1] = v;
        if (rbfull) out[e1] = v;
        else if (a <= b) out[RB_TRI(a, b)] = v;
        if (!a_win) {
            const long e2 = (long)b * q + a;
            kws[e2] = v;
            if (rbfull) out[e2] = v;
            else if (b < a) out[RB_TRI(b, a)] = v;
        }
    }
}
#endif

/* Certification (src/train/solver.c, certify_batch): every row's exact gradient from its problem's
 * support vectors, in double, for all the batch's problems at once, q SVs per problem a pass.
 * Every pass's tables are uploaded at once, a pass's at slot sbase and cluster vbase:
 * ctab[a] (gs_abi_cert) = problem a of the pass: its batch index, its SVs this pass (n), the columns its
 * U block held before (nold); their global positions in cold / cnew[a * q + k] and coefficients
 * y alpha in ccoef[a * q + k]; vcc[2 v ..] = (a - sbase, local cluster) as vc is for the rounds.
 * k_cert_gather (k, a): SV k's vector into column k of problem a's U block, after clearing the
 * row the column held. k_cert, work-group (virtual cluster, group grp of ngrp), work-item = row:
 * over its blocks of WCH SVs (group grp takes blocks grp*bpg ..), sum_w coef_w K(x_t, u_w) with
 * the dot products summed in double (float x float is exact in double; gs_row_dots_d), or in
 * float when fdots says that is exact (integer values, squared norms below 2^24), and the
 * kernel in double, and the magnitude |coef_w| (|K_w| + s_w (n_t + n_w)) for the error bound,
 * s_w the kernel's sensitivity to the dot product (RBF gamma K, linear 1, polynomial
 * d gamma |base|^(d-1), sigmoid gamma sech^2 over the argument's error interval), into part[(poff + t) * 2 ngrp + grp] and [.. + ngrp + grp].
 * A row-wise cluster's rows take the group's SVs CERT_CB at a time (gs_ell_dots_cb): the same
 * dot products, and the same sums, as WCH at a time (the group's range stays on WCH's grid).
 * k_cert_sum adds a row's ngrp groups in order to its running sums gx and mx. ngrp is the
 * problem's (ctab), so its sums are the same whichever problems share the launch; the launch has
 * the pass's largest ngrp and a row's partials are gstride apart. */
#if GS_IN_PART(2)
__kernel void k_cert_gather(__global const int *cold, __global const int *cnew, __global const gs_abi_cert *ctab,
                            __global const long *col_off, __global const int *cols, __global const float *vals,
                            __global const int *ell_w, __global const long *ell_off, __global const int *ell_idx,
                            __global const float *ell_val, __global float *U, int q, long uq, int sbase)
{
    const int k = get_group_id(0), a = sbase + get_group_id(1);
    __global const gs_abi_cert *ct = ctab + a;
    if (GS_WIDE) return; /* no block U (k_cert) */
    U += uq * ct->prob;
    if (k < ct->nold && cold[a * q + k] >= 0)
        gs_put_row(cold[a * q + k], 1, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val, U, q, k);
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (k < ct->n) gs_put_row(cnew[a * q + k], 0, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val, U, q, k);
}
#endif

#if CERT_CB > WCH && !GS_WIDE && KTYPE != 4
/* k_cert's dot products of row t of row-wise cluster c with the m (<= CERT_CB) vectors w0 .. of the
 * block U, in double: gs_row_dots_d's row-wise sums (GS_ELL_DOTS, the same bits) for CERT_CB
 * vectors in one pass over the row. */
static void gs_ell_dots_cb(int c, int t, int w0, int m, __global const int *ell_w, __global const long *ell_off,
                    __global const int *ell_idx, __global const float *ell_val, __global const float *U, int q,
                    double *acc)
{
    double4 a4[CERT_CB / 4];
    for (int w = 0; w < CERT_CB / 4; w++) a4[w] = (double4)(0.0);
    /* full: 16-byte aligned, q a multiple of 4 and w0 one of WCH */
    GS_ELL_DOTS(CERT_CB, convert_double4, a4, c, t, ell_w[c], m == CERT_CB && (q & 3) == 0, m, U, q, w0);
    for (int w = 0; w < CERT_CB / 4; w++) vstore4(a4[w], w, acc);
}
#endif

#if GS_IN_PART(2)
__kernel void k_cert(__global const long *col_off, __global const int *cols, __global const float *vals,
                     __global const double *norm2, __global const float *U, __global const int *cnew,
                     __global const double *ccoef, int q, double gamma, double coef0, int degree,
                     __global const int *ell_w, __global const long *ell_off, __global const int *ell_idx,
                     __global const float *ell_val, __global const gs_abi_problem *ptab, __global double *part,
                     __global const gs_abi_cert *ctab, __global const int *vcc, long uq, int fdots, int sbase, int vbase,
                     int gstride, __global const double *cdots, int use_d, long dstride, int ncols)
{
#if GS_WIDE
    __local int ht[GS_HT];
    __local float hv[GS_HT];
    __local uchar hw[GS_HT];
#else
    __local double4 lu[GS_LU_FLOAT4S]; /* U staged as double (as float4s by gs_row_dots_f) */
#endif
    __local double lc[CERT_CB], ln[CERT_CB];
    __local int lp[CERT_CB];
    const int v = vbase + get_group_id(0), t = get_local_id(0), grp = get_group_id(1);
    const int a = sbase + vcc[2 * v], lcl = vcc[2 * v + 1];
    __global const gs_abi_cert *ct = ctab + a;
    const int pid = ct->prob, n = ct->n, ngrp = ct->ngrp;
    if (grp >= ngrp) return; /* the whole work-group: another problem of the pass has more groups */
    /* The host multiplies mag by (ncols + nsv + 17) u (solver.c cert_out). A kernel value's error
     * from its dot product's is at most sens (2 m + 3) u (|x|^2 + |y|^2), m <= ncols the dot's
     * nonzero products (plain double sums: the norms' and the dot's roundings, then two adds), which
     * needs no share of the SV count: the distance term is scaled so that it gets (2 ncols + 23) u,
     * the k term keeping (ncols + nsv + 17) u for the sum over the SVs. */
    const double rho = (2.0 * ncols + 23.0) / ((double)ncols + (double)ct->nsv + 17.0);
    __global const gs_abi_problem *pt = ptab + pid;
    const int c = gcl(pt, lcl), gp = c * WG + t;
    U += uq * pid;
    cnew += a * q;
    ccoef += a * q;
    const double ni = norm2[gp];
    double sum = 0.0, mag = 0.0;
    const int nb = (n + WCH - 1) / WCH, bpg = (nb + ngrp - 1) / ngrp;
    const int g1 = min(n, (grp + 1) * bpg * WCH); /* the group's range ends on WCH's grid, or at n */
#if CERT_CB > WCH && !GS_WIDE && KTYPE != 4
    const int step = ell_w[c] > 0 ? CERT_CB : WCH; /* the same in every work-item of the group */
#else
    const int step = WCH;
#endif
    /* this group's blocks of step vectors, one after the other (a fixed order: deterministic) */
    for (int w0 = grp * bpg * WCH; w0 < g1; w0 += step) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t < step) {
            const int ok = w0 + t < g1;
            lp[t] = ok ? cnew[w0 + t] : -1;
            lc[t] = ok ? ccoef[w0 + t] : 0.0;
            ln[t] = ok ? norm2[cnew[w0 + t]] : 0.0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        double acc[CERT_CB];
#if GS_COL_ROWS
        if (use_d) { /* k_cert_dots' sums (the same in every work-item of the group) */
            for (int w = 0; w < step; w++)
                acc[w] = w0 + w < g1 ? cdots[(long)(w0 + w) * dstride + pt->poff + lcl * WG + t] : 0.0;
        } else
#endif
#if CERT_CB > WCH && !GS_WIDE && KTYPE != 4
        if (step > WCH) {
            gs_ell_dots_cb(c, t, w0, min(CERT_CB, g1 - w0), ell_w, ell_off, ell_idx, ell_val, U, q, acc);
        } else
#endif
        {
#if KTYPE == 4
            const int sr = gs_pre_serial(col_off, vals, c, t);
            for (int w = 0; w < WCH; w++) acc[w] = (w0 + w < n && sr > 0) ? (double)U[(long)sr * q + w0 + w] : 0.0;
#elif GS_WIDE /* no block U: the SVs looked up as k_rows does (the same in every work-item) */
            if (fdots) {
                float af[WCH];
                gs_block_dots_wide_f(gp, min(WCH, n - w0), lp, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val,
                                     ht, hv, hw, af);
                for (int w = 0; w < WCH; w++) acc[w] = af[w];
            } else {
                gs_block_dots_wide_d(gp, min(WCH, n - w0), lp, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val,
                                     ht, hv, hw, acc);
            }
#else
            if (fdots) { /* the same in every work-item of the group */
                float af[WCH];
                gs_row_dots_f(c, t, w0, n, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val, U, q,
                              (__local float4 *)lu, af);
                for (int w = 0; w < WCH; w++) acc[w] = af[w];
            } else {
                gs_row_dots_dd(c, t, w0, n, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val, U, q, lu, acc);
            }
#endif
        }
        for (int w = 0; w < step; w++) {
            if (w0 + w >= g1) break;
#if KTYPE == 4
            const double k = acc[w], sens = 0.0; /* read, not computed: no rounding to bound */
#else
            const double dot = gp == lp[w] ? ni : acc[w];
            const double k = gs_kfun(dot, ni, ln[w], gamma, coef0, degree);
#endif
#if KTYPE == 0
            const double sens = 1.0;
#elif KTYPE == 1
            const double sens = degree * gamma * pown(fabs(gamma * dot + coef0), max(degree - 1, 0));
#elif KTYPE == 2
            const double sens = gamma * k;
#elif KTYPE == 3
            /* tanh' = sech^2 <= 4 exp(-2 |arg|), at most 1, over the argument's error interval
             * (gamma times the dot product's error, below (n_t + n_w) 2^-24 for any column count
             * up to 2^29): saturated arguments of unscaled data are insensitive */
            const double arg = fabs(gamma * dot + coef0) - fabs(gamma) * (ni + ln[w]) * 0x1p-24;
            const double sens = arg > 0.0 ? gamma * fmin(1.0, 4.0 * exp(-2.0 * arg)) : gamma;
#endif
            sum += lc[w] * k;
            mag += fabs(lc[w]) * (fabs(k) + rho * fabs(sens) * (ni + ln[w]));
        }
    }
    const long r = (long)(pt->poff + lcl * WG + t) * (2 * gstride);
    part[r + grp] = sum;
    part[r + gstride + grp] = mag;
}
#endif

#if GS_IN_PART(2)
__kernel void k_cert_sum(__global const double *part, __global const gs_abi_cert *ctab, __global const int *vcc,
                         __global const gs_abi_problem *ptab, __global double *gx, __global double *mx, int gstride,
                         int sbase, int vbase)
{
    const int v = vbase + get_group_id(0), t = get_local_id(0);
    const int a = sbase + vcc[2 * v], lcl = vcc[2 * v + 1];
    __global const gs_abi_problem *pt = ptab + ctab[a].prob;
    const int pos = pt->poff + lcl * WG + t, ngrp = ctab[a].ngrp;
    double s = 0.0, m = 0.0;
    for (int g = 0; g < ngrp; g++) {
        s += part[(long)pos * (2 * gstride) + g];
        m += part[(long)pos * (2 * gstride) + gstride + g];
    }
    gx[pos] += s;
    mx[pos] += m;
}
#endif
