#!/bin/sh
# tests/cli/test_prob.sh — probability training (-b 1) against real svm-train 3.24:
#   - C-SVC and nu-SVC on heart_scale (several -c / -g, class weights), iris and, from
#     ../shared/datasets, dna (3 classes) and glass (6 classes); epsilon-SVR and nu-SVR on heart_scale,
#     the golden diabetes set and abalone;
#   - the training lines: svm-train's blocks in svm-train's order (5 fold blocks with their "Total
#     nSV" before each pair's own block; for regression the fold blocks and the "Prob. model" lines
#     first), numbers masked (the solver's numbers are compared by test_train_oracle.sh);
#   - probA / probB within 1e-2 relative of svm-train's (1e-3 absolute near zero); glass's nearly
#     separable pairs have |A| up to 42, where an eps-optimal solver's own tolerance moves A and B by
#     a few per cent, so there the predicted probabilities are compared instead (within 0.01);
#   - svm-predict -b 1 on gpusvm's model: output and printed lines byte for byte gpusvm-predict -b 1's;
#     its labels equal svm-predict -b 1's on svm-train's model except on rows whose two largest
#     probabilities (in svm-train's output) are within 0.002, and the printed probabilities within 0.01;
#   - -v 5 -b 1 (predictions through the probability model): the accuracy line equal to svm-train's;
#   - degenerate sets (one class, no rows) give svm-train's model byte for byte; regression -b 1 on
#     no rows is an error (svm-train dies of SIGFPE);
#   - one-class -b 1: 3.24's refusal; with --one-class-prob, LIBSVM 3.37's prob_density_marks
#     (golden upstream337_oneclass_prob: marks within 1e-5, gpusvm-predict -b 1's output byte for
#     byte 3.37's, its warning when a side has fewer than 5 values).
# Needs svm-train/svm-predict and ../shared/reference/golden; the datasets part skips without
# ../shared/datasets. About 3 minutes on the 2-core CPU device (PoCL).
. "$(dirname "$0")/lib.sh"
require_bin "$TRAIN"
require_bin "$PREDICT"
require_dir "$GOLDEN/heart"
if ! command -v svm-train >/dev/null 2>&1 || ! command -v svm-predict >/dev/null 2>&1; then
    skip "svm-train/svm-predict (libsvm-tools) not installed"; finish; exit
fi
H=$GOLDEN/heart/heart_scale
IRIS=$GOLDEN/iris/iris.libsvm

# every number masked and the progress lines dropped (with svm-train's shrinking warning, which
# belongs to its solver): the lines and their order are compared, not the solver's values
mask_all() {
    sed -e '/^[.*]*$/d' -e '/^WARNING: using -h 0 may be faster$/d' -e 's/-\{0,1\}[0-9][0-9.e+-]*/N/g' "$1"
}

# near_prob NAME GPUSVM_MODEL LIBSVM_MODEL: every probA/probB value within 1e-2 relative (1e-3
# absolute); prints the largest relative deviation as a "dev" line
near_prob() {
    out=$(awk -v name="$1" '
        FNR == 1 { f++ }
        $1 == "probA" || $1 == "probB" { for (i = 2; i <= NF; i++) v[f, $1, i] = $i; n[f, $1] = NF }
        END {
            bad = 0; worst = 0
            if (n[1, "probA"] != n[2, "probA"] || n[1, "probB"] != n[2, "probB"]) { print "count"; exit }
            split("probA probB", keys, " ")
            for (k = 1; k <= 2; k++) for (i = 2; i <= n[1, keys[k]]; i++) {
                a = v[1, keys[k], i]; b = v[2, keys[k], i]; d = a - b; if (d < 0) d = -d
                m = b < 0 ? -b : b; r = m > 0 ? d / m : d
                if (r > worst) worst = r
                if (d > 1e-2 * m && d > 1e-3) { bad = 1; print "off", keys[k], i - 1, a, b }
            }
            printf "dev %s %.3g\n", name, worst
        }' "$2" "$3")
    echo "$out" | grep '^dev' >> "$TMPD/deviations"
    if echo "$out" | grep -q '^count'; then fail "$1: probA/probB counts differ"
    elif echo "$out" | grep -q '^off'; then fail "$1: $(echo "$out" | grep '^off' | head -3 | tr '\n' ' ')"
    else pass; fi
}

# agree NAME OURS THEIRS: labels equal except where svm-train's two largest probabilities are
# within 0.002; probabilities within 0.01 (both svm-predict -b 1 outputs, same header)
agree() {
    r=$(paste -d' ' "$2" "$3" | awk '
        NR == 1 { next }
        { n = NF / 2; t1 = -1; t2 = -1; d = 0
          for (i = 2; i <= n; i++) {
              p = $(i + n); if (p > t1) { t2 = t1; t1 = p } else if (p > t2) t2 = p
              x = $i - $(i + n); if (x < 0) x = -x; if (x > d) d = x }
          if (d > md) md = d
          if ($1 != $(1 + n)) { dis++; if (t1 - t2 > 0.002) hard++ }
          rows++ }
        END { printf "%d %d %d %g\n", rows, dis, hard, md }')
    set -- "$1" $r
    echo "agree $1: $2 rows, $3 labels differ ($4 not borderline), largest probability difference $5" >> "$TMPD/deviations"
    check_eq "$1: labels differ only on borderline rows" 0 "$4"
    if awk -v d="$5" 'BEGIN { exit !(d <= 0.01) }'; then pass; else fail "$1: probabilities differ by $5"; fi
}

# case_prob NAME TRAIN_DATA TEST_DATA KIND [options]: KIND "ab" compares probA/probB, "p" only the
# predicted probabilities
case_prob() {
    name=$1; data=$2; test=$3; kind=$4; shift 4
    "$TRAIN" -b 1 "$@" "$data" "$TMPD/g.model" > "$TMPD/g.stdout" 2> "$TMPD/g.stderr" ||
        { fail "$name: gpusvm-train exit status"; head -3 "$TMPD/g.stderr"; return; }
    svm-train -b 1 "$@" "$data" "$TMPD/l.model" > "$TMPD/l.stdout" 2> "$TMPD/l.stderr" ||
        { fail "$name: svm-train exit status"; return; }
    mask_all "$TMPD/g.stdout" > "$TMPD/g.mask"; mask_all "$TMPD/l.stdout" > "$TMPD/l.mask"
    check_file_eq "$name: training lines" "$TMPD/l.mask" "$TMPD/g.mask"
    check_file_eq "$name: stderr" "$TMPD/l.stderr" "$TMPD/g.stderr"
    if [ "$kind" = ab ]; then near_prob "$name" "$TMPD/g.model" "$TMPD/l.model"; fi
    # the model's other lines are the ones svm-train writes (values aside)
    check_eq "$name: model keys" "$(cut -d' ' -f1 "$TMPD/l.model" | sed -n '1,/^SV$/p' | tr '\n' ' ')" \
        "$(cut -d' ' -f1 "$TMPD/g.model" | sed -n '1,/^SV$/p' | tr '\n' ' ')"
    svm-predict -b 1 "$test" "$TMPD/g.model" "$TMPD/s.out" > "$TMPD/s.txt" 2>&1
    "$PREDICT" -b 1 "$test" "$TMPD/g.model" "$TMPD/p.out" > "$TMPD/p.txt" 2>&1 ||
        { fail "$name: gpusvm-predict -b 1 exit status"; return; }
    check_file_eq "$name: gpusvm-predict -b 1 = svm-predict -b 1 (output)" "$TMPD/s.out" "$TMPD/p.out"
    check_file_eq "$name: gpusvm-predict -b 1 = svm-predict -b 1 (lines)" "$TMPD/s.txt" "$TMPD/p.txt"
    svm-predict -b 1 "$test" "$TMPD/l.model" "$TMPD/r.out" > /dev/null 2>&1
    case "$1$2" in
    -s3*|-s4*) # regression: the values (the same with or without -b 1) and sigma's line
        agree_reg "$name" "$TMPD/s.out" "$TMPD/r.out" ;;
    *) agree "$name" "$TMPD/s.out" "$TMPD/r.out" ;;
    esac
}

# agree_reg NAME OURS THEIRS: predicted values within 1e-2 relative (1e-2 absolute): two
# eps-optimal solutions (-e 0.001 on the dual's gap) differ by about 1e-3 in their values
agree_reg() {
    m=$(paste -d' ' "$2" "$3" | awk '{ d = $1 - $2; if (d < 0) d = -d; m = $2 < 0 ? -$2 : $2
        r = d / (m > 1 ? m : 1); if (r > w) w = r } END { printf "%g\n", w }')
    echo "agree $1: largest regression value difference $m" >> "$TMPD/deviations"
    if awk -v d="$m" 'BEGIN { exit !(d <= 1e-2) }'; then pass; else fail "$1: predictions differ by $m"; fi
}

: > "$TMPD/deviations"
# ---- heart_scale: C-SVC, nu-SVC, weights, regression ------------------------------------------
case_prob "heart default" "$H" "$H" ab
case_prob "heart -c 10 -g 0.5" "$H" "$H" ab -c 10 -g 0.5
case_prob "heart -c 0.5 -g 0.02" "$H" "$H" ab -c 0.5 -g 0.02
case_prob "heart linear -c 2" "$H" "$H" ab -t 0 -c 2
case_prob "heart weights" "$H" "$H" ab -w1 2 -w-1 0.5
case_prob "heart nu-SVC" "$H" "$H" ab -s 1
case_prob "heart nu-SVC -n 0.3 -g 0.1" "$H" "$H" ab -s 1 -n 0.3 -g 0.1
case_prob "heart epsilon-SVR" "$H" "$H" ab -s 3
case_prob "heart nu-SVR" "$H" "$H" ab -s 4 -c 2
# the golden numbers themselves
"$TRAIN" -q -b 1 "$H" "$TMPD/h.model" && near_prob "heart vs golden model" "$TMPD/h.model" "$GOLDEN/heart/heart_scale_b1.model"
"$TRAIN" -q -s 3 -b 1 "$H" "$TMPD/h3.model" && near_prob "heart SVR vs golden model" "$TMPD/h3.model" "$GOLDEN/heart/heart_eps_svr_b1.model"

# ---- iris (three classes) ---------------------------------------------------------------------
if [ -f "$IRIS" ]; then
    case_prob "iris" "$IRIS" "$IRIS" ab
    case_prob "iris nu-SVC -n 0.125" "$IRIS" "$IRIS" ab -s 1 -n 0.125
    "$TRAIN" -q -b 1 "$IRIS" "$TMPD/i.model" && near_prob "iris vs golden model" "$TMPD/i.model" "$GOLDEN/iris/iris_b1.model"
else
    skip "golden iris absent"
fi
# ---- diabetes (regression, golden exact parameters) -------------------------------------------
if [ -f "$GOLDEN/diabetes/diabetes_xy.scale" ]; then
    D=$GOLDEN/diabetes/diabetes_xy.scale
    case_prob "diabetes epsilon-SVR" "$D" "$D" ab -s 3 -c 100 -p 0.0625
    "$TRAIN" -q -s 3 -c 100 -p 0.0625 -b 1 "$D" "$TMPD/d.model" &&
        near_prob "diabetes vs golden model" "$TMPD/d.model" "$GOLDEN/diabetes/diabetes_eps_exact_b1.model"
else
    skip "golden diabetes absent"
fi

# ---- -v 5 -b 1: folds from one rand() stream, predictions by probability ------------------------
# (as test_cv.sh: equal here; LIBSVM's own line within 0.2 points where a borderline row could
# go either way, regression within 1e-3 relative)
for o in "-v 5 -b 1" "-s 1 -v 5 -b 1" "-v 3 -b 1 -c 4"; do
    # shellcheck disable=SC2086
    check_eq "heart $o" "$(svm-train -q $o "$H")" "$("$TRAIN" -q $o "$H")"
done
# shellcheck disable=SC2046
set -- $(svm-train -q -s 3 -v 5 -b 1 "$H" | sed 's/.* = //') $("$TRAIN" -q -s 3 -v 5 -b 1 "$H" | sed 's/.* = //')
if [ $# -eq 4 ] && awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { x = (a - c) / a; y = (b - d) / b
    exit !(x < 1e-3 && x > -1e-3 && y < 1e-3 && y > -1e-3) }'; then pass
else fail "heart -s 3 -v 5 -b 1: MSE, r^2 $3 $4 vs svm-train's $1 $2"; fi
check_eq "heart -v 5 -b 1 = golden" "Cross Validation Accuracy = 83.3333%" "$("$TRAIN" -q -v 5 -b 1 "$H")"
[ -f "$IRIS" ] && check_eq "iris -v 5 -b 1" "$(svm-train -q -v 5 -b 1 "$IRIS")" "$("$TRAIN" -q -v 5 -b 1 "$IRIS")"
# the lines of -v with -b 1: every fold's probability folds, in svm-train's order
"$TRAIN" -v 4 -b 1 "$H" > "$TMPD/v.g" 2>&1; svm-train -v 4 -b 1 "$H" > "$TMPD/v.l" 2>&1
mask_all "$TMPD/v.g" > "$TMPD/v.gm"; mask_all "$TMPD/v.l" > "$TMPD/v.lm"
check_file_eq "heart -v 4 -b 1: lines" "$TMPD/v.lm" "$TMPD/v.gm"
"$TRAIN" -s 4 -v 3 -b 1 "$H" > "$TMPD/v.g" 2>&1; svm-train -s 4 -v 3 -b 1 "$H" > "$TMPD/v.l" 2>&1
mask_all "$TMPD/v.g" > "$TMPD/v.gm"; mask_all "$TMPD/v.l" > "$TMPD/v.lm"
check_file_eq "heart nu-SVR -v 3 -b 1: lines (nested CV)" "$TMPD/v.lm" "$TMPD/v.gm"

# ---- degenerate sets ----------------------------------------------------------------------------
printf '1 1:1\n1 1:2\n1 1:3\n' > "$TMPD/one"
: > "$TMPD/empty"
for d in one empty; do
    "$TRAIN" -b 1 "$TMPD/$d" "$TMPD/$d.g" > "$TMPD/$d.gout" 2>&1; svm-train -b 1 "$TMPD/$d" "$TMPD/$d.l" > "$TMPD/$d.lout" 2>&1
    check_file_eq "$d: model" "$TMPD/$d.l" "$TMPD/$d.g"
    check_file_eq "$d: lines" "$TMPD/$d.lout" "$TMPD/$d.gout"
done
"$TRAIN" -s 3 -b 1 "$TMPD/one" "$TMPD/one3.g" > "$TMPD/one3.gout" 2>&1; svm-train -s 3 -b 1 "$TMPD/one" "$TMPD/one3.l" > "$TMPD/one3.lout" 2>&1
check_file_eq "SVR, 3 rows (folds = rows): model" "$TMPD/one3.l" "$TMPD/one3.g"
"$TRAIN" -s 3 -b 1 "$TMPD/empty" "$TMPD/e3.model" > /dev/null 2> "$TMPD/e3.err"; rc=$?
check_eq "SVR -b 1 on no rows: exit" 1 "$rc"
check_eq "SVR -b 1 on no rows: message" "probability training (-b 1) needs training data: the training set is empty" "$(cat "$TMPD/e3.err")"
if [ -e "$TMPD/e3.model" ]; then fail "SVR -b 1 on no rows wrote a model"; else pass; fi

# ---- one-class: 3.24's refusal; --one-class-prob: 3.37's prob_density_marks ------------------
OC=$GOLDEN/upstream337_oneclass_prob
"$TRAIN" -s 2 -b 1 "$H" "$TMPD/oc.model" > /dev/null 2> "$TMPD/oc.err"; rc=$?
check_eq "one-class -b 1: 3.24's refusal" "1 ERROR: one-class SVM probability output not supported yet" "$rc $(cat "$TMPD/oc.err")"
if [ -d "$OC" ]; then
    "$TRAIN" -s 2 -b 1 --one-class-prob "$OC/heart_scale" "$TMPD/oc.model" > "$TMPD/oc.out" 2> "$TMPD/oc.err" ||
        fail "--one-class-prob: exit status"
    mask_all "$TMPD/oc.out" > "$TMPD/oc.gm"; mask_all "$OC/train_oc_b1_v337.stdout" > "$TMPD/oc.lm"
    check_file_eq "--one-class-prob: lines (3.37's)" "$TMPD/oc.lm" "$TMPD/oc.gm"
    check_eq "--one-class-prob: no stderr" "" "$(cat "$TMPD/oc.err")"
    check_eq "--one-class-prob: model keys" "$(cut -d' ' -f1 "$OC/heart_oc_b1.model" | sed -n '1,/^SV$/p' | tr '\n' ' ')" \
        "$(cut -d' ' -f1 "$TMPD/oc.model" | sed -n '1,/^SV$/p' | tr '\n' ' ')"
    # the marks within 1e-5 relative of 3.37's (they are quantiles of decision values)
    d=$(awk 'FNR == 1 { f++ } $1 == "prob_density_marks" { for (i = 2; i <= NF; i++) v[f, i] = $i; n[f] = NF }
        END { if (n[1] != 11 || n[2] != 11) { print "count"; exit }
              for (i = 2; i <= 11; i++) { d = v[1, i] - v[2, i]; if (d < 0) d = -d; m = v[2, i] < 0 ? -v[2, i] : v[2, i]
                  if (d / m > w) w = d / m }
              printf "%g\n", w }' "$TMPD/oc.model" "$OC/heart_oc_b1.model")
    echo "dev one-class prob_density_marks $d" >> "$TMPD/deviations"
    if awk -v d="$d" 'BEGIN { exit !(d != "count" && d <= 1e-5) }'; then pass; else fail "--one-class-prob: marks differ by $d"; fi
    "$PREDICT" -b 1 "$OC/heart_scale" "$TMPD/oc.model" "$TMPD/oc.pred" > "$TMPD/oc.pout" 2>&1
    check_file_eq "--one-class-prob: gpusvm-predict -b 1 = svm-predict 3.37's output" "$OC/pred_oc_b1.out" "$TMPD/oc.pred"
    check_file_eq "--one-class-prob: gpusvm-predict -b 1 = svm-predict 3.37's lines" "$OC/predict_oc_b1_v337.stdout" "$TMPD/oc.pout"
    # fewer than 5 values on one side: 3.37's warning, no marks
    "$TRAIN" -s 2 -b 1 --one-class-prob "$GOLDEN/badinput/good.txt" "$TMPD/ocs.model" > /dev/null 2> "$TMPD/ocs.err"
    check_file_eq "--one-class-prob, 3 rows: 3.37's warning" "$OC/train_oc_b1_small_v337.stderr" "$TMPD/ocs.err"
    if grep -q prob_density_marks "$TMPD/ocs.model"; then fail "--one-class-prob, 3 rows: marks written"; else pass; fi
else
    skip "golden upstream337_oneclass_prob absent: --one-class-prob not compared"
fi

# ---- larger sets from ../shared/datasets -------------------------------------------------------
if [ -d "$DATASETS" ]; then
    zcat "$DATASETS/dna/dna.scale.gz" > "$TMPD/dna"; zcat "$DATASETS/dna/dna.scale.t.gz" > "$TMPD/dna.t"
    case_prob "dna" "$TMPD/dna" "$TMPD/dna.t" ab
    zcat "$DATASETS/glass/glass.scale.gz" > "$TMPD/glass"
    case_prob "glass (15 pairs)" "$TMPD/glass" "$TMPD/glass" p
    zcat "$DATASETS/abalone/abalone_scale.gz" | head -n 1500 > "$TMPD/abalone"
    case_prob "abalone epsilon-SVR (1,500 rows)" "$TMPD/abalone" "$TMPD/abalone" ab -s 3
else
    skip "../shared/datasets absent: dna, glass and abalone not compared"
fi
sed 's/^/# /' "$TMPD/deviations"
finish
