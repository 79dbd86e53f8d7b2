#!/bin/sh
# -t 4, the precomputed kernel, against LIBSVM 3.24 (compat §1.7):
#  1. golden/precomputed replayed: the training lines, model and predictions of heart_pre_train,
#     the golden models read by gpusvm-predict byte for byte, -v 5, the subset file, and the bad
#     serial numbers (LIBSVM's messages, exit 1, no model file);
#  2. linear and RBF Gram matrices of heart_scale (scripts/gen-gram.py) trained by gpusvm-train and
#     svm-train for -s 0..4: objective within 1e-4 relative, rho within 1e-4 relative plus the
#     stopping tolerance (2 eps: both solutions are eps-optimal; at -e 1e-6 within 1e-4 alone),
#     nSV within 1% (one SV under 1000 rows), the same result lines, svm-predict reading gpusvm's
#     model and agreeing with gpusvm-predict byte for byte, and predictions as test_train_types.sh
#     judges them (labels equal on >= 99.9% of rows, one-class off the boundary, regression within
#     2e-3 relative, nu-SVR 1e-2); -v as svm-train's;
#  3. serial numbers LIBSVM refuses, and rows too short for the largest serial number, which LIBSVM
#     would read past: exit 1 and no model file.
# Skips (with the reason) without svm-train, ../shared/reference/golden or ../shared/datasets.
. "$(dirname "$0")/lib.sh"
if ! command -v svm-train >/dev/null 2>&1; then skip "svm-train (libsvm-tools) not installed"; finish; exit; fi
require_bin "$TRAIN"
require_bin "$PREDICT"
GEN=$TOP/scripts/gen-gram.py

# within A B RELTOL ABSTOL: |A - B| <= RELTOL |B| + ABSTOL
within() { awk -v a="$1" -v b="$2" -v r="$3" -v t="$4" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= r * m + t) }'; }
obj_of() { sed -n 's/^obj = \([^,]*\),.*/\1/p' "$1" | head -1; }
rho_of() { sed -n 's/^obj = .*, rho = \(.*\)$/\1/p' "$1" | head -1; }
nsv_of() { t=$(sed -n 's/^Total nSV = //p' "$1"); [ -n "$t" ] && echo "$t" || sed -n 's/^nSV = \([0-9]*\),.*/\1/p' "$1"; }
shape() { grep -E '^(optimization finished|nu =|C =|epsilon =|obj =|nSV =|Total nSV)' "$1" | sed 's/[-0-9.]\{1,\}/N/g'; }

# refused NAME FILE [options]: both programs refuse the training file with the same stderr, exit 1,
# and neither writes a model
refused() {
    name=$1; data=$2; shift 2
    rm -f "$TMPD/no.model" "$TMPD/no2.model"
    "$TRAIN" "$@" "$data" "$TMPD/no.model" > "$TMPD/no.out" 2> "$TMPD/no.err"; rc=$?
    svm-train "$@" "$data" "$TMPD/no2.model" > /dev/null 2> "$TMPD/no2.err"; rrc=$?
    check_eq "$name: exit" "$rrc" "$rc"
    check_eq "$name: exit 1" 1 "$rc"
    check_file_eq "$name: stderr" "$TMPD/no2.err" "$TMPD/no.err"
    check_eq "$name: stdout" "" "$(cat "$TMPD/no.out")"
    check_eq "$name: no model file" no "$([ -e "$TMPD/no.model" ] && echo yes || echo no)"
}

# 1. golden/precomputed
P=$GOLDEN/precomputed
if [ -d "$P" ]; then
    "$TRAIN" -t 4 "$P/heart_pre_train" "$TMPD/pre.model" > "$TMPD/pre.out" 2> "$TMPD/pre.err"
    check_eq "train_pre exit" "$(cat "$P/train_pre.rc")" "$?"
    check_eq "train_pre lines" "$(mask_train "$P/train_pre.stdout")" "$(mask_train "$TMPD/pre.out")"
    check_eq "train_pre stderr" "" "$(cat "$TMPD/pre.err")"
    if within "$(obj_of "$TMPD/pre.out")" "$(obj_of "$P/train_pre.stdout")" 1e-4 0; then pass; else fail "train_pre obj $(obj_of "$TMPD/pre.out")"; fi
    if within "$(rho_of "$TMPD/pre.out")" "$(rho_of "$P/train_pre.stdout")" 1e-4 2e-3; then pass; else fail "train_pre rho $(rho_of "$TMPD/pre.out")"; fi
    # the model's text: LIBSVM's header lines and its SVs, 0:ID only, in the same order
    check_eq "train_pre model header" "$(grep -v '^rho' "$P/heart_pre.model" | sed '/^SV$/q')" \
        "$(grep -v '^rho' "$TMPD/pre.model" | sed '/^SV$/q')"
    check_eq "train_pre SV ids" "$(sed '1,/^SV$/d; s/^[^ ]* //' "$P/heart_pre.model")" \
        "$(sed '1,/^SV$/d; s/^[^ ]* //' "$TMPD/pre.model")"
    "$PREDICT" "$P/heart_pre_test" "$TMPD/pre.model" "$TMPD/pre.pred" > "$TMPD/pre.acc"
    check_file_eq "predict_pre with gpusvm's model: stdout" "$P/predict_pre.stdout" "$TMPD/pre.acc"
    check_file_eq "predict_pre with gpusvm's model: labels" "$P/pred_pre.out" "$TMPD/pre.pred"
    # LIBSVM's own models, read by gpusvm-predict: byte for byte
    for c in pre:heart_pre_test:heart_pre.model:pred_pre.out lin:heart_lin_test:heart_lin.model:pred_lin.out \
             pre_b1:heart_pre_test:heart_pre_b1.model:pred_pre_b1.out; do
        IFS=: read -r n t m o <<EOF
$c
EOF
        b=; [ "$n" = pre_b1 ] && b="-b 1"
        "$PREDICT" $b "$P/$t" "$P/$m" "$TMPD/g.pred" > "$TMPD/g.acc" 2> "$TMPD/g.err"
        check_eq "predict_$n exit" "$(cat "$P/predict_$n.rc")" "$?"
        check_file_eq "predict_$n stdout" "$P/predict_$n.stdout" "$TMPD/g.acc"
        check_file_eq "predict_$n stderr" "$P/predict_$n.stderr" "$TMPD/g.err"
        check_file_eq "predict_$n output" "$P/$o" "$TMPD/g.pred"
    done
    "$PREDICT" "$P/pre_test_question" "$P/heart_pre.model" "$TMPD/q.pred" > "$TMPD/q.out" 2> "$TMPD/q.err"
    check_eq "predict_pre_question exit" "$(cat "$P/predict_pre_question.rc")" "$?"
    check_file_eq "predict_pre_question stderr" "$P/predict_pre_question.stderr" "$TMPD/q.err"
    # -t 4 learns what -t 0 learns from the same data (golden: the same model)
    "$TRAIN" -t 0 "$P/heart_lin_train" "$TMPD/lin.model" > /dev/null
    "$PREDICT" "$P/heart_lin_test" "$TMPD/lin.model" "$TMPD/lin.pred" > /dev/null
    check_file_eq "-t 4 and -t 0 predict alike" "$TMPD/lin.pred" "$TMPD/pre.pred"
    "$TRAIN" -t 4 -v 5 "$P/heart_pre_train" > "$TMPD/cv.out" 2> "$TMPD/cv.err"
    check_eq "train_pre_cv5 exit" 0 "$?"
    check_eq "train_pre_cv5 result" "$(tail -n 1 "$P/train_pre_cv5.stdout")" "$(tail -n 1 "$TMPD/cv.out")"
    check_eq "train_pre_cv5 lines" "$(mask_train "$P/train_pre_cv5.stdout")" "$(mask_train "$TMPD/cv.out")"
    # a subset of the rows, serial numbers out of order
    "$TRAIN" -t 4 "$P/pre_subset" "$TMPD/sub.model" > "$TMPD/sub.out"
    check_eq "train_pre_subset lines" "$(mask_train "$P/train_pre_subset.stdout")" "$(mask_train "$TMPD/sub.out")"
    check_eq "train_pre_subset SV ids" "$(sed '1,/^SV$/d; s/^[^ ]* //' "$P/pre_subset.model")" \
        "$(sed '1,/^SV$/d; s/^[^ ]* //' "$TMPD/sub.model")"
    for c in bad_first_col serial_zero serial_too_big; do
        rm -f "$TMPD/no.model"
        "$TRAIN" -t 4 "$P/pre_$c" "$TMPD/no.model" > "$TMPD/no.out" 2> "$TMPD/no.err"
        check_eq "train_pre_$c exit" "$(cat "$P/train_pre_$c.rc")" "$?"
        check_file_eq "train_pre_$c stderr" "$P/train_pre_$c.stderr" "$TMPD/no.err"
        check_file_eq "train_pre_$c stdout" "$P/train_pre_$c.stdout" "$TMPD/no.out"
        check_eq "train_pre_$c: no model file" no "$([ -e "$TMPD/no.model" ] && echo yes || echo no)"
    done
else
    skip "golden reference absent ($P)"
fi

# 2. Gram matrices of heart_scale against svm-train
# compare NAME TRAIN TEST [options...]
compare() {
    name=$1; data=$2; test=$3; shift 3
    "$TRAIN" "$@" "$data" "$TMPD/g.model" > "$TMPD/g.out" 2> "$TMPD/g.err" || { fail "$name: gpusvm-train failed: $(cat "$TMPD/g.err")"; return; }
    svm-train "$@" "$data" "$TMPD/r.model" > "$TMPD/r.out" 2>/dev/null || { fail "$name: svm-train failed"; return; }
    [ -s "$TMPD/g.err" ] && fail "$name: unexpected stderr: $(head -c 300 "$TMPD/g.err")"
    go=$(obj_of "$TMPD/g.out"); ro=$(obj_of "$TMPD/r.out")
    if within "$go" "$ro" 1e-4 1e-6; then pass; else fail "$name: obj $go vs LIBSVM $ro"; fi
    gr=$(rho_of "$TMPD/g.out"); rr=$(rho_of "$TMPD/r.out")
    if within "$gr" "$rr" 1e-4 "${RHO_ABS:-2e-3}"; then pass; else fail "$name: rho $gr vs LIBSVM $rr"; fi
    gn=$(nsv_of "$TMPD/g.out"); rn=$(nsv_of "$TMPD/r.out")
    if awk -v a="$gn" -v b="$rn" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01 * b || d <= 1) }'; then pass; else fail "$name: nSV $gn vs LIBSVM $rn"; fi
    check_eq "$name: stdout lines" "$(shape "$TMPD/r.out")" "$(shape "$TMPD/g.out")"
    check_eq "$name: model header" "$(sed -n '1,2p' "$TMPD/r.model")" "$(sed -n '1,2p' "$TMPD/g.model")"
    check_eq "$name: SVs are 0:ID" "" "$(sed '1,/^SV$/d' "$TMPD/g.model" | grep -v ' 0:[0-9]* $')"
    svm-predict "$test" "$TMPD/g.model" "$TMPD/g.pred" > "$TMPD/g.acc" || { fail "$name: svm-predict rejects gpusvm's model"; return; }
    svm-predict "$test" "$TMPD/r.model" "$TMPD/r.pred" > "$TMPD/r.acc"
    "$PREDICT" "$test" "$TMPD/g.model" "$TMPD/gg.pred" > "$TMPD/gg.acc"
    check_file_eq "$name: gpusvm-predict = svm-predict (output)" "$TMPD/g.pred" "$TMPD/gg.pred"
    check_file_eq "$name: gpusvm-predict = svm-predict (stdout)" "$TMPD/g.acc" "$TMPD/gg.acc"
    rows=$(wc -l < "$TMPD/r.pred")
    case " $* " in
    *" -s 2 "*)
        if [ -z "$PY3" ]; then skip "$name: labels not compared (python3-libsvm absent)"; return; fi
        diffs=$(oneclass_flips "$test" "$TMPD/r.model" "$TMPD/g.pred" "$TMPD/r.pred" 2e-3)
        check_eq "$name: labels that differ from LIBSVM's model's off its boundary" 0 "$diffs" ;;
    *" -s 3 "*|*" -s 4 "*)
        tol=2e-3; case " $* " in *" -s 4 "*) tol=1e-2 ;; esac
        far=$(paste -d' ' "$TMPD/g.pred" "$TMPD/r.pred" | awk -v tol="$tol" '{ d = $1 - $2; if (d < 0) d = -d; m = $2 < 0 ? -$2 : $2; if (m < 1) m = 1; if (d > tol * m) n++ } END { print n + 0 }')
        check_eq "$name: predictions beyond $tol of LIBSVM's model's" 0 "$far" ;;
    *)
        diffs=$(paste -d' ' "$TMPD/g.pred" "$TMPD/r.pred" | awk '$1 != $2' | wc -l)
        if [ "$rows" -lt 1000 ]; then ok=$([ "$diffs" -le 1 ] && echo 1 || echo 0); else ok=$(awk -v d="$diffs" -v n="$rows" 'BEGIN { print (d <= 0.001 * n) ? 1 : 0 }'); fi
        if [ "$ok" = 1 ]; then pass; else fail "$name: $diffs of $rows labels differ from LIBSVM's model"; fi ;;
    esac
}

if [ -f "$DATASETS/heart_scale/heart_scale.gz" ]; then
    zcat "$DATASETS/heart_scale/heart_scale.gz" > "$TMPD/heart"
    python3 "$GEN" -k linear "$TMPD/heart" "$TMPD/hl" "$TMPD/heart" "$TMPD/hl.t" || fail "gen-gram.py linear"
    python3 "$GEN" -k rbf "$TMPD/heart" "$TMPD/hr" "$TMPD/heart" "$TMPD/hr.t" || fail "gen-gram.py rbf"
    for k in hl hr; do
        for s in 0 1 2 3 4; do compare "heart $k -s $s" "$TMPD/$k" "$TMPD/$k.t" -t 4 -s "$s"; done
    done
    compare "heart hr -s 0 -c 10" "$TMPD/hr" "$TMPD/hr.t" -t 4 -c 10
    compare "heart hl -s 3 -p 0.5" "$TMPD/hl" "$TMPD/hl.t" -t 4 -s 3 -p 0.5
    RHO_ABS=0 compare "heart hr -s 0 -e 1e-6 (rho to 1e-4)" "$TMPD/hr" "$TMPD/hr.t" -t 4 -e 1e-6
    # -t 4 on the RBF matrix learns what -t 2 learns from the rows (same default gamma)
    "$TRAIN" -t 4 "$TMPD/hr" "$TMPD/a.model" > /dev/null && "$PREDICT" "$TMPD/hr.t" "$TMPD/a.model" "$TMPD/a.pred" > /dev/null
    "$TRAIN" -t 2 "$TMPD/heart" "$TMPD/b.model" > /dev/null && "$PREDICT" "$TMPD/heart" "$TMPD/b.model" "$TMPD/b.pred" > /dev/null
    check_file_eq "-t 4 RBF matrix predicts as -t 2" "$TMPD/b.pred" "$TMPD/a.pred"
    # a three-class problem (one-vs-one pairs): heart's odd-numbered -1 rows made class 2
    awk '{ if ($1 == "-1" && NR % 2) $1 = 2; print }' "$TMPD/hr" > "$TMPD/hr3"
    awk '{ if ($1 == "-1" && NR % 2) $1 = 2; print }' "$TMPD/hr.t" > "$TMPD/hr3.t"
    compare "heart hr 3 classes" "$TMPD/hr3" "$TMPD/hr3.t" -t 4
    # the selection paths (k_select / the multi-kernel chain) give the same -t 4 models, in both
    # round forms, as test_train_select.sh asks of the other kernels
    for f in 0 1; do
        for k in hr hr3; do
            GPUSVM_SPLIT=$f GPUSVM_SELECT=one "$TRAIN" -q -t 4 --ws-size 16 "$TMPD/$k" "$TMPD/s1.model" > /dev/null
            GPUSVM_SPLIT=$f GPUSVM_SELECT=multi "$TRAIN" -q -t 4 --ws-size 16 "$TMPD/$k" "$TMPD/s2.model" > /dev/null
            check_file_eq "$k split=$f: k_select = multi-kernel selection" "$TMPD/s1.model" "$TMPD/s2.model"
        done
    done
    for a in "-s 0" "-s 3"; do
        "$TRAIN" -t 4 $a -v 5 "$TMPD/hr" > "$TMPD/gv.out" 2>&1
        svm-train -t 4 $a -v 5 "$TMPD/hr" > "$TMPD/rv.out" 2>&1
        if [ "$a" = "-s 0" ]; then
            check_eq "heart hr $a -v 5" "$(grep '^Cross' "$TMPD/rv.out")" "$(grep '^Cross' "$TMPD/gv.out")"
        else # the folds are solved over one upload: LIBSVM's MSE within issue #22's 1e-3 relative
            gm=$(sed -n 's/^Cross Validation Mean squared error = //p' "$TMPD/gv.out")
            rm_=$(sed -n 's/^Cross Validation Mean squared error = //p' "$TMPD/rv.out")
            if awk -v a="$gm" -v b="$rm_" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b != "" && d <= 1e-3 * b) }'; then pass; else fail "heart hr $a -v 5: MSE $gm vs LIBSVM $rm_"; fi
        fi
    done
    # -b 1 with -t 4: probA/probB within 1e-2 relative of svm-train's (the internal folds' rows
    # are the same), svm-predict -b 1 on gpusvm's model = gpusvm-predict -b 1, byte for byte
    for a in "-s 0" "-s 3"; do
        "$TRAIN" -q -t 4 $a -b 1 "$TMPD/hr" "$TMPD/gb.model" > /dev/null 2>&1 || fail "heart hr $a -b 1: gpusvm-train failed"
        svm-train -q -t 4 $a -b 1 "$TMPD/hr" "$TMPD/rb.model" > /dev/null 2>&1
        bad=$(paste -d' ' "$TMPD/gb.model" "$TMPD/rb.model" | awk '$1 ~ /^prob[AB]$/ { d = $2 - $4; if (d < 0) d = -d; m = $4 < 0 ? -$4 : $4; if (d > 1e-2 * m + 1e-3) n++; k++ } END { print (k ? n + 0 : "none") }')
        check_eq "heart hr $a -b 1: probA/probB beyond 1e-2 of svm-train's" 0 "$bad"
        svm-predict -b 1 "$TMPD/hr.t" "$TMPD/gb.model" "$TMPD/rb.pred" > /dev/null
        "$PREDICT" -b 1 "$TMPD/hr.t" "$TMPD/gb.model" "$TMPD/gb.pred" > /dev/null
        check_file_eq "heart hr $a -b 1: gpusvm-predict -b 1 = svm-predict -b 1" "$TMPD/rb.pred" "$TMPD/gb.pred"
    done
else
    skip "../shared/datasets absent: Gram matrices of heart_scale not compared"
fi

# 3. serial numbers: LIBSVM's checks, word for word, and what LIBSVM would read past
printf '+1 0:-1 1:1 2:0.5\n-1 0:2 1:0.5 2:1\n' > "$TMPD/neg"
refused "serial -1" "$TMPD/neg" -t 4
printf '+1 0:1 1:1 2:0.5\n-1 0:3 1:0.5 2:1\n' > "$TMPD/big"
refused "serial 3 > max_index 2" "$TMPD/big" -t 4
refused "serial 3 > max_index 2, -v 2" "$TMPD/big" -t 4 -v 2
printf '+1 0:1 1:1 2:0.5\n-1 1:0.5 2:1\n' > "$TMPD/nofirst"
refused "no 0:ID" "$TMPD/nofirst" -t 4
printf '+1 0:1 1:1 2:0.5\n-1\n' > "$TMPD/empty"
refused "empty row" "$TMPD/empty" -t 4
printf '+1 0:1 1:1 2:0.5\n-1 0:1e10 1:0.5 2:1\n' > "$TMPD/huge"
refused "serial 1e10" "$TMPD/huge" -t 4
# the first bad row decides the message, as in svm-train's loop
printf '+1 0:5 1:1 2:0.5\n-1 1:0.5 2:1\n' > "$TMPD/order"
refused "first bad row decides" "$TMPD/order" -t 4
# the parameter check comes after the serial numbers, as in svm-train
refused "serial before -c 0" "$TMPD/big" -t 4 -c 0
# a row shorter than the largest serial number: LIBSVM reads past it, gpusvm refuses
printf '+1 0:1 1:1 2:0.5\n-1 0:2 1:0.5\n' > "$TMPD/short"
rm -f "$TMPD/no.model"
"$TRAIN" -t 4 "$TMPD/short" "$TMPD/no.model" > /dev/null 2> "$TMPD/no.err"
check_eq "short row exit" 1 "$?"
if grep -q 'the row with 0:2 has 1 kernel values, but serial number 2 needs 2' "$TMPD/no.err"; then pass; else fail "short row: $(cat "$TMPD/no.err")"; fi
check_eq "short row: no model file" no "$([ -e "$TMPD/no.model" ] && echo yes || echo no)"
# (int) of the serial number, as LIBSVM: 1.9 is row 1
printf '+1 0:1.9 1:1 2:0.5\n-1 0:2 1:0.5 2:1\n' > "$TMPD/frac"
"$TRAIN" -t 4 "$TMPD/frac" "$TMPD/f.model" > /dev/null 2>&1
svm-train -t 4 "$TMPD/frac" "$TMPD/f2.model" > /dev/null 2>&1
check_eq "fractional serial: SVs" "$(sed '1,/^SV$/d; s/^[^ ]* //' "$TMPD/f2.model")" "$(sed '1,/^SV$/d; s/^[^ ]* //' "$TMPD/f.model")"
# the device memory check names the bytes
if [ -n "${DATASETS:-}" ] && [ -f "$TMPD/hr" ]; then
    "$TRAIN" --device-memory 1 -t 4 "$TMPD/hr" "$TMPD/no.model" > /dev/null 2> "$TMPD/no.err"
    check_eq "--device-memory 1 exit" 1 "$?"
    if grep -q 'not enough device memory: training needs [0-9]* bytes' "$TMPD/no.err"; then pass; else fail "--device-memory 1: $(cat "$TMPD/no.err")"; fi
fi
finish
