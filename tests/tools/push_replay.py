#!/usr/bin/python3
"""Replays requests recorded by push_record.py against a Pushgateway-compatible
server, then prints its page of pushed metrics.

    /usr/bin/python3 tests/tools/push_replay.py FIXTURE URL [--steps N]

Sends the first N recorded requests (all by default) in order, each answer's
status on stderr, then fetches URL/metrics and prints the pushed families
only: the servers' own families (go_*, process_*, pushgateway_*, llmon_*) are
left out and non-zero push_time_seconds / push_failure_time_seconds values
read "<time>", so pages from two servers (or from llmon's unit test,
tests/scrape/push_replay_test.cpp) compare as text.
"""

import argparse
import re
import sys
import urllib.error
import urllib.request

OWN = re.compile(r"^(# (HELP|TYPE) )?(go|process|pushgateway|llmon)_")
TIME = re.compile(r"^(push_time_seconds|push_failure_time_seconds)(\{.*\}) (.+)$")


def read_fixture(path):
    out = []
    with open(path, "rb") as f:
        data = f.read()
    i = 0
    while i < len(data):
        nl = data.index(b"\n", i)
        method, raw_path, length = data[i:nl].decode().split(" ")
        n = int(length)
        body = data[nl + 1 : nl + 1 + n]
        out.append((method, raw_path, body))
        i = nl + 1 + n + 1
    return out


def mask(page):
    lines = []
    for line in page.splitlines():
        if OWN.match(line):
            continue
        m = TIME.match(line)
        if m and m.group(3) != "0":
            line = f"{m.group(1)}{m.group(2)} <time>"
        lines.append(line)
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fixture")
    ap.add_argument("url")
    ap.add_argument("--steps", type=int, default=0)
    args = ap.parse_args()
    reqs = read_fixture(args.fixture)
    if args.steps:
        reqs = reqs[: args.steps]
    base = args.url.rstrip("/")
    for method, raw_path, body in reqs:
        req = urllib.request.Request(base + raw_path, data=body if method != "DELETE" else None, method=method)
        req.add_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        try:
            with urllib.request.urlopen(req) as r:
                print(f"{method} {raw_path}: {r.status}", file=sys.stderr)
        except urllib.error.HTTPError as e:
            print(f"{method} {raw_path}: {e.code} {e.read().decode('utf-8', 'replace').strip()}", file=sys.stderr)
    with urllib.request.urlopen(base + "/metrics") as r:
        sys.stdout.write(mask(r.read().decode("utf-8")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
