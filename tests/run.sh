#!/bin/sh
# Runs every test: C unit tests, device tests, CLI shell tests, the libFuzzer harnesses; TEST_JOBS
# of them at a time (default: the CPUs, at most 4), the slowest first. Each test's FAIL and SKIP
# lines and its time are printed as it ends; then one final line "N passed, N failed, N skipped".
# Exit status 1 when anything failed.
# Env: BUILD (default build); TESTS_FILTER (substring of test names to run); TEST_JOBS (tests at
# a time; 1 runs them one after another in the list's order); FUZZ_SECONDS (per fuzz harness,
# default 20).
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
export BUILD TOP
export FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
# a test's name (its result file's, TESTS_FILTER's): the file's, "fuzz" for the fuzz runner
test_name() { case "$1" in */fuzz/run.sh) echo fuzz ;; *) basename "$1" ;; esac; }

# sh tests/run.sh --one TEST: runs one test (a binary, a tests/cli script or the fuzz runner),
# writes "passed failed skipped" to $GS_RUN_DIR/<name>.res and prints its report in one write.
if [ "${1:-}" = --one ]; then
    t=$2; name=$(test_name "$t")
    case "$t" in
        *.sh) set -- sh "$t" ;;
        *) set -- "$t" ;;
    esac
    start=$(date +%s)
    out=$("$@" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep '^RESULT ' | tail -n 1)
    rep=$(printf '%s\n' "$out" | grep -E '^(FAIL|SKIP)' | sed "s|^|  [$name] |")
    if [ -z "$line" ]; then
        rep="$rep${rep:+
}  [$name] crashed or printed no RESULT (exit $rc); last output:
$(printf '%s\n' "$out" | tail -n 5 | sed 's/^/    /')"
        res="0 1 0"
    else
        set -- $line
        res="$2 $3 $4"
        if [ "$3" -eq 0 ] && [ "$rc" -ne 0 ]; then
            rep="$rep${rep:+
}  [$name] exit status $rc"
            res="$2 1 $4"
        fi
    fi
    [ -n "${GS_RUN_DIR:-}" ] && echo "$res" > "$GS_RUN_DIR/$name.res"
    printf '%s\n' "$rep${rep:+
}$name: $(($(date +%s) - start)) s"
    exit 0
fi

# by default the CPUs this process may use, at most 4: every test runs OpenCL on all the cores
# itself, and a container may show more CPUs than its quota lets it use
JOBS=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$JOBS" in ''|*[!0-9]*|0) JOBS=1 ;; esac
[ -n "${TEST_JOBS:-}" ] || [ "$JOBS" -le 4 ] || JOBS=4
GS_RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gsrun.XXXXXX") || exit 1
export GS_RUN_DIR
trap 'rm -rf "$GS_RUN_DIR"' EXIT

# The list, slowest first so that the last to start are short (times on 2 cores with PoCL,
# docs/tests.md); anything not named here runs after them, unit and device binaries last.
SLOW="test_predict_libsvm_models.sh test_train_select.sh test_multidev.sh test_col_rows.sh
test_row_cache.sh test_certify.sh test_kernel_cache.sh fuzz test_predict_text.sh
test_precomputed.sh test_shrink.sh test_gzip_threads.sh test_predict_tile.sh test_predict_layout.sh
test_predict_golden.sh test_train_types.sh test_predict_hash.sh test_prob.sh test_output_file.sh
test_train_oracle.sh test_api.sh"
slow=" $(echo $SLOW) "
{
    for n in $SLOW; do
        case "$n" in
            fuzz) echo tests/fuzz/run.sh ;;
            *) [ -f "tests/cli/$n" ] && echo "tests/cli/$n" ;;
        esac
    done
    for t in tests/cli/test_*.sh; do
        case "$slow" in *" $(basename "$t") "*) continue ;; esac
        [ -f "$t" ] && echo "$t"
    done
    for t in "$BUILD"/tests/unit/* "$BUILD"/tests/device/*; do
        [ -x "$t" ] && [ -f "$t" ] && case "$t" in *.d|*.o) ;; *) echo "$t" ;; esac
    done
} | while read -r t; do
    n=$(test_name "$t")
    case "$n" in *"${TESTS_FILTER:-}"*) echo "$t" ;; esac
done > "$GS_RUN_DIR/list"

xargs -P "$JOBS" -I '{}' sh "$TOP/tests/run.sh" --one '{}' < "$GS_RUN_DIR/list"
p=0; f=0; s=0
while read -r t; do
    n=$(test_name "$t")
    if [ -f "$GS_RUN_DIR/$n.res" ]; then
        read -r a b c < "$GS_RUN_DIR/$n.res"
    else
        echo "  [$n] did not run"; a=0; b=1; c=0
    fi
    p=$((p + a)); f=$((f + b)); s=$((s + c))
done < "$GS_RUN_DIR/list"
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
