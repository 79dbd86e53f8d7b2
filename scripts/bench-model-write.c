/* bench-model-write.c — times gs_model_sv_values and gs_model_write (src/io/model.c) on a model
 * made of a data file's first N rows as SVs (coefficients drawn with a fixed seed, a third at the
 * bound), the way a large sparse set's model is written. A measurement tool, not part of gpusvm;
 * docs/performance.md cites it. Build after make (BUILD=build by default):
 *   cc -std=c11 -O2 -D_DEFAULT_SOURCE -Isrc -Iinclude -Ibuild scripts/bench-model-write.c \
 *      build/libgs.a -lOpenCL -lz -lm -lpthread -o bmw
 *   ./bmw FILE N OUT.model [REPEATS]      (prints each run's two times) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/data.h"
#include "io/model.h"
#include "util/log.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s FILE N OUT.model [REPEATS]\n", argv[0]);
        return 2;
    }
    gs_problem p;
    if (gs_data_read(argv[1], &p) != GS_OK) {
        fprintf(stderr, "%s\n", gs_last_error());
        return 1;
    }
    int32_t l = (int32_t)atol(argv[2]);
    if (l > p.l) l = p.l;
    const int repeats = argc > 4 ? atoi(argv[4]) : 3;
    const int64_t nnz = p.row_ptr[l];
    double rho = 0.123;
    int lab[2] = {1, -1}, nsv[2] = {l / 2, l - l / 2};
    gs_model m = {.svm_type = 0, .kernel_type = 2, .gamma = 1, .nr_class = 2, .l = l, .n_coef = 1,
                  .rho = &rho, .label = lab, .nSV = nsv, .sv_idx = p.idx};
    m.sv_coef = malloc(sizeof *m.sv_coef * (size_t)(l ? l : 1));
    m.sv_ptr = malloc(sizeof *m.sv_ptr * ((size_t)l + 1));
    m.sv_val = malloc(sizeof *m.sv_val * (size_t)(nnz ? nnz : 1));
    if (!m.sv_coef || !m.sv_ptr || !m.sv_val) return 1;
    uint64_t r = 88172645463325252ull;
    for (int32_t i = 0; i < l; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        m.sv_coef[i] = r % 3 == 0 ? (i % 2 ? 1.0 : -1.0) : (double)(r >> 11) / 9007199254740992.0 * (i % 2 ? 1 : -1);
    }
    memcpy(m.sv_ptr, p.row_ptr, sizeof *m.sv_ptr * ((size_t)l + 1));
    for (int k = 0; k < repeats; k++) {
        for (int64_t i = 0; i < nnz; i++) m.sv_val[i] = p.val[i];
        const double t0 = gs_now();
        gs_model_sv_values(m.sv_val, nnz);
        const double t1 = gs_now();
        if (gs_model_write(argv[3], &m) != GS_OK) {
            fprintf(stderr, "%s\n", gs_last_error());
            return 1;
        }
        printf("%d SVs, %lld values: SV values %.3f s, write %.3f s\n", (int)l, (long long)nnz, t1 - t0,
               gs_now() - t1);
    }
    free(m.sv_coef);
    free(m.sv_ptr);
    free(m.sv_val);
    gs_problem_free(&p);
    return 0;
}
