#!/usr/bin/env python3
"""Range-query latency of two Prometheus-compatible servers on the same data (bench/promql_compare.sh).

For every dashboard query and range (last 2 h at a 15 s step, 24 h at 60 s,
both ending at the data's end) this POSTs /api/v1/query_range as a form to
both servers (A = llmon, B = Prometheus):

  1. warm-up: --warmup requests to each, alternating; the first answers are
     decoded and compared (series, points, values within 1e-6 relative) so
     like is compared with like;
  2. timing: --runs rounds, each one request to each server, the order
     alternating round by round (A B, B A, ...) so both share the machine's
     noise; a request's latency is time.perf_counter() from sending it to the
     last byte of the answer (a new connection each time, as urllib does;
     no gzip), the body is not decoded inside the loop; reported: median and
     p90 per server, the ratio of the medians (llmon / Prometheus) and the
     median of the per-round ratios (steadier when the machine is noisy);
  3. the servers' CPU time (utime + stime of the whole process, every thread,
     from /proc/PID/stat) over the timed rounds, per request; and their peak
     RSS over the query's requests: VmHWM is reset before the query by writing
     5 to /proc/PID/clear_refs (Linux >= 4.0, needs the right to write it; if
     it fails the peak is not reported per query).

VmHWM/VmRSS of each process are also read before the first query and after
the last. If --parse-bench names llmon's promql_bench binary, its BM_Parse
results (queries parsed per second) are added. Prints a Markdown table;
writes everything to --out as JSON. Measurement code, not the product.
"""

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

QUERIES = [
    "rate(node_cpu_seconds_total[1m])",
    "sum by (instance, mode) (rate(node_cpu_seconds_total[5m]))",
    "DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)",
    "histogram_quantile(0.9, sum by (le) (rate(step_time_seconds_bucket[5m])))",
    '1 - avg(rate(node_cpu_seconds_total{mode="idle"}[5m]))',
    "avg_over_time(DCGM_FI_DEV_GPU_UTIL[10m])",
]
RANGES = [("2h", 7200, 15), ("24h", 86400, 60)]  # name, seconds, step (Grafana's choice for a ~1 000 px panel)
TARGET_RATIO = 0.5  # issue 5: llmon at most 1/2 of Prometheus's latency
REL_TOL = 1e-6

CLK_TCK = os.sysconf("SC_CLK_TCK")


class Server:
    def __init__(self, name, url, pid):
        self.name, self.url, self.pid = name, url.rstrip("/"), pid

    def status_kb(self, field):
        try:
            with open("/proc/%d/status" % self.pid) as f:
                for line in f:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            pass
        return None

    def mem(self):
        return {"VmRSS_kB": self.status_kb("VmRSS"), "VmHWM_kB": self.status_kb("VmHWM")}

    def cpu_s(self):
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime (fields 14, 15 of stat)

    def reset_hwm(self):
        try:
            with open("/proc/%d/clear_refs" % self.pid, "w") as f:
                f.write("5")
            return True
        except OSError:
            return False

    def alive(self):
        return os.path.exists("/proc/%d" % self.pid)


def post(server, form, timeout_s):
    """POSTs the form to /api/v1/query_range (/api/v1/query when it has no "step"); returns
    (seconds, HTTP status, body)."""
    data = urllib.parse.urlencode(form).encode()
    path = "/api/v1/query_range" if "step" in form else "/api/v1/query"
    req = urllib.request.Request(server.url + path, data=data,
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as r:
            body = r.read()
            code = r.status
    except urllib.error.HTTPError as e:
        body = e.read()
        code = e.code
    return time.perf_counter() - t0, code, body


def shape(body):
    """(series, points, {labels: {t: v}}) of a matrix or vector answer; raises ValueError on anything else."""
    doc = json.loads(body)
    if doc.get("status") != "success":
        raise ValueError("%s: %s" % (doc.get("errorType"), doc.get("error")))
    data = doc["data"]
    if data.get("resultType") not in ("matrix", "vector"):
        raise ValueError("resultType %s, not matrix or vector" % data.get("resultType"))
    series = {}
    points = 0
    for s in data["result"]:
        key = tuple(sorted(s["metric"].items()))
        if key in series:
            raise ValueError("duplicate series %s" % (key,))
        values = s.get("values", [s["value"]] if "value" in s else [])
        series[key] = {float(t): float(v) for t, v in values}
        points += len(values)
    return len(series), points, series


def compare(a, b):
    """Differences between two decoded answers: missing series/points, values beyond REL_TOL."""
    only_a = [k for k in a if k not in b]
    only_b = [k for k in b if k not in a]
    value_diffs = point_diffs = 0
    worst = 0.0
    for k, pa in a.items():
        pb = b.get(k)
        if pb is None:
            continue
        point_diffs += len(set(pa) ^ set(pb))
        for t, va in pa.items():
            vb = pb.get(t)
            if vb is None or (math.isnan(va) and math.isnan(vb)) or va == vb:
                continue
            rel = abs(va - vb) / max(abs(va), abs(vb))
            worst = max(worst, rel)
            if rel > REL_TOL:
                value_diffs += 1
    return {"series_only_llmon": len(only_a), "series_only_prometheus": len(only_b), "points_not_shared": point_diffs,
            "values_beyond_tol": value_diffs, "max_rel_diff": worst}


def quantile(xs, q):
    """Linear interpolation between closest ranks (numpy's default)."""
    s = sorted(xs)
    pos = (len(s) - 1) * q
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summary(xs):
    ms = [x * 1000.0 for x in xs]
    return {"median_ms": statistics.median(ms), "p90_ms": quantile(ms, 0.9), "min_ms": min(ms), "max_ms": max(ms),
            "runs_ms": [round(x, 3) for x in ms]}


def bench_one(servers, query, rng_name, span_s, step_s, end_s, args):
    if step_s == 0:  # an instant query at end_s
        form = {"query": query, "time": "%d" % end_s}
    else:
        form = {"query": query, "start": "%d" % (end_s - span_s), "end": "%d" % end_s, "step": "%d" % step_s}
    res = {"query": query, "range": rng_name, "start": end_s - span_s, "end": end_s, "step_s": step_s}
    hwm_reset = all([s.reset_hwm() for s in servers])
    first = {}
    for i in range(args.warmup):
        for s in servers if i % 2 == 0 else servers[::-1]:
            dt, code, body = post(s, form, args.timeout)
            if code != 200:
                raise SystemExit("%s answered HTTP %d to %s over %s: %s" % (s.name, code, query, rng_name, body[:300]))
            if s.name not in first:
                first[s.name] = body
    decoded = {}
    for s in servers:
        n_series, n_points, data = shape(first[s.name])
        decoded[s.name] = data
        res[s.name] = {"series": n_series, "points": n_points, "bytes": len(first[s.name])}
    a, b = servers[0].name, servers[1].name
    res["diff"] = compare(decoded[a], decoded[b])
    res["same_shape"] = res[a]["series"] == res[b]["series"] and res[a]["points"] == res[b]["points"]
    del decoded, first

    times = {s.name: [] for s in servers}
    cpu0 = {s.name: s.cpu_s() for s in servers}
    for i in range(args.runs):
        for s in servers if i % 2 == 0 else servers[::-1]:
            dt, code, body = post(s, form, args.timeout)
            if code != 200:
                raise SystemExit("%s answered HTTP %d to %s over %s in run %d: %s" %
                                 (s.name, code, query, rng_name, i, body[:300]))
            times[s.name].append(dt)
    for s in servers:
        res[s.name].update(summary(times[s.name]))
        res[s.name]["cpu_ms_per_query"] = (s.cpu_s() - cpu0[s.name]) * 1000.0 / args.runs
        res[s.name]["peak_rss_kB"] = s.status_kb("VmHWM") if hwm_reset else None
    res["ratio_median"] = res[a]["median_ms"] / res[b]["median_ms"]
    res["ratio_p90"] = res[a]["p90_ms"] / res[b]["p90_ms"]
    # Both requests of a round share that moment's noise: the median of the per-round ratios.
    res["ratio_paired_median"] = statistics.median(x / y for x, y in zip(times[a], times[b]))
    res["ratio_cpu"] = (res[a]["cpu_ms_per_query"] / res[b]["cpu_ms_per_query"]
                        if res[b]["cpu_ms_per_query"] > 0 else None)
    res["target_met"] = res["ratio_median"] <= TARGET_RATIO
    return res


def parse_bench(binary):
    """BM_Parse of llmon's promql_bench (Google Benchmark JSON): queries parsed per second."""
    if not binary or not os.access(binary, os.X_OK):
        return None
    out = subprocess.run([binary, "--benchmark_filter=BM_Parse", "--benchmark_format=json",
                          "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true"],
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        return {"error": out.stderr[-500:]}
    rows = []
    for b in json.loads(out.stdout)["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        rows.append({"name": b["run_name"], "query": b.get("label", ""), "queries_per_s": b.get("items_per_second"),
                     "ns_per_parse": b["real_time"] if b.get("time_unit") == "ns" else None})
    return rows


def fmt_ms(x):
    return "%.1f" % x if x >= 10 else "%.2f" % x


def markdown(results, names):
    a, b = names
    lines = ["| query | range, step | series x points | %s median / p90 ms | %s median / p90 ms | ratio (median) "
             "| paired ratio | CPU ms per query %s / %s | peak RSS MiB %s / %s | ≤ ½? |" % (a, b, a, b, a, b),
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        ra, rb = r[a], r[b]
        shape_txt = "%d x %d" % (ra["series"], ra["points"] // max(1, ra["series"]))
        if not r["same_shape"]:
            shape_txt += " (≠ %d/%d)" % (rb["series"], rb["points"])
        rss = ("%.0f / %.0f" % (ra["peak_rss_kB"] / 1024, rb["peak_rss_kB"] / 1024)
               if ra["peak_rss_kB"] and rb["peak_rss_kB"] else "n/a")
        lines.append("| `%s` | %s, %d s | %s | %s / %s | %s / %s | **%.2f** | %.2f | %.1f / %.1f | %s | %s |" % (
            r["query"], r["range"], r["step_s"], shape_txt, fmt_ms(ra["median_ms"]), fmt_ms(ra["p90_ms"]),
            fmt_ms(rb["median_ms"]), fmt_ms(rb["p90_ms"]), r["ratio_median"], r["ratio_paired_median"],
            ra["cpu_ms_per_query"],
            rb["cpu_ms_per_query"], rss, "met" if r["target_met"] else "not met"))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llmon", required=True, help="base URL of the llmon agent")
    ap.add_argument("--llmon-pid", type=int, required=True)
    ap.add_argument("--prometheus", required=True, help="base URL of Prometheus")
    ap.add_argument("--prometheus-pid", type=int, required=True)
    ap.add_argument("--end", type=int, required=True, help="end of every range, epoch seconds (the data's end)")
    ap.add_argument("--runs", type=int, default=20, help="timed requests per server, query and range")
    ap.add_argument("--warmup", type=int, default=3, help="untimed requests per server first")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds one request may take")
    ap.add_argument("--only", help="run only queries containing this text")
    ap.add_argument("--instant", action="store_true",
                    help="instant queries (/api/v1/query at --end) instead of the 2 h and 24 h ranges")
    ap.add_argument("--meta", help="promql_data.py's JSON summary, copied into the results")
    ap.add_argument("--parse-bench", help="llmon's promql_bench binary (BM_Parse)")
    ap.add_argument("--note", action="append", default=[], help="KEY=VALUE added to the results' environment")
    ap.add_argument("--out", required=True, help="JSON results")
    args = ap.parse_args()
    if args.runs < 2 or args.warmup < 1:
        ap.error("--runs must be at least 2 and --warmup at least 1")

    servers = [Server("llmon", args.llmon, args.llmon_pid), Server("prometheus", args.prometheus,
                                                                    args.prometheus_pid)]
    env = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "nproc": os.cpu_count(),
           "loadavg_start": open("/proc/loadavg").read().split()[:3], "kernel": platform.release(),
           "runs": args.runs, "warmup": args.warmup}
    for kv in args.note:
        k, _, v = kv.partition("=")
        env[k] = v
    out = {"environment": env, "data": json.load(open(args.meta)) if args.meta else None,
           "memory_before": {s.name: s.mem() for s in servers}, "results": []}
    for q in QUERIES:
        if args.only and args.only not in q:
            continue
        for rng_name, span_s, step_s in ([("instant", 0, 0)] if args.instant else RANGES):
            for s in servers:
                if not s.alive():
                    raise SystemExit("%s (pid %d) is gone" % (s.name, s.pid))
            r = bench_one(servers, q, rng_name, span_s, step_s, args.end, args)
            print("%-75s %-3s llmon %8s ms  prometheus %8s ms  ratio %.2f%s" % (
                q, rng_name, fmt_ms(r["llmon"]["median_ms"]), fmt_ms(r["prometheus"]["median_ms"]),
                r["ratio_median"], "" if r["same_shape"] else "  SHAPES DIFFER"), file=sys.stderr, flush=True)
            out["results"].append(r)
    out["memory_after"] = {s.name: s.mem() for s in servers}
    # With VmHWM reset before each query, VmHWM after the last one is that query's peak only:
    # the set's peak is the largest of the per-query peaks and the peak before.
    for s in servers:
        peaks = [r[s.name]["peak_rss_kB"] for r in out["results"]]
        if peaks and all(peaks):
            out["memory_after"][s.name]["peak_during_kB"] = max(peaks)
        else:
            out["memory_after"][s.name]["peak_during_kB"] = out["memory_after"][s.name]["VmHWM_kB"]
    out["environment"]["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    out["parse"] = parse_bench(args.parse_bench)
    out["all_same_shape"] = all(r["same_shape"] for r in out["results"])
    out["targets_met"] = sum(1 for r in out["results"] if r["target_met"])
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)

    names = [s.name for s in servers]
    print(markdown(out["results"], names))
    print()
    print("| server | VmHWM before the queries MiB | VmRSS before MiB | peak RSS during the queries MiB "
          "| VmRSS after MiB |")
    print("|---|---|---|---|---|")
    for n in names:
        mb, ma = out["memory_before"][n], out["memory_after"][n]
        print("| %s | %s |" % (n, " | ".join("%.0f" % (m / 1024) if m else "n/a" for m in (
            mb["VmHWM_kB"], mb["VmRSS_kB"], ma["peak_during_kB"], ma["VmRSS_kB"]))))
    if out["parse"]:
        print()
        if isinstance(out["parse"], dict):
            print("promql_bench BM_Parse failed: %s" % out["parse"]["error"])
        else:
            print("| query (llmon parse, BM_Parse median of 3) | parses/s | ns/parse |")
            print("|---|---|---|")
            for p in out["parse"]:
                print("| `%s` | %.0f | %s |" % (p["query"], p["queries_per_s"] or 0,
                                              "%.0f" % p["ns_per_parse"] if p["ns_per_parse"] else "?"))
    print()
    print("same series and points in every answer: %s; target (llmon ≤ ½ Prometheus, median) met for %d of %d" % (
        "yes" if out["all_same_shape"] else "NO", out["targets_met"], len(out["results"])))
    for r in out["results"]:
        d = r["diff"]
        if d["values_beyond_tol"] or d["series_only_llmon"] or d["series_only_prometheus"] or d["points_not_shared"]:
            print("note: %s over %s: answers differ: %s" % (r["query"], r["range"], json.dumps(d)))
    return 0 if out["all_same_shape"] else 1


if __name__ == "__main__":
    sys.exit(main())
