#!/bin/sh
# test_predict_tile.sh — the golden svm-predict cases again with pred_kvals' tiled dense path forced
# on (GS_PRED_LAYOUT=tile; GPUs take it by default, CPU devices take the merge), so that the path
# the GPU runs must give svm-predict's bytes on the CI's CPU device too.
GS_PRED_LAYOUT=tile
export GS_PRED_LAYOUT
. "$(dirname "$0")/test_predict_golden.sh"
