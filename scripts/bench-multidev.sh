#!/bin/sh
# One device against several (--device ONE against --device LIST) on the same machine, whole process,
# median of REPEAT runs each, interleaved: one-vs-one training (letter, mnist10k), -v 5 (a9a, letter,
# mnist10k), -b 1 (letter), gpusvm-grid on a9a's first GRID_ROWS rows, and prediction of mnist10k's
# rows with its model; each output compared byte for byte between the two (it must be the same).
# Usage, from the repository root on a machine with several GPUs, after make:
#   scripts/bench-multidev.sh DS_DIR [LIST [ONE]]
# DS_DIR holds the sets laid out as ../shared/datasets; LIST defaults to all, ONE to the first GPU
# of --list-devices. Env: REPEAT (3), GRID_ROWS (5000).
set -u
D=$1; LIST=${2:-all}
ONE=${3:-$(./build/gpusvm-train --list-devices | grep '(GPU' | head -n 1 | cut -d: -f1)}
REPEAT=${REPEAT:-3}; GRID_ROWS=${GRID_ROWS:-5000}
W=${TMPDIR:-/tmp}/bench-multidev.$$
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
TRAIN=./build/gpusvm-train; PREDICT=./build/gpusvm-predict; GRID=./build/gpusvm-grid
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# run OUT CMD...: one run's wall seconds; stdout to OUT
run() { out=$1; shift; s0=$(date +%s.%N); "$@" > "$out" 2> /dev/null; s1=$(date +%s.%N); awk -v a="$s0" -v b="$s1" 'BEGIN { print b - a }'; }
# case NAME FILE_WRITTEN ARGS...: ARGS run with --device ONE and with --device LIST (the word DEV in
# ARGS is replaced), interleaved; FILE_WRITTEN (or -) is compared too
case_() {
    name=$1; file=$2; shift 2
    : > "$W/t1"; : > "$W/t2"
    for i in $(seq "$REPEAT"); do
        for d in 1 2; do
            dev=$ONE; [ "$d" = 2 ] && dev=$LIST
            args=""; for a in "$@"; do [ "$a" = DEV ] && a=$dev; args="$args '$a'"; done
            eval "run '$W/o$d' $args" >> "$W/t$d"
            [ "$file" != - ] && cp "$file" "$W/f$d"
        done
    done
    same=yes
    cmp -s "$W/o1" "$W/o2" || same="NO (stdout)"
    [ "$file" != - ] && { cmp -s "$W/f1" "$W/f2" || same="NO ($file)"; }
    t1=$(med < "$W/t1"); t2=$(med < "$W/t2")
    printf '| %s | %.3f | %.3f | %.2fx | %s |\n' "$name" "$t1" "$t2" "$(awk -v a="$t1" -v b="$t2" 'BEGIN { print a / b }')" "$same"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
"$TRAIN" --list-devices
# warm the kernel cache on every device first (the first run compiles: not measured here)
"$TRAIN" -q --device "$LIST" -v 2 "$D/heart_scale/heart_scale.gz" > /dev/null 2>&1
"$TRAIN" -q --device "$LIST" -t 0 -v 2 "$D/heart_scale/heart_scale.gz" > /dev/null 2>&1
gunzip -c "$D/a9a/a9a.gz" | head -n "$GRID_ROWS" > "$W/a9a.grid"
echo "| work | --device $ONE (s) | --device $LIST (s) | speed-up | same output |"
echo "|---|---|---|---|---|"
case_ "letter train -c 10 -g 0.5" "$W/m" "$TRAIN" --device DEV -c 10 -g 0.5 "$D/letter/letter.scale.gz" "$W/m"
case_ "mnist10k train -c 10 -g 0.02" "$W/m" "$TRAIN" --device DEV -c 10 -g 0.02 "$D/mnist10k/mnist10k.scale.gz" "$W/m"
case_ "letter -v 5 -c 10 -g 0.5" - "$TRAIN" --device DEV -c 10 -g 0.5 -v 5 "$D/letter/letter.scale.gz"
case_ "mnist10k -v 5 -g 0.02" - "$TRAIN" --device DEV -g 0.02 -v 5 "$D/mnist10k/mnist10k.scale.gz"
case_ "a9a -v 5 -g 0.05" - "$TRAIN" --device DEV -g 0.05 -v 5 "$D/a9a/a9a.gz"
case_ "letter -b 1 -c 10 -g 0.5" "$W/m" "$TRAIN" --device DEV -b 1 -c 10 -g 0.5 "$D/letter/letter.scale.gz" "$W/m"
case_ "a9a first $GRID_ROWS rows, default grid" "$W/g.out" "$GRID" --device DEV -out "$W/g.out" -gnuplot null "$W/a9a.grid"
"$TRAIN" -q -c 10 -g 0.02 "$D/mnist10k/mnist10k.scale.gz" "$W/mn.model"
case_ "predict mnist10k's 10,000 rows (its model)" "$W/p" "$PREDICT" --device DEV "$D/mnist10k/mnist10k.scale.gz" "$W/mn.model" "$W/p"
