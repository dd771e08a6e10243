#!/usr/bin/env python3
"""A remote write 2.0 receiver written from the spec (prometheus.io
docs/specs/remote_write_spec_2_0, prompb/io/prometheus/write/v2/types.proto),
for remote_write_v2_test.sh: it takes io.prometheus.write.v2.Request bodies
(snappy block format, decoded with libsnappy through ctypes), checks the
request headers and the symbol table, answers 204 with the
X-Prometheus-Remote-Write-Samples-Written/-Histograms-Written/-Exemplars-Written
headers, and answers 415 to anything else (a 1.0 body included). Every
sample goes to OUT as one JSON line {"labels": {...}, "t": ms, "v": "repr"},
every protocol violation to OUT.errors (the test fails on any).

Usage: remote_write_v2_receiver.py PORT OUT
"""
import ctypes
import ctypes.util
import json
import math
import struct
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_lib = ctypes.CDLL(ctypes.util.find_library("snappy") or "libsnappy.so.1")


def unsnappy(data):
    n = ctypes.c_size_t()
    if _lib.snappy_uncompressed_length(data, ctypes.c_size_t(len(data)), ctypes.byref(n)) != 0:
        raise ValueError("not snappy block format")
    out = ctypes.create_string_buffer(n.value)
    if _lib.snappy_uncompress(data, ctypes.c_size_t(len(data)), out, ctypes.byref(n)) != 0:
        raise ValueError("snappy: corrupt input")
    return out.raw[: n.value]


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        if not c & 0x80:
            return v, i
        shift += 7


def fields(b):
    """(field number, wire type, value) for each field of one message."""
    i = 0
    while i < len(b):
        tag, i = varint(b, i)
        f, wt = tag >> 3, tag & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i : i + 8], i + 8
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i : i + n], i + n
        elif wt == 5:
            v, i = b[i : i + 4], i + 4
        else:
            raise ValueError(f"wire type {wt}")
        yield f, wt, v


def decode(body, errors):
    symbols, series = [], []
    for f, wt, v in fields(body):
        if f == 4 and wt == 2:
            symbols.append(v.decode("utf-8"))
        elif f == 5 and wt == 2:
            series.append(v)
        else:
            errors.append(f"Request: unexpected field {f} (wire type {wt})")
    if not symbols or symbols[0] != "":
        errors.append("symbols must start with the empty string")
    if len(set(symbols)) != len(symbols):
        errors.append("symbols are not de-duplicated")

    def sym(r):
        if r >= len(symbols):
            errors.append(f"reference {r} outside the symbol table ({len(symbols)})")
            return ""
        return symbols[r]

    out = []
    for raw in series:
        refs, samples, meta = [], [], None
        for f, wt, v in fields(raw):
            if f == 1 and wt == 2:
                j = 0
                while j < len(v):
                    r, j = varint(v, j)
                    refs.append(r)
            elif f == 1 and wt == 0:
                refs.append(v)
            elif f == 2 and wt == 2:
                t, val = 0, 0.0
                for sf, swt, sv in fields(v):
                    if sf == 1 and swt == 1:
                        val = "stale" if sv == struct.pack("<Q", 0x7FF0000000000002) else struct.unpack("<d", sv)[0]
                    elif sf == 2 and swt == 0:
                        t = sv - (1 << 64) if sv >= 1 << 63 else sv
                samples.append((t, val))
            elif f == 5 and wt == 2:
                meta = {"type": 0, "help": "", "unit": ""}
                for mf, mwt, mv in fields(v):
                    if mf == 1:
                        meta["type"] = mv
                    elif mf == 3:
                        meta["help"] = sym(mv)
                    elif mf == 4:
                        meta["unit"] = sym(mv)
            else:
                errors.append(f"TimeSeries: unexpected field {f}")
        if len(refs) % 2:
            errors.append("labels_refs of odd length")
        labels = [(sym(refs[k]), sym(refs[k + 1])) for k in range(0, len(refs) - 1, 2)]
        names = [n for n, _ in labels]
        if names != sorted(names) or len(set(names)) != len(names):
            errors.append(f"labels not sorted and unique: {names}")
        if any(not n or not v for n, v in labels):
            errors.append(f"empty label name or value: {labels}")
        if not samples:
            errors.append(f"series without samples: {labels}")
        if [t for t, _ in samples] != sorted(t for t, _ in samples):
            errors.append(f"samples out of order: {labels}")
        out.append((dict(labels), samples, meta))
    return out


class Handler(BaseHTTPRequestHandler):
    lock = threading.Lock()
    out = None
    err = None

    def log_message(self, *_):
        pass

    def reply(self, code, headers=(), body=b""):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply(200 if self.path == "/ready" else 404)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        ct = self.headers.get("Content-Type", "")
        if ct.replace(" ", "") != "application/x-protobuf;proto=io.prometheus.write.v2.Request":
            self.reply(415, body=f"unsupported content type {ct!r}\n".encode())
            return
        errors = []
        for h, want in (("Content-Encoding", "snappy"), ("X-Prometheus-Remote-Write-Version", "2.0.0")):
            if self.headers.get(h) != want:
                errors.append(f"{h}: {self.headers.get(h)!r}, want {want!r}")
        if not self.headers.get("User-Agent"):
            errors.append("no User-Agent")
        try:
            series = decode(unsnappy(body), errors)
        except (ValueError, IndexError, UnicodeDecodeError) as e:
            errors.append(f"undecodable body: {e}")
            series = []
        n = 0
        with self.lock:
            for e in errors:
                self.err.write(e + "\n")
            for labels, samples, meta in series:
                for t, v in samples:
                    n += 1
                    if v == "stale":
                        continue  # a staleness marker: not a sample a query returns
                    rec = {"labels": labels, "t": t, "v": "NaN" if math.isnan(v) else repr(v)}
                    if meta:
                        rec["meta"] = meta
                    self.out.write(json.dumps(rec) + "\n")
            self.out.flush()
            self.err.flush()
        if errors:
            self.reply(400, [("X-Prometheus-Remote-Write-Samples-Written", "0")], "; ".join(errors).encode())
            return
        self.reply(
            204,
            [
                ("X-Prometheus-Remote-Write-Samples-Written", str(n)),
                ("X-Prometheus-Remote-Write-Histograms-Written", "0"),
                ("X-Prometheus-Remote-Write-Exemplars-Written", "0"),
            ],
        )


def main():
    port, path = int(sys.argv[1]), sys.argv[2]
    Handler.out = open(path, "a")
    Handler.err = open(path + ".errors", "a")
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
