#!/bin/sh
# test_train_select.sh — the two selection paths of the solver (kernels/solver.cl): k_select, one
# work-group per problem (problems up to 2^18 positions, so every default run here), and the chain
# of multi-work-group kernels (larger problems). GPUSVM_SELECT forces either; they must pick the
# same working sets, so the model files must be byte-identical: heart_scale (data/) with each
# kernel type, with -w and with small and large working sets; glass's one-vs-one pairs, svmguide1
# and a 6,000-row slice of a9a when ../shared/datasets is there.
. "$(dirname "$0")/lib.sh"
require_bin "$TRAIN"
HS=$TOP/data/heart_scale
both() { # NAME DATA ARGS...
    name=$1; data=$2; shift 2
    GPUSVM_SELECT=one "$TRAIN" -q "$@" "$data" "$TMPD/one.model" > /dev/null 2>&1 || { fail "$name: one-group run failed"; return; }
    GPUSVM_SELECT=multi "$TRAIN" -q "$@" "$data" "$TMPD/multi.model" > /dev/null 2>&1 || { fail "$name: multi run failed"; return; }
    check_file_eq "$name" "$TMPD/one.model" "$TMPD/multi.model"
}
for t in 0 1 2 3; do both "heart_scale -t $t" "$HS" -t "$t"; done
both "heart_scale -w" "$HS" -c 4 -w1 2 -w-1 0.5
both "heart_scale --ws-size 16" "$HS" --ws-size 16
both "heart_scale --ws-size 1024" "$HS" --ws-size 1024
if [ -d "$DATASETS" ]; then
    both "glass one-vs-one" "$DATASETS/glass/glass.scale.gz" -c 10
    both "svmguide1" "$DATASETS/svmguide1/svmguide1.gz" -c 1 -g 0.05
    gzip -dc "$DATASETS/a9a/a9a.gz" | head -6000 > "$TMPD/a9a6k"
    both "a9a 6000 rows" "$TMPD/a9a6k" -c 1 -g 0.05
else
    skip "datasets absent ($DATASETS): glass, svmguide1 and a9a not run"
fi
finish
