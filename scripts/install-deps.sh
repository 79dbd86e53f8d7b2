#!/bin/sh
# Installs what gpusvm needs to build and test on Debian 12 / Ubuntu 24.04: the OpenCL loader and
# headers, PoCL (a CPU OpenCL device for machines without a GPU), zlib, and the test oracle
# (Debian's libsvm-tools: svm-train/svm-predict, and python3-libsvm; libsvm-dev and pkg-config for
# the library's test, tests/cli/test_api.sh). Does nothing when everything is present.
# Optional, never required: Open MPI (openmpi-bin libopenmpi-dev) for gpusvm-grid's MPI build and
# its test (tests/cli/test_grid_mpi.sh skips without it): GPUSVM_DEPS_MPI=1 sh scripts/install-deps.sh
# installs it too.
set -eu
PKGS="ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd zlib1g-dev libsvm-tools libsvm-dev python3-libsvm pkg-config python3 make gcc"
if [ "${GPUSVM_DEPS_MPI:-0}" = 1 ]; then PKGS="$PKGS openmpi-bin libopenmpi-dev"; fi
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -z "$missing" ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: missing packages:$missing (no apt-get here: install them by hand)" >&2
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages:$missing" >&2
    echo "install-deps: run as root:  apt-get update && apt-get install -y$missing" >&2
    exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
