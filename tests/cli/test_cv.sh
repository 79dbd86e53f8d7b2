#!/bin/sh
# -v n against real LIBSVM (Debian svm-train as the oracle): LIBSVM's folds (glibc rand() from seed 1,
# stratified for C-SVC), so the result line is svm-train's exactly where each fold's solution is the
# same (classification: within 0.2 points; regression: MSE and r^2 within 1e-3 relative), the per-fold
# training lines in LIBSVM's order, the result lines printed even with -q, no model file written,
# LIBSVM's warning for n > l, an error (not LIBSVM's SIGFPE) on an empty file; and svm-grid (grid.py)
# driving gpusvm-train gives the same rates as with svm-train.
. "$(dirname "$0")/lib.sh"
if ! command -v svm-train >/dev/null 2>&1; then skip "svm-train (libsvm-tools) not installed"; finish; exit; fi
require_bin "$TRAIN"
H=$TOP/data/heart_scale

# cv NAME DATA [options...]
cv() {
    name=$1; data=$2; shift 2
    (cd "$TMPD" && "$TRAIN" "$@" "$data" > g.out 2> g.err); grc=$?
    (cd "$TMPD" && svm-train "$@" "$data" > r.out 2> r.err)
    check_eq "$name: exit" 0 "$grc"
    check_file_eq "$name: stderr" "$TMPD/r.err" "$TMPD/g.err"
    shape() { grep -E '^(optimization finished|nu =|obj =|nSV =|Total nSV|Cross)' "$1" | sed 's/[-0-9.e+]\{1,\}/N/g'; }
    check_eq "$name: the lines in LIBSVM's order" "$(shape "$TMPD/r.out")" "$(shape "$TMPD/g.out")"
    ga=$(sed -n 's/^Cross Validation Accuracy = \(.*\)%$/\1/p' "$TMPD/g.out")
    ra=$(sed -n 's/^Cross Validation Accuracy = \(.*\)%$/\1/p' "$TMPD/r.out")
    if [ -n "$ra" ]; then
        if awk -v a="$ga" -v b="$ra" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 0.2) }'; then pass
        else fail "$name: accuracy $ga% vs LIBSVM $ra%"; fi
    else
        for k in "Mean squared error" "Squared correlation coefficient"; do
            gv=$(sed -n "s/^Cross Validation $k = //p" "$TMPD/g.out"); rv=$(sed -n "s/^Cross Validation $k = //p" "$TMPD/r.out")
            if awk -v a="$gv" -v b="$rv" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(a != "" && d <= 1e-3 * m) }'; then pass
            else fail "$name: $k $gv vs LIBSVM $rv"; fi
        done
    fi
}

cv "heart -v 5" "$H" -v 5
cv "heart -v 5 -c 10 linear" "$H" -v 5 -c 10 -t 0
cv "heart -v 3 poly" "$H" -v 3 -t 1 -d 2 -g 0.1
cv "heart -v 2 -w1 3" "$H" -v 2 -w1 3
cv "heart one-class -v 5" "$H" -s 2 -v 5 -n 0.3
cv "heart eps-SVR -v 5" "$H" -s 3 -v 5 -p 0.2
head -n 40 "$H" > "$TMPD/h40"
cv "leave-one-out (-v 50 on 40 rows)" "$TMPD/h40" -v 50
if [ -d "$GOLDEN/iris" ]; then
    cv "iris -v 5 (three classes)" "$GOLDEN/iris/iris_train.libsvm" -v 5
    cv "diabetes eps-SVR -v 5" "$GOLDEN/diabetes/diabetes_xy.scale" -s 3 -c 100 -p 0.05 -v 5
else
    skip "../shared/reference/golden absent: iris and diabetes not run"
fi

# -q silences the training lines, not the result; no model file appears
(cd "$TMPD" && rm -f heart_scale.model && "$TRAIN" -q -v 5 "$H" > q.out 2>&1)
check_eq "-q -v 5: only the result line" "$(svm-train -q -v 5 "$H")" "$(cat "$TMPD/q.out")"
if [ -e "$TMPD/heart_scale.model" ]; then fail "-v wrote a model"; else pass; fi
# an empty file: an error, exit 1 (LIBSVM: SIGFPE)
: > "$TMPD/empty"
"$TRAIN" -v 5 "$TMPD/empty" > /dev/null 2> "$TMPD/e.err"; rc=$?
check_eq "empty -v 5 exit" 1 "$rc"
if grep -q 'training set is empty' "$TMPD/e.err"; then pass; else fail "empty -v 5: $(cat "$TMPD/e.err")"; fi

# svm-grid (grid.py) runs gpusvm-train unchanged: the same rate for every cell
if command -v svm-grid >/dev/null 2>&1; then
    cp "$H" "$TMPD/hs"
    (cd "$TMPD" && svm-grid -log2c -1,3,4 -log2g -5,-1,4 -v 3 -gnuplot null -out g.grid -svmtrain "$TRAIN" hs > g.best 2>&1)
    (cd "$TMPD" && svm-grid -log2c -1,3,4 -log2g -5,-1,4 -v 3 -gnuplot null -out r.grid -svmtrain "$(command -v svm-train)" hs > r.best 2>&1)
    check_eq "svm-grid: every cell's rate" "$(sort "$TMPD/r.grid")" "$(sort "$TMPD/g.grid")"
    check_eq "svm-grid: the best line" "$(tail -n 1 "$TMPD/r.best")" "$(tail -n 1 "$TMPD/g.best")"
else
    skip "svm-grid not installed: grid.py not run"
fi
# held-out rows on the device (GPUSVM_CV_DEVICE=1: decision values with error bounds, LIBSVM's
# bits on the exact paths, the rows the bounds cannot settle on the CPU) give the CPU's output
devsame() {
    name=$1; shift
    (cd "$TMPD" && GPUSVM_CV_DEVICE=0 "$TRAIN" "$@" > c0.out 2>&1; GPUSVM_CV_DEVICE=1 "$TRAIN" --verbose "$@" > c1.out 2> c1.err)
    check_file_eq "$name: held-out rows on the device, same output" "$TMPD/c0.out" "$TMPD/c1.out"
    if grep -q '^Cross Validation' "$TMPD/c1.out"; then
        check_eq "$name: the device predicted them" "yes" "$(grep -q 'held-out rows on the device' "$TMPD/c1.err" && echo yes || echo no)"
    fi
}
awk '{ $1 = NR % 3 + 1; print }' "$H" > "$TMPD/h3"
devsame "heart -v 5" -v 5 "$H"
devsame "heart -v 4 linear" -v 4 -t 0 -c 3 "$H"
devsame "heart -v 3 poly" -v 3 -t 1 -d 3 -g 0.1 "$H"
devsame "three classes -v 5" -v 5 "$TMPD/h3"
devsame "three classes -v 3 -b 1" -v 3 -b 1 "$TMPD/h3"
devsame "epsilon-SVR -v 5" -s 3 -v 5 -p 0.2 "$H"
devsame "nu-SVR -v 3 sigmoid" -s 4 -v 3 -t 3 -g 0.01 "$H"
devsame "one-class -v 5" -s 2 -v 5 -n 0.3 "$H"
devsame "-b 1 model's internal folds" -b 1 "$H" "$TMPD/b.model"
cp "$TMPD/b.model" "$TMPD/b1.model"
(cd "$TMPD" && GPUSVM_CV_DEVICE=0 "$TRAIN" -q -b 1 "$H" b0.model)
check_file_eq "-b 1, internal folds' held-out rows on the device: model" "$TMPD/b0.model" "$TMPD/b1.model"
# three classes: every pair's folds' held-out rows in one call (gs_cross_validation_dec_many)
devsame "three classes -b 1 model's internal folds" -b 1 "$TMPD/h3" "$TMPD/b3.model"
cp "$TMPD/b3.model" "$TMPD/b31.model"
(cd "$TMPD" && GPUSVM_CV_DEVICE=0 "$TRAIN" -q -b 1 "$TMPD/h3" b30.model)
check_file_eq "three classes -b 1, internal folds' held-out rows on the device: model" "$TMPD/b30.model" "$TMPD/b31.model"
# binary features: the device hands the host 16-bit squared distances (predictor.c's codes); the
# model is the CPU's and the one read in double (GS_PRED_LAYOUT=args)
awk 'BEGIN { srand(5); for (r = 0; r < 400; r++) { y = r % 2 ? 1 : -1; s = y;
     for (c = 1; c <= 30; c++) if (rand() < (c <= 6 && y > 0 ? 0.6 : 0.3)) s = s " " c ":1"; print s } }' > "$TMPD/bin"
devsame "binary features -b 1 model's internal folds" -b 1 "$TMPD/bin" "$TMPD/bb.model"
check_eq "binary features -b 1: 16-bit distances" yes "$(grep -q '16-bit distances' "$TMPD/c1.err" && echo yes || echo no)"
cp "$TMPD/bb.model" "$TMPD/bb1.model"
(cd "$TMPD" && GPUSVM_CV_DEVICE=0 "$TRAIN" -q -b 1 "$TMPD/bin" bb0.model &&
    GS_PRED_LAYOUT=args GPUSVM_CV_DEVICE=1 "$TRAIN" -q -b 1 "$TMPD/bin" bba.model)
check_file_eq "binary features -b 1: model with the CPU's folds" "$TMPD/bb0.model" "$TMPD/bb1.model"
check_file_eq "binary features -b 1: model with arguments in double" "$TMPD/bba.model" "$TMPD/bb1.model"
finish
