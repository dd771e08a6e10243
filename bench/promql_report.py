#!/usr/bin/env python3
"""Summary of several bench/promql_compare.sh runs (their --out JSON files) as Markdown.

Per query and range: each server's median latency (the median over the runs of
each run's median), the llmon / Prometheus ratio of medians (median over the
runs, with its lowest and highest), CPU milliseconds per request of each
server (median over the runs) and their ratio, and the target (llmon at most
1/2 of Prometheus's median latency): "met" when the ratio is at most 0.5 in
every run, "not met" when above in every run, otherwise "met in k of n runs".
Then memory (VmHWM before the queries, the peak during them, VmRSS after) and,
when the runs have it, llmon's parse throughput. Nothing is typed by hand.

Usage: promql_report.py RUN.json [RUN.json ...]
"""

import json
import statistics
import sys

TARGET = 0.5


def fmt_ms(x):
    return "%.1f" % x if x >= 10 else "%.2f" % x


def main(paths):
    runs = [json.load(open(p)) for p in paths]
    keys = [(r["query"], r["range"], r["step_s"]) for r in runs[0]["results"]]
    print("%d runs: %s" % (len(runs), ", ".join("%s (load %s → %s)" % (
        r["environment"]["at"], " ".join(r["environment"]["loadavg_start"]),
        " ".join(r["environment"]["loadavg_end"])) for r in runs)))
    print()
    print("| query | range, step | series × points | llmon median ms | Prometheus median ms | ratio (median of runs; "
          "lowest–highest) | CPU ms per request llmon / Prometheus (ratio) | target ≤ ½ |")
    print("|---|---|---|---:|---:|---|---|---|")
    for key in keys:
        rows = [next(x for x in r["results"] if (x["query"], x["range"], x["step_s"]) == key) for r in runs]
        ok = [x["same_shape"] for x in rows]
        lm = statistics.median(x["llmon"]["median_ms"] for x in rows)
        pm = statistics.median(x["prometheus"]["median_ms"] for x in rows)
        ratios = [x["ratio_median"] for x in rows]
        lc = statistics.median(x["llmon"]["cpu_ms_per_query"] for x in rows)
        pc = statistics.median(x["prometheus"]["cpu_ms_per_query"] for x in rows)
        met = sum(1 for q in ratios if q <= TARGET)
        verdict = "met" if met == len(rows) else "not met" if met == 0 else "met in %d of %d runs" % (met, len(rows))
        first = rows[0]["llmon"]
        shape = "%d × %d" % (first["series"], first["points"] // max(1, first["series"]))
        if not all(ok):
            shape += " (shapes differ in %d runs)" % ok.count(False)
        print("| `%s` | %s, %d s | %s | %s | %s | **%.2f** (%.2f–%.2f) | %.1f / %.1f (%s) | %s |" % (
            key[0], key[1], key[2], shape, fmt_ms(lm), fmt_ms(pm), statistics.median(ratios), min(ratios),
            max(ratios), lc, pc, "%.2f" % (lc / pc) if pc else "n/a", verdict))
    print()
    print("| server | VmHWM before the queries MiB | peak RSS during the queries MiB | VmRSS after MiB |")
    print("|---|---:|---:|---:|")
    for n in ("llmon", "prometheus"):
        def med(part, field):
            vals = [r[part][n].get(field) for r in runs]
            vals = [v for v in vals if v]
            return "%.0f" % (statistics.median(vals) / 1024) if vals else "n/a"
        print("| %s | %s | %s | %s |" % (n, med("memory_before", "VmHWM_kB"), med("memory_after", "peak_during_kB"),
                                         med("memory_after", "VmRSS_kB")))
    parse = [r["parse"] for r in runs if isinstance(r.get("parse"), list)]
    if parse:
        print()
        print("| query (llmon `parse()`, BM_Parse) | parses/s | µs per parse |")
        print("|---|---:|---:|")
        for i, p in enumerate(parse[0]):
            qps = statistics.median(x[i]["queries_per_s"] for x in parse)
            print("| `%s` | %.0f | %.2f |" % (p["query"], qps, 1e6 / qps))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
