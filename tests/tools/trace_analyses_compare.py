#!/usr/bin/python3
"""Compares one rank of `llmon trace analyze --json` with the Python baseline
(bench/trace_breakdown.py --analyses) on the analyses beyond the temporal
breakdown: overlap, idle by cause per stream, launch statistics, queue
lengths and memory bandwidth. Numbers must agree within 1e-6 relative (1e-6
absolute near 0). Exit 0 when they agree, 1 with the differences listed.
With --stragglers, compares the stragglers object of a directory's report
with trace_breakdown.py --stragglers.
Usage: trace_analyses_compare.py [--stragglers] LLMON_JSON PYTHON_JSON"""
import json
import sys


def main(llmon_path, py_path, stragglers=False):
    report = json.load(open(llmon_path))
    rank = report["ranks"][0]
    py = json.load(open(py_path))
    bad = []

    def same(where, a, b):
        if isinstance(b, dict):
            for k, v in b.items():
                if k not in a:
                    bad.append(f"{where}.{k}: missing in llmon")
                else:
                    same(f"{where}.{k}", a[k], v)
        elif isinstance(b, list):
            if len(a) != len(b):
                bad.append(f"{where}: {len(a)} rows, Python {len(b)}")
            for i, (x, y) in enumerate(zip(a, b)):
                same(f"{where}[{i}]", x, y)
        elif isinstance(b, (int, float)) and not isinstance(b, bool):
            if abs(a - b) > 1e-6 * max(1.0, abs(b)):
                bad.append(f"{where}: llmon {a}, Python {b}")
        elif a != b:
            bad.append(f"{where}: llmon {a!r}, Python {b!r}")

    if stragglers:
        same("stragglers", report.get("stragglers", {}), py)
    else:
        for key in ("overlap", "idle_by_stream", "launches", "queues", "memory_bandwidth"):
            if key in py:
                same(key, rank.get(key), py[key])
    for line in bad[:20]:
        print(line, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "--stragglers":
        sys.exit(main(sys.argv[2], sys.argv[3], True))
    sys.exit(main(sys.argv[1], sys.argv[2]))
