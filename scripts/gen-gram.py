#!/usr/bin/env python3
"""gen-gram.py - precomputed-kernel files (-t 4) from a LIBSVM data file, in plain python3.

    scripts/gen-gram.py [options] TRAIN OUT_TRAIN [TEST OUT_TEST]

OUT_TRAIN gets one line per training row, "label 0:i 1:K(x_i,x_1) ... l:K(x_i,x_l)" with serial
numbers i = 1..l in file order; OUT_TEST (when TEST is given) one line per test row,
"label 0:0 1:K(x,x_1) ... l:K(x,x_l)": the kernel against the training rows, as svm-predict reads a
-t 4 test file (libsvm-compat 1.7). Every value 1..l is written, zeros included, since LIBSVM reads
K(i,j) at array position j of row i. Inputs may be gzip'd.

Options:
  -k, --kernel linear|rbf   the kernel (default rbf)
  -g, --gamma G             RBF's gamma; default 1/max_index of TRAIN, LIBSVM's default, so
                            "svm-train -t 4 OUT_TRAIN" learns what "svm-train -t 2 TRAIN" does
  -n, --rows N              only the first N training rows (default: all)
  -m, --test-rows M         only the first M test rows (default: all)
  -p, --precision P         values as %.Pg (default: shortest exact text, Python's repr)

K is computed as LIBSVM does it: the linear kernel is the dot product, RBF is
exp(-gamma * (|x|^2 + |z|^2 - 2 x.z)). Each dot product sums the common features' products in
index order whichever row comes first, so the Gram matrix is exactly symmetric. Memory stays
linear in the rows (one row of the matrix at a time); time is l * (l + m) dot products, about
10 s for 2,000 rows of heart_scale's 13 features, and 25 times that for 10,000.
"""
import argparse
import gzip
import math
import sys


def read_libsvm(path, limit):
    """Labels (as written) and rows as ascending (index, value) lists."""
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    labels, rows = [], []
    with opener(path, "rt") as f:
        for n, line in enumerate(f, 1):
            if limit is not None and len(rows) >= limit:
                break
            parts = line.split()
            if not parts:
                continue
            row = []
            for tok in parts[1:]:
                i, _, v = tok.partition(":")
                try:
                    row.append((int(i), float(v)))
                except ValueError:
                    sys.exit("%s:%d: not a LIBSVM line" % (path, n))
            labels.append(parts[0])
            rows.append(sorted(row))
    return labels, rows


def dense(row, width):
    d = [0.0] * (width + 1)
    for i, v in row:
        if i <= width:  # a test row's features beyond the training rows' meet only zeros
            d[i] = v
    return d


def kernel_row(x, xd, xsq, rows, sqs, rbf, gamma):
    """K(x, z) for every training row z; xd is x dense (the dot product iterates z's features,
    so the same products are added in the same order as for K(z, x))."""
    out = []
    for z, zsq in zip(rows, sqs):
        dot = 0.0  # + 0.0 * -v is still +0.0: no -0.0 in the output
        for i, v in z:
            dot += v * xd[i]
        out.append(math.exp(-gamma * (xsq + zsq - 2.0 * dot)) if rbf else dot)
    return out


def write_rows(path, labels, rows, train_rows, train_sqs, width, args, serial):
    fmt = repr if args.precision is None else ("%%.%dg" % args.precision).__mod__
    rbf = args.kernel == "rbf"
    with open(path, "w") as f:
        for r, (label, x) in enumerate(zip(labels, rows)):
            xd = dense(x, width)
            xsq = sum(v * v for _, v in x)
            k = kernel_row(x, xd, xsq, train_rows, train_sqs, rbf, args.gamma)
            f.write("%s 0:%d %s\n" % (label, r + 1 if serial else 0,
                                       " ".join("%d:%s" % (j + 1, fmt(v)) for j, v in enumerate(k))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("train")
    ap.add_argument("out_train")
    ap.add_argument("test", nargs="?")
    ap.add_argument("out_test", nargs="?")
    ap.add_argument("-k", "--kernel", choices=("linear", "rbf"), default="rbf")
    ap.add_argument("-g", "--gamma", type=float, default=0.0)
    ap.add_argument("-n", "--rows", type=int)
    ap.add_argument("-m", "--test-rows", type=int)
    ap.add_argument("-p", "--precision", type=int)
    args = ap.parse_args()
    if (args.test is None) != (args.out_test is None):
        ap.error("TEST and OUT_TEST go together")
    labels, rows = read_libsvm(args.train, args.rows)
    if not rows:
        sys.exit("%s: no rows" % args.train)
    width = max((row[-1][0] for row in rows if row), default=0)
    if args.gamma == 0 and width > 0:
        args.gamma = 1.0 / width
    sqs = [sum(v * v for _, v in row) for row in rows]
    write_rows(args.out_train, labels, rows, rows, sqs, width, args, True)
    if args.test:
        tl, tr = read_libsvm(args.test, args.test_rows)
        write_rows(args.out_test, tl, tr, rows, sqs, width, args, False)


if __name__ == "__main__":
    main()
