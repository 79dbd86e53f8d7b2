#!/bin/sh
# bench-scale.sh — throughput of gpusvm-scale (src/io/scale.c) against LIBSVM's svm-scale. Generates
# a plain data file of about SIZE_MB (blocks from scripts/gen-libsvm-data.py, fixed seeds, repeated)
# and its gzip in a temporary directory, times `gpusvm-scale FILE > /dev/null` (best of REPEAT,
# file in the page cache) and deletes everything afterwards. Prints MB/s of input text (for gzip,
# of decompressed text), wall and CPU seconds. svm-scale is timed on the first SVM_MB of the same
# file (it is ~50x slower), and its output is compared with gpusvm-scale's there.
# Two shapes: "dense" (every feature on every line: the output is as large as the input) and
# "sparse" (10% of the features, values in [-1, 1]: the default -l -1 writes every absent feature,
# so the output is ~8x the input).
# Env: SIZE_MB (400), REPEAT (3), SVM_MB (20, 0 to skip svm-scale), GZ=0 to skip the gzip run,
#      BUILD (build), TMPDIR (/tmp). Run it after `make`.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
SIZE_MB=${SIZE_MB:-400}
REPEAT=${REPEAT:-3}
SVM_MB=${SVM_MB:-20}
GZ=${GZ:-1}
BUILD=${BUILD:-build}
case "$BUILD" in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
SCALE=$B/gpusvm-scale
[ -x "$SCALE" ] || { echo "no $SCALE: run make first" >&2; exit 1; }
D=$(mktemp -d "${TMPDIR:-/tmp}/gs-scalebench.XXXXXX")
trap 'rm -rf "$D"' EXIT INT TERM

now() { date +%s.%N; }
# cpu_of CMD...: runs CMD > /dev/null; prints "wall user+sys" seconds
cpu_of() {
    t0=$(now)
    set -- sh -c '"$@" > /dev/null 2>&1; times' sh "$@"
    cpu=$("$@" | awk 'NR == 2 { split($1, u, "m"); split($2, s, "m");
        printf "%.3f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
    t1=$(now)
    echo "$t0 $t1 $cpu" | awk '{ printf "%.3f %s\n", $2 - $1, $3 }'
}
# best NAME BYTES CMD...: the best wall time of REPEAT runs, as MB/s
best() {
    name=$1; bytes=$2; shift 2
    bw=""; bc=""
    i=0
    while [ "$i" -lt "$REPEAT" ]; do
        r=$(cpu_of "$@")
        w=${r% *}; c=${r#* }
        if [ -z "$bw" ] || [ "$(echo "$w $bw" | awk '{ print ($1 < $2) }')" = 1 ]; then bw=$w; bc=$c; fi
        i=$((i + 1))
    done
    echo "$bytes $bw $bc $name" | awk '{ n = $4; for (i = 5; i <= NF; i++) n = n " " $i
        printf "%-36s %8.1f MB/s  (%.3f s wall, %.3f s CPU, %d MB)\n", n, $1 / 1e6 / $2, $2, $3, $1 / 1e6 }'
}

echo "$("$SCALE" --version | head -n 1), $(nproc) CPUs usable, load $(cut -d' ' -f1-3 /proc/loadavg)"
for shape in dense sparse; do
    if [ "$shape" = dense ]; then gen="--features 50 --density 1"; else gen="--features 200 --density 0.1"; fi
    # four 10 MB blocks of different seeds, repeated up to SIZE_MB
    for seed in 1 2 3 4; do
        # shellcheck disable=SC2086
        python3 "$TOP/scripts/gen-libsvm-data.py" --size-mb 10 $gen --seed "$seed" -o "$D/b$seed"
    done
    : > "$D/data.txt"
    k=0
    while [ "$(wc -c < "$D/data.txt")" -lt $((SIZE_MB * 1000000)) ]; do
        cat "$D/b$((k % 4 + 1))" >> "$D/data.txt"
        k=$((k + 1))
    done
    bytes=$(wc -c < "$D/data.txt")
    cat "$D/data.txt" > /dev/null
    echo "== $shape ($gen): $bytes bytes"
    best "gpusvm-scale ($shape)" "$bytes" "$SCALE" "$D/data.txt"
    best "gpusvm-scale -s ($shape)" "$bytes" "$SCALE" -s "$D/r.range" "$D/data.txt"
    out=$("$SCALE" "$D/data.txt" 2>/dev/null | wc -c)
    echo "  output: $out bytes"
    if [ "$GZ" != 0 ]; then
        gzip -1 -c "$D/data.txt" > "$D/data.txt.gz"
        cat "$D/data.txt.gz" > /dev/null
        best "gpusvm-scale ($shape, .gz)" "$bytes" "$SCALE" "$D/data.txt.gz"
        rm -f "$D/data.txt.gz"
    fi
    if [ "$SVM_MB" != 0 ] && command -v svm-scale > /dev/null 2>&1; then
        head -c $((SVM_MB * 1000000)) "$D/data.txt" | sed '$d' > "$D/part.txt"
        pbytes=$(wc -c < "$D/part.txt")
        REPEAT=1 best "svm-scale ($shape, first part)" "$pbytes" svm-scale "$D/part.txt"
        best "gpusvm-scale ($shape, first part)" "$pbytes" "$SCALE" "$D/part.txt"
        svm-scale "$D/part.txt" > "$D/a.out" 2> "$D/a.err" || true
        "$SCALE" "$D/part.txt" > "$D/b.out" 2> "$D/b.err" || true
        if cmp -s "$D/a.out" "$D/b.out" && cmp -s "$D/a.err" "$D/b.err"; then
            echo "  outputs identical (stdout and stderr)"
        else
            echo "  OUTPUTS DIFFER"
        fi
    fi
    rm -f "$D/data.txt" "$D/part.txt" "$D"/b? "$D"/?.out "$D"/?.err
done
