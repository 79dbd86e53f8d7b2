#!/bin/sh
# Where a gpusvm-grid run's time goes: the whole process (wall and user CPU) of
# `gpusvm-grid --verbose -out F -gnuplot null DATA` for each build given, interleaved REPEAT times,
# the -out files compared with the first build's, and for each run the host's busy share every
# second (vmstat 1, when present), the GPU's (nvidia-smi, when present) and the batches that ended
# last (--verbose's span lines). docs/performance.md (thirteenth session) cites it.
# Usage, from the repository root:
#   scripts/bench-grid.sh DATA BUILD [BUILD...]     (env REPEAT=1, LANES= for GPUSVM_GRID_LANES,
#                                                    GRID_ARGS= for more gpusvm-grid options)
# A BUILD is a folder with gpusvm-grid (e.g. build, or an older commit's `git archive` built with make).
set -u
[ $# -ge 2 ] || { echo "usage: scripts/bench-grid.sh DATA BUILD [BUILD...]" >&2; exit 1; }
DATA=$1; shift
REPEAT=${REPEAT:-1}; LANES=${LANES:-}; GRID_ARGS=${GRID_ARGS:-}
[ -f "$DATA" ] || { echo "bench-grid: no data file $DATA" >&2; exit 1; }
for b in "$@"; do [ -x "$b/gpusvm-grid" ] || { echo "bench-grid: no $b/gpusvm-grid" >&2; exit 1; }; done
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
have() { command -v "$1" > /dev/null 2>&1; }
# a sampler's output as one line of percentages (the column given, or the busy sum us + sy of vmstat)
busy_line() { awk 'NR > 2 { printf "%d ", $13 + $14 } END { print "" }' "$1"; }
r=0
while [ "$r" -lt "$REPEAT" ]; do
    r=$((r + 1)); k=0
    for b in "$@"; do
        k=$((k + 1)); tag="build $k ($b), run $r"
        VP=; NP=
        if have vmstat; then vmstat -n 1 > "$TMP/vm" & VP=$!; fi
        if have nvidia-smi; then
            nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 1000 > "$TMP/gpu" 2> /dev/null & NP=$!
        fi
        env ${LANES:+GPUSVM_GRID_LANES=$LANES} /usr/bin/time -f "%e %U" -o "$TMP/time" \
            "$b/gpusvm-grid" --verbose $GRID_ARGS -out "$TMP/out.$k" -gnuplot null "$DATA" > "$TMP/stdout.$k" 2> "$TMP/err"
        rc=$?
        [ -n "$VP" ] && kill "$VP" 2> /dev/null
        [ -n "$NP" ] && kill "$NP" 2> /dev/null
        wait 2> /dev/null
        read -r wall user < "$TMP/time" 2> /dev/null || { wall=?; user=?; }
        echo "$tag: exit $rc, ${wall} s wall, ${user} s user CPU; $(tail -1 "$TMP/stdout.$k")"
        if [ "$k" -gt 1 ]; then
            if cmp -s "$TMP/out.1" "$TMP/out.$k"; then echo "  -out as build 1's"; else echo "  -out DIFFERS from build 1's"; fi
        fi
        [ -n "$VP" ] && echo "  host busy % a second: $(busy_line "$TMP/vm")"
        [ -n "$NP" ] && echo "  GPU busy % a second: $(tr '\n' ' ' < "$TMP/gpu")"
        grep '^gpusvm-grid: batch ' "$TMP/err" | awk '{ print $NF == "s" ? $(NF - 1) : $NF, $0 }' | sort -n | tail -4 |
            sed 's/^[^ ]* /  last: /'
    done
done
