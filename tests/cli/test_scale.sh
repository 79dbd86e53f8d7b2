#!/bin/sh
# tests/cli/test_scale.sh — gpusvm-scale against LIBSVM 3.24's svm-scale:
#   1. every svm-scale run of the golden transcripts (scale/, diabetes/, options/): stdout ("svm-scale"
#      reads "gpusvm-scale" in the usage), stderr, exit status and the saved range file, exactly;
#   2. the real svm-scale (when installed) on ../shared/datasets with -l/-u/-y/-s/-r combinations,
#      byte for byte, gzip input read directly, and range files both ways (svm-scale -r on
#      gpusvm-scale's -s file and the reverse);
#   3. inputs svm-scale reads leniently ("2:x", "1: 5", "+3:", falling indices, index 0, CRLF,
#      NaN, -0, 4294967297, "1abc" labels), compared with svm-scale;
#   4. standard input ("-", plain and gzip) and a pipe, a gzip file cut short, a directory;
#   5. gpusvm's own messages: bad option values, refused range files (file:line), a negative
#      index; -s through a temporary file (none left, a symlink's target replaced, mode kept);
#   6. --help, --version and the man page (man -l without warnings).
. "$(dirname "$0")/lib.sh"

SCALE=$B/gpusvm-scale
require_bin "$SCALE"
W=$TMPD/w
mkdir -p "$W"

# run_both NAME ARGS...: svm-scale and gpusvm-scale with the same arguments in $W (the data file's
# name appears in warnings, so both read the same file); stdout, stderr and exit status must agree.
run_both() {
    name=$1; shift
    (cd "$W" && svm-scale "$@" >"$TMPD/$name.a0" 2>"$TMPD/$name.ae"; echo $? >"$TMPD/$name.ar")
    sed 's/svm-scale \[options\]/gpusvm-scale [options]/' "$TMPD/$name.a0" >"$TMPD/$name.a"
    (cd "$W" && "$SCALE" "$@" >"$TMPD/$name.b" 2>"$TMPD/$name.be"; echo $? >"$TMPD/$name.br")
    check_file_eq "$name stdout" "$TMPD/$name.a" "$TMPD/$name.b"
    check_file_eq "$name stderr" "$TMPD/$name.ae" "$TMPD/$name.be"
    check_eq "$name exit status" "$(cat "$TMPD/$name.ar")" "$(cat "$TMPD/$name.br")"
}

# ---- 1. golden transcripts --------------------------------------------------------------------
if [ -d "$GOLDEN" ]; then
    for tr in "$GOLDEN"/*/transcript.txt; do
        grep -a '^### \[[A-Za-z0-9_]*\] \$ svm-scale' "$tr" | sed "s|^|$(dirname "$tr") |"
    done >"$TMPD/cases"
    ncases=0
    while IFS= read -r line; do
        dir=${line%% *}
        rest=${line#* }
        name=$(printf '%s\n' "$rest" | sed 's/^### \[\([^]]*\)\].*/\1/')
        args=$(printf '%s\n' "$rest" | sed 's/^### \[[^]]*\] \$ svm-scale *//')
        work=$TMPD/golden_$(basename "$dir")
        if [ ! -d "$work" ]; then
            mkdir -p "$work" && find "$dir" -maxdepth 1 -type f -exec cp {} "$work"/ \; && chmod -R u+w "$work"
        fi
        eval "set -- $args"
        save=""; prev=""
        for a in "$@"; do [ "$prev" = "-s" ] && save=$a; prev=$a; done
        [ -n "$save" ] && rm -f "$work/$save"
        (cd "$work" && "$SCALE" "$@" >"$TMPD/$name.stdout" 2>"$TMPD/$name.stderr")
        rc=$?
        check_eq "golden $name exit status" "$(cat "$dir/$name.rc")" "$rc"
        sed 's/svm-scale \[options\]/gpusvm-scale [options]/' "$dir/$name.stdout" >"$TMPD/$name.want"
        check_file_eq "golden $name stdout" "$TMPD/$name.want" "$TMPD/$name.stdout"
        check_file_eq "golden $name stderr" "$dir/$name.stderr" "$TMPD/$name.stderr"
        if [ -n "$save" ] && [ -f "$dir/$save" ]; then
            check_file_eq "golden $name range file" "$dir/$save" "$work/$save"
            cp "$dir/$save" "$work/$save" # later cases restore the recorded file
        fi
        ncases=$((ncases + 1))
    done <"$TMPD/cases"
    # scale/ 20, diabetes/ 4, options/ 5
    if [ "$ncases" -ge 29 ]; then pass; else fail "only $ncases golden svm-scale cases found"; fi
else
    skip "golden reference absent ($GOLDEN)"
fi

HAVE_SVM_SCALE=0
if command -v svm-scale >/dev/null 2>&1; then HAVE_SVM_SCALE=1; else skip "svm-scale not installed: no oracle runs"; fi

# ---- 2. datasets ----------------------------------------------------------------------------------
if [ "$HAVE_SVM_SCALE" = 1 ] && [ -d "$DATASETS" ]; then
    # set/file.gz|options|test file for -r (or -)
    for spec in "svmguide1/svmguide1.gz||svmguide1/svmguide1.t.gz" \
        "pendigits/pendigits.gz|-l 0 -u 1|pendigits/pendigits.t.gz" \
        "abalone/abalone_scale.gz|-y 0 1 -l -1 -u 1|-" \
        "glass/glass.scale.gz|-l -2 -u 0.5|-" \
        "mushrooms/mushrooms.gz|-l 0|-" \
        "letter/letter.scale.gz|-u 2 -y -3 3|letter/letter.scale.t.gz" \
        "news20/news20.t.gz|-l 0|-" \
        "ijcnn1/ijcnn1.gz||-"; do
        gz=${spec%%|*}; rest=${spec#*|}; opts=${rest%%|*}; test=${rest#*|}
        set=$(basename "$gz" .gz)
        if [ ! -f "$DATASETS/$gz" ]; then skip "no $DATASETS/$gz"; continue; fi
        gzip -dc "$DATASETS/$gz" >"$W/$set"
        # shellcheck disable=SC2086
        run_both "$set$opts" $opts -s "$set.range" "$set"
        mv "$W/$set.range" "$W/$set.range.b" 2>/dev/null
        (cd "$W" && svm-scale $opts -s "$set.range" "$set" >/dev/null 2>&1)
        check_file_eq "$set $opts: -s range file" "$W/$set.range" "$W/$set.range.b"
        # gzip read directly: the same text as svm-scale on the plain file
        "$SCALE" $opts "$DATASETS/$gz" >"$TMPD/gz.out" 2>"$TMPD/gz.err"
        check_file_eq "$set $opts: .gz input" "$TMPD/$set$opts.a" "$TMPD/gz.out"
        [ "$test" = "-" ] && test=$gz
        tset=$(basename "$test" .gz)
        [ -f "$W/$tset" ] || gzip -dc "$DATASETS/$test" >"$W/$tset"
        # range files both ways: each tool restores the other's file
        (cd "$W" && svm-scale -r "$set.range.b" "$tset" >"$TMPD/r1" 2>"$TMPD/r1e")
        (cd "$W" && "$SCALE" -r "$set.range" "$tset" >"$TMPD/r2" 2>"$TMPD/r2e")
        (cd "$W" && svm-scale -r "$set.range" "$tset" >"$TMPD/r3" 2>"$TMPD/r3e")
        check_file_eq "$set: svm-scale -r on gpusvm-scale's file" "$TMPD/r3" "$TMPD/r1"
        check_file_eq "$set: gpusvm-scale -r on svm-scale's file" "$TMPD/r3" "$TMPD/r2"
        check_file_eq "$set: -r warnings" "$TMPD/r3e" "$TMPD/r2e"
        rm -f "$W/$set" "$W/$tset"
    done
elif [ "$HAVE_SVM_SCALE" = 1 ]; then
    skip "datasets absent ($DATASETS)"
fi

# ---- 3. what svm-scale reads leniently ------------------------------------------------------------
if [ "$HAVE_SVM_SCALE" = 1 ]; then
    printf '1 1:1 2:x 3:5\n2 1:2 2:3 3:7\n-1 1: 5 2 :4 3:1\n' >"$W/l1"
    printf '1 3:1 2:5\n2 1:2 2:3 3:7\n3 2:2 2:9 4:1\n+1 +2:3 007:5\n' >"$W/l2"
    printf '1 0:3 1:1\n2 0:1 1:2 4294967297:3\n1abc 1:3e0 2:0x1p3\n' >"$W/l3"
    printf '1 1:1\r\n2\t1:2\t2:1e400 \r\n3 1:1.5abc 2:+.5 # comment\n4 1:2 2:1' >"$W/l4"
    printf '1 1:2\n2 1:nan 2:-0\n3 1:3 2:0\nnan 2:1\n-0 1:-0\n' >"$W/l5"
    printf '1 1:1\n2 1:2\nx 1:3\n' >"$W/l6"
    for f in l1 l2 l3 l4 l5 l6; do
        run_both "lenient $f" "$f"
        run_both "lenient $f -l 0 -y 0 1" -l 0 -y 0 1 "$f"
        (cd "$W" && svm-scale -s "$f.ra" "$f" >/dev/null 2>&1; "$SCALE" -s "$f.rb" "$f" >/dev/null 2>&1)
        if [ -f "$W/$f.ra" ]; then check_file_eq "lenient $f -s" "$W/$f.ra" "$W/$f.rb"; fi
    done
    # restoring: y section, indices missing from the data or the file, file indices beyond the data
    printf 'y\n0 1\n1 3\nx\n0 1\n1 1 5\n3 0 2\n9 1 2\n' >"$W/r.range"
    run_both "restore y and extra index" -r r.range l2
    run_both "restore onto labels only" -r r.range l6
    printf 'x\n-1 1\n2 0 4\n1 0 1\n' >"$W/falling.range"
    run_both "restore falling indices" -r falling.range l1
    printf '' >"$W/empty"
    run_both "restore onto an empty file" -r r.range empty
    # option scanning that both handle the same way
    run_both "two -l" -l 0 -l 0.5 l1
    run_both "-lfoo" -lfoo 1 l1
    run_both "-u inconsistent" -u -2 l1
    run_both "-y inconsistent" -y 1 1 l1
    run_both "empty value" -l '' l1
    run_both "-s last" -l 2 -s
    run_both "-- option" -- l1
    run_both "extra argument" l1 l2
    run_both "unwritable -s" -s /nonexistent/dir/x.range l1
fi

# ---- 4. stdin, pipes, gzip, directories --------------------------------------------------------
H=$TOP/data/heart_scale
"$SCALE" -l 0 "$H" >"$TMPD/h.ref" 2>&1
"$SCALE" -l 0 - <"$H" >"$TMPD/h1" 2>&1
check_file_eq "stdin '-'" "$TMPD/h.ref" "$TMPD/h1"
gzip -c "$H" >"$TMPD/h.gz"
"$SCALE" -l 0 - <"$TMPD/h.gz" >"$TMPD/h2" 2>&1
check_file_eq "gzip on stdin" "$TMPD/h.ref" "$TMPD/h2"
cat "$H" | "$SCALE" -l 0 /dev/stdin >"$TMPD/h3" 2>&1
check_file_eq "a pipe as /dev/stdin" "$TMPD/h.ref" "$TMPD/h3"
gzip -c "$H" | "$SCALE" -l 0 -s "$TMPD/h.range" - >"$TMPD/h4" 2>&1
check_file_eq "gzip pipe with -s" "$TMPD/h.ref" "$TMPD/h4"
"$SCALE" -l 0 -s "$TMPD/h.range2" "$H" >/dev/null 2>&1
check_file_eq "gzip pipe: its range file" "$TMPD/h.range2" "$TMPD/h.range"
n=$(wc -c <"$TMPD/h.gz")
head -c $((n - 20)) "$TMPD/h.gz" >"$TMPD/cut.gz"
"$SCALE" "$TMPD/cut.gz" >"$TMPD/c.out" 2>"$TMPD/c.err"
check_eq "gzip cut short: exit" 1 "$?"
check_eq "gzip cut short: message" "can't read input file $TMPD/cut.gz: unexpected end of gzip data" "$(cat "$TMPD/c.err")"
check_eq "gzip cut short: no output" "" "$(cat "$TMPD/c.out")"
"$SCALE" "$TMPD" >"$TMPD/d.out" 2>"$TMPD/d.err"
check_eq "directory: exit" 1 "$?"
check_eq "directory: message" "can't open file $TMPD" "$(cat "$TMPD/d.err")"
"$SCALE" -r "$TMPD" "$H" >"$TMPD/d.out" 2>"$TMPD/d.err"
check_eq "directory as range file" "1 can't open file $TMPD" "$? $(cat "$TMPD/d.err")"

# ---- 5. gpusvm's own messages --------------------------------------------------------------------
# expect NAME RC STDERR ARGS...: exit status and the whole of stderr; stdout must be empty
expect() {
    name=$1; want_rc=$2; want_err=$3; shift 3
    (cd "$W" && "$SCALE" "$@" >"$TMPD/e.out" 2>"$TMPD/e.err"; echo $? >"$TMPD/e.rc")
    check_eq "$name: exit status" "$want_rc" "$(cat "$TMPD/e.rc")"
    check_eq "$name: stderr" "$want_err" "$(cat "$TMPD/e.err")"
    check_eq "$name: no stdout" "" "$(cat "$TMPD/e.out")"
}
printf '1 1:1\n2 1:3\n' >"$W/ok"
expect "-l abc" 1 "Incorrect parameter: -l abc" -l abc ok
expect "-u 1x" 1 "Incorrect parameter: -u 1x" -u 1x ok
expect "-y 0 nan" 1 "Incorrect parameter: -y nan" -y 0 nan ok
expect "-l inf" 1 "Incorrect parameter: -l inf" -l inf ok
"$SCALE" -l >"$TMPD/u.out" 2>&1
check_eq "-l without a value: exit" 1 "$?"
check_eq "-l without a value: usage" "Usage: gpusvm-scale [options] data_filename" "$(head -n 1 "$TMPD/u.out")"
"$SCALE" -y 0 >"$TMPD/u.out" 2>&1
check_eq "-y with one value: usage" "Usage: gpusvm-scale [options] data_filename" "$(head -n 1 "$TMPD/u.out")"
printf '1 -1:3 1:1\n2 1:2\n' >"$W/neg"
expect "negative index" 1 "WARNING: minimal feature index is -1, but indices should start from 1
ERROR: negative feature index -1 at line 1 of neg" neg
# range files svm-scale would read in part: refused, naming file:line
bad_range() { # NAME CONTENT(printf) DETAIL
    printf "$2" >"$W/bad.range"
    expect "range file: $1" 255 "ERROR: failed to read scaling parameters
bad.range:$3" -r bad.range ok
}
bad_range "empty" '' '1: empty file (expected "x" or "y")'
bad_range "leading space" ' x\n0 1\n1 1 3\n' '1: expected "x" or "y" alone on the line'
bad_range "x with numbers" 'x 0 1\n1 1 3\n' '1: expected "x" or "y" alone on the line'
bad_range "blank line in the header" 'x\n\n0 1\n1 1 3\n' '2: expected two numbers: lower upper'
bad_range "one bound" 'x\n0\n1 1 3\n' '2: expected two numbers: lower upper'
bad_range "missing max" 'x\n0 1\n1 1\n2 1 3\n' '3: expected "index min max"'
bad_range "four numbers" 'x\n0 1\n1 1 3 4\n' '3: expected "index min max"'
bad_range "trailing comment" 'x\n0 1\n1 1 3\n# made by hand\n' '4: expected "index min max"'
bad_range "not a number" 'x\n0 1\n1 1 abc\n' '3: expected "index min max" (min and max numbers)'
bad_range "negative index" 'x\n0 1\n-1 1 3\n' '3: negative index: "-1"'
bad_range "huge index" 'x\n0 1\n4294967297 1 3\n' '3: index out of range: "4294967297"'
bad_range "y without x" 'y\n0 1\n1 2\n' '4: expected "x" alone on the line'
bad_range "y with one number" 'y\n0 1\n1\nx\n0 1\n' '3: expected two numbers: y_min y_max'
# accepted: CRLF, tabs, blank feature lines, nan/inf, a repeated index (the last one counts)
printf 'x\r\n0\t1\r\n1 1 3\r\n\r\n1 1 5\n' >"$W/crlf.range"
(cd "$W" && "$SCALE" -r crlf.range ok >"$TMPD/cr.out" 2>&1)
check_eq "range file with CRLF and a repeated index" "1 
2 1:0.5 " "$(cat "$TMPD/cr.out")"
# -s through a temporary file
printf 'old\n' >"$W/target.range"
chmod 640 "$W/target.range"
ln -sf target.range "$W/link.range"
(cd "$W" && "$SCALE" -s link.range ok >/dev/null 2>&1)
check_eq "-s through a symlink: the link stays" "target.range" "$(readlink "$W/link.range")"
check_eq "-s through a symlink: its target written" "x" "$(head -n 1 "$W/target.range")"
check_eq "-s keeps the mode" "640" "$(stat -c %a "$W/target.range")"
check_eq "-s leaves no temporary" "" "$(ls "$W" | grep '\.tmp' || true)"

# ---- 6. --help, --version, the man page ----------------------------------------------------------
"$SCALE" --help >"$TMPD/help" 2>&1
check_eq "--help exit" 0 "$?"
if grep -q '^--version : print the version and exit$' "$TMPD/help" && grep -q '^gpusvm options:$' "$TMPD/help" &&
    [ "$(head -n 1 "$TMPD/help")" = "Usage: gpusvm-scale [options] data_filename" ]; then pass; else fail "--help text"; fi
ver=$(sed -n 's/^#define GPUSVM_VERSION "\(.*\)"$/\1/p' "$TOP/include/svm.h")
check_eq "--version" "gpusvm $ver" "$("$SCALE" --version | head -n 1)"
MANPAGE=$TOP/man/gpusvm-scale.1
if [ ! -f "$MANPAGE" ]; then
    fail "no $MANPAGE"
elif ! command -v man >/dev/null 2>&1; then
    skip "man not installed (apt-get install man-db): the man page is not rendered"
else
    warn=$(MANWIDTH=80 man --warnings -l "$MANPAGE" 2>&1 >/dev/null)
    check_eq "man -l gpusvm-scale.1: no warnings" "" "$warn"
    if MANWIDTH=80 man -l "$MANPAGE" 2>/dev/null | grep -q 'gpusvm-scale \[options\] data_filename'; then pass
    else fail "man page: no synopsis"; fi
fi

finish
