#!/bin/sh
# test_train_select.sh — the two selection paths of the solver (kernels/solver.cl): k_select, one
# work-group per problem (problems up to 2^18 positions, so every default run here), and the chain
# of multi-work-group kernels (larger problems). GPUSVM_SELECT forces either; they must pick the
# same working sets, so the model files must be byte-identical: heart_scale (data/) with each
# kernel type, with -w and with small and large working sets; glass's one-vs-one pairs, svmguide1
# and a 6,000-row slice of a9a when ../shared/datasets is there. Each case runs in both round forms
# (GPUSVM_SPLIT=0|1: split rounds, two banks of kernel rows; src/train/solver.c), which differ from each
# other (their subproblem tolerance) but not between the selection paths; the split models must
# also stay LIBSVM's (test_train_oracle.sh runs two-class sets split, one-vs-one sets unsplit, and
# here a one-vs-one set split). Split rounds enqueue on the calling thread or on a courier thread
# (GPUSVM_COURIER=0|1, src/util/courier.c): the same commands in the same order, so the same model.
# The working sets' kernel matrices come back whole or as upper triangles (GPUSVM_RB_FULL=1|0; by
# default whole for batches of few problems): the same values, so the same model. A batch's
# subproblems run on any number of threads (GPUSVM_SUB_THREADS) with the same answers.
. "$(dirname "$0")/lib.sh"
require_bin "$TRAIN"
HS=$TOP/data/heart_scale
both() { # NAME DATA ARGS...
    name=$1; data=$2; shift 2
    for sp in 0 1; do
        GPUSVM_COURIER=0 GPUSVM_SPLIT=$sp GPUSVM_SELECT=one "$TRAIN" -q "$@" "$data" "$TMPD/one.model" > /dev/null 2>&1 ||
            { fail "$name split=$sp: one-group run failed"; continue; }
        GPUSVM_SPLIT=$sp GPUSVM_SELECT=multi "$TRAIN" -q "$@" "$data" "$TMPD/multi.model" > /dev/null 2>&1 ||
            { fail "$name split=$sp: multi run failed"; continue; }
        check_file_eq "$name split=$sp" "$TMPD/one.model" "$TMPD/multi.model"
        for rf in 0 1; do
            GPUSVM_SPLIT=$sp GPUSVM_RB_FULL=$rf "$TRAIN" -q "$@" "$data" "$TMPD/rb.model" > /dev/null 2>&1 ||
                { fail "$name split=$sp: run with GPUSVM_RB_FULL=$rf failed"; continue; }
            check_file_eq "$name split=$sp, matrices read back $([ "$rf" = 1 ] && echo whole || echo as triangles)" \
                "$TMPD/one.model" "$TMPD/rb.model"
        done
        [ "$sp" = 1 ] || continue
        GPUSVM_SPLIT=1 GPUSVM_COURIER=1 "$TRAIN" -q "$@" "$data" "$TMPD/courier.model" > /dev/null 2>&1 ||
            { fail "$name: run with the courier thread failed"; continue; }
        check_file_eq "$name split, courier thread" "$TMPD/one.model" "$TMPD/courier.model"
    done
}
for t in 0 1 2 3; do both "heart_scale -t $t" "$HS" -t "$t"; done
both "heart_scale -w" "$HS" -c 4 -w1 2 -w-1 0.5
both "heart_scale --ws-size 16" "$HS" --ws-size 16
both "heart_scale --ws-size 1024" "$HS" --ws-size 1024
both "heart_scale --ws-size 100" "$HS" --ws-size 100 # not a multiple of the unpacking's 32 x 32 tiles
if [ -d "$DATASETS" ]; then
    both "glass one-vs-one" "$DATASETS/glass/glass.scale.gz" -c 10
    both "svmguide1" "$DATASETS/svmguide1/svmguide1.gz" -c 1 -g 0.05
    gzip -dc "$DATASETS/a9a/a9a.gz" | head -6000 > "$TMPD/a9a6k"
    both "a9a 6000 rows" "$TMPD/a9a6k" -c 1 -g 0.05
    # the verbose line names the round form: split by default for two classes, not for several
    "$TRAIN" --verbose "$TMPD/a9a6k" "$TMPD/d.model" > "$TMPD/d.out" 2>&1
    check_eq "a9a 6000 rows: split rounds by default" "1" "$(grep -c ' split rounds$' "$TMPD/d.out")"
    "$TRAIN" --verbose "$DATASETS/glass/glass.scale.gz" "$TMPD/d.model" > "$TMPD/d.out" 2>&1
    check_eq "glass: one-vs-one unsplit by default" "0" "$(grep -c ' split rounds$' "$TMPD/d.out")"
    # one-vs-one pairs forced split (several problems' second parts on the crew) against LIBSVM's
    # objectives and the predictions of its model
    if command -v svm-train > /dev/null 2>&1; then
        zcat "$DATASETS/glass/glass.scale.gz" > "$TMPD/glass"
        GPUSVM_SPLIT=1 "$TRAIN" -c 10 "$TMPD/glass" "$TMPD/gs.model" > "$TMPD/gs.out" 2>&1
        svm-train -c 10 "$TMPD/glass" "$TMPD/gr.model" > "$TMPD/gr.out"
        grep '^obj' "$TMPD/gs.out" | sed 's/obj = \([^,]*\),.*/\1/' > "$TMPD/gs.obj"
        grep '^obj' "$TMPD/gr.out" | sed 's/obj = \([^,]*\),.*/\1/' > "$TMPD/gr.obj"
        check_eq "glass split: pairs" "$(wc -l < "$TMPD/gr.obj")" "$(wc -l < "$TMPD/gs.obj")"
        bad=$(paste "$TMPD/gs.obj" "$TMPD/gr.obj" | awk '{ d = $1 - $2; if (d < 0) d = -d; m = $2 < 0 ? -$2 : $2; if (d > 1e-4 * m + 1e-6) n++ } END { print n + 0 }')
        check_eq "glass split: pair objectives within 1e-4 of LIBSVM's" "0" "$bad"
        svm-predict "$TMPD/glass" "$TMPD/gs.model" "$TMPD/gs.pred" > /dev/null
        svm-predict "$TMPD/glass" "$TMPD/gr.model" "$TMPD/gr.pred" > /dev/null
        check_eq "glass split: predictions as LIBSVM's model" "0" "$(paste -d' ' "$TMPD/gs.pred" "$TMPD/gr.pred" | awk '$1 != $2' | wc -l | tr -d ' ')"
    else
        skip "svm-train (libsvm-tools) not installed: glass split against LIBSVM not run"
    fi
else
    skip "datasets absent ($DATASETS): glass, svmguide1 and a9a not run"
fi
# the certification over row-wise clusters 64 SVs at a time (GPUSVM_CERT_WIDE=1, a GPU's default;
# kernels/solver.cl CERT_CB) sums as 16 at a time: the same model and lines. Random sparse rows over
# 2,500-3,000 columns cluster row-wise (ELL) without being wide data; integer values take the
# certification's float dots; three classes put several problems in one pass; --ws-size 100 and
# 48 end the passes' blocks part-way.
cert_both() { # NAME DATA ARGS...
    name=$1; data=$2; shift 2
    GPUSVM_CERT_WIDE=0 "$TRAIN" "$@" "$data" "$TMPD/cw0.model" > "$TMPD/cw0.out" 2>&1 ||
        { fail "$name: run with 16-wide certification failed"; return; }
    GPUSVM_CERT_WIDE=1 "$TRAIN" "$@" "$data" "$TMPD/cw1.model" > "$TMPD/cw1.out" 2>&1 ||
        { fail "$name: run with 64-wide certification failed"; return; }
    check_file_eq "$name: lines, 64-wide certification" "$TMPD/cw0.out" "$TMPD/cw1.out"
    [ -f "$TMPD/cw0.model" ] && check_file_eq "$name: model, 64-wide certification" "$TMPD/cw0.model" "$TMPD/cw1.model"
    rm -f "$TMPD/cw0.model" "$TMPD/cw1.model"
}
sparse_rows "$TMPD/sparse"
sparse3_rows "$TMPD/sparse3"
GPUSVM_CERT_WIDE=1 "$TRAIN" --verbose "$TMPD/sparse" "$TMPD/m" > /dev/null 2> "$TMPD/err"
check_eq "sparse rows: every cluster row-wise" 1 \
    "$(grep -c '^gpusvm: clustering: 1500 rows into 6 clusters of 256 (6 stored row-wise)' "$TMPD/err")"
for a in "-c 1 -g 1" "-t 0 -c 1" "-t 1 -d 2 -g 1 -c 1" "-t 3 -g 0.5 -c 1" "-c 10 -g 1 --ws-size 100" \
         "-c 100 -g 2 --ws-size 48"; do
    # shellcheck disable=SC2086 # the options are words
    cert_both "sparse rows $a" "$TMPD/sparse" $a
done
for a in "-c 1 -g 0.05" "-s 1 -n 0.3 -g 0.05" "-s 2 -n 0.2 -g 0.05" "-s 3 -p 0.1 -g 0.05" "-v 5 -c 4 -g 0.05"; do
    # shellcheck disable=SC2086
    cert_both "integer sparse rows, 3 classes, $a" "$TMPD/sparse3" $a
done
# the subproblems of a batch on 1, 2 or 3 threads (GPUSVM_SUB_THREADS): each problem's steps are
# its own, so the same lines and the same model as the default's
for a in "-c 4 -g 0.05" "-v 5 -c 4 -g 0.05"; do
    # shellcheck disable=SC2086
    "$TRAIN" $a "$TMPD/sparse3" "$TMPD/st.model" > "$TMPD/st.out" 2>&1 || fail "sparse3 $a: default run failed"
    for n in 1 2 3; do
        rm -f "$TMPD/stn.model"
        # shellcheck disable=SC2086
        GPUSVM_SUB_THREADS=$n "$TRAIN" $a "$TMPD/sparse3" "$TMPD/stn.model" > "$TMPD/stn.out" 2>&1 ||
            { fail "sparse3 $a: run with GPUSVM_SUB_THREADS=$n failed"; continue; }
        check_file_eq "sparse3 $a: lines, $n subproblem thread(s)" "$TMPD/st.out" "$TMPD/stn.out"
        [ -f "$TMPD/st.model" ] && check_file_eq "sparse3 $a: model, $n subproblem thread(s)" "$TMPD/st.model" "$TMPD/stn.model"
    done
    rm -f "$TMPD/st.model"
done
# a solver whose problems all fit one work-group's selection builds its program without the chain's
# kernels (a shorter build); forcing either path builds the whole program (the models above: both
# paths' runs share one build)
"$TRAIN" --verbose "$HS" "$TMPD/m" > /dev/null 2> "$TMPD/err"
check_eq "default: program without the chain" 1 "$(grep -c '^gpusvm: solver program without the multi-kernel selection' "$TMPD/err")"
GPUSVM_SELECT=multi "$TRAIN" --verbose "$HS" "$TMPD/m" > /dev/null 2> "$TMPD/err"
check_eq "GPUSVM_SELECT=multi: program with the chain" 1 "$(grep -c '^gpusvm: solver program with the multi-kernel selection' "$TMPD/err")"
finish
