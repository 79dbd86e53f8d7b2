#!/bin/sh
# test_predict_big_model.sh — a model large enough that gpusvm-predict reads its SV lines and lays
# its SV blocks out on threads (src/io/model.c: over 4 MB of SV text; src/predict/predictor.c: over
# 2^20 SV values): a generated two-class RBF model of 600 dense SVs x 2,000 values (14 MB). Its
# predictions must be svm-predict's byte for byte, and a damaged SV line must give the message of a
# reading in file order (the first bad line's, not a later one's).
. "$(dirname "$0")/lib.sh"
require_bin "$PREDICT"
awk 'BEGIN { srand(3)
  print "svm_type c_svc"; print "kernel_type rbf"; print "gamma 0.0005"; print "nr_class 2"
  print "total_sv 600"; print "rho 0.25"; print "label 1 -1"; print "nr_sv 300 300"; print "SV"
  for (s = 0; s < 600; s++) {
    line = sprintf("%.6g", (s < 300 ? 1 : -1) * (0.1 + rand()))
    for (j = 1; j <= 2000; j++) { v = int(rand() * 201) - 100; if (v) line = line " " j ":" v / 100 }
    print line
  }
  exit }' > "$TMPD/big.model"
awk 'BEGIN { srand(4)
  for (r = 0; r < 40; r++) {
    line = (r % 2 ? "1" : "-1")
    for (j = 1; j <= 2000; j++) { v = int(rand() * 201) - 100; if (v) line = line " " j ":" v / 100 }
    print line
  }
  exit }' > "$TMPD/rows"
check_eq "model over 4 MB" 1 "$(awk -v n="$(wc -c < "$TMPD/big.model")" 'BEGIN { print (n > 4194304) }')"
"$PREDICT" "$TMPD/rows" "$TMPD/big.model" "$TMPD/g.out" > "$TMPD/g.stdout" 2>&1 || fail "gpusvm-predict failed: $(cat "$TMPD/g.stdout")"
if command -v svm-predict > /dev/null 2>&1; then
    svm-predict "$TMPD/rows" "$TMPD/big.model" "$TMPD/r.out" > "$TMPD/r.stdout"
    check_file_eq "labels as svm-predict's" "$TMPD/r.out" "$TMPD/g.out"
    check_file_eq "accuracy line as svm-predict's" "$TMPD/r.stdout" "$TMPD/g.stdout"
else
    skip "svm-predict (libsvm-tools) not installed: predictions not compared"
fi
# damaged lines 120 and 480 of the file (SV lines 111 and 471): the first one is reported
awk 'NR == 120 || NR == 480 { sub(/ 7:[^ ]*/, " 7:x") } { print }' "$TMPD/big.model" > "$TMPD/bad.model"
"$PREDICT" "$TMPD/rows" "$TMPD/bad.model" "$TMPD/b.out" > /dev/null 2> "$TMPD/b.err"
check_eq "damaged model: exit 1" 1 "$?"
check_eq "damaged model: the first bad line" "$TMPD/bad.model:120: bad index:value pair '7:x'" "$(head -n 1 "$TMPD/b.err")"
# a line without its coefficient before a cut-short end: the line comes first
awk 'NR == 200 { $0 = "" } { print }' "$TMPD/big.model" | head -c 12000000 > "$TMPD/cut.model"
"$PREDICT" "$TMPD/rows" "$TMPD/cut.model" "$TMPD/b.out" > /dev/null 2> "$TMPD/b.err"
check_eq "cut model: the empty line first" "$TMPD/cut.model:200: SV line has 0 fields, expected 1 coefficient first" "$(head -n 1 "$TMPD/b.err")"
finish
