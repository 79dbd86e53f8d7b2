#!/bin/sh
# bench-exit.sh — what the opt-in fast exit saves: the wall time of N runs of a small training
# and of a prediction with its model, as a shell sees them (from the start until the command has
# returned), with the default plain exit (the process releases the OpenCL objects and the driver
# tears down before it returns) against --fast-exit (the teardown left to a forked child),
# interleaved, GAP seconds apart so that one run's teardown does not overlap the next.
#
# Usage: scripts/bench-exit.sh [N [DATA [GAP]]]
#   N     runs of each command and mode (default 10)
#   DATA  a LIBSVM training file, also the test file (default data/heart_scale)
#   GAP   seconds between runs (default 1; 0 measures runs back to back, as in a script)
# Env: BUILD (build folder, default build); the usual GPUSVM_* variables pass through.
# Prints one line per command and mode: median, min and max seconds, and the median difference.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
N=${1:-10}
DATA=${2:-$TOP/data/heart_scale}
GAP=${3:-1}
for p in "$B/gpusvm-train" "$B/gpusvm-predict"; do
    [ -x "$p" ] || { echo "bench-exit.sh: no $p (build first: make)" >&2; exit 1; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/gsexit.XXXXXX")
trap 'rm -rf "$W"' EXIT

# one MODE CMD...: runs CMD (output discarded), appends its wall seconds to $W/MODE
one() {
    mode=$1; shift
    t0=$(date +%s.%N)
    "$@" > /dev/null 2>&1 || { echo "bench-exit.sh: failed: $*" >&2; exit 1; }
    t1=$(date +%s.%N)
    echo "$t0 $t1" | awk '{printf "%.4f\n", $2 - $1}' >> "$W/$mode"
    sleep "$GAP"
}
# summary MODE: "median min max" of $W/MODE
summary() { sort -n "$W/$1" | awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    printf "%.4f %.4f %.4f\n", m, v[1], v[NR]}'; }

"$B/gpusvm-train" -q "$DATA" "$W/m" > /dev/null # warm-up (kernel caches), and the model for predict
i=0
while [ "$i" -lt "$N" ]; do
    one train_plain "$B/gpusvm-train" -q "$DATA" "$W/m1"
    one train_fast "$B/gpusvm-train" --fast-exit -q "$DATA" "$W/m2"
    one predict_plain "$B/gpusvm-predict" -q "$DATA" "$W/m" "$W/o1"
    one predict_fast "$B/gpusvm-predict" --fast-exit -q "$DATA" "$W/m" "$W/o2"
    i=$((i + 1))
done
cmp -s "$W/m1" "$W/m2" || { echo "bench-exit.sh: the two modes wrote different models" >&2; exit 1; }
cmp -s "$W/o1" "$W/o2" || { echo "bench-exit.sh: the two modes wrote different predictions" >&2; exit 1; }

echo "device: $("$B/gpusvm-train" --list-devices | head -n 1)"
echo "data: $DATA, $N runs per command and mode, $GAP s apart"
for c in train predict; do
    set -- $(summary "${c}_plain")
    plain=$1
    printf '%-8s plain exit  median %s s (min %s, max %s)\n' "$c" "$1" "$2" "$3"
    set -- $(summary "${c}_fast")
    printf '%-8s --fast-exit median %s s (min %s, max %s); saves %s s\n' "$c" "$1" "$2" "$3" \
        "$(echo "$plain $1" | awk '{printf "%.4f", $1 - $2}')"
done
