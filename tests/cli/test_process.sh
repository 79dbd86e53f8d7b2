#!/bin/sh
# test_process.sh — the process around the work (issue #20):
#   - --version on both tools prints "gpusvm <GPUSVM_VERSION of include/svm.h>" and the OpenCL
#     API / zlib it was built with, exit 0;
#   - each tool's --help lists every long option its source accepts (gs_cli_long names and
#     gpusvm-train's numeric table) and the fast-exit opt-in; gpusvm-predict's usage on a bad
#     command line is still svm-predict's alone;
#   - by default the process releases the device itself (gpusvm-predict --verbose reaches its
#     "after clean-up" line); --fast-exit and GPUSVM_FAST_EXIT=1 end without it, with the same
#     outputs, exit 0 and a pipe that ends; GPUSVM_EXIT_WAIT=1 vetoes the opt-in;
#   - the environment reaches the library through the CLIs' tuning struct: GPUSVM_DEVICE and
#     GPUSVM_KERNEL_DIR still act (the library itself reads no variable: tests/unit/test_env.c).
. "$(dirname "$0")/lib.sh"

require_bin "$TRAIN"
require_bin "$PREDICT"
H=$TOP/data/heart_scale
VERSION=$(sed -n 's/^#define GPUSVM_VERSION "\(.*\)"$/\1/p' "$TOP/include/svm.h")

# --- --version ---
for p in "$TRAIN" "$PREDICT"; do
    n=$(basename "$p")
    "$p" --version > "$TMPD/v.out" 2> "$TMPD/v.err"; rc=$?
    check_eq "$n --version exit" 0 "$rc"
    check_eq "$n --version first line" "gpusvm $VERSION" "$(head -n 1 "$TMPD/v.out")"
    if sed -n 2p "$TMPD/v.out" | grep -q '^built with the OpenCL [0-9]\.[0-9] API and zlib [0-9]'; then pass
    else fail "$n --version second line: $(sed -n 2p "$TMPD/v.out")"; fi
    check_eq "$n --version stderr" "" "$(cat "$TMPD/v.err")"
done

# --- --help lists every long option of the source ---
longopts() { # FILE: the long options a main accepts
    { grep -o 'gs_cli_long(argc, argv, i, "[a-z-]*"' "$1" | sed 's/.*"\(.*\)"/\1/'
      grep -o '{"[a-z][a-z-]*", [0-9]}' "$1" | sed 's/{"\(.*\)",.*/\1/'; } | sort -u
}
for n in train predict; do
    if [ $n = train ]; then p=$TRAIN; else p=$PREDICT; fi
    "$p" --help > "$TMPD/h.out" 2>&1; rc=$?
    check_eq "gpusvm-$n --help exit" 0 "$rc"
    opts=$(longopts "$TOP/src/cli/$n.c")
    [ -n "$opts" ] || fail "no long options found in src/cli/$n.c"
    missing=""
    for o in $opts; do grep -q -- "^--$o\b" "$TMPD/h.out" || missing="$missing --$o"; done
    check_eq "gpusvm-$n --help lists every long option" "" "$missing"
    if grep -q 'GPUSVM_FAST_EXIT=1' "$TMPD/h.out"; then pass; else fail "gpusvm-$n --help: no GPUSVM_FAST_EXIT"; fi
done
"$PREDICT" > "$TMPD/u.out" 2>&1
check_eq "predict usage on a bad command line: svm-predict's 4 lines" 4 "$(wc -l < "$TMPD/u.out")"
"$PREDICT" --no-such-option a b c > "$TMPD/u.out" 2> "$TMPD/u.err"; rc=$?
check_eq "predict unknown long option exit" 1 "$rc"
check_eq "predict unknown long option message" "Unknown option: --no-such-option" "$(cat "$TMPD/u.err")"

# --- the exit: plain by default, fast on request ---
"$TRAIN" -q "$H" "$TMPD/plain.model" > "$TMPD/t.out" 2>&1; rc=$?
if [ "$rc" != 0 ]; then
    skip "training does not run here ($(head -n 1 "$TMPD/t.out")): exit cases skipped"; finish; exit $?
fi
"$TRAIN" --fast-exit -q "$H" "$TMPD/fast.model" > "$TMPD/t.out" 2>&1; rc=$?
check_eq "train --fast-exit exit" 0 "$rc"
check_file_eq "train --fast-exit model" "$TMPD/plain.model" "$TMPD/fast.model"
GPUSVM_FAST_EXIT=1 "$TRAIN" "$H" "$TMPD/fast2.model" > "$TMPD/t.out" 2>&1; rc=$?
check_eq "train GPUSVM_FAST_EXIT=1 exit" 0 "$rc"
check_file_eq "train GPUSVM_FAST_EXIT=1 model" "$TMPD/plain.model" "$TMPD/fast2.model"
if grep -q '^Total nSV = ' "$TMPD/t.out"; then pass; else fail "train GPUSVM_FAST_EXIT=1: stdout cut"; fi
# a pipe reading the output ends with the process, not with the child (whose streams are /dev/null)
out=$( { "$TRAIN" --fast-exit "$H" "$TMPD/fast3.model" 2>&1; echo "rc=$?"; } | tail -n 2 | tr '\n' ' ')
check_eq "train --fast-exit through a pipe" "Total nSV = 132 rc=0 " "$out"

"$PREDICT" --verbose "$H" "$TMPD/plain.model" "$TMPD/plain.out" > "$TMPD/p.out" 2> "$TMPD/p.err"; rc=$?
check_eq "predict exit" 0 "$rc"
if grep -q '^after clean-up: ' "$TMPD/p.err"; then pass; else fail "predict: the device was not released in the process"; fi
"$PREDICT" --fast-exit --verbose "$H" "$TMPD/plain.model" "$TMPD/fast.out" > "$TMPD/pf.out" 2> "$TMPD/pf.err"; rc=$?
check_eq "predict --fast-exit exit" 0 "$rc"
check_file_eq "predict --fast-exit output" "$TMPD/plain.out" "$TMPD/fast.out"
check_file_eq "predict --fast-exit stdout" "$TMPD/p.out" "$TMPD/pf.out"
if grep -q '^after clean-up: ' "$TMPD/pf.err"; then fail "predict --fast-exit released the device itself"; else pass; fi
GPUSVM_EXIT_WAIT=1 "$PREDICT" --fast-exit --verbose "$H" "$TMPD/plain.model" "$TMPD/w.out" > /dev/null 2> "$TMPD/pw.err"
if grep -q '^after clean-up: ' "$TMPD/pw.err"; then pass; else fail "GPUSVM_EXIT_WAIT=1 did not veto --fast-exit"; fi
GPUSVM_FAST_EXIT=1 "$PREDICT" --verbose "$H" "$TMPD/plain.model" "$TMPD/e.out" > /dev/null 2> "$TMPD/pe.err"
if grep -q '^after clean-up: ' "$TMPD/pe.err"; then fail "GPUSVM_FAST_EXIT=1 ignored by gpusvm-predict"; else pass; fi
check_file_eq "predict GPUSVM_FAST_EXIT=1 output" "$TMPD/plain.out" "$TMPD/e.out"

# --- the environment still acts, through the CLIs ---
GPUSVM_DEVICE=no-such-device-xyz "$TRAIN" -q "$H" "$TMPD/d.model" > /dev/null 2> "$TMPD/d.err"; rc=$?
check_eq "GPUSVM_DEVICE exit" 1 "$rc"
if grep -q "no OpenCL device matches 'no-such-device-xyz' (from GPUSVM_DEVICE)" "$TMPD/d.err"; then pass
else fail "GPUSVM_DEVICE message: $(cat "$TMPD/d.err")"; fi
GPUSVM_DEVICE=no-such-device-xyz "$PREDICT" "$H" "$TMPD/plain.model" "$TMPD/d.out" > /dev/null 2> "$TMPD/d.err"; rc=$?
check_eq "GPUSVM_DEVICE predict exit" 1 "$rc"
GPUSVM_KERNEL_DIR=/nonexistent-gpusvm-dir "$TRAIN" -q "$H" "$TMPD/k.model" > /dev/null 2> "$TMPD/k.err"; rc=$?
check_eq "GPUSVM_KERNEL_DIR exit" 1 "$rc"
if grep -q "cannot open kernel source /nonexistent-gpusvm-dir/" "$TMPD/k.err"; then pass
else fail "GPUSVM_KERNEL_DIR message: $(cat "$TMPD/k.err")"; fi
GPUSVM_KERNEL_DIR=$TOP/kernels "$TRAIN" -q "$H" "$TMPD/k.model" > /dev/null 2>&1
check_file_eq "GPUSVM_KERNEL_DIR=kernels model" "$TMPD/plain.model" "$TMPD/k.model"
finish
