#!/usr/bin/env python3
"""Label sets for `promtool tsdb bench write` and bench/tsdb_write_bench, on stdout.

Contract: N distinct label sets, one compact JSON object a line ({"k":"v",...}, no spaces:
both readers strip the quotes and braces and split on ',' and ':'), so names and values are
lowercase letters only. Shaped like the 20k-series sample file of Prometheus' own tsdb tests
(tsdb/testdata/20kseries.json, which Debian does not ship): a few hundred metric names; ten
label names shared by all series with small value pools (1 to 50 values), of which each series
carries 7 to 10; three high-cardinality labels with a fresh value per series. Deterministic
(fixed seed): the same N gives the same file. Used by bench/tsdb_compare.sh (write step).
Usage: gen_labels.py [N] > labels.json      (N: default 20000)
"""
import json
import random
import string
import sys

SEED = 14


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    rng = random.Random(SEED)

    def token(lo, hi):
        return "".join(rng.choices(string.ascii_lowercase, k=rng.randint(lo, hi)))

    metric_names = [token(20, 50) for _ in range(300)]
    shared = {token(3, 15): [token(3, 30) for _ in range(rng.choice((1, 2, 5, 10, 50)))] for _ in range(10)}
    shared_names = sorted(shared)
    unique_names = [token(5, 12) for _ in range(3)]

    seen = set()
    tries = 0
    while len(seen) < n:
        tries += 1
        if tries > 10 * n + 1000:
            raise SystemExit(f"gen_labels.py: only {len(seen)} distinct label sets after {tries} tries")
        labels = {"__name__": rng.choice(metric_names)}
        for name in rng.sample(shared_names, rng.randint(7, 10)):
            labels[name] = rng.choice(shared[name])
        for name in unique_names:
            labels[name] = token(5, 100)
        line = json.dumps(labels, sort_keys=True, separators=(",", ":"))
        if line not in seen:
            seen.add(line)
            sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main()
