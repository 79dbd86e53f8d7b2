/* test_subproblem.c — subproblem.c against a double-precision reference computed here: on random
 * RBF subproblems (with empty slots) the result keeps the box and y'a, its gradient is the exact
 * Q a - e of the result (within float rounding in the float form, 1e-9 in the double form) and
 * the exact maximal violating pair gap is below the tolerance (plus that rounding); small
 * gradients take the float form (|g| <= 16384 eps), C = 1e4 with unscaled gradients the double
 * form. Also: the step budget, a set already optimal (no step, g untouched bit for bit), and the
 * same result twice. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train/subproblem.h"
#include "testlib.h"

typedef struct sub {
    int n;
    float *K;
    int8_t *y;
    double *C, *a, *g, *work;
} sub;

static unsigned long long rng = 88172645463325252ULL;
static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* n slots, every 7th empty; RBF over random points in 5 dimensions; alphas start at 0 */
static int make(sub *s, int n, double c, double gscale)
{
    s->n = n;
    s->K = malloc(sizeof(float) * n * n);
    s->y = malloc((size_t)n);
    s->C = malloc(sizeof(double) * n);
    s->a = malloc(sizeof(double) * n);
    s->g = malloc(sizeof(double) * n);
    s->work = malloc(sizeof(double) * 4 * n);
    double *x = malloc(sizeof(double) * 5 * n);
    if (!s->K || !s->y || !s->C || !s->a || !s->g || !s->work || !x) { free(x); return 0; }
    for (int i = 0; i < 5 * n; i++) x[i] = urand();
    for (int i = 0; i < n; i++) {
        s->y[i] = i % 7 == 6 ? 0 : (urand() < 0.5 ? 1 : -1);
        s->C[i] = s->y[i] ? c : 0;
        s->a[i] = 0;
        s->g[i] = s->y[i] ? -gscale : 0; /* Q 0 - e, scaled */
        for (int j = 0; j < n; j++) {
            double d = 0;
            for (int k = 0; k < 5; k++) d += (x[5 * i + k] - x[5 * j + k]) * (x[5 * i + k] - x[5 * j + k]);
            s->K[(size_t)i * n + j] = (float)exp(-2.0 * d);
        }
    }
    free(x);
    return 1;
}

static void drop(sub *s) { free(s->K); free(s->y); free(s->C); free(s->a); free(s->g); free(s->work); }

/* the exact gradient g0 + Q (a - a0) (a0 = 0) and its maximal violating pair gap */
static double exact(const sub *s, double gscale, double *ge)
{
    double up = -INFINITY, low = -INFINITY;
    for (int i = 0; i < s->n; i++) {
        if (!s->y[i]) { ge[i] = 0; continue; }
        double v = -gscale;
        for (int j = 0; j < s->n; j++)
            if (s->y[j]) v += (double)s->y[i] * s->y[j] * s->K[(size_t)i * s->n + j] * s->a[j];
        ge[i] = v;
        const double yg = s->y[i] * v;
        const int iu = s->y[i] > 0 ? s->a[i] < s->C[i] : s->a[i] > 0;
        const int il = s->y[i] > 0 ? s->a[i] > 0 : s->a[i] < s->C[i];
        if (iu && -yg > up) up = -yg;
        if (il && yg > low) low = yg;
    }
    return up + low;
}

static long solve(sub *s, double eps, long max_steps, double *gap0)
{
    gs_subproblem sp = {.n = s->n, .K = s->K, .ld = s->n, .y = s->y, .C = s->C, .alpha = s->a, .g = s->g,
                        .work = s->work, .eps = eps, .rel = 0, .max_steps = max_steps};
    return gs_subproblem_solve(&sp, gap0);
}

static void check_solution(const char *form, int n, double c, double gscale, double gtol)
{
    sub s;
    const unsigned long long seed = rng;
    if (!make(&s, n, c, gscale)) { CHECK(0, "out of memory"); return; }
    double gap0 = 0;
    const double eps = 1e-3;
    const long steps = solve(&s, eps, 1000000, &gap0);
    CHECK(steps > 0, "%s: steps %ld", form, steps);
    CHECK(fabs(gap0 - 2 * gscale) < 1e-12 * gscale, "%s: initial gap %.17g", form, gap0);
    double sya = 0, box = 0;
    for (int i = 0; i < n; i++) {
        sya += s.y[i] * s.a[i];
        if (s.a[i] < 0 || s.a[i] > s.C[i]) box = 1;
    }
    CHECK(box == 0, "%s: alphas in the box", form);
    CHECK(fabs(sya) <= 1e-9 * c, "%s: y'a = %g", form, sya);
    double *ge = malloc(sizeof(double) * n);
    const double gap = exact(&s, gscale, ge);
    double gerr = 0;
    for (int i = 0; i < n; i++) gerr = fmax(gerr, fabs(ge[i] - s.g[i]));
    CHECK(gerr <= gtol, "%s: gradient error %.3g (allowed %.3g)", form, gerr, gtol);
    CHECK(gap < eps + 2 * gtol, "%s: exact gap %.6g after %ld steps", form, gap, steps);
    /* the same again */
    sub t;
    rng = seed;
    if (make(&t, n, c, gscale)) {
        double g1;
        const long steps2 = solve(&t, eps, 1000000, &g1);
        CHECK(steps2 == steps && memcmp(t.a, s.a, sizeof(double) * n) == 0 && memcmp(t.g, s.g, sizeof(double) * n) == 0,
              "%s: the same result twice", form);
        drop(&t);
    }
    free(ge);
    drop(&s);
}

static void test_budget_and_optimal(void)
{
    sub s;
    if (!make(&s, 64, 1, 1)) { CHECK(0, "out of memory"); return; }
    double gap0;
    CHECK(solve(&s, 1e-3, 5, &gap0) == 5, "budget of 5 steps");
    /* solved: a second call finds the gap below eps and changes nothing, not even g's last bits */
    solve(&s, 1e-3, 1000000, &gap0);
    double *a = malloc(sizeof(double) * 64), *g = malloc(sizeof(double) * 64);
    memcpy(a, s.a, sizeof(double) * 64);
    for (int i = 0; i < 64; i++) s.g[i] += s.y[i] ? 1e-9 * i : 0; /* bits a float rounding would lose */
    memcpy(g, s.g, sizeof(double) * 64);
    CHECK(solve(&s, 1e-3, 1000000, &gap0) == 0, "no step on a solved set");
    CHECK(memcmp(a, s.a, sizeof(double) * 64) == 0 && memcmp(g, s.g, sizeof(double) * 64) == 0, "untouched");
    free(a);
    free(g);
    drop(&s);
}

/* The AVX2 and AVX-512 loops (where the CPU has them) take the scalar loops' steps to the same
 * alphas and gradients, bit for bit, on sets of n slots (tails of every vector width) in both
 * forms, unbounded and after a budget of steps */
static void check_isa(const char *form, int n, double c, double gscale, long budget)
{
    static const char *const name[3] = {"scalar", "AVX2", "AVX-512"};
    sub ref;
    const unsigned long long seed = rng;
    if (!make(&ref, n, c, gscale)) { CHECK(0, "out of memory"); return; }
    gs_subproblem sp = {.n = n, .K = ref.K, .ld = n, .y = ref.y, .C = ref.C, .alpha = ref.a, .g = ref.g,
                        .work = ref.work, .eps = 1e-3, .rel = 0.1, .max_steps = budget};
    double gap_ref = 0;
    const long steps_ref = gs_subproblem_solve_isa(&sp, &gap_ref, GS_ISA_SCALAR);
    CHECK(steps_ref > 0, "%s, %d slots: scalar steps %ld", form, n, steps_ref);
    for (int isa = GS_ISA_AVX2; isa <= GS_ISA_AVX512; isa++) {
        sub t;
        rng = seed;
        if (!make(&t, n, c, gscale)) { CHECK(0, "out of memory"); continue; }
        gs_subproblem tp = sp;
        tp.K = t.K; tp.y = t.y; tp.C = t.C; tp.alpha = t.a; tp.g = t.g; tp.work = t.work;
        double gap = 0;
        const long steps = gs_subproblem_solve_isa(&tp, &gap, isa);
        if (steps < 0) {
            SKIP("%s, %d slots: no %s on this CPU or build", form, n, name[isa]);
        } else {
            CHECK(steps == steps_ref && gap == gap_ref && memcmp(t.a, ref.a, sizeof(double) * n) == 0 &&
                      memcmp(t.g, ref.g, sizeof(double) * n) == 0,
                  "%s, %d slots, budget %ld: %s as the scalar loops (%ld vs %ld steps)", form, n, budget, name[isa],
                  steps, steps_ref);
        }
        drop(&t);
    }
    drop(&ref);
}

int main(void)
{
    for (int k = 0; k < 2; k++) {
        const long budget = k ? 37 : 1000000;
        check_isa("float form", 768, 1, 1, budget);
        check_isa("float form", 301, 1, 1, budget);
        check_isa("float form", 45, 1, 1, budget);
        check_isa("double form", 768, 1e4, 1e3, budget);
        check_isa("double form", 299, 1e4, 1e3, budget);
        check_isa("double form", 13, 1e4, 1e3, budget);
    }
    /* float form: gradients of size 1; float rounding of y g over the steps */
    check_solution("float form, 512 slots", 512, 1, 1, 1e-4);
    check_solution("float form, 300 slots (vector tails)", 300, 1, 1, 1e-4);
    /* double form: C = 1e4, gradients of size 1e3 (above 16384 eps) */
    check_solution("double form", 300, 1e4, 1e3, 1e-6);
    test_budget_and_optimal();
    TEST_END();
}
