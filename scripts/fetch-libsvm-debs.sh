#!/bin/sh
# Downloads Debian's LIBSVM packages (libsvm3: the library; libsvm-tools: svm-train, svm-predict)
# as .deb files into a git-ignored folder, so they can be carried to a machine that has no package
# registry (the GPU machine) and used there as the benchmark's reference:
#     scripts/fetch-libsvm-debs.sh                 # -> bench-data/debs/*.deb
#     scripts/fetch-libsvm-debs.sh DIR             # -> DIR/*.deb
#     scripts/bench --libsvm-debs bench-data/debs  # unpacks them (dpkg -x) into a temp dir
# Needs apt-get (Debian/Ubuntu); does not need root. Prints the paths of the two files.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DEST=${1:-$TOP/bench-data/debs}
if ! command -v apt-get >/dev/null 2>&1; then
    echo "fetch-libsvm-debs: apt-get not found (run this on a Debian/Ubuntu machine)" >&2
    exit 1
fi
mkdir -p "$DEST"
cd "$DEST"
# Run as root, apt drops privileges to _apt for downloads and warns when _apt cannot write here;
# downloading as root is harmless, so allow it quietly.
if [ "$(id -u)" -eq 0 ]; then
    set -- -o APT::Sandbox::User=root
else
    set --
fi
if ! apt-get "$@" download libsvm3 libsvm-tools; then
    echo "fetch-libsvm-debs: apt-get download failed; try 'apt-get update' first (as root)" >&2
    exit 1
fi
for p in libsvm3 libsvm-tools; do
    f=$(ls -t "$p"_*.deb 2>/dev/null | head -n 1)
    if [ -z "$f" ]; then
        echo "fetch-libsvm-debs: no $p .deb in $DEST" >&2
        exit 1
    fi
    echo "$DEST/$f"
done
