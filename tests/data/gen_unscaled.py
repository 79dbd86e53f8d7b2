#!/usr/bin/env python3
"""Writes a seeded, unscaled binary set shaped like the UCI spambase data (heavy-tailed counts and
run lengths up to ~1.6e4 beside percentages below 100, at most 6 significant digits), with a few
identical rows carrying opposite labels. Usage: gen_unscaled.py ROWS [SEED] > file"""
import math
import random
import sys

rows = int(sys.argv[1])
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
nfeat = 24
out = []
for i in range(rows):
    feats = []
    score = 0.0
    for f in range(nfeat):
        if f < 18:  # sparse percentages, 2 decimals
            v = round(rng.expovariate(1.5), 2) if rng.random() < 0.3 else 0.0
            v = min(v, 99.99)
        elif f < 21:  # ratios, 3 decimals
            v = round(rng.expovariate(4.0), 3) if rng.random() < 0.6 else 0.0
        else:  # run lengths: integers up to ~1.6e4, heavy tailed
            v = float(min(15841, int(math.exp(rng.gauss(3.0 + f - 21, 1.4)))))
        if v != 0.0:
            feats.append((f + 1, v))
        score += v * (0.8 if f % 3 == 0 else -0.5) if f < 21 else math.log1p(v) * 0.3
    out.append((score + rng.gauss(0, 1.0), feats))
cut = sorted(s for s, _ in out)[int(0.6 * len(out))]  # about 40% positive, as spambase
out = [(1 if s > cut else -1, feats) for s, feats in out]
for i in range(0, min(rows, 40), 10):  # identical rows, opposite labels
    out.append((-out[i][0], out[i][1]))
for label, feats in out:
    print(("+1" if label > 0 else "-1") + "".join(" %d:%s" % (f, ("%.6g" % v)) for f, v in feats))
