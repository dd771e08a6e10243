#!/usr/bin/env python3
"""Line-to-event, line-to-counter and line-to-alert latency of llmon's log watcher
(issue 18, "Latency"; docs/performance.md "Log watching"). Driven by bench/logwatch_latency.sh,
which starts the agent, Alertmanager and the webhook receiver this script reads.

For each of --runs iterations, one matching line is appended (one write(2)) to the watched log
file and, alternately, to the kmsg-format file; the script then polls, on loopback:
  * /api/v1/events?rule=bench_line&limit=1 until the event of that line (its `run` label) is
    there: line -> event committed to the journal and served;
  * /metrics until llmon_log_matches_total{rule="bench_line"} counts it: line -> counter
    exposed (bounded by --collect.interval, the cycle that snapshots the counters);
and, for the alert runs, the webhook receiver's file until Alertmanager delivered the alert for
that run: line -> stored counter -> rule evaluation -> Alertmanager -> webhook.
Prints one JSON object: per measure, n, min, median, p90, max in milliseconds.
"""
import argparse
import http.client
import json
import os
import statistics
import time


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        c.request("GET", path)
        return c.getresponse().read().decode("utf-8", "replace")
    finally:
        c.close()


def append(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def summary(xs):
    xs = sorted(xs)
    if not xs:
        return {"n": 0}
    p90 = xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]
    return {"n": len(xs), "min": round(xs[0], 1), "median": round(statistics.median(xs), 1),
            "p90": round(p90, 1), "max": round(xs[-1], 1)}


def counter(page, source_kind):
    total = 0.0
    for line in page.splitlines():
        if line.startswith('llmon_log_matches_total{') and 'rule="bench_line"' in line:
            if (source_kind == "kmsg") == ('source="kmsg"' in line):
                total += float(line.rsplit(" ", 1)[1])
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--kmsg", required=True)
    ap.add_argument("--hooks", required=True, help="the webhook receiver's file of Alertmanager posts")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--alert-runs", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=30)
    a = ap.parse_args()

    res = {"event_file": [], "event_kmsg": [], "counter_file": [], "counter_kmsg": [], "alert": []}
    seq = 100
    for i in range(a.runs):
        kind = "kmsg" if i % 2 else "file"
        run = "r%d" % i
        before = counter(get(a.port, "/metrics"), kind)
        if kind == "file":
            line = "bench: marker run=%s\n" % run
            t0 = time.monotonic()
            append(a.log, line)
        else:
            seq += 1
            line = "4,%d,%d,-;bench: marker run=%s\n" % (seq, seq * 1000, run)
            t0 = time.monotonic()
            append(a.kmsg, line)
        t_event = t_counter = None
        while (t_event is None or t_counter is None) and time.monotonic() - t0 < a.timeout:
            if t_event is None:
                body = get(a.port, "/api/v1/events?rule=bench_line&limit=1")
                if '"run":"%s"' % run in body:
                    t_event = time.monotonic()
            if t_counter is None and counter(get(a.port, "/metrics"), kind) > before:
                t_counter = time.monotonic()
            time.sleep(0.001)
        if t_event is not None:
            res["event_" + kind].append((t_event - t0) * 1000)
        if t_counter is not None:
            res["counter_" + kind].append((t_counter - t0) * 1000)
        time.sleep(0.05)
    for i in range(a.alert_runs):
        run = "a%d" % i
        t0 = time.monotonic()
        append(a.log, "bench: alert run=%s\n" % run)
        while time.monotonic() - t0 < a.timeout:
            try:
                with open(a.hooks) as f:
                    if any('"run":"%s"' % run in l for l in f):
                        res["alert"].append((time.monotonic() - t0) * 1000)
                        break
            except FileNotFoundError:
                pass
            time.sleep(0.005)
    print(json.dumps({k: summary(v) for k, v in res.items()}, indent=1))


if __name__ == "__main__":
    main()
