#!/bin/sh
# bench-gzip.sh — the gzip read on this host, both ways: for each FILE, gs_data_read's best of
# REPEAT (scripts/readbench.c) with zlib on one thread (inflate threads -1) and as gpusvm reads
# (0: on the cores but one from 4 cores and 4 MiB up), with each one's peak RSS; then, with TRAIN=1,
# the whole `gpusvm-train -q --verbose ARGS FILE` under /usr/bin/time with GPUSVM_INFLATE_THREADS=-1
# and unset (its "read ... in S s" line and the wall time), interleaved, REPEAT times.
#   scripts/bench-gzip.sh /tmp/gen/text-gen.gz /tmp/gen/covtype-gen.gz
#   TRAIN=1 ARGS="-c 1 -g 1" REPEAT=2 scripts/bench-gzip.sh /tmp/gen/text-gen.gz
# Env: REPEAT (3), TRAIN (0), ARGS (-c 1 -g 1), BUILD (build), CC (cc), TMPDIR.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
REPEAT=${REPEAT:-3}
TRAIN=${TRAIN:-0}
ARGS=${ARGS:--c 1 -g 1}
BUILD=${BUILD:-build}
export CC="${CC:-cc}"
[ $# -ge 1 ] || { echo "usage: $0 FILE.gz..." >&2; exit 2; }
D=$(mktemp -d "${TMPDIR:-/tmp}/gs-bench-gzip.XXXXXX")
trap 'rm -rf "$D"' EXIT INT TERM
sh "$TOP/scripts/build-readbench.sh" "$D/readbench"
echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for f in "$@"; do
    text=$(gzip -dc "$f" | wc -c)
    for t in -1 0; do
        /usr/bin/time -f "  peak RSS %M KB" "$D/readbench" "$f" "$text" "$REPEAT" "$t" 2>&1 | tail -n 2
    done
done
[ "$TRAIN" = 1 ] || exit 0
for f in "$@"; do
    for r in $(seq "$REPEAT"); do
        for t in -1 0; do
            if [ "$t" = 0 ]; then unset GPUSVM_INFLATE_THREADS; else export GPUSVM_INFLATE_THREADS=$t; fi
            # shellcheck disable=SC2086
            /usr/bin/time -f "%e s wall" "$TOP/$BUILD/gpusvm-train" -q --verbose $ARGS "$f" "$D/m" \
                >"$D/out" 2>"$D/err" || { cat "$D/err" >&2; exit 1; }
            echo "$(basename "$f") run $r, inflate threads $t: $(grep -m1 'gpusvm: read' "$D/out" "$D/err" | sed 's/.*gpusvm: //'); $(tail -n 1 "$D/err")"
        done
    done
done
unset GPUSVM_INFLATE_THREADS
