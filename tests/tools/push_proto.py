#!/usr/bin/python3
"""Pushes protobuf bodies (delimited io.prometheus.client.MetricFamily, what
client_golang's push package sends) to a Pushgateway-compatible endpoint and
prints each answer's status, so that the answers of Prometheus Pushgateway
and llmon can be compared line by line.

    tests/tools/push_proto.py http://127.0.0.1:9091

The encoder here is written from client_model's metrics.proto, independent of
llmon's (src/scrape/push_protobuf.cpp). Steps:
  1 PUT  job=proto_job instance=a: counter with help, gauge with labels,
         histogram without +Inf bucket, summary, untyped; the families in
         one body, one of them given twice (the later one wins)
  2 POST job=proto_job instance=a: replaces the gauge only
  3 PUT  job=proto_job instance=ts: a metric with timestamp_ms (refused)
  4 PUT  job=proto_job instance=bad: a truncated message (refused)
  5 PUT  job=proto_job instance=wrong: a GAUGE family whose metric holds a
         counter (refused)
  6 PUT  job=gz_job: the text format, gzip-compressed
"""

import gzip
import struct
import sys
import urllib.error
import urllib.request

CT = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"
COUNTER, GAUGE, SUMMARY, UNTYPED, HISTOGRAM = 0, 1, 2, 3, 4


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def ld(field, payload):
    return key(field, 2) + varint(len(payload)) + payload


def dbl(field, v):
    return key(field, 1) + struct.pack("<d", v)


def uint(field, v):
    return key(field, 0) + varint(v)


def label(name, value):
    return ld(1, ld(1, name.encode()) + ld(2, value.encode()))


def metric(labels, value_field, value_msg, ts=None):
    body = b"".join(label(k, v) for k, v in labels) + ld(value_field, value_msg)
    if ts is not None:
        body += uint(6, ts)
    return ld(4, body)


def family(name, typ, metrics, help_text=None):
    msg = ld(1, name.encode())
    if help_text is not None:
        msg += ld(2, help_text.encode())
    msg += uint(3, typ) + b"".join(metrics)
    return varint(len(msg)) + msg


def histogram(count, total, buckets):
    return uint(1, count) + dbl(2, total) + b"".join(ld(3, uint(1, c) + dbl(2, ub)) for ub, c in buckets)


def summary(count, total, quantiles):
    return uint(1, count) + dbl(2, total) + b"".join(ld(3, dbl(1, q) + dbl(2, v)) for q, v in quantiles)


def step1():
    return b"".join([
        family("proto_requests_total", COUNTER, [metric([("code", "200")], 3, dbl(1, 42))], "Requests handled."),
        family("proto_queue_depth", GAUGE, [metric([("queue", "q1")], 2, dbl(1, 3)),
                                            metric([("queue", "q2")], 2, dbl(1, 5))]),
        family("proto_step_seconds", HISTOGRAM, [metric([], 7, histogram(10, 12.5, [(0.5, 2), (1.0, 6), (2.5, 9)]))],
               "Step time."),
        family("proto_rpc_seconds", SUMMARY, [metric([], 4, summary(4, 2.0, [(0.5, 0.4), (0.99, 0.9)]))]),
        family("proto_misc", UNTYPED, [metric([("k", "v")], 5, dbl(1, -1.5))]),
        family("proto_queue_depth", GAUGE, [metric([("queue", "q3")], 2, dbl(1, 7))]),
    ])


STEPS = [
    ("PUT", "/metrics/job/proto_job/instance/a", step1, CT, None),
    ("POST", "/metrics/job/proto_job/instance/a",
     lambda: family("proto_queue_depth", GAUGE, [metric([("queue", "q9")], 2, dbl(1, 9))]), CT, None),
    ("PUT", "/metrics/job/proto_job/instance/ts",
     lambda: family("proto_stamped", GAUGE, [metric([], 2, dbl(1, 1), ts=1700000000000)]), CT, None),
    ("PUT", "/metrics/job/proto_job/instance/bad", lambda: step1()[:-3], CT, None),
    ("PUT", "/metrics/job/proto_job/instance/wrong",
     lambda: family("proto_wrong", GAUGE, [metric([], 3, dbl(1, 1))]), CT, None),
    ("PUT", "/metrics/job/gz_job",
     lambda: gzip.compress(b"# TYPE gz_value gauge\ngz_value{x=\"1\"} 11\n"), "text/plain; version=0.0.4", "gzip"),
]


def main():
    base = sys.argv[1].rstrip("/")
    for i, (method, path, body, ctype, encoding) in enumerate(STEPS, 1):
        req = urllib.request.Request(base + path, data=body(), method=method)
        req.add_header("Content-Type", ctype)
        if encoding:
            req.add_header("Content-Encoding", encoding)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                code = r.status
        except urllib.error.HTTPError as e:
            code = e.code
        print(f"step {i} {method} {path}: {code}")


if __name__ == "__main__":
    main()
