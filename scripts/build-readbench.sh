#!/bin/sh
# build-readbench.sh OUT — builds scripts/readbench.c with the reader's sources into OUT (used by
# scripts/bench-reader.sh and scripts/bench-gzip.sh). Env: CC (cc).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
${CC:-cc} -std=c11 -Wall -Wextra -Werror -O2 -D_DEFAULT_SOURCE -I"$TOP/src" "$TOP/scripts/readbench.c" \
    "$TOP/src/io/data.c" "$TOP/src/io/pinflate.c" "$TOP/src/io/deflate.c" "$TOP/src/util/status.c" \
    "$TOP/src/util/parallel.c" -lz -lpthread -o "$1"
