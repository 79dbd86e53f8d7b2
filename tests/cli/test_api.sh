#!/bin/sh
# test_api.sh — the public library (include/svm.h, docs/library.md), through an installed tree:
#  - make install PREFIX=tmp (and DESTDIR): the files, the links, the pkg-config file;
#  - the exported symbols: only svm_*, gpusvm_*, libsvm_version, and every C name of LIBSVM's library;
#  - svm.h's layout equals Debian's LIBSVM svm.h (sizes, offsets, enum values);
#  - tests/api/train_predict.c, a LIBSVM-style program, built with pkg-config (shared and static):
#    its model is gpusvm-train's byte for byte, its predictions gpusvm-predict's, its training lines
#    (through the print hook) gpusvm-train's stdout; the same program built against Debian's
#    svm.h/libsvm.so.3 and run with LD_LIBRARY_PATH=prefix/lib/gpusvm gives gpusvm's model too;
#  - tests/api/predict.c (svm-predict on svm.h) equals svm-predict on models of every type;
#  - Debian's python3-libsvm with LD_LIBRARY_PATH=prefix/lib/gpusvm trains gpusvm's model;
#  - svm_check_parameter's messages equal LIBSVM's;
#  - tests/api/edge.c: degenerate problems, refused rows, load/save failures, the device choice,
#    gpusvm_train's tunables, two trainings in two threads;
#  - model files read and written under a ',' locale (de_DE made with localedef);
#  - the man pages format without warnings.
# Each part SKIPs (saying why) when its tool is missing: a C compiler, pkg-config, libsvm-dev,
# libsvm-tools, python3-libsvm. A sanitizer build's library is used with the sanitizer runtime.
. "$(dirname "$0")/lib.sh"
require_bin "$TRAIN"
require_bin "$PREDICT"
CC=${CC:-cc}
DATA=$TOP/data/heart_scale
API=$TOP/tests/api
if ! command -v "$CC" >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
    skip "no C compiler or make: the library is not tested"; finish; exit
fi

# ---- make install ---------------------------------------------------------------------------
INST=$TMPD/inst
if ! make -s --no-print-directory -C "$TOP" BUILD="$BUILD" install PREFIX="$INST" > "$TMPD/install.log" 2>&1; then
    fail "make install PREFIX=$INST failed:"; tail -5 "$TMPD/install.log"; finish; exit
fi
for f in bin/gpusvm-train bin/gpusvm-predict include/gpusvm/svm.h lib/libgpusvm.a lib/libgpusvm.so \
         lib/gpusvm/libsvm.so.3 lib/pkgconfig/gpusvm.pc share/man/man1/gpusvm-train.1 \
         share/man/man1/gpusvm-predict.1; do
    if [ -f "$INST/$f" ]; then pass; else fail "make install: no $f (or a dangling link)"; fi
done
for f in "$TOP"/man/*.1; do
    if [ -f "$INST/share/man/man1/$(basename "$f")" ]; then pass; else fail "make install: $f not installed"; fi
done
if command -v man >/dev/null 2>&1; then
    for f in "$TOP"/man/*.1; do
        check_eq "man --warnings $(basename "$f")" "" "$(MANWIDTH=80 man --warnings -l "$f" 2>&1 > /dev/null)"
    done
else
    skip "man (man-db) not installed: the man pages are not checked"
fi
check_eq "soname links to one file" "$(readlink -f "$INST/lib/libgpusvm.so")" "$(readlink -f "$INST/lib/gpusvm/libsvm.so.3")"
check_eq "pkg-config prefix" "prefix=$INST" "$(head -n 1 "$INST/lib/pkgconfig/gpusvm.pc")"
if make -s --no-print-directory -C "$TOP" BUILD="$BUILD" install PREFIX=/opt/gs DESTDIR="$TMPD/stage" > "$TMPD/install2.log" 2>&1 &&
   [ -f "$TMPD/stage/opt/gs/lib/libgpusvm.a" ] && [ -f "$TMPD/stage/opt/gs/lib/gpusvm/libsvm.so.3" ]; then
    check_eq "DESTDIR: the .pc names PREFIX" "prefix=/opt/gs" "$(head -n 1 "$TMPD/stage/opt/gs/lib/pkgconfig/gpusvm.pc")"
else
    fail "make install DESTDIR=... PREFIX=/opt/gs"
fi
"$INST/bin/gpusvm-train" -q "$DATA" "$TMPD/inst.model" && "$TRAIN" -q "$DATA" "$TMPD/ref.model" &&
    check_file_eq "installed gpusvm-train" "$TMPD/ref.model" "$TMPD/inst.model"
"$PREDICT" -q "$DATA" "$TMPD/ref.model" "$TMPD/ref.out" || fail "gpusvm-predict on heart_scale"
"$TRAIN" "$DATA" "$TMPD/ref2.model" > "$TMPD/ref.stdout" || fail "gpusvm-train on heart_scale"

# A sanitizer build's library needs the programs built with the same flags, and the runtime
# preloaded into programs that are not (Debian's python, a program linked against LIBSVM).
SAN=""; PRE=""
if readelf -d "$INST/lib/libgpusvm.so" 2>/dev/null | grep -q 'libasan'; then
    SAN="-fsanitize=address,undefined -fno-omit-frame-pointer"
    PRE=$("$CC" -print-file-name=libasan.so)
fi
CFL="-std=c11 -Wall -Wextra -Werror -O1 $SAN"

# ---- exported symbols -----------------------------------------------------------------------
# (an ASan build adds its own __odr_asan.* markers beside exported variables)
nm -D --defined-only "$INST/lib/libgpusvm.so" | awk '$3 !~ /^__odr_asan/ {print $3}' | sort > "$TMPD/syms"
check_eq "exported symbols" "gpusvm_last_error gpusvm_options_init gpusvm_release_device gpusvm_set_device \
gpusvm_train gpusvm_version libsvm_version svm_check_parameter svm_check_probability_model svm_cross_validation \
svm_destroy_param svm_free_and_destroy_model svm_free_model_content svm_get_labels svm_get_nr_class svm_get_nr_sv \
svm_get_sv_indices svm_get_svm_type svm_get_svr_probability svm_load_model svm_predict svm_predict_probability \
svm_predict_values svm_save_model svm_set_print_string_function svm_train" "$(tr '\n' ' ' < "$TMPD/syms" | sed 's/ $//')"
LIBSVM_SO=$(ls /usr/lib/*/libsvm.so.3 /usr/lib/libsvm.so.3 2>/dev/null | head -n 1)
if [ -n "$LIBSVM_SO" ]; then
    # every C name of LIBSVM's library (its C++ internals aside) is exported here too
    nm -D --defined-only "$LIBSVM_SO" | awk '$3 !~ /^_/ {print $3}' | sort > "$TMPD/syms.libsvm"
    check_eq "LIBSVM's names all exported" "" "$(comm -23 "$TMPD/syms.libsvm" "$TMPD/syms" | tr '\n' ' ')"
else
    skip "libsvm.so.3 (libsvm3) not installed: LIBSVM's symbol list not compared"
fi

# ---- svm.h's layout and svm_check_parameter against Debian's LIBSVM ---------------------------
HAVE_DEB=0
[ -f /usr/include/libsvm/svm.h ] && [ -n "$LIBSVM_SO" ] && "$CC" -I/usr/include/libsvm "$API/abi.c" -o "$TMPD/abi_deb" 2>/dev/null && HAVE_DEB=1
if [ $HAVE_DEB = 1 ]; then
    "$CC" $CFL -I"$INST/include/gpusvm" "$API/abi.c" -o "$TMPD/abi_gs" || fail "abi.c does not build on svm.h"
    "$TMPD/abi_deb" > "$TMPD/abi_deb.txt"; "$TMPD/abi_gs" > "$TMPD/abi_gs.txt"
    check_file_eq "svm.h layout = LIBSVM's" "$TMPD/abi_deb.txt" "$TMPD/abi_gs.txt"
    "$CC" -I/usr/include/libsvm "$API/check_param.c" -o "$TMPD/cp_deb" -lsvm -lm && "$TMPD/cp_deb" > "$TMPD/cp_deb.txt" ||
        fail "check_param.c against LIBSVM"
else
    skip "libsvm-dev not installed: svm.h's layout, svm_check_parameter and a LIBSVM-built program not compared"
fi
"$CC" $CFL -I"$INST/include/gpusvm" "$API/check_param.c" -o "$TMPD/cp_gs" -L"$INST/lib" -lgpusvm -lm \
    -Wl,-rpath,"$INST/lib" || fail "check_param.c does not build on svm.h"
"$TMPD/cp_gs" > "$TMPD/cp_gs.txt" 2> "$TMPD/cp_gs.err" || fail "check_param (gpusvm) exit status"
check_eq "svm_train refuses C <= 0" "train_c_zero: NULL|gpusvm: svm_train: C <= 0" \
    "$(grep '^train_c_zero' "$TMPD/cp_gs.txt")|$(grep 'svm_train' "$TMPD/cp_gs.err")"
check_eq "svm_cross_validation: NaN when refused, filled otherwise" "cross_validation_1fold_nan: 6|cross_validation_3folds_nan: 0" \
    "$(grep '^cross_validation_1fold_nan' "$TMPD/cp_gs.txt")|$(grep '^cross_validation_3folds_nan' "$TMPD/cp_gs.txt")"
grep -q 'svm_cross_validation: nr_fold is 1' "$TMPD/cp_gs.err" && pass || fail "svm_cross_validation printed no message"
VERSION=$(sed -n 's/^#define GPUSVM_VERSION "\(.*\)"$/\1/p' "$TOP/include/svm.h")
check_eq "libsvm_version, gpusvm_version (= GPUSVM_VERSION, = --version's)" "version: 324 $VERSION" "$(grep '^version' "$TMPD/cp_gs.txt")"
if [ $HAVE_DEB = 1 ]; then
    # LIBSVM's refusals word for word; what LIBSVM trains, gpusvm trains or calls "not supported yet"
    while IFS= read -r line; do
        name=${line%%:*}
        ours=$(grep "^$name:" "$TMPD/cp_gs.txt")
        case "$name" in
        *_ok)
            check_eq "$name: LIBSVM accepts" "$name: (null)" "$line"
            case "$ours" in "$name: (null)"|*" is not supported yet") pass ;; *) fail "$name: gpusvm says [$ours]" ;; esac ;;
        *) check_eq "svm_check_parameter $name" "$line" "$ours" ;;
        esac
    done < "$TMPD/cp_deb.txt"
fi

# ---- a LIBSVM program on the installed library: shared, static, and built against LIBSVM ------
export PKG_CONFIG_PATH="$INST/lib/pkgconfig"
if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists gpusvm; then
    PCC=$(pkg-config --cflags gpusvm); PCL=$(pkg-config --libs gpusvm)
    PCS=$(pkg-config --static --libs gpusvm | sed 's/-lgpusvm/-l:libgpusvm.a/')
    "$CC" $CFL $PCC "$API/train_predict.c" -o "$TMPD/tp_shared" $PCL -Wl,-rpath,"$INST/lib" || fail "shared link"
    "$CC" $CFL $PCC "$API/train_predict.c" -o "$TMPD/tp_static" $PCS || fail "static link"
    "$CC" $CFL $PCC "$API/predict.c" -o "$TMPD/predict" $PCL -Wl,-rpath,"$INST/lib" || fail "predict.c link"
    ldd "$TMPD/tp_shared" | grep -q "$INST/lib/libgpusvm.so" && pass || fail "tp_shared does not load $INST/lib's library"
    ldd "$TMPD/tp_static" | grep -q 'libgpusvm' && fail "tp_static loads libgpusvm.so" || pass
else
    skip "pkg-config not installed: the svm.h programs are not built"; finish; exit
fi
# svm_load_model and svm_save_model in a program whose locale writes ',' decimals
"$CC" $CFL $PCC "$API/locale.c" -o "$TMPD/locale" $PCL -Wl,-rpath,"$INST/lib" || fail "locale.c link"
mkdir -p "$TMPD/loc"
if command -v localedef >/dev/null 2>&1 && localedef -i de_DE -f UTF-8 "$TMPD/loc/de_DE.UTF-8" > /dev/null 2>&1; then
    LOCPATH="$TMPD/loc" "$TMPD/locale" de_DE.UTF-8 "$TMPD/ref.model" "$TMPD/loc.model"; rc=$?
    case $rc in
    0) check_file_eq "model read and written under de_DE.UTF-8" "$TMPD/ref.model" "$TMPD/loc.model" ;;
    77) skip "de_DE.UTF-8 made by localedef does not write ',' decimals: locale not tested" ;;
    *) fail "model read and written under de_DE.UTF-8: exit status $rc" ;;
    esac
    # a model large enough to be written on several threads (src/io/model.c put_svs), in the
    # writer's own text (%.17g coefficients, %.8g values, printed here by awk in the C locale)
    LC_ALL=C awk 'BEGIN { srand(7); n = 4000
        printf "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv %d\nrho 0.25\n", n
        printf "label 1 -1\nnr_sv %d %d\nSV\n", n / 2, n / 2
        for (s = 0; s < n; s++) {
            line = sprintf("%.17g ", (s < n / 2 ? 1 : -1) * rand())
            for (j = 1; j <= 80; j++) line = line sprintf("%d:%.8g ", j * 3, rand() - 0.5)
            print line } }' > "$TMPD/big.model"
    LOCPATH="$TMPD/loc" "$TMPD/locale" de_DE.UTF-8 "$TMPD/big.model" "$TMPD/bigloc.model"; rc=$?
    case $rc in
    0) check_file_eq "a 4,000-SV model read and written under de_DE.UTF-8" "$TMPD/big.model" "$TMPD/bigloc.model" ;;
    77) ;; # said above
    *) fail "a 4,000-SV model under de_DE.UTF-8: exit status $rc" ;;
    esac
else
    skip "localedef or the de_DE locale source (locales) missing: model files under a ',' locale not tested"
fi
# svm.h's corners and the gpusvm_* extensions (tests/api/edge.c says what each line is)
"$CC" $CFL $PCC "$API/edge.c" -o "$TMPD/edge" $PCL -lpthread -Wl,-rpath,"$INST/lib" || fail "edge.c link"
mkdir -p "$TMPD/edge.d"
if "$TMPD/edge" "$DATA" "$TMPD/edge.d" > "$TMPD/edge.txt" 2> "$TMPD/edge.err"; then
    head -n 6 "$TMPD/edge.txt" > "$TMPD/edge.head"
    check_file_eq "edge: training lines on stdout without a print function" "$TMPD/ref.stdout" "$TMPD/edge.head"
    tail -n +7 "$TMPD/edge.txt" > "$TMPD/edge.rest"
    cat > "$TMPD/edge.expected" <<EOF
empty: model
empty: nr_class 0 nr_sv 0 predicts 0
one_class: model
one_class: nr_class 1 label 2 predicts 2
descending: NULL
huge_value: NULL
nan_label: NULL
null_row: NULL
last_error: prob->x[1] is NULL
load_missing: NULL
load_bad: NULL
save_unwritable: -1
set_device_while_open: -1
set_device_nomatch: 0
nomatch: NULL
set_device_auto: 0
options: 0 -1 64 256 1
ws16: model
ws3: NULL
last_error: --ws-size must be an even number from 2 to 1024
defaults: model
thread1: model
thread2: model
EOF
    grep -v '^Cross Validation' "$TMPD/edge.rest" > "$TMPD/edge.rest2" && mv "$TMPD/edge.rest2" "$TMPD/edge.rest"
    check_file_eq "edge: results" "$TMPD/edge.expected" "$TMPD/edge.rest"
    for w in "index 1 after 2 (indices must ascend" "value 1e+39 of index 1 does not fit in single precision" \
             "prob->y[1] is nan" "bad.model:3: gamma needs a finite number" "no OpenCL device matches 'no such device"; do
        grep -qF "$w" "$TMPD/edge.err" && pass || fail "edge: no [$w] on stderr"
    done
    : > "$TMPD/empty"
    "$TRAIN" -q "$TMPD/empty" "$TMPD/c_empty.model"
    check_file_eq "edge: empty problem = gpusvm-train's" "$TMPD/c_empty.model" "$TMPD/edge.d/empty.model"
    head -n 3 "$DATA" | awk '{ $1 = 2; print }' > "$TMPD/one"
    "$TRAIN" -q -g 0.076923076923076927 "$TMPD/one" "$TMPD/c_one.model" # 1/13 as %.17g
    check_file_eq "edge: one class = gpusvm-train's" "$TMPD/c_one.model" "$TMPD/edge.d/one_class.model"
    "$TRAIN" -q -v 5 "$DATA" > "$TMPD/c_cv.txt"
    check_eq "edge: svm_cross_validation = gpusvm-train -v 5" "$(cat "$TMPD/c_cv.txt")" "$(grep '^Cross Validation' "$TMPD/edge.txt")"
    "$TRAIN" -q --ws-size 16 "$DATA" "$TMPD/c_ws16.model"
    check_file_eq "edge: gpusvm_train ws_size 16 = --ws-size 16" "$TMPD/c_ws16.model" "$TMPD/edge.d/ws16.model"
    for m in defaults thread1 thread2; do
        check_file_eq "edge: $m" "$TMPD/ref.model" "$TMPD/edge.d/$m.model"
    done
else
    fail "edge: exit status"; tail -3 "$TMPD/edge.err"
fi
# 3 classes (labels 1 2 3 by row), for the one-vs-one vote and probability coupling
awk '{ $1 = NR % 3 + 1; print }' "$DATA" > "$TMPD/three"

# same_as_cli NAME PROGRAM DATA [options]: PROGRAM's model, predictions and training lines equal
# gpusvm-train's and gpusvm-predict's
same_as_cli() {
    name=$1; prog=$2; data=$3; shift 3
    "$TRAIN" "$@" "$data" "$TMPD/c.model" > "$TMPD/c.stdout" 2> "$TMPD/c.stderr" || { fail "$name: gpusvm-train"; return; }
    "$PREDICT" -q "$data" "$TMPD/c.model" "$TMPD/c.out" || { fail "$name: gpusvm-predict"; return; }
    if "$prog" "$@" "$data" "$TMPD/p.model" "$TMPD/p.out" > "$TMPD/p.stdout" 2> "$TMPD/p.stderr"; then
        check_file_eq "$name: model = gpusvm-train's" "$TMPD/c.model" "$TMPD/p.model"
        check_file_eq "$name: predictions = gpusvm-predict's" "$TMPD/c.out" "$TMPD/p.out"
        check_file_eq "$name: training lines through the print hook" "$TMPD/c.stdout" "$TMPD/p.stderr"
    else
        fail "$name: exit status"; head -3 "$TMPD/p.stderr"
    fi
}
same_as_cli shared "$TMPD/tp_shared" "$DATA"
same_as_cli static "$TMPD/tp_static" "$DATA"
same_as_cli linear "$TMPD/tp_shared" "$DATA" -t 0 -c 2
same_as_cli poly "$TMPD/tp_shared" "$DATA" -t 1 -d 2 -r 1 -g 0.1
same_as_cli sigmoid_e "$TMPD/tp_shared" "$DATA" -t 3 -e 0.01
same_as_cli three_classes "$TMPD/tp_shared" "$TMPD/three" -c 4 -w2 0.5
same_as_cli three_static "$TMPD/tp_static" "$TMPD/three" -g 0.2
same_as_cli nu_svc "$TMPD/tp_shared" "$DATA" -s 1 -n 0.3
same_as_cli nu_svc_three "$TMPD/tp_shared" "$TMPD/three" -s 1 -t 0
same_as_cli one_class "$TMPD/tp_shared" "$DATA" -s 2 -n 0.2
same_as_cli eps_svr "$TMPD/tp_shared" "$DATA" -s 3 -p 0.2
same_as_cli nu_svr "$TMPD/tp_static" "$DATA" -s 4 -t 1 -d 2 -c 2
# -b 1 through svm_train: the same probA/probB (the same internal folds: each call starts glibc's
# rand() stream at seed 1, as a fresh svm-train does)
same_as_cli prob "$TMPD/tp_shared" "$DATA" -b 1
same_as_cli prob_three "$TMPD/tp_shared" "$TMPD/three" -b 1 -c 2
same_as_cli prob_svr "$TMPD/tp_static" "$DATA" -s 3 -b 1

if [ $HAVE_DEB = 1 ]; then
    # the same source against LIBSVM's header and library; NEEDED libsvm.so.3
    "$CC" -I/usr/include/libsvm "$API/train_predict.c" -o "$TMPD/tp_deb" -lsvm -lm || fail "train_predict.c against LIBSVM"
    "$TMPD/tp_deb" "$DATA" "$TMPD/deb.model" "$TMPD/deb.out" > /dev/null 2>&1 || fail "tp_deb on LIBSVM"
    # with LIBSVM it is LIBSVM's model (rho 0.424462 against gpusvm's 0.424346), so the next check can tell
    if cmp -s "$TMPD/deb.model" "$TMPD/ref.model"; then fail "LIBSVM's model equals gpusvm's: the check below proves nothing"; else pass; fi
    LD_LIBRARY_PATH="$INST/lib/gpusvm" ldd "$TMPD/tp_deb" | grep -q "$INST/lib/gpusvm/libsvm.so.3" && pass ||
        fail "LD_LIBRARY_PATH=$INST/lib/gpusvm does not select gpusvm's libsvm.so.3"
    if LD_LIBRARY_PATH="$INST/lib/gpusvm" LD_PRELOAD="$PRE" "$TMPD/tp_deb" "$DATA" "$TMPD/debgs.model" "$TMPD/debgs.out" \
        > /dev/null 2> "$TMPD/debgs.err"; then
        check_file_eq "LIBSVM-built program on gpusvm: model" "$TMPD/ref.model" "$TMPD/debgs.model"
        check_file_eq "LIBSVM-built program on gpusvm: predictions" "$TMPD/ref.out" "$TMPD/debgs.out"
    else
        fail "LIBSVM-built program on gpusvm: exit status"; head -3 "$TMPD/debgs.err"
    fi
fi

# ---- predict.c (svm.h) against svm-predict, models of every type made by svm-train ------------
if command -v svm-train >/dev/null 2>&1 && command -v svm-predict >/dev/null 2>&1; then
    n=0
    while read -r b data opts; do
        n=$((n + 1))
        d=$DATA; [ "$data" = three ] && d=$TMPD/three
        # shellcheck disable=SC2086
        svm-train -q $opts "$d" "$TMPD/m$n" || { fail "svm-train $opts"; continue; }
        svm-predict -b "$b" "$d" "$TMPD/m$n" "$TMPD/r$n.out" > "$TMPD/r$n.txt" 2>&1
        "$TMPD/predict" -b "$b" "$d" "$TMPD/m$n" "$TMPD/g$n.out" > "$TMPD/g$n.txt" 2> "$TMPD/g$n.err" ||
            { fail "predict -b $b ($opts): exit status"; head -3 "$TMPD/g$n.err"; continue; }
        check_file_eq "predict -b $b on svm-train $opts: output" "$TMPD/r$n.out" "$TMPD/g$n.out"
        check_file_eq "predict -b $b on svm-train $opts: printed lines" "$TMPD/r$n.txt" "$TMPD/g$n.txt"
    done <<EOF
0 heart
1 heart -b 1
0 heart -b 1
0 heart -s 1 -n 0.3
0 heart -s 2
0 heart -s 3
1 heart -s 3 -b 1
0 heart -s 4
0 heart -t 0
0 heart -t 1 -d 2 -r 1 -g 0.1
0 heart -t 3
0 three
1 three -b 1
0 three -s 1 -t 0
EOF
    # gpusvm-train's probability models through svm_check_probability_model,
    # svm_predict_probability and svm_get_svr_probability, against svm-predict -b 1 on them
    for opts in "-b 1" "-s 3 -b 1"; do
        # shellcheck disable=SC2086
        "$TRAIN" -q $opts "$DATA" "$TMPD/gb.model" || { fail "gpusvm-train $opts"; continue; }
        svm-predict -b 1 "$DATA" "$TMPD/gb.model" "$TMPD/rb.out" > "$TMPD/rb.txt" 2>&1
        "$TMPD/predict" -b 1 "$DATA" "$TMPD/gb.model" "$TMPD/pb.out" > "$TMPD/pb.txt" 2>&1 ||
            { fail "predict -b 1 on gpusvm-train $opts: exit status"; continue; }
        check_file_eq "predict -b 1 on gpusvm-train $opts: output" "$TMPD/rb.out" "$TMPD/pb.out"
        check_file_eq "predict -b 1 on gpusvm-train $opts: printed lines" "$TMPD/rb.txt" "$TMPD/pb.txt"
    done
else
    skip "svm-train/svm-predict (libsvm-tools) not installed: svm.h's prediction not compared with LIBSVM's"
fi

# ---- Debian's python3-libsvm on gpusvm's libsvm.so.3 ------------------------------------------
PY=""
for p in /usr/bin/python3 python3; do
    if "$p" -c 'import svmutil' 2>/dev/null || "$p" -c 'from libsvm import svmutil' 2>/dev/null; then PY=$p; break; fi
done
if [ -n "$PY" ]; then
    # Debian's svm.py loads find_library('svm') = "libsvm.so.3" with dlopen, which searches
    # LD_LIBRARY_PATH first. Leaks are Python's own, so leak checking is off for it.
    if LD_LIBRARY_PATH="$INST/lib/gpusvm" LD_PRELOAD="$PRE" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
        "$PY" "$API/python_heart.py" "$DATA" "$TMPD/py.model" "$TMPD/py.out" > "$TMPD/py.txt" 2> "$TMPD/py.err"; then
        check_file_eq "python3-libsvm on gpusvm: model = gpusvm-train's" "$TMPD/ref.model" "$TMPD/py.model"
        check_file_eq "python3-libsvm on gpusvm: predictions = gpusvm-predict's" "$TMPD/ref.out" "$TMPD/py.out"
        check_eq "python3-libsvm on gpusvm: nr_sv, sv_indices" "nr_sv 132 sv_indices 3 7 14 29 31" "$(cat "$TMPD/py.txt")"
    else
        fail "python3-libsvm on gpusvm: exit status"; tail -3 "$TMPD/py.err"
    fi
    # the three-class set with weights and a linear kernel, against gpusvm-train with the same options
    if LD_LIBRARY_PATH="$INST/lib/gpusvm" LD_PRELOAD="$PRE" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
        "$PY" "$API/python_heart.py" "$TMPD/three" "$TMPD/py3.model" "$TMPD/py3.out" -t 0 -w3 2 > /dev/null 2> "$TMPD/py.err"; then
        "$TRAIN" -q -t 0 -w3 2 "$TMPD/three" "$TMPD/c3.model"
        check_file_eq "python3-libsvm on gpusvm: three classes" "$TMPD/c3.model" "$TMPD/py3.model"
    else
        fail "python3-libsvm on gpusvm (three classes): exit status"; tail -3 "$TMPD/py.err"
    fi
    # -t 4: heart's RBF Gram matrix (scripts/gen-gram.py) through the bindings' precomputed problem
    if python3 "$TOP/scripts/gen-gram.py" "$DATA" "$TMPD/gram" && \
        LD_LIBRARY_PATH="$INST/lib/gpusvm" LD_PRELOAD="$PRE" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
        "$PY" "$API/python_heart.py" "$TMPD/gram" "$TMPD/pyk.model" "$TMPD/pyk.out" -t 4 > /dev/null 2> "$TMPD/py.err"; then
        "$TRAIN" -q -t 4 "$TMPD/gram" "$TMPD/ck.model"
        check_file_eq "python3-libsvm on gpusvm: -t 4" "$TMPD/ck.model" "$TMPD/pyk.model"
    else
        fail "python3-libsvm on gpusvm (-t 4): exit status"; tail -3 "$TMPD/py.err"
    fi
    # -v 5: the bindings' svm_cross_validation path and their own accuracy line
    if LD_LIBRARY_PATH="$INST/lib/gpusvm" LD_PRELOAD="$PRE" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
        "$PY" "$API/python_heart.py" "$DATA" "$TMPD/pycv.model" "$TMPD/pycv.out" -v 5 > "$TMPD/pycv.txt" 2> "$TMPD/py.err"; then
        "$TRAIN" -q -v 5 "$DATA" > "$TMPD/c_cv5.txt"
        check_file_eq "python3-libsvm on gpusvm: -v 5" "$TMPD/c_cv5.txt" "$TMPD/pycv.txt"
    else
        fail "python3-libsvm on gpusvm (-v 5): exit status"; tail -3 "$TMPD/py.err"
    fi
else
    skip "python3-libsvm not installed: the Python bindings are not run on gpusvm"
fi
finish
