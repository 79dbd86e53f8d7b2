/* abi_probe.cl — kernels/abi.h as the device compiler lays it out, for tests/device/test_abi.c.
 * gs_abi_probe (one work-item) writes to out[1..]: for each struct of GS_ABI_LAYOUTS in order its
 * size, then its listed fields' offsets; then the offset macros at q = 7, k = 3, nupd = 5; out[0]
 * gets the number of entries, out[] holding cap of them at most. */

#define GS_PROBE_PUT(x)  \
    {                    \
        if (n < cap)     \
            out[n] = (x); \
        n++;             \
    }
#define GS_PROBE_S(T) GS_PROBE_PUT((int)sizeof(T))
/* offsets by address difference (OpenCL C 1.2 has no offsetof); out only lends an address */
#define GS_PROBE_F(T, f) \
    GS_PROBE_PUT((int)((__global const char *)&((__global const T *)out)->f - (__global const char *)out))

__kernel void gs_abi_probe(__global int *out, const int cap)
{
    if (get_global_id(0) != 0 || cap < 1)
        return;
    int n = 1;
    GS_ABI_LAYOUTS(GS_PROBE_S, GS_PROBE_F)
    GS_PROBE_PUT(GS_CS_NPASS)
    GS_PROBE_PUT(GS_CS_NBINS)
    GS_PROBE_PUT(GS_CS_RB_GAP)
    GS_PROBE_PUT(GS_CS_RB_SELECTED)
    GS_PROBE_PUT(GS_CS_RB_NNEW)
    GS_PROBE_PUT(GS_CS_RB_WS_POS(7))
    GS_PROBE_PUT(GS_CS_RB_NEW_SLOTS(7))
    GS_PROBE_PUT(GS_CS_RB_G(7))
    GS_PROBE_PUT(GS_CS_RB_DOUBLES(7, 3))
    GS_PROBE_PUT(GS_CS_UPD_SLOTS(5, 3))
    GS_PROBE_PUT(GS_CS_UPD_ALPHAS(5, 3))
    GS_PROBE_PUT(GS_CS_UPD_DOUBLES(5, 7, 3))
    out[0] = n;
}
