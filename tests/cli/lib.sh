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
finish() { echo "RESULT $T_PASS $T_FAIL $T_SKIP"; [ "$T_FAIL" -eq 0 ]; }
