#!/usr/bin/env python3
"""Turns a recording of llmon's /metrics into samples for `chunk_bench --sizes`.

Input, either form:
  - the concatenated scrapes, each preceded by a line "# SCRAPE <unix_ms>" (the scrape time);
  - `llmon tsdb dump` output of an agent's store ("name{labels} value t_ms" a line): each
    sample keeps its own timestamp (bench/record_real.sh makes such a recording).
Output (stdout): Prometheus text with millisecond timestamps, "name{labels} value t_ms", grouped by
series in time order. Timestamps are rounded to the whole second, as llmon's scheduler stamps each
1 s cycle with a multiple of the interval (the scrape time of a "# SCRAPE" recording is not).
Usage: chunk_data.py RECORDING > real.prom
"""
import re, sys

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?)\s+(\S+)(?:\s+(-?\d+))?$')

def main():
    series, t = {}, None
    for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("# SCRAPE "):
            t = int(round(int(line.split()[2]) / 1000.0)) * 1000
            continue
        if not line or line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            continue
        ts = t if t is not None else (int(round(int(m.group(3)) / 1000.0)) * 1000 if m.group(3) else None)
        if ts is not None:
            series.setdefault(m.group(1), []).append((ts, m.group(2)))
    out = sys.stdout
    dump = t is None  # no "# SCRAPE" line: the samples carry their own times, order them
    for key in sorted(series):
        points = sorted(series[key], key=lambda p: p[0]) if dump else series[key]
        for ts, v in points:
            out.write(f"{key} {v} {ts}\n")

if __name__ == "__main__":
    main()
