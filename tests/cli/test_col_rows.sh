#!/bin/sh
# test_col_rows.sh — kernel rows by column (kernels/solver.cl k_rows_col, src/data/colchunks.h),
# a GPU's default for data whose clusters are mostly row-wise (text), against kernel rows by row
# (k_rows): GPUSVM_COL_ROWS=0|1 must give the same model and the same lines, since both add each
# row's products with a working-set vector in column order. Random sparse rows over 2,500-3,000
# columns (ELL clusters, narrow data) and over 40,000 (wide data: the layout's runs), in one chunk of
# 4,096 rows; 9,000 rows of three classes in three chunks, which the pairs' ranges cross;
# heart_scale's dense clusters. Every SVM type (regression: each row twice in one problem), -v
# (folds' ranges), shrinking's stages (a layout of their own), unsplit rounds. RBF only: each kernel type is a program of its own, compiled on
# PoCL in ~20 s, and the sums, not the kernel function, are what the two paths compute differently.
. "$(dirname "$0")/lib.sh"
require_bin "$TRAIN"
col_both() { # NAME DATA ARGS...
    name=$1; data=$2; shift 2
    GPUSVM_COL_ROWS=0 "$TRAIN" "$@" "$data" "$TMPD/cr0.model" > "$TMPD/cr0.out" 2> /dev/null ||
        { fail "$name: run with kernel rows by row failed"; return; }
    GPUSVM_COL_ROWS=1 "$TRAIN" --verbose "$@" "$data" "$TMPD/cr1.model" > "$TMPD/cr1.out" 2> "$TMPD/cr1.err" ||
        { fail "$name: run with kernel rows by column failed"; return; }
    check_file_eq "$name: output, kernel rows by column" "$TMPD/cr0.out" "$TMPD/cr1.out"
    [ -f "$TMPD/cr0.model" ] && check_file_eq "$name: model, kernel rows by column" "$TMPD/cr0.model" "$TMPD/cr1.model"
    check_eq "$name: kernel rows by column taken" 1 "$(grep -c -m 1 '^gpusvm: kernel rows by column' "$TMPD/cr1.err")"
    check_eq "$name: the certification's dot products by column" 1 \
        "$(grep -c -m 1 '^gpusvm: certification of .*(dot products by column)' "$TMPD/cr1.err")"
    rm -f "$TMPD/cr0.model" "$TMPD/cr1.model"
}
sparse_rows "$TMPD/sparse"
sparse3_rows "$TMPD/sparse3"
awk 'BEGIN { srand(7); for (i = 0; i < 1500; i++) { y = rand() < 0.5 ? 1 : -1; printf "%d", y
    for (j = 1; j <= 40000; j++) if (rand() < 0.0015) { v = int(rand() * 1000) / 1000 + 0.001; if (y > 0 && j < 3000) v += 0.5
        printf " %d:%g", j, v }
    printf "\n" } }' > "$TMPD/wide"
awk 'BEGIN { srand(9); for (i = 0; i < 9000; i++) { y = 1 + int(rand() * 3); printf "%d", y
    for (j = 1; j <= 2500; j++) if (rand() < 0.012) { v = 1 + int(rand() * 4); if (j < 200 && j % 3 == y - 1) v += 3
        printf " %d:%d", j, v }
    printf "\n" } }' > "$TMPD/big3"
col_both "sparse rows" "$TMPD/sparse" -c 1 -g 1
col_both "sparse rows, --ws-size 48" "$TMPD/sparse" -c 100 -g 2 --ws-size 48
for a in "-c 1 -g 0.05" "-s 1 -n 0.3 -g 0.05" "-s 2 -n 0.2 -g 0.05" "-s 3 -p 0.1 -g 0.05" "-s 4 -n 0.4 -g 0.05" \
         "-v 5 -c 4 -g 0.05"; do
    # shellcheck disable=SC2086 # the options are words
    col_both "integer sparse rows, 3 classes, $a" "$TMPD/sparse3" $a
done
GPUSVM_SHRINK_MIN=1 col_both "sparse rows, shrinking's stages" "$TMPD/sparse" -h 1 -c 10 -g 1
GPUSVM_SPLIT=0 col_both "sparse rows, unsplit rounds" "$TMPD/sparse" -c 10 -g 1
col_both "wide rows" "$TMPD/wide" -c 10 -g 0.5
col_both "wide rows, -v 3" "$TMPD/wide" -v 3 -c 1 -g 1
col_both "9,000 rows of 3 classes, three chunks" "$TMPD/big3" -c 4 -g 0.05
# dense clusters (heart_scale: none row-wise) by column too: the vectors read over their clusters'
# unions, zeros left out
for a in "-c 1" "-s 3 -p 0.1" "-v 5 -c 4"; do
    # shellcheck disable=SC2086
    col_both "heart_scale (dense clusters) $a" "$TOP/data/heart_scale" $a
done
# unset, GPUSVM_COL_ROWS leaves it to the device: by column on a GPU (this mostly row-wise data),
# by row on a CPU device (PoCL: no faster by column)
"$TRAIN" --verbose "$TMPD/sparse" "$TMPD/m" > /dev/null 2> "$TMPD/err"
if grep -q '^gpusvm: device .*NVIDIA' "$TMPD/err"; then want=1; else want=0; fi
check_eq "the device's default (by column: $want)" "$want" "$(grep -c -m 1 '^gpusvm: kernel rows by column' "$TMPD/err")"
finish
