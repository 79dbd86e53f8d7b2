#!/bin/sh
# One-class (-s 2) and epsilon-SVR (-s 3) against real LIBSVM (Debian svm-train / svm-predict as the
# oracle): objective within 1e-4 relative, nSV within 1% (one SV on sets under 1000 rows), the same
# result lines in the same order, svm-predict reading gpusvm's model, gpusvm-predict's output equal to
# svm-predict's on it byte for byte, and predictions close to those of LIBSVM's model: one-class labels
# equal off the boundary (rows whose LIBSVM decision value is within 2 eps of 0 may flip: free SVs
# sit there), nu-SVC labels on >= 99.9% of rows (all but one under 1000), regression values within
# 2e-3 relative (of max(|v|, 1): both solutions are eps-optimal, so rho and the coefficients may
# differ by about eps; nu-SVR 1e-2) and the MSE within 1e-3 relative (nu-SVR 1e-2). nu-SVC's obj is
# compared as obj / C^2, the solver's own objective (the printed one is scaled by 1/r^2).
. "$(dirname "$0")/lib.sh"
if ! command -v svm-train >/dev/null 2>&1; then skip "svm-train (libsvm-tools) not installed"; finish; exit; fi
require_bin "$TRAIN"

# compare NAME DATA TEST [options...]
compare() {
    name=$1; data=$2; test=$3; shift 3
    "$TRAIN" "$@" "$data" "$TMPD/g.model" > "$TMPD/g.out" 2> "$TMPD/g.err" || { fail "$name: gpusvm-train failed: $(cat "$TMPD/g.err")"; return; }
    svm-train "$@" "$data" "$TMPD/r.model" > "$TMPD/r.out" 2>/dev/null || { fail "$name: svm-train failed"; return; }
    [ -s "$TMPD/g.err" ] && fail "$name: unexpected stderr: $(head -c 300 "$TMPD/g.err")"
    # the first solve's objective; nu-SVC prints it scaled by 1/r^2 = C^2, which magnifies the
    # stopping tolerance's room, so the solver's own objective obj / C^2 is compared there
    obj_of() { awk '/^C = / && !c { c = $3 } /^obj = / && o == "" { o = $3; sub(/,$/, "", o) } END { print (c != "" ? o / (c * c) : o) }' "$1"; }
    go=$(obj_of "$TMPD/g.out"); ro=$(obj_of "$TMPD/r.out")
    nsv_of() { t=$(sed -n 's/^Total nSV = //p' "$1"); [ -n "$t" ] && echo "$t" || sed -n 's/^nSV = \([0-9]*\),.*/\1/p' "$1"; }
    gn=$(nsv_of "$TMPD/g.out"); rn=$(nsv_of "$TMPD/r.out")
    if [ -n "${LOOSE:-}" ]; then ro=$go; rn=$gn; fi # degenerate: the model is LIBSVM's only up to eps
    if awk -v a="$go" -v b="$ro" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= 1e-4 * m + 1e-6) }'; then pass; else fail "$name: obj $go vs LIBSVM $ro"; fi
    if awk -v a="$gn" -v b="$rn" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01 * b || d <= 1) }'; then pass; else fail "$name: nSV $gn vs LIBSVM $rn"; fi
    shape() { grep -E '^(optimization finished|nu =|C =|epsilon =|obj =|nSV =|Total nSV)' "$1" | sed 's/[-0-9.]\{1,\}/N/g'; }
    check_eq "$name: stdout lines" "$(shape "$TMPD/r.out")" "$(shape "$TMPD/g.out")"
    svm-predict "$test" "$TMPD/g.model" "$TMPD/g.pred" > "$TMPD/g.acc" || { fail "$name: svm-predict rejects gpusvm's model"; return; }
    svm-predict "$test" "$TMPD/r.model" "$TMPD/r.pred" > "$TMPD/r.acc"
    "$PREDICT" "$test" "$TMPD/g.model" "$TMPD/gg.pred" > "$TMPD/gg.acc"
    check_file_eq "$name: gpusvm-predict = svm-predict (output)" "$TMPD/g.pred" "$TMPD/gg.pred"
    check_file_eq "$name: gpusvm-predict = svm-predict (stdout)" "$TMPD/g.acc" "$TMPD/gg.acc"
    [ -n "${LOOSE:-}" ] && return
    rows=$(wc -l < "$TMPD/r.pred")
    case " $* " in
    *" -s 1 "*)
        diffs=$(paste -d' ' "$TMPD/g.pred" "$TMPD/r.pred" | awk '$1 != $2' | wc -l)
        if [ "$rows" -lt 1000 ]; then ok=$([ "$diffs" -le 1 ] && echo 1 || echo 0); else ok=$(awk -v d="$diffs" -v n="$rows" 'BEGIN { print (d <= 0.001 * n) ? 1 : 0 }'); fi
        if [ "$ok" = 1 ]; then pass; else fail "$name: $diffs of $rows labels differ from LIBSVM's model"; fi ;;
    *" -s 2 "*)
        # free SVs sit on the boundary (decision value 0 within eps), where either label is right:
        # a row may flip only where LIBSVM's decision value is within 2 eps (relative to rho) of 0
        if [ -z "$PY3" ]; then skip "$name: labels not compared (python3-libsvm absent)"; return; fi
        diffs=$(oneclass_flips "$test" "$TMPD/r.model" "$TMPD/g.pred" "$TMPD/r.pred" 2e-3)
        check_eq "$name: labels that differ from LIBSVM's model's off its boundary" 0 "$diffs" ;;
    *)
        # nu-SVR's rho is the mean of two signs' free gradients, often few: it moves more (1e-2)
        tol=2e-3; mtol=1e-3; case " $* " in *" -s 4 "*) tol=1e-2; mtol=1e-2 ;; esac
        far=$(paste -d' ' "$TMPD/g.pred" "$TMPD/r.pred" | awk -v tol="$tol" '{ d = $1 - $2; if (d < 0) d = -d; m = $2 < 0 ? -$2 : $2; if (m < 1) m = 1; if (d > tol * m) n++ } END { print n + 0 }')
        check_eq "$name: predictions beyond $tol of LIBSVM's model's" 0 "$far"
        gm=$(sed -n 's/^Mean squared error = \([^ ]*\).*/\1/p' "$TMPD/g.acc"); rm_=$(sed -n 's/^Mean squared error = \([^ ]*\).*/\1/p' "$TMPD/r.acc")
        if awk -v a="$gm" -v b="$rm_" -v t="$mtol" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t * b) }'; then pass; else fail "$name: MSE $gm vs LIBSVM $rm_"; fi ;;
    esac
}

H=$TOP/data/heart_scale
for k in "-t 0" "-t 1 -d 2 -r 1 -g 0.125" "-t 2" "-t 3 -g 0.05"; do
    compare "heart one-class $k" "$H" "$H" -s 2 $k
    compare "heart eps-SVR $k" "$H" "$H" -s 3 $k
done
for k in "-t 0" "-t 1 -d 2 -r 1 -g 0.125" "-t 2" "-t 3 -g 0.05"; do
    compare "heart nu-SVC $k" "$H" "$H" -s 1 $k
    compare "heart nu-SVR $k" "$H" "$H" -s 4 $k
done
compare "heart nu-SVC -n 0.2" "$H" "$H" -s 1 -n 0.2
compare "heart nu-SVR -n 0.2 -c 10" "$H" "$H" -s 4 -n 0.2 -c 10
compare "heart one-class -n 0.1" "$H" "$H" -s 2 -n 0.1
compare "heart one-class -n 1" "$H" "$H" -s 2 -n 1
compare "heart eps-SVR -p 0.5 -c 10" "$H" "$H" -s 3 -p 0.5 -c 10
compare "heart eps-SVR -p 0" "$H" "$H" -s 3 -p 0 -c 0.5
# one-class on a binary set's positive class
grep '^+1' "$H" > "$TMPD/hpos"
compare "heart +1 one-class" "$TMPD/hpos" "$H" -s 2 -n 0.2 -g 0.5
if [ -d "$GOLDEN/diabetes" ]; then
    compare "diabetes eps-SVR -c 100 -p 0.05" "$GOLDEN/diabetes/diabetes_xy.scale" "$GOLDEN/diabetes/diabetes_xy.scale" -s 3 -c 100 -p 0.05
    compare "diabetes eps-SVR linear" "$GOLDEN/diabetes/diabetes_xy.scale" "$GOLDEN/diabetes/diabetes_xy.scale" -s 3 -t 0 -c 10
    # unscaled: feature values around 0.1, targets 25..346
    compare "diabetes unscaled eps-SVR" "$GOLDEN/diabetes/diabetes.libsvm" "$GOLDEN/diabetes/diabetes.libsvm" -s 3
    compare "diabetes nu-SVR -c 10 -n 0.3" "$GOLDEN/diabetes/diabetes_xy.scale" "$GOLDEN/diabetes/diabetes_xy.scale" -s 4 -c 10 -n 0.3
    compare "iris nu-SVC" "$GOLDEN/iris/iris_train.libsvm" "$GOLDEN/iris/iris_test.libsvm" -s 1
else
    skip "../shared/reference/golden absent: diabetes comparisons not run"
fi
if [ -d "$DATASETS" ]; then
    zcat "$DATASETS/abalone/abalone_scale.gz" > "$TMPD/ab"
    compare "abalone eps-SVR -p 0.5" "$TMPD/ab" "$TMPD/ab" -s 3 -p 0.5
    compare "abalone one-class -n 0.3" "$TMPD/ab" "$TMPD/ab" -s 2 -n 0.3
    compare "abalone nu-SVR -n 0.4" "$TMPD/ab" "$TMPD/ab" -s 4 -n 0.4
    zcat "$DATASETS/glass/glass.scale.gz" > "$TMPD/glass"
    # glass is feasible only for nu <= 0.21, where its first pairs are almost separable: r falls
    # below eps (C = 1/r ~ 2e3 to 5e4), so LIBSVM's model and any other eps-optimal one differ widely
    # (README): only the lines, the model's format and the predictions' agreement are checked
    LOOSE=1 compare "glass nu-SVC -n 0.2 (15 pairs, degenerate)" "$TMPD/glass" "$TMPD/glass" -s 1 -n 0.2
    zcat "$DATASETS/dna/dna.scale.gz" > "$TMPD/dna"; zcat "$DATASETS/dna/dna.scale.t.gz" > "$TMPD/dna.t"
    compare "dna nu-SVC" "$TMPD/dna" "$TMPD/dna.t" -s 1
    zcat "$DATASETS/satimage/satimage.scale.gz" > "$TMPD/sat"; zcat "$DATASETS/satimage/satimage.scale.t.gz" > "$TMPD/sat.t"
    compare "satimage nu-SVC -n 0.3" "$TMPD/sat" "$TMPD/sat.t" -s 1 -n 0.3
else
    skip "../shared/datasets absent: abalone comparisons not run"
fi
# LIBSVM's own refusals, word for word: one-class -b 1, an infeasible nu
if true; then
    printf '1 1:1\n1 1:2\n1 1:3\n-1 1:4\n' > "$TMPD/skew"
    "$TRAIN" -s 1 -n 0.9 "$TMPD/skew" "$TMPD/no.model" > /dev/null 2> "$TMPD/no.err"; rc=$?
    svm-train -s 1 -n 0.9 "$TMPD/skew" "$TMPD/no2.model" > /dev/null 2> "$TMPD/no2.err"
    check_eq "infeasible nu exit" 1 "$rc"
    check_file_eq "infeasible nu message" "$TMPD/no2.err" "$TMPD/no.err"
fi
# nu-SVC whose sigmoid kernel is 1.0 for every pair (tanh of ~1e4): every gradient is 0, r = 0, and
# LIBSVM prints C = inf, obj = -nan, rho = -nan and writes rho -nan. gpusvm-train writes the same
# lines and model, and says on stderr that rho is not a number (gpusvm-predict refuses the model)
awk 'BEGIN { for (i = 0; i < 20; i++) printf "%d 1:%d 2:%d\n", i % 2 ? 1 : -1, 100 + i, 50 + 3 * i }' > "$TMPD/sat"
"$TRAIN" -s 1 -t 3 -g 0.5 -n 0.5 "$TMPD/sat" "$TMPD/sat.g" > "$TMPD/sat.out" 2> "$TMPD/sat.err"; rc=$?
svm-train -s 1 -t 3 -g 0.5 -n 0.5 "$TMPD/sat" "$TMPD/sat.r" > "$TMPD/sat.rout"
check_eq "degenerate nu-SVC: exit, lines" "0 $(grep -v '^\.*\*\{0,1\}$' "$TMPD/sat.rout" | grep -v '^optimization')" \
    "$rc $(grep -v '^\.*\*\{0,1\}$' "$TMPD/sat.out" | grep -v '^optimization')"
check_file_eq "degenerate nu-SVC: model" "$TMPD/sat.r" "$TMPD/sat.g"
check_eq "degenerate nu-SVC: the warning" 1 "$(grep -c "^WARNING: nu-SVC's r is 0 (every gradient 0), so rho is nan" "$TMPD/sat.err")"
# nearly separable nu-SVC whose r ends below 0 (C = 1/r < 0; svm-train's too, on heart_scale at
# nu 0.02-0.12 with a linear kernel): LIBSVM's coefficients y alpha / r then have the other sign;
# every alpha > 0 is an SV (the model held none before), and nBSV counts |alpha / r| >= 1/r: all
LOOSE=1 compare "nu-SVC r < 0" "$H" "$H" -s 1 -t 0 -n 0.05
for f in g r; do
    c=$(sed -n 's/^C = //p' "$TMPD/$f.out"); n=$(sed -n 's/^nSV = \([0-9]*\), nBSV = \([0-9]*\)/\1 \2/p' "$TMPD/$f.out")
    check_eq "nu-SVC r < 0 ($f): C < 0, nSV = nBSV = total_sv > 0" "1 ${n%% *} $(sed -n 's/^total_sv //p' "$TMPD/$f.model")" \
        "$(awk -v c="$c" 'BEGIN { print (c < 0) }') ${n#* } $(awk -v n="${n%% *}" 'BEGIN { print (n > 0 ? n : "none") }')"
done
"$TRAIN" -s 2 -b 1 "$H" "$TMPD/no.model" > /dev/null 2> "$TMPD/no.err"; rc=$?
svm-train -s 2 -b 1 "$H" "$TMPD/no2.model" > /dev/null 2> "$TMPD/no2.err"
check_eq "-s 2 -b 1 exit" 1 "$rc"
check_file_eq "-s 2 -b 1 message" "$TMPD/no2.err" "$TMPD/no.err"
finish
