#!/bin/sh
# The host exact path (src/predict/predictor.c, gs_predictor_host_exact): regression and multiclass
# -b 1 with RBF and sigmoid models, where every row must print svm-predict's bits. The device
# computes exp's / tanh's arguments, the host finishes them: the output must equal svm-predict's
# byte for byte, with no row recomputed on the CPU (--verbose says how many were), in each SV
# layout (merge, tiled dense, row-wise) and with rows split over several passes.
. "$(dirname "$0")/lib.sh"
if ! command -v svm-train >/dev/null 2>&1; then skip "svm-train (libsvm-tools) not installed"; finish; exit; fi
require_bin "$PREDICT"
H=$TOP/data/heart_scale

case1() { # NAME DATA TEST PREDICT_FLAGS TRAIN_OPTIONS...
    name=$1; data=$2; test=$3; pf=$4; shift 4
    svm-train -q "$@" "$data" "$TMPD/m" > /dev/null 2>&1 || { fail "$name: svm-train failed"; return; }
    svm-predict $pf "$test" "$TMPD/m" "$TMPD/r.out" > "$TMPD/r.acc" 2>&1
    for lay in merge tile rows; do
        GS_PRED_LAYOUT=$lay "$PREDICT" --verbose $pf "$test" "$TMPD/m" "$TMPD/g.out" > "$TMPD/g.acc" 2> "$TMPD/g.err" ||
            { fail "$name ($lay): gpusvm-predict failed: $(tail -n 2 "$TMPD/g.err")"; continue; }
        check_file_eq "$name ($lay): output = svm-predict's" "$TMPD/r.out" "$TMPD/g.out"
        check_file_eq "$name ($lay): stdout = svm-predict's" "$TMPD/r.acc" "$TMPD/g.acc"
        check_eq "$name ($lay): rows recomputed on the CPU" 0 "$(sed -n 's/.*recomputed on the CPU \([0-9]*\);.*/\1/p' "$TMPD/g.err")"
        grep -q "device exact: yes" "$TMPD/g.err" && pass || fail "$name ($lay): the device path is not exact"
    done
}

case1 "heart eps-SVR RBF" "$H" "$H" "" -s 3 -p 0.05 -c 4
case1 "heart nu-SVR sigmoid" "$H" "$H" "" -s 4 -t 3 -g 0.05
case1 "heart eps-SVR RBF, unscaled-like gamma" "$H" "$H" "" -s 3 -g 2
DS=$TOP/../shared/datasets
if [ -d "$DS" ]; then
    # 4177 rows x ~4000 SVs: a CPU device's 16 MiB of arguments per pass hold ~500 rows, so the
    # rows take several passes, the device computing one while the host finishes the other
    gunzip -c "$DS/abalone/abalone_scale.gz" > "$TMPD/ab"
    case1 "abalone eps-SVR RBF, several passes" "$TMPD/ab" "$TMPD/ab" "" -s 3 -p 0.01 -c 8
    gunzip -c "$DS/glass/glass.scale.gz" > "$TMPD/glass"
    case1 "glass -b 1 RBF (6 classes)" "$TMPD/glass" "$TMPD/glass" "-b 1" -b 1 -c 10
    case1 "glass -b 1 sigmoid" "$TMPD/glass" "$TMPD/glass" "-b 1" -b 1 -t 3 -g 0.1
    gunzip -c "$DS/dna/dna.scale.gz" | head -n 1000 > "$TMPD/dna"
    gunzip -c "$DS/dna/dna.scale.t.gz" > "$TMPD/dna.t"
    case1 "dna -b 1 RBF, 1186 test rows" "$TMPD/dna" "$TMPD/dna.t" "-b 1" -b 1
else
    skip "../shared/datasets absent: abalone, glass and dna cases not run"
fi
finish
