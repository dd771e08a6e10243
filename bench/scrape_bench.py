#!/usr/bin/env python3
"""Sequential scrapes of one /metrics endpoint, as a Prometheus scraper does them.

Contract: --n GET requests one after another over a single keep-alive HTTP/1.1
connection (optionally with "Accept-Encoding: gzip", which Prometheus sends), stopping
early after --max-seconds; the URL should be on 127.0.0.1. Latency of one scrape =
request sent -> whole body read. The server's CPU is the change of utime+stime of --pid
(/proc/PID/stat, clock ticks) over all the scrapes. Prints one JSON object:
  n, gzip, lat_ms_{min,median,p99,max} (nearest rank), server_cpu_ms_per_scrape,
  server_cpu_pct_of_one_core, bytes_uncompressed and bytes_on_wire of the last page,
  series (sample lines of the last page), VmRSS and VmHWM of --pid in kB after the scrapes.
Used by bench/compare_node_exporter.sh.
Usage: scrape_bench.py --url http://127.0.0.1:PORT/metrics --pid PID [--n 200] [--gzip]
                       [--max-seconds 120]
"""
import argparse
import gzip
import http.client
import json
import math
import os
import time
import urllib.parse


def proc_cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # stat fields 14 (utime) and 15 (stime)


def proc_memory_kb(pid):
    wanted, out = ("VmRSS", "VmHWM"), {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in wanted:
                out[key] = int(rest.split()[0])
    return out


def nearest_rank(sorted_values, percent):
    rank = max(1, math.ceil(percent / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("--max-seconds", type=float, default=120.0)
    args = ap.parse_args()

    url = urllib.parse.urlparse(args.url)
    headers = {"Accept-Encoding": "gzip"} if args.gzip else {}
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    latencies, page, wire_bytes = [], b"", 0
    deadline = time.monotonic() + args.max_seconds
    cpu0, wall0 = proc_cpu_ticks(args.pid), time.monotonic()
    while len(latencies) < args.n and time.monotonic() < deadline:
        t0 = time.perf_counter()
        conn.request("GET", url.path or "/", headers=headers)
        resp = conn.getresponse()
        body = resp.read()
        latencies.append(time.perf_counter() - t0)
        wire_bytes = len(body)
        page = gzip.decompress(body) if resp.getheader("Content-Encoding") == "gzip" else body
    wall = time.monotonic() - wall0
    cpu_s = (proc_cpu_ticks(args.pid) - cpu0) / os.sysconf("SC_CLK_TCK")
    conn.close()
    if not latencies:
        raise SystemExit("no scrape finished within --max-seconds")

    latencies.sort()
    text = page.decode("utf-8", "replace")
    result = {
        "n": len(latencies),
        "gzip": args.gzip,
        "lat_ms_min": round(latencies[0] * 1e3, 3),
        "lat_ms_median": round(nearest_rank(latencies, 50) * 1e3, 3),
        "lat_ms_p99": round(nearest_rank(latencies, 99) * 1e3, 3),
        "lat_ms_max": round(latencies[-1] * 1e3, 3),
        "server_cpu_ms_per_scrape": round(cpu_s / len(latencies) * 1e3, 3),
        "server_cpu_pct_of_one_core": round(cpu_s / wall * 100, 1),
        "bytes_uncompressed": len(page),
        "bytes_on_wire": wire_bytes,
        "series": sum(1 for line in text.splitlines() if line and not line.startswith("#")),
    }
    result.update(proc_memory_kb(args.pid))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
