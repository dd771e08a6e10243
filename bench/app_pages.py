#!/usr/bin/env python3
"""vLLM-shaped /metrics pages for the scrape and remote_write benchmarks.

Usage: app_pages.py OUT_DIR TARGETS SAMPLES [--help-lines]
Writes OUT_DIR/t<N>.prom for N < TARGETS, each with at least SAMPLES samples:
per model a counter, a gauge and a 12-bucket histogram with _sum and _count.
--help-lines adds a # HELP line to each counter (remote_write's metadata
sending has something to send); without it the pages are the ones
bench/scrape_cost.sh's figures were measured on.
"""
import sys

out, targets, samples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
help_lines = "--help-lines" in sys.argv[4:]
buckets = ["0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5", "1.0", "+Inf"]
for t in range(targets):
    lines, n, m = [], 0, 0
    while n < samples:
        model = f"model-{m % 7}"
        if help_lines:
            lines.append(f"# HELP app_requests_{m}_total Requests.")
        lines.append(f"# TYPE app_requests_{m}_total counter")
        lines.append(f'app_requests_{m}_total{{model_name="{model}",code="200"}} {1000 + m * 7 + t}')
        lines.append(f"# TYPE app_queue_{m} gauge")
        lines.append(f'app_queue_{m}{{model_name="{model}"}} {m % 13}')
        lines.append(f"# TYPE app_latency_seconds_{m} histogram")
        for i, le in enumerate(buckets):
            lines.append(f'app_latency_seconds_{m}_bucket{{model_name="{model}",le="{le}"}} {(i + 1) * 10 + m}')
        lines.append(f'app_latency_seconds_{m}_sum{{model_name="{model}"}} {m * 1.5}')
        lines.append(f'app_latency_seconds_{m}_count{{model_name="{model}"}} {len(buckets) * 10 + m}')
        n += 2 + len(buckets) + 2
        m += 1
    open(f"{out}/t{t}.prom", "w").write("\n".join(lines) + "\n")
