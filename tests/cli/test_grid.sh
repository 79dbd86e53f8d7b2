#!/bin/sh
# gpusvm-grid against svm-grid (grid.py, Debian's libsvm-tools) driving gpusvm-train: the same stdout
# lines (cell order, rates, the running best, the last "c g rate" line), the same -out file and the
# same png on a small heart_scale grid; per-cell rates equal to gpusvm-train -v's; -resume (read
# back, appended to) as grid.py does it; -log2c null; -out null; the gnuplot note; epsilon-SVR's
# -log2p; option errors before any training. Small grids (<= 6 cells) keep it quick on PoCL.
. "$(dirname "$0")/lib.sh"
GRID=$B/gpusvm-grid
require_bin "$GRID"
require_bin "$TRAIN"
H=$TOP/data/heart_scale

# err NAME EXPECTED_STDERR_PATTERN ARGS...: exit 1, the pattern on stderr, nothing trained
# same_num NAME A B: A and B are the same number (80 and 80.0)
same_num() {
    if [ -n "$2" ] && awk -v a="$2" -v b="$3" 'BEGIN { exit !(a + 0 == b + 0) }'; then pass; else fail "$1: [$2] vs [$3]"; fi
}
err() {
    name=$1; pat=$2; shift 2
    (cd "$TMPD" && "$GRID" "$@" > e.out 2> e.err); rc=$?
    check_eq "$name: exit" 1 "$rc"
    if grep -q -- "$pat" "$TMPD/e.err"; then pass; else fail "$name: stderr [$(cat "$TMPD/e.err")] lacks [$pat]"; fi
    if grep -q '^\[local\]' "$TMPD/e.out"; then fail "$name: trained cells"; else pass; fi
}
err "no dataset" "Usage: gpusvm-grid"
err "-c" "Use -log2c and -log2g." -c 1 "$H"
err "-g" "Use -log2c and -log2g." -g 1 "$H"
err "both null" "should not be null simultaneously" -log2c null -log2g null "$H"
err "bad range" "Incorrect parameter: -log2c 1,2" -log2c 1,2 "$H"
err "step 0" "Incorrect parameter: -log2g 1,2,0" -log2g 1,2,0 "$H"
err "empty range" "has no value" -log2c 5,1,1 "$H"
err "-v 1" "n must >= 2" -v 1 "$H"
err "-v x" "Incorrect parameter: -v x" -v x "$H"
err "missing value" "Missing value for -out" -out "$H"
err "no dataset file" "dataset not found" "$TMPD/nonexistent"
err "no resume file" "file for resumption not found" -resume "$TMPD/none.out" "$H"
err "unknown option" "Unknown option: -x" -x 1 "$H"
err "bad pass-through" "Incorrect parameter: -t abc" -t abc "$H"
err "-log2p without -s 3" "needs -s 3" -log2p 0,1,1 "$H"
err "parameter check" "ERROR: unknown kernel type" -t 9 "$H"
"$GRID" --version > "$TMPD/v.out"; check_eq "--version exit" 0 $?
if grep -q '^gpusvm ' "$TMPD/v.out"; then pass; else fail "--version: $(cat "$TMPD/v.out")"; fi
"$GRID" --help > "$TMPD/h.out"; check_eq "--help exit" 0 $?
if grep -q -- '-log2c' "$TMPD/h.out"; then pass; else fail "--help lacks -log2c"; fi

if ! command -v svm-grid > /dev/null 2>&1; then
    skip "svm-grid (libsvm-tools) not installed: grid.py comparisons not run"; finish; exit
fi
# the same grid both ways, each in its own directory (default -out and -png names)
mkdir -p "$TMPD/g" "$TMPD/r"
SMALL="-log2c -1,1,2 -log2g -7,-3,2 -v 5"
(cd "$TMPD/g" && "$GRID" $SMALL -svmtrain /bin/false "$H" > stdout 2> stderr); rc=$?
check_eq "grid exit" 0 "$rc"
(cd "$TMPD/r" && svm-grid $SMALL -svmtrain "$TRAIN" "$H" > stdout 2> /dev/null)
check_file_eq "stdout as svm-grid + gpusvm-train" "$TMPD/r/stdout" "$TMPD/g/stdout"
check_file_eq "heart_scale.out as svm-grid's" "$TMPD/r/heart_scale.out" "$TMPD/g/heart_scale.out"
check_eq "6 cells" 6 "$(wc -l < "$TMPD/g/heart_scale.out")"
if grep -q -- '-svmtrain /bin/false ignored' "$TMPD/g/stderr"; then pass; else fail "-svmtrain note: $(cat "$TMPD/g/stderr")"; fi
if grep -q 'gpusvm-grid: 6/6 cells' "$TMPD/g/stderr"; then pass; else fail "progress line: $(cat "$TMPD/g/stderr")"; fi
bad=$(grep -cvE '^log2c=-?[0-9]+\.[0-9]+ log2g=-?[0-9]+\.[0-9]+ rate=[0-9]+(\.[0-9]+)?$' "$TMPD/g/heart_scale.out")
check_eq "-out lines are log2c=X log2g=Y rate=R" 0 "$bad"
if command -v gnuplot > /dev/null 2>&1; then
    # grid.py leaves gnuplot finishing the png after it exits: wait for the file to settle
    n=0; while ! cmp -s "$TMPD/r/heart_scale.png" "$TMPD/g/heart_scale.png" && [ $n -lt 20 ]; do sleep 0.5; n=$((n + 1)); done
    check_file_eq "heart_scale.png as svm-grid's" "$TMPD/r/heart_scale.png" "$TMPD/g/heart_scale.png"
else
    skip "gnuplot not installed: no png to compare"
fi

# per-cell rates are gpusvm-train -v's (two cells, read from the -out file)
for cg in "1.0 -5.0" "-1.0 -7.0"; do
    set -- $cg
    want=$(sed -n "s/^log2c=$1 log2g=$2 rate=//p" "$TMPD/g/heart_scale.out")
    c=$(awk -v x="$1" 'BEGIN { printf "%.17g", 2 ^ x }'); g=$(awk -v x="$2" 'BEGIN { printf "%.17g", 2 ^ x }')
    got=$("$TRAIN" -q -v 5 -c "$c" -g "$g" "$H" | sed -n 's/^Cross Validation Accuracy = \(.*\)%$/\1/p')
    same_num "cell $cg: gpusvm-train -v's rate" "$want" "$got"
done

# -resume: three cells read back (printed first as [resumed], not trained, not written again), the
# other three trained and appended, as grid.py does
head -n 3 "$TMPD/r/heart_scale.out" > "$TMPD/g/part.out"; cp "$TMPD/g/part.out" "$TMPD/r/part.out"
(cd "$TMPD/g" && "$GRID" $SMALL -out part.out -resume part.out -gnuplot null "$H" > rstdout 2> /dev/null)
(cd "$TMPD/r" && svm-grid $SMALL -out part.out -resume part.out -gnuplot null -svmtrain "$TRAIN" "$H" > rstdout 2> /dev/null)
check_file_eq "-resume stdout as svm-grid's" "$TMPD/r/rstdout" "$TMPD/g/rstdout"
check_file_eq "-resume out file as svm-grid's" "$TMPD/r/part.out" "$TMPD/g/part.out"
check_eq "-resume: 3 resumed lines" 3 "$(grep -c '^\[resumed\]' "$TMPD/g/rstdout")"

# -log2c null (gamma only) and -out null: no file, the last line is "g rate"
mkdir -p "$TMPD/n"
(cd "$TMPD/n" && "$GRID" -log2c null -log2g -5,-3,2 -out null -gnuplot null "$H" > stdout 2> /dev/null)
(cd "$TMPD/r" && svm-grid -log2c null -log2g -5,-3,2 -out null -gnuplot null -svmtrain "$TRAIN" "$H" > nstdout 2> /dev/null)
check_file_eq "-log2c null stdout as svm-grid's" "$TMPD/r/nstdout" "$TMPD/n/stdout"
if [ -e "$TMPD/n/heart_scale.out" ] || [ -e "$TMPD/n/heart_scale.png" ]; then fail "-out null / -gnuplot null wrote files"; else pass; fi

# no gnuplot: the run completes with grid.py's note and a word on the missing plot
(cd "$TMPD/n" && "$GRID" -log2c 0,1,1 -log2g -5,-4,1 -gnuplot "$TMPD/no-gnuplot" "$H" > stdout 2> stderr); rc=$?
check_eq "no gnuplot: exit" 0 "$rc"
if grep -q '^gnuplot executable not found' "$TMPD/n/stderr" && grep -q 'no contour plot' "$TMPD/n/stderr"; then pass
else fail "no gnuplot note: $(cat "$TMPD/n/stderr")"; fi
if [ -e "$TMPD/n/heart_scale.png" ]; then fail "a png without gnuplot"; else pass; fi

# lanes (GPUSVM_GRID_LANES): three batches of cells at once in one process give the same stdout and
# -out file as one at a time (4 gammas x 2 C values, one batch a gamma)
mkdir -p "$TMPD/l1" "$TMPD/l3"
for n in 1 3; do
    (cd "$TMPD/l$n" && GPUSVM_GRID_LANES=$n "$GRID" -log2c 1,3,2 -log2g -3,-9,-2 -out l.out -gnuplot null "$H" \
        > stdout 2> stderr); check_eq "lanes $n: exit" 0 "$?"
done
check_eq "lanes: 8 cells" 8 "$(wc -l < "$TMPD/l1/l.out")"
check_file_eq "lanes 3: -out as one lane's" "$TMPD/l1/l.out" "$TMPD/l3/l.out"
check_file_eq "lanes 3: stdout as one lane's" "$TMPD/l1/stdout" "$TMPD/l3/stdout"
# the lanes' priorities (GPUSVM_GRID_NICE: off, and the steepest) change no rate
for k in 0 19; do
    mkdir -p "$TMPD/k$k"
    (cd "$TMPD/k$k" && GPUSVM_GRID_NICE=$k GPUSVM_GRID_LANES=3 "$GRID" -log2c 1,3,2 -log2g -3,-9,-2 -out l.out \
        -gnuplot null "$H" > stdout 2> stderr); check_eq "lanes 3, nice $k: exit" 0 "$?"
    check_file_eq "lanes 3, nice $k: -out as one lane's" "$TMPD/l1/l.out" "$TMPD/k$k/l.out"
    check_file_eq "lanes 3, nice $k: stdout as one lane's" "$TMPD/l1/stdout" "$TMPD/k$k/stdout"
done
# --verbose: each lane's batch says its span, one line a batch (4 batches, one a gamma)
(cd "$TMPD/l3" && GPUSVM_GRID_LANES=3 "$GRID" --verbose -log2c 1,3,2 -log2g -3,-9,-2 -out null -gnuplot null "$H" \
    > vstdout 2> vstderr); check_eq "lanes 3 --verbose: exit" 0 "$?"
check_eq "lanes 3 --verbose: a span line a batch" 4 \
    "$(grep -c '^gpusvm-grid: batch [0-3] of 2 cell(s) from log2c=[0-9.]* log2g=[-0-9.]*: [0-9.]* to [0-9.]* s$' "$TMPD/l3/vstderr")"
check_file_eq "lanes 3 --verbose: stdout as without" "$TMPD/l1/stdout" "$TMPD/l3/vstdout"

# epsilon-SVR's -log2p: each cell's rate is gpusvm-train -s 3 -v 5's mean squared error
D=$GOLDEN/diabetes/diabetes_xy.scale
if [ -f "$D" ]; then
    (cd "$TMPD/n" && "$GRID" -s 3 -log2c 0,0,1 -log2g null -log2p -3,-2,1 -out p.out -gnuplot null "$D" > pstdout 2> /dev/null)
    check_eq "-log2p: 2 cells" 2 "$(wc -l < "$TMPD/n/p.out")"
    for lp in -3.0 -2.0; do
        want=$(sed -n "s/^log2c=0.0 log2p=$lp rate=//p" "$TMPD/n/p.out")
        p=$(awk -v x="$lp" 'BEGIN { printf "%.17g", 2 ^ x }')
        got=$("$TRAIN" -q -s 3 -c 1 -p "$p" -v 5 "$D" | sed -n 's/^Cross Validation Mean squared error = //p')
        same_num "-log2p $lp: gpusvm-train -v's MSE" "$want" "$got"
    done
else
    skip "../shared/reference/golden absent: -log2p not run"
fi
finish
