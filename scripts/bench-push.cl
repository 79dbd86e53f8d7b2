/* bench-push.cl — scripts/bench-push.c's two ways to the dot products of WS working-set vectors
 * with every row of sparse data (a prototype for issue #26 item 1; not part of gpusvm).
 *
 * k_pull, by row (as kernels/common.cl's row-wise ELL path): work-group = cluster of 256 rows,
 * work-item = row, second dimension = block of 16 vectors; each row walks its nonzeros in
 * ascending column order and gathers the 16 vectors' values from the dense block U
 * (U[col * ws + w], zero where a vector has no value): out[w][row] = fma chain.
 *
 * k_push, by column: the rows in chunks of CH, each chunk's entries stored column by column
 * (columns ascending, a column's entries by row); work-group = (chunk, vector): the vector's
 * nonzeros in ascending column order each find their column in the chunk (binary search) and add
 * its entries into CH sums in local memory. A row's sum gets the same fma terms in the same order
 * as by row (the terms by row whose vector value is zero leave an fma's sum unchanged), so the
 * results are the same bits. */

__kernel void k_pull(__global const long *ell_off, __global const int *ell_w, __global const int *ell_idx,
                     __global const float *ell_val, __global const float *U, int ws, int n, __global float *out)
{
    const int c = get_group_id(0), t = get_local_id(0), w0 = get_group_id(1) * 16;
    const int row = c * 256 + t;
    const long b = ell_off[c];
    const int ew = ell_w[c];
    float4 a[4] = {(float4)(0.0f), (float4)(0.0f), (float4)(0.0f), (float4)(0.0f)};
    for (int e = 0; e < ew; e++) {
        const int col = ell_idx[b + (long)e * 256 + t];
        if (col < 0) break;
        const float xv = ell_val[b + (long)e * 256 + t];
        if (xv == 0.0f) continue;
        __global const float4 *u4 = (__global const float4 *)(U + (long)col * ws + w0);
        for (int k = 0; k < 4; k++) a[k] = fma((float4)(xv), u4[k], a[k]);
    }
    if (row >= n) return;
    for (int k = 0; k < 4; k++) {
        out[(long)(w0 + 4 * k) * n + row] = a[k].x;
        out[(long)(w0 + 4 * k + 1) * n + row] = a[k].y;
        out[(long)(w0 + 4 * k + 2) * n + row] = a[k].z;
        out[(long)(w0 + 4 * k + 3) * n + row] = a[k].w;
    }
}

__kernel void k_push(__global const int *chunk_cols, __global const int *ccol, __global const int *coff,
                     __global const ushort *erow, __global const float *eval, __global const long *wsp_off,
                     __global const int *wsp_idx, __global const float *wsp_val, int n, __global float *out)
{
    __local float acc[CH];
    const int h = get_group_id(0), w = get_group_id(1), t = get_local_id(0), nt = get_local_size(0);
    for (int r = t; r < CH; r += nt) acc[r] = 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int k0 = chunk_cols[h], k1 = chunk_cols[h + 1];
    for (long p = wsp_off[w]; p < wsp_off[w + 1]; p++) {
        const int j = wsp_idx[p];
        const float v = wsp_val[p];
        /* the column's place among the chunk's (every work-item the same loads) */
        int lo = k0, hi = k1;
        while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            if (ccol[mid] < j) lo = mid + 1;
            else hi = mid;
        }
        if (lo == k1 || ccol[lo] != j || v == 0.0f) continue; /* uniform: no barrier skipped unevenly */
        for (int e = coff[lo] + t; e < coff[lo + 1]; e += nt) acc[erow[e]] = fma(eval[e], v, acc[erow[e]]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int base = h * CH;
    for (int r = t; r < CH && base + r < n; r += nt) out[(long)w * n + base + r] = acc[r];
}

/* k_push8: as k_push, but a work-group serves 8 vectors, 32 work-items each (one NVIDIA warp), with
 * 8 x CH sums in local memory (CH <= 1536 for 48 KiB); a vector's column search starts where its
 * previous one ended (the vector's columns ascend). The groups step through their vectors' nonzeros
 * together (the longest vector's count), a barrier after each. */
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void k_push8(__global const int *chunk_cols, __global const int *ccol, __global const int *coff,
             __global const ushort *erow, __global const float *eval, __global const long *wsp_off,
             __global const int *wsp_idx, __global const float *wsp_val, int n, __global float *out)
{
    __local float acc[8 * CH];
    __local int lens[8];
    const int h = get_group_id(0), t = get_local_id(0), g = t >> 5, lane = t & 31;
    const int w = get_group_id(1) * 8 + g;
    for (int r = t; r < 8 * CH; r += 256) acc[r] = 0.0f;
    const long p0 = wsp_off[w];
    const int len = (int)(wsp_off[w + 1] - p0);
    if (lane == 0) lens[g] = len;
    barrier(CLK_LOCAL_MEM_FENCE);
    int most = 0;
    for (int k = 0; k < 8; k++) most = max(most, lens[k]);
    const int k1 = chunk_cols[h + 1];
    int lo = chunk_cols[h];
    __local float *a = acc + g * CH;
    for (int q = 0; q < most; q++) {
        if (q < len) {
            const int j = wsp_idx[p0 + q];
            const float v = wsp_val[p0 + q];
            int hi = k1;
            while (lo < hi) {
                const int mid = (lo + hi) >> 1;
                if (ccol[mid] < j) lo = mid + 1;
                else hi = mid;
            }
            if (lo < k1 && ccol[lo] == j && v != 0.0f)
                for (int e = coff[lo] + lane; e < coff[lo + 1]; e += 32) a[erow[e]] = fma(eval[e], v, a[erow[e]]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const int base = h * CH, w0 = get_group_id(1) * 8;
    for (int r = t; r < 8 * CH; r += 256) {
        const int k = r / CH, row = base + r % CH;
        if (row < n) out[(long)(w0 + k) * n + row] = acc[r];
    }
}

/* k_push2: as k_push, but the vector's column searches run in parallel (one nonzero a work-item,
 * 256 at a time, each slot keeping its column's span of entries in local memory); then the slots
 * whose column the chunk has are pushed one after another, a barrier after each. */
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void k_push2(__global const int *chunk_cols, __global const int *ccol, __global const int *coff,
             __global const ushort *erow, __global const float *eval, __global const long *wsp_off,
             __global const int *wsp_idx, __global const float *wsp_val, int n, __global float *out)
{
    __local float acc[CH];
    __local int s0[256], s1[256];
    __local float sv[256];
    const int h = get_group_id(0), w = get_group_id(1), t = get_local_id(0);
    for (int r = t; r < CH; r += 256) acc[r] = 0.0f;
    const int k0 = chunk_cols[h], k1 = chunk_cols[h + 1];
    const long p0 = wsp_off[w], p1 = wsp_off[w + 1];
    for (long pb = p0; pb < p1; pb += 256) {
        barrier(CLK_LOCAL_MEM_FENCE);
        int a = 0, b = 0;
        float v = 0.0f;
        if (pb + t < p1) {
            const int j = wsp_idx[pb + t];
            v = wsp_val[pb + t];
            int lo = k0, hi = k1;
            while (lo < hi) {
                const int mid = (lo + hi) >> 1;
                if (ccol[mid] < j) lo = mid + 1;
                else hi = mid;
            }
            if (lo < k1 && ccol[lo] == j && v != 0.0f) {
                a = coff[lo];
                b = coff[lo + 1];
            }
        }
        s0[t] = a;
        s1[t] = b;
        sv[t] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        const int m = (int)min((long)256, p1 - pb);
        for (int q = 0; q < m; q++) {
            const int qa = s0[q], qb = s1[q];
            if (qa == qb) continue; /* uniform */
            const float vq = sv[q];
            for (int e = qa + t; e < qb; e += 256) acc[erow[e]] = fma(eval[e], vq, acc[erow[e]]);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int base = h * CH;
    for (int r = t; r < CH && base + r < n; r += 256) out[(long)w * n + base + r] = acc[r];
}
