#!/bin/sh
# test_kernel_cache.sh — the kernel cache through the commands (src/device/kcache.h): the first
# run stores the programs it builds, the second loads them (seen in --verbose's "kernel cache"
# line), and the models and predictions are byte-identical with and without the cache; an entry
# with a flipped binary byte, a truncated one and one with a wrong header are each refused,
# rebuilt and overwritten, with the same model; a folder that cannot be created is skipped
# silently (nothing on stderr without --verbose, exit 0); --no-kernel-cache and
# GPUSVM_KERNEL_CACHE=0 turn it off; two trainings filling one empty folder at once both succeed
# and leave complete entries only; -b 1 builds its programs once and reuses them for its internal folds; XDG_CACHE_HOME gives the default folder (GPUs; CPU devices
# leave it to their driver's cache, and the test checks that instead).
# PoCL's own cache is pinned where it was, so that moving XDG_CACHE_HOME does not empty it.
. "$(dirname "$0")/lib.sh"

require_bin "$TRAIN"
require_bin "$PREDICT"
H=$TOP/data/heart_scale
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl/kcache}"
KC=$TMPD/kc
unset GPUSVM_KERNEL_CACHE

# train NAME [env assignments...] -- [options...]: trains heart_scale into $TMPD/NAME.model,
# stderr (--verbose) into $TMPD/NAME.err; the exit code into $TMPD/NAME.rc
train() {
    name=$1; shift
    env "$@" "$TRAIN" --verbose "$H" "$TMPD/$name.model" > "$TMPD/$name.out" 2> "$TMPD/$name.err"
    echo $? > "$TMPD/$name.rc"
}
cache_line() { grep 'kernel cache' "$TMPD/$1.err" | sed 's/^gpusvm: //'; }
# counts NAME: "loaded stored refused" from the kernel cache line
counts() { cache_line "$1" | sed -n 's/.*: \([0-9]*\) loaded, \([0-9]*\) built and stored, \([0-9]*\) refused.*/\1 \2 \3/p'; }
entries() { ls "$KC" 2>/dev/null | grep -c '\.bin$'; }
temporaries() { ls "$KC" 2>/dev/null | grep -c 'tmp'; }

# 1. off: the reference model
train off GPUSVM_KERNEL_CACHE=0
check_eq "GPUSVM_KERNEL_CACHE=0 runs" 0 "$(cat "$TMPD/off.rc")"
check_eq "GPUSVM_KERNEL_CACHE=0: off" "kernel cache off, 0 program(s) reused in this process" "$(cache_line off)"

# 2. the first run stores, the second loads; same model
train first GPUSVM_KERNEL_CACHE="$KC"
check_eq "first run" 0 "$(cat "$TMPD/first.rc")"
set -- $(counts first)
check_eq "first run: nothing loaded, nothing refused" "0 0" "${1:-x} ${3:-x}"
n=${2:-0}
[ "$n" -ge 1 ] && pass || fail "first run stored nothing: $(cache_line first)"
check_eq "one entry per program built" "$n" "$(entries)"
check_file_eq "model with a new cache" "$TMPD/off.model" "$TMPD/first.model"
train second GPUSVM_KERNEL_CACHE="$KC"
check_eq "second run: all loaded" "$n 0 0" "$(counts second)"
check_file_eq "model from the cache" "$TMPD/off.model" "$TMPD/second.model"

# 3. corrupt entries: refused, rebuilt, overwritten; the next run loads again
E=$(ls "$KC"/solver-*.bin 2>/dev/null | head -n 1)
if [ -z "$E" ]; then
    fail "no solver entry in $KC: $(ls "$KC")"
else
    size=$(wc -c < "$E")
    for how in flip truncate header; do
        case $how in
        flip) # the last byte of the binary, inverted
            last=$(tail -c 1 "$E" | od -An -tu1 | tr -d ' ')
            printf "\\$(printf %03o $((255 - last)))" | dd of="$E" bs=1 seek=$((size - 1)) conv=notrunc 2>/dev/null ;;
        truncate) head -c $((size / 2)) "$E" > "$E.cut" && mv "$E.cut" "$E" ;;
        header) printf 'XXXXXXXX' | dd of="$E" bs=1 seek=0 conv=notrunc 2>/dev/null ;;
        esac
        train "bad_$how" GPUSVM_KERNEL_CACHE="$KC"
        check_eq "$how: run" 0 "$(cat "$TMPD/bad_$how.rc")"
        set -- $(counts "bad_$how")
        check_eq "$how: refused and rebuilt" "1 1" "${2:-x} ${3:-x}"
        check_file_eq "$how: model" "$TMPD/off.model" "$TMPD/bad_$how.model"
        check_eq "$how: entry rewritten whole" "$size" "$(wc -c < "$E")"
        train "after_$how" GPUSVM_KERNEL_CACHE="$KC"
        check_eq "$how: then loaded" "$n 0 0" "$(counts "after_$how")"
    done
fi
check_eq "no temporaries left" 0 "$(temporaries)"

# 4. a folder that cannot be created: silent, same model; --verbose says why
: > "$TMPD/plainfile"
env GPUSVM_KERNEL_CACHE="$TMPD/plainfile/kc" "$TRAIN" "$H" "$TMPD/unw.model" > "$TMPD/unw.out" 2> "$TMPD/unw.err"
check_eq "uncreatable folder: exit" 0 "$?"
check_eq "uncreatable folder: nothing on stderr" "" "$(cat "$TMPD/unw.err")"
check_file_eq "uncreatable folder: model" "$TMPD/off.model" "$TMPD/unw.model"
train unwv GPUSVM_KERNEL_CACHE="$TMPD/plainfile/kc"
case "$(cache_line unwv)" in
*"0 loaded, 0 built and stored"*"cannot create"*) pass ;;
*) fail "uncreatable folder, --verbose: $(cache_line unwv)" ;;
esac

# 5. --no-kernel-cache wins over the variable; nothing new written
before=$(entries)
env GPUSVM_KERNEL_CACHE="$TMPD/kc2" "$TRAIN" --verbose --no-kernel-cache "$H" "$TMPD/nocache.model" \
    > /dev/null 2> "$TMPD/nocache.err"
check_eq "--no-kernel-cache: exit" 0 "$?"
check_eq "--no-kernel-cache: off" "kernel cache off, 0 program(s) reused in this process" "$(cache_line nocache)"
check_eq "--no-kernel-cache: no folder made" "no" "$([ -e "$TMPD/kc2" ] && echo yes || echo no)"
check_file_eq "--no-kernel-cache: model" "$TMPD/off.model" "$TMPD/nocache.model"
check_eq "--no-kernel-cache: no entry added" "$before" "$(entries)"

# 6. prediction: stores, then loads; the same output as without the cache
for run in p1 p2; do
    env GPUSVM_KERNEL_CACHE="$KC" "$PREDICT" --verbose "$H" "$TMPD/off.model" "$TMPD/$run.pred" \
        > /dev/null 2> "$TMPD/$run.err"
    check_eq "predict $run: exit" 0 "$?"
done
"$PREDICT" --no-kernel-cache "$H" "$TMPD/off.model" "$TMPD/p0.pred" > /dev/null 2>&1
check_file_eq "predict: output from the cache" "$TMPD/p0.pred" "$TMPD/p2.pred"
check_file_eq "predict: output with a new entry" "$TMPD/p0.pred" "$TMPD/p1.pred"
case "$(grep 'kernel cache' "$TMPD/p2.err")" in
*": 1 loaded, 0 built and stored, 0 refused"*) pass ;;
*) fail "predict, second run: $(grep 'kernel cache' "$TMPD/p2.err")" ;;
esac

# 7. two trainings filling one empty folder at once
KC=$TMPD/kc3
train c1 GPUSVM_KERNEL_CACHE="$KC" &
p1=$!
train c2 GPUSVM_KERNEL_CACHE="$KC" &
p2=$!
wait $p1
wait $p2
check_eq "concurrent runs" "0 0" "$(cat "$TMPD/c1.rc") $(cat "$TMPD/c2.rc")"
check_file_eq "concurrent run 1: model" "$TMPD/off.model" "$TMPD/c1.model"
check_file_eq "concurrent run 2: model" "$TMPD/off.model" "$TMPD/c2.model"
check_eq "concurrent: one entry per program, no temporaries" "$n 0" "$(entries) $(temporaries)"
train c3 GPUSVM_KERNEL_CACHE="$KC"
check_eq "after the concurrent runs: all loaded" "$n 0 0" "$(counts c3)"

# 8. -b 1 trains twice in one process (the model, then its five internal folds as one batch over
# one upload, as -v's folds): the solver is built once and reused once; with the held-out rows on
# the device (GPUSVM_CV_DEVICE=1; heart's folds are too small for it by default) the prediction
# program is built once and reused for the other four folds (same model as without the cache).
env GPUSVM_KERNEL_CACHE="$TMPD/kc4" "$TRAIN" --verbose -b 1 "$H" "$TMPD/b1.model" > "$TMPD/cv.out" 2> "$TMPD/cv.err"
check_eq "-b 1: exit" 0 "$?"
"$TRAIN" --no-kernel-cache -b 1 "$H" "$TMPD/b0.model" > "$TMPD/cv0.out" 2>&1
check_file_eq "-b 1: model" "$TMPD/b0.model" "$TMPD/b1.model"
case "$(grep 'kernel cache' "$TMPD/cv.err")" in
*": 0 loaded, 1 built and stored, 0 refused and rebuilt, 1 reused in this process"*) pass ;;
*) fail "-b 1: $(grep 'kernel cache' "$TMPD/cv.err")" ;;
esac
env GPUSVM_KERNEL_CACHE="$TMPD/kc5" GPUSVM_CV_DEVICE=1 "$TRAIN" --verbose -b 1 "$H" "$TMPD/b2.model" > "$TMPD/cv2.out" 2> "$TMPD/cv2.err"
check_file_eq "-b 1, held-out rows on the device: model" "$TMPD/b0.model" "$TMPD/b2.model"
case "$(grep 'kernel cache' "$TMPD/cv2.err")" in
*": 0 loaded, 2 built and stored, 0 refused and rebuilt, 5 reused in this process"*) pass ;;
*) fail "-b 1 with GPUSVM_CV_DEVICE=1: $(grep 'kernel cache' "$TMPD/cv2.err")" ;;
esac

# 9. the default folder: XDG_CACHE_HOME (GPUs); a CPU device leaves it alone
train xdg XDG_CACHE_HOME="$TMPD/xdg"
check_eq "XDG_CACHE_HOME: exit" 0 "$(cat "$TMPD/xdg.rc")"
case "$(cache_line xdg)" in
*"CPU device"*)
    check_eq "CPU device: the default folder is not made" "no" \
        "$([ -e "$TMPD/xdg/gpusvm" ] && echo yes || echo no)" ;;
*)
    check_eq "default folder" "kernel cache $TMPD/xdg/gpusvm: 0 loaded, $n built and stored, 0 refused and rebuilt, 0 reused in this process" \
        "$(cache_line xdg)" ;;
esac
check_file_eq "XDG_CACHE_HOME: model" "$TMPD/off.model" "$TMPD/xdg.model"

finish
