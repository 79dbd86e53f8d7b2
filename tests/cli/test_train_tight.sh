#!/bin/sh
# Issue #21's strict fidelity bars with the stopping tolerance taken out: both trainers at -e 1e-6
# (svm-train's own stopping rule, applied by both) must reach the same optimum: obj and every rho
# within 1e-4 relative, nSV within 1% (one SV under 1000 rows), classification labels equal on
# >= 99.9% of rows (all but one under 1000), regression values within 1e-3 relative (of
# max(|v|, 1)) and the same MSE to 3 significant digits. At the default -e 1e-3 both answers are
# only eps-optimal and may differ by more (test_train_types.sh's bars; README says why).
# Left out, because the optimum is not one point there (README, "Where answers may differ"):
# C-SVC and nu-SVC with the sigmoid kernel (not positive semi-definite: each solver's path ends at
# its own stationary point); nu-SVC pairs whose r is tiny (printed C = 1/r of thousands: obj/r^2
# and rho/r magnify the tolerance by 1/r; heart linear at nu 0.3, glass), chosen away here; one-class
# rows whose LIBSVM decision value is within 1e-4 of 0 (free SVs sit on the boundary, where either
# label is right).
. "$(dirname "$0")/lib.sh"
if ! command -v svm-train >/dev/null 2>&1; then skip "svm-train (libsvm-tools) not installed"; finish; exit; fi
require_bin "$TRAIN"
E=1e-6

# within A B TOL: |A - B| <= TOL max(|B|, 1e-9)
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; if (m < 1e-9) m = 1e-9; exit !(d <= t * m) }'; }

tight() { # NAME DATA [options...]
    name=$1; data=$2; shift 2
    "$TRAIN" -e $E "$@" "$data" "$TMPD/g.model" > "$TMPD/g.out" 2> "$TMPD/g.err" || { fail "$name: gpusvm-train failed: $(cat "$TMPD/g.err")"; return; }
    svm-train -e $E "$@" "$data" "$TMPD/r.model" > "$TMPD/r.out" 2>/dev/null || { fail "$name: svm-train failed"; return; }
    objs() { sed -n 's/^obj = \([^,]*\),.*/\1/p' "$1"; }
    objs "$TMPD/g.out" > "$TMPD/g.obj"; objs "$TMPD/r.out" > "$TMPD/r.obj"
    bad=$(paste -d' ' "$TMPD/g.obj" "$TMPD/r.obj" | awk '{ d = $1 - $2; if (d < 0) d = -d; m = $2 < 0 ? -$2 : $2; if (d > 1e-4 * m + 1e-9) n++ } END { print n + 0 }')
    check_eq "$name: objectives beyond 1e-4 of LIBSVM's ($(paste -d/ "$TMPD/g.obj" "$TMPD/r.obj" | head -3 | tr '\n' ' '))" 0 "$bad"
    rhos() { sed -n 's/^rho //p' "$1" | tr ' ' '\n' | sed '/^$/d'; }
    rhos "$TMPD/g.model" > "$TMPD/g.rho"; rhos "$TMPD/r.model" > "$TMPD/r.rho"
    check_eq "$name: rho count" "$(wc -l < "$TMPD/r.rho")" "$(wc -l < "$TMPD/g.rho")"
    bad=$(paste -d' ' "$TMPD/g.rho" "$TMPD/r.rho" | awk '{ d = $1 - $2; if (d < 0) d = -d; m = $2 < 0 ? -$2 : $2; if (d > 1e-4 * m + 1e-9) n++ } END { print n + 0 }')
    check_eq "$name: rho beyond 1e-4 of LIBSVM's ($(paste -d/ "$TMPD/g.rho" "$TMPD/r.rho" | head -2 | tr '\n' ' '))" 0 "$bad"
    gn=$(sed -n 's/^total_sv //p' "$TMPD/g.model"); rn=$(sed -n 's/^total_sv //p' "$TMPD/r.model")
    if awk -v a="$gn" -v b="$rn" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01 * b || d <= 1) }'; then pass; else fail "$name: nSV $gn vs LIBSVM $rn"; fi
    svm-predict "$data" "$TMPD/g.model" "$TMPD/g.pred" > "$TMPD/g.acc" || { fail "$name: svm-predict rejects gpusvm's model"; return; }
    svm-predict "$data" "$TMPD/r.model" "$TMPD/r.pred" > "$TMPD/r.acc"
    rows=$(wc -l < "$TMPD/r.pred")
    case " $* " in
    *" -s 3 "* | *" -s 4 "*)
        far=$(paste -d' ' "$TMPD/g.pred" "$TMPD/r.pred" | awk '{ d = $1 - $2; if (d < 0) d = -d; m = $2 < 0 ? -$2 : $2; if (m < 1) m = 1; if (d > 1e-3 * m) n++ } END { print n + 0 }')
        check_eq "$name: predictions beyond 1e-3 of LIBSVM's model's" 0 "$far"
        gm=$(sed -n 's/^Mean squared error = \([^ ]*\).*/\1/p' "$TMPD/g.acc"); rm_=$(sed -n 's/^Mean squared error = \([^ ]*\).*/\1/p' "$TMPD/r.acc")
        check_eq "$name: MSE to 3 significant digits" "$(printf '%.3g' "$rm_")" "$(printf '%.3g' "$gm")" ;;
    *" -s 2 "*)
        if [ -z "$PY3" ]; then skip "$name: labels not compared (python3-libsvm absent)"; return; fi
        diffs=$(oneclass_flips "$data" "$TMPD/r.model" "$TMPD/g.pred" "$TMPD/r.pred" 1e-4)
        check_eq "$name: labels that differ from LIBSVM's model's off its boundary" 0 "$diffs" ;;
    *)
        diffs=$(paste -d' ' "$TMPD/g.pred" "$TMPD/r.pred" | awk '$1 != $2' | wc -l)
        if [ "$rows" -lt 1000 ]; then ok=$([ "$diffs" -le 1 ] && echo 1 || echo 0); else ok=$(awk -v d="$diffs" -v n="$rows" 'BEGIN { print (d <= 0.001 * n) ? 1 : 0 }'); fi
        if [ "$ok" = 1 ]; then pass; else fail "$name: $diffs of $rows labels differ from LIBSVM's model"; fi ;;
    esac
}

H=$TOP/data/heart_scale
for k in "-t 0" "-t 1 -d 2 -r 1 -g 0.125" "-t 2" "-t 3 -g 0.05"; do
    case "$k" in *"-t 3"*) ;; *)
        tight "heart C-SVC -c 10 $k" "$H" -s 0 -c 10 $k
        tight "heart nu-SVC $k" "$H" -s 1 -n 0.5 $k ;;
    esac
    tight "heart one-class $k" "$H" -s 2 -n 0.2 $k
    tight "heart eps-SVR $k" "$H" -s 3 -p 0.1 $k
    tight "heart nu-SVR $k" "$H" -s 4 -n 0.4 $k
done
DS=$TOP/../shared/datasets
if [ -d "$DS" ]; then
    gunzip -c "$DS/abalone/abalone_scale.gz" | head -n 2000 > "$TMPD/abalone"
    tight "abalone eps-SVR -p 0.05 -c 4" "$TMPD/abalone" -s 3 -p 0.05 -c 4
    tight "abalone nu-SVR -n 0.5" "$TMPD/abalone" -s 4 -n 0.5
    gunzip -c "$DS/dna/dna.scale.gz" | head -n 600 > "$TMPD/dna"
    tight "dna 600 nu-SVC -n 0.2" "$TMPD/dna" -s 1 -n 0.2
    gunzip -c "$DS/glass/glass.scale.gz" > "$TMPD/glass"
    tight "glass C-SVC -c 100" "$TMPD/glass" -s 0 -c 100
else
    skip "../shared/datasets absent: abalone, dna and glass cases not run"
fi
finish
