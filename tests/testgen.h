/* testgen.h — what the unit tests that make random sparse matrices share: a CSR matrix (rows
 * row_ptr[n+1], column ids idx, values val; malloc'd) and a xorshift generator. */
#ifndef GS_TESTGEN_H
#define GS_TESTGEN_H

#include <stdint.h>
#include <stdlib.h>

typedef struct csr {
    int32_t n;
    int64_t *row_ptr;
    int32_t *idx;
    float *val;
} csr;

/* The next of a xorshift64 sequence (s nonzero). */
static inline uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static inline void csr_free(csr *m)
{
    free(m->row_ptr);
    free(m->idx);
    free(m->val);
}

#endif
