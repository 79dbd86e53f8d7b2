#!/bin/sh
# test_predict_text.sh — prediction on text-like data (rows of 20-140 values over 50,000 columns,
# frequent columns Zipf-like), whose SV blocks are stored row-wise: the test rows' hash tables
# (GS_PRED_LAYOUT=hash, kernels/predict.cl pred_khash) against the merge (=nohash) and svm-predict,
# byte for byte, for the four kernels, one-class and a -b 1 model. The linear and polynomial
# kernels stay exact on the device; RBF's distances, summed another way, carry a wider bound
# (predictor.c rbf_hash_dz) that must still let the device answer nearly every row. A test row
# too long for the tables (1,000 values) and an empty one take the merge inside the same kernel.
. "$(dirname "$0")/lib.sh"
require_bin "$TRAIN"
require_bin "$PREDICT"
# gen SEED ROWS: labelled rows, each normalised to length 1; printf %.6g keeps them exact to read
gen() {
    awk -v seed="$1" -v n="$2" 'BEGIN { srand(seed)
      for (r = 0; r < n; r++) {
        k = 20 + int(rand() * 120); m = 0; split("", seen)
        for (i = 0; i < k; i++) {
          c = int(exp(rand() * log(50000))); if (c in seen) continue
          seen[c] = 1; j = m++
          while (j > 0 && cols[j - 1] > c) { cols[j] = cols[j - 1]; j-- }
          cols[j] = c
        }
        s = 0; t = 0
        for (i = 0; i < m; i++) { v[i] = 1 + int(rand() * 3); s += v[i] * v[i]; t += ((cols[i] * 7919) % 13 - 6) * v[i] }
        line = (t > 0 ? "1" : "-1")
        for (i = 0; i < m; i++) line = line " " cols[i] ":" sprintf("%.6g", v[i] / sqrt(s))
        print line
      } }'
}
gen 5 1500 > "$TMPD/train"
gen 6 400 > "$TMPD/test"
awk 'BEGIN { line = "1"; for (c = 1; c <= 1000; c++) line = line " " (c * 37) ":0.0316"; print line; print "-1" }' >> "$TMPD/test"
ROWS=$(wc -l < "$TMPD/test")
HAVE_LIBSVM=1
command -v svm-predict > /dev/null 2>&1 || { HAVE_LIBSVM=0; skip "svm-predict (libsvm-tools) not installed: not compared with LIBSVM"; }
# case NAME TRAIN_OPTS [PREDICT_OPTS]: train, then predict with hash tables and with the merge
case_() {
    name=$1; topts=$2; popts=${3:-}
    # shellcheck disable=SC2086
    "$TRAIN" -q $topts "$TMPD/train" "$TMPD/$name.m" || { fail "$name: training failed"; return; }
    # shellcheck disable=SC2086
    GS_PRED_LAYOUT=hash "$PREDICT" --verbose $popts "$TMPD/test" "$TMPD/$name.m" "$TMPD/$name.h" > "$TMPD/$name.hv" 2>&1 ||
        { fail "$name: gpusvm-predict (hash) failed: $(tail -n 2 "$TMPD/$name.hv")"; return; }
    # shellcheck disable=SC2086
    GS_PRED_LAYOUT=nohash "$PREDICT" $popts "$TMPD/test" "$TMPD/$name.m" "$TMPD/$name.n" > "$TMPD/$name.ns" 2>&1 ||
        fail "$name: gpusvm-predict (merge) failed"
    grep -q "row-wise blocks: hash tables" "$TMPD/$name.hv" && pass || fail "$name: the hash tables were not used: $(grep uploaded "$TMPD/$name.hv")"
    check_file_eq "$name: hash tables = merge" "$TMPD/$name.n" "$TMPD/$name.h"
    grep -E "^Accuracy" "$TMPD/$name.hv" > "$TMPD/$name.hs"
    check_file_eq "$name: accuracy line" "$TMPD/$name.ns" "$TMPD/$name.hs"
    if [ "$HAVE_LIBSVM" = 1 ]; then
        # shellcheck disable=SC2086
        svm-predict $popts "$TMPD/test" "$TMPD/$name.m" "$TMPD/$name.l" > /dev/null
        check_file_eq "$name: as svm-predict" "$TMPD/$name.l" "$TMPD/$name.h"
    fi
    redo=$(sed -n 's/.*recomputed on the CPU \([0-9]*\).*/\1/p' "$TMPD/$name.hv")
    check_eq "$name: rows the device could not answer, at most 1%" 1 "$(awk -v r="${redo:-x}" -v n="$ROWS" 'BEGIN { print (r != "x" && r * 100 <= n) }')"
}
case_ rbf "-c 1 -g 1"
grep -q "device exact: no" "$TMPD/rbf.hv" && pass || fail "rbf: the device path claims exact bits"
case_ linear "-t 0 -c 1"
grep -q "device exact: yes" "$TMPD/linear.hv" && pass || fail "linear: the hash tables lost the exact bits"
case_ poly "-t 1 -d 2 -g 1 -r 1 -c 1"
grep -q "device exact: yes" "$TMPD/poly.hv" && pass || fail "poly: the hash tables lost the exact bits"
case_ sigmoid "-t 3 -g 0.5 -r -0.5 -c 1"
case_ oneclass "-s 2 -n 0.2 -g 1"
case_ prob "-b 1 -c 1 -g 1" "-b 1"
finish
