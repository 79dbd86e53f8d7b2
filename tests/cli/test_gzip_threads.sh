#!/bin/sh
# test_gzip_threads.sh — a gzip input read on threads (src/io/pinflate.c, forced here with
# GPUSVM_INFLATE_THREADS=3; by default only for 4 MiB+ on 4+ cores) gives the tools the same
# data as zlib on one thread (GPUSVM_INFLATE_THREADS=-1): gpusvm-train writes the same model bytes
# and prints the same lines, gpusvm-predict the same output file and accuracy line, gpusvm-grid
# the same rates; a file of several members and one with trailing bytes too. Data: heart_scale
# (data/) and, when ../shared/datasets is there, the first rows of a9a and sector.scale.
. "$(dirname "$0")/lib.sh"
require_bin "$TRAIN"
require_bin "$PREDICT"

gzip -c "$TOP/data/heart_scale" >"$TMPD/heart.gz"
head -n 100 "$TOP/data/heart_scale" | gzip -c >"$TMPD/multi.gz"
tail -n +101 "$TOP/data/heart_scale" | gzip -1 -c >>"$TMPD/multi.gz"
cp "$TMPD/multi.gz" "$TMPD/trail.gz"
printf 'not gzip\n' >>"$TMPD/trail.gz"
sets="heart multi trail"
if [ -f "$DATASETS/a9a/a9a.gz" ]; then
    zcat "$DATASETS/a9a/a9a.gz" | head -n 3000 | gzip -c >"$TMPD/a9a.gz"
    sets="$sets a9a"
else
    skip "no $DATASETS/a9a: a9a not compared"
fi
if [ -f "$DATASETS/sector/sector.scale.gz" ]; then
    zcat "$DATASETS/sector/sector.scale.gz" | head -n 600 | gzip -c >"$TMPD/sector.gz"
    sets="$sets sector"
else
    skip "no $DATASETS/sector: sector not compared"
fi

for d in $sets; do
    for it in -1 3; do
        GPUSVM_INFLATE_THREADS=$it "$TRAIN" -c 4 "$TMPD/$d.gz" "$TMPD/$d.$it.model" >"$TMPD/$d.$it.out" 2>&1
        echo "$?" >>"$TMPD/$d.$it.out"
        GPUSVM_INFLATE_THREADS=$it "$PREDICT" "$TMPD/$d.gz" "$TMPD/$d.-1.model" "$TMPD/$d.$it.pred" \
            >>"$TMPD/$d.$it.out" 2>&1
        echo "$?" >>"$TMPD/$d.$it.out"
    done
    check_file_eq "$d: the same model" "$TMPD/$d.-1.model" "$TMPD/$d.3.model"
    check_file_eq "$d: the same lines and exit codes" "$TMPD/$d.-1.out" "$TMPD/$d.3.out"
    check_file_eq "$d: the same predictions" "$TMPD/$d.-1.pred" "$TMPD/$d.3.pred"
done
check_eq "heart trains" 0 "$(sed -n '$p' "$TMPD/heart.3.out")"

GRID=$B/gpusvm-grid
if [ -x "$GRID" ]; then
    for it in -1 3; do
        GPUSVM_INFLATE_THREADS=$it "$GRID" -log2c 0,2,1 -log2g -3,-1,1 -v 3 -out "$TMPD/grid.$it" -png "$TMPD/g.png" \
            "$TMPD/heart.gz" >"$TMPD/grid.$it.out" 2>/dev/null
    done
    check_file_eq "grid: the same rates" "$TMPD/grid.-1" "$TMPD/grid.3"
    check_file_eq "grid: the same best line" "$TMPD/grid.-1.out" "$TMPD/grid.3.out"
else
    skip "no $GRID"
fi
finish
