#!/bin/sh
# bench-reader.sh — throughput of the LIBSVM reader (src/io/data.c). Generates a ~500 MB data file
# (scripts/gen-libsvm-data.py, fixed seed) and its gzip into a temporary directory, times
# gs_data_read on each (best of 5, file in the page cache) and deletes everything afterwards.
# Prints MB/s of text: for gzip, decompressed MB per second, as gpusvm-train reads it (inflated
# on threads with 4+ cores, io/pinflate.c) and with zlib on one thread.
# By hand on any file: see scripts/readbench.c (its 4th argument sets the inflating threads).
# Env: SIZE_MB (default 500), FEATURES (200), DENSITY (0.1), GZIP=0 to skip the gzip run,
#      CC (cc), TMPDIR (/tmp).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
SIZE_MB=${SIZE_MB:-500}
FEATURES=${FEATURES:-200}
DENSITY=${DENSITY:-0.1}
GZIP=${GZIP:-1}
export CC="${CC:-cc}"
D=$(mktemp -d "${TMPDIR:-/tmp}/gs-readbench.XXXXXX")
trap 'rm -rf "$D"' EXIT INT TERM

sh "$TOP/scripts/build-readbench.sh" "$D/readbench"

echo "generating ${SIZE_MB} MB (features $FEATURES, density $DENSITY, seed 1) in $D ..."
t0=$(date +%s)
python3 "$TOP/scripts/gen-libsvm-data.py" --size-mb "$SIZE_MB" --features "$FEATURES" \
    --density "$DENSITY" --seed 1 -o "$D/data.txt"
bytes=$(wc -c < "$D/data.txt")
echo "generated $bytes bytes in $(($(date +%s) - t0)) s"
sync # no writeback of the new file competing with the timed runs
cat "$D/data.txt" > /dev/null # into the page cache

echo "== plain"
"$D/readbench" "$D/data.txt" "$bytes" 5
if [ "$GZIP" != 0 ]; then
    gzip -6 -c "$D/data.txt" > "$D/data.txt.gz"
    sync
    cat "$D/data.txt.gz" > /dev/null
    echo "== gzip -6 (MB/s of decompressed text): as gpusvm-train reads, then zlib on one thread"
    "$D/readbench" "$D/data.txt.gz" "$bytes" 5 0
    "$D/readbench" "$D/data.txt.gz" "$bytes" 5 -1
    echo "== for comparison: gzip -dc > /dev/null"
    t0=$(date +%s.%N)
    gzip -dc "$D/data.txt.gz" > /dev/null
    t1=$(date +%s.%N)
    echo "$t0 $t1 $bytes" | awk '{ printf "gzip -dc: %.3f s, %.0f MB/s\n", $2 - $1, $3 / 1e6 / ($2 - $1) }'
fi
