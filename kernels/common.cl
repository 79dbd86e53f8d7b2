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
