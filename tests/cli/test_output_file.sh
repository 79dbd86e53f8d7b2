#!/bin/sh
# test_output_file.sh — output files are written as svm-predict / svm-train write them, through
# the one atomic writer (src/util/atomic_file.c): an output that is a symlink is written through
# (the link stays, its target gets the text and keeps its mode), a dangling link's target is
# created, /dev/stdout writes into the caller's file; a read-only folder or a read-only existing
# file gives LIBSVM's "can't open output file" and exit 1 with nothing written. Each case is run
# with the real svm-predict (svm-train) too and the outcomes compared. The permission cases need a
# user without root's override: as root they run as nobody (setpriv), else they are skipped.
. "$(dirname "$0")/lib.sh"

require_bin "$TRAIN"
require_bin "$PREDICT"
if ! command -v svm-predict >/dev/null 2>&1 || ! command -v svm-train >/dev/null 2>&1; then
    skip "svm-predict / svm-train not installed: nothing to compare with"; finish; exit $?
fi
H=$TOP/data/heart_scale
M=$TMPD/heart.model
svm-train -q "$H" "$M" >/dev/null

# state PATH: what a run left at PATH: "link->TARGET mode text-checksum" or "file mode checksum"
state() {
    if [ -L "$1" ]; then printf 'link->%s ' "$(readlink "$1")"; t=$(dirname "$1")/$(readlink "$1"); else t=$1; fi
    if [ -e "$t" ]; then printf '%s %s\n' "$(stat -c %a "$t")" "$(cksum < "$t" | cut -d' ' -f1)"; else echo none; fi
}
# reset DIR: a 0640 target "tgt" with old text, "lnk" -> tgt, "dang" -> "made" (absent)
reset() {
    rm -rf "$1"; mkdir -p "$1"
    echo old > "$1/tgt"; chmod 640 "$1/tgt"
    ln -s tgt "$1/lnk"; ln -s made "$1/dang"
}

# 1. predict into a symlink and a dangling symlink, against svm-predict
for who in ref ours; do
    reset "$TMPD/$who"
    if [ $who = ref ]; then P=svm-predict; else P=$PREDICT; fi
    $P "$H" "$M" "$TMPD/$who/lnk" > "$TMPD/$who.out1" 2>&1; echo $? > "$TMPD/$who.rc1"
    $P "$H" "$M" "$TMPD/$who/dang" > "$TMPD/$who.out2" 2>&1; echo $? > "$TMPD/$who.rc2"
    { state "$TMPD/$who/lnk"; state "$TMPD/$who/dang"; ls "$TMPD/$who"; } > "$TMPD/$who.state"
done
check_eq "symlink output exit" "$(cat "$TMPD/ref.rc1")" "$(cat "$TMPD/ours.rc1")"
check_eq "dangling symlink output exit" "$(cat "$TMPD/ref.rc2")" "$(cat "$TMPD/ours.rc2")"
check_file_eq "symlink outputs: links, modes, texts, files" "$TMPD/ref.state" "$TMPD/ours.state"
check_eq "symlink target keeps 640" "640" "$(stat -c %a "$TMPD/ours/tgt")"
check_file_eq "through the link: svm-predict's predictions" "$TMPD/ref/tgt" "$TMPD/ours/tgt"
check_file_eq "symlink stdout" "$TMPD/ref.out1" "$TMPD/ours.out1"

# 2. a model through a symlink, against svm-train (models may differ in the last digits: compared
#    are the link, the target's mode and that the target holds a model)
for who in ref ours; do
    reset "$TMPD/m$who"
    if [ $who = ref ]; then T=svm-train; else T=$TRAIN; fi
    $T -q "$H" "$TMPD/m$who/lnk" > /dev/null 2>&1
    printf '%s %s %s\n' "$(readlink "$TMPD/m$who/lnk")" "$(stat -c %a "$TMPD/m$who/tgt")" \
        "$(head -n 1 "$TMPD/m$who/tgt")" > "$TMPD/m$who.state"
done
check_file_eq "model through a symlink" "$TMPD/mref.state" "$TMPD/mours.state"

# 3. /dev/stdout: written into the caller's file, with the accuracy line after the predictions
svm-predict "$H" "$M" /dev/stdout > "$TMPD/ref.stdout" 2>&1
"$PREDICT" "$H" "$M" /dev/stdout > "$TMPD/ours.stdout" 2>&1
check_file_eq "/dev/stdout output" "$TMPD/ref.stdout" "$TMPD/ours.stdout"

# 4. permissions, as a user root's override does not cover
if [ "$(id -u)" = 0 ]; then
    if command -v setpriv >/dev/null 2>&1; then
        # PoCL needs a home it can write in, and gets a kernel cache filled here first: a cold
        # compile under AddressSanitizer reports leaks inside PoCL's LLVM
        mkdir -p "$TMPD/home" "$TMPD/pocl"
        POCL_CACHE_DIR=$TMPD/pocl "$TRAIN" -q "$H" "$TMPD/cache.model" > /dev/null 2>&1
        chmod -R a+rwX "$TMPD/home" "$TMPD/pocl"
        AS="setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=$TMPD/home POCL_CACHE_DIR=$TMPD/pocl"
    else
        skip "running as root without setpriv: permission cases skipped"; finish; exit $?
    fi
else
    AS=""
fi
chmod 755 "$TMPD"
chmod 644 "$M"
mkdir -p "$TMPD/ro" "$TMPD/rw"
chmod 555 "$TMPD/ro"
chmod 777 "$TMPD/rw"
echo old > "$TMPD/rw/locked"; chmod 444 "$TMPD/rw/locked"
for who in ref ours; do
    if [ $who = ref ]; then P=svm-predict; else P=$PREDICT; fi
    $AS $P "$H" "$M" "$TMPD/ro/out" > "$TMPD/$who.out4" 2> "$TMPD/$who.err4"; echo $? > "$TMPD/$who.rc4"
    $AS $P "$H" "$M" "$TMPD/rw/locked" > "$TMPD/$who.out5" 2> "$TMPD/$who.err5"; echo $? > "$TMPD/$who.rc5"
done
check_eq "read-only folder exit" 1 "$(cat "$TMPD/ours.rc4")"
check_eq "read-only folder message" "can't open output file $TMPD/ro/out" "$(cat "$TMPD/ours.err4")"
check_file_eq "read-only folder stderr as svm-predict's" "$TMPD/ref.err4" "$TMPD/ours.err4"
check_file_eq "read-only folder stdout as svm-predict's" "$TMPD/ref.out4" "$TMPD/ours.out4"
check_eq "read-only folder: nothing written" "" "$(ls -A "$TMPD/ro")"
check_eq "read-only file exit" "$(cat "$TMPD/ref.rc5")" "$(cat "$TMPD/ours.rc5")"
check_file_eq "read-only file stderr as svm-predict's" "$TMPD/ref.err5" "$TMPD/ours.err5"
check_eq "read-only file untouched" "old" "$(cat "$TMPD/rw/locked")"
check_eq "read-only file: no temporary" "locked" "$(ls -A "$TMPD/rw")"
# gpusvm-train into a read-only folder: LIBSVM's message, exit 1
$AS "$TRAIN" -q "$H" "$TMPD/ro/m" > /dev/null 2> "$TMPD/err6"; rc6=$?
check_eq "train, read-only folder exit" 1 "$rc6"
check_eq "train, read-only folder message" "can't save model to file $TMPD/ro/m" "$(cat "$TMPD/err6")"
check_eq "train, read-only folder: nothing written" "" "$(ls -A "$TMPD/ro")"
finish
