#!/bin/sh
# bench-api-predict.sh — the cost of prediction through svm.h: tests/api/predict.c (svm-predict
# written on svm.h) built against gpusvm's installed library and against Debian's LIBSVM
# (libsvm-dev), run on the same model and rows, interleaved; prints each run's user CPU seconds.
#
#   sh scripts/bench-api-predict.sh TRAIN TEST ROWS REPEAT [gpusvm-train options]
#   e.g. sh scripts/bench-api-predict.sh a9a a9a.t 3000 3 -c 1 -g 0.05
# Needs make lib's prerequisites, /usr/include/libsvm/svm.h and GNU time (/usr/bin/time).
set -eu
[ $# -ge 4 ] || { echo "usage: $0 TRAIN TEST ROWS REPEAT [gpusvm-train options]" >&2; exit 1; }
train=$1; test=$2; rows=$3; repeat=$4; shift 4
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
make -s -C "$top" install PREFIX="$tmp/inst" > /dev/null
cc -O2 -std=c11 -I"$tmp/inst/include/gpusvm" "$top/tests/api/predict.c" -o "$tmp/pred_gpusvm" \
    -L"$tmp/inst/lib" -lgpusvm -Wl,-rpath,"$tmp/inst/lib"
cc -O2 -std=c11 -I/usr/include/libsvm "$top/tests/api/predict.c" -o "$tmp/pred_libsvm" -lsvm
"$tmp/inst/bin/gpusvm-train" -q "$@" "$train" "$tmp/model"
head -n "$rows" "$test" > "$tmp/rows"
echo "model: $(sed -n 's/^total_sv //p' "$tmp/model") SVs; $rows rows"
i=0
while [ "$i" -lt "$repeat" ]; do
    for lib in gpusvm libsvm; do
        /usr/bin/time -f "$lib %U s user, %e s wall" "$tmp/pred_$lib" "$tmp/rows" "$tmp/model" "$tmp/$lib.out" > /dev/null
    done
    cmp -s "$tmp/gpusvm.out" "$tmp/libsvm.out" || echo "the predictions differ" >&2
    i=$((i + 1))
done
