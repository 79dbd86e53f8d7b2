/* glibc_rand.h — the numbers glibc's rand() gives after srand(seed) (its default TYPE_3 additive
 * generator), from a state of our own: LIBSVM draws its cross-validation folds and -b 1's internal
 * folds from rand() never seeded (seed 1, compat §6.9), so the same draws give LIBSVM's folds on any
 * C library, and no process-wide state is touched. */
#ifndef GS_GLIBC_RAND_H
#define GS_GLIBC_RAND_H

#include <stdint.h>

typedef struct gs_glibc_rand {
    uint32_t r[34]; /* the last 34 values of the recurrence, a ring */
    int i;          /* index of the next value to replace */
} gs_glibc_rand;

/* The state srand(seed) gives (seed 0 is taken as 1, as glibc does). */
void gs_glibc_rand_init(gs_glibc_rand *g, uint32_t seed);
/* The next value rand() would return, in [0, 2^31). */
int32_t gs_glibc_rand_next(gs_glibc_rand *g);
/* LIBSVM's shuffle of a[0..n) in place, n draws: for each i, a[i] swapped with a[i + rand() % (n - i)]
 * (svm_cross_validation's folds, within each class when stratified, and
 * svm_binary_svc_probability's). */
void gs_glibc_rand_shuffle(gs_glibc_rand *g, int *a, int n);

#endif
