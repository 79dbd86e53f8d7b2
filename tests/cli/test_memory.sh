#!/bin/sh
# test_memory.sh — memory grows with the data, not with row width or the number of problems:
# gpusvm-train's peak RSS on a few small shapes against svm-train's, and --device-memory too small
# for the data stops before any work with the bytes needed and available, exit 1, no model file.
# Rule: PoCL alone costs tens of MB (its runtime and the compiled kernels), measured here as
# gpusvm-train's peak on heart_scale (base); a shape passes when its peak <= base + 3 x svm-train's.
. "$(dirname "$0")/lib.sh"
require_bin "$TRAIN"
TIME=/usr/bin/time
if [ ! -x "$TIME" ] || ! command -v svm-train >/dev/null 2>&1; then
    skip "needs /usr/bin/time and svm-train"; finish; exit $?
fi
# peak_kb CMD...: the command's peak RSS in kB (its output discarded)
peak_kb() { "$TIME" -f %M -o "$TMPD/rss" "$@" >/dev/null 2>&1; tail -n 1 "$TMPD/rss"; }
zcat "$DATASETS/heart_scale/heart_scale.gz" > "$TMPD/heart" 2>/dev/null || cp "$TOP/data/heart_scale" "$TMPD/heart"
base=$(peak_kb "$TRAIN" -q "$TMPD/heart" "$TMPD/m")
# shapes: a 20-class wide sparse set (every 8th row of news20.t, 500 rows: 190 one-vs-one problems
# over 62060 columns; 1.7 GB before; the whole set takes over a minute on PoCL), a two-class sparse
# set, a two-class dense-ish one, and two rows of 1M nonzeros each (5.1 GB before; LIBSVM: 47 MB)
if [ -f "$DATASETS/news20/news20.t.gz" ]; then zcat "$DATASETS/news20/news20.t.gz" | awk 'NR % 8 == 1' > "$TMPD/news20"; fi
awk 'BEGIN { for (r = 0; r < 2; r++) { printf "%d", r ? -1 : 1; for (j = 1; j <= 1000000; j++) printf " %d:%g", j, ((j * 7919 + r * 104729) % 1000) / 1000; printf "\n" } }' > "$TMPD/wide2"
if [ -f "$DATASETS/a9a/a9a.gz" ]; then zcat "$DATASETS/a9a/a9a.gz" | head -n 3000 > "$TMPD/a9a"; fi
if [ -f "$DATASETS/mushrooms/mushrooms.gz" ]; then zcat "$DATASETS/mushrooms/mushrooms.gz" | head -n 3000 > "$TMPD/mushrooms"; fi
# a sanitizer build's RSS holds its shadow memory and quarantine: the bounds are for plain builds
sanitized=no
if ldd "$TRAIN" 2>/dev/null | grep -q 'libasan\|libtsan'; then sanitized=yes; skip "peak RSS bounds: $TRAIN is built with a sanitizer"; fi
for d in news20 a9a mushrooms wide2; do
    [ "$sanitized" = no ] || break
    [ -s "$TMPD/$d" ] || { skip "$d absent"; continue; }
    # a first run builds the shape's program variant: PoCL's compiler (hundreds of MB the first
    # time only) is not the training's memory, so the second run is measured
    "$TRAIN" -q "$TMPD/$d" "$TMPD/$d.m" > /dev/null 2>&1
    check_eq "$d trains" 0 $?
    ours=$(peak_kb "$TRAIN" -q "$TMPD/$d" "$TMPD/$d.m")
    theirs=$(peak_kb svm-train -q "$TMPD/$d" "$TMPD/$d.lm")
    bound=$((base + 3 * theirs))
    if [ "$ours" -le "$bound" ]; then pass; else
        fail "$d: peak RSS ${ours} kB > ${bound} kB (PoCL base ${base} kB + 3 x svm-train's ${theirs} kB)"; fi
    [ "$d" = wide2 ] && check_file_eq "wide2 model (LIBSVM's)" "$TMPD/wide2.lm" "$TMPD/wide2.m"
done
# predict_within NAME DATA MODEL BASE BASE_NAME: gpusvm-predict's peak RSS at most BASE + 3 x
# svm-predict's, and svm-predict's output
predict_within() {
    ours=$(peak_kb "$PREDICT" "$2" "$3" "$TMPD/$1.out")
    theirs=$(peak_kb svm-predict "$2" "$3" "$TMPD/$1.lout")
    bound=$(($4 + 3 * theirs))
    if [ "$ours" -le "$bound" ]; then pass; else
        fail "predict $1: peak RSS ${ours} kB > ${bound} kB ($5 ${4} kB + 3 x svm-predict's ${theirs} kB)"; fi
    check_file_eq "predict $1 output (svm-predict's)" "$TMPD/$1.lout" "$TMPD/$1.out"
}
# predicting the two wide rows with their model (2.2 GB before its SVs were kept as runs)
if [ "$sanitized" = no ] && [ -x "$PREDICT" ] && [ -s "$TMPD/wide2.m" ] && command -v svm-predict >/dev/null 2>&1; then
    predict_within wide2 "$TMPD/wide2" "$TMPD/wide2.m" "$base" "PoCL base"
fi
# predicting all of news20.t with the 500-row model: 190 decision values a row (133 MB before a
# chunk's decision values and bounds were held to 1 MiB; svm-predict: 4 MB). Its base is
# gpusvm-predict's own on heart_scale.
if [ "$sanitized" = no ] && [ -x "$PREDICT" ] && [ -s "$TMPD/news20.m" ] && command -v svm-predict >/dev/null 2>&1; then
    zcat "$DATASETS/news20/news20.t.gz" > "$TMPD/news20.all"
    "$PREDICT" "$TMPD/heart" "$TMPD/m" "$TMPD/heart.out" > /dev/null 2>&1
    pbase=$(peak_kb "$PREDICT" "$TMPD/heart" "$TMPD/m" "$TMPD/heart.out")
    "$PREDICT" "$TMPD/news20.all" "$TMPD/news20.m" "$TMPD/news20.t.out" > /dev/null 2>&1
    predict_within news20.t "$TMPD/news20.all" "$TMPD/news20.m" "$pbase" "gpusvm-predict's base"
fi
# --device-memory too small: the clear message, exit 1, no model file
rm -f "$TMPD/small.m"
"$TRAIN" --device-memory 1 "$TMPD/heart" "$TMPD/small.m" > "$TMPD/out" 2> "$TMPD/err"
check_eq "--device-memory 1 exit status" 1 $?
check_eq "--device-memory 1 writes no model" no "$([ -e "$TMPD/small.m" ] && echo yes || echo no)"
if grep -q "^not enough device memory: training needs [0-9]* bytes .*; 1048576 bytes of device memory available (--device-memory 1)" "$TMPD/err"; then
    pass; else fail "--device-memory 1 message: $(cat "$TMPD/err")"; fi
if grep -q "CL_" "$TMPD/err"; then fail "raw OpenCL error: $(cat "$TMPD/err")"; else pass; fi
# enough memory: the same model as without the cap
"$TRAIN" -q --device-memory 64 "$TMPD/heart" "$TMPD/cap.m" && "$TRAIN" -q "$TMPD/heart" "$TMPD/nocap.m"
check_file_eq "--device-memory 64 model" "$TMPD/nocap.m" "$TMPD/cap.m"
# gpusvm-predict takes the option too
if [ -x "$PREDICT" ]; then
    "$PREDICT" --device-memory 64 "$TMPD/heart" "$TMPD/nocap.m" "$TMPD/p.out" > /dev/null
    check_eq "predict --device-memory 64 exit status" 0 $?
fi
# a bad value is refused like LIBSVM's parameter errors
"$TRAIN" --device-memory -1 "$TMPD/heart" "$TMPD/neg.m" > /dev/null 2> "$TMPD/err"
check_eq "--device-memory -1 exit status" 1 $?
finish
