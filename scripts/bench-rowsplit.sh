#!/bin/sh
# One large two-class problem split by rows over several GPUs (--device LIST; src/train/solver.c,
# gs_solver_batch_rows): training on the first GPU alone, then on the first 2 and the first 4 (those
# the machine has), whole process, REPEAT runs each after one unmeasured run that fills the kernel
# cache; every model compared byte for byte with the one-GPU model (it must be the same). The last
# run of each is --verbose (GPUSVM_PROFILE=0: host timers, no profiling): its phase line, rounds,
# certification and the row split's host times go to the log folder. With OLD (another build's
# gpusvm-train), each run is followed by OLD's on the same devices, whose median is reported too.
# Usage, from the repository root after make, on a machine with several GPUs:
#   scripts/bench-rowsplit.sh GEN_DIR [SET...]
# GEN_DIR holds scripts/gen-bench-data.py's sets (NAME.gz); SETs default to covtype-gen text-gen.
# Env: REPEAT (3), ARGS (training options, default "-c 1 -g 1"), COUNTS (default "1 2 4"),
# LOG (folder for the --verbose logs, default a temporary one, removed), OLD (a gpusvm-train to
# compare, interleaved; its models must be the same too).
set -u
G=$1; shift
SETS=${*:-covtype-gen text-gen}
REPEAT=${REPEAT:-3}; ARGS=${ARGS:--c 1 -g 1}; COUNTS=${COUNTS:-1 2 4}; OLD=${OLD:-}
TRAIN=./build/gpusvm-train
W=${TMPDIR:-/tmp}/bench-rowsplit.$$
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
LOG=${LOG:-$W}
mkdir -p "$LOG"
GPUS=$("$TRAIN" --list-devices | grep '(GPU' | cut -d: -f1 | tr '\n' ' ')
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
echo "GPUs (--list-devices): $GPUS"
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "| set | GPUs | runs (s) | median (s) | speed-up | model as 1 GPU's | OLD runs (s) | OLD median (s) |"
echo "|---|---|---|---|---|---|---|---|"
for set in $SETS; do
    data=$G/$set.gz
    [ -f "$data" ] || { echo "| $set | - | missing: $data | | | |"; continue; }
    base=
    for n in $COUNTS; do
        list=$(echo "$GPUS" | tr ' ' '\n' | grep . | head -n "$n" | paste -sd, -)
        [ "$(echo "$list" | tr ',' '\n' | grep -c .)" = "$n" ] || continue
        # shellcheck disable=SC2086
        "$TRAIN" -q --device "$list" $ARGS "$data" "$W/m" > /dev/null 2>&1 # kernel cache
        times=; otimes=; om=
        for i in $(seq "$REPEAT"); do
            v=; [ "$i" = "$REPEAT" ] && v=--verbose
            s0=$(date +%s.%N)
            # shellcheck disable=SC2086
            GPUSVM_PROFILE=0 "$TRAIN" --device "$list" $v $ARGS "$data" "$W/m.$n" > "$LOG/$set.$n.out" 2> "$LOG/$set.$n.err"
            s1=$(date +%s.%N)
            times="$times $(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.2f", b - a }')"
            [ -n "$OLD" ] || continue
            s0=$(date +%s.%N)
            # shellcheck disable=SC2086
            "$OLD" -q --device "$list" $ARGS "$data" "$W/o.$n" > /dev/null 2>&1
            s1=$(date +%s.%N)
            otimes="$otimes $(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.2f", b - a }')"
        done
        m=$(echo "$times" | tr ' ' '\n' | grep . | med)
        [ -n "$OLD" ] && om=$(echo "$otimes" | tr ' ' '\n' | grep . | med)
        [ -z "$base" ] && base=$m
        same=yes; [ "$n" = 1 ] || cmp -s "$W/m.1" "$W/m.$n" || same=NO
        [ -z "$OLD" ] || cmp -s "$W/m.1" "$W/o.$n" || same="$same (OLD's: NO)"
        printf '| %s | %s (%s) |%s | %s | %.2fx | %s |%s | %s |\n' "$set" "$n" "$list" "$times" "$m" \
            "$(awk -v a="$base" -v b="$m" 'BEGIN { print a / b }')" "$same" "$otimes" "$om"
    done
done
echo
for f in "$LOG"/*.err; do
    [ -f "$f" ] || continue
    echo "== $f"
    grep -E 'split by rows|seconds: cluster|training \(data|host per batch|row split:|shrinking: stage|certification [0-9]' "$f" | cut -c1-300
done
