#!/bin/sh
# tests/fuzz/run.sh — builds the libFuzzer harnesses (make fuzz-build, into build-fuzz/) and runs
# each for FUZZ_SECONDS (default 20) on a scratch copy of its seed corpus tests/fuzz/corpus/<name>
# (new inputs go to the scratch copy; the tracked seeds stay as they are). One check per harness:
# it passes when libFuzzer stops at the time limit without a finding; a finding is saved as
# build-fuzz/artifacts/<name>-crash-... and fails the check. Without clang: one SKIP.
# Ends with "RESULT passed failed skipped" for tests/run.sh.
# Env: FUZZ_SECONDS, FUZZ_NOBUILD=1 (make fuzz has built them), FUZZ_CC (default clang).
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
S=${FUZZ_SECONDS:-20}
CCF=${FUZZ_CC:-clang}
if ! command -v "$CCF" > /dev/null 2>&1; then
    echo "SKIP fuzz: $CCF not found (install clang for the libFuzzer harnesses)"
    echo "RESULT 0 0 1"
    exit 0
fi
if [ "${FUZZ_NOBUILD:-0}" != 1 ]; then
    # on every CPU (tests/run.sh runs this beside other tests); quiet unless it fails
    if ! log=$(make -s -j"$(nproc 2>/dev/null || echo 1)" fuzz-build FUZZ_CC="$CCF" 2>&1); then
        printf '%s\n' "$log" | tail -n 20
        echo "FAIL fuzz: make fuzz-build failed"
        echo "RESULT 0 1 0"
        exit 1
    fi
fi
p=0; f=0
mkdir -p build-fuzz/artifacts
for bin in build-fuzz/fuzz/fuzz_*; do
    case "$bin" in *.d) continue ;; esac
    [ -x "$bin" ] || continue
    name=${bin##*/fuzz_}
    work=$(mktemp -d "${TMPDIR:-/tmp}/gsfuzzcorpus.XXXXXX") || exit 1
    log=build-fuzz/artifacts/$name.log
    # -timeout: one input taking 10 s is a finding (a hang); -rss_limit_mb: so is 2 GB of memory.
    "$bin" -max_total_time="$S" -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
        -artifact_prefix="build-fuzz/artifacts/$name-" "$work" "tests/fuzz/corpus/$name" > "$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rm -rf "$work"
    if [ "$rc" -eq 0 ]; then
        echo "fuzz_$name: ${runs:-?} executions in $S s, no finding"
        p=$((p + 1))
    else
        tail -n 30 "$log"
        echo "FAIL fuzz_$name: libFuzzer exit $rc after ${runs:-?} executions (log $log, input saved under build-fuzz/artifacts/)"
        f=$((f + 1))
    fi
done
if [ $((p + f)) -eq 0 ]; then
    echo "FAIL fuzz: no harness in build-fuzz/fuzz"
    f=1
fi
echo "RESULT $p $f 0"
[ "$f" -eq 0 ]
