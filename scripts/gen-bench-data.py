#!/usr/bin/env python3
"""Deterministic, seeded generator of large LIBSVM-format sets for scaling benchmarks.

Kinds (covtype and text: labels +1/-1; year: real targets; files gzip'd with deterministic bytes):
  covtype  covtype-like, default 1,000,000 x 54 (+ 100,000 test rows): 10 quantitative features
           in [0,1] (quantised to 1/1000 like covtype's integer measurements, correlated, zeros
           omitted) then 4 one-hot "wilderness area" and 40 one-hot "soil type" indicators (one of
           each per row, chosen depending on the quantitative features): about 12 nonzeros per
           row. Label: a nonlinear rule (sines, products, squares, per-area and per-soil terms)
           plus Gaussian noise, thresholded at its median, then 3% of labels flipped.
  text     text-like, default 200,000 x 50,000 (+ 20,000 test rows): term ids drawn from a Zipf
           law (exponent 1.1) over a shuffled vocabulary, about 80 distinct terms per row,
           15-50% of a row's tokens drawn from one or two of 40 "topics" (each a Zipf law over
           its own 1,500 terms), value = (1 + log tf) * idf, each row scaled to unit L2 norm.
           Label: the sign of a sparse linear rule (the 100 leading terms of each topic, positive
           weights for half the topics, negative for the rest) plus noise, centred at its
           median, then 2% of labels flipped.
  year     regression like YearPredictionMSD, default 500,000 x 90 dense (+ 50,000 test rows):
           12 "timbre means" mixing 6 latent Gaussians, then 78 "covariances" (products of pairs
           of latents plus noise), squashed into [-1, 1] and quantised to 1/1000 like svm-scale'd
           data. Target: a year from a nonlinear rule (sines, products, a skew towards recent
           years) plus noise, clipped to 1922..2011 and scaled to [-1, 1] as `svm-scale -y -1 1`
           would, printed with 6 digits. Every feature present (dense rows).
  dense    epsilon-sized dense classification, default 400,000 x 2,000 (+ 40,000 test rows):
           16 latent Gaussians; feature j mixes two of them plus noise, squashed into [-1, 1] and
           quantised to 1/100 (zeros omitted: nearly every feature present, ~9 GB of text).
           Label: a nonlinear rule of the latents (sines, products, squares) plus noise,
           thresholded at its median, then 3% of labels flipped. Written uncompressed unless
           --level is given (one thread of zlib would take minutes; blocks are then compressed
           by the workers, a multi-member .gz).

Output, in --out-dir: NAME.gz (train), NAME.t.gz (test) and NAME.json (shape, seed, labels),
NAME = covtype-gen / text-gen / year-gen / dense-gen unless --name (dense: NAME and NAME.t, plain
text, unless --level). The same --seed, --rows and --test-rows give the
same bytes on any machine and any --jobs (rows are produced in fixed blocks of 10,000, each from
its own seeded stream; only random.random() is used, whose sequence Python guarantees).
Python 3 standard library only. Time at the default sizes on a 2-core machine (--jobs spreads
the blocks over processes, default all cores): 14 s for covtype (24 MB .gz), 36 s for text
(100 MB .gz); year about 2.5 core-minutes (140 MB .gz; use --jobs on a large machine).

    scripts/gen-bench-data.py covtype --out-dir bench-data/gen
    scripts/gen-bench-data.py text --rows 20000 --test-rows 2000 --name text-20k
"""
import argparse
import gzip
import json
import math
import multiprocessing
import os
import random
import sys
import time
from bisect import bisect_right
from itertools import accumulate

FORMAT_VERSION = 1
BLOCK = 10000
KINDS = {
    # kind: (default name, train rows, test rows, features)
    "covtype": ("covtype-gen", 1000000, 100000, 54),
    "text": ("text-gen", 200000, 20000, 50000),
    "year": ("year-gen", 500000, 50000, 90),
    "dense": ("dense-gen", 400000, 40000, 2000),
}


def gauss(r):
    """Standard normal from random() only (Box-Muller), stable across Python versions."""
    u = 1.0 - r.random()
    return math.sqrt(-2.0 * math.log(u)) * math.cos(2.0 * math.pi * r.random())


def block_rng(seed, kind, split, block):
    k = {"covtype": 1, "text": 2, "year": 3, "dense": 4}[kind]
    return random.Random(((seed * 7 + k) * 3 + split) * 1000003 + block)


# ---------------------------------------------------------------- covtype-like
NQ, NAREA, NSOIL = 10, 4, 40


def covtype_model(seed):
    r = random.Random(seed * 31 + 1)
    # Correlation: each quantitative feature mixes 3 latent Gaussians.
    mix = [[gauss(r) * 0.5 for _ in range(3)] for _ in range(NQ)]
    area_w = [gauss(r) for _ in range(NAREA)]
    soil_w = [gauss(r) * 0.7 for _ in range(NSOIL)]
    # Soil preference per area: a few likely soils each.
    soil_pref = []
    for a in range(NAREA):
        w = [math.exp(2.0 * gauss(r)) for _ in range(NSOIL)]
        soil_pref.append(list(accumulate(w)))
    m = {"mix": mix, "area_w": area_w, "soil_w": soil_w, "soil_pref": soil_pref,
         "freq": [1.0 + 4.0 * r.random() for _ in range(NQ)],
         "phase": [2.0 * math.pi * r.random() for _ in range(NQ)]}
    # Threshold: median score over a pilot sample from its own stream.
    pr = random.Random(seed * 31 + 2)
    scores = sorted(covtype_row(pr, m, None)[1] for _ in range(20000))
    m["thr"] = scores[len(scores) // 2]
    return m


def covtype_row(r, m, cells):
    """Returns (text or None, score without label noise)."""
    z = (gauss(r), gauss(r), gauss(r))
    q = []
    for i in range(NQ):
        a = m["mix"][i]
        v = 0.5 + 0.18 * (a[0] * z[0] + a[1] * z[1] + a[2] * z[2]) + 0.08 * gauss(r)
        if i == 2 or i == 5:  # skewed, often-zero features (like slope / hydrology distances)
            v = v * v * 1.6 - 0.1
        k = int(v * 1000.0 + 0.5)
        q.append(0 if k < 0 else 1000 if k > 1000 else k)
    x = [k / 1000.0 for k in q]
    # Area depends on elevation (x0) and aspect (x1); soil on the area.
    t = x[0] * 3.0 + 0.6 * gauss(r) + 0.5 * x[1]
    area = 0 if t < 1.1 else 1 if t < 1.5 else 2 if t < 1.9 else 3
    cp = m["soil_pref"][area]
    soil = bisect_right(cp, r.random() * cp[-1])
    if soil >= NSOIL:
        soil = NSOIL - 1
    f, p = m["freq"], m["phase"]
    s = (math.sin(f[0] * x[0] * 3.0 + p[0]) + 1.5 * (x[1] - 0.5) * (x[3] - 0.5) * 4.0
         + 2.0 * (x[4] - x[6]) ** 2 - math.cos(f[7] * x[7] + p[7]) * x[8]
         + 0.8 * math.sin(f[9] * x[9] * 2.0 + p[9]) + m["area_w"][area] + m["soil_w"][soil]
         + 0.35 * gauss(r))
    if cells is None:
        return None, s
    parts = [cells[i][k] for i, k in enumerate(q) if k]
    parts.append(" %d:1" % (NQ + 1 + area))
    parts.append(" %d:1" % (NQ + NAREA + 1 + soil))
    return "".join(parts), s


def covtype_block(args):
    seed, split, block, nrows, m = args
    r = block_rng(seed, "covtype", split, block)
    cells = [[" %d:%s" % (i + 1, "%g" % (k / 1000.0)) for k in range(1001)] for i in range(NQ)]
    out = []
    thr = m["thr"]
    for _ in range(nrows):
        text, s = covtype_row(r, m, cells)
        y = s > thr
        if r.random() < 0.03:
            y = not y
        out.append(("+1" if y else "-1") + text + "\n")
    return "".join(out)


# ---------------------------------------------------------------- text-like
V, ZIPF_S, TOKENS = 50000, 1.1, 110
NTOPIC, TOPIC_TERMS, RULE_TERMS = 40, 1500, 100


def text_model(seed):
    r = random.Random(seed * 31 + 11)
    # Vocabulary shuffle (rank -> feature id), Fisher-Yates with random() only.
    ids = list(range(1, V + 1))
    for i in range(V - 1, 0, -1):
        j = int(r.random() * (i + 1))
        ids[i], ids[j] = ids[j], ids[i]
    w = [1.0 / (k + 1) ** ZIPF_S for k in range(V)]
    tot = sum(w)
    cum = list(accumulate(w))
    # Topics: each a Zipf law over its own TOPIC_TERMS background ranks (past the 100 most
    # frequent ones); topic terms are what the label rule weighs.
    zt = list(accumulate(1.0 / (k + 1) ** 0.9 for k in range(TOPIC_TERMS)))
    topics, rule = [], {}
    for t in range(NTOPIC):
        terms = []
        seen = set()
        while len(terms) < TOPIC_TERMS:
            k = 100 + int((r.random() ** 1.5) * (V - 100))
            if k not in seen:
                seen.add(k)
                terms.append(k)
        topics.append(terms)
        sign = 1.0 if t < NTOPIC // 2 else -1.0
        for k in terms[:RULE_TERMS]:
            rule[k] = rule.get(k, 0.0) + sign * abs(gauss(r))
    # idf ~ log(1 / document frequency) with df from the chance a row holds the term.
    df = [1.0 - (1.0 - wk / tot) ** TOKENS for wk in w]
    for terms in topics:
        for j, k in enumerate(terms):
            df[k] += (1.0 / NTOPIC) * (1.0 - (1.0 - (1.0 / (j + 1) ** 0.9) / zt[-1]) ** 40)
    idf = [math.log(1.0 + 1.0 / min(1.0, x)) for x in df]
    m = {"ids": ids, "cum": cum, "idf": idf, "rule": rule, "topics": topics, "zt": zt}
    pr = random.Random(seed * 31 + 12)
    scores = sorted(text_row(pr, m, False)[1] for _ in range(5000))
    m["thr"] = scores[len(scores) // 2]
    return m


def text_row(r, m, want_text):
    cum, total = m["cum"], m["cum"][-1]
    zt, ztot = m["zt"], m["zt"][-1]
    # Row length varies (log-normal around TOKENS tokens, i.e. about 80 distinct terms); 15-50%
    # of the tokens come from one topic (30% of rows: two), the rest from the background law.
    ntok = max(8, int(TOKENS * math.exp(0.45 * gauss(r) - 0.1)))
    ts = [m["topics"][int(r.random() * NTOPIC)]]
    if r.random() < 0.3:
        ts.append(m["topics"][int(r.random() * NTOPIC)])
    frac = 0.15 + 0.35 * r.random()
    tf = {}
    for _ in range(ntok):
        if r.random() < frac:
            terms = ts[0] if len(ts) == 1 or r.random() < 0.6 else ts[1]
            j = bisect_right(zt, r.random() * ztot)
            k = terms[j if j < TOPIC_TERMS else TOPIC_TERMS - 1]
        else:
            k = bisect_right(cum, r.random() * total)
            if k >= V:
                k = V - 1
        tf[k] = tf.get(k, 0) + 1
    idf, rule = m["idf"], m["rule"]
    vals = {k: (1.0 + math.log(c)) * idf[k] for k, c in tf.items()}
    norm = math.sqrt(sum(v * v for v in vals.values()))
    s = 0.0
    for k, v in vals.items():
        wk = rule.get(k)
        if wk is not None:
            s += wk * v
    s = s / norm + 0.05 * gauss(r)
    if not want_text:
        return None, s
    ids = m["ids"]
    items = sorted((ids[k], v / norm) for k, v in vals.items())
    return "".join([" %d:%.6g" % (i, v) for i, v in items]), s


def text_block(args):
    seed, split, block, nrows, m = args
    r = block_rng(seed, "text", split, block)
    out = []
    thr = m["thr"]
    for _ in range(nrows):
        text, s = text_row(r, m, True)
        y = s > thr
        if r.random() < 0.02:
            y = not y
        out.append(("+1" if y else "-1") + text + "\n")
    return "".join(out)


# ---------------------------------------------------------------- year-like (regression)
NLAT, NMEAN = 6, 12
NCOV = 90 - NMEAN
YEAR_LO, YEAR_HI = 1922, 2011


def year_model(seed):
    r = random.Random(seed * 31 + 21)
    mix = [[gauss(r) * 0.45 for _ in range(NLAT)] for _ in range(NMEAN)]
    pairs = [(i, j) for i in range(NLAT) for j in range(i, NLAT)]  # 21 latent products
    cov = [(pairs[k % len(pairs)], gauss(r) * 0.4, gauss(r) * 0.3) for k in range(NCOV)]
    w = [gauss(r) for _ in range(NLAT)]
    return {"mix": mix, "cov": cov, "w": w,
            "freq": [1.0 + 2.0 * r.random() for _ in range(NLAT)],
            "phase": [2.0 * math.pi * r.random() for _ in range(NLAT)]}


def year_row(r, m, cells):
    z = [gauss(r) for _ in range(NLAT)]
    q = []
    for a in m["mix"]:
        v = sum(a[k] * z[k] for k in range(NLAT)) + 0.25 * gauss(r)
        q.append(v)
    for (i, j), sc, off in m["cov"]:
        q.append(sc * z[i] * z[j] + off + 0.2 * gauss(r))
    k = [int(math.tanh(v) * 1000.0 + 1000.5) for v in q]  # 0..2000 -> -1..1
    w, f, p = m["w"], m["freq"], m["phase"]
    s = (sum(w[i] * math.sin(f[i] * z[i] + p[i]) for i in range(NLAT)) * 0.6
         + 0.5 * z[0] * z[1] - 0.3 * z[2] * z[2] + 0.4 * gauss(r))
    year = 2008.0 - 6.0 * math.exp(-0.55 * (s + 0.27))  # a long tail to the past, as the real set
    year = min(YEAR_HI, max(YEAR_LO, int(round(year))))
    y = -1.0 + 2.0 * (year - YEAR_LO) / (YEAR_HI - YEAR_LO)
    return "%.6g" % y + "".join(cells[i][c] for i, c in enumerate(k)) + "\n"


def year_block(args):
    seed, split, block, nrows, m = args
    r = block_rng(seed, "year", split, block)
    cells = [[" %d:%s" % (i + 1, "%g" % ((c - 1000) / 1000.0)) for c in range(2001)] for i in range(90)]
    return "".join(year_row(r, m, cells) for _ in range(nrows))


# ---------------------------------------------------------------- dense (epsilon-sized)
DLAT, DFEAT = 16, 2000


def dense_model(seed):
    r = random.Random(seed * 31 + 41)
    feats = [(int(r.random() * DLAT), int(r.random() * DLAT), gauss(r) * 0.6, gauss(r) * 0.4)
             for _ in range(DFEAT)]
    m = {"feats": feats, "w": [gauss(r) for _ in range(DLAT)],
         "freq": [0.5 + 1.5 * r.random() for _ in range(DLAT)],
         "phase": [2.0 * math.pi * r.random() for _ in range(DLAT)]}
    pr = random.Random(seed * 31 + 42)
    scores = sorted(dense_score(pr, m, [gauss(pr) for _ in range(DLAT)]) for _ in range(20000))
    m["thr"] = scores[len(scores) // 2]
    return m


def dense_score(r, m, z):
    w, f, p = m["w"], m["freq"], m["phase"]
    return (sum(w[i] * math.sin(f[i] * z[i] + p[i]) for i in range(DLAT)) * 0.5
            + 0.6 * z[0] * z[1] - 0.4 * z[2] * z[3] + 0.3 * (z[4] * z[4] - 1.0) + 0.35 * gauss(r))


def dense_block(args):
    seed, split, block, nrows, m = args
    r = block_rng(seed, "dense", split, block)
    cells = [None] * 201
    out = []
    feats, thr = m["feats"], m["thr"]
    for _ in range(nrows):
        z = [gauss(r) for _ in range(DLAT)]
        y = dense_score(r, m, z) > thr
        if r.random() < 0.03:
            y = not y
        parts = ["+1" if y else "-1"]
        for j, (a, b, ca, cb) in enumerate(feats):
            # tanh of the mix plus noise, as a level 0..200 (the noise: one uniform, cheaper than a Gaussian)
            v = math.tanh(ca * z[a] + cb * z[b] + 0.5 * (r.random() - 0.5))
            k = int(v * 100.0 + 100.5)
            if k != 100:
                c = cells[k]
                if c is None:
                    c = cells[k] = "%g" % ((k - 100) / 100.0)
                parts.append(" %d:%s" % (j + 1, c))
        parts.append("\n")
        out.append("".join(parts))
    return "".join(out)


# ---------------------------------------------------------------- driver
_MODEL = None


def _init(m):
    global _MODEL
    _MODEL = m


def _work(args):
    kind, seed, split, block, nrows = args
    f = {"covtype": covtype_block, "text": text_block, "year": year_block, "dense": dense_block}[kind]
    return f((seed, split, block, nrows, _MODEL))


def _work_bytes(args):
    """A block as bytes: plain, or (level > 0) its own gzip member."""
    level = args[-1]
    data = _work(args[:-1]).encode("ascii")
    return gzip.compress(data, compresslevel=level, mtime=0) if level > 0 else data


def write_split(kind, seed, split, rows, path, pool, level, per_block):
    """Writes one split in blocks of BLOCK rows, in order: per_block (dense), each block made and
    (level > 0) compressed by a worker (a multi-member .gz, or plain text); else one gzip stream
    compressed here (the other kinds' bytes, unchanged)."""
    tasks = [(kind, seed, split, b, min(BLOCK, rows - b * BLOCK)) + ((level,) if per_block else ())
             for b in range((rows + BLOCK - 1) // BLOCK)]
    tmp = path + ".tmp"
    with open(tmp, "wb") as raw:
        if per_block:
            for data in (pool.imap(_work_bytes, tasks) if pool else map(_work_bytes, tasks)):
                raw.write(data)
        else:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=level) as g:
                for text in (pool.imap(_work, tasks) if pool else map(_work, tasks)):
                    g.write(text.encode("ascii"))
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=sorted(KINDS) + ["all"])
    ap.add_argument("--rows", type=int,
                    help="training rows (default: 1000000 covtype, 200000 text, 500000 year, 400000 dense)")
    ap.add_argument("--test-rows", type=int, help="test rows (default: rows / 10)")
    ap.add_argument("--seed", type=int, default=1, help="seed [%(default)s]")
    ap.add_argument("--out-dir", default=".", help="output folder [%(default)s]")
    ap.add_argument("--name", help="file name stem (default covtype-gen / text-gen / year-gen)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes [all cores]")
    ap.add_argument("--level", type=int, help="gzip level [6; dense: 0, plain text]")
    a = ap.parse_args()
    kinds = sorted(KINDS) if a.kind == "all" else [a.kind]
    if a.name and len(kinds) > 1:
        ap.error("--name needs a single kind")
    os.makedirs(a.out_dir, exist_ok=True)
    for kind in kinds:
        name0, rows0, _, d = KINDS[kind]
        rows = a.rows if a.rows else rows0
        test_rows = a.test_rows if a.test_rows is not None else max(1, rows // 10)
        name = a.name or name0
        model_of = {"covtype": covtype_model, "text": text_model, "year": year_model, "dense": dense_model}[kind]
        dense = kind == "dense"
        level = a.level if a.level is not None else 0 if dense else 6
        ext = "" if dense and level == 0 else ".gz"  # the other kinds are gzip at any level
        t0 = time.perf_counter()
        m = model_of(a.seed)
        pool = multiprocessing.Pool(a.jobs, _init, (m,)) if a.jobs > 1 else None
        if pool is None:
            _init(m)
        try:
            base = os.path.join(a.out_dir, name)
            write_split(kind, a.seed, 0, rows, base + ext, pool, level, dense)
            if test_rows > 0:
                write_split(kind, a.seed, 1, test_rows, base + ".t" + ext, pool, level, dense)
        finally:
            if pool:
                pool.close()
                pool.join()
        info = {"name": name, "kind": kind, "version": FORMAT_VERSION, "seed": a.seed,
                "rows": rows, "test_rows": test_rows, "features": d,
                "classes": 0 if kind == "year" else 2, "task": "regression" if kind == "year" else "binary",
                "train": name + ext, "test": (name + ".t" + ext) if test_rows > 0 else None}
        with open(base + ".json", "w") as f:
            json.dump(info, f, indent=1, sort_keys=True)
            f.write("\n")
        print("%s: %d + %d rows x %d features (%s, seed %d) in %.1f s"
              % (base + ext, rows, test_rows, d, kind, a.seed, time.perf_counter() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
