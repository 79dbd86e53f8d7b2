/* bench-smo.c — the host SMO's cost a step (src/train/subproblem.c) with each instruction set's
 * loops, on random RBF working sets like the solver's, T threads each solving its own set at once
 * (the solver runs one set a thread; every thread gets the same set, so each takes the same
 * steps and the wall time is one set's). Every ISA must take the same steps (checked).
 *
 *   cc -O2 -std=c11 -D_DEFAULT_SOURCE -Isrc -o bench-smo scripts/bench-smo.c build/obj/train/subproblem.o -lm -lpthread
 *   ./bench-smo [q=768] [threads=1] [steps=200000]
 *
 * Two cases at eps 1e-3: C = 1 with gradients of size 1 (the float form) and C = 1e4 with
 * gradients of size 1e3 (the double form), each solved from alpha = 0 again and again until the
 * thread has taken the steps asked (the kernel matrix built once, outside the timing). Prints
 * microseconds a step per ISA and case (the slowest thread's, median of 3 runs). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "train/subproblem.h"

typedef struct job {
    int n, isa;
    long steps_min, steps; /* repeat the solve from the start until steps_min steps are taken */
    double c, gscale, secs;
    unsigned long long seed;
} job;

static double urand(unsigned long long *r)
{
    *r ^= *r << 13; *r ^= *r >> 7; *r ^= *r << 17;
    return (double)(*r >> 11) / 9007199254740992.0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void *run(void *arg)
{
    job *jb = arg;
    const int n = jb->n;
    float *K = malloc(sizeof(float) * n * n);
    int8_t *y = malloc((size_t)n);
    double *C = malloc(sizeof(double) * n), *a = malloc(sizeof(double) * n), *g = malloc(sizeof(double) * n);
    double *w = malloc(sizeof(double) * 4 * n), *x = malloc(sizeof(double) * 8 * n);
    jb->steps = -2;
    if (!K || !y || !C || !a || !g || !w || !x) goto done;
    unsigned long long r = jb->seed;
    for (int i = 0; i < 8 * n; i++) x[i] = urand(&r);
    for (int i = 0; i < n; i++) {
        y[i] = urand(&r) < 0.5 ? 1 : -1;
        C[i] = jb->c;
        for (int j = 0; j < n; j++) {
            double d = 0;
            for (int k = 0; k < 8; k++) d += (x[8 * i + k] - x[8 * j + k]) * (x[8 * i + k] - x[8 * j + k]);
            K[(size_t)i * n + j] = (float)exp(-0.5 * d);
        }
    }
    gs_subproblem sp = {.n = n, .K = K, .ld = n, .y = y, .C = C, .alpha = a, .g = g, .work = w,
                        .eps = 1e-3, .rel = 0, .max_steps = 10000000};
    long total = 0;
    const double t0 = now();
    while (total < jb->steps_min) {
        for (int i = 0; i < n; i++) { a[i] = 0; g[i] = -jb->gscale; }
        double gap0;
        const long st = gs_subproblem_solve_isa(&sp, &gap0, jb->isa);
        if (st <= 0) { total = st < 0 ? -1 : total; break; }
        total += st;
    }
    jb->secs = now() - t0;
    jb->steps = total;
done:
    free(K); free(y); free(C); free(a); free(g); free(w); free(x);
    return NULL;
}

int main(int argc, char **argv)
{
    const int q = argc > 1 ? atoi(argv[1]) : 768, nt = argc > 2 ? atoi(argv[2]) : 1;
    const long steps = argc > 3 ? atol(argv[3]) : 200000;
    static const char *const isa_name[3] = {"scalar", "avx2", "avx512"};
    static const char *const case_name[2] = {"float form", "double form"};
    if (q < 2 || nt < 1 || nt > 256 || steps < 1) { fprintf(stderr, "usage: bench-smo [q] [threads] [steps]\n"); return 1; }
    printf("q=%d threads=%d, at least %ld steps a thread (us a step, median of 3 runs)\n", q, nt, steps);
    for (int cs = 0; cs < 2; cs++) {
        long ref = -1;
        for (int isa = 0; isa < 3; isa++) {
            double t[3];
            long got = 0;
            int ok = 1;
            for (int rep = 0; rep < 3 && ok; rep++) {
                job jb[256];
                pthread_t th[256];
                for (int k = 0; k < nt; k++) {
                    jb[k] = (job){.n = q, .isa = isa, .steps_min = steps, .c = cs ? 1e4 : 1, .gscale = cs ? 1e3 : 1,
                                  .seed = 88172645463325252ULL};
                    pthread_create(&th[k], NULL, run, &jb[k]);
                }
                double worst = 0;
                for (int k = 0; k < nt; k++) {
                    pthread_join(th[k], NULL);
                    if (jb[k].steps <= 0) ok = 0;
                    else if (jb[k].secs / (double)jb[k].steps > worst) worst = jb[k].secs / (double)jb[k].steps;
                }
                got = jb[0].steps;
                t[rep] = worst * 1e6;
            }
            if (!ok) { printf("  %-12s %-7s not on this CPU or build\n", case_name[cs], isa_name[isa]); continue; }
            if (ref < 0) ref = got;
            const double m = t[0] < t[1] ? (t[1] < t[2] ? t[1] : (t[0] < t[2] ? t[2] : t[0]))
                                         : (t[0] < t[2] ? t[0] : (t[1] < t[2] ? t[2] : t[1]));
            printf("  %-12s %-7s %8.3f us  (%ld steps%s)\n", case_name[cs], isa_name[isa], m, got,
                   got == ref ? "" : ", DIFFERENT from scalar");
        }
    }
    return 0;
}
