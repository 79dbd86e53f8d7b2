#!/bin/sh
# Several devices in one process (--device 0,1 / all): PoCL shows two CPU devices (POCL_DEVICES
# names its driver twice), and the one-vs-one pairs, -v folds, -b 1's folds and gpusvm-grid's cells
# dealt out over them give the same bytes as one device: models, stdout, the grid's -out file;
# so does a lone problem through shrinking's stages.
# And a bad list is refused with its reason, exit 1, no model.
. "$(dirname "$0")/lib.sh"
require_bin "$TRAIN"
GRID=$B/gpusvm-grid
H=$TOP/data/heart_scale

# the PoCL driver's name differs between versions ("cpu" in 4.x and later, "pthread" before)
TWO=
for drv in cpu pthread; do
    n=$(POCL_DEVICES="$drv $drv" "$TRAIN" --list-devices 2>/dev/null | grep -c 'Portable Computing Language')
    if [ "$n" = 2 ]; then TWO="$drv $drv"; break; fi
done
if [ -z "$TWO" ]; then skip "PoCL cannot show two CPU devices here (POCL_DEVICES): multi-device runs not checked"; finish; exit; fi

# a three-class set from heart_scale (labels by row), and a two-class one
awk '{ $1 = NR % 3 + 1; print }' "$H" > "$TMPD/h3"
cp "$H" "$TMPD/h2"

# same NAME DATA [options...]: one device and two give the same stdout and model
same() {
    name=$1; data=$2; shift 2
    (cd "$TMPD" && POCL_DEVICES="$TWO" "$TRAIN" --device 0 "$@" "$data" one.model > one.out 2> one.err); r1=$?
    (cd "$TMPD" && POCL_DEVICES="$TWO" "$TRAIN" --device 0,1 "$@" "$data" two.model > two.out 2> two.err); r2=$?
    check_eq "$name: exit (one device, two)" "0 0" "$r1 $r2"
    check_file_eq "$name: stdout" "$TMPD/one.out" "$TMPD/two.out"
    if [ -f "$TMPD/one.model" ] || [ -f "$TMPD/two.model" ]; then
        check_file_eq "$name: model" "$TMPD/one.model" "$TMPD/two.model"
    fi
    rm -f "$TMPD/one.model" "$TMPD/two.model"
}

same "three classes, pairs" "$TMPD/h3"
same "three classes, nu-SVC" "$TMPD/h3" -s 1 -n 0.3
same "three classes -b 1" "$TMPD/h3" -b 1
same "three classes -v 5" "$TMPD/h3" -v 5
same "three classes -v 3 linear" "$TMPD/h3" -v 3 -t 0 -c 4
same "two classes -v 5" "$TMPD/h2" -v 5
same "two classes -b 1" "$TMPD/h2" -b 1
same "one-class -v 4" "$TMPD/h2" -s 2 -v 4 -n 0.4
same "epsilon-SVR -v 5" "$TMPD/h2" -s 3 -v 5 -p 0.2
same "nu-SVR -b 1" "$TMPD/h2" -s 4 -b 1
# float rounds, then every device's solver rebuilt in double for the resume (src/train/run.c)
export GPUSVM_CERT_RESUME=1
same "three classes, resumed in double" "$TMPD/h3" -c 10 -g 20
unset GPUSVM_CERT_RESUME
# shrinking's stages (src/train/shrink.h) forced onto small sets: one problem, the first device's
export GPUSVM_SHRINK_MIN=1
same "two classes, shrunk" "$TMPD/h2" -c 10
same "epsilon-SVR, shrunk" "$TMPD/h2" -s 3 -p 0.1
unset GPUSVM_SHRINK_MIN
if [ -f "$DATASETS/dna/dna.scale.gz" ]; then
    zcat "$DATASETS/dna/dna.scale.gz" > "$TMPD/dna"
    same "dna pairs" "$TMPD/dna"
    same "dna -v 3" "$TMPD/dna" -v 3
else
    skip "../shared/datasets absent: dna not run on two devices"
fi

# one problem split by rows over the two devices (GPUSVM_ROWSPLIT=1: the solver's chunks of 2,048
# rows, one or more each): the same bytes as one device, with every kernel, the resumes, an
# epsilon-SVR's two ranges over the same rows, one-class's starting point, shrinking's stages and
# row-wise clusters; --verbose says the split happened
awk 'BEGIN { srand(7); for (i = 0; i < 4500; i++) { y = rand() < 0.45 ? 1 : -1; l = y > 0 ? "+1" : "-1";
    for (j = 1; j <= 8; j++) l = l " " j ":" sprintf("%.3f", rand() * 2 - 1 + (j <= 3 ? y * 0.3 : 0)); print l } }' \
    > "$TMPD/r4k"
awk 'BEGIN { srand(11); for (i = 0; i < 4200; i++) { y = rand() < 0.4 ? 1 : -1; l = y > 0 ? "+1" : "-1";
    for (j = 1; j <= 1500; j++) if (rand() < 0.012) l = l " " j ":" sprintf("%.3f", rand() + (j % 7 == 0 ? y * 0.5 : 0));
    print l } }' > "$TMPD/s4k"
rows_same() {
    name=$1; data=$2; shift 2
    (cd "$TMPD" && GPUSVM_ROWSPLIT=1 POCL_DEVICES="$TWO" "$TRAIN" --device 0 "$@" "$data" one.model > one.out 2> one.err); r1=$?
    (cd "$TMPD" && GPUSVM_ROWSPLIT=1 POCL_DEVICES="$TWO" "$TRAIN" --verbose --device 0,1 "$@" "$data" two.model > two.out 2> two.err); r2=$?
    check_eq "rows $name: exit (one device, two)" "0 0" "$r1 $r2"
    check_file_eq "rows $name: model" "$TMPD/one.model" "$TMPD/two.model"
    check_eq "rows $name: training lines" "$(grep -v '^gpusvm' "$TMPD/one.out")" "$(grep -v '^gpusvm' "$TMPD/two.out")"
    check_eq "rows $name: split over two devices" "yes" \
        "$(grep -q '^gpusvm: one problem split by rows over 2 devices' "$TMPD/two.err" && echo yes || echo no)"
}
rows_same "rbf -c 100" "$TMPD/r4k" -c 100 -g 2
rows_same "linear" "$TMPD/r4k" -t 0 -c 2
rows_same "polynomial" "$TMPD/r4k" -t 1 -d 3 -c 1
rows_same "epsilon-SVR" "$TMPD/r4k" -s 3 -p 0.1
rows_same "one-class" "$TMPD/r4k" -s 2 -n 0.3
rows_same "row-wise clusters" "$TMPD/s4k" -c 10
GPUSVM_CERT_RESUME=1 rows_same "resumed" "$TMPD/r4k" -c 10 -g 2
GPUSVM_SHRINK_MIN=1 rows_same "shrunk" "$TMPD/r4k" -c 10
GPUSVM_SPLIT=0 rows_same "unsplit rounds" "$TMPD/r4k" -c 100 -g 2
rows_same "nu-SVC (unsplit)" "$TMPD/r4k" -s 1 -n 0.3
# each device's enqueueing on a thread of its own, as on a GPU
GPUSVM_COURIER=1 rows_same "couriers" "$TMPD/r4k" -c 10 -g 2
# each slice selected by the multi-kernel chain (large slices) instead of k_select
GPUSVM_SELECT=multi rows_same "chain selection" "$TMPD/r4k" -c 10 -g 2
GPUSVM_SELECT=multi GPUSVM_SPLIT=0 rows_same "chain selection, unsplit" "$TMPD/s4k" -c 10
# kernel rows and the certification's dot products by column (GPUSVM_COL_ROWS=1), each device over
# the chunks of the layout by column holding its clusters (a chunk across the slices' edge on both)
col_same() {
    name=$1; shift
    GPUSVM_COL_ROWS=1 rows_same "by column, $name" "$@"
    check_eq "rows by column, $name: both paths taken" "yes yes" \
        "$(grep -q '^gpusvm: kernel rows by column' "$TMPD/two.err" && echo yes || echo no) $(grep -q 'dot products by column' "$TMPD/two.err" && echo yes || echo no)"
}
col_same "row-wise clusters" "$TMPD/s4k" -c 10
col_same "dense clusters" "$TMPD/r4k" -c 100 -g 2
GPUSVM_SPLIT=0 col_same "unsplit rounds" "$TMPD/s4k" -c 10
GPUSVM_CERT_RESUME=1 col_same "resumed" "$TMPD/s4k" -c 10
GPUSVM_SHRINK_MIN=1 col_same "shrunk" "$TMPD/s4k" -c 10
col_same "epsilon-SVR" "$TMPD/s4k" -s 3 -p 0.1
GPUSVM_COURIER=1 col_same "couriers" "$TMPD/s4k" -c 10

# the second device is used: --verbose says so, and lists both
(cd "$TMPD" && POCL_DEVICES="$TWO" "$TRAIN" --verbose --device all -v 5 h3 > /dev/null 2> v.err)
check_eq "--device all: two devices used" "1" "$(grep -c '^gpusvm: 2 devices$' "$TMPD/v.err")"
check_eq "--device all: both opened" "2" "$(grep -c '^gpusvm: device .*, ready after' "$TMPD/v.err")"

# gpusvm-grid: the same -out file and best line
if [ -x "$GRID" ]; then
    (cd "$TMPD" && POCL_DEVICES="$TWO" "$GRID" --device 0 -log2c -1,3,2 -log2g -3,-1,1 -out g1.out h3 > g1.txt 2> /dev/null)
    (cd "$TMPD" && POCL_DEVICES="$TWO" "$GRID" --device 0,1 -log2c -1,3,2 -log2g -3,-1,1 -out g2.out h3 > g2.txt 2> /dev/null)
    check_file_eq "gpusvm-grid: -out file" "$TMPD/g1.out" "$TMPD/g2.out"
    check_file_eq "gpusvm-grid: stdout" "$TMPD/g1.txt" "$TMPD/g2.txt"
else
    fail "no $GRID (build first)"
fi

# gpusvm-predict: each chunk split between the devices, the same output
for k in 1 2 3 4; do cat "$TMPD/h3"; done > "$TMPD/h3x4"
pred_same() {
    name=$1; shift
    (cd "$TMPD" && "$TRAIN" -q "$@" h3 p.model)
    (cd "$TMPD" && POCL_DEVICES="$TWO" "$PREDICT" --device 0 $PB h3x4 p.model p1.txt > p1.out 2>&1); r1=$?
    (cd "$TMPD" && POCL_DEVICES="$TWO" "$PREDICT" --device 0,1 $PB h3x4 p.model p2.txt > p2.out 2>&1); r2=$?
    check_eq "predict $name: exit (one device, two)" "0 0" "$r1 $r2"
    check_file_eq "predict $name: output" "$TMPD/p1.txt" "$TMPD/p2.txt"
    check_file_eq "predict $name: stdout" "$TMPD/p1.out" "$TMPD/p2.out"
}
PB= pred_same "three classes"
PB="-b 1" pred_same "three classes -b 1" -b 1
PB= pred_same "epsilon-SVR" -s 3 -p 0.2
(cd "$TMPD" && POCL_DEVICES="$TWO" "$PREDICT" --verbose --device all h3x4 p.model p2.txt > /dev/null 2> pv.err)
check_eq "predict --device all: both devices hold the SVs" "2" "$(grep -c '^SVs uploaded' "$TMPD/pv.err")"

# bad lists: the reason, exit 1, no model
bad() {
    name=$1; spec=$2; want=$3
    rm -f "$TMPD/bad.model"
    POCL_DEVICES="$TWO" "$TRAIN" --device "$spec" "$TMPD/h2" "$TMPD/bad.model" > /dev/null 2> "$TMPD/bad.err"; rc=$?
    check_eq "$name: exit" 1 "$rc"
    check_eq "$name: message" "1" "$(grep -c -- "$want" "$TMPD/bad.err")"
    check_eq "$name: no model" "absent" "$([ -e "$TMPD/bad.model" ] && echo present || echo absent)"
}
bad "a device twice" "0,0" "names device 0 twice"
bad "an index past the end" "0,7" "no OpenCL device matches '7'"
bad "an empty item" "0," "has an empty item"
bad "a name that matches nothing" "0,no-such-gpu" "no OpenCL device matches 'no-such-gpu'"
finish
