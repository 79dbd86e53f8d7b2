#!/bin/sh
# Runs every test: C unit tests, device tests, CLI shell tests. Prints each failing check and one
# final line "N passed, N failed, N skipped". Exit status 1 when anything failed.
# Env: BUILD (default build); TESTS_FILTER (substring of test names to run); FUZZ_SECONDS (per
# fuzz harness, default 20).
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
export BUILD TOP
p=0; f=0; s=0
run_one() { # name, command...
    name=$1; shift
    case "$name" in *"${TESTS_FILTER:-}"*) ;; *) return ;; esac
    start=$(date +%s)
    out=$("$@" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep '^RESULT ' | tail -n 1)
    printf '%s\n' "$out" | grep -E '^(FAIL|SKIP)' | sed "s|^|  [$name] |"
    if [ -z "$line" ]; then
        echo "  [$name] crashed or printed no RESULT (exit $rc); last output:"
        printf '%s\n' "$out" | tail -n 5 | sed 's/^/    /'
        f=$((f + 1))
    else
        set -- $line
        p=$((p + $2)); f=$((f + $3)); s=$((s + $4))
        if [ "$3" -eq 0 ] && [ "$rc" -ne 0 ]; then
            echo "  [$name] exit status $rc"; f=$((f + 1))
        fi
    fi
    echo "$name: $(($(date +%s) - start)) s"
}
for t in "$BUILD"/tests/unit/* "$BUILD"/tests/device/*; do
    [ -x "$t" ] && [ -f "$t" ] && case "$t" in *.d|*.o) ;; *) run_one "$(basename "$t")" "$t" ;; esac
done
for t in tests/cli/test_*.sh; do
    [ -f "$t" ] && run_one "$(basename "$t")" sh "$t"
done
# libFuzzer harnesses, FUZZ_SECONDS each (20 here; a SKIP without clang)
export FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
run_one fuzz sh tests/fuzz/run.sh
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
