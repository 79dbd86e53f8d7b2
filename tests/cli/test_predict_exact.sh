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

# Integer data: squared distances read as 16-bit codes where every value is a small integer and
# 2 (|sv|^2 + |x|^2) <= 65535 (predictor.c's codes), in double otherwise and with
# GS_PRED_LAYOUT=args; svm-predict's bytes every way. WANT: yes if the chunk must use codes.
case_codes() { # NAME DATA TEST PREDICT_FLAGS WANT TRAIN_OPTIONS...
    name=$1; data=$2; test=$3; pf=$4; want=$5; shift 5
    svm-train -q "$@" "$data" "$TMPD/m" > /dev/null 2>&1 || { fail "$name: svm-train failed"; return; }
    svm-predict $pf "$test" "$TMPD/m" "$TMPD/r.out" > "$TMPD/r.acc" 2>&1
    for lay in auto args; do
        GS_PRED_LAYOUT=$lay "$PREDICT" --verbose $pf "$test" "$TMPD/m" "$TMPD/g.out" > "$TMPD/g.acc" 2> "$TMPD/g.err" ||
            { fail "$name ($lay): gpusvm-predict failed: $(tail -n 2 "$TMPD/g.err")"; continue; }
        check_file_eq "$name ($lay): output = svm-predict's" "$TMPD/r.out" "$TMPD/g.out"
        check_file_eq "$name ($lay): stdout = svm-predict's" "$TMPD/r.acc" "$TMPD/g.acc"
        coded=$(sed -n 's/.*16-bit distances in \([0-9]*\) of.*/\1/p' "$TMPD/g.err")
        if [ "$lay" = auto ] && [ "$want" = yes ]; then
            [ "${coded:-0}" -gt 0 ] && pass || fail "$name: no chunk read 16-bit distances"
        else
            check_eq "$name ($lay): chunks with 16-bit distances" 0 "${coded:-none}"
        fi
    done
}
awk 'BEGIN { srand(7); for (r = 0; r < 300; r++) { y = r % 3 + 1; s = y;
     for (c = 1; c <= 12; c++) if (rand() < 0.5) s = s " " c ":" (int(rand() * 7) - 3 + (c == y) * 2);
     print s } }' > "$TMPD/int"
case_codes "small integers, eps-SVR" "$TMPD/int" "$TMPD/int" "" yes -s 3 -g 0.1
case_codes "small integers, 3 classes -b 1" "$TMPD/int" "$TMPD/int" "-b 1" yes -b 1 -g 0.1
# ~1900 SVs: a CPU device's pass holds ~270 rows, so the 6000 test rows take 23 passes of codes
awk 'BEGIN { srand(9); for (r = 0; r < 8000; r++) { s = ""; t = 0;
     for (c = 1; c <= 40; c++) if (rand() < 0.3) { v = int(rand() * 3); s = s " " c ":" v; t += v * (c % 5) }
     print t + int(rand() * 4) s } }' > "$TMPD/ints"
head -n 2000 "$TMPD/ints" > "$TMPD/ints.tr"
tail -n 6000 "$TMPD/ints" > "$TMPD/ints.te"
case_codes "small integers, eps-SVR, several passes" "$TMPD/ints.tr" "$TMPD/ints.te" "" yes -s 3 -g 0.05 -c 4
awk '{ s = $1; for (i = 2; i <= NF; i++) { split($i, kv, ":"); s = s " " kv[1] ":" kv[2] * 40 } print s }' \
    "$TMPD/int" > "$TMPD/big"
case_codes "integers too large for 16 bits" "$TMPD/big" "$TMPD/big" "" no -s 3 -g 0.0001
case_codes "heart (not integers)" "$H" "$H" "" no -s 3
case1 "heart eps-SVR RBF" "$H" "$H" "" -s 3 -p 0.05 -c 4
case1 "heart nu-SVR sigmoid" "$H" "$H" "" -s 4 -t 3 -g 0.05
case1 "heart eps-SVR RBF, unscaled-like gamma" "$H" "$H" "" -s 3 -g 2
# Labels from pair sums in segments (pred_part, pred_fin): a two-class RBF model of ~7400 SVs, whose
# passes on a CPU device hold ~70 rows, so pred_sum's one-row-per-work-item sums would leave the
# device idle; any order is within the decision values' error bound, so the labels stay
# svm-predict's (rows the bound cannot settle are redone on the CPU)
awk 'BEGIN { srand(11); for (r = 0; r < 11000; r++) { s = ""; t = 0;
     for (c = 1; c <= 10; c++) { v = rand() * 2 - 1; s = s " " c ":" sprintf("%.4f", v); t += v * (c % 3 - 1) }
     print (t + 2 * rand() - 1 > 0 ? 1 : -1) s } }' > "$TMPD/seg"
head -n 9000 "$TMPD/seg" > "$TMPD/seg.tr"
tail -n 2000 "$TMPD/seg" > "$TMPD/seg.te"
if svm-train -q -c 0.01 -g 0.5 "$TMPD/seg.tr" "$TMPD/segm" > /dev/null 2>&1; then
    svm-predict "$TMPD/seg.te" "$TMPD/segm" "$TMPD/r.out" > "$TMPD/r.acc" 2>&1
    "$PREDICT" --verbose "$TMPD/seg.te" "$TMPD/segm" "$TMPD/g.out" > "$TMPD/g.acc" 2> "$TMPD/g.err" ||
        fail "segmented sums: gpusvm-predict failed: $(tail -n 2 "$TMPD/g.err")"
    check_file_eq "segmented sums: labels = svm-predict's" "$TMPD/r.out" "$TMPD/g.out"
    check_file_eq "segmented sums: stdout = svm-predict's" "$TMPD/r.acc" "$TMPD/g.acc"
    nseg=$(sed -n 's/.*pair sums in \([0-9]*\) segments.*/\1/p' "$TMPD/g.err")
    [ "${nseg:-0}" -ge 2 ] && pass || fail "segmented sums: pair sums in ${nseg:-?} segments ($(grep -c SV "$TMPD/segm") lines)"
else
    fail "segmented sums: svm-train failed"
fi
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
