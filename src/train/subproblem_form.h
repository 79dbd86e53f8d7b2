/* subproblem_form.h — one form of subproblem.c's SMO body, included by subproblem.c once per
 * precision (double and float) with these set:
 *   SB_NAME  the function's name      SB_T     the element type of v, the offsets and the diagonal
 *   SB_V     its vector type          SB_M     the matching lane mask / index vector
 *   SB_W     lanes a vector           SB_LANES {0, 1, ..., SB_W - 1}
 *   SB_LD / SB_ST / SB_LDK            unaligned load and store of SB_V; load of SB_W kernel values
 *   SB_SPLAT / SB_SEL / SB_ANY        broadcast, per-lane select, any lane of a mask set
 *   SB_TAU, SB_MARGIN, SB_FMIN, SB_QMIN   the clamp of q and the j filter's constants
 * The alphas, the analytic step and the first selection and gap are double in both forms. It
 * undefines them all at its end. Not a header of its own: it has no include guard. */

/* vec: use the vector passes (a compile-time constant at each call, so the other form is dropped) */
GS_INLINE long SB_NAME(gs_subproblem *sp, double *gap0, const int vec)
{
    const int n = sp->n, ld = sp->ld;
    const int8_t *y = sp->y;
    const double *C = sp->C;
    double *a = sp->alpha, *g = sp->g;
    const float *K = sp->K;
    SB_T *v = (SB_T *)sp->work; /* y g */
    SB_T *upoff = v + n;        /* 0 on I_up, else -INF: -y g on I_up is upoff - v */
    SB_T *lowoff = v + 2 * n;   /* 0 on I_low, else -INF: y g on I_low is lowoff + v */
    SB_T *diag = v + 3 * n;
#if GS_VEC
    const int nw = vec ? n & ~(SB_W - 1) : 0, ngroup = n & ~(4 * SB_W - 1);
#else
    const int nw = 0;
    (void)vec;
#endif
    long steps = 0;
    double tol = sp->eps;
    /* the first selection: the plain scan in double (it also yields *gap0) */
    double gmaxd = -INFINITY, gmax2d = -INFINITY;
    int i = -1;
    for (int t = 0; t < n; t++) {
        const double vt = y[t] * g[t];
        const int iu = in_up(y[t], a[t], C[t]), il = in_low(y[t], a[t], C[t]);
        const double u = iu ? -vt : -INFINITY, w = il ? vt : -INFINITY;
        v[t] = (SB_T)vt;
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
    const SB_T tolt = (SB_T)tol;
    SB_T gmax = upoff[i] - v[i];
    /* Each step: pass 1 picks j and, as max_t (gmax + low_t) = gmax + max_t low_t (rounding is
     * monotone), the gap for the stopping test; the step; pass 2 updates v and picks the next i.
     * The sentinel arithmetic (0 - v, 0 + v, -INF +- v) equals the selects of the plain scan for
     * finite v up to the sign of a zero, which no comparison below can see. */
    for (;;) {
        const float *Ki = K + (long)i * ld;
        const SB_T kii = diag[i];
        int j = -1;
        SB_T best = INFINITY, gap = -INFINITY;
#if GS_VEC
        if (nw > 0) {
            const SB_V gm = SB_SPLAT(gmax), kk = SB_SPLAT(kii), tau = SB_SPLAT(SB_TAU), zero = SB_SPLAT((SB_T)0);
            const SB_V inf = SB_SPLAT((SB_T)INFINITY), qmin = SB_SPLAT(SB_QMIN);
            const SB_M lane = SB_LANES;
            SB_V bv = inf, th = zero, mb = -inf;
            SB_M bi = lane - lane - 1;
            /* b and q for the group at slot s (q not yet clamped to SB_TAU) */
#define GS_B(s) (gm + (SB_LD(lowoff + (s)) + SB_LD(v + (s))))
#define GS_Q(s) (kk + SB_LD(diag + (s)) - (SB_T)2 * SB_LDK(Ki + (s)))
            /* the exact scan of the group at slot s: lane minima, ties to the later slot */
#define GS_EXACT(s) do { \
        const SB_V b_ = GS_B(s), q0_ = GS_Q(s); \
        const SB_V q_ = SB_SEL((SB_M)(q0_ > zero), q0_, tau); \
        const SB_V val_ = SB_SEL((SB_M)(b_ > zero), -(b_ * b_) / q_, inf); \
        const SB_M m_ = (SB_M)(val_ <= bv), ix_ = lane + (s); \
        bv = SB_SEL(m_, val_, bv); \
        bi = SELI(m_, ix_, bi); \
    } while (0)
            /* the filter for one group: lanes that could reach the best so far. An unclamped
             * q <= 0 (its clamped value SB_TAU is larger) only makes the bound more conservative;
             * a lane whose q is below SB_QMIN is always computed. */
#define GS_NEED(b, s) __extension__({ const SB_V q_ = GS_Q(s); \
        (SB_M)((b) > zero) & ~((SB_M)((b) * (b) < th * q_) & (SB_M)(q_ >= qmin)); })
            int t = 0;
            for (; t < ngroup; t += 4 * SB_W) {
                const SB_V b0 = GS_B(t), b1 = GS_B(t + SB_W), b2 = GS_B(t + 2 * SB_W), b3 = GS_B(t + 3 * SB_W);
                const SB_V b01 = SB_SEL((SB_M)(b1 > b0), b1, b0);
                const SB_V b23 = SB_SEL((SB_M)(b3 > b2), b3, b2);
                const SB_V bq = SB_SEL((SB_M)(b23 > b01), b23, b01);
                mb = SB_SEL((SB_M)(bq > mb), bq, mb);
                const SB_M need = GS_NEED(b0, t) | GS_NEED(b1, t + SB_W) | GS_NEED(b2, t + 2 * SB_W) |
                                  GS_NEED(b3, t + 3 * SB_W);
                if (!SB_ANY(need)) continue;
                GS_EXACT(t);
                GS_EXACT(t + SB_W);
                GS_EXACT(t + 2 * SB_W);
                GS_EXACT(t + 3 * SB_W);
                /* tighten the bound to the best over all lanes */
                SB_T lo = bv[0];
                for (int l = 1; l < SB_W; l++) lo = bv[l] < lo ? bv[l] : lo;
                th = SB_SPLAT(-lo >= SB_FMIN ? -lo * ((SB_T)1 - SB_MARGIN) : (SB_T)0);
            }
            for (; t < nw; t += SB_W) {
                const SB_V b0 = GS_B(t);
                mb = SB_SEL((SB_M)(b0 > mb), b0, mb);
                GS_EXACT(t);
            }
#undef GS_B
#undef GS_Q
#undef GS_EXACT
#undef GS_NEED
            /* merge the lanes: smallest value, the last index among equal ones */
            for (int l = 0; l < SB_W; l++) {
                if (bv[l] < best || (bv[l] == best && bi[l] > j)) { best = bv[l]; j = (int)bi[l]; }
                gap = mb[l] > gap ? mb[l] : gap;
            }
        }
#endif
        for (int t = nw; t < n; t++) {
            const SB_T b = gmax + (lowoff[t] + v[t]); /* -INF when t is outside I_low */
            gap = b > gap ? b : gap;
            SB_T q = kii + diag[t] - (SB_T)2 * (SB_T)Ki[t];
            q = q > 0 ? q : SB_TAU;
            const SB_T val = b > 0 ? -(b * b) / q : INFINITY;
            if (val <= best) { best = val; j = t; }
        }
        /* the first step's gap test was the exact one above */
        if ((steps > 0 && !(gap >= tolt)) || steps >= sp->max_steps) break;
        if (j < 0 || best == INFINITY) break;
        const float *Kj = K + (long)j * ld;
        const double ai = a[i], aj = a[j], Ci = C[i], Cj = C[j];
        double ni, nj;
        smo_step(y[i], y[j], ai, aj, Ci, Cj, (double)kii + (double)diag[j] - 2.0 * (double)Ki[j], v[i], v[j], &ni,
                 &nj);
        a[i] = ni;
        a[j] = nj;
        /* y_t g_t += y_t (Q_ti di + Q_tj dj) = y_i di K_ti + y_j dj K_tj */
        const SB_T ci = (SB_T)(y[i] * (ni - ai)), cj = (SB_T)(y[j] * (nj - aj));
        /* i and j may have entered or left I_up / I_low */
        upoff[i] = in_up(y[i], ni, Ci) ? 0 : -INFINITY;
        lowoff[i] = in_low(y[i], ni, Ci) ? 0 : -INFINITY;
        upoff[j] = in_up(y[j], nj, Cj) ? 0 : -INFINITY;
        lowoff[j] = in_low(y[j], nj, Cj) ? 0 : -INFINITY;
        /* update v and find the next i in the same pass */
        gmax = -INFINITY;
        i = -1;
#if GS_VEC
        if (nw > 0) {
            const SB_V cvi = SB_SPLAT(ci), cvj = SB_SPLAT(cj), ninf = SB_SPLAT((SB_T)-INFINITY);
            const SB_M lane = SB_LANES, e1 = lane - lane + SB_W, e2 = e1 + e1, e4 = e2 + e2;
            SB_V bu = ninf;
            SB_M bi = lane - lane - 1, tv = lane;
            int t = 0;
            /* 4 vectors a round: a tree over the four (later vector wins ties), then one
             * compare-select against the running lane maxima, so the loop-carried chain is short */
#define GS_UPD(k) __extension__({ \
        const SB_V vk_ = SB_LD(v + t + SB_W * (k)) + \
            (cvi * SB_LDK(Ki + t + SB_W * (k)) + cvj * SB_LDK(Kj + t + SB_W * (k))); \
        SB_ST(v + t + SB_W * (k), vk_); SB_LD(upoff + t + SB_W * (k)) - vk_; })
            for (; t < ngroup; t += 4 * SB_W, tv += e4) {
                const SB_V u0 = GS_UPD(0), u1 = GS_UPD(1), u2 = GS_UPD(2), u3 = GS_UPD(3);
                const SB_M m01 = (SB_M)(u1 >= u0), m23 = (SB_M)(u3 >= u2);
                const SB_V u01 = SB_SEL(m01, u1, u0), u23 = SB_SEL(m23, u3, u2);
                const SB_M i01 = SELI(m01, tv + e1, tv);
                const SB_M i23 = SELI(m23, tv + e4 - e1, tv + e2);
                const SB_M mq = (SB_M)(u23 >= u01);
                const SB_V uq = SB_SEL(mq, u23, u01);
                const SB_M iq = SELI(mq, i23, i01);
                const SB_M m = (SB_M)(uq >= bu);
                bu = SB_SEL(m, uq, bu);
                bi = SELI(m, iq, bi);
            }
            for (; t < nw; t += SB_W, tv += e1) {
                const SB_V u0 = GS_UPD(0);
                const SB_M m = (SB_M)(u0 >= bu);
                bu = SB_SEL(m, u0, bu);
                bi = SELI(m, tv, bi);
            }
#undef GS_UPD
            /* merge: largest value, the last index among equal ones */
            for (int l = 0; l < SB_W; l++)
                if (bu[l] > gmax || (bu[l] == gmax && bi[l] > i)) { gmax = bu[l]; i = (int)bi[l]; }
        }
#endif
        for (int t = nw; t < n; t++) {
            const SB_T vt = v[t] + (ci * (SB_T)Ki[t] + cj * (SB_T)Kj[t]);
            v[t] = vt;
            const SB_T u = upoff[t] - vt;
            if (u >= gmax) { gmax = u; i = t; }
        }
        steps++;
        if (gmax == -INFINITY) break;
    }
done:
    if (steps > 0) /* else g stays as given */
        for (int t = 0; t < n; t++) g[t] = y[t] * (double)v[t];
    return steps;
}

#undef SB_NAME
#undef SB_T
#undef SB_V
#undef SB_M
#undef SB_W
#undef SB_LANES
#undef SB_LD
#undef SB_ST
#undef SB_LDK
#undef SB_SPLAT
#undef SB_SEL
#undef SB_ANY
#undef SB_TAU
#undef SB_MARGIN
#undef SB_FMIN
#undef SB_QMIN
