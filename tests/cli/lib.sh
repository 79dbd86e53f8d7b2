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
finish() { echo "RESULT $T_PASS $T_FAIL $T_SKIP"; [ "$T_FAIL" -eq 0 ]; }
