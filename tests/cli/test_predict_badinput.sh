#!/bin/sh
# test_predict_badinput.sh — gpusvm-predict on bad and unusual input beyond the golden transcripts:
# a format error in a later chunk (line numbers continue, nothing is written, an existing output
# is untouched), bad models, -b 1 refusals, gzip input, a device as output, precomputed rows that
# are too short, non-finite test values, and a multi-chunk file against svm-predict.
. "$(dirname "$0")/lib.sh"

if [ ! -d "$GOLDEN" ]; then skip "no $GOLDEN"; finish; exit 0; fi
require_bin "$PREDICT"
H=$GOLDEN/heart
HM=$H/heart_scale.model

# A file of more than one chunk (65536 rows): heart_scale repeated, 70200 rows.
i=0; : >"$TMPD/big"
while [ $i -lt 260 ]; do cat "$H/heart_scale" >>"$TMPD/big"; i=$((i + 1)); done
cp "$TMPD/big" "$TMPD/bigbad"
echo "+1 1:0.5 1:0.25" >>"$TMPD/bigbad"

# 1. error in the second chunk: svm-predict's message and line, exit 1, old output untouched
echo keep >"$TMPD/o1"
"$PREDICT" "$TMPD/bigbad" "$HM" "$TMPD/o1" >"$TMPD/s1" 2>"$TMPD/e1"
check_eq "late error exit" 1 "$?"
check_eq "late error message" "Wrong input format at line 70201" "$(cat "$TMPD/e1")"
check_eq "late error stdout" "" "$(cat "$TMPD/s1")"
check_eq "late error leaves the old output" keep "$(cat "$TMPD/o1")"
check_eq "no temporaries" "" "$(ls "$TMPD" | grep '\.tmp' || true)"
# the same error while the device still reads the first chunk's rows (it once freed them under the
# queue): 10 rounds of 3 concurrent runs, every one exit 1 with the message
bad=0
for r in 1 2 3 4 5 6 7 8 9 10; do
    for k in 1 2 3; do
        ( "$PREDICT" "$TMPD/bigbad" "$HM" "$TMPD/oc$k" >/dev/null 2>"$TMPD/ec$k"; echo $? >"$TMPD/rc$k" ) &
    done
    wait
    for k in 1 2 3; do
        [ "$(cat "$TMPD/rc$k")" = 1 ] && [ "$(cat "$TMPD/ec$k")" = "Wrong input format at line 70201" ] || bad=$((bad + 1))
    done
done
check_eq "late error, concurrent runs: failures" 0 "$bad"

# 2. missing and malformed models: svm-predict's last line, nothing written
"$PREDICT" "$H/heart_scale" "$TMPD/nomodel" "$TMPD/o2" >/dev/null 2>"$TMPD/e2"
check_eq "missing model exit" 1 "$?"
check_eq "missing model message" "can't open model file $TMPD/nomodel" "$(cat "$TMPD/e2")"
check_eq "missing model: no output" no "$([ -e "$TMPD/o2" ] && echo yes || echo no)"
printf 'svm_type c_svc\nkernel_type rbf\nbogus 1\n' >"$TMPD/bad.model"
"$PREDICT" "$H/heart_scale" "$TMPD/bad.model" "$TMPD/o2" >/dev/null 2>"$TMPD/e2"
check_eq "bad model exit" 1 "$?"
check_eq "bad model last line" "can't open model file $TMPD/bad.model" "$(tail -n 1 "$TMPD/e2")"

# 3. -b 1 refused for models without probability information (also one-class 3.24 models)
"$PREDICT" -b 1 "$H/heart_scale" "$H/heart_one_class.model" "$TMPD/o3" >"$TMPD/s3" 2>"$TMPD/e3"
check_eq "one-class -b 1 exit" 1 "$?"
check_eq "one-class -b 1 message" "Model does not support probabiliy estimates" "$(cat "$TMPD/e3")"

# 4. gzip input gives the same output; a character device as the output file works
gzip -c "$H/heart_scale" >"$TMPD/heart.gz"
"$PREDICT" -q "$TMPD/heart.gz" "$HM" "$TMPD/o4" >"$TMPD/s4" 2>&1
check_eq "gzip exit" 0 "$?"
check_eq "-q prints nothing" "" "$(cat "$TMPD/s4")"
check_file_eq "gzip output" "$H/pred_default.out" "$TMPD/o4"
"$PREDICT" "$H/heart_scale" "$HM" /dev/null >"$TMPD/s4" 2>&1
check_eq "/dev/null output" "Accuracy = 86.6667% (234/270) (classification)" "$(cat "$TMPD/s4")"

# 5. precomputed kernel: a test row without the position an SV needs is an error, not garbage
P=$GOLDEN/precomputed
head -n 3 "$P/heart_pre_test" >"$TMPD/pre3"
echo "1 0:1 1:0.5" >>"$TMPD/pre3"
"$PREDICT" "$TMPD/pre3" "$P/heart_pre.model" "$TMPD/o5" >/dev/null 2>"$TMPD/e5"
check_eq "short precomputed row exit" 1 "$?"
check_eq "short precomputed row: no output" no "$([ -e "$TMPD/o5" ] && echo yes || echo no)"

# 6. against svm-predict itself where it is installed
if command -v svm-predict >/dev/null 2>&1; then
    # a multi-chunk file, plain and with probabilities
    "$PREDICT" "$TMPD/big" "$HM" "$TMPD/o6" >"$TMPD/s6" 2>&1
    svm-predict "$TMPD/big" "$HM" "$TMPD/r6" >"$TMPD/t6" 2>&1
    check_file_eq "multi-chunk output" "$TMPD/r6" "$TMPD/o6"
    check_file_eq "multi-chunk stdout" "$TMPD/t6" "$TMPD/s6"
    "$PREDICT" -b 1 "$TMPD/big" "$H/heart_scale_b1.model" "$TMPD/o6" >"$TMPD/s6" 2>&1
    svm-predict -b 1 "$TMPD/big" "$H/heart_scale_b1.model" "$TMPD/r6" >"$TMPD/t6" 2>&1
    check_file_eq "multi-chunk -b 1 output" "$TMPD/r6" "$TMPD/o6"
    check_file_eq "multi-chunk -b 1 stdout" "$TMPD/t6" "$TMPD/s6"
    # non-finite and extreme test values, every kernel type
    cat >"$TMPD/odd" <<'ROWS'
+1 1:inf 2:1
-1 1:nan 3:0.5
+1 2:-inf
-1 1:1e300 2:-1e300
+1 0:5 13:1e-300
-1
+1 14:2 20:0.75
ROWS
    for m in heart_scale heart_linear heart_poly heart_sigmoid heart_eps_svr heart_one_class; do
        "$PREDICT" "$TMPD/odd" "$H/$m.model" "$TMPD/o7" >"$TMPD/s7" 2>&1
        svm-predict "$TMPD/odd" "$H/$m.model" "$TMPD/r7" >"$TMPD/t7" 2>&1
        check_file_eq "odd values, $m" "$TMPD/r7" "$TMPD/o7"
        check_file_eq "odd values stdout, $m" "$TMPD/t7" "$TMPD/s7"
    done
else
    skip "svm-predict not installed: comparisons against it skipped"
fi
finish
