#!/bin/sh
# ptx-size.sh — the size of one of kernels/'s programs as PTX, by clang's OpenCL front end for
# nvptx64 (no GPU needed): a proxy for what NVIDIA's driver compiles on a machine's first run,
# whose assembler time follows the PTX's length kernel by kernel (docs/performance.md, J1: k_select
# 6,216 lines 0.77 s, k_cert 4,712 lines 0.35 s, k_rows 2,807 lines 0.30 s). clang keeps some
# functions out of line where NVIDIA's compiler inlines them, so compare builds of this script with
# each other, not with the driver's PTX. A measurement tool, not part of gpusvm.
# Usage: scripts/ptx-size.sh [PROGRAM [OPTIONS]]   (default: the solver with
# a9a's options, scripts/a9a-solver.opts)
set -eu
P=${1:-solver}
O=${2:-$(cat "$(dirname "$0")/a9a-solver.opts")}
K=$(cd "$(dirname "$0")/../kernels" && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
# the program as gpusvm builds it: common.cl, abi.h, then the program's file
{ cat "$K/common.cl"; echo; cat "$K/abi.h"; echo; cat "$K/$P.cl"; } > "$T/p.cl"
# shellcheck disable=SC2086
clang -x cl -cl-std=CL1.2 -D__OPENCL_VERSION__=120 -Xclang -finclude-default-header \
    -target nvptx64-nvidia-nvcl -O3 -w -S $O "$T/p.cl" -o "$T/p.ptx"
echo "$P: $(wc -l < "$T/p.ptx") PTX lines"
# each kernel (.entry) and out-of-line function (.func) with its lines, longest first
awk '/^\.(visible )?\.?(entry|func)/ { for (i = 1; i <= NF; i++) if ($i ~ /^[A-Za-z_][A-Za-z0-9_]*\(?$/ &&
        $i != ".func" && $i != ".entry" && $i != ".visible") { name = $i; sub(/\(.*/, "", name) } }
     { n[name]++ } END { for (k in n) if (k != "") printf "%7d  %s\n", n[k], k }' "$T/p.ptx" | sort -rn
