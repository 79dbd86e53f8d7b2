/* subproblem.c — SMO on a working set. Pair selection is the second-order rule of Fan, Chen and
 * Lin (2005) restricted to the set: i maximises -y g over I_up, j minimises -b^2/a over I_low;
 * the analytic 2-variable step keeps y_i a_i + y_j a_j and clips to the box. The loops run over
 * v = y g with -INF sentinels for rows outside I_up / I_low, so they are branch-free.
 *
 * Speed (same algorithm, same results bit for bit): each step is two passes over the slots.
 * Pass 1 picks j (and the stopping gap); pass 2 updates v = y g and picks the next i. Membership
 * of I_up / I_low is kept as 0 / -INF offsets, so -y g on I_up is upoff - v and y g on I_low is
 * lowoff + v, and pass 2 stores only v. Both passes run on 4-wide double vectors (GCC/clang
 * vector extensions) with per-lane minima / maxima and their indices; merging the lanes (ties to
 * the larger index) gives exactly the sequential scan's choice, and the n % 4 tail runs the
 * scalar form after the merge. Pass 1 skips the division for blocks of 16 slots in which no slot
 * can reach the best -b^2/a found so far (a bound by multiplication, see FILTER_MARGIN). Every
 * value that can be chosen is computed by the same expression as the scalar loop (no FMA: the
 * AVX2 clone does not enable it). On x86-64 the body is compiled for AVX-512 (8 doubles / 16
 * floats a vector), for AVX2 (4 / 8) and for the baseline (scalar loops only) and the widest the
 * CPU has is picked at run time (development machine, scripts/bench-smo.c: 0.65 / 0.81 us a step
 * of the double form on 768 slots, 0.39 / 0.48 of the float form); without GCC/clang vector
 * extensions the scalar loops do all the work.
 * Two forms of that body, both generated from subproblem_form.h: double (solve_body_d, 4 lanes)
 * and float (solve_body_f: y g and the selection in float, 8 lanes, the alphas and steps in
 * double), the latter while the set's gradients are small against eps (see FLOAT_RANGE); each
 * form's vector and scalar loops give the same steps bit for bit. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#include "train/subproblem.h"

#include <math.h>
#include <string.h>

#define TAU 1e-12
#define TAUF 1e-12f

static inline int in_up(int8_t y, double a, double c) { return y > 0 ? a < c : (y < 0 && a > 0); }
static inline int in_low(int8_t y, double a, double c) { return y > 0 ? a > 0 : (y < 0 && a < c); }

#if (defined(__GNUC__) || defined(__clang__)) && !defined(GS_SUBPROBLEM_SCALAR)
#define GS_VEC 1
#define GS_INLINE static inline __attribute__((always_inline))
typedef double gs_d4 __attribute__((vector_size(32)));
typedef long long gs_m4 __attribute__((vector_size(32))); /* 64-bit lane mask / index */
/* unaligned loads and stores; the float load is spelled element-wise because GCC 12 splits
 * __builtin_convertvector(float x4 -> double x4) into two halves */
#define LD4(p) __extension__({ gs_d4 v_; memcpy(&v_, (p), sizeof v_); v_; })
#define LDF4(p) ((gs_d4){(double)(p)[0], (double)(p)[1], (double)(p)[2], (double)(p)[3]})
#define ST4(p, x) do { gs_d4 s_ = (x); memcpy((p), &s_, sizeof s_); } while (0)
#define SPLAT(x) ((gs_d4){(x), (x), (x), (x)})
/* m ? a : b, per lane (m all-ones or zero) */
#define SELD(m, a, b) ((gs_d4)(((m) & (gs_m4)(a)) | (~(m) & (gs_m4)(b))))
#define SELI(m, a, b) (((m) & (a)) | (~(m) & (b)))
typedef long long gs_m2 __attribute__((vector_size(16)));
/* any lane of the mask m set: OR the halves, then the two words */
#define ANY(m) __extension__({ gs_m4 a_ = (m); gs_m2 l_, h_; memcpy(&l_, &a_, sizeof l_); \
        memcpy(&h_, (char *)&a_ + sizeof l_, sizeof h_); l_ |= h_; (l_[0] | l_[1]) != 0; })
#else
#define GS_VEC 0
#define GS_INLINE static inline
#endif

/* The j filter: a slot whose b^2 is below (1 - FILTER_MARGIN) * B * q, with B = -(the best
 * value so far over all lanes), has an exact quotient b^2 / q < B (1 - 2^-52), so its rounded
 * -(b^2)/q is strictly above that best and could never be picked: the division is skipped for a
 * group of such lanes (the lane-wise minima then differ from an unfiltered scan only in values
 * that lose anyway, so the merged result is the same). The margin covers the two roundings of
 * the product; B below FILTER_MIN or not yet set disables the filter, so (a nonzero q is at least
 * 2^-149, K being float) the product never underflows; an overflow to +INF is still a valid
 * bound. */
#define FILTER_MARGIN 1e-14
#define FILTER_MIN 1e-200

/* The analytic step on the pair (i, j): the new alphas *ni, *nj keeping y_i a_i + y_j a_j, clipped
 * to the box; quad = K_ii + K_jj - 2 K_ij (TAU when not positive), vi / vj = y g. */
static inline void smo_step(int8_t yi, int8_t yj, double ai, double aj, double Ci, double Cj, double quad, double vi,
                            double vj, double *ni_, double *nj_)
{
    double ni, nj;
    if (quad <= 0) quad = TAU;
    if (yi != yj) {
        const double delta = (-yi * vi - yj * vj) / quad;
        const double diff = ai - aj;
        ni = ai + delta;
        nj = aj + delta;
        if (diff > 0) { if (nj < 0) { nj = 0; ni = diff; } }
        else { if (ni < 0) { ni = 0; nj = -diff; } }
        if (diff > Ci - Cj) { if (ni > Ci) { ni = Ci; nj = Ci - diff; } }
        else { if (nj > Cj) { nj = Cj; ni = Cj + diff; } }
    } else {
        const double delta = (yi * vi - yj * vj) / quad;
        const double sum = ai + aj;
        ni = ai - delta;
        nj = aj + delta;
        if (sum > Ci) { if (ni > Ci) { ni = Ci; nj = sum - Ci; } }
        else { if (nj < 0) { nj = 0; ni = sum; } }
        if (sum > Cj) { if (nj > Cj) { nj = Cj; ni = sum - Cj; } }
        else { if (ni < 0) { ni = 0; nj = sum; } }
    }
    *ni_ = ni;
    *nj_ = nj;
}

#if GS_VEC
typedef float gs_f8 __attribute__((vector_size(32)));
typedef int gs_i8 __attribute__((vector_size(32))); /* 32-bit lane mask / index */
typedef int gs_i4 __attribute__((vector_size(16)));
#define LD8(p) __extension__({ gs_f8 v_; memcpy(&v_, (p), sizeof v_); v_; })
#define ST8(p, x) do { gs_f8 s_ = (x); memcpy((p), &s_, sizeof s_); } while (0)
#define SPLAT8(x) ((gs_f8){(x), (x), (x), (x), (x), (x), (x), (x)})
#define SELF(m, a, b) ((gs_f8)(((m) & (gs_i8)(a)) | (~(m) & (gs_i8)(b))))
#define ANY8(m) __extension__({ gs_i8 a_ = (m); gs_i4 l_, h_; memcpy(&l_, &a_, sizeof l_); \
        memcpy(&h_, (char *)&a_ + sizeof l_, sizeof h_); l_ |= h_; (l_[0] | l_[1] | l_[2] | l_[3]) != 0; })
#endif

/* The float form's j filter (as FILTER_MARGIN for doubles): with B >= FFILTER_MIN and the lane's
 * unclamped q >= FFILTER_QMIN (2^-60 both), the product B (1 - margin) q stays a normal float, so
 * each of the three roundings (b^2, the bound, its product) is within 2^-24 relative and 1e-6
 * covers them; other lanes are always computed. */
#define FFILTER_MARGIN 1e-6f
#define FFILTER_MIN 0x1p-60f
#define FFILTER_QMIN 0x1p-60f

/* The double form. */
#define SB_NAME solve_body_d
#define SB_T double
#define SB_V gs_d4
#define SB_M gs_m4
#define SB_W 4
#define SB_LANES {0, 1, 2, 3}
#define SB_LD LD4
#define SB_ST ST4
#define SB_LDK LDF4
#define SB_SPLAT SPLAT
#define SB_SEL SELD
#define SB_ANY ANY
#define SB_TAU TAU
#define SB_MARGIN FILTER_MARGIN
#define SB_FMIN FILTER_MIN
#define SB_QMIN (-INFINITY)
#include "train/subproblem_form.h"

/* The same SMO with y g, the offsets and the pair selection in float (8 lanes a vector, and the
 * kernel matrix needs no conversion): ~1.3x faster a step (a9a's subproblems, development
 * machine). The alphas, the steps and the first gap test stay in double. Used only while the
 * gradients are small against the tolerance (see FLOAT_RANGE): each float rounding is then at most
 * 2^-10 of the tolerance, so the selection and the inner stop move by far less than the gap they
 * test; the outer loop's stopping test is the device's, in double, every round. */
#define SB_NAME solve_body_f
#define SB_T float
#define SB_V gs_f8
#define SB_M gs_i8
#define SB_W 8
#define SB_LANES {0, 1, 2, 3, 4, 5, 6, 7}
#define SB_LD LD8
#define SB_ST ST8
#define SB_LDK LD8
#define SB_SPLAT SPLAT8
#define SB_SEL SELF
#define SB_ANY ANY8
#define SB_TAU TAUF
#define SB_MARGIN FFILTER_MARGIN
#define SB_FMIN FFILTER_MIN
#define SB_QMIN FFILTER_QMIN
#include "train/subproblem_form.h"

/* The same two forms on 512-bit vectors (8 doubles, 16 floats) for the AVX-512 clone below: the
 * same expressions and the same lane merge, so the same steps bit for bit. */
#if GS_VEC && defined(__x86_64__) && !defined(__AVX2__) && \
    (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 6))
#define GS_X86_CLONES 1
typedef double gs_d8 __attribute__((vector_size(64)));
typedef long long gs_m8 __attribute__((vector_size(64)));
typedef float gs_f16 __attribute__((vector_size(64)));
typedef int gs_i16 __attribute__((vector_size(64)));
#define LD8D(p) __extension__({ gs_d8 v_; memcpy(&v_, (p), sizeof v_); v_; })
#define LDF8(p) ((gs_d8){(double)(p)[0], (double)(p)[1], (double)(p)[2], (double)(p)[3], \
                         (double)(p)[4], (double)(p)[5], (double)(p)[6], (double)(p)[7]})
#define ST8D(p, x) do { gs_d8 s_ = (x); memcpy((p), &s_, sizeof s_); } while (0)
#define SPLAT8D(x) ((gs_d8){(x), (x), (x), (x), (x), (x), (x), (x)})
#define SELD8(m, a, b) ((gs_d8)(((m) & (gs_m8)(a)) | (~(m) & (gs_m8)(b))))
#define ANY8D(m) __extension__({ gs_m8 a8_ = (m); gs_m4 l4_, h4_; memcpy(&l4_, &a8_, sizeof l4_); \
        memcpy(&h4_, (char *)&a8_ + sizeof l4_, sizeof h4_); ANY(l4_ | h4_); })
#define LD16(p) __extension__({ gs_f16 v_; memcpy(&v_, (p), sizeof v_); v_; })
#define ST16(p, x) do { gs_f16 s_ = (x); memcpy((p), &s_, sizeof s_); } while (0)
#define SPLAT16(x) ((gs_f16){(x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x)})
#define SELF16(m, a, b) ((gs_f16)(((m) & (gs_i16)(a)) | (~(m) & (gs_i16)(b))))
#define ANY16(m) __extension__({ gs_i16 a16_ = (m); gs_i8 l8_, h8_; memcpy(&l8_, &a16_, sizeof l8_); \
        memcpy(&h8_, (char *)&a16_ + sizeof l8_, sizeof h8_); ANY8(l8_ | h8_); })

/* compiled for AVX-512 themselves: inlined from generic code, GCC 12 splits the compares into
 * scalars */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512dq"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq")
#endif
#define SB_NAME solve_body_d8
#define SB_T double
#define SB_V gs_d8
#define SB_M gs_m8
#define SB_W 8
#define SB_LANES {0, 1, 2, 3, 4, 5, 6, 7}
#define SB_LD LD8D
#define SB_ST ST8D
#define SB_LDK LDF8
#define SB_SPLAT SPLAT8D
#define SB_SEL SELD8
#define SB_ANY ANY8D
#define SB_TAU TAU
#define SB_MARGIN FILTER_MARGIN
#define SB_FMIN FILTER_MIN
#define SB_QMIN (-INFINITY)
#include "train/subproblem_form.h"

#define SB_NAME solve_body_f16
#define SB_T float
#define SB_V gs_f16
#define SB_M gs_i16
#define SB_W 16
#define SB_LANES {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
#define SB_LD LD16
#define SB_ST ST16
#define SB_LDK LD16
#define SB_SPLAT SPLAT16
#define SB_SEL SELF16
#define SB_ANY ANY16
#define SB_TAU TAUF
#define SB_MARGIN FFILTER_MARGIN
#define SB_FMIN FFILTER_MIN
#define SB_QMIN FFILTER_QMIN
#include "train/subproblem_form.h"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

/* The float form runs while every |g| is at most FLOAT_RANGE times eps (the tolerance's floor):
 * a9a's, ijcnn1's and w8a's subproblems at eps 1e-3 stay under 4; larger C or unscaled data
 * take the double form. */
#ifndef FLOAT_RANGE
#define FLOAT_RANGE 16384.0
#endif

static int float_fits(const gs_subproblem *sp)
{
    const double lim = FLOAT_RANGE * sp->eps;
    for (int t = 0; t < sp->n; t++)
        if (sp->y[t] && !(fabs(sp->g[t]) <= lim)) return 0;
    return 1;
}

GS_INLINE long solve_body(gs_subproblem *sp, double *gap0, const int vec)
{
    return float_fits(sp) ? solve_body_f(sp, gap0, vec) : solve_body_d(sp, gap0, vec);
}

#ifdef GS_X86_CLONES
__attribute__((target("avx2"))) static long solve_avx2(gs_subproblem *sp, double *gap0)
{
    return solve_body(sp, gap0, 1);
}

/* AVX-512 (F and DQ: the lane masks of both widths) */
__attribute__((target("avx512f,avx512dq"))) static long solve_avx512(gs_subproblem *sp, double *gap0)
{
    return float_fits(sp) ? solve_body_f16(sp, gap0, 1) : solve_body_d8(sp, gap0, 1);
}

static int has_avx512(void) { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"); }

/* baseline x86-64 (SSE2): the 4-wide vectors split into halves there and lose to the scalar
 * loops, so those run */
static long solve_base(gs_subproblem *sp, double *gap0) { return solve_body(sp, gap0, 0); }

long gs_subproblem_solve(gs_subproblem *sp, double *gap0)
{
    /* reads the CPU model that libgcc / compiler-rt filled in at start-up: cheap, thread-safe */
    if (has_avx512()) return solve_avx512(sp, gap0);
    return __builtin_cpu_supports("avx2") ? solve_avx2(sp, gap0) : solve_base(sp, gap0);
}
#else
long gs_subproblem_solve(gs_subproblem *sp, double *gap0) { return solve_body(sp, gap0, 1); }
#endif

long gs_subproblem_solve_isa(gs_subproblem *sp, double *gap0, int isa)
{
    if (isa == GS_ISA_SCALAR) return solve_body(sp, gap0, 0);
#ifdef GS_X86_CLONES
    if (isa == GS_ISA_AVX2) return __builtin_cpu_supports("avx2") ? solve_avx2(sp, gap0) : -1;
    if (isa == GS_ISA_AVX512) return has_avx512() ? solve_avx512(sp, gap0) : -1;
#endif
    return -1;
}

/* LIBSVM's Solver_NU on the set (compat §6.3): i is the I_up maximiser of -y g within each sign,
 * j the second-order choice over I_low against its own sign's maximum, so every step moves a pair
 * of one sign and keeps both sums (y'a and, per sign, e'a); stops when the larger of the two
 * signs' gaps is below the tolerance. Plain double loops: one-class and C-SVC never come here. */
long gs_subproblem_solve_nu(gs_subproblem *sp, double *gap0)
{
    const int n = sp->n, ld = sp->ld;
    const int8_t *y = sp->y;
    const double *C = sp->C;
    double *a = sp->alpha, *g = sp->g;
    const float *K = sp->K;
    double tol = sp->eps;
    long steps = 0;
    *gap0 = 0;
    for (;;) {
        double gmax[2] = {-INFINITY, -INFINITY}; /* [0]: y = +1, [1]: y = -1 */
        int im[2] = {-1, -1};
        for (int t = 0; t < n; t++) {
            if (!y[t] || !in_up(y[t], a[t], C[t])) continue;
            const int s = y[t] < 0;
            const double u = -y[t] * g[t];
            if (u >= gmax[s]) { gmax[s] = u; im[s] = t; }
        }
        double gmax2[2] = {-INFINITY, -INFINITY}, best = INFINITY;
        int j = -1;
        for (int t = 0; t < n; t++) {
            if (!y[t] || !in_low(y[t], a[t], C[t])) continue;
            const int s = y[t] < 0;
            const double w = y[t] * g[t];
            if (w > gmax2[s]) gmax2[s] = w;
            const int i = im[s];
            if (i < 0) continue;
            const double b = gmax[s] + w;
            if (!(b > 0)) continue;
            double q = (double)K[(long)i * ld + i] + (double)K[(long)t * ld + t] - 2.0 * (double)K[(long)i * ld + t];
            if (q <= 0) q = TAU;
            const double val = -(b * b) / q;
            if (val <= best) { best = val; j = t; }
        }
        const double gp = im[0] >= 0 && gmax2[0] > -INFINITY ? gmax[0] + gmax2[0] : 0;
        const double gn = im[1] >= 0 && gmax2[1] > -INFINITY ? gmax[1] + gmax2[1] : 0;
        const double gap = gp > gn ? gp : gn;
        if (steps == 0) {
            *gap0 = gap;
            if (sp->rel * gap > tol) tol = sp->rel * gap;
        }
        if (!(gap >= tol) || j < 0 || steps >= sp->max_steps) break;
        const int i = im[y[j] < 0];
        const double ai = a[i], aj = a[j];
        const double quad = (double)K[(long)i * ld + i] + (double)K[(long)j * ld + j] - 2.0 * (double)K[(long)i * ld + j];
        double ni, nj;
        smo_step(y[i], y[j], ai, aj, C[i], C[j], quad, y[i] * g[i], y[j] * g[j], &ni, &nj);
        a[i] = ni;
        a[j] = nj;
        /* g_t += Q_ti di + Q_tj dj = y_t (y_i di K_ti + y_j dj K_tj) */
        const double ci = y[i] * (ni - ai), cj = y[j] * (nj - aj);
        const float *Ki = K + (long)i * ld, *Kj = K + (long)j * ld;
        for (int t = 0; t < n; t++)
            if (y[t]) g[t] += y[t] * (ci * (double)Ki[t] + cj * (double)Kj[t]);
        steps++;
    }
    return steps;
}
