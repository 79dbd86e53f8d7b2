#!/bin/sh
# gpusvm-grid under MPI: `mpirun -np 2` (oversubscribed, on PoCL) writes the same stdout lines and
# -out file as one process. Runs the MPI build ($BUILD/gpusvm-grid-mpi, which `make tests` builds
# when mpicc exists, or gpusvm-grid itself after `make MPI=1`); skips, saying why, without mpirun
# or without an MPI build.
. "$(dirname "$0")/lib.sh"
GRID=$B/gpusvm-grid
require_bin "$GRID"
if ! command -v mpirun > /dev/null 2>&1; then
    skip "no mpirun (Open MPI: apt-get install openmpi-bin libopenmpi-dev, then make tests)"; finish; exit
fi
MGRID=$B/gpusvm-grid-mpi
[ -x "$MGRID" ] || MGRID=$GRID
if ! "$MGRID" --version | grep -q 'built with MPI'; then
    skip "no MPI build of gpusvm-grid (make MPI=1, or make tests with mpicc present)"; finish; exit
fi
# Under a sanitizer build (make asan) Open MPI's plugins leak at exit from modules already unloaded,
# which LeakSanitizer cannot attribute or suppress: the ranks run without leak detection (gpusvm's
# own leaks are still checked by the one-process run here and by every other test).
MPI_ASAN=${ASAN_OPTIONS:-}
if ldd "$MGRID" 2>/dev/null | grep -q libasan; then MPI_ASAN="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"; fi
# Open MPI as root needs --allow-run-as-root; --oversubscribe: more ranks than cores is fine here
mpi() { ASAN_OPTIONS=$MPI_ASAN mpirun --allow-run-as-root --oversubscribe "$@"; }
H=$TOP/data/heart_scale
ARGS="-log2c -1,3,2 -log2g -7,-5,2 -gnuplot null"
mkdir -p "$TMPD/one" "$TMPD/two"
(cd "$TMPD/one" && "$GRID" $ARGS "$H" > stdout 2> stderr); rc=$?
check_eq "one process: exit" 0 "$rc"
(cd "$TMPD/two" && mpi -np 2 "$MGRID" $ARGS "$H" > stdout 2> stderr); rc=$?
check_eq "mpirun -np 2: exit" 0 "$rc"
check_file_eq "mpirun -np 2: stdout as one process" "$TMPD/one/stdout" "$TMPD/two/stdout"
check_file_eq "mpirun -np 2: heart_scale.out as one process" "$TMPD/one/heart_scale.out" "$TMPD/two/heart_scale.out"
# -resume: rank 0 reads the file; the ranks train only the other cells, appended as one process does
head -n 2 "$TMPD/one/heart_scale.out" > "$TMPD/one/p.out"; cp "$TMPD/one/p.out" "$TMPD/two/p.out"
(cd "$TMPD/one" && "$GRID" $ARGS -out p.out -resume p.out "$H" > rstdout 2> /dev/null)
(cd "$TMPD/two" && mpi -np 2 "$MGRID" $ARGS -out p.out -resume p.out "$H" > rstdout 2> /dev/null)
check_file_eq "mpirun -np 2 -resume: stdout as one process" "$TMPD/one/rstdout" "$TMPD/two/rstdout"
check_file_eq "mpirun -np 2 -resume: the file as one process'" "$TMPD/one/p.out" "$TMPD/two/p.out"
# two batches a rank at once (GPUSVM_GRID_LANES=2: rounds of 4 batches of at most 3 cells) on a
# 4 x 2 grid: the same stdout and -out file as one process with one batch at a time
A2="-log2c -1,5,2 -log2g -7,-5,2 -gnuplot null"
mkdir -p "$TMPD/l1" "$TMPD/l2"
(cd "$TMPD/l1" && GPUSVM_GRID_LANES=1 "$GRID" $A2 -out l.out "$H" > stdout 2> /dev/null)
(cd "$TMPD/l2" && mpi -np 2 -x GPUSVM_GRID_LANES=2 "$MGRID" $A2 -out l.out "$H" > stdout 2> stderr); rc=$?
check_eq "mpirun -np 2, 2 lanes: exit" 0 "$rc"
check_eq "mpirun -np 2, 2 lanes: 8 cells" 8 "$(wc -l < "$TMPD/l2/l.out")"
check_file_eq "mpirun -np 2, 2 lanes: stdout as one process" "$TMPD/l1/stdout" "$TMPD/l2/stdout"
check_file_eq "mpirun -np 2, 2 lanes: -out as one process" "$TMPD/l1/l.out" "$TMPD/l2/l.out"
# an error on rank 0 (no such data set) ends every rank, exit 1, said once
(cd "$TMPD/two" && mpi -np 2 "$MGRID" $ARGS "$TMPD/none" > e.out 2> e.err); rc=$?
if [ "$rc" -ne 0 ]; then pass; else fail "mpirun without the data set: exit 0"; fi
check_eq "mpirun: the error said once" 1 "$(grep -c 'dataset not found' "$TMPD/two/e.err")"
finish
