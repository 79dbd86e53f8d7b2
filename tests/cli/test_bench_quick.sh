#!/bin/sh
# tests/cli/test_bench_quick.sh — scripts/bench's output format: a tiny run (heart_scale, one
# repeat) must write the CSV and the markdown with the documented headers and one row, print the
# same markdown on stdout, and keep going when gpusvm cannot run (cells say "error"). With
# svm-train/svm-predict on PATH, the LIBSVM columns are checked too (heart_scale: 86.67%, 132 SVs).
# Checks the format only, not gpusvm's numbers (the other tests do that).
. "$(dirname "$0")/lib.sh"

BENCH=$TOP/scripts/bench
if ! command -v python3 >/dev/null 2>&1; then
    skip "python3 absent"
    finish; exit $?
fi
if [ ! -f "$TOP/data/heart_scale" ] && [ ! -f "$DATASETS/heart_scale/heart_scale.gz" ]; then
    skip "heart_scale absent"
    finish; exit $?
fi

CSV_HEADER='dataset,n,d,classes,test_rows,test_is_train,params,gpusvm_train_s,gpusvm_predict_s,ref_train_s,ref_predict_s,ref_mode,ref_rows,speedup_train,speedup_predict,gpusvm_accuracy,ref_accuracy,gpusvm_nsv,ref_nsv,gpusvm_obj,ref_obj,gpusvm_iter,ref_iter,gpusvm_status,ref_status,repeat,ref_repeat,gpusvm_train_runs_s,gpusvm_predict_runs_s,ref_train_runs_s,ref_predict_runs_s,gpusvm_mse,ref_mse,thundersvm_train_s,thundersvm_predict_s,thundersvm_mode,thundersvm_rows,speedup_vs_thundersvm_train,speedup_vs_thundersvm_predict,thundersvm_accuracy,thundersvm_mse,thundersvm_nsv,thundersvm_obj,thundersvm_status,thundersvm_train_runs_s,thundersvm_predict_runs_s,note,errors'
MD_HEADER='| dataset | n × d | classes | parameters | gpusvm train (s) | gpusvm predict (s) | LIBSVM train (s) | LIBSVM predict (s) | speed-up train | speed-up predict | accuracy gpusvm | accuracy LIBSVM | nSV gpusvm | nSV LIBSVM | obj gpusvm | obj LIBSVM |'
BD_HEADER='dataset,wall_s,read_s,cluster_s,setup_s,update_s,select_s,subproblem_s,transfer_s,rest_s,update_gbps,peak_gbps,update_pct_of_peak,train_after_ready_s,train_on_device_s,predict_ready_s,predict_after_ready_s,other_phases'

# check_format TAG CSV MD STDOUT: the common layout of one heart_scale run.
check_format() {
    check_eq "$1: csv header" "$CSV_HEADER" "$(head -n 1 "$2")"
    check_eq "$1: csv lines" 2 "$(wc -l < "$2" | tr -d ' ')"
    case "$(sed -n 2p "$2")" in
        heart_scale,270,13,2,270,1,*) pass ;;
        *) fail "$1: csv row: $(sed -n 2p "$2")" ;;
    esac
    if grep -qxF "$MD_HEADER" "$3"; then pass; else fail "$1: markdown header missing"; fi
    check_eq "$1: markdown rows" 1 "$(grep -c '^| heart_scale | 270 × 13 | 2 | C=1 γ=1/13 | ' "$3")"
    if cmp -s "$3" "$4"; then pass; else fail "$1: stdout differs from the markdown file"; fi
}

# 1. The real gpusvm (whatever state it is in), no reference, with the phase breakdown.
O=$TMPD/real
python3 "$BENCH" --gap 0 --quick --no-ref --datasets heart_scale --repeat 1 --breakdown --bin-dir "$B" \
    --csv "$O/b.csv" --out-md "$O/b.md" > "$O.stdout" 2> "$O.stderr"
check_eq "real: exit status" 0 "$?"
check_format real "$O/b.csv" "$O/b.md" "$O.stdout"
check_eq "real: breakdown header" "$BD_HEADER" "$(head -n 1 "$O/b.breakdown.csv" 2>/dev/null)"
case "$(sed -n 2p "$O/b.csv")" in
    *,ok,"not run",*|*,error,"not run",*) pass ;;
    *) fail "real: statuses: $(sed -n 2p "$O/b.csv")" ;;
esac

# 2. No gpusvm binaries at all: the run goes on, the row says error.
O=$TMPD/none
python3 "$BENCH" --gap 0 --quick --no-ref --datasets heart_scale --repeat 1 --bin-dir "$TMPD/nobin" \
    --csv "$O/b.csv" --out-md "$O/b.md" > "$O.stdout" 2> "$O.stderr"
check_eq "nobin: exit status" 0 "$?"
check_format nobin "$O/b.csv" "$O/b.md" "$O.stdout"
check_eq "nobin: error cells" 1 "$(grep -c '^| heart_scale | .* | error | error | — | — |' "$O/b.md")"

# 3. The reference columns, when LIBSVM is installed.
if command -v svm-train >/dev/null 2>&1 && command -v svm-predict >/dev/null 2>&1; then
    O=$TMPD/ref
    python3 "$BENCH" --gap 0 --quick --datasets heart_scale --bin-dir "$TMPD/nobin" \
        --csv "$O/b.csv" --out-md "$O/b.md" > "$O.stdout" 2> "$O.stderr"
    check_eq "ref: exit status" 0 "$?"
    check_format ref "$O/b.csv" "$O/b.md" "$O.stdout"
    check_eq "ref: LIBSVM cells" 1 \
        "$(grep -c '| 86.67% (train) | error | 132 | error | -100.877 |$' "$O/b.md")"
    case "$(sed -n 2p "$O/b.csv")" in
        *,full,270,*,86.6667,*,132,*,-100.8772*,error,ok,3,1,*) pass ;;
        *) fail "ref: csv row: $(sed -n 2p "$O/b.csv")" ;;
    esac
else
    skip "svm-train/svm-predict not on PATH: LIBSVM columns not checked"
fi
finish
