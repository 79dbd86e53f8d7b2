#!/bin/sh
# tests/cli/test_train_options.sh — gpusvm-train's command line against golden/options (Debian
# svm-train 3.24): stdout, stderr and exit code identical, the usage compared with the program name
# put back to svm-train and our appended long-option section cut off. The exceptions are the
# documented ones in src/cli/train.c's header:
#   strict   a value that is not a number: "Incorrect parameter: -c 1x" on stderr, no usage, exit 1
#            (Debian: usage only; upstream: atoi/atof prefix). c_abc c_1x s_1p5 v_abc w_abc
#            train_sfoo s_huge.
#   accepted a double that Debian's strtof cannot hold (c_huge 1e40, c_underflow 1e-50) is taken
#            like upstream: checked by running up to the device stage with a device that does not
#            exist.
#   solver   cases that train need the solver; they are checked (stdout with #iter/obj/rho/nu masked)
#            only when a probe training run works, and reported as SKIP otherwise.
#   stdin    a lone "-" is the training file, standard input (LIBSVM: "Unknown option: -"):
#            train_dash_only trains heart_scale from stdin into the model file "heart_scale" (a copy
#            of the golden folder's file, so that is what gets replaced). tests/cli/test_stdin.sh
#            has the rest.
# The *_upstream runs are upstream builds, not replayed (their behaviour is documented above).
. "$(dirname "$0")/lib.sh"

G=$GOLDEN/options
require_dir "$G"
require_bin "$TRAIN"

W=$TMPD/work; O=$TMPD/out
mkdir -p "$W" "$O"
ln -s "$G/heart_scale" "$W/heart_scale"
NUSAGE=$(wc -l < "$G/noargs.stdout")
: > "$O/visited"

# run NAME ARGS... : runs gpusvm-train in $W, output in $O/NAME.{out,err,rc}
run() {
    n=$1; shift
    echo "$n" >> "$O/visited"
    (cd "$W" && "$TRAIN" "$@" > "$O/$n.out" 2> "$O/$n.err"; echo $? > "$O/$n.rc")
}

# The usage part of our stdout, as svm-train would print it; other stdout unchanged.
norm_stdout() {
    if head -n 1 "$1" | grep -q '^Usage: gpusvm-train '; then
        sed '1s/^Usage: gpusvm-train /Usage: svm-train /' "$1" | head -n "$NUSAGE"
    else
        cat "$1"
    fi
}

# Training output with the numbers a GPU solver may legitimately change masked (compat §9: #iter
# may differ, obj/rho/nu agree to ~1e-6 relative; nSV must be identical).
check_usage_tail() { # NAME: our extra section follows LIBSVM's text after one blank line
    if head -n 1 "$O/$1.out" | grep -q '^Usage: gpusvm-train '; then
        check_eq "$1 usage tail" "|gpusvm options:" \
            "$(sed -n "$((NUSAGE + 1))p" "$O/$1.out")|$(sed -n "$((NUSAGE + 2))p" "$O/$1.out")"
    fi
}

# golden NAME ARGS... : identical to golden/options/NAME.*
golden() {
    n=$1; shift
    run "$n" "$@"
    norm_stdout "$O/$n.out" > "$O/$n.nout"
    check_file_eq "$n stdout" "$G/$n.stdout" "$O/$n.nout"
    check_file_eq "$n stderr" "$G/$n.stderr" "$O/$n.err"
    check_eq "$n exit" "$(cat "$G/$n.rc")" "$(cat "$O/$n.rc")"
    check_usage_tail "$n"
}

# strict NAME 'EXPECTED STDERR' ARGS...
strict() {
    n=$1; e=$2; shift 2
    run "$n" "$@"
    check_eq "$n stdout (strict number)" "" "$(cat "$O/$n.out")"
    check_eq "$n stderr (strict number)" "$e" "$(cat "$O/$n.err")"
    check_eq "$n exit (strict number)" 1 "$(cat "$O/$n.rc")"
}

# accepted NAME ARGS... : parsed and checked; stops at the (missing) device
accepted() {
    n=$1; shift
    run "$n" --device no-such-device-gstest "$@"
    check_eq "$n stdout (accepted like upstream)" "" "$(cat "$O/$n.out")"
    if grep -q 'no-such-device-gstest' "$O/$n.err"; then pass; else
        fail "$n: expected the device error, got [$(cat "$O/$n.err")]"; fi
    check_eq "$n exit" 1 "$(cat "$O/$n.rc")"
}

# solver NAME MODEL_FILE ARGS... : trains; golden rc/stderr, masked stdout, model written
solver() {
    n=$1; m=$2; shift 2
    if [ "$SOLVER" != 1 ]; then
        echo "$n" >> "$O/visited"
        skip "$n: needs the solver (probe failed: $PROBE_ERR)"
        return
    fi
    run "$n" "$@"
    mask_train "$G/$n.stdout" > "$O/$n.gout"
    mask_train "$O/$n.out" > "$O/$n.mout"
    check_file_eq "$n stdout (masked)" "$O/$n.gout" "$O/$n.mout"
    check_file_eq "$n stderr" "$G/$n.stderr" "$O/$n.err"
    check_eq "$n exit" "$(cat "$G/$n.rc")" "$(cat "$O/$n.rc")"
    if [ "$m" != - ]; then
        if [ -f "$W/$m" ]; then pass; else fail "$n: model file $m not written"; fi
    fi
}

# Does training work at all yet? (the solver is written separately)
SOLVER=0
(cd "$W" && "$TRAIN" -q heart_scale probe.model > "$O/probe.out" 2> "$O/probe.err")
if [ $? -eq 0 ] && [ -s "$W/probe.model" ]; then SOLVER=1; fi
PROBE_ERR=$(head -n 1 "$O/probe.err")

golden noargs
golden help_q_only -q
golden unknown_opt -z 1 heart_scale
golden c_0 -c 0 heart_scale
golden c_neg -c -1 heart_scale
golden c_empty -c "" heart_scale
golden s_9 -s 9 heart_scale
golden t_9 -t 9 heart_scale
golden g_neg -g -1 heart_scale
golden d_neg -t 1 -d -1 heart_scale
golden n_0 -s 1 -n 0 heart_scale
golden n_1p5 -s 2 -n 1.5 heart_scale
golden nu_infeasible -s 1 -n 0.99 heart_scale
golden p_neg -s 3 -p -1 heart_scale
golden m_0 -m 0 heart_scale
golden e_0 -e 0 heart_scale
golden h_2 -h 2 heart_scale
golden b_2 -b 2 heart_scale
golden v_1 -v 1 heart_scale
golden opt_no_file -c 1
golden nonexistent_file /nonexistent/file
# stdin: "- heart_scale" reads the rows from standard input and writes the model to heart_scale
echo train_dash_only >> "$O/visited"
if [ "$SOLVER" = 1 ]; then
    mkdir -p "$TMPD/dash"
    cp "$G/heart_scale" "$TMPD/dash/heart_scale"
    (cd "$TMPD/dash" && "$TRAIN" - heart_scale < "$G/heart_scale" > "$O/dash.out" 2> "$O/dash.err"
     echo $? > "$O/dash.rc")
    check_eq "train_dash_only exit" 0 "$(cat "$O/dash.rc")"
    check_eq "train_dash_only stderr" "" "$(cat "$O/dash.err")"
    check_file_eq "train_dash_only model (= trained from the file)" "$W/probe.model" "$TMPD/dash/heart_scale"
else
    skip "train_dash_only: needs the solver (probe failed: $PROBE_ERR)"
fi

strict c_abc "Incorrect parameter: -c abc" -c abc heart_scale
strict c_1x "Incorrect parameter: -c 1x" -c 1x heart_scale
strict s_1p5 "Incorrect parameter: -s 1.5" -s 1.5 heart_scale
strict v_abc "Incorrect parameter: -v abc" -v abc heart_scale
strict w_abc "Incorrect parameter: -wabc 2" -wabc 2 heart_scale
strict train_sfoo "Incorrect parameter: -s1 heart_scale" -q -s1 heart_scale sfoo.model
strict s_huge "Incorrect parameter: -s 99999999999999999999" -s 99999999999999999999 heart_scale

accepted c_huge -c 1e40 heart_scale
accepted c_underflow -c 1e-50 heart_scale

solver missing_value -c heart_scale -c
solver train_g0 g0.model -q -g 0 heart_scale g0.model
solver train_gamma_exact g0125.model -q -g 0.125 heart_scale g0125.model
solver train_option_long long.model -q -cost 10 heart_scale long.model
solver w_empty_label wempty.model -q -w 2 heart_scale wempty.model
solver unwritable_model - -q heart_scale /nonexistent/dir/x.model

# Every svm-train case of the transcript is covered (new golden cases must be added here).
for n in $(sed -n 's/^### \[\([^]]*\)\] \$ svm-train.*/\1/p' "$G/transcript.txt"); do
    if grep -qx "$n" "$O/visited"; then pass; else fail "golden case $n is not replayed"; fi
done

# --- gpusvm's own behaviour (no golden) ---
# Failing cases write no model.
for n in c_0 c_abc nonexistent_file nu_infeasible; do
    if [ -e "$W/heart_scale.model" ]; then fail "$n: a model file was written"; else pass; fi
done

ext() { # NAME EXPECTED_RC 'STDERR SUBSTRING' ARGS...
    n=$1; r=$2; e=$3; shift 3
    run "$n" "$@"
    check_eq "$n exit" "$r" "$(cat "$O/$n.rc")"
    if grep -qF -- "$e" "$O/$n.err"; then pass; else
        fail "$n: stderr lacks [$e]: [$(cat "$O/$n.err")]"; fi
}
ext long_unknown 1 "Unknown option: --frobnicate" --frobnicate heart_scale
ext long_missing 1 "Missing value for --seed" --seed
ext long_bad_int 1 "Incorrect parameter: --ws-size 12x" --ws-size 12x heart_scale
ext long_bad_seed 1 "Incorrect parameter: --seed -1" --seed -1 heart_scale
ext long_ws_odd 1 "ERROR: --ws-size must be an even number from 2 to 1024" --ws-size 7 heart_scale
ext long_ws_big 1 "ERROR: --ws-size must be an even number from 2 to 1024" --ws-size 1026 heart_scale
# 0 and -1 are gs_param's "automatic", not values in the documented ranges
ext long_ws_zero 1 "Incorrect parameter: --ws-size 0" --ws-size 0 heart_scale
ext long_ws_zero_eq 1 "Incorrect parameter: --ws-size=0" --ws-size=0 heart_scale
check_eq "long_ws_zero_eq: the value shown once" "Incorrect parameter: --ws-size=0" "$(cat "$O/long_ws_zero_eq.err")"
ext long_ws_keep_m1 1 "Incorrect parameter: --ws-keep -1" --ws-keep -1 heart_scale
ext long_ws_keep 1 "ERROR: --ws-keep must be between 0 and ws-size - 2" --ws-size 16 --ws-keep=15 heart_scale
ext long_clusters 1 "ERROR: --clusters must be >= 1" --clusters 0 heart_scale
ext long_cluster_size 1 "ERROR: --cluster-size must be a power of two from 32 to 1024" --cluster-size 48 heart_scale
ext c_nan 1 "Incorrect parameter: -c nan" -c nan heart_scale
ext g_trailing_space 1 "Incorrect parameter: -g 0.5 " -g "0.5 " heart_scale
# LIBSVM's checks come first, data errors before them.
ext check_order 1 "ERROR: C <= 0" -c 0 --ws-size 7 heart_scale
ext data_before_check 1 "can't open input file /nonexistent/x" -c 0 /nonexistent/x
ext b_two 1 "ERROR: probability != 0 and probability != 1" -b 2 heart_scale
# Features not built yet are refused, never ignored (after the parameter check).
# -t 4 on rows that are not a kernel matrix: svm-train's serial-number check (test_precomputed.sh)
ext pre_no_serial 1 "Wrong input format: first column must be 0:sample_serial_number" -t 4 heart_scale
ext oneclass_prob 1 "ERROR: one-class SVM probability output not supported yet" -s 2 -b 1 heart_scale
if [ -e "$W/heart_scale.model" ]; then fail "a refused run wrote heart_scale.model"; else pass; fi

run help --help
check_eq "--help exit" 0 "$(cat "$O/help.rc")"
norm_stdout "$O/help.out" > "$O/help.nout"
check_file_eq "--help usage" "$G/noargs.stdout" "$O/help.nout"
check_usage_tail help

run list --list-devices
if [ "$(cat "$O/list.rc")" = 0 ]; then
    if grep -q '^0: ' "$O/list.out"; then pass; else fail "--list-devices printed no device 0"; fi
else
    skip "--list-devices: no OpenCL device here ($(head -n 1 "$O/list.err"))"
fi

if [ "$SOLVER" = 1 ]; then
    # Default model name: basename + ".model" in the current directory; -q silences stdout.
    mkdir -p "$W/sub"; ln -s "$G/heart_scale" "$W/sub/hs"
    run default_name -q sub/hs
    check_eq "default_name exit" 0 "$(cat "$O/default_name.rc")"
    check_eq "default_name stdout" "" "$(cat "$O/default_name.out")"
    if [ -f "$W/hs.model" ]; then pass; else fail "default model name: ./hs.model not written"; fi
    run verbose --verbose -q heart_scale v.model
    check_eq "verbose exit" 0 "$(cat "$O/verbose.rc")"
    if grep -q 'gpusvm: seconds:' "$O/verbose.err"; then pass; else fail "--verbose printed no stats"; fi
    run weight_unknown -q -w3 2 heart_scale w3.model
    check_eq "weight_unknown stderr" "WARNING: class label 3 specified in weight is not found" \
        "$(cat "$O/weight_unknown.err")"
else
    skip "default model name, --verbose, weight warning: need the solver"
fi

finish
