/* common.cl — prelude put in front of every kernels/<name>.cl by gs_ocl_build (also valid alone).
 * Programs are compiled as OpenCL C 1.2 (-cl-std=CL1.2) with double precision required; helper
 * names start with gs_ so they cannot clash with a kernel file's own. */
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#else
#error "gpusvm needs double precision on the OpenCL device (cl_khr_fp64)"
#endif

/* Sum of v over the work-group, returned to every work-item. scratch holds get_local_size(0)
 * elements. All work-items of the group must call it (it has barriers); any local size works, not
 * only powers of two. Pairwise tree: the rounding error grows with log2(local size). */
float gs_wg_sum_f(float v, __local float *scratch)
{
    const uint l = get_local_id(0);
    scratch[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint active = get_local_size(0); active > 1;) {
        const uint upper = (active + 1) / 2; /* "half" is a type in OpenCL C */
        if (l < active - upper)
            scratch[l] += scratch[l + upper];
        barrier(CLK_LOCAL_MEM_FENCE);
        active = upper;
    }
    const float r = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read scratch[0] before it is reused */
    return r;
}

#ifdef WG
/* Working-set block (solver.cl, cs.cl): the row at clustered position p into column k of U, U[col * q
 * + k] over compact columns (or zeros over the row's columns when clear). Dense clusters hold a
 * row's values over the cluster's union, row-wise (ELL) clusters in slots. Needs -DWG. */
void gs_put_row(int p, int clear, __global const long *col_off, __global const int *cols,
                __global const float *vals, __global const int *ell_w, __global const long *ell_off,
                __global const int *ell_idx, __global const float *ell_val, __global float *U, int q, int k)
{
    const int c = p / WG, t = p % WG, lid = get_local_id(0);
    const int w = ell_w[c];
    if (w > 0) {
        const long b = ell_off[c];
        for (int e = lid; e < w; e += WG) {
            const float x = ell_val[b + (long)e * WG + t];
            if (x != 0.0f || clear) U[(long)ell_idx[b + (long)e * WG + t] * q + k] = clear ? 0.0f : x;
        }
    } else {
        const long b = col_off[c], n = col_off[c + 1] - b;
        for (long j = lid; j < n; j += WG)
            U[(long)cols[b + j] * q + k] = clear ? 0.0f : vals[(b + j) * WG + t];
    }
}
#endif

#ifdef KTYPE
/* K from the dot product and the squared norms, for -DKTYPE = 0 linear, 1 poly, 2 RBF, 3 sigmoid. */
double gs_kfun(double dot, double ni, double nj, double gamma, double coef0, int degree)
{
#if KTYPE == 0
    return dot;
#elif KTYPE == 1
    double base = gamma * dot + coef0, r = 1.0;
    for (int d = degree; d > 0; d >>= 1) {
        if (d & 1) r *= base;
        base *= base;
    }
    return r;
#elif KTYPE == 2
    return exp(-gamma * fmax(ni + nj - 2.0 * dot, 0.0));
#else
    return tanh(gamma * dot + coef0);
#endif
}
#endif
