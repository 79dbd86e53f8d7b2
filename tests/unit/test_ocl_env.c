/* test_ocl_env.c — gs_ocl_driver_env: sets NV_OPENCL_DISABLE_UVM=1 and CUDA_DEVICE_MAX_CONNECTIONS=1
 * when they are unset, leaves a value the user set (even an empty one) as it is, and with
 * GPUSVM_DRIVER_ENV=0 sets nothing. */
#include <stdlib.h>
#include <string.h>

#include "device/ocl.h"
#include "testlib.h"

static int is(const char *name, const char *want)
{
    const char *v = getenv(name);
    if (!want) return v == NULL;
    return v && strcmp(v, want) == 0;
}

int main(void)
{
    static const char *const vars[] = {"NV_OPENCL_DISABLE_UVM", "CUDA_DEVICE_MAX_CONNECTIONS"};

    /* unset: both set to 1 */
    unsetenv("GPUSVM_DRIVER_ENV");
    for (int i = 0; i < 2; i++) unsetenv(vars[i]);
    gs_ocl_driver_env();
    for (int i = 0; i < 2; i++)
        CHECK(is(vars[i], "1"), "%s unset -> 1, got %s", vars[i], getenv(vars[i]) ? getenv(vars[i]) : "(unset)");

    /* the user's values stay, an empty one too */
    setenv("NV_OPENCL_DISABLE_UVM", "0", 1);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "", 1);
    gs_ocl_driver_env();
    CHECK(is("NV_OPENCL_DISABLE_UVM", "0"), "user's 0 kept");
    CHECK(is("CUDA_DEVICE_MAX_CONNECTIONS", ""), "user's empty value kept");

    /* GPUSVM_DRIVER_ENV=0: nothing set; any other value: as unset */
    for (int i = 0; i < 2; i++) unsetenv(vars[i]);
    setenv("GPUSVM_DRIVER_ENV", "0", 1);
    gs_ocl_driver_env();
    for (int i = 0; i < 2; i++) CHECK(is(vars[i], NULL), "GPUSVM_DRIVER_ENV=0 leaves %s unset", vars[i]);
    setenv("GPUSVM_DRIVER_ENV", "1", 1);
    gs_ocl_driver_env();
    for (int i = 0; i < 2; i++) CHECK(is(vars[i], "1"), "GPUSVM_DRIVER_ENV=1 sets %s", vars[i]);
    TEST_END();
}
