#!/usr/bin/python3
"""Push and page latency of a Pushgateway-compatible server (bench/push_compare.sh).

    /usr/bin/python3 bench/push_timing.py URL [--groups 1,10,100,1000]

Fills the server with G groups (job=batch_<i>, instance=host<i>) of the same
100-series body bench/push_store_bench.cpp pushes (20 gauge families x 5
`stage` values), then times PUTs of that body into group 0 and GETs of
/metrics. Prints one line per G: groups, push median ms, page median ms,
page bytes. Times include HTTP on 127.0.0.1 and this client.
"""

import argparse
import time
import urllib.request


def body():
    out = []
    for f in range(20):
        out.append(f"# HELP batch_metric_{f} A batch job metric.\n# TYPE batch_metric_{f} gauge\n")
        for v in range(5):
            out.append(f'batch_metric_{f}{{stage="s{v}"}} {f * 10 + v}.5\n')
    return "".join(out).encode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--groups", default="1,10,100,1000")
    args = ap.parse_args()
    base = args.url.rstrip("/")
    b = body()

    def put(i):
        req = urllib.request.Request(f"{base}/metrics/job/batch_{i}/instance/host{i}", data=b, method="PUT")
        with urllib.request.urlopen(req) as r:
            r.read()

    n = 0
    for target in (int(x) for x in args.groups.split(",")):
        while n < target:
            put(n)
            n += 1
        pushes = []
        for _ in range(21 if target < 1000 else 7):
            t = time.perf_counter()
            put(0)
            pushes.append(time.perf_counter() - t)
        pages = []
        size = 0
        for _ in range(5 if target < 1000 else 3):
            t = time.perf_counter()
            with urllib.request.urlopen(base + "/metrics") as r:
                size = len(r.read())
            pages.append(time.perf_counter() - t)
        pushes.sort()
        pages.sort()
        print(f"groups={target} push_ms={pushes[len(pushes) // 2] * 1000:.2f} "
              f"page_ms={pages[len(pages) // 2] * 1000:.2f} page_bytes={size}", flush=True)


if __name__ == "__main__":
    main()
