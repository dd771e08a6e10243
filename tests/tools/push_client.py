#!/usr/bin/python3
"""Pushes a fixed sequence of metrics to a Pushgateway-compatible endpoint.

Run with Debian's interpreter, which has python3-prometheus-client (a pyenv
`python3` may not):

    /usr/bin/python3 tests/tools/push_client.py http://127.0.0.1:9091 [--steps N] [--list]

The same sequence pointed at Prometheus Pushgateway and at llmon must leave
both with the same pushed families (compare their /metrics pages without
the servers' own go_*/process_*/pushgateway_*/llmon_* families, and with the
push_time_seconds / push_failure_time_seconds values masked: they are times).

Steps (docs/scrape.md "Push store" says what each exercises):
  1 push_to_gateway      job=push_client instance=host1: counter, gauge with
                         labels, histogram, summary, info, and a pushed `job`
                         label that the grouping key overrides
  2 pushadd_to_gateway   same group: replaces only `push_client_queue_depth`
                         (a new value) and adds `push_client_retries_total`
  3 push_to_gateway      job="batch/nightly" (job@base64) with grouping
                         path="/var/tmp" (base64), empty="" (base64 "="),
                         site="zürich west" (percent-encoded; the space becomes
                         '+', which the server keeps as '+': Go decodes paths
                         without the query rule)
  4 push_to_gateway      job=short_lived: one gauge
  5 delete_from_gateway  job=short_lived: the group is gone
  6 push_to_gateway      job=push_client instance=host2 with a sample that has
                         a timestamp: refused with 400; the server records
                         push_failure_time_seconds for that group
  7 push_to_gateway      job=push_client instance=host1 again (PUT): the group
                         now holds only `push_client_last_success`, the
                         families of steps 1-2 are gone
Exit status: 0 when every step got the answer expected of a Pushgateway
(6 must fail with HTTP 400, all others succeed), 1 otherwise.
"""

import argparse
import sys
import urllib.error

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    Summary,
    delete_from_gateway,
    push_to_gateway,
    pushadd_to_gateway,
)
from prometheus_client.core import GaugeMetricFamily

JOB = "push_client"


def registry_full():
    r = CollectorRegistry()
    c = Counter("push_client_items", "Items processed.", ["kind"], registry=r)
    c.labels("a").inc(3)
    c.labels("b").inc(0.5)
    g = Gauge("push_client_queue_depth", "Queue depth.", ["queue", "job"], registry=r)
    g.labels("in", "overridden").set(7)
    g.labels("out", "overridden").set(-1.25)
    h = Histogram("push_client_duration_seconds", "Batch duration.", buckets=(0.1, 1, 10), registry=r)
    for v in (0.05, 0.5, 0.7, 5, 50):
        h.observe(v)
    s = Summary("push_client_payload_bytes", "Payload size.", registry=r)
    s.observe(512)
    s.observe(2048)
    i = Info("push_client_build", "Build information.", registry=r)
    i.info({"version": "1.2.3", "revision": "abc\"def"})
    return r


def registry_add():
    r = CollectorRegistry()
    Gauge("push_client_queue_depth", "Queue depth.", ["queue"], registry=r).labels("in").set(9)
    Counter("push_client_retries", "Retries.", registry=r).inc(2)
    return r


def registry_batch():
    r = CollectorRegistry()
    Gauge("batch_last_success_unixtime", "Last success.", registry=r).set(1700000000)
    Gauge("batch_records", "Records written.", ["table"], registry=r).labels("events").set(1e6)
    return r


def registry_short():
    r = CollectorRegistry()
    Gauge("short_lived_up", "Up.", registry=r).set(1)
    return r


class Timestamped:
    """A collector whose sample carries a timestamp (Pushgateway refuses it)."""

    def collect(self):
        g = GaugeMetricFamily("push_client_stamped", "Has a timestamp.")
        g.add_metric([], 1, timestamp=1700000000.5)
        yield g


def registry_timestamped():
    r = CollectorRegistry()
    r.register(Timestamped())
    return r


def registry_last():
    r = CollectorRegistry()
    Gauge("push_client_last_success", "Last success.", registry=r).set(1700000100)
    return r


def steps(url):
    host1 = {"instance": "host1"}
    batch_key = {"path": "/var/tmp", "empty": "", "site": "zürich west"}
    return [
        ("push host1 (PUT)", True, lambda: push_to_gateway(url, JOB, registry_full(), grouping_key=host1)),
        ("pushadd host1 (POST)", True, lambda: pushadd_to_gateway(url, JOB, registry_add(), grouping_key=host1)),
        ("push batch/nightly with base64 keys", True,
         lambda: push_to_gateway(url, "batch/nightly", registry_batch(), grouping_key=batch_key)),
        ("push short_lived", True, lambda: push_to_gateway(url, "short_lived", registry_short())),
        ("delete short_lived", True, lambda: delete_from_gateway(url, "short_lived")),
        ("push host2 with a timestamp (refused)", False,
         lambda: push_to_gateway(url, JOB, registry_timestamped(), grouping_key={"instance": "host2"})),
        ("push host1 again (PUT replaces the group)", True,
         lambda: push_to_gateway(url, JOB, registry_last(), grouping_key=host1)),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("url", help="base URL of the server, e.g. http://127.0.0.1:9091")
    ap.add_argument("--steps", type=int, default=0, help="run only the first N steps")
    ap.add_argument("--list", action="store_true", help="print the steps and exit")
    args = ap.parse_args()
    todo = steps(args.url)
    if args.list:
        for i, (name, _, _) in enumerate(todo, 1):
            print(f"{i} {name}")
        return 0
    if args.steps:
        todo = todo[: args.steps]
    ok = True
    for i, (name, should_succeed, run) in enumerate(todo, 1):
        try:
            run()
            result = "ok"
            good = should_succeed
        except urllib.error.HTTPError as e:
            body = e.read().decode("utf-8", "replace").strip()
            result = f"HTTP {e.code}: {body}"
            good = not should_succeed and e.code == 400
        except OSError as e:
            result = f"error: {e}"
            good = False
        print(f"step {i} {name}: {result}{'' if good else '  <-- unexpected'}")
        ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
