#!/bin/sh
# test_predict_libsvm_models.sh — gpusvm-predict on the two large test sets of the predict issue,
# a9a.t (16,281 rows) and ijcnn1.t (91,701 rows), with models trained by the real svm-train
# (a9a: -c 1 -g 0.05, ~11,600 SVs; ijcnn1: defaults, ~9,000 SVs): the output file and the printed
# line must be svm-predict's, byte for byte, and so with -b 1 on a probability model of a9a
# (svm-train -b 1). Takes a few minutes on the CI's 2-core CPU device (svm-train itself is most of
# it); skips when svm-train or ../shared/datasets is absent.
. "$(dirname "$0")/lib.sh"
require_bin "$PREDICT"
if ! command -v svm-train >/dev/null 2>&1 || ! command -v svm-predict >/dev/null 2>&1; then
    skip "svm-train / svm-predict (libsvm-tools) not installed"; finish; exit
fi
if [ ! -f "$DATASETS/a9a/a9a.gz" ] || [ ! -f "$DATASETS/ijcnn1/ijcnn1.t.gz" ]; then
    skip "../shared/datasets absent: a9a.t and ijcnn1.t with svm-train's models not run"; finish; exit
fi

# same NAME TEST MODEL [predict options]: gpusvm-predict against svm-predict
same() {
    name=$1; test=$2; model=$3; shift 3
    svm-predict "$@" "$test" "$model" "$TMPD/r.out" > "$TMPD/r.txt" 2>&1; rrc=$?
    "$PREDICT" "$@" "$test" "$model" "$TMPD/g.out" > "$TMPD/g.txt" 2>&1; grc=$?
    check_eq "$name: exit code" "$rrc" "$grc"
    check_file_eq "$name: printed lines" "$TMPD/r.txt" "$TMPD/g.txt"
    check_file_eq "$name: output file" "$TMPD/r.out" "$TMPD/g.out"
}

# svm-train's three models at once (each on one core; most of this test's time)
zcat "$DATASETS/a9a/a9a.gz" > "$TMPD/a9a"; zcat "$DATASETS/a9a/a9a.t.gz" > "$TMPD/a9a.t"
zcat "$DATASETS/ijcnn1/ijcnn1.gz" > "$TMPD/ijcnn1"; zcat "$DATASETS/ijcnn1/ijcnn1.t.gz" > "$TMPD/ijcnn1.t"
# -b 1 on a probability model: a 4,000-row part of a9a keeps svm-train's 5-fold CV short
head -4000 "$TMPD/a9a" > "$TMPD/a9a4k"
svm-train -q -c 1 -g 0.05 "$TMPD/a9a" "$TMPD/a9a.model" & pa=$!
svm-train -q "$TMPD/ijcnn1" "$TMPD/ijcnn1.model" & pi=$!
svm-train -q -b 1 -c 1 -g 0.05 "$TMPD/a9a4k" "$TMPD/a9a4k.model" & pb=$!
if wait "$pb"; then
    same a9a_prob "$TMPD/a9a.t" "$TMPD/a9a4k.model" -b 1
else
    fail "svm-train -b 1 failed on a9a (4,000 rows)"
fi
if wait "$pi"; then
    same ijcnn1 "$TMPD/ijcnn1.t" "$TMPD/ijcnn1.model"
else
    fail "svm-train failed on ijcnn1"
fi
if wait "$pa"; then
    same a9a "$TMPD/a9a.t" "$TMPD/a9a.model"
else
    fail "svm-train failed on a9a"
fi
finish
