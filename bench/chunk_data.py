#!/usr/bin/env python3
"""Turns a recording of llmon's /metrics into samples for `chunk_bench --sizes`.

Input: the concatenated scrapes, each preceded by a line "# SCRAPE <unix_ms>" (the scrape time).
Output (stdout): Prometheus text with millisecond timestamps, "name{labels} value t_ms", grouped by
series in time order. Timestamps are the scrape time rounded to the whole second, as llmon's
scheduler stamps each 1 s cycle with a multiple of the interval.
Usage: chunk_data.py RECORDING > real.prom
"""
import re, sys

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?)\s+(\S+)(?:\s+-?\d+)?$')

def main():
    series, t = {}, None
    for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("# SCRAPE "):
            t = int(round(int(line.split()[2]) / 1000.0)) * 1000
            continue
        if not line or line.startswith("#") or t is None:
            continue
        m = LINE.match(line)
        if m:
            series.setdefault(m.group(1), []).append((t, m.group(2)))
    out = sys.stdout
    for key in sorted(series):
        for ts, v in series[key]:
            out.write(f"{key} {v} {ts}\n")

if __name__ == "__main__":
    main()
