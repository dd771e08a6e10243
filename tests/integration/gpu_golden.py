#!/usr/bin/env python3
"""GPU part of an llmon /metrics page, for golden comparison.

usage: gpu_golden.py SCRAPE_A SCRAPE_B GOLDEN [--update]

Keeps the GPU families (DCGM_*, llmon_gpu_*, nvidia_smi_*, and the gpu collector's
node_scrape_collector_success line), drops HELP/TYPE comments, and replaces
the value of every series whose value differs between the two scrapes (taken
at least one tick apart) with <varies>, so the golden file is stable while
still showing which series move. Exits 1 with a unified diff when the result
differs from GOLDEN (rewritten instead with --update or LLMON_UPDATE_GOLDEN=1).
"""
import difflib
import os
import re
import sys

LINE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*(?:\{.*\})?) (\S+)$')
KEEP = re.compile(r'^(DCGM_|llmon_gpu_|nvidia_smi_)')
# Always masked: timings, and rates the agent derives from counter deltas over
# wall-clock time (the fake's counters step once per cycle, so a cycle the
# scheduler skips on a loaded machine halves the rate).
VOLATILE = {
    "llmon_gpu_sample_duration_seconds",
    "llmon_gpu_nvml_call_seconds_total",
    "DCGM_FI_PROF_PCIE_TX_BYTES",
    "DCGM_FI_PROF_PCIE_RX_BYTES",
    "nvidia_smi_last_collect_duration_seconds",
    "nvidia_smi_last_collect_success_timestamp_seconds",
    "nvidia_smi_pcie_throughput_tx_bytes_per_second",
    "nvidia_smi_pcie_throughput_rx_bytes_per_second",
}


def parse(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            m = LINE.match(line)
            if not m:
                sys.exit(f"{path}: unparsable line: {line!r}")
            key, value = m.group(1), m.group(2)
            name = key.split("{", 1)[0]
            if KEEP.match(name) or key == 'node_scrape_collector_success{collector="gpu"}':
                out[key] = value
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "--update"]
    update = "--update" in sys.argv or os.environ.get("LLMON_UPDATE_GOLDEN") == "1"
    a, b = parse(args[0]), parse(args[1])
    lines = []
    for key in sorted(set(a) | set(b)):
        name = key.split("{", 1)[0]
        if key not in a or key not in b:
            lines.append(f"{key} <only-in-one-scrape>")
        elif name in VOLATILE or a[key] != b[key]:
            lines.append(f"{key} <varies>")
        else:
            lines.append(f"{key} {a[key]}")
    text = "\n".join(lines) + "\n"
    golden = args[2]
    if update:
        with open(golden, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"updated {golden} ({len(lines)} series)")
        return 0
    try:
        with open(golden, encoding="utf-8") as f:
            want = f.read()
    except FileNotFoundError:
        sys.exit(f"{golden} missing; run with LLMON_UPDATE_GOLDEN=1")
    if want != text:
        sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), text.splitlines(True), golden, "actual"))
        return 1
    print(f"{len(lines)} GPU series match {golden}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
