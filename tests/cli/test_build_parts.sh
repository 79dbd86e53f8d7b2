#!/bin/sh
# test_build_parts.sh — the solver's program built in parts by helper processes (src/device/ocl.h
# gs_ocl_build_parts; GPUSVM_BUILD_PROCS): forced on this device, the parts give the whole
# program's model byte for byte (heart_scale, -v 3's lines too), --verbose says how many helpers
# succeeded, GPUSVM_BUILD_PROCS=0 builds the whole program; a helper's own command line builds a
# program and exits 0, a bad one exits 1 with a usage message.
. "$(dirname "$0")/lib.sh"

require_bin "$TRAIN"
H=$TOP/data/heart_scale
unset GPUSVM_KERNEL_CACHE

run() { # NAME PROCS [options...]: heart_scale trained with GPUSVM_BUILD_PROCS=PROCS
    name=$1; procs=$2; shift 2
    GPUSVM_BUILD_PROCS=$procs "$TRAIN" --verbose "$@" "$H" "$TMPD/$name.model" > "$TMPD/$name.out" 2> "$TMPD/$name.err"
    echo $? > "$TMPD/$name.rc"
}
parts_line() { grep 'kernel cache' "$TMPD/$1.err" | sed -n 's/.*; \([0-9]* program(s) in parts, [0-9]* of [0-9]* helper process(es) succeeded\).*/\1/p'; }

run whole 0
check_eq "whole program: exit 0" 0 "$(cat "$TMPD/whole.rc")"
check_eq "whole program: no parts" "" "$(parts_line whole)"
run parts4 4
check_eq "4 helpers: exit 0" 0 "$(cat "$TMPD/parts4.rc")"
check_eq "4 helpers: three parts by helpers" "1 program(s) in parts, 3 of 3 helper process(es) succeeded" \
    "$(parts_line parts4)"
check_file_eq "4 helpers: the whole program's model" "$TMPD/whole.model" "$TMPD/parts4.model"
run parts1 1
check_eq "1 helper: one part by a helper" "1 program(s) in parts, 1 of 1 helper process(es) succeeded" \
    "$(parts_line parts1)"
check_file_eq "1 helper: the whole program's model" "$TMPD/whole.model" "$TMPD/parts1.model"

# -v 3: every fold's problem on the parts
run cvwhole 0 -v 3
run cvparts 4 -v 3
check_eq "-v 3 in parts: exit 0" 0 "$(cat "$TMPD/cvparts.rc")"
check_eq "-v 3 in parts: the same lines" "$(cat "$TMPD/cvwhole.out")" "$(cat "$TMPD/cvparts.out")"
check_eq "-v 3 in parts: one build" "1 program(s) in parts, 3 of 3 helper process(es) succeeded" \
    "$(parts_line cvparts)"

# the helper's own command line
"$TRAIN" --gs-build-helper 0 "" selftest "-DWG=4" > "$TMPD/h.out" 2>&1
check_eq "a helper builds a program: exit 0" "0:" "$?:$(cat "$TMPD/h.out")"
"$TRAIN" --gs-build-helper 0 > "$TMPD/hb.out" 2>&1
rc=$?
check_eq "a bad helper line: exit 1" 1 "$rc"
check_eq "a bad helper line: usage" 1 "$(grep -c 'usage: --gs-build-helper DEVICE CACHE PROGRAM OPTIONS' "$TMPD/hb.out")"
finish
