/* selftest.cl — tiny kernels for tests/device/test_ocl.c: a double axpy and a float dot product
 * (per-group partial sums), exercising the common prelude, -D specialisation and local memory. */
#ifdef BREAK_BUILD
#error "BREAK_BUILD is defined: this build is meant to fail (tests/device/test_ocl.c)"
#endif

/* Work-group size of gs_selftest_dot; the host launches with exactly WG (after checking it against
 * CL_KERNEL_WORK_GROUP_SIZE) and rebuilds with a smaller WG if needed. */
#ifndef WG
#define WG 64
#endif

/* y = a*x + y */
__kernel void gs_selftest_axpy(const int n, const double a, __global const double *x,
                               __global double *y)
{
    const int i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}

/* partial[g] = sum of x[i]*y[i] over the indices that group g's work-items stride over. */
__kernel void gs_selftest_dot(const int n, __global const float *x, __global const float *y,
                              __global float *partial)
{
    __local float scratch[WG];
    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        acc += x[i] * y[i];
    const float s = gs_wg_sum_f(acc, scratch);
    if (get_local_id(0) == 0)
        partial[get_group_id(0)] = s;
}
