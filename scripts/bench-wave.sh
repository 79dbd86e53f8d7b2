#!/bin/sh
# This wave's GPU measurements in one call (the closing notes and docs/performance.md cite it):
# the first run's compile, the five standard sets against LIBSVM and ThunderSVM (scripts/bench),
# one-class and epsilon-SVR on a9a against both, this tree against an older commit (same sets,
# whole process, interleaved), and the exit helper's cost (scripts/bench-exit.sh when present).
# Usage, from the repository root on the NVIDIA machine (as root, for the ICD file):
#   scripts/bench-wave.sh DIR [OLD_SRC]
# DIR holds ds/ (the sets laid out as ../shared/datasets), debs/ (libsvm3 and libsvm-tools .deb,
# scripts/fetch-libsvm-debs.sh), tools/ (thundersvm-5c6a056.tar.gz and build-thundersvm.sh from
# ../shared/tools); OLD_SRC is a source tree of the commit compared with (git archive COMMIT).
# Env: REPEAT (default 5), PARTS (default "first bench types cv old exit": which parts to run;
# "held" also: gpusvm alone, one training against -v 5 and -b 1 on a9a, letter, mnist10k;
# "year" also: epsilon-SVR on the generated 500,000 x 90 year-gen, LIBSVM and ThunderSVM on its
# first YEAR_SUBSET rows (default 20000, extrapolated; ThunderSVM on all of them with YEAR_TSVM_FULL=1,
# ~30 s on an H100), gpusvm YEAR_REPEAT times (default 1), all predicting the first YEAR_TEST (5000)
# test rows; generated into DIR/gen on the machine),
# "grid": gpusvm-grid against svm-grid (with gpusvm-train, with LIBSVM) on heart_scale's default
# grid, and alone on a9a (GRID_A9A_ROWS rows) with each of GRID_LANES (default "auto": gpusvm's
# choice; numbers set GPUSVM_GRID_LANES) and on GRID_SETS (default none; e.g. "ijcnn1 letter", each
# stopped after GRID_TIMEOUT s, default 420), with the process's CPU time;
# "gridcmp": issue #24's comparison on each set:rows of GRID_CMP (default "heart_scale:0 a9a:5000
# letter:5000 ijcnn1:5000", rows 0 = all): gpusvm-grid, svm-grid driving gpusvm-train (grid.py's
# one local worker) and svm-grid driving LIBSVM's svm-train with GRID_WORKERS local workers
# (default nproc; grid.py has no option for it: a copy with nr_local_worker set), each stopped
# after GRID_CMP_TIMEOUT s (default 150) with the cells it finished counted, the best lines shown;
# TYPES (';'-separated svm-train options of the "types" part), TYPES_SETS (its sets, default a9a;
# e.g. abalone with TYPES="-s 3 -p 0.1;-s 4 -n 0.5"), TYPES_SUBSET (LIBSVM's and ThunderSVM's
# --ref-subset there; default 0, the whole set).
set -u
D=$1; OLD=${2:-}
REPEAT=${REPEAT:-5}; PARTS=${PARTS:-first bench types cv old exit}
if [ "$(id -u)" -eq 0 ] && [ ! -f /etc/OpenCL/vendors/nvidia.icd ]; then
    mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
# unpack_libsvm: LIBSVM's .debs of $D/debs unpacked into L=/tmp/bw.libsvm (scripts/bench's
# unpack_deb), LL the folder of its libsvm.so
unpack_libsvm() {
    L=/tmp/bw.libsvm; mkdir -p "$L"
    python3 - "$L" "$D"/debs/*.deb <<'PY'
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("bench", "scripts/bench")
spec = importlib.util.spec_from_loader("bench", loader)
b = importlib.util.module_from_spec(spec)
loader.exec_module(b)
for deb in sys.argv[2:]:
    b.unpack_deb(deb, sys.argv[1])
PY
    LL=$(dirname "$(find "$L" -name 'libsvm.so*' | head -n 1)")
}
make -j"$(nproc)" > /dev/null || { echo "build failed"; exit 1; }
if [ -n "$OLD" ]; then make -C "$OLD" -j"$(nproc)" > /dev/null || { echo "old build failed"; exit 1; }; fi
T=$D/tsvm
[ -x "$T/thundersvm-train" ] || bash "$D/tools/build-thundersvm.sh" "$D/tools/thundersvm-5c6a056.tar.gz" "$T" > "$D/tsvm-build.log" 2>&1 ||
    echo "ThunderSVM build failed (see $D/tsvm-build.log)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
if has first; then
    # a fresh machine's first run builds the kernels: empty caches (gpusvm's, NVIDIA's off) against
    # gpusvm's kernel cache alone, both caches, the driver's alone (scripts/bench-first-run.sh)
    scripts/bench-first-run.sh -n 3 -c /tmp/bw.m -- ./build/gpusvm-train -q "$D/ds/a9a/a9a.gz" /tmp/bw.m
    scripts/bench-first-run.sh -n 3 -c /tmp/bw.p -- ./build/gpusvm-predict "$D/ds/a9a/a9a.t.gz" /tmp/bw.m /tmp/bw.p
fi
if has bench; then
    scripts/bench --data-dir "$D/ds" --libsvm-debs "$D/debs" --thundersvm "$T" --repeat "$REPEAT" \
        --datasets a9a,ijcnn1,w8a,letter,mnist10k --out-md "$D/bench.md" --csv "$D/bench.csv" > "$D/bench.log" 2>&1
    cat "$D/bench.md"
fi
if has types; then
    # (a9a's classes hold 24% and 76% of the rows: nu-SVC is feasible up to nu = 0.48)
    TYPES=${TYPES:-"-s 1 -n 0.4 -g 0.05;-s 2 -n 0.1 -g 0.05;-s 3 -p 0.1 -g 0.05"}
    echo "$TYPES" | tr ';' '\n' | while read -r args; do
        scripts/bench --data-dir "$D/ds" --libsvm-debs "$D/debs" --thundersvm "$T" --repeat "$REPEAT" \
            --ref-subset "${TYPES_SUBSET:-0}" --datasets "${TYPES_SETS:-a9a}" --train-args "$args" --out-md "$D/types.md" \
            --csv "$D/types.csv" > "$D/types.log" 2>&1
        cat "$D/types.md"
    done
fi
# whole process, median of REPEAT
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
wall() { for i in $(seq "$REPEAT"); do sleep 1; s0=$(date +%s.%N); "$@" > /dev/null 2>&1; s1=$(date +%s.%N);
         awk -v a="$s0" -v b="$s1" 'BEGIN { print b - a }'; done | med; }
if has held; then
    # gpusvm alone: one training, -v 5 and -b 1 (their held-out rows on the device where large
    # enough), and with the CPU forced for the held-out rows (GPUSVM_CV_DEVICE=0)
    for s in "a9a/a9a.gz:-g 0.05" "letter/letter.scale.gz:-c 10 -g 0.5" "mnist10k/mnist10k.scale.gz:-g 0.02"; do
        f=${s%%:*}; o=${s#*:}
        echo "$f $o: train $(wall ./build/gpusvm-train -q $o "$D/ds/$f" /tmp/bw.m) s," \
             "-v 5 $(wall ./build/gpusvm-train -q $o -v 5 "$D/ds/$f") s" \
             "(held-out rows on the CPU $(wall env GPUSVM_CV_DEVICE=0 ./build/gpusvm-train -q $o -v 5 "$D/ds/$f") s)," \
             "-b 1 $(wall ./build/gpusvm-train -q $o -b 1 "$D/ds/$f" /tmp/bw.m) s"
    done
fi
if has cv; then
    # -v 5 (whole process, median of REPEAT): gpusvm against ThunderSVM, and against one training
    for s in "a9a/a9a.gz:-c 1 -g 0.05" "letter/letter.scale.gz:-c 10 -g 0.5" "mnist10k/mnist10k.scale.gz:-g 0.02" \
             "ijcnn1/ijcnn1.gz:"; do
        f=${s%%:*}; o=${s#*:}
        gunzip -c "$D/ds/$f" > /tmp/bw.plain
        echo "-v 5 $f $o: gpusvm $(wall ./build/gpusvm-train -q $o -v 5 "$D/ds/$f") s," \
             "one training $(wall ./build/gpusvm-train -q $o "$D/ds/$f" /tmp/bw.m) s," \
             "ThunderSVM $(wall "$T/thundersvm-train" $o -v 5 /tmp/bw.plain) s"
        ./build/gpusvm-train -q $o -v 5 "$D/ds/$f"; "$T/thundersvm-train" $o -v 5 /tmp/bw.plain 2>&1 | grep -i 'cross' | tail -1
    done
fi
if has old && [ -n "$OLD" ]; then
    # the older build exits through its forked child: this one does too here (GPUSVM_FAST_EXIT=1),
    # so the comparison is of the work, and the "exit" part measures what the plain exit costs
    GPUSVM_FAST_EXIT=1 REPEAT=$REPEAT GAP=1 CHECK=0 sh scripts/bench-certify.sh "$D/ds" build "$OLD/build"
fi
if has year; then
    scripts/bench --data-dir "$D/ds" --gen-dir "$D/gen" --libsvm-debs "$D/debs" --thundersvm "$T" \
        ${YEAR_TSVM_FULL:+--thundersvm-full} --repeat "${YEAR_REPEAT:-1}" --ref-subset "${YEAR_SUBSET:-20000}" --test-subset "${YEAR_TEST:-5000}" --datasets year-gen \
        --train-args "${YEAR_ARGS:--s 3 -p 0.1}" --breakdown --timeout 400 --out-md "$D/year.md" --csv "$D/year.csv" > "$D/year.log" 2>&1
    cat "$D/year.md"
fi
if has grid; then
    # gpusvm-grid against svm-grid driving gpusvm-train and svm-grid driving LIBSVM's svm-train (one
    # local worker, grid.py's default), svm-grid's default grid on heart_scale; gpusvm-grid alone on
    # a9a (its default grid, GRID_A9A_ROWS rows, default all)
    unpack_libsvm
    gunzip -c "$D/ds/heart_scale/heart_scale.gz" > /tmp/bw.heart
    t() { s0=$(date +%s.%N); "$@" > /tmp/bw.grid.out 2>/tmp/bw.grid.err; rc=$?; s1=$(date +%s.%N);
          awk -v a="$s0" -v b="$s1" -v rc="$rc" 'BEGIN { printf "%.2f s (exit %d)", b - a, rc }'; }
    echo "heart_scale default grid: gpusvm-grid $(t ./build/gpusvm-grid -out null -gnuplot null /tmp/bw.heart);" \
         "best: $(tail -n 1 /tmp/bw.grid.out)"
    echo "heart_scale default grid: svm-grid + gpusvm-train $(t python3 "$L/usr/bin/svm-grid" -svmtrain ./build/gpusvm-train \
         -out null -gnuplot null /tmp/bw.heart); best: $(tail -n 1 /tmp/bw.grid.out)"
    echo "heart_scale default grid: svm-grid + LIBSVM $(t env LD_LIBRARY_PATH="$LL" python3 "$L/usr/bin/svm-grid" \
         -svmtrain "$L/usr/bin/svm-train" -out null -gnuplot null /tmp/bw.heart); best: $(tail -n 1 /tmp/bw.grid.out)"
    # tc: t with the child's CPU time (user + system), through python3's getrusage
    tc() { python3 -c 'import resource, subprocess, sys, time
t = time.time()
with open("/tmp/bw.grid.out", "w") as o, open("/tmp/bw.grid.err", "w") as e:
    rc = subprocess.run(sys.argv[1:], stdout=o, stderr=e).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f s (exit %d; CPU %.0f s user, %.0f s system)" % (time.time() - t, rc, r.ru_utime, r.ru_stime))' "$@"; }
    gunzip -c "$D/ds/a9a/a9a.gz" | head -n "${GRID_A9A_ROWS:-1000000}" > /tmp/bw.a9a
    for L in ${GRID_LANES:-auto}; do
        if [ "$L" = auto ]; then unset GPUSVM_GRID_LANES; else export GPUSVM_GRID_LANES=$L; fi
        echo "a9a ($(wc -l < /tmp/bw.a9a) rows) default grid, lanes $L: gpusvm-grid" \
             "$(tc timeout "${GRID_TIMEOUT:-420}" ./build/gpusvm-grid -out null -gnuplot null /tmp/bw.a9a);" \
             "best: $(tail -n 1 /tmp/bw.grid.out); $(grep -c 'max number of iterations' /tmp/bw.grid.err)" \
             "max-iterations warnings"
    done
    unset GPUSVM_GRID_LANES
    for s in ${GRID_SETS:-}; do
        f=$(ls "$D/ds/$s/"*.gz | grep -v '\.t\.gz$' | head -n 1)
        gunzip -c "$f" > /tmp/bw.gridset
        echo "$s ($(wc -l < /tmp/bw.gridset) rows) default grid: gpusvm-grid" \
             "$(tc timeout "${GRID_TIMEOUT:-420}" ./build/gpusvm-grid -out null -gnuplot null /tmp/bw.gridset);" \
             "best: $(tail -n 1 /tmp/bw.grid.out); $(grep -c 'max number of iterations' /tmp/bw.grid.err)" \
             "max-iterations warnings; $(grep -c . /tmp/bw.grid.out) lines"
    done
fi
if has gridcmp; then
    unpack_libsvm
    W=${GRID_WORKERS:-$(nproc)}
    sed "s/^nr_local_worker = 1\$/nr_local_worker = $W/" "$L/usr/bin/svm-grid" > /tmp/bw.svm-grid-w
    grep -q "^nr_local_worker = $W\$" /tmp/bw.svm-grid-w || echo "gridcmp: could not set svm-grid's local workers"
    # g NAME OUT CMD...: wall time within the timeout, the -out file's cells and its best line
    g() { name=$1; out=$2; shift 2; rm -f "$out"; s0=$(date +%s.%N)
          timeout "${GRID_CMP_TIMEOUT:-150}" "$@" > /tmp/bw.cmp.out 2> /dev/null; rc=$?; s1=$(date +%s.%N)
          awk -v a="$s0" -v b="$s1" -v rc="$rc" -v n="$name" -v c="$(grep -c . "$out" 2> /dev/null || echo 0)" \
              -v best="$(tail -n 1 /tmp/bw.cmp.out)" 'BEGIN { printf "  %s: %.2f s (exit %d%s), %d cells; %s\n", n, b - a, rc,
              rc == 124 ? ": stopped" : "", c, rc == 0 ? best : "" }'; }
    for sr in ${GRID_CMP:-heart_scale:0 a9a:5000 letter:5000 ijcnn1:5000}; do
        s=${sr%%:*}; rows=${sr#*:}
        f=$(ls "$D/ds/$s/"*.gz | grep -v '\.t\.gz$' | head -n 1)
        if [ "$rows" -gt 0 ]; then gunzip -c "$f" | head -n "$rows" > /tmp/bw.cmp; else gunzip -c "$f" > /tmp/bw.cmp; fi
        echo "$s ($(wc -l < /tmp/bw.cmp) rows), svm-grid's default grid:"
        g "gpusvm-grid" /tmp/bw.cmp.o1 ./build/gpusvm-grid -out /tmp/bw.cmp.o1 -gnuplot null /tmp/bw.cmp
        g "svm-grid + gpusvm-train (1 worker)" /tmp/bw.cmp.o2 python3 "$L/usr/bin/svm-grid" -svmtrain ./build/gpusvm-train \
            -out /tmp/bw.cmp.o2 -gnuplot null /tmp/bw.cmp
        g "svm-grid + LIBSVM ($W workers)" /tmp/bw.cmp.o3 env LD_LIBRARY_PATH="$LL" python3 /tmp/bw.svm-grid-w \
            -svmtrain "$L/usr/bin/svm-train" -out /tmp/bw.cmp.o3 -gnuplot null /tmp/bw.cmp
    done
fi
if has exit && [ -f scripts/bench-exit.sh ]; then
    sh scripts/bench-exit.sh "$REPEAT" "$D/ds/a9a/a9a.gz"
fi
