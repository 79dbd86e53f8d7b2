#!/bin/sh
# test_row_cache.sh — the row cache (src/train/solver.c row_cache_lines, kernels/solver.cl
# k_cache after the selection's merge): a lone problem keeps kernel rows of former working-set
# members in lines beyond its banks, so a member that comes back is not computed again. It changes
# which rows are computed, never their values: each case's model with GPUSVM_ROW_CACHE=1 (the
# fewest lines, 4 working sets: the most lines taken for other rows) and =600 is the model without
# it (=0), byte for byte, over split and unsplit rounds, either selection, shrinking's stages and
# the certification's resumed rounds, double sums, the nu rule, one-class, SVR, row-wise clusters
# (by row and by column) and -t 4; --verbose says how many rows were found.
. "$(dirname "$0")/lib.sh"
require_bin "$TRAIN"
# --verbose for its row-cache lines, without the profiling it turns on (slow on a CPU device)
GPUSVM_PROFILE=0
export GPUSVM_PROFILE

# same NAME DATA OPTS...: the three models equal; found > 0 when FOUND=1
same() {
    name=$1; data=$2; shift 2
    GPUSVM_ROW_CACHE=0 "$TRAIN" --verbose "$@" "$data" "$TMPD/m0" > /dev/null 2> "$TMPD/e0" ||
        { fail "$name: training failed: $(head -c 300 "$TMPD/e0")"; return; }
    check_eq "$name: no cache at 0" "" "$(grep '^gpusvm: row cache' "$TMPD/e0")"
    for n in 1 600; do
        GPUSVM_ROW_CACHE=$n "$TRAIN" --verbose "$@" "$data" "$TMPD/m$n" > /dev/null 2> "$TMPD/e$n" ||
            { fail "$name: training with $n lines failed: $(head -c 300 "$TMPD/e$n")"; continue; }
        check_file_eq "$name: the model with GPUSVM_ROW_CACHE=$n" "$TMPD/m0" "$TMPD/m$n"
        grep -q '^gpusvm: row cache of [0-9]* lines' "$TMPD/e$n" && pass || fail "$name: no row cache with $n"
    done
    if [ "${FOUND:-0}" = 1 ]; then
        found=$(sed -n 's/^gpusvm: row cache of [0-9]* lines: \([0-9]*\) kernel rows computed for \([0-9]*\) new.*/\1 \2/p' \
            "$TMPD/e1" | awk '{ c += $1; m += $2 } END { print m - c }')
        if [ "${found:-0}" -gt 0 ]; then pass; else fail "$name: no row found in the cache ($found)"; fi
    fi
}

H=$TOP/data/heart_scale
same heart_rbf "$H" --ws-size 64 -c 10
# the multi-kernel selection's k_merge before k_cache (small problems take k_select)
GPUSVM_SELECT=multi FOUND=1 same heart_multi_select "$H" --ws-size 64 -c 10 -g 0.5
# row-wise clusters (ELL)
sparse_rows "$TMPD/sp"
FOUND=1 same sparse_rowwise "$TMPD/sp" --ws-size 64 -c 10 -g 0.5
# their kernel rows summed by column (k_rows_col, a GPU's default for such data)
GPUSVM_COL_ROWS=1 FOUND=1 same sparse_by_column "$TMPD/sp" --ws-size 64 -c 10 -g 0.5
# -t 4: a linear kernel with 1 added, of 300 random rows of 5 features
awk 'BEGIN { srand(3); n = 300; for (i = 1; i <= n; i++) { y[i] = rand() < 0.5 ? 1 : -1
        for (f = 1; f <= 5; f++) x[i, f] = rand() + (f == 1 ? 0.4 * y[i] : 0) }
    for (i = 1; i <= n; i++) { l = (y[i] > 0 ? "+1" : "-1") " 0:" i
        for (j = 1; j <= n; j++) { k = 1; for (f = 1; f <= 5; f++) k += x[i, f] * x[j, f]; l = l " " j ":" sprintf("%.6f", k) }
        print l } }' > "$TMPD/pre"
same precomputed "$TMPD/pre" -t 4 --ws-size 64 -c 100
if [ -d "$DATASETS" ]; then
    D=$DATASETS
    FOUND=1 same mushrooms_split "$D/mushrooms/mushrooms.gz" --ws-size 128 -c 4
    GPUSVM_SPLIT=0 FOUND=1 same mushrooms_unsplit "$D/mushrooms/mushrooms.gz" --ws-size 128 -c 4
    GPUSVM_PRECISE=1 same mushrooms_double "$D/mushrooms/mushrooms.gz" --ws-size 64 -c 10
    zcat "$D/a9a/a9a.gz" | head -n 5000 > "$TMPD/a5k"
    GPUSVM_SHRINK_MIN=1 GPUSVM_CERT_RESUME=1 FOUND=1 same a9a_5000_shrink_resume "$TMPD/a5k" --ws-size 64 -g 0.05
    same abalone_eps_svr "$D/abalone/abalone_scale.gz" --ws-size 64 -s 3 -p 0.1 -c 10
    same abalone_nu_svr "$D/abalone/abalone_scale.gz" --ws-size 64 -s 4 -n 0.4 -c 10
    same svmguide1_nu_svc "$D/svmguide1/svmguide1.gz" --ws-size 64 -s 1 -n 0.3
    same svmguide1_one_class "$D/svmguide1/svmguide1.gz" --ws-size 64 -s 2 -n 0.2
else
    skip "../shared/datasets absent: the row cache checked on heart_scale, generated rows and -t 4 only"
fi
finish
