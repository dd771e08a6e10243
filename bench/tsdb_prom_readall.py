#!/usr/bin/env python3
"""Makes a Prometheus-compatible server read every sample of every series in [START, END], for the
RSS comparison of bench/tsdb_compare.sh: one query_range `count_over_time(NAME[STEP s - 1 ms])`
with step STEP per metric name (one query for all names is refused: the function drops __name__,
so series that differ only by name collide), sequentially, on one keep-alive connection. The
windows [t - STEP + 1 ms, t] (Prometheus 2.x ranges include both ends) tile the range without
overlap, so every sample from START - STEP + 1 s to the last step is counted once; the summed
counts check that all of them were read.
Prints one JSON line: names, series, points, samples counted, total and slowest query time.
Usage: tsdb_prom_readall.py BASE_URL START END [STEP]
"""
import http.client, json, sys, time, urllib.parse


def main():
    base, start, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    step = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    u = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=300)

    def get(path, params):
        conn.request("GET", path + "?" + urllib.parse.urlencode(params))
        body = conn.getresponse().read()
        res = json.loads(body)
        if res.get("status") != "success":
            sys.exit(f"{path} {params}: {res.get('error')}")
        return res["data"], len(body)

    names, _ = get("/api/v1/label/__name__/values", {"start": start, "end": end})
    series = points = resp = 0
    samples = 0.0
    slowest = 0.0
    t0 = time.perf_counter()
    for n in names:
        q0 = time.perf_counter()
        data, nbytes = get("/api/v1/query_range",
                           {"query": f"count_over_time({n}[{step * 1000 - 1}ms])", "start": start, "end": end, "step": step})
        slowest = max(slowest, time.perf_counter() - q0)
        resp += nbytes
        for r in data["result"]:
            series += 1
            points += len(r["values"])
            samples += sum(float(v) for _, v in r["values"])
    total = time.perf_counter() - t0
    print(json.dumps({"names": len(names), "series": series, "points": points, "samples_counted": int(samples),
                      "seconds": round(total, 3), "samples_per_s": round(samples / total),
                      "slowest_query_ms": round(slowest * 1e3, 1), "resp_bytes": resp, "step_s": step}))


if __name__ == "__main__":
    main()
