#!/bin/sh
# svm-easy (Debian's /usr/bin/svm-easy, LIBSVM 3.24's tools/easy.py) end to end on a heart_scale
# split (200 rows to train, 70 to test): scale, grid search, train, scale the test set, predict.
# easy.py runs ../svm-scale, ../svm-train, ../svm-predict and ./grid.py from its current directory,
# so each run gets a directory d/tools with d/svm-* linked to the programs and d/tools/grid.py a
# small script that runs grid.py. Three runs:
#   LIBSVM    : Debian's svm-scale, svm-train, svm-predict; grid.py = svm-grid
#   gpusvm    : gpusvm-scale, gpusvm-train, gpusvm-predict; grid.py = svm-grid (a gpusvm-train per cell)
#   gpusvm-grid: the same programs; grid.py = gpusvm-grid (every cell in one process)
# Each must complete, choose LIBSVM's best (c, g) with its CV rate, and predict the test set as
# LIBSVM does. The grid: easy.py passes none, so grid.py's default (11 x 10 cells) would apply,
# 110 gpusvm-train processes: ~1-2 s each on PoCL with 2 shared cores, minutes in all. So here
# grid.py is given log2c 3,7,2 and log2g -9,-5,2 (9 cells around LIBSVM's best on this split, which
# the full grid gives as c=32, g=0.0078125); GPUSVM_TEST_FULL=1 runs the full default grid.
. "$(dirname "$0")/lib.sh"
SCALE=$B/gpusvm-scale
require_bin "$SCALE"; require_bin "$TRAIN"; require_bin "$PREDICT"; require_bin "$B/gpusvm-grid"
for p in svm-easy svm-grid svm-scale svm-train svm-predict python3; do
    if ! command -v "$p" > /dev/null 2>&1; then skip "$p not installed (libsvm-tools, python3)"; finish; exit; fi
done
# easy.py asserts that /usr/bin/gnuplot exists, even though it never needs the plot
if [ ! -x /usr/bin/gnuplot ]; then skip "easy.py needs /usr/bin/gnuplot (apt-get install gnuplot-nox)"; finish; exit; fi
H=$TOP/data/heart_scale
head -n 200 "$H" > "$TMPD/tr"
tail -n 70 "$H" > "$TMPD/te"
GRID_RANGE="-log2c 3,7,2 -log2g -9,-5,2"
[ "${GPUSVM_TEST_FULL:-0}" = 1 ] && GRID_RANGE=""

# easy NAME SCALE TRAIN PREDICT GRID...: runs easy.py in $TMPD/NAME/tools
easy() {
    d=$TMPD/$1; mkdir -p "$d/tools"
    ln -s "$2" "$d/svm-scale"; ln -s "$3" "$d/svm-train"; ln -s "$4" "$d/svm-predict"
    shift 4
    printf '#!/bin/sh\nexec %s %s "$@"\n' "$*" "$GRID_RANGE" > "$d/tools/grid.py"
    chmod +x "$d/tools/grid.py"
    (cd "$d/tools" && python3 "$(command -v svm-easy)" ../../tr ../../te > out 2> err); rc=$?
    check_eq "$(basename "$d"): exit" 0 "$rc"
    if grep -q '^Output prediction: te.predict' "$d/tools/out"; then pass
    else fail "$(basename "$d"): easy.py did not finish: $(tail -n 3 "$d/tools/out" "$d/tools/err")"; fi
}
easy libsvm "$(command -v svm-scale)" "$(command -v svm-train)" "$(command -v svm-predict)" python3 "$(command -v svm-grid)"
easy gpusvm "$SCALE" "$TRAIN" "$PREDICT" python3 "$(command -v svm-grid)"
easy gpusvm-grid "$SCALE" "$TRAIN" "$PREDICT" "$B/gpusvm-grid"

best() { grep '^Best c=' "$TMPD/$1/tools/out"; }
accuracy() { grep '^Accuracy = ' "$TMPD/$1/tools/out"; }
for run in gpusvm gpusvm-grid; do
    check_eq "$run: the best (c, g) and CV rate as LIBSVM's" "$(best libsvm)" "$(best $run)"
    check_eq "$run: test accuracy as LIBSVM's" "$(accuracy libsvm)" "$(accuracy $run)"
    check_file_eq "$run: tr.scale as svm-scale's" "$TMPD/libsvm/tools/tr.scale" "$TMPD/$run/tools/tr.scale"
    check_file_eq "$run: te.predict as LIBSVM's" "$TMPD/libsvm/tools/te.predict" "$TMPD/$run/tools/te.predict"
done
finish
