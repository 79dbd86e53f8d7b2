/* fuzz_model.c — libFuzzer harness of the model reader (model.h). The input is written to a file
 * and read with gs_model_read. A model it accepts must be consistent (every array the header
 * promises is there and is touched here, so ASan sees a short one), the writer must take it, the
 * reader must take the written file back, and writing that again must give the same bytes: what
 * gpusvm writes it reads, and reading does not drift (values are written with %.17g, SV values
 * with %.8g, both stable after one trip). Any broken promise aborts (a finding). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/model.h"
#include "fuzz_util.h"

#define PROMISE(cond, ...)                                             \
    do {                                                               \
        if (!(cond)) {                                                 \
            fprintf(stderr, "fuzz_model: " __VA_ARGS__);               \
            fprintf(stderr, "\n");                                     \
            abort();                                                   \
        }                                                              \
    } while (0)

/* Sums every element so a short array is a read out of bounds; the value itself is unused. */
static double touch(const gs_model *m)
{
    double s = 0;
    const int64_t nrho = gs_model_rho_count(m->svm_type, m->nr_class);
    for (int64_t i = 0; i < nrho; i++) s += m->rho[i];
    if (gs_model_is_classification(m->svm_type)) {
        for (int i = 0; i < m->nr_class; i++) s += m->label[i] + m->nSV[i];
    }
    const int64_t npair = (int64_t)m->nr_class * (m->nr_class - 1) / 2;
    if (m->probA) for (int64_t i = 0; i < npair; i++) s += m->probA[i];
    if (m->probB) for (int64_t i = 0; i < npair; i++) s += m->probB[i];
    if (m->prob_density_marks) for (int i = 0; i < 10; i++) s += m->prob_density_marks[i];
    PROMISE(m->n_coef == gs_model_coef_count(m->svm_type, m->nr_class), "n_coef %d", m->n_coef);
    for (int64_t i = 0; i < (int64_t)m->n_coef * m->l; i++) s += m->sv_coef[i];
    if (m->l > 0) {
        PROMISE(m->sv_ptr[0] == 0, "sv_ptr[0] %lld", (long long)m->sv_ptr[0]);
        for (int32_t r = 0; r < m->l; r++) {
            PROMISE(m->sv_ptr[r + 1] >= m->sv_ptr[r], "sv_ptr decreases at %d", (int)r);
            for (int64_t k = m->sv_ptr[r]; k < m->sv_ptr[r + 1]; k++) s += m->sv_idx[k] + m->sv_val[k];
        }
    }
    return s;
}

/* The written file's bytes, or NULL. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            char *nb = realloc(buf, cap);
            PROMISE(nb, "out of memory");
            buf = nb;
        }
        const size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    *len = n;
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = gs_fuzz_write(data, size);
    gs_model m = {0}, back = {0};
    if (gs_model_read(path, &m) != GS_OK) {
        gs_model_free(&m); /* zeroed on error; freeing it must still be fine */
        return 0;
    }
    volatile double sink = touch(&m);
    (void)sink;

    const char *out = gs_fuzz_extra_path();
    PROMISE(gs_model_write(out, &m) == GS_OK, "a model it read cannot be written: %s", gs_last_error());
    size_t len1 = 0, len2 = 0;
    char *text1 = slurp(out, &len1);
    PROMISE(text1, "written model vanished");
    PROMISE(gs_model_read(out, &back) == GS_OK, "a model it wrote cannot be read: %s", gs_last_error());
    PROMISE(back.svm_type == m.svm_type && back.kernel_type == m.kernel_type &&
                back.nr_class == m.nr_class && back.l == m.l,
            "read back as another model");
    sink = touch(&back);
    PROMISE(gs_model_write(out, &back) == GS_OK, "the read-back model cannot be written: %s", gs_last_error());
    char *text2 = slurp(out, &len2);
    PROMISE(text2 && len1 == len2 && memcmp(text1, text2, len1) == 0,
            "writing the read-back model gives other bytes (%zu vs %zu)", len1, len2);
    free(text1);
    free(text2);
    gs_model_free(&back);
    gs_model_free(&m);
    return 0;
}
