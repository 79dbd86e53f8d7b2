#!/usr/bin/env python3
"""The work of one kernel row over sparse data, by row (pull) and by column (push).

A kernel row of working-set vector w over the n training rows needs the n dot products <x_i, w>.
gpusvm's row-wise (ELL) clusters compute them by row: each row walks its own nonzeros and looks
w's value up in a dense block (w's zeros included), n * (mean nonzeros a row) multiply-adds a
vector. By column, with the data also stored column by column, w's nonzeros each add their
column's entries into the n sums: sum over w's columns j of nnz(j) multiply-adds, whose mean over
vectors w drawn from the rows is sum_j nnz(j)^2 / n. Where both walk a row's columns in
ascending order with one fused multiply-add each, every sum gets the same terms in the same
order (a zero term leaves an fma's sum unchanged), so the two give the same bits.

Also, for a head of the F most frequent columns: its share of the nonzeros, the pull work left on
the head alone, and the push work on the rest.

Usage: scripts/sparse-dot-cost.py FILE [FILE...]   (LIBSVM format, .gz read directly)
docs/performance.md (thirteenth session) cites it.
"""
import gzip
import sys
from collections import Counter


def column_counts(path):
    opener = gzip.open if path.endswith(".gz") else open
    counts, rows, nnz = Counter(), 0, 0
    with opener(path, "rt") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            rows += 1
            for item in parts[1:]:
                if ":" not in item:
                    continue
                idx, val = item.split(":", 1)
                if float(val) != 0.0:
                    counts[int(idx)] += 1
                    nnz += 1
    return counts, rows, nnz


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: scripts/sparse-dot-cost.py FILE [FILE...]")
    for path in sys.argv[1:]:
        counts, n, nnz = column_counts(path)
        if n == 0 or nnz == 0:
            print(f"{path}: no nonzeros")
            continue
        c = sorted(counts.values(), reverse=True)
        pull = nnz  # n rows x (nnz / n) a row
        push = sum(x * x for x in c) / n
        print(f"{path}: {n} rows, {len(c)} columns used, {nnz / n:.2f} nonzeros a row")
        print(f"  multiply-adds a kernel row: by row {pull:.4g}, by column {push:.4g} "
              f"({pull / push:.2f}x fewer by column)")
        for F in (16, 64, 256, 1024):
            if F >= len(c):
                break
            head = sum(c[:F])
            tail = sum(x * x for x in c[F:]) / n
            print(f"  head of {F} columns: {head / nnz:.3f} of the nonzeros; by row on the head "
                  f"{head:.4g} + by column on the rest {tail:.4g}")


if __name__ == "__main__":
    main()
