#!/usr/bin/env python3
"""Converts Fashion-MNIST from its original IDX files to LIBSVM's sparse format.

Source: Debian's package dataset-fashion-mnist, which installs
    /usr/share/datasets/fashion-mnist/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz
(plain, uncompressed IDX files are accepted too). Output, one line per image:
    <label 0..9> <pixel+1>:<value> ...     value = byte/255 printed with %.8g (--raw: the byte)
pixels are numbered 0..783 row-major; zero pixels are omitted. Writes, in --out-dir:
    fashion-mnist.scale    (60000 rows)     fashion-mnist.scale.t   (10000 rows)
(with --raw: fashion-mnist, fashion-mnist.t); with --gzip, each gets .gz (deterministic bytes:
gzip header without name or time). Python 3 standard library only.

    scripts/fashion-mnist-to-libsvm.py --out-dir bench-data/fashion --gzip
"""
import argparse
import gzip
import os
import struct
import sys

DEFAULT_SRC = "/usr/share/datasets/fashion-mnist"


def open_idx(src, stem):
    """Opens SRC/STEM or SRC/STEM.gz (binary)."""
    for name in (stem + ".gz", stem):
        path = os.path.join(src, name)
        if os.path.exists(path):
            return gzip.open(path, "rb") if name.endswith(".gz") else open(path, "rb")
    raise FileNotFoundError("%s/%s[.gz] not found (apt-get install dataset-fashion-mnist)"
                            % (src, stem))


def read_labels(src, stem):
    with open_idx(src, stem) as f:
        magic, n = struct.unpack(">II", f.read(8))
        if magic != 0x801:
            raise ValueError("%s: not an IDX label file (magic %#x)" % (stem, magic))
        data = f.read(n)
    if len(data) != n:
        raise ValueError("%s: truncated (%d of %d labels)" % (stem, len(data), n))
    return data


def convert(src, img_stem, lab_stem, out_path, raw, use_gzip):
    labels = read_labels(src, lab_stem)
    with open_idx(src, img_stem) as f:
        magic, n, rows, cols = struct.unpack(">IIII", f.read(16))
        if magic != 0x803:
            raise ValueError("%s: not an IDX image file (magic %#x)" % (img_stem, magic))
        if n != len(labels):
            raise ValueError("%s: %d images but %d labels" % (img_stem, n, len(labels)))
        d = rows * cols
        # vals[b] = the text of byte b; cells[i][b] = " i+1:value", built once.
        vals = [("%d" % b) if raw else ("%.8g" % (b / 255.0)) for b in range(256)]
        cells = [[" %d:%s" % (i + 1, vals[b]) for b in range(256)] for i in range(d)]
        if use_gzip:
            raw_out = open(out_path, "wb")
            out = gzip.GzipFile(filename="", mode="wb", fileobj=raw_out, mtime=0, compresslevel=6)
        else:
            raw_out = None
            out = open(out_path, "wb")
        try:
            chunk = []
            for k in range(n):
                img = f.read(d)
                if len(img) != d:
                    raise ValueError("%s: truncated at image %d" % (img_stem, k))
                chunk.append(str(labels[k]) + "".join([cells[i][b] for i, b in enumerate(img) if b])
                             + "\n")
                if len(chunk) == 2000:
                    out.write("".join(chunk).encode("ascii"))
                    chunk = []
            out.write("".join(chunk).encode("ascii"))
        finally:
            out.close()
            if raw_out is not None:
                raw_out.close()
    return n, d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=DEFAULT_SRC, help="folder with the IDX files [%(default)s]")
    ap.add_argument("--out-dir", default=".", help="output folder [%(default)s]")
    ap.add_argument("--gzip", action="store_true", help="write .gz files")
    ap.add_argument("--raw", action="store_true", help="values are the bytes 1..255, not byte/255")
    ap.add_argument("--only", choices=("train", "test"), help="convert one half only")
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    base = "fashion-mnist" if a.raw else "fashion-mnist.scale"
    halves = [("train", "train-images-idx3-ubyte", "train-labels-idx1-ubyte", base),
              ("test", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", base + ".t")]
    for half, img, lab, name in halves:
        if a.only and a.only != half:
            continue
        path = os.path.join(a.out_dir, name + (".gz" if a.gzip else ""))
        tmp = path + ".tmp"
        try:
            n, d = convert(a.src, img, lab, tmp, a.raw, a.gzip)
        except (OSError, ValueError) as e:
            if os.path.exists(tmp):
                os.remove(tmp)
            print("fashion-mnist-to-libsvm: %s" % e, file=sys.stderr)
            return 1
        os.replace(tmp, path)
        print("%s: %d rows x %d features" % (path, n, d))
    return 0


if __name__ == "__main__":
    sys.exit(main())
