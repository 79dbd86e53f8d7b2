#!/bin/sh
# test_predict_hash.sh — the golden svm-predict cases again with every SV block stored row-wise and
# the row-wise values taken from hash tables of the test rows (GS_PRED_LAYOUT=rows,hash;
# kernels/predict.cl pred_khash, which GPUs take by default and CPU devices do not), so that the
# path the GPU runs must give svm-predict's bytes on the CI's CPU device too.
GS_PRED_LAYOUT=rows,hash
export GS_PRED_LAYOUT
. "$(dirname "$0")/test_predict_golden.sh"
