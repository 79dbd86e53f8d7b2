#!/usr/bin/env python3
"""gen-libsvm-data.py — deterministic LIBSVM-format data for tests and benchmarks (stdlib only).

The same options and seed always give the same bytes. Rows have a random number of nonzeros
around features*density, at sorted random indices, with values in [-1, 1] written like svm-scale
output ("%.6g"-style, up to --digits significant digits).

Examples:
  scripts/gen-libsvm-data.py --rows 1000 --features 50 --density 0.2 > small.txt
  scripts/gen-libsvm-data.py --size-mb 500 --features 200 --density 0.1 -o /tmp/big.txt
  scripts/gen-libsvm-data.py --rows 100 --labels regression --gzip -o /tmp/r.txt.gz
"""
import argparse
import gzip
import random
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1000, help="rows to write (default 1000)")
    ap.add_argument("--size-mb", type=float, default=0,
                    help="instead of --rows: write rows until about this many MB (1e6 bytes)")
    ap.add_argument("--features", type=int, default=100, help="largest feature index (default 100)")
    ap.add_argument("--density", type=float, default=0.1,
                    help="expected fraction of nonzero features per row, 0..1 (default 0.1)")
    ap.add_argument("--labels", choices=["binary", "multiclass", "regression"], default="binary",
                    help="+1/-1, 1..--classes, or real targets (default binary)")
    ap.add_argument("--classes", type=int, default=3, help="classes for --labels multiclass")
    ap.add_argument("--digits", type=int, default=6, help="significant digits of values (default 6)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--gzip", action="store_true", help="gzip the output")
    ap.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    a = ap.parse_args()
    if a.features < 1 or not 0 < a.density <= 1 or a.rows < 0 or a.digits < 1:
        ap.error("need --features >= 1, 0 < --density <= 1, --rows >= 0, --digits >= 1")

    rnd = random.Random(a.seed)
    # A pool of formatted values keeps generation fast; picks from it are seeded too.
    fmt = "%%.%dg" % a.digits
    pool = [fmt % rnd.uniform(-1.0, 1.0) for _ in range(65536)]
    pool[:16] = ["0", "1", "-1", "0.5", "-0.5", "0.25", "1e-05", "-0.001"] + pool[8:16]
    feats = range(1, a.features + 1)
    mean_k = a.features * a.density

    if a.output == "-":
        raw = sys.stdout.buffer
    else:
        raw = open(a.output, "wb")
    out = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if a.gzip else raw

    limit = int(a.size_mb * 1e6) if a.size_mb > 0 else None
    written = 0
    row = 0
    buf = []
    buf_bytes = 0
    while (limit is None and row < a.rows) or (limit is not None and written + buf_bytes < limit):
        if a.labels == "binary":
            label = "+1" if rnd.random() < 0.5 else "-1"
        elif a.labels == "multiclass":
            label = str(rnd.randint(1, a.classes))
        else:
            label = fmt % rnd.uniform(-10.0, 10.0)
        k = int(rnd.gauss(mean_k, max(1.0, mean_k ** 0.5)) + 0.5)
        k = min(max(k, 0), a.features)
        idx = sorted(rnd.sample(feats, k))
        vals = rnd.choices(pool, k=k)
        line = label + "".join(" %d:%s" % iv for iv in zip(idx, vals)) + "\n"
        buf.append(line)
        buf_bytes += len(line)
        row += 1
        if buf_bytes >= 1 << 20:
            out.write("".join(buf).encode("ascii"))
            written += buf_bytes
            buf, buf_bytes = [], 0
    out.write("".join(buf).encode("ascii"))
    if out is not raw:
        out.close()
    if raw is not sys.stdout.buffer:
        raw.close()
    else:
        raw.flush()


if __name__ == "__main__":
    main()
