#!/bin/sh
# Where gpusvm's remaining costs are, on a GPU, in one call (docs/performance.md cites it):
#   cert    the certification's split (--verbose's "certification of N problem(s)" line) and its
#           share of the whole process, on the five standard sets, NEW only, with queue profiling
#           off (--verbose turns it on, and it waits after every pass), then one profiled run's
#           certification kernels;
#   predict whole-process prediction, NEW and OLD interleaved (median of REPEAT): a9a.t, letter.t,
#           mnist10k (its own rows), news20.t (the model of its every 8th row), and where DS_DIR has
#           them reuters.tst (reuters.trn's model) and sector.t.scale (sector.scale's);
#   wide    whole-process training of the wide sets (news20.t, reuters.trn, sector.scale), NEW and
#           OLD interleaved, with LIBSVM's accuracy check left to the tests; ThunderSVM's (REPEAT
#           times, svm-train's defaults as gpusvm's) when TSVM is set;
#   train   whole-process training (-q, no profiling) of the five standard sets, NEW and OLD
#           interleaved, with the models compared (cmp). Against a build from before the exit
#           helper became opt-in (92469db forks its exit always), set GPUSVM_FAST_EXIT=1;
#   cv      whole-process -v 5 of a9a, letter and mnist10k (issue #22's options) beside one
#           training, NEW and OLD interleaved, the CV lines compared, then NEW's --verbose split of
#           the fold problems and the held-out rows;
#   threads whole-process -v 5 of a9a, ijcnn1, letter and mnist10k (issue #22's options) with the
#           batch's subproblems on THREADS threads each (GPUSVM_SUB_THREADS; default "4 8 12 16"),
#           NEW only, REPEAT runs each, then letter's profiled split of the subproblem threads'
#           time (readbacks absorbed, matrices unpacked, SMO, changes) at each count;
#   prob    whole-process -b 1 training of a9a, letter and mnist10k, NEW and OLD interleaved,
#           models compared, then ThunderSVM's (TSVM=path of thundersvm-train, when set) and
#           NEW's --verbose held-out split (its held-out rows on the device and on the CPU).
#   first   a machine's first run of a9a's training (scripts/bench-first-run.sh, states fresh and
#           ours+driver, REPEAT rounds) by NEW (the solver in parts, by helper processes, where
#           the kernel cache lacks it), NEW with GPUSVM_BUILD_PROCS=0 (the whole program) and OLD,
#           the three models compared; then one fresh --verbose run of NEW: its device, program
#           and kernel cache lines (how many helpers succeeded);
#   kbuild  the solver program built with the driver's cache off by KB_PROCS (default "1 2 4 8")
#           processes at once (scripts/bench-kbuild.c): does the driver build in parallel across
#           processes?
#   text    whole-process training of text-gen with -c 1 -g 1 (TEXT=path of scripts/gen-bench-data.py
#           text's text-gen.gz), NEW and OLD interleaved TEXT_REPEAT times (default 1), models
#           compared, ThunderSVM's when TSVM is set, then NEW's profiled per-kernel device seconds.
#   big     big models (GEN=folder of scripts/gen-bench-data.py covtype, text and dense output):
#           each trained once by NEW (--verbose split and /usr/bin/time's peak memory; covtype-gen
#           and text-gen with -c 1 -g 1, dense-gen with svm-train's defaults), then its test rows
#           predicted by NEW and OLD interleaved REPEAT times (--verbose's model read, layout and
#           device lines), the predictions compared; with TSVM, ThunderSVM's training of each set
#           of TSVM_SETS (default text-gen.gz; covtype-gen.gz takes ~110 s) and its prediction of
#           the set's test rows (REPEAT times).
#   shrink  -h 1 against -h 0 (src/train/shrink.h), whole-process training, NEW only, interleaved
#           REPEAT times: the sets of GEN (covtype-gen and text-gen -c 1 -g 1, year-gen epsilon-SVR
#           -p 0.1, covtype-gen one-class -n 0.1 -g 1; default SHRINK_MIN) with their test accuracy
#           or MSE, then a9a, ijcnn1 and w8a with GPUSVM_SHRINK_MIN=1;
#           each model's obj line and --verbose's stages; ThunderSVM's text-gen training when TSVM is
#           set (its covtype-gen training takes ~110 s).
# Usage, from the repository root on the NVIDIA machine (as root, for the ICD file):
#   scripts/bench-costs.sh DS_DIR NEW_BUILD [OLD_BUILD]     (env REPEAT=5, PARTS="cert predict wide")
# DS_DIR holds the sets as ../shared/datasets does; the builds are folders with gpusvm-train and
# gpusvm-predict (e.g. build, and an older commit's `git archive` built with make).
set -u
D=$1; NEW=$2; OLD=${3:-}
REPEAT=${REPEAT:-5}; PARTS=${PARTS:-cert predict wide train}; TSVM=${TSVM:-}; TEXT=${TEXT:-}
if [ "$(id -u)" -eq 0 ] && [ ! -f /etc/OpenCL/vendors/nvidia.icd ]; then
    mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
one() { s0=$(date +%s.%N); "$@" > /dev/null 2>&1; s1=$(date +%s.%N); awk -v a="$s0" -v b="$s1" 'BEGIN { print b - a }'; }
# pair NAME CMD...: CMD run with NEW's and OLD's programs ({} is the build folder), interleaved
pair() {
    name=$1; shift
    : > "$TMP/tn"; : > "$TMP/to"
    for i in $(seq "$REPEAT"); do
        for b in $NEW $OLD; do
            sleep 0.5
            cmd=$(printf '%s\n' "$*" | sed "s#{}#$b#g")
            # shellcheck disable=SC2086
            t=$(one $cmd)
            if [ "$b" = "$NEW" ]; then echo "$t" >> "$TMP/tn"; else echo "$t" >> "$TMP/to"; fi
        done
    done
    echo "$name: new $(med < "$TMP/tn") s${OLD:+, old $(med < "$TMP/to") s} (median of $REPEAT)"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
"$NEW/gpusvm-train" -q "$D/heart_scale/heart_scale.gz" "$TMP/warm.m" # the first run's compile
if has cert; then
    for s in "a9a/a9a.gz:-c 1 -g 0.05" "ijcnn1/ijcnn1.gz:" "w8a/w8a.gz:" "letter/letter.scale.gz:" \
             "mnist10k/mnist10k.scale.gz:"; do
        f=${s%%:*}; o=${s#*:}
        for i in 1 2 3; do
            sleep 0.5
            s0=$(date +%s.%N)
            # shellcheck disable=SC2086
            GPUSVM_PROFILE=0 "$NEW/gpusvm-train" --verbose $o "$D/$f" "$TMP/m" > /dev/null 2> "$TMP/v"
            s1=$(date +%s.%N)
            w=$(awk -v a="$s0" -v b="$s1" 'BEGIN { print b - a }')
            c=$(sed -n 's/^gpusvm: certification \([0-9.]*\) s.*/\1/p' "$TMP/v" | tail -n 1)
            echo "cert $f $o: whole $w s, certification ${c:--} s"
            grep 'certification of' "$TMP/v" | head -n 3
        done
        # shellcheck disable=SC2086
        "$NEW/gpusvm-train" --verbose $o "$D/$f" "$TMP/m" 2>&1 | grep -E 'k_cert|certification' | head -n 6
    done
fi
if has predict; then
    # pp NAME TEST MODEL: timed pair, then NEW's and OLD's predictions compared
    pp() {
        pair "$1" "{}/gpusvm-predict $2 $3 $TMP/p"
        [ -n "$OLD" ] || return 0
        "$NEW/gpusvm-predict" "$2" "$3" "$TMP/p1" > /dev/null; "$OLD/gpusvm-predict" "$2" "$3" "$TMP/p2" > /dev/null
        cmp -s "$TMP/p1" "$TMP/p2" && echo "  predictions identical" || echo "  predictions differ"
    }
    "$NEW/gpusvm-train" -q -c 1 -g 0.05 "$D/a9a/a9a.gz" "$TMP/a9a.m"
    "$NEW/gpusvm-train" -q "$D/letter/letter.scale.gz" "$TMP/letter.m"
    "$NEW/gpusvm-train" -q "$D/mnist10k/mnist10k.scale.gz" "$TMP/mnist.m"
    gzip -dc "$D/news20/news20.t.gz" | awk 'NR % 8 == 1' > "$TMP/n8"
    "$NEW/gpusvm-train" -q "$TMP/n8" "$TMP/n8.m"
    pp "predict a9a.t" "$D/a9a/a9a.t.gz" "$TMP/a9a.m"
    pp "predict letter.scale.t (325 pairs)" "$D/letter/letter.scale.t.gz" "$TMP/letter.m"
    pp "predict mnist10k (45 pairs)" "$D/mnist10k/mnist10k.scale.gz" "$TMP/mnist.m"
    pp "predict news20.t (190 pairs)" "$D/news20/news20.t.gz" "$TMP/n8.m"
    if [ -f "$D/reuters/reuters.tst.gz" ]; then
        "$NEW/gpusvm-train" -q "$D/reuters/reuters.trn.gz" "$TMP/reuters.m"
        pp "predict reuters.tst" "$D/reuters/reuters.tst.gz" "$TMP/reuters.m"
    fi
    if [ -f "$D/sector/sector.t.scale.gz" ]; then
        "$NEW/gpusvm-train" -q "$D/sector/sector.scale.gz" "$TMP/sector.m"
        pp "predict sector.t.scale" "$D/sector/sector.t.scale.gz" "$TMP/sector.m"
    fi
fi
if has wide; then
    pair "train news20.t" "{}/gpusvm-train -q $D/news20/news20.t.gz $TMP/w.m"
    pair "train reuters.trn" "{}/gpusvm-train -q $D/reuters/reuters.trn.gz $TMP/w.m"
    pair "train sector.scale" "{}/gpusvm-train -q $D/sector/sector.scale.gz $TMP/w.m"
    "$NEW/gpusvm-train" --verbose "$D/sector/sector.scale.gz" "$TMP/w.m" 2>&1 | grep -E '^gpusvm: (training|phases|clustering|kernel)' | head -n 8
    if [ -n "$TSVM" ]; then
        for f in news20/news20.t reuters/reuters.trn sector/sector.scale; do
            [ -f "$D/$f.gz" ] || continue
            gzip -dc "$D/$f.gz" > "$TMP/plain"
            for i in $(seq "$REPEAT"); do
                echo "train $f: ThunderSVM $(one "$TSVM" "$TMP/plain" "$TMP/ts.m") s"
            done
            rm -f "$TMP/plain"
        done
    fi
fi
if has train; then
    for s in "a9a/a9a.gz:-c 1 -g 0.05" "ijcnn1/ijcnn1.gz:" "w8a/w8a.gz:" "letter/letter.scale.gz:-c 10 -g 0.5" \
             "mnist10k/mnist10k.scale.gz:-c 10 -g 0.02"; do
        f=${s%%:*}; o=${s#*:}
        pair "train $f $o" "{}/gpusvm-train -q $o $D/$f $TMP/t.m"
        if [ -n "$OLD" ]; then
            # shellcheck disable=SC2086
            "$NEW/gpusvm-train" -q $o "$D/$f" "$TMP/t1.m"; "$OLD/gpusvm-train" -q $o "$D/$f" "$TMP/t2.m"
            cmp -s "$TMP/t1.m" "$TMP/t2.m" && echo "  models identical" || echo "  models differ"
        fi
    done
fi
if has cv; then
    for s in "a9a/a9a.gz:-g 0.05" "letter/letter.scale.gz:-c 10 -g 0.5" "mnist10k/mnist10k.scale.gz:-c 10 -g 0.02"; do
        f=${s%%:*}; o=${s#*:}
        pair "train $f $o" "{}/gpusvm-train -q $o $D/$f $TMP/t.m"
        pair "-v 5 $f $o" "{}/gpusvm-train -q -v 5 $o $D/$f"
        if [ -n "$OLD" ]; then
            # shellcheck disable=SC2086
            a=$("$NEW/gpusvm-train" -q -v 5 $o "$D/$f" 2>&1); b=$("$OLD/gpusvm-train" -q -v 5 $o "$D/$f" 2>&1)
            [ "$a" = "$b" ] && echo "  the same lines: $a" || echo "  lines differ: $a / $b"
        fi
        # shellcheck disable=SC2086
        GPUSVM_PROFILE=0 "$NEW/gpusvm-train" --verbose -v 5 $o "$D/$f" 2> "$TMP/v" > /dev/null
        { grep -m 1 'pinned memory' "$TMP/v"; grep 'fold problem(s): seconds\|held-out rows predicted' "$TMP/v"; } |
            sed 's/^/  /'
    done
fi
if has threads; then
    for s in "a9a/a9a.gz:-g 0.05" "ijcnn1/ijcnn1.gz:" "letter/letter.scale.gz:-c 10 -g 0.5" \
             "mnist10k/mnist10k.scale.gz:-c 10 -g 0.02"; do
        f=${s%%:*}; o=${s#*:}
        for th in ${THREADS:-4 8 12 16}; do
            : > "$TMP/tt"
            for i in $(seq "$REPEAT"); do
                sleep 0.5
                # shellcheck disable=SC2086
                one env GPUSVM_SUB_THREADS="$th" "$NEW/gpusvm-train" -q -v 5 $o "$D/$f" >> "$TMP/tt"
            done
            echo "-v 5 $f $o, $th subproblem threads: $(tr '\n' ' ' < "$TMP/tt")s (median $(med < "$TMP/tt") s)"
        done
    done
    for th in ${THREADS:-4 8 12 16}; do
        GPUSVM_SUB_THREADS="$th" "$NEW/gpusvm-train" --verbose -v 5 -c 10 -g 0.5 "$D/letter/letter.scale.gz" 2> "$TMP/v" > /dev/null
        echo "letter -v 5, $th threads, profiled:"
        grep -m 2 'host per batch of\|subproblems (first parts)' "$TMP/v" | sed 's/^/  /'
    done
fi
if has prob; then
    for s in "a9a/a9a.gz:-g 0.05" "letter/letter.scale.gz:-c 10 -g 0.5" "mnist10k/mnist10k.scale.gz:-g 0.02"; do
        f=${s%%:*}; o=${s#*:}
        pair "-b 1 $f $o" "{}/gpusvm-train -q -b 1 $o $D/$f $TMP/t.m"
        if [ -n "$OLD" ]; then
            # shellcheck disable=SC2086
            "$NEW/gpusvm-train" -q -b 1 $o "$D/$f" "$TMP/t1.m"; "$OLD/gpusvm-train" -q -b 1 $o "$D/$f" "$TMP/t2.m"
            cmp -s "$TMP/t1.m" "$TMP/t2.m" && echo "  models identical" || echo "  models differ"
        fi
        if [ -n "$TSVM" ]; then
            gzip -dc "$D/$f" > "$TMP/plain"
            : > "$TMP/tt"
            for i in $(seq "$REPEAT"); do
                # shellcheck disable=SC2086
                sleep 0.5; one "$TSVM" -b 1 $o "$TMP/plain" "$TMP/ts.m" >> "$TMP/tt"
            done
            echo "  ThunderSVM -b 1: $(med < "$TMP/tt") s (median of $REPEAT)"
        fi
        # shellcheck disable=SC2086
        GPUSVM_PROFILE=0 "$NEW/gpusvm-train" --verbose -b 1 $o "$D/$f" "$TMP/t.m" 2> "$TMP/v" > /dev/null
        grep 'held-out rows on the CPU' "$TMP/v" | awk '{ n++; r += $2; t += $(NF - 1) }
            END { if (n) printf "  held-out on the CPU: %d folds, %d rows, %.3f s\n", n, r, t }'
        sed 's/[(),]/ /g' "$TMP/v" | awk '/held-out rows on the device/ { n++; r += $2; redo += $6
            for (i = 1; i <= NF; i++) { if ($i == "program") lp += $(i + 1); if ($i == "upload") up += $(i + 1)
                                        if ($i == "values") va += $(i + 1) } }
            END { if (n) printf "  held-out on the device: %d folds, %d rows (%d again on the CPU), layouts %.3f s, upload %.3f s, values %.3f s\n", n, r, redo, lp, up, va }'
    done
fi
if has big && [ -n "${GEN:-}" ]; then
    for s in "covtype-gen.gz:covtype-gen.t.gz:-c 1 -g 1" "text-gen.gz:text-gen.t.gz:-c 1 -g 1" "dense-gen:dense-gen.t:"; do
        tr=${s%%:*}; rest=${s#*:}; te=${rest%%:*}; o=${rest#*:}
        [ -f "$GEN/$tr" ] || { echo "big: no $GEN/$tr"; continue; }
        # shellcheck disable=SC2086
        /usr/bin/time -f "train $tr: whole %e s, peak host memory %M KB" "$NEW/gpusvm-train" --verbose $o "$GEN/$tr" "$TMP/big.m" > "$TMP/v" 2>&1
        grep -E '^gpusvm: (read|clustering|seconds|training|model written)|^train |nSV' "$TMP/v"
        for i in $(seq "$REPEAT"); do
            for b in $NEW $OLD; do
                sleep 1
                s0=$(date +%s.%N)
                tag=new; [ "$b" = "$NEW" ] || tag=old
                "$b/gpusvm-predict" --verbose "$GEN/$te" "$TMP/big.m" "$TMP/p.$tag" > "$TMP/v" 2>&1
                s1=$(date +%s.%N)
                echo "predict $te with $b: whole $(awk -v a="$s0" -v b="$s1" 'BEGIN { print b - a }') s"
                grep -E 'model:|layout|Accuracy|^rows [0-9]|device split' "$TMP/v" | sed 's/^/  /'
            done
        done
        [ -n "$OLD" ] && { cmp -s "$TMP/p.new" "$TMP/p.old" && echo "  predictions identical" || echo "  predictions differ"; }
        if [ -n "$TSVM" ] && case " ${TSVM_SETS:-text-gen.gz} " in *" $tr "*) true ;; *) false ;; esac; then
            # ThunderSVM's own model of the set, its test rows
            gzip -dcf "$GEN/$tr" > "$TMP/plain"; gzip -dcf "$GEN/$te" > "$TMP/plaint"
            # shellcheck disable=SC2086
            echo "ThunderSVM train $tr: $(one "$TSVM" $o "$TMP/plain" "$TMP/ts.m") s"
            for i in $(seq "$REPEAT"); do
                sleep 1
                echo "ThunderSVM predict $te: $(one "${TSVM%-train}-predict" "$TMP/plaint" "$TMP/ts.m" "$TMP/tp") s"
            done
            rm -f "$TMP/plain" "$TMP/plaint"
        fi
    done
fi
if has shrink; then
    # shk LABEL ENV FILE OPTS...: (ENV: VAR=VALUE or "") -h 1 and -h 0 interleaved, medians, obj lines, the stages of one run
    shk() {
        label=$1; env=$2; f=$3; shift 3
        : > "$TMP/t1"; : > "$TMP/t0"
        for i in $(seq "$REPEAT"); do
            for h in 1 0; do
                sleep 1
                # shellcheck disable=SC2086
                t=$(one env $env "$NEW/gpusvm-train" -h $h "$@" "$f" "$TMP/s$h.m")
                echo "$t" >> "$TMP/t$h"
            done
        done
        echo "shrink $label: -h 1 $(med < "$TMP/t1") s, -h 0 $(med < "$TMP/t0") s (median of $REPEAT)"
        for h in 1 0; do
            # shellcheck disable=SC2086
            env $env "$NEW/gpusvm-train" --verbose -h $h "$@" "$f" "$TMP/s$h.m" > "$TMP/v" 2>&1
            grep -E '^gpusvm: (shrinking|certification [0-9]|seconds|training)|^obj|^nSV|#iter' "$TMP/v" | sed "s/^/  -h $h /"
            [ -f "${f%.gz}.t.gz" ] && "$NEW/gpusvm-predict" "${f%.gz}.t.gz" "$TMP/s$h.m" "$TMP/p" | sed "s/^/  -h $h /"
        done
    }
    for e in "covtype-gen:-c 1 -g 1" "text-gen:-c 1 -g 1" "year-gen:-s 3 -p 0.1" "covtype-gen:-s 2 -n 0.1 -g 1"; do
        s=${e%%:*}; o=${e#*:}
        # shellcheck disable=SC2086
        [ -f "${GEN:-.}/$s.gz" ] && shk "$s $o" "" "$GEN/$s.gz" $o   # "": no variable, the default threshold
        if [ "$e" = "text-gen:-c 1 -g 1" ] && [ -f "${GEN:-.}/$s.gz" ] && [ -n "$TSVM" ]; then
            gzip -dc "$GEN/$s.gz" > "$TMP/plain"
            echo "shrink $s: ThunderSVM $(one "$TSVM" -c 1 -g 1 "$TMP/plain" "$TMP/ts.m") s"
            rm -f "$TMP/plain"
        fi
    done
    shk a9a GPUSVM_SHRINK_MIN=1 "$D/a9a/a9a.gz" -c 1 -g 0.05
    shk ijcnn1 GPUSVM_SHRINK_MIN=1 "$D/ijcnn1/ijcnn1.gz"
    shk w8a GPUSVM_SHRINK_MIN=1 "$D/w8a/w8a.gz"
fi
if has text && [ -n "$TEXT" ]; then
    for i in $(seq "${TEXT_REPEAT:-1}"); do
        echo "train text-gen: new $(one "$NEW/gpusvm-train" -q -c 1 -g 1 "$TEXT" "$TMP/tn.m") s"
        [ -n "$OLD" ] && echo "train text-gen: old $(one "$OLD/gpusvm-train" -q -c 1 -g 1 "$TEXT" "$TMP/to.m") s"
    done
    if [ -n "$OLD" ]; then
        cmp -s "$TMP/tn.m" "$TMP/to.m" && echo "  models identical" || echo "  models differ"
    fi
    if [ -n "$TSVM" ]; then
        gzip -dc "$TEXT" > "$TMP/plain"
        echo "train text-gen: ThunderSVM $(one "$TSVM" -c 1 -g 1 "$TMP/plain" "$TMP/ts.m") s"
        rm -f "$TMP/plain"
    fi
    "$NEW/gpusvm-train" --verbose -c 1 -g 1 "$TEXT" "$TMP/tn.m" 2>&1 |
        grep -E 'clustering|device seconds per kernel|^gpusvm: seconds|iterations|certification [0-9.]+ s'
fi
if has first; then
    A="-q -c 1 -g 0.05 $D/a9a/a9a.gz $TMP/first.m"
    for v in "new:$NEW:GPUSVM_BUILD_PROCS=" "new-whole:$NEW:GPUSVM_BUILD_PROCS=0" ${OLD:+"old:$OLD:GPUSVM_BUILD_PROCS="}; do
        n=${v%%:*}; r=${v#*:}; b=${r%%:*}; e=${r#*:}
        echo "first run, $n ($b, ${e}):"
        # shellcheck disable=SC2086
        env "$e" sh scripts/bench-first-run.sh -n "$REPEAT" -s "fresh ours+driver" -- "$b/gpusvm-train" $A | tail -n 2
        cp "$TMP/first.m" "$TMP/first.$n" 2>/dev/null
    done
    cmp -s "$TMP/first.new" "$TMP/first.new-whole" && echo "  parts and whole: the same model" ||
        echo "  PARTS AND WHOLE DIFFER"
    if [ -n "$OLD" ]; then
        cmp -s "$TMP/first.new" "$TMP/first.old" && echo "  NEW and OLD: the same model" || echo "  NEW AND OLD DIFFER"
    fi
    mkdir -p "$TMP/fnv" "$TMP/fxdg"
    # shellcheck disable=SC2086
    CUDA_CACHE_PATH="$TMP/fnv" XDG_CACHE_HOME="$TMP/fxdg" GPUSVM_PROFILE=0 "$NEW/gpusvm-train" --verbose $A 2>&1 |
        grep -E 'ready after|program|kernel cache|training \('
fi
if has kbuild; then
    # whether NVIDIA's compiler builds in parallel across processes: the solver program (a9a's
    # options) built with the driver's cache off by P processes at once (threads are serialised:
    # docs/performance.md, G1), each its own -D so no cache answers another
    cc -O1 -o "$TMP/kbuild" scripts/bench-kbuild.c -lOpenCL -lpthread || exit 1
    O=$(cat scripts/a9a-solver.opts)
    for P in ${KB_PROCS:-1 2 4 8}; do
        s0=$(date +%s.%N)
        for i in $(seq "$P"); do
            CUDA_CACHE_DISABLE=1 "$TMP/kbuild" kernels solver "$O -DGS_PROC_${P}_${i}=1" 1 > "$TMP/kb.$i" 2>&1 &
        done
        wait
        s1=$(date +%s.%N)
        echo "solver program, $P process(es) at once: wall $(awk -v a="$s0" -v b="$s1" 'BEGIN { print b - a }') s;" \
            "each build $(cat "$TMP"/kb.* | awk '{ printf "%s ", $NF }')s"
        rm -f "$TMP"/kb.*
    done
fi
