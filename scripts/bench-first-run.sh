#!/bin/sh
# bench-first-run.sh — what a command costs on a fresh machine, where every compiled program is
# missing, against later runs; and what gpusvm's kernel cache (docs/design.md) and the driver's
# own cache each contribute. Whole process, wall clock, median of REPEAT rounds; each round
# starts from empty folders:
#   fresh         gpusvm's cache empty, NVIDIA's on but empty, PoCL's empty: a fresh machine as a
#                 user meets it (issue #26 item 4). The driver's cache also holds what its runtime
#                 builds for itself at start-up: with it off (the states below) every process
#                 pays ~1.7 s more before its first build on an H100 (twenty-ninth session)
#   cold-off      gpusvm's cache off (GPUSVM_KERNEL_CACHE=0), NVIDIA's off (CUDA_CACHE_DISABLE=1),
#                 PoCL's empty: a fresh machine before gpusvm had its kernel cache
#   cold          gpusvm's cache empty, NVIDIA's off, PoCL's empty: a fresh machine (the run
#                 compiles and fills gpusvm's cache)
#   ours          gpusvm's cache filled, NVIDIA's still off, PoCL's empty again: what gpusvm's
#                 cache alone gives
#   ours+driver   both caches on, the driver's filled by one untimed run first: later runs
#   driver only   gpusvm's cache off (GPUSVM_KERNEL_CACHE=0), the driver's filled: gpusvm before
#                 its kernel cache
# Usage, from the repository root (the command is run as given, e.g. with a model file to write):
#   scripts/bench-first-run.sh [-n REPEAT] [-s "STATES"] [-c FILE] -- ./build/gpusvm-train -q data/a9a /tmp/m
# STATES: a subset of "fresh cold-off cold ours ours+driver driver-only" (default: all six).
# -c FILE: FILE (the command's output, e.g. the model) must be byte-identical after every timed
# run; "outputs identical", or the first run that differs, is printed at the end.
# gpusvm's folder is given as GPUSVM_KERNEL_CACHE=<fresh XDG_CACHE_HOME>/gpusvm, so that CPU
# devices (PoCL) use it too; on a GPU that is the default folder. NVIDIA's cache goes to a fresh
# CUDA_CACHE_PATH, PoCL's to a fresh POCL_CACHE_DIR: the user's own caches are not touched.
set -u
REPEAT=3
STATES="fresh cold-off cold ours ours+driver driver-only"
CHECK=
while [ $# -gt 0 ]; do
    case $1 in
    -n) REPEAT=$2; shift 2 ;;
    -s) STATES=$2; shift 2 ;;
    -c) CHECK=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
    esac
done
if [ $# -eq 0 ]; then
    sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
has() { case " $STATES " in *" $1 "*) return 0 ;; esac; return 1; }
med() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "-" }'; }
# timed COMMAND...: runs it once, prints its wall seconds (exit 1 with its output's tail on failure)
timed() {
    s0=$(date +%s.%N)
    "$@" > "$W/last.out" 2>&1; rc=$?
    s1=$(date +%s.%N)
    [ $rc -eq 0 ] || { echo "command failed (exit $rc):"; tail -n 5 "$W/last.out"; exit 1; }
    if [ -n "$CHECK" ]; then
        if [ ! -f "$W/first.check" ]; then cp "$CHECK" "$W/first.check"
        elif ! cmp -s "$CHECK" "$W/first.check"; then echo "$*" >> "$W/differs"; fi
    fi
    awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.3f\n", b - a }'
}
W=$(mktemp -d "${TMPDIR:-/tmp}/firstrun.XXXXXX")
trap 'rm -rf "$W"' EXIT
echo "first-run bench: $*  (median of $REPEAT; $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null))"
command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in $(seq "$REPEAT"); do
    R=$W/round$r
    mkdir -p "$R/xdg" "$R/nv" "$R/pocl0" "$R/pocl1" "$R/pocl2" "$R/pocl3" "$R/fxdg" "$R/fnv" "$R/fpocl"
    if has fresh; then
        t=$(timed env XDG_CACHE_HOME="$R/fxdg" GPUSVM_KERNEL_CACHE="$R/fxdg/gpusvm" CUDA_CACHE_PATH="$R/fnv" \
            POCL_CACHE_DIR="$R/fpocl" "$@") || { echo "$t"; exit 1; }
        echo "$t" >> "$W/fresh"
    fi
    export XDG_CACHE_HOME="$R/xdg" GPUSVM_KERNEL_CACHE="$R/xdg/gpusvm" CUDA_CACHE_PATH="$R/nv"
    if has cold-off; then
        t=$(timed env GPUSVM_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1 POCL_CACHE_DIR="$R/pocl0" "$@") || { echo "$t"; exit 1; }
        echo "$t" >> "$W/cold-off"
    fi
    if has cold || has ours; then
        t=$(timed env CUDA_CACHE_DISABLE=1 POCL_CACHE_DIR="$R/pocl1" "$@") || { echo "$t"; exit 1; }
        echo "$t" >> "$W/cold"
        t=$(timed env CUDA_CACHE_DISABLE=1 POCL_CACHE_DIR="$R/pocl2" "$@") || { echo "$t"; exit 1; }
        echo "$t" >> "$W/ours"
    fi
    if has ours+driver || has driver-only; then
        env POCL_CACHE_DIR="$R/pocl3" "$@" > /dev/null 2>&1 # fills both caches (untimed)
        t=$(timed env POCL_CACHE_DIR="$R/pocl3" "$@") || { echo "$t"; exit 1; }
        echo "$t" >> "$W/ours+driver"
        t=$(timed env GPUSVM_KERNEL_CACHE=0 POCL_CACHE_DIR="$R/pocl3" "$@") || { echo "$t"; exit 1; }
        echo "$t" >> "$W/driver-only"
    fi
    rm -rf "$R"
done
for s in fresh cold-off cold ours ours+driver driver-only; do
    has "$s" && printf '%-12s %s s   (%s)\n' "$s" "$(med < "$W/$s")" "$(tr '\n' ' ' < "$W/$s" | sed 's/ $//')"
done
if [ -n "$CHECK" ]; then
    if [ -f "$W/differs" ]; then echo "OUTPUT DIFFERS from the first run's: $(head -n 1 "$W/differs")"; exit 1; fi
    echo "outputs identical ($CHECK after every timed run)"
fi
exit 0
