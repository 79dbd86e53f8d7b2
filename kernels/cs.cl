/* cs.cl — device side of the Crammer–Singer multiclass trainer (src/train/cs.c).
 *
 * Positions t in [0, NPOS) index the clustered layout (cluster t / WG, row t % WG); padding rows
 * have cls = -1 and are never selected. Per example t and class m the device keeps the dual
 * variable A[m][t] and the gradient G[m][t] = delta(m, y_t) - sum_s A[m][s] K(s, t) of the dual
 * (the GTSVM paper's eq. 4), both double, class-major so that neighbouring work-items read
 * neighbouring addresses. Per round the host enqueues:
 *   cs_update  : G[m][t] -= sum_u dA[u][m] K[slot_u][t] over the working-set slots that changed,
 *                A[.][t] of the working set from the host, then the KKT violation of every example
 *                v_t = max_{m: A[m][t] < B_m} G[m][t] - min_m G[m][t]  (B_m = C for m = y_t, else 0;
 *                the paper's §5.1 heuristic, after Crammer and Singer), its selection key and the
 *                per-group maximum of v
 *   cs_gap     : the largest violation, and the smallest key eligible this round (v >= max(eps,
 *                sel * the largest))
 *   cs_hist / cs_pick x6 : radix select (11 bits per pass) of the q-th largest eligible 64-bit key;
 *                keys are unique (violation as float in the high word, position in the low word, so
 *                ties go to the lower position) and exactly min(q, eligible) rows lie at or above it
 *   cs_collect : those rows, appended in any order to cand
 *   cs_merge   : one work-group: sorts cand by position (the set is then deterministic), leaves rows
 *                that already hold a slot in it (their kernel rows stay valid) and puts the others
 *                in empty slots or in those of the rows selected longest ago; the working set is
 *                every occupied slot, so earlier rows stay in it while there is room
 *   cs_gather, cs_rows : kernel rows K[slot][t] of the new slots over every row
 *   cs_readback: maximal violation, slot positions, the set's gradients and the new Gram entries
 *                into one buffer, read by the host with one blocking read
 *
 * Tunables (-D): WG (cluster size = work-group size), KTYPE (0 linear, 1 poly, 2 rbf, 3 sigmoid),
 * CB (classes accumulated per pass over the kernel rows in cs_update), WCH (new
 * slots per register block in cs_rows), CCH (columns staged per step), QMAX (power of two >= the
 * working-set size and >= MWG), MWG (work-group size of cs_gap, cs_pick and cs_merge). The number
 * of classes is an argument, so one program serves every problem. */
#ifndef WG
#define WG 256
#endif
#ifndef KTYPE
#define KTYPE 2
#endif
#ifndef CB
#define CB 16
#endif
#ifndef WCH
#define WCH 16
#endif
#ifndef CCH
#define CCH 16
#endif
#ifndef QMAX
#define QMAX 512
#endif
#ifndef MWG
#define MWG 256
#endif
#define NBINS GS_CS_NBINS /* kernels/abi.h, as the selection's state (gs_abi_cs_state) and the */
#define NPASS GS_CS_NPASS /* update and readback buffers' layouts (GS_CS_UPD_*, GS_CS_RB_*) */

/* Bits [shift, shift + width) of the key are pass p's digit: 11 bits from the top, 9 in the last. */
inline int pass_shift(int p) { return p < NPASS - 1 ? 53 - 11 * p : 0; }
inline uint pass_mask(int p) { return p < NPASS - 1 ? 0x7FFu : 0x1FFu; }

__kernel void cs_init(__global double *G, __global double *A, __global const int *cls, int npos, int nclass)
{
    const int t = get_global_id(0);
    if (t >= npos) return;
    const int y = cls[t];
    for (int m = 0; m < nclass; m++) {
        G[(long)m * npos + t] = (y >= 0 && m == y) ? 1.0 : 0.0;
        A[(long)m * npos + t] = 0.0;
    }
}

/* upd (doubles, GS_CS_UPD_*): [nupd * k] the changes dA of the updated slots, [nupd] their slot
 * numbers, then [q * k] the new alphas of every working-set slot (rows that hold slot s get them). */
__kernel void cs_update(__global double *G, __global double *A, __global const int *cls,
                        __global const float *K, __global const double *upd, int nupd, int q,
                        __global const int *slot_of, int npos, double C, double eps,
                        __global ulong *key, __global double *gmax, __global gs_abi_cs_state *state, int nclass)
{
    __local double lmax[WG];
    const int t = get_global_id(0), lid = get_local_id(0);
    if (t == 0) { state->prefix = 0; state->mask = 0; state->need = 0; state->selected = 0; state->low = 0; }
    double v = -INFINITY;
    const int y = t < npos ? cls[t] : -1;
    if (y >= 0) {
        __global const double *dA = upd;
        __global const double *uslot = upd + GS_CS_UPD_SLOTS((long)nupd, nclass);
        __global const double *anew = upd + GS_CS_UPD_ALPHAS((long)nupd, nclass);
        for (int m0 = 0; m0 < nclass; m0 += CB) {
            double acc[CB];
            for (int j = 0; j < CB; j++) acc[j] = 0.0;
            for (int u = 0; u < nupd; u++) {
                const double kv = (double)K[(long)uslot[u] * npos + t];
                __global const double *d = dA + (long)u * nclass + m0;
                for (int j = 0; j < CB && m0 + j < nclass; j++) acc[j] += d[j] * kv;
            }
            for (int j = 0; j < CB && m0 + j < nclass; j++) G[(long)(m0 + j) * npos + t] -= acc[j];
        }
        const int s = slot_of[t];
        if (s >= 0 && s < q)
            for (int m = 0; m < nclass; m++) A[(long)m * npos + t] = anew[(long)s * nclass + m];
        double up = -INFINITY, lo = INFINITY;
        for (int m = 0; m < nclass; m++) {
            const double g = G[(long)m * npos + t];
            if (A[(long)m * npos + t] < (m == y ? C : 0.0)) up = fmax(up, g);
            lo = fmin(lo, g);
        }
        v = up - lo;
    }
    if (t < npos) {
        /* only violations of at least eps are candidates; v >= eps > 0 makes the float's bits an
         * order-preserving non-zero integer, and the low word prefers lower positions on ties */
        key[t] = v >= eps ? ((ulong)as_uint((float)v) << 32) | (ulong)(0xFFFFFFFFu - (uint)t) : 0ul;
    }
    lmax[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) lmax[lid] = fmax(lmax[lid], lmax[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) gmax[get_group_id(0)] = lmax[0];
}

/* One work-group of MWG: the largest violation (gap[0]) and the smallest eligible key: rows whose
 * violation is below max(eps, sel * gap) are not selected this round. */
__kernel void cs_gap(__global const double *gmax, int ngroups, __global double *gap,
                     __global gs_abi_cs_state *state, double eps, double sel)
{
    __local double lm[MWG];
    const int lid = get_local_id(0);
    double a = -INFINITY;
    for (int g = lid; g < ngroups; g += MWG) a = fmax(a, gmax[g]);
    lm[lid] = a;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int st = MWG / 2; st > 0; st >>= 1) {
        if (lid < st) lm[lid] = fmax(lm[lid], lm[lid + st]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        gap[0] = lm[0];
        const double thr = fmax(eps, sel * lm[0]);
        state->low = isfinite(thr) ? (ulong)as_uint((float)thr) << 32 : 0ul;
    }
}

/* Histogram of pass p's digit over the keys that match the prefix found so far. */
__kernel void cs_hist(__global const ulong *key, __global const gs_abi_cs_state *state, __global uint *hist,
                      int p, int npos)
{
    __local uint lh[NBINS];
    const int lid = get_local_id(0);
    for (int i = lid; i < NBINS; i += get_local_size(0)) lh[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int shift = pass_shift(p);
    const uint dmask = pass_mask(p);
    const ulong prefix = state->prefix, mask = state->mask, low = state->low;
    for (int t = get_global_id(0); t < npos; t += get_global_size(0)) {
        const ulong k = key[t];
        if (k != 0ul && k >= low && (k & mask) == prefix) atomic_inc(&lh[(uint)(k >> shift) & dmask]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < NBINS; i += get_local_size(0))
        if (lh[i]) atomic_add(&hist[i], lh[i]);
}

/* One work-group of MWG: the digit holding the wanted key (counting from the largest), and on the
 * first pass the number of rows to select, min(q, eligible). Clears hist for the next pass. */
__kernel void cs_pick(__global gs_abi_cs_state *state, __global uint *hist, int p, int q)
{
    __local uint h[NBINS];
    __local uint part[MWG];
    const int lid = get_local_id(0);
    const int per = NBINS / MWG;
    const int shift = pass_shift(p);
    const uint dmask = pass_mask(p);
    uint need = (uint)state->need;
    for (int i = lid; i < NBINS; i += MWG) { h[i] = hist[i]; hist[i] = 0; }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* work-item lid counts bins NBINS-1-lid*per down to NBINS-per-lid*per: from the top */
    uint s = 0;
    for (int i = 0; i < per; i++) s += h[NBINS - 1 - (lid * per + i)];
    part[lid] = s;
    gs_scan_u(part, lid, MWG);
    if (p == 0) {
        const uint total = part[MWG - 1];
        need = total < (uint)q ? total : (uint)q;
        if (lid == 0) state->selected = need;
    }
    const uint above = lid ? part[lid - 1] : 0u;
    if (need > 0 && above < need && need <= part[lid]) {
        uint cum = above;
        for (int i = 0; i < per; i++) {
            const int b = NBINS - 1 - (lid * per + i);
            if (cum + h[b] >= need) {
                state->prefix |= (ulong)((uint)b & dmask) << shift;
                state->mask |= (ulong)dmask << shift;
                state->need = need - cum;
                break;
            }
            cum += h[b];
        }
    }
}

/* The selected rows: keys at or above the threshold (exactly state->selected of them, keys being
 * unique). */
__kernel void cs_collect(__global const ulong *key, __global const gs_abi_cs_state *state,
                         __global uint *count, __global int *cand, int npos)
{
    const int t = get_global_id(0);
    if (t >= npos || state->selected == 0) return;
    const ulong k = key[t];
    if (k != 0ul && k >= state->prefix && k >= state->low) cand[atomic_inc(count)] = t;
}

/* One work-group of MWG. Slots 0..q-1; ws_pos[s] = row in slot s or -1, slot_of[t] the inverse,
 * last[s] the round its row was last selected. Selected rows that hold a slot keep it; each other
 * selected row takes a slot that is empty or else holds the row selected longest ago (ties: lower
 * slot), so earlier rows stay in the working set, with their kernel rows, while there is room:
 * examples that disturb each other are then solved together instead of in alternate rounds.
 * new_slots[0..n_new) lists the slots whose kernel rows must be computed, in position order. Also
 * clears count for the next round. */
__kernel void cs_merge(__global const gs_abi_cs_state *state, __global const int *cand, __global uint *count,
                       __global int *ws_pos, __global int *slot_of, __global int *last,
                       __global int *new_slots, __global int *n_new, int q, int round)
{
    __local int lc[QMAX];     /* candidates, sorted by position */
    __local int keep[QMAX];   /* slot s keeps its row */
    __local int res[QMAX];    /* candidate e already holds a slot */
    __local int v[QMAX];      /* scan scratch */
    __local ulong sk[QMAX];   /* replaceable slots by (age, slot) */
    __local int part[MWG];
    const int lid = get_local_id(0);
    const int nsel = (int)state->selected;
    for (int e = lid; e < QMAX; e += MWG) {
        lc[e] = e < nsel ? cand[e] : INT_MAX;
        keep[e] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (lid == 0) count[0] = 0;
    for (int size = 2; size <= QMAX; size <<= 1) { /* bitonic sort, ascending */
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            for (int i = lid; i < QMAX / 2; i += MWG) {
                const int lo = 2 * i - (i & (stride - 1)), hi = lo + stride;
                const int up = (lo & size) == 0;
                const int a = lc[lo], b = lc[hi];
                if ((a > b) == up) { lc[lo] = b; lc[hi] = a; }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    for (int e = lid; e < QMAX; e += MWG) {
        res[e] = 0;
        if (e < nsel) {
            const int s = slot_of[lc[e]];
            if (s >= 0) { res[e] = 1; keep[s] = 1; last[s] = round; }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    for (int s = lid; s < QMAX; s += MWG) {
        const ulong age = ws_pos[s < q ? s : 0] >= 0 ? (ulong)last[s < q ? s : 0] + 1ul : 0ul;
        sk[s] = (s < q && !keep[s]) ? (age << 32) | (ulong)s : ULONG_MAX;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int size = 2; size <= QMAX; size <<= 1) {
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            for (int i = lid; i < QMAX / 2; i += MWG) {
                const int lo = 2 * i - (i & (stride - 1)), hi = lo + stride;
                const int up = (lo & size) == 0;
                const ulong a = sk[lo], b = sk[hi];
                if ((a > b) == up) { sk[lo] = b; sk[hi] = a; }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    for (int e = lid; e < QMAX; e += MWG) v[e] = (e < nsel && !res[e]) ? 1 : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int nn = gs_block_scan(v, part, lid);
    for (int e = lid; e < nsel; e += MWG) {
        if (res[e]) continue;
        const int s = (int)(sk[v[e]] & 0xFFFFFFFFul);
        const int old = ws_pos[s];
        if (old >= 0) slot_of[old] = -1;
        ws_pos[s] = lc[e];
        slot_of[lc[e]] = s;
        last[s] = round;
        new_slots[v[e]] = s;
    }
    if (lid == 0) n_new[0] = nn;
}

/* Group k (< n_new) writes the vector of new slot k into column k of the dense block U[col][k],
 * after clearing the vector it held before (u_pos). */
__kernel void cs_gather(__global const int *ws_pos, __global const int *new_slots,
                        __global const int *n_new, __global int *u_pos, __global const long *col_off,
                        __global const int *cols, __global const float *vals, __global float *U, int q,
                        __global const int *ell_w, __global const long *ell_off,
                        __global const int *ell_idx, __global const float *ell_val)
{
    const int k = get_group_id(0), lid = get_local_id(0);
    if (k >= n_new[0]) return;
    const int old = u_pos[k];
    if (old >= 0) gs_put_row(old, 1, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val, U, q, k);
    barrier(CLK_GLOBAL_MEM_FENCE);
    const int p = ws_pos[new_slots[k]];
    gs_put_row(p, 0, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val, U, q, k);
    if (lid == 0) u_pos[k] = p;
}

/* Work-group (cluster c, new slots w0..w0+WCH), work-item = row: K[slot][row]. Dense clusters
 * stage CCH columns of the WCH working-set vectors in local memory (the paper's Algorithm 1);
 * row-wise clusters gather the vectors at each of the row's columns. */
__kernel void cs_rows(__global const long *col_off, __global const int *cols,
                      __global const float *vals, __global const double *norm2,
                      __global const float *U, __global const int *ws_pos,
                      __global const int *new_slots, __global const int *n_new, __global float *K,
                      int q, int npos, double gamma, double coef0, int degree,
                      __global const int *ell_w, __global const long *ell_off,
                      __global const int *ell_idx, __global const float *ell_val)
{
    __local float4 lu[GS_LU_FLOAT4S];
    const int c = get_group_id(0), t = get_local_id(0);
    const int w0 = get_group_id(1) * WCH;
    const int nn = n_new[0];
    if (w0 >= nn) return;
    const int pos = c * WG + t;
    const double ni = norm2[pos];
    gs_acc_t acc[WCH];
    gs_row_dots(c, t, w0, nn, col_off, cols, vals, ell_w, ell_off, ell_idx, ell_val, U, q, lu, acc);
    for (int w = 0; w < WCH && w0 + w < nn; w++) {
        const int s = new_slots[w0 + w];
        const int p = ws_pos[s];
        const double dot = pos == p ? ni : (double)acc[w];
        K[(long)s * npos + pos] = (float)gs_kfun(dot, ni, norm2[p], gamma, coef0, degree);
    }
}

/* rb (doubles, GS_CS_RB_*): the maximal violation, rows selected, n_new; ws_pos, new_slots (-1 past
 * n_new), G of each slot (slot-major), then floats: gram[e*q + s] = K(new slot e, slot s) for
 * e < n_new. */
__kernel void cs_readback(__global const double *gap, __global const gs_abi_cs_state *state,
                          __global const int *n_new, __global const int *ws_pos,
                          __global const int *new_slots, __global const double *G,
                          __global const float *K, __global double *rb, int q, int npos, int nclass)
{
    const int i = get_global_id(0);
    const int nn = n_new[0];
    if (i < q) {
        const int p = ws_pos[i];
        rb[GS_CS_RB_WS_POS(q) + i] = (double)p;
        rb[GS_CS_RB_NEW_SLOTS(q) + i] = i < nn ? (double)new_slots[i] : -1.0;
        for (int m = 0; m < nclass; m++)
            rb[GS_CS_RB_G(q) + (long)i * nclass + m] = p >= 0 ? G[(long)m * npos + p] : 0.0;
    }
    if (i == 0) {
        rb[GS_CS_RB_GAP] = gap[0];
        rb[GS_CS_RB_SELECTED] = (double)state->selected;
        rb[GS_CS_RB_NNEW] = (double)nn;
        for (int h = GS_CS_RB_NNEW + 1; h < GS_CS_RB_HEAD; h++) rb[h] = 0.0;
    }
    __global float *gram = (__global float *)(rb + GS_CS_RB_DOUBLES((long)q, nclass));
    for (int e = i; e < nn * q; e += get_global_size(0)) {
        const int k = e / q, s = e % q;
        const int ps = ws_pos[s];
        gram[e] = ps >= 0 ? K[(long)new_slots[k] * npos + ps] : 0.0f;
    }
}
