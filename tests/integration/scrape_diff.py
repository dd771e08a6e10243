#!/usr/bin/env python3
"""Compares what Prometheus and llmon stored from scraping the same targets.

Usage: scrape_diff.py PROMETHEUS_URL LLMON_URL

Checks, printing one line per difference (exit 1 if any):
  * series: the instant query {__name__=~".+",job!="llmon"} on both, label
    sets and values equal (scrape_duration_seconds: label sets only);
  * targets: /api/v1/targets, active targets by scrape pool and labels with
    the same discoveredLabels, scrapeUrl, health and lastError; dropped
    targets with the same discoveredLabels (a transport error that Go words
    as 'Get "URL": dial tcp ...' only needs some error on llmon's side);
  * metadata: every family in Prometheus's /api/v1/metadata has the same
    entries in llmon's.
"""
import json
import math
import sys
import urllib.parse
import urllib.request

PROM, LLMON = sys.argv[1], sys.argv[2]


def get(base, path, **params):
    url = base + path + ("?" + urllib.parse.urlencode(params) if params else "")
    with urllib.request.urlopen(url, timeout=10) as r:
        d = json.load(r)
    if d.get("status") != "success":
        raise SystemExit(f"{url}: {d}")
    return d["data"]


def series(base):
    out = {}
    for r in get(base, "/api/v1/query", query='{__name__=~".+",job!="llmon"}')["result"]:
        key = tuple(sorted(r["metric"].items()))
        v = r["value"][1]
        out[key] = None if r["metric"]["__name__"] == "scrape_duration_seconds" else v
    return out


def fmt(key):
    d = dict(key)
    name = d.pop("__name__", "")
    return name + "{" + ",".join(f'{k}="{v}"' for k, v in sorted(d.items())) + "}"


def same_value(a, b):
    if a is None or b is None:
        return a is None and b is None
    try:
        fa, fb = float(a), float(b)
    except ValueError:
        return a == b
    return (math.isnan(fa) and math.isnan(fb)) or fa == fb


problems = []
ps, ls = series(PROM), series(LLMON)
for k in sorted(ps.keys() - ls.keys()):
    problems.append(f"series only in Prometheus: {fmt(k)} {ps[k]}")
for k in sorted(ls.keys() - ps.keys()):
    problems.append(f"series only in llmon: {fmt(k)} {ls[k]}")
for k in sorted(ps.keys() & ls.keys()):
    if not same_value(ps[k], ls[k]):
        problems.append(f"value differs: {fmt(k)} Prometheus {ps[k]} llmon {ls[k]}")


def targets(base):
    d = get(base, "/api/v1/targets")
    active = {}
    for t in d["activeTargets"]:
        key = (t["scrapePool"], tuple(sorted(t["labels"].items())))
        active[key] = {"discoveredLabels": t["discoveredLabels"], "scrapeUrl": t["scrapeUrl"],
                       "health": t["health"], "lastError": t["lastError"]}
    dropped = sorted(json.dumps(t["discoveredLabels"], sort_keys=True) for t in d["droppedTargets"])
    return active, dropped


pa, pd = targets(PROM)
la, ld = targets(LLMON)
for k in sorted(pa.keys() - la.keys()):
    problems.append(f"target only in Prometheus: {k}")
for k in sorted(la.keys() - pa.keys()):
    problems.append(f"target only in llmon: {k}")
for k in sorted(pa.keys() & la.keys()):
    for f in ("discoveredLabels", "scrapeUrl", "health", "lastError"):
        if f == "lastError" and pa[k][f].startswith('Get "') and la[k][f]:
            continue  # Go's net/http wording of a transport error; llmon words its own
        if pa[k][f] != la[k][f]:
            problems.append(f"target {k} {f}: Prometheus {pa[k][f]!r} llmon {la[k][f]!r}")
if pd != ld:
    problems.append(f"dropped targets differ:\n  Prometheus {pd}\n  llmon      {ld}")

pm, lm = get(PROM, "/api/v1/metadata"), get(LLMON, "/api/v1/metadata")
for name, entries in sorted(pm.items()):
    mine = lm.get(name)
    key = lambda e: json.dumps(e, sort_keys=True)
    if mine is None or sorted(map(key, mine)) != sorted(map(key, entries)):
        problems.append(f"metadata {name}: Prometheus {entries} llmon {mine}")

print(f"compared {len(ps)} series, {len(pa)} active and {len(pd)} dropped targets, {len(pm)} metadata families")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
