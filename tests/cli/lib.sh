# tests/cli/lib.sh — helpers for the shell tests. Source it; call check_* and finish at the end.
# Env: BUILD (build dir, default build), TOP (repo root). Prints FAIL/SKIP lines and a final
# "RESULT p f s" line that tests/run.sh sums.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case "$BUILD" in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
TRAIN=$B/gpusvm-train
PREDICT=$B/gpusvm-predict
GOLDEN=$TOP/../shared/reference/golden
DATASETS=$TOP/../shared/datasets
T_PASS=0; T_FAIL=0; T_SKIP=0
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/gstest.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT

pass() { T_PASS=$((T_PASS + 1)); }
fail() { T_FAIL=$((T_FAIL + 1)); echo "FAIL $(basename "$0"): $*"; }
skip() { T_SKIP=$((T_SKIP + 1)); echo "SKIP $(basename "$0"): $*"; }
# check_eq NAME EXPECTED ACTUAL
check_eq() { if [ "$2" = "$3" ]; then pass; else fail "$1: expected [$2] got [$3]"; fi; }
# check_file_eq NAME EXPECTED_FILE ACTUAL_FILE
check_file_eq() {
    if cmp -s "$2" "$3"; then pass; else fail "$1: files differ: $2 vs $3"; diff "$2" "$3" | head -5; fi
}
# require_dir DIR: SKIP (and end the script) when a reference folder is absent
require_dir() { if [ ! -d "$1" ]; then skip "golden reference absent ($1)"; finish; exit $?; fi; }
# require_bin PROGRAM: FAIL (and end the script) when a binary was not built
require_bin() { if [ ! -x "$1" ]; then fail "no $1 (build first)"; finish; exit $?; fi; }
# mask_train FILE: training stdout with progress, #iter and solver values masked
mask_train() {
    sed -e 's/^[.*][.*]*$/PROGRESS/' -e 's/#iter = [0-9]*/#iter = N/' -e 's/^nu = .*/nu = X/' \
        -e 's/^obj = .*/obj = X/' -e 's/^C = .*/C = X/' -e 's/^epsilon = .*/epsilon = X/' "$1"
}
# python3 with Debian's LIBSVM bindings (python3-libsvm: module svmutil), which may not be the
# first python3 on PATH; empty when there is none
PY3=
for p in /usr/bin/python3 python3; do
    if "$p" -c 'import svmutil' 2>/dev/null; then PY3=$p; break; fi
done
# oneclass_flips TEST LIBSVM_MODEL GPUSVM_PRED LIBSVM_PRED TOL: one-class labels that differ off
# LIBSVM's boundary: rows whose two predictions differ while LIBSVM's decision value is beyond
# TOL * max(1, |rho|) from 0 (free SVs sit on the boundary, where either label is right). Needs PY3.
oneclass_flips() {
    "$PY3" - "$@" <<'PY'
import sys
from svmutil import svm_load_model, svm_read_problem, svm_predict
y, x = svm_read_problem(sys.argv[1])
m = svm_load_model(sys.argv[2])
_, _, dec = svm_predict(y, x, m, '-q')
g = [float(v) for v in open(sys.argv[3])]
r = [float(v) for v in open(sys.argv[4])]
tol = float(sys.argv[5]) * max(1.0, abs(m.rho[0]))
print(sum(1 for a, b, d in zip(g, r, dec) if a != b and abs(d[0]) > tol))
PY
}
# sparse_rows FILE: 1,500 random sparse rows over 3,000 columns, two classes (row-wise ELL
# clusters without being wide data); sparse3_rows FILE: 1,200 rows of integers over 2,500
# columns, three classes (their float dot products exact)
sparse_rows() {
    awk 'BEGIN { srand(11); for (i = 0; i < 1500; i++) { y = rand() < 0.5 ? 1 : -1; printf "%d", y
        for (j = 1; j <= 3000; j++) if (rand() < 0.012) { v = int(rand() * 1000) / 1000 + 0.001; if (y > 0 && j < 300) v += 0.5
            printf " %d:%g", j, v }
        printf "\n" } }' > "$1"
}
sparse3_rows() {
    awk 'BEGIN { srand(5); for (i = 0; i < 1200; i++) { y = 1 + int(rand() * 3); printf "%d", y
        for (j = 1; j <= 2500; j++) if (rand() < 0.015) { v = 1 + int(rand() * 4); if (j < 200 && j % 3 == y - 1) v += 3
            printf " %d:%d", j, v }
        printf "\n" } }' > "$1"
}
finish() { echo "RESULT $T_PASS $T_FAIL $T_SKIP"; [ "$T_FAIL" -eq 0 ]; }
