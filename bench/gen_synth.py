#!/usr/bin/env python3
"""A synthetic but realistic host-metrics history, for bytes-per-sample measurements.

Contract: reads two real /metrics pages of one exporter (node_exporter in bench/tsdb_compare.sh)
taken DT seconds apart and extrapolates every series with finite values in both into a history
of HOURS hours at one sample every STEP seconds, ending a minute before now, for INSTANCES hosts
(label instance="hostN" first; host N starts N % above host 0 for non-constant series). Each
series keeps the kind seen in the pair:
  constant  value unchanged between the pages -> stays constant (info, config, sizes)
  counter   "# TYPE counter" family (or _sum/_count/_bucket) that grew -> grows at the observed
            rate times a factor drawn from [0.5, 1.5] per step; integer counters stay integers,
            counters at 1/100 resolution (node_cpu_seconds_total: kernel ticks) advance in
            whole hundredths
  gauge     anything else that changed -> a random walk with steps up to the observed change,
            kept at the observed resolution (integers, multiples of 4096, hundredths)
Timestamps are exact multiples of STEP except about 1 % of them moved by 1-3 ms, as a real
scraper's are. Deterministic apart from "now" (fixed seed). Writes the same samples twice:
  OUT.om    OpenMetrics, timestamps in seconds, each metric name contiguous, "# EOF"
            (promtool tsdb create-blocks-from openmetrics)
  OUT.prom  Prometheus text with ms timestamps (llmon tsdb import, VictoriaMetrics
            /api/v1/import/prometheus, chunk_bench --sizes)
and prints one summary line (series, samples, points per series, kinds per host).
Usage: gen_synth.py PAGE0 PAGE1 DT OUT [INSTANCES=4] [HOURS=2] [STEP=15]
"""
import math
import random
import re
import sys
import time

SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(?:\s+-?\d+)?$")
COUNTER_SUFFIXES = ("_total", "_sum", "_count", "_bucket")


def read_page(path):
    """-> ({family: type}, {(name, labels): value}, [keys in page order])"""
    types, values, order = {}, {}, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# TYPE "):
                parts = line.split()
                if len(parts) >= 4:
                    types[parts[2]] = parts[3]
                continue
            if not line or line.startswith("#"):
                continue
            m = SAMPLE.match(line)
            if not m:
                continue
            try:
                value = float(m.group(3))
            except ValueError:
                continue
            key = (m.group(1), m.group(2) or "")
            if key not in values:
                order.append(key)
            values[key] = value
    return types, values, order


def is_counter(types, name):
    if name in types:
        return types[name] == "counter"
    for suffix in COUNTER_SUFFIXES:
        base = name[: -len(suffix)]
        if name.endswith(suffix) and base in types:
            return suffix != "_total" or types[base] == "counter"
    return False


def number(v):
    return str(int(v)) if v == int(v) and abs(v) < 1e15 else repr(v)


def is_hundredths(v):
    return abs(v * 100 - round(v * 100)) < 1e-6


class Walk:
    """One series' values over the history, from its two observed values a -> b."""

    def __init__(self, kind, a, b, dt, step, offset):
        self.kind = kind
        self.x = a if kind == "constant" else a * (1 + offset)
        self.integer = a == int(a) and b == int(b)
        self.hundredths = not self.integer and is_hundredths(a) and is_hundredths(b)
        self.page = 4096 if self.integer and a % 4096 == 0 and b % 4096 == 0 else 1
        self.per_step = (b - a) / dt * step  # counters: expected increase per step
        self.spread = abs(b - a)             # gauges: largest step of the walk
        self.ticks = round(self.x * 100)

    def next(self, rng):
        if self.kind == "counter":
            inc = max(0.0, self.per_step * rng.uniform(0.5, 1.5))
            if self.hundredths:
                self.ticks += round(inc * 100)
                self.x = self.ticks / 100
            elif self.integer:
                self.x += round(inc)
            else:
                self.x += inc
        elif self.kind == "gauge":
            self.x += self.spread * rng.uniform(-1, 1)
            if self.integer:
                self.x = round(self.x / self.page) * self.page
            elif self.hundredths:
                self.x = round(self.x, 2)
        return self.x


def main():
    if len(sys.argv) < 5:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    page0, page1, dt, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    instances = int(sys.argv[5]) if len(sys.argv) > 5 else 4
    hours = float(sys.argv[6]) if len(sys.argv) > 6 else 2.0
    step = float(sys.argv[7]) if len(sys.argv) > 7 else 15.0
    rng = random.Random(14)

    types, first, order = read_page(page0)
    _, second, _ = read_page(page1)
    points = int(hours * 3600 / step)
    start = int(time.time()) - 60 - int(points * step)
    stamps = []
    for i in range(points):
        jitter = rng.choice((-3, -2, -1, 1, 2, 3)) if rng.random() < 0.01 else 0
        stamps.append(int((start + i * step) * 1000) + jitter)

    by_name = {}
    for key in order:
        a, b = first[key], second.get(key)
        if b is not None and math.isfinite(a) and math.isfinite(b):
            by_name.setdefault(key[0], []).append(key)

    kinds = {"constant": 0, "counter": 0, "gauge": 0}
    samples = 0
    with open(out + ".om", "w") as om, open(out + ".prom", "w") as prom:
        for name in sorted(by_name):
            for host in range(instances):
                for key in by_name[name]:
                    a, b = first[key], second[key]
                    kind = "constant" if a == b else ("counter" if b > a and is_counter(types, name) else "gauge")
                    if host == 0:
                        kinds[kind] += 1
                    inner = key[1][1:-1]
                    labels = '{instance="host%d"%s}' % (host, "," + inner if inner else "")
                    walk = Walk(kind, a, b, dt, step, 0.01 * host)
                    for t in stamps:
                        v = number(walk.next(rng))
                        om.write(f"{name}{labels} {v} {t / 1000:.3f}\n")
                        prom.write(f"{name}{labels} {v} {t}\n")
                        samples += 1
        om.write("# EOF\n")
    series = sum(len(keys) for keys in by_name.values()) * instances
    print(f"series={series} samples={samples} points/series={points} step={step}s hours={hours} "
          f"instances={instances} classes(per host)={kinds}")


if __name__ == "__main__":
    main()
