/* bench-cluster.c — times gs_cluster_build_seg (src/data/cluster.c) on a data file's rows grouped by
 * label (one segment per class, as gpusvm-train clusters a classification set), with the cluster
 * size and active clusters of svm-train's defaults (256, 64) and seed 1, on the CPUs this process may
 * use: run it under `taskset -c 0` for one. A measurement tool, not part of gpusvm;
 * docs/performance.md cites it. Build after make (BUILD=build by default):
 *   cc -std=c11 -O2 -D_DEFAULT_SOURCE -Isrc -Iinclude -Ibuild scripts/bench-cluster.c \
 *      build/libgs.a -lOpenCL -lz -lm -lpthread -o bcl
 *   ./bcl FILE [REPEATS]      (prints each run's time, its greedy pass and its layout, and a
 *                              checksum of the layout, equal for equal layouts) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/cluster.h"
#include "io/data.h"
#include "util/log.h"

/* rows grouped by label, labels in first-seen order, rows in file order within each */
static int32_t group(const gs_problem *p, int32_t *order, int32_t *seg)
{
    double labels[1024];
    int32_t nl = 0, count[1024] = {0};
    int32_t *lab = malloc(sizeof *lab * (size_t)p->l);
    for (int32_t i = 0; i < p->l; i++) {
        int32_t k = 0;
        while (k < nl && labels[k] != p->y[i]) k++;
        if (k == nl) {
            if (nl == 1024) { free(lab); return -1; }
            labels[nl++] = p->y[i];
        }
        lab[i] = k;
        count[k]++;
    }
    seg[0] = 0;
    for (int32_t k = 0; k < nl; k++) seg[k + 1] = seg[k] + count[k];
    int32_t at[1024];
    memcpy(at, seg, sizeof at);
    for (int32_t i = 0; i < p->l; i++) order[at[lab[i]]++] = i;
    free(lab);
    return nl;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [REPEATS]\n", argv[0]);
        return 2;
    }
    gs_problem p;
    if (gs_data_read(argv[1], &p) != GS_OK) {
        fprintf(stderr, "%s\n", gs_last_error());
        return 1;
    }
    const int repeats = argc > 2 ? atoi(argv[2]) : 3;
    int32_t *order = malloc(sizeof *order * (size_t)p.l), seg[1025];
    const int32_t nseg = group(&p, order, seg);
    if (nseg < 1) {
        fprintf(stderr, "more than 1024 labels\n");
        return 1;
    }
    /* the rows in class order, as a CSR of their own */
    int64_t *rp = malloc(sizeof *rp * ((size_t)p.l + 1));
    int32_t *idx = malloc(sizeof *idx * (size_t)(p.nnz ? p.nnz : 1));
    float *val = malloc(sizeof *val * (size_t)(p.nnz ? p.nnz : 1));
    rp[0] = 0;
    for (int32_t i = 0; i < p.l; i++) {
        const int32_t r = order[i];
        const int64_t n = p.row_ptr[r + 1] - p.row_ptr[r];
        memcpy(idx + rp[i], p.idx + p.row_ptr[r], sizeof *idx * (size_t)n);
        memcpy(val + rp[i], p.val + p.row_ptr[r], sizeof *val * (size_t)n);
        rp[i + 1] = rp[i] + n;
    }
    for (int rep = 0; rep < repeats; rep++) {
        gs_clustered cl;
        if (gs_cluster_build_seg(rp, idx, val, p.l, nseg, seg, 256, 64, 1, &cl) != GS_OK) {
            fprintf(stderr, "%s\n", gs_last_error());
            return 1;
        }
        uint64_t h = 1469598103934665603ull;
        for (int32_t t = 0; t < cl.n_pos; t++) h = (h ^ (uint64_t)(uint32_t)cl.perm[t]) * 1099511628211ull;
        for (int32_t c = 0; c <= cl.n_clusters; c++) h = (h ^ (uint64_t)cl.col_off[c]) * 1099511628211ull;
        printf("%d segments: %.4f s (greedy pass and the rest %.4f s, layout %.4f s) layout %016llx\n", nseg,
               cl.seconds, cl.seconds - cl.layout_seconds, cl.layout_seconds, (unsigned long long)h);
        gs_clustered_free(&cl);
    }
    return 0;
}
