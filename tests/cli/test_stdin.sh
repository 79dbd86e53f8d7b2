#!/bin/sh
# tests/cli/test_stdin.sh — a lone "-" reads standard input, as README documents (LIBSVM's tools say
# "Unknown option: -"), and --help tells the truth:
#   - gpusvm-train - [model]: the model equals the one trained from the file (plain and gzip on
#     stdin), the default model file is stdin.model, a bad line is LIBSVM's message with no model;
#   - gpusvm-predict - model out: the output equals the one from the file, with -q and gzip too;
#     a bad line is svm-predict's message and no output;
#   - every other '-' argument is still scanned as LIBSVM does (-- , -c -, a lone -q);
#   - --help's default working set for two classes (768 keeping 384) is the one training uses
#     (--verbose prints it), and it documents "-" and stdin.model.
. "$(dirname "$0")/lib.sh"

require_bin "$TRAIN"
require_bin "$PREDICT"
H=$TOP/data/heart_scale
W=$TMPD/w
mkdir -p "$W"
cd "$W" || exit 1

# rc FILE: the exit status a subshell left there
rc() { cat "$1"; }

# --- help text (no device needed) ---
"$TRAIN" --help > help.out 2>&1
if grep -q -- '--ws-size N : working-set size, even, 2..1024 (default: 768 keeping 384 for two classes,' help.out
then pass; else fail "--help: no '2..1024 (default: 768 keeping 384 for two classes' line"; fi
if grep -q 'training_set_file "-" reads standard input (default model file: stdin.model)' help.out
then pass; else fail "--help does not document '-' and stdin.model"; fi

# --- LIBSVM's scanning of the other '-' arguments is unchanged ---
"$TRAIN" -- x > o1 2> e1; echo $? > r1
check_eq "'--' exit" 1 "$(rc r1)"
check_eq "'--' message" "Unknown option: --" "$(cat e1)"
if head -n 1 o1 | grep -q '^Usage: gpusvm-train '; then pass; else fail "'--': no usage"; fi
"$TRAIN" -c - "$H" > o2 2> e2; echo $? > r2
check_eq "'-c -' exit" 1 "$(rc r2)"
check_eq "'-c -' message" "Incorrect parameter: -c -" "$(cat e2)"
"$TRAIN" -q > o3 2> e3; echo $? > r3
check_eq "lone -q exit" 1 "$(rc r3)"
if head -n 1 o3 | grep -q '^Usage: gpusvm-train '; then pass; else fail "lone -q: no usage"; fi
"$PREDICT" -x - m o > o4 2> e4; echo $? > r4
check_eq "predict -x exit" 1 "$(rc r4)"
check_eq "predict -x message" "Unknown option: -x" "$(cat e4)"

# --- training from stdin: a bad line (no device needed: the data is read first) ---
printf '+1 1:0.5\n-1 2:x\n' | "$TRAIN" -q - > o5 2> e5; echo $? > r5
check_eq "bad stdin exit" 1 "$(rc r5)"
check_eq "bad stdin message" "Wrong input format at line 2" "$(cat e5)"
if [ -e stdin.model ]; then fail "bad stdin wrote stdin.model"; rm -f stdin.model; else pass; fi

# Does training work at all here (a device)?
if ! "$TRAIN" -q "$H" file.model > probe.out 2>&1; then
    skip "training from stdin: no training here ($(head -n 1 probe.out))"
    finish; exit $?
fi

"$TRAIN" -q - < "$H" > o6 2> e6; echo $? > r6
check_eq "train - exit" 0 "$(rc r6)"
check_eq "train - stderr" "" "$(cat e6)"
check_file_eq "train -: stdin.model = the model from the file" file.model stdin.model
gzip -c "$H" | "$TRAIN" -q - gz.model > o7 2> e7; echo $? > r7
check_eq "train - (gzip) exit" 0 "$(rc r7)"
check_file_eq "train - gz.model (gzip on stdin) = the model from the file" file.model gz.model
# "-q -" is LIBSVM's usage (the value check); here "-" is the file
"$TRAIN" -c 1 -q - q.model < "$H" > o8 2> e8; echo $? > r8
check_eq "train -c 1 -q - exit" 0 "$(rc r8)"
check_file_eq "train -c 1 -q - q.model" file.model q.model

# --verbose names the working set; for two classes it must be --help's 768 keeping 384
"$TRAIN" --verbose -q "$H" v.model > o9 2> e9
if grep -q 'working set 768, 384 kept' e9; then pass; else
    fail "two-class default working set is not --help's 768/384: $(grep 'working set' e9)"; fi

# --- prediction from stdin ---
"$PREDICT" "$H" file.model p_file.out > s_file 2>&1
"$PREDICT" - file.model p_stdin.out < "$H" > s_stdin 2> e10; echo $? > r10
check_eq "predict - exit" 0 "$(rc r10)"
check_file_eq "predict -: output = from the file" p_file.out p_stdin.out
check_file_eq "predict -: printed accuracy = from the file" s_file s_stdin
gzip -c "$H" | "$PREDICT" -q - file.model p_gz.out > s_gz 2> e11; echo $? > r11
check_eq "predict -q - (gzip) exit" 0 "$(rc r11)"
check_eq "predict -q - (gzip) prints nothing" "" "$(cat s_gz e11)"
check_file_eq "predict - (gzip): output = from the file" p_file.out p_gz.out
printf '+1 1:0.5\n-1 2:x\n' | "$PREDICT" - file.model p_bad.out > s12 2> e12; echo $? > r12
check_eq "predict bad stdin exit" 1 "$(rc r12)"
check_eq "predict bad stdin message" "Wrong input format at line 2" "$(cat e12)"
if [ -e p_bad.out ]; then fail "predict bad stdin wrote its output"; else pass; fi

finish
