#!/bin/sh
# The certification's cost and effect on a GPU, as measured for docs/correctness.md. Builds this
# tree; OLD_BUILD is a build of the commit to compare with (e.g. a checkout of f953a2a built with
# make). DATA_DIR holds the sets as ../shared/datasets does; unscaled4601.gz is made there by
# tests/data/gen_unscaled.py when missing. On the NVIDIA machine, as root, first:
#   mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
# Usage: scripts/certify-gpu.sh DATA_DIR OLD_BUILD    (env REPEAT, default 7)
set -u
DATA=$1; OLD=$2
make -j"$(nproc)" tests > /dev/null 2>&1 || { echo "build failed"; exit 1; }
[ -f "$DATA/unscaled4601.gz" ] || python3 tests/data/gen_unscaled.py 4601 | gzip > "$DATA/unscaled4601.gz"
# the first run of each build (its kernel compile when the driver's cache is empty)
/usr/bin/time -f "first run a9a, this tree: %e s" ./build/gpusvm-train -q "$DATA/a9a/a9a.gz" /tmp/cg.m1
/usr/bin/time -f "first run a9a, $OLD: %e s" "$OLD/gpusvm-train" -q "$DATA/a9a/a9a.gz" /tmp/cg.m2
REPEAT=${REPEAT:-7} GAP=1 CHECK=0 SETS="a9a:a9a/a9a.gz:-c 1 -g 0.05;ijcnn1:ijcnn1/ijcnn1.gz:;w8a:w8a/w8a.gz:;\
letter:letter/letter.scale.gz:;mnist10k:mnist10k/mnist10k.scale.gz:;unscaled4601:unscaled4601.gz:-c 100 -g 0.5;\
unscaled4601:unscaled4601.gz:-w1 5;svmguide1:svmguide1/svmguide1.gz:-c 100 -g 0.5;\
unscaled-linear:unscaled4601.gz:-t 0 -c 0.001" sh scripts/bench-certify.sh "$DATA" build "$OLD"
# three interleaved --verbose runs on a9a: where the time goes
for b in build "$OLD" build "$OLD" build "$OLD"; do
    sleep 1
    echo "== $b"
    "$b/gpusvm-train" --verbose -c 1 -g 0.05 "$DATA/a9a/a9a.gz" /tmp/cg.m 2>&1 |
        grep -E 'certification [0-9.]+ s|training \(|model written|clustering'
done
# the independent checker on both builds' models (in parallel; long double, minutes on a9a)
for s in "a9a/a9a.gz:-c 1 -g 0.05:1" "w8a/w8a.gz::1" "ijcnn1/ijcnn1.gz::1" "letter/letter.scale.gz::1" \
         "unscaled4601.gz:-c 100 -g 0.5:100" "svmguide1/svmguide1.gz:-c 100 -g 0.5:100"; do
    f=${s%%:*}; r=${s#*:}; o=${r%%:*}; c=${r#*:}; d=/tmp/cg.$(echo "$f" | tr '/.' '__')
    (gzip -dc "$DATA/$f" > "$d"
     for b in build "$OLD"; do
         # shellcheck disable=SC2086
         "$b/gpusvm-train" -q $o "$d" "$d.$$.m"
         echo "$f $o [$b]: float values $(./build/tests/tools/kkt_check -f "$d" "$d.$$.m" "$c" | tail -1)," \
              "file values $(./build/tests/tools/kkt_check "$d" "$d.$$.m" "$c" | tail -1)"
     done > "$d.out") &
done
wait
cat /tmp/cg.*.out
