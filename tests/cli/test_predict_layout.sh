#!/bin/sh
# test_predict_layout.sh — the golden svm-predict cases again with every SV block stored row-wise
# (GS_PRED_LAYOUT=rows), so that the row-wise kernel path, which the small golden models rarely
# select on their own, must give svm-predict's bytes too (the dense path is what the golden test
# mostly exercises).
GS_PRED_LAYOUT=rows
export GS_PRED_LAYOUT
. "$(dirname "$0")/test_predict_golden.sh"
