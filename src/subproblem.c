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
 * AVX2 clone does not enable it). On x86-64 the body is compiled for AVX2 (vector passes) and
 * for the baseline (scalar loops only) and picked at run time; without GCC/clang vector
 * extensions the scalar loops do all the work.
 * Two forms of that body: double (solve_body_d, 4 lanes) and float (solve_body_f: y g and the
 * selection in float, 8 lanes, the alphas and steps in double), the latter while the set's
 * gradients are small against eps (see FLOAT_RANGE); each form's vector and scalar loops give
 * the same steps bit for bit. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#include "subproblem.h"

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

/* vec: use the vector passes (a compile-time constant at each call, so the other form is dropped) */
GS_INLINE long solve_body_d(gs_subproblem *sp, double *gap0, const int vec)
{
    const int n = sp->n, ld = sp->ld;
    const int8_t *y = sp->y;
    const double *C = sp->C;
    double *a = sp->alpha, *g = sp->g;
    const float *K = sp->K;
    double *v = sp->work;              /* y g */
    double *upoff = sp->work + n;      /* 0 on I_up, else -INF: -y g on I_up is upoff - v */
    double *lowoff = sp->work + 2 * n; /* 0 on I_low, else -INF: y g on I_low is lowoff + v */
    double *diag = sp->work + 3 * n;
#if GS_VEC
    const int n4 = vec ? n & ~3 : 0, n16 = n & ~15;
#else
    const int n4 = 0;
    (void)vec;
#endif
    long steps = 0;
    double tol = sp->eps;
    /* the first selection: the plain scan (it also yields *gap0) */
    double gmax = -INFINITY, gmax2 = -INFINITY;
    int i = -1;
    for (int t = 0; t < n; t++) {
        const double vt = y[t] * g[t];
        const int iu = in_up(y[t], a[t], C[t]), il = in_low(y[t], a[t], C[t]);
        const double u = iu ? -vt : -INFINITY, w = il ? vt : -INFINITY;
        v[t] = vt;
        upoff[t] = iu ? 0 : -INFINITY;
        lowoff[t] = il ? 0 : -INFINITY;
        diag[t] = K[(long)t * ld + t];
        if (u >= gmax) { gmax = u; i = t; }
        gmax2 = w > gmax2 ? w : gmax2;
    }
    if (gmax == -INFINITY) i = -1;
    *gap0 = (i >= 0 && gmax2 > -INFINITY) ? gmax + gmax2 : 0;
    if (sp->rel * *gap0 > tol) tol = sp->rel * *gap0;
    if (i < 0 || !(gmax + gmax2 >= tol)) goto done;
    /* Each step: pass 1 picks j and, as max_t (gmax + low_t) = gmax + max_t low_t (rounding is
     * monotone), the gap for the stopping test; the step; pass 2 updates v and picks the next i.
     * The sentinel arithmetic (0 - v, 0 + v, -INF +- v) equals the selects of the plain scan for
     * finite v up to the sign of a zero, which no comparison below can see. */
    for (;;) {
        const float *Ki = K + (long)i * ld;
        const double kii = diag[i];
        int j = -1;
        double best = INFINITY, gap = -INFINITY;
#if GS_VEC
        if (n4 > 0) {
            const gs_d4 gm = SPLAT(gmax), kk = SPLAT(kii), tau = SPLAT(TAU), zero = SPLAT(0.0);
            const gs_d4 inf = SPLAT(INFINITY);
            const gs_m4 lane = {0, 1, 2, 3};
            gs_d4 bv = inf, th = zero, mb = -inf;
            gs_m4 bi = {-1, -1, -1, -1};
            /* b and q for the group at slot s (q not yet clamped to TAU) */
#define GS_B(s) (gm + (LD4(lowoff + (s)) + LD4(v + (s))))
#define GS_Q(s) (kk + LD4(diag + (s)) - 2.0 * LDF4(Ki + (s)))
            /* the exact scan of the group at slot s: lane minima, ties to the later slot */
#define GS_EXACT(s) do { \
        const gs_d4 b_ = GS_B(s), q0_ = GS_Q(s); \
        const gs_d4 q_ = SELD((gs_m4)(q0_ > zero), q0_, tau); \
        const gs_d4 val_ = SELD((gs_m4)(b_ > zero), -(b_ * b_) / q_, inf); \
        const gs_m4 m_ = (gs_m4)(val_ <= bv), ix_ = lane + (long long)(s); \
        bv = SELD(m_, val_, bv); \
        bi = SELI(m_, ix_, bi); \
    } while (0)
            /* the filter for one group: lanes that could reach the best so far. An unclamped
             * q <= 0 (its clamped value TAU is larger) only makes the bound more conservative. */
#define GS_NEED(b, s) ((gs_m4)((b) > zero) & ~(gs_m4)((b) * (b) < th * GS_Q(s)))
            int t = 0;
            for (; t < n16; t += 16) {
                const gs_d4 b0 = GS_B(t), b1 = GS_B(t + 4), b2 = GS_B(t + 8), b3 = GS_B(t + 12);
                const gs_d4 b01 = SELD((gs_m4)(b1 > b0), b1, b0);
                const gs_d4 b23 = SELD((gs_m4)(b3 > b2), b3, b2);
                const gs_d4 bq = SELD((gs_m4)(b23 > b01), b23, b01);
                mb = SELD((gs_m4)(bq > mb), bq, mb);
                const gs_m4 need = GS_NEED(b0, t) | GS_NEED(b1, t + 4) | GS_NEED(b2, t + 8) |
                                   GS_NEED(b3, t + 12);
                if (!ANY(need)) continue;
                GS_EXACT(t);
                GS_EXACT(t + 4);
                GS_EXACT(t + 8);
                GS_EXACT(t + 12);
                /* tighten the bound to the best over all lanes */
                double lo = bv[0] < bv[1] ? bv[0] : bv[1], hi = bv[2] < bv[3] ? bv[2] : bv[3];
                lo = lo < hi ? lo : hi;
                th = SPLAT(-lo >= FILTER_MIN ? -lo * (1.0 - FILTER_MARGIN) : 0.0);
            }
            for (; t < n4; t += 4) {
                const gs_d4 b0 = GS_B(t);
                mb = SELD((gs_m4)(b0 > mb), b0, mb);
                GS_EXACT(t);
            }
#undef GS_B
#undef GS_Q
#undef GS_EXACT
#undef GS_NEED
            /* merge the lanes: smallest value, the last index among equal ones */
            for (int l = 0; l < 4; l++) {
                if (bv[l] < best || (bv[l] == best && bi[l] > j)) { best = bv[l]; j = (int)bi[l]; }
                gap = mb[l] > gap ? mb[l] : gap;
            }
        }
#endif
        for (int t = n4; t < n; t++) {
            const double b = gmax + (lowoff[t] + v[t]); /* -INF when t is outside I_low */
            gap = b > gap ? b : gap;
            double q = kii + diag[t] - 2.0 * (double)Ki[t];
            q = q > 0 ? q : TAU;
            const double val = b > 0 ? -(b * b) / q : INFINITY;
            if (val <= best) { best = val; j = t; }
        }
        if (!(gap >= tol) || steps >= sp->max_steps) break;
        if (j < 0 || best == INFINITY) break;
        const float *Kj = K + (long)j * ld;
        const double ai = a[i], aj = a[j], Ci = C[i], Cj = C[j];
        double ni, nj;
        smo_step(y[i], y[j], ai, aj, Ci, Cj, kii + diag[j] - 2.0 * (double)Ki[j], v[i], v[j], &ni, &nj);
        a[i] = ni;
        a[j] = nj;
        /* y_t g_t += y_t (Q_ti di + Q_tj dj) = y_i di K_ti + y_j dj K_tj */
        const double ci = y[i] * (ni - ai), cj = y[j] * (nj - aj);
        /* i and j may have entered or left I_up / I_low */
        upoff[i] = in_up(y[i], ni, Ci) ? 0 : -INFINITY;
        lowoff[i] = in_low(y[i], ni, Ci) ? 0 : -INFINITY;
        upoff[j] = in_up(y[j], nj, Cj) ? 0 : -INFINITY;
        lowoff[j] = in_low(y[j], nj, Cj) ? 0 : -INFINITY;
        /* update v and find the next i in the same pass */
        gmax = -INFINITY;
        i = -1;
#if GS_VEC
        if (n4 > 0) {
            const gs_d4 cvi = SPLAT(ci), cvj = SPLAT(cj), ninf = SPLAT(-INFINITY);
            const gs_m4 four = {4, 4, 4, 4}, eight = {8, 8, 8, 8}, sixteen = {16, 16, 16, 16};
            gs_d4 bu = ninf;
            gs_m4 bi = {-1, -1, -1, -1}, tv = {0, 1, 2, 3};
            int t = 0;
            /* 16 slots a round: a tree over the four groups (later group wins ties), then one
             * compare-select against the running lane maxima, so the loop-carried chain is short */
#define GS_UPD(k) __extension__({ \
        const gs_d4 vk_ = LD4(v + t + 4 * (k)) + \
            (cvi * LDF4(Ki + t + 4 * (k)) + cvj * LDF4(Kj + t + 4 * (k))); \
        ST4(v + t + 4 * (k), vk_); LD4(upoff + t + 4 * (k)) - vk_; })
            for (; t < n16; t += 16, tv += sixteen) {
                const gs_d4 u0 = GS_UPD(0), u1 = GS_UPD(1), u2 = GS_UPD(2), u3 = GS_UPD(3);
                const gs_m4 m01 = (gs_m4)(u1 >= u0), m23 = (gs_m4)(u3 >= u2);
                const gs_d4 u01 = SELD(m01, u1, u0), u23 = SELD(m23, u3, u2);
                const gs_m4 i01 = SELI(m01, tv + four, tv);
                const gs_m4 i23 = SELI(m23, tv + sixteen - four, tv + eight);
                const gs_m4 mq = (gs_m4)(u23 >= u01);
                const gs_d4 uq = SELD(mq, u23, u01);
                const gs_m4 iq = SELI(mq, i23, i01);
                const gs_m4 m = (gs_m4)(uq >= bu);
                bu = SELD(m, uq, bu);
                bi = SELI(m, iq, bi);
            }
            for (; t < n4; t += 4, tv += four) {
                const gs_d4 u0 = GS_UPD(0);
                const gs_m4 m = (gs_m4)(u0 >= bu);
                bu = SELD(m, u0, bu);
                bi = SELI(m, tv, bi);
            }
#undef GS_UPD
            /* merge: largest value, the last index among equal ones */
            for (int l = 0; l < 4; l++)
                if (bu[l] > gmax || (bu[l] == gmax && bi[l] > i)) { gmax = bu[l]; i = (int)bi[l]; }
        }
#endif
        for (int t = n4; t < n; t++) {
            const double vt = v[t] + (ci * (double)Ki[t] + cj * (double)Kj[t]);
            v[t] = vt;
            const double u = upoff[t] - vt;
            if (u >= gmax) { gmax = u; i = t; }
        }
        steps++;
        if (gmax == -INFINITY) break;
    }
done:
    for (int t = 0; t < n; t++) g[t] = y[t] * v[t];
    return steps;
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

/* The same SMO with y g, the offsets and the pair selection in float (8 lanes a vector, and the
 * kernel matrix needs no conversion): ~1.3x faster a step (a9a's subproblems, development
 * machine). The alphas, the steps and the first gap test stay in double. Used only while the
 * gradients are small against the tolerance (see FLOAT_RANGE): each float rounding is then at most
 * 2^-10 of the tolerance, so the selection and the inner stop move by far less than the gap they
 * test; the outer loop's stopping test is the device's, in double, every round. */
GS_INLINE long solve_body_f(gs_subproblem *sp, double *gap0, const int vec)
{
    const int n = sp->n, ld = sp->ld;
    const int8_t *y = sp->y;
    const double *C = sp->C;
    double *a = sp->alpha, *g = sp->g;
    const float *K = sp->K;
    float *v = (float *)sp->work; /* y g; then the offsets (as the double form) and the diagonal */
    float *upoff = v + n, *lowoff = v + 2 * n, *diag = v + 3 * n;
#if GS_VEC
    const int n8 = vec ? n & ~7 : 0, n32 = n & ~31;
#else
    const int n8 = 0;
    (void)vec;
#endif
    long steps = 0;
    double tol = sp->eps;
    /* the first selection and gap in double, exactly as the double form's */
    double gmaxd = -INFINITY, gmax2d = -INFINITY;
    int i = -1;
    for (int t = 0; t < n; t++) {
        const double vt = y[t] * g[t];
        const int iu = in_up(y[t], a[t], C[t]), il = in_low(y[t], a[t], C[t]);
        const double u = iu ? -vt : -INFINITY, w = il ? vt : -INFINITY;
        v[t] = (float)vt;
        upoff[t] = iu ? 0 : -INFINITY;
        lowoff[t] = il ? 0 : -INFINITY;
        diag[t] = K[(long)t * ld + t];
        if (u >= gmaxd) { gmaxd = u; i = t; }
        gmax2d = w > gmax2d ? w : gmax2d;
    }
    if (gmaxd == -INFINITY) i = -1;
    *gap0 = (i >= 0 && gmax2d > -INFINITY) ? gmaxd + gmax2d : 0;
    if (sp->rel * *gap0 > tol) tol = sp->rel * *gap0;
    if (i < 0 || !(gmaxd + gmax2d >= tol)) goto done;
    const float tolf = (float)tol;
    float gmax = upoff[i] - v[i];
    for (;;) {
        const float *Ki = K + (long)i * ld;
        const float kii = diag[i];
        int j = -1;
        float best = INFINITY, gap = -INFINITY;
#if GS_VEC
        if (n8 > 0) {
            const gs_f8 gm = SPLAT8(gmax), kk = SPLAT8(kii), tau = SPLAT8(TAUF), zero = SPLAT8(0.0f);
            const gs_f8 inf = SPLAT8(INFINITY), qmin = SPLAT8(FFILTER_QMIN);
            const gs_i8 lane = {0, 1, 2, 3, 4, 5, 6, 7};
            gs_f8 bv = inf, th = zero, mb = -inf;
            gs_i8 bi = {-1, -1, -1, -1, -1, -1, -1, -1};
#define GS_B(s) (gm + (LD8(lowoff + (s)) + LD8(v + (s))))
#define GS_Q(s) (kk + LD8(diag + (s)) - 2.0f * LD8(Ki + (s)))
#define GS_EXACT(s) do { \
        const gs_f8 b_ = GS_B(s), q0_ = GS_Q(s); \
        const gs_f8 q_ = SELF((gs_i8)(q0_ > zero), q0_, tau); \
        const gs_f8 val_ = SELF((gs_i8)(b_ > zero), -(b_ * b_) / q_, inf); \
        const gs_i8 m_ = (gs_i8)(val_ <= bv), ix_ = lane + (s); \
        bv = SELF(m_, val_, bv); \
        bi = SELI(m_, ix_, bi); \
    } while (0)
#define GS_NEED(b, s) __extension__({ const gs_f8 q_ = GS_Q(s); \
        (gs_i8)((b) > zero) & ~((gs_i8)((b) * (b) < th * q_) & (gs_i8)(q_ >= qmin)); })
            int t = 0;
            for (; t < n32; t += 32) {
                const gs_f8 b0 = GS_B(t), b1 = GS_B(t + 8), b2 = GS_B(t + 16), b3 = GS_B(t + 24);
                const gs_f8 b01 = SELF((gs_i8)(b1 > b0), b1, b0);
                const gs_f8 b23 = SELF((gs_i8)(b3 > b2), b3, b2);
                const gs_f8 bq = SELF((gs_i8)(b23 > b01), b23, b01);
                mb = SELF((gs_i8)(bq > mb), bq, mb);
                const gs_i8 need = GS_NEED(b0, t) | GS_NEED(b1, t + 8) | GS_NEED(b2, t + 16) |
                                   GS_NEED(b3, t + 24);
                if (!ANY8(need)) continue;
                GS_EXACT(t);
                GS_EXACT(t + 8);
                GS_EXACT(t + 16);
                GS_EXACT(t + 24);
                float lo = bv[0];
                for (int l = 1; l < 8; l++) lo = bv[l] < lo ? bv[l] : lo;
                th = SPLAT8(-lo >= FFILTER_MIN ? -lo * (1.0f - FFILTER_MARGIN) : 0.0f);
            }
            for (; t < n8; t += 8) {
                const gs_f8 b0 = GS_B(t);
                mb = SELF((gs_i8)(b0 > mb), b0, mb);
                GS_EXACT(t);
            }
#undef GS_B
#undef GS_Q
#undef GS_EXACT
#undef GS_NEED
            for (int l = 0; l < 8; l++) {
                if (bv[l] < best || (bv[l] == best && bi[l] > j)) { best = bv[l]; j = bi[l]; }
                gap = mb[l] > gap ? mb[l] : gap;
            }
        }
#endif
        for (int t = n8; t < n; t++) {
            const float b = gmax + (lowoff[t] + v[t]); /* -INF when t is outside I_low */
            gap = b > gap ? b : gap;
            float q = kii + diag[t] - 2.0f * Ki[t];
            q = q > 0 ? q : TAUF;
            const float val = b > 0 ? -(b * b) / q : INFINITY;
            if (val <= best) { best = val; j = t; }
        }
        /* the first step's gap test was the exact one above */
        if ((steps > 0 && !(gap >= tolf)) || steps >= sp->max_steps) break;
        if (j < 0 || best == INFINITY) break;
        const float *Kj = K + (long)j * ld;
        double ni, nj;
        const double ai = a[i], aj = a[j];
        smo_step(y[i], y[j], ai, aj, C[i], C[j], (double)kii + (double)diag[j] - 2.0 * (double)Ki[j], v[i], v[j],
                 &ni, &nj);
        a[i] = ni;
        a[j] = nj;
        const float ci = (float)(y[i] * (ni - ai)), cj = (float)(y[j] * (nj - aj));
        upoff[i] = in_up(y[i], ni, C[i]) ? 0 : -INFINITY;
        lowoff[i] = in_low(y[i], ni, C[i]) ? 0 : -INFINITY;
        upoff[j] = in_up(y[j], nj, C[j]) ? 0 : -INFINITY;
        lowoff[j] = in_low(y[j], nj, C[j]) ? 0 : -INFINITY;
        gmax = -INFINITY;
        i = -1;
#if GS_VEC
        if (n8 > 0) {
            const gs_f8 cvi = SPLAT8(ci), cvj = SPLAT8(cj), ninf = SPLAT8(-INFINITY);
            const gs_i8 e8 = {8, 8, 8, 8, 8, 8, 8, 8}, e16 = e8 + e8, e32 = e16 + e16;
            gs_f8 bu = ninf;
            gs_i8 bi = {-1, -1, -1, -1, -1, -1, -1, -1}, tv = {0, 1, 2, 3, 4, 5, 6, 7};
            int t = 0;
#define GS_UPD(k) __extension__({ \
        const gs_f8 vk_ = LD8(v + t + 8 * (k)) + (cvi * LD8(Ki + t + 8 * (k)) + cvj * LD8(Kj + t + 8 * (k))); \
        ST8(v + t + 8 * (k), vk_); LD8(upoff + t + 8 * (k)) - vk_; })
            for (; t < n32; t += 32, tv += e32) {
                const gs_f8 u0 = GS_UPD(0), u1 = GS_UPD(1), u2 = GS_UPD(2), u3 = GS_UPD(3);
                const gs_i8 m01 = (gs_i8)(u1 >= u0), m23 = (gs_i8)(u3 >= u2);
                const gs_f8 u01 = SELF(m01, u1, u0), u23 = SELF(m23, u3, u2);
                const gs_i8 i01 = SELI(m01, tv + e8, tv);
                const gs_i8 i23 = SELI(m23, tv + e32 - e8, tv + e16);
                const gs_i8 mq = (gs_i8)(u23 >= u01);
                const gs_f8 uq = SELF(mq, u23, u01);
                const gs_i8 iq = SELI(mq, i23, i01);
                const gs_i8 m = (gs_i8)(uq >= bu);
                bu = SELF(m, uq, bu);
                bi = SELI(m, iq, bi);
            }
            for (; t < n8; t += 8, tv += e8) {
                const gs_f8 u0 = GS_UPD(0);
                const gs_i8 m = (gs_i8)(u0 >= bu);
                bu = SELF(m, u0, bu);
                bi = SELI(m, tv, bi);
            }
#undef GS_UPD
            for (int l = 0; l < 8; l++)
                if (bu[l] > gmax || (bu[l] == gmax && bi[l] > i)) { gmax = bu[l]; i = bi[l]; }
        }
#endif
        for (int t = n8; t < n; t++) {
            const float vt = v[t] + (ci * Ki[t] + cj * Kj[t]);
            v[t] = vt;
            const float u = upoff[t] - vt;
            if (u >= gmax) { gmax = u; i = t; }
        }
        steps++;
        if (gmax == -INFINITY) break;
    }
done:
    if (steps > 0) /* else g stays as given, in double */
        for (int t = 0; t < n; t++) g[t] = y[t] * (double)v[t];
    return steps;
}

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

#if GS_VEC && defined(__x86_64__) && !defined(__AVX2__) && \
    (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 6))
__attribute__((target("avx2"))) static long solve_avx2(gs_subproblem *sp, double *gap0)
{
    return solve_body(sp, gap0, 1);
}

/* baseline x86-64 (SSE2): the 4-wide vectors split into halves there and lose to the scalar
 * loops, so those run */
static long solve_base(gs_subproblem *sp, double *gap0) { return solve_body(sp, gap0, 0); }

long gs_subproblem_solve(gs_subproblem *sp, double *gap0)
{
    /* reads the CPU model that libgcc / compiler-rt filled in at start-up: cheap, thread-safe */
    return __builtin_cpu_supports("avx2") ? solve_avx2(sp, gap0) : solve_base(sp, gap0);
}
#else
long gs_subproblem_solve(gs_subproblem *sp, double *gap0) { return solve_body(sp, gap0, 1); }
#endif
