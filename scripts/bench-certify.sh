#!/bin/sh
# What the certification (src/train/certify.c) costs: whole-process training time (median of REPEAT runs,
# GAP seconds apart) per set for one or two builds, the certification seconds and passes that
# --verbose reports, and the independent checker's gap (tests/tools/kkt_check) on each model.
# Usage: scripts/bench-certify.sh DATA_DIR BUILD [BUILD_BEFORE]   (env REPEAT=5 GAP=1 SETS=...)
# DATA_DIR holds the sets as ../shared/datasets does (a9a/a9a.gz, ...).
set -eu
DATA=$1; NEW=$2; OLD=${3:-}
REPEAT=${REPEAT:-5}; GAP=${GAP:-1}
# SETS: NAME:FILE:OPTIONS items separated by ';'
SETS=${SETS:-"a9a:a9a/a9a.gz:-c 1 -g 0.05;ijcnn1:ijcnn1/ijcnn1.gz:;w8a:w8a/w8a.gz:;letter:letter/letter.scale.gz:;mnist10k:mnist10k/mnist10k.scale.gz:"}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
run() { # BUILD NAME FILE OPTS -> median seconds, last run's verbose log in $TMP/v
    b=$1; f=$3; shift 3
    for i in $(seq "$REPEAT"); do
        sleep "$GAP"
        t0=$(date +%s.%N)
        "$b/gpusvm-train" --verbose "$@" "$f" "$TMP/m" > "$TMP/o" 2> "$TMP/v"
        t1=$(date +%s.%N)
        awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
    done | med
}
printf '| set | build | whole process (median of %s) | certification | passes | checker gap |\n|---|---|---|---|---|---|\n' "$REPEAT"
IFS=';'; set -f
for s in $SETS; do
    unset IFS
    name=${s%%:*}; rest=${s#*:}; file=$DATA/${rest%%:*}; opts=${rest#*:}
    [ -f "$file" ] || { echo "| $name | missing $file | | | | |"; continue; }
    gzip -dc "$file" > "$TMP/plain"
    C=$(echo "$opts" | sed -n 's/.*-c \([^ ]*\).*/\1/p'); C=${C:-1}
    for b in $NEW $OLD; do
        # shellcheck disable=SC2086
        t=$(run "$b" "$name" "$TMP/plain" $opts)
        cs=$(sed -n 's/^gpusvm: certification \([0-9.]*\) s.*/\1/p' "$TMP/v")
        cp=$(grep -c '^gpusvm: certification [0-9]*:' "$TMP/v" || true)
        gap=-
        [ "${CHECK:-1}" = 1 ] && gap=$("$NEW/tests/tools/kkt_check" "$TMP/plain" "$TMP/m" "$C" | sed -n 's/^max_gap //p')
        echo "| $name $opts | $b | $t s | ${cs:--} s | ${cp:--} | $gap |"
    done
    IFS=';'
done
