/* test_abi.c — kernels/abi.h, the tables the host and the kernels share: the device compiler's
 * size of every struct and offset of every field of GS_ABI_LAYOUTS (kernels/abi_probe.cl) equal
 * the host compiler's, and the offset macros agree; also built in dev mode (GPUSVM_KERNEL_DIR,
 * abi.h read from kernels/), and the embedded abi.h is the file's text. Skips (saying why) what
 * needs a device when there is none. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "device/dev.h"
#include "kernels/abi.h"
#include "testlib.h"

#define CAP 256

/* The host's view, in GS_ABI_LAYOUTS order, with a name for each entry. */
static int host_layout(int *want, const char **name)
{
    int n = 1;
#define H_S(T) { want[n] = (int)sizeof(T); name[n++] = "sizeof " #T; }
#define H_F(T, f) { want[n] = (int)offsetof(T, f); name[n++] = "offsetof " #T "." #f; }
    GS_ABI_LAYOUTS(H_S, H_F)
#undef H_S
#undef H_F
#define H_V(x) { want[n] = (int)(x); name[n++] = #x; }
    H_V(GS_CS_NPASS)
    H_V(GS_CS_NBINS)
    H_V(GS_CS_RB_GAP)
    H_V(GS_CS_RB_SELECTED)
    H_V(GS_CS_RB_NNEW)
    H_V(GS_CS_RB_WS_POS(7))
    H_V(GS_CS_RB_NEW_SLOTS(7))
    H_V(GS_CS_RB_G(7))
    H_V(GS_CS_RB_DOUBLES(7, 3))
    H_V(GS_CS_UPD_SLOTS(5, 3))
    H_V(GS_CS_UPD_ALPHAS(5, 3))
    H_V(GS_CS_UPD_DOUBLES(5, 7, 3))
#undef H_V
    return n;
}

/* The layouts the host relies on beyond agreement: no padding, entry sizes as solver.cl's tables. */
static void check_host(void)
{
    CHECK(sizeof(gs_abi_pair) == 6 * sizeof(int32_t), "pair entry %zu bytes", sizeof(gs_abi_pair));
    CHECK(sizeof(gs_abi_cs_state) == 5 * sizeof(uint64_t), "cs state %zu bytes", sizeof(gs_abi_cs_state));
    CHECK(sizeof(gs_abi_problem) == 8 * sizeof(int32_t), "PT entry %zu bytes (solver.cl PT 8)", sizeof(gs_abi_problem));
    CHECK(sizeof(gs_abi_round) == 11 * sizeof(int32_t), "RT entry %zu bytes (solver.cl RT 11)", sizeof(gs_abi_round));
    CHECK(sizeof(gs_abi_cert) == 5 * sizeof(int32_t), "CT entry %zu bytes (5 fields)", sizeof(gs_abi_cert));
    /* solver.cl's index names (P_NPOS 4, P_POFF 5, R_CH0 8, R_NCH 9, R_SEL 10) */
    CHECK(offsetof(gs_abi_problem, npos) == 4 * sizeof(int32_t) && offsetof(gs_abi_problem, poff) == 5 * sizeof(int32_t),
          "problem table fields");
    CHECK(offsetof(gs_abi_round, ch0) == 8 * sizeof(int32_t) && offsetof(gs_abi_round, nch) == 9 * sizeof(int32_t) &&
          offsetof(gs_abi_round, sel) == 10 * sizeof(int32_t), "round table fields");
}

/* Builds abi_probe (in dev mode when dir is given) and compares every entry with the host's. */
static void check_device(gs_ocl *o, const char *mode)
{
    int want[CAP], got[CAP];
    const char *name[CAP];
    const int n = host_layout(want, name);
    static const char *const knames[] = {"gs_abi_probe"};
    gs_dev d;
    gs_dev_kernels ks;
    gs_dev_buf out = {0};
    memset(&ks, 0, sizeof ks);
    gs_status st = gs_dev_init(&d, o, NULL);
    if (st == GS_OK) st = gs_dev_kernels_build(o, "abi_probe", NULL, 1, knames, 1, &ks);
    CHECK(st == GS_OK, "%s: build abi_probe: %s", mode, gs_last_error());
    if (st != GS_OK) goto cleanup;
    const int cap = CAP;
    const gs_dev_karg args[] = {GS_KARG_BUF(out), GS_KARG(cap)};
    if ((st = gs_dev_buf_ensure(&d, &out, sizeof got, NULL, "probe")) || (st = gs_dev_buf_fill(&d, &out, -1, sizeof got)) ||
        (st = GS_DEV_ARGS(&ks, 0, args)) || (st = gs_dev_launch(&d, &ks, 0, NULL, 1, 1, 1, NULL)))
        goto cleanup;
    cl_int e = clEnqueueReadBuffer(d.queue, out.mem, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
    CHECK(e == CL_SUCCESS, "%s: read: %s", mode, gs_cl_error_name(e));
    if (e != CL_SUCCESS) goto cleanup;
    CHECK(got[0] == n, "%s: the device wrote %d entries, the host has %d", mode, got[0], n);
    int bad = 0;
    for (int i = 1; i < n && i < got[0]; i++)
        if (got[i] != want[i]) {
            bad++;
            printf("INFO %s: %s: device %d, host %d\n", mode, name[i], got[i], want[i]);
        }
    CHECK(bad == 0, "%s: %d of %d layout entries differ", mode, bad, n - 1);
    printf("INFO %s: %d sizes, offsets and macro values agree\n", mode, n - 1);
cleanup:
    CHECK(st == GS_OK, "%s: %s", mode, gs_last_error());
    if (d.queue) clFinish(d.queue);
    gs_dev_buf_release(&out);
    gs_dev_kernels_release(&ks);
}

/* The embedded copy is kernels/abi.h as it is now (when run from the repository root). */
static void check_embedded(void)
{
    const char *emb = gs_ocl_source("abi.h");
    CHECK(emb != NULL, "abi.h is not embedded");
    FILE *f = fopen("kernels/abi.h", "rb");
    if (!f) {
        SKIP("kernels/abi.h not found from the current directory: embedded copy not compared");
        return;
    }
    static char text[1 << 16];
    const size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    CHECK(emb && strcmp(emb, text) == 0, "the embedded abi.h differs from kernels/abi.h (rebuild)");
}

int main(void)
{
    check_host();
    check_embedded();
    gs_ocl o;
    gs_status st = gs_ocl_open(&o, NULL, NULL);
    if (st == GS_ERR_NODEVICE || st == GS_ERR_UNSUPPORTED) {
        SKIP("no usable OpenCL device: %s", gs_last_error());
        TEST_END();
    }
    CHECK(st == GS_OK, "gs_ocl_open: %s", gs_last_error());
    if (st != GS_OK) TEST_END();
    check_device(&o, "embedded");
    FILE *f = fopen("kernels/abi.h", "r");
    if (!f) {
        SKIP("dev mode: kernels/ not found from the current directory");
    } else {
        fclose(f);
        setenv("GPUSVM_KERNEL_DIR", "kernels", 1);
        check_device(&o, "dev mode");
        unsetenv("GPUSVM_KERNEL_DIR");
    }
    gs_ocl_close(&o);
    TEST_END();
}
