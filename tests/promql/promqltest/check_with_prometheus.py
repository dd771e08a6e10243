#!/usr/bin/env python3
"""Checks promqltest scripts against the real Prometheus (2.42, Debian's).

For each .test file given, every `load` is pushed into a fresh Prometheus
(started on a free port on 127.0.0.1, remote-write receiver enabled, so
staleness markers keep their exact bits) and every `eval` is run through its
HTTP API (/api/v1/query, /api/v1/query_range). Results are compared the way
tests/promql/promqltest/runner.h compares ours (same series, values within a
relative 1e-6, NaN == NaN, positions for eval_ordered, errors where expected).
A disagreement means the script is wrong, or the eval documents a deliberate
difference from 2.42 and must say so with a comment line right above it:

    # prometheus-check: skip <reason>

Evals that call functions 2.42 lacks (3.x-only) are skipped automatically.
`clear` starts a new Prometheus. Only the PIDs this script starts are killed.

Usage: check_with_prometheus.py [-v] [--prometheus PATH] FILE.test...
Exit status: 0 all agree, 1 disagreements, 2 usage/setup error.
"""

import argparse
import json
import math
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

STALE_BITS = 0x7FF0000000000002
THREE_X_ONLY = re.compile(
    r"\b(double_exponential_smoothing|sort_by_label|sort_by_label_desc|mad_over_time|limitk|limit_ratio|"
    r"histogram_avg|histogram_stddev|histogram_stdvar|info)\s*(?:\(|by\b|without\b)")


class ScriptError(Exception):
    pass


# ---------------------------------------------------------------- durations

DUR_RE = re.compile(r"^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$")
DUR_MS = [365 * 86400000, 7 * 86400000, 86400000, 3600000, 60000, 1000, 1]


def parse_duration_ms(text):
    if text == "0":
        return 0
    m = DUR_RE.match(text)
    if not text or not m:
        raise ScriptError("invalid duration %r" % text)
    return sum(int(g) * mult for g, mult in zip(m.groups(), DUR_MS) if g)


# ---------------------------------------------------------- series notation

def go_unquote(s, i):
    """Go string literal at s[i]; returns (value, index after it)."""
    q = s[i]
    j = i + 1
    if q == "`":
        end = s.index("`", j)
        return s[j:end], end + 1
    out = bytearray()
    simple = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}
    while True:
        c = s[j]
        if c == q:
            return out.decode("utf-8"), j + 1
        if c != "\\":
            out += c.encode("utf-8")
            j += 1
            continue
        e = s[j + 1]
        if e in simple:
            out.append(simple[e])
            j += 2
        elif e == q:
            out += q.encode()
            j += 2
        elif e in "01234567":
            out.append(int(s[j + 1:j + 4], 8))
            j += 4
        elif e == "x":
            out.append(int(s[j + 2:j + 4], 16))
            j += 4
        elif e in "uU":
            n = 4 if e == "u" else 8
            out += chr(int(s[j + 2:j + 2 + n], 16)).encode("utf-8")
            j += 2 + n
        else:
            raise ScriptError("unknown escape \\%s" % e)


def parse_labels(text):
    """`name{a="b"}` -> (sorted label tuple, index after the descriptor)."""
    i = 0
    labels = {}
    m = re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", text)
    if m:
        labels["__name__"] = m.group(0)
        i = m.end()
    if i < len(text) and text[i] == "{":
        i += 1
        while True:
            while text[i] in " \t":
                i += 1
            if text[i] == "}":
                i += 1
                break
            if text[i] in "\"'`":
                name, i = go_unquote(text, i)
            else:
                m = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*").match(text, i)
                if not m:
                    raise ScriptError("bad label set in %r" % text)
                name, i = m.group(0), m.end()
            while text[i] in " \t":
                i += 1
            if text[i] in ",}":
                labels["__name__"] = name
            else:
                if text[i] != "=":
                    raise ScriptError("expected = in %r" % text)
                i += 1
                while text[i] in " \t":
                    i += 1
                value, i = go_unquote(text, i)
                if value != "":
                    labels[name] = value
            while text[i] in " \t":
                i += 1
            if text[i] == ",":
                i += 1
            elif text[i] == "}":
                i += 1
                break
            else:
                raise ScriptError("bad label set in %r" % text)
    if i == 0:
        raise ScriptError("expected a series descriptor: %r" % text)
    return tuple(sorted(labels.items())), i


NUM = r"(?:\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|[iI][nN][fF]|[nN][aA][nN])"
ITEM_RE = re.compile(r"^(stale|[+-]?" + NUM + r")(?:([+-]" + NUM + r")?x(\d+))?$")


def number(tok):
    sign = -1.0 if tok.startswith("-") else 1.0
    body = tok.lstrip("+-")
    if re.fullmatch(r"0[0-7]+", body):
        return sign * int(body, 8)
    return sign * float(body)


def parse_values(text):
    """Expanded values: floats, None for `_`, 'stale' for stale markers."""
    out = []
    for item in text.split():
        if item == "_":
            out.append(None)
            continue
        m = re.fullmatch(r"_x(\d+)", item)
        if m:
            out.extend([None] * int(m.group(1)))
            continue
        m = ITEM_RE.match(item)
        if not m:
            raise ScriptError("bad series value %r" % item)
        start = "stale" if m.group(1) == "stale" else number(m.group(1))
        if m.group(3) is None:
            out.append(start)
            continue
        step = number(m.group(2)) if m.group(2) else 0.0
        v = start
        for _ in range(int(m.group(3)) + 1):
            out.append(v)
            v = (float("nan") if v == "stale" else v) + step
    return out


def parse_series(line):
    labels, i = parse_labels(line)
    return labels, parse_values(line[i:])


def go_number(s):
    """test.go's parseNumber (ParseInt base 0, else ParseFloat), or None."""
    m = re.fullmatch(r"([+-]?)0([0-7]+)", s)
    if m:
        return float(int(m.group(1) + m.group(2), 8))
    try:
        return float(int(s, 0))
    except ValueError:
        pass
    if re.fullmatch(r"[+-]?(?:inf|infinity|nan|" + NUM + ")", s, re.I):
        return float(s)
    return None


# ------------------------------------------------------------ script parser

def parse_script(text):
    raw = text.split("\n")
    lines = ["" if l.strip().startswith("#") else l.strip() for l in raw]
    cmds = []
    i = 0
    while i < len(lines):
        l = lines[i]
        if not l:
            i += 1
            continue
        word = l.split()[0].lower()
        lineno = i + 1
        if word == "clear":
            cmds.append({"kind": "clear", "line": lineno})
            i += 1
            continue
        if word.startswith("load"):
            step = parse_duration_ms(l.split(None, 1)[1].strip())
            series = []
            while i + 1 < len(lines) and lines[i + 1]:
                i += 1
                series.append(parse_series(lines[i]))
            cmds.append({"kind": "load", "line": lineno, "step": step, "series": series})
            i += 1
            continue
        m_i = re.match(r"^eval(?:_(fail|warn|ordered|info))?\s+instant\s+(?:at\s+(.+?))?\s+(.+)$", l)
        m_r = re.match(r"^eval(?:_(fail|warn|info))?\s+range\s+from\s+(.+)\s+to\s+(.+)\s+step\s+(.+?)\s+(.+)$", l)
        if not (m_i or m_r):
            raise ScriptError("line %d: invalid command %r" % (lineno, l))
        skip = None
        k = i - 1
        while k >= 0 and raw[k].strip().startswith("#"):
            m = re.match(r"#\s*prometheus-check:\s*skip\s*(.*)", raw[k].strip())
            if m:
                skip = m.group(1) or "marked"
            k -= 1
        ev = {"kind": "eval", "line": lineno, "skip": skip, "fail": False, "ordered": False,
              "fail_msg": None, "fail_re": None, "scalar": None, "series": []}
        if m_i:
            ev.update(range=False, mod=m_i.group(1), start=parse_duration_ms(m_i.group(2) or ""), query=m_i.group(3))
            ev["end"], ev["step"] = ev["start"], 0
        else:
            ev.update(range=True, mod=m_r.group(1), start=parse_duration_ms(m_r.group(2)),
                      end=parse_duration_ms(m_r.group(3)), step=parse_duration_ms(m_r.group(4)), query=m_r.group(5))
        ev["fail"] = ev["mod"] == "fail"
        ev["ordered"] = ev["mod"] == "ordered"
        while i + 1 < len(lines) and lines[i + 1]:
            i += 1
            d = lines[i]
            if ev["fail"] and d.startswith("expected_fail_message"):
                ev["fail_msg"] = d[len("expected_fail_message"):].strip()
                break
            if ev["fail"] and d.startswith("expected_fail_regexp"):
                ev["fail_re"] = d[len("expected_fail_regexp"):].strip()
                break
            if d.split(" ")[0] == "expect":
                m = re.match(r"^expect\s+(ordered|fail|warn|no_warn|info|no_info)(?:\s+(regex|msg):(.+))?$", d)
                if not m:
                    raise ScriptError("line %d: bad expect line" % (i + 1))
                if m.group(1) == "fail":
                    ev["fail"] = True
                    if m.group(2) == "msg":
                        ev["fail_msg"] = m.group(3).strip()
                    elif m.group(2) == "regex":
                        ev["fail_re"] = m.group(3).strip()
                elif m.group(1) == "ordered":
                    ev["ordered"] = True
                continue
            n = go_number(d)
            if n is not None:
                ev["scalar"] = n
                break
            ev["series"].append(parse_series(d))
        cmds.append(ev)
        i += 1
    return cmds


# --------------------------------------------------------------- Prometheus

def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pb_bytes(field, payload):
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def write_request(series):
    """series: [(labels tuple, [(t_ms, value)])] -> remote-write protobuf."""
    out = bytearray()
    for labels, samples in series:
        ts = bytearray()
        for name, value in labels:
            ts += pb_bytes(1, pb_bytes(1, name.encode()) + pb_bytes(2, value.encode()))
        for t, v in samples:
            bits = STALE_BITS if v == "stale" else struct.unpack("<Q", struct.pack("<d", v))[0]
            sample = varint(1 << 3 | 1) + struct.pack("<Q", bits) + varint(2 << 3 | 0) + varint(t)
            ts += pb_bytes(2, sample)
        out += pb_bytes(1, bytes(ts))
    return bytes(out)


def snappy_literal(data):
    """Snappy block format made only of literals (valid, uncompressed)."""
    out = bytearray(varint(len(data)))
    for off in range(0, len(data), 65536):
        chunk = data[off:off + 65536]
        n = len(chunk) - 1
        if n < 60:
            out.append(n << 2)
        elif n < 256:
            out += bytes([60 << 2, n])
        else:
            out += bytes([61 << 2]) + struct.pack("<H", n)
        out += chunk
    return bytes(out)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    def __init__(self, binary, verbose):
        self.dir = tempfile.mkdtemp(prefix="llmon-promcheck-")
        self.port = free_port()
        cfg = os.path.join(self.dir, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1m\n  evaluation_interval: 1m\n")
        self.log = open(os.path.join(self.dir, "prometheus.log"), "w")
        self.proc = subprocess.Popen(
            [binary, "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
             "--web.listen-address=127.0.0.1:%d" % self.port, "--web.enable-remote-write-receiver",
             "--storage.tsdb.retention.time=100y", "--query.lookback-delta=5m"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.base = "http://127.0.0.1:%d" % self.port
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("prometheus exited; log in " + self.log.name)
            try:
                with urllib.request.urlopen(self.base + "/-/ready", timeout=1) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError):
                pass
            time.sleep(0.2)
        else:
            raise RuntimeError("prometheus not ready within 30 s")
        self.verbose = verbose

    def push(self, loads):
        """All samples of `loads` (load commands), globally time-ordered."""
        samples = []
        for ld in loads:
            for labels, values in ld["series"]:
                for idx, v in enumerate(values):
                    if v is not None:
                        samples.append((idx * ld["step"], labels, v))
        samples.sort(key=lambda s: s[0])
        for off in range(0, len(samples), 2000):
            by_series = {}
            for t, labels, v in samples[off:off + 2000]:
                by_series.setdefault(labels, []).append((t, v))
            body = snappy_literal(write_request(list(by_series.items())))
            req = urllib.request.Request(self.base + "/api/v1/write", data=body, method="POST", headers={
                "Content-Encoding": "snappy", "Content-Type": "application/x-protobuf",
                "X-Prometheus-Remote-Write-Version": "0.1.0"})
            try:
                urllib.request.urlopen(req, timeout=30).close()
            except urllib.error.HTTPError as e:
                raise RuntimeError("remote write refused: %s %s" % (e.code, e.read().decode(errors="replace")))

    def query(self, ev):
        if ev["range"]:
            params = {"query": ev["query"], "start": "%.3f" % (ev["start"] / 1000), "end": "%.3f" % (ev["end"] / 1000),
                      "step": "%.3f" % (ev["step"] / 1000)}
            url = self.base + "/api/v1/query_range?" + urllib.parse.urlencode(params)
        else:
            params = {"query": ev["query"], "time": "%.3f" % (ev["start"] / 1000)}
            url = self.base + "/api/v1/query?" + urllib.parse.urlencode(params)
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            return json.loads(e.read())

    def stop(self):
        self.proc.terminate()  # the PID this object started, nothing else
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


# --------------------------------------------------------------- comparison

def almost_equal(a, b, eps=1e-6):
    if math.isnan(a) and math.isnan(b):
        return True
    if a == b:
        return True
    abs_sum = abs(a) + abs(b)
    diff = abs(a - b)
    min_normal = 2.2250738585072014e-308
    if a == 0 or b == 0 or abs_sum < min_normal:
        return diff < eps * min_normal
    return diff / min(abs_sum, sys.float_info.max) < eps


def fval(v):
    return float("nan") if v == "stale" else v


def fmt_labels(labels):
    return "{" + ", ".join('%s="%s"' % kv for kv in labels) + "}"


def compare(ev, resp):
    """'' when Prometheus's answer matches the eval, else why not."""
    if resp.get("status") != "success":
        err = resp.get("error", "")
        if not ev["fail"]:
            return "Prometheus failed: " + err
        if ev["fail_msg"] is not None and err != ev["fail_msg"]:
            return "expected error %r, Prometheus said %r" % (ev["fail_msg"], err)
        if ev["fail_re"] is not None and not re.search(ev["fail_re"], err):
            return "expected error matching /%s/, Prometheus said %r" % (ev["fail_re"], err)
        return ""
    if ev["fail"]:
        return "expected an error, Prometheus returned %s" % json.dumps(resp["data"])[:300]
    data = resp["data"]
    rtype, result = data["resultType"], data["result"]
    expected = {labels: values for labels, values in ev["series"]}
    if rtype == "scalar":
        if ev["scalar"] is None:
            return "Prometheus returned scalar %s, expected series" % result[1]
        got = float(result[1])
        return "" if almost_equal(ev["scalar"], got) else "expected scalar %r, Prometheus: %r" % (ev["scalar"], got)
    if ev["scalar"] is not None:
        return "expected scalar %r, Prometheus returned a %s" % (ev["scalar"], rtype)
    seen = set()
    for pos, item in enumerate(result):
        labels = tuple(sorted(item["metric"].items()))
        if labels not in expected:
            return "unexpected series %s in Prometheus's result: %s" % (
                fmt_labels(labels), json.dumps(item.get("value") or item.get("values"))[:200])
        seen.add(labels)
        want = expected[labels]
        if rtype == "vector":
            if ev["ordered"] and [s[0] for s in ev["series"]].index(labels) != pos:
                return "%s at position %d in Prometheus's result" % (fmt_labels(labels), pos + 1)
            got = float(item["value"][1])
            if not almost_equal(fval(want[0]), got):
                return "%s: expected %r, Prometheus: %r" % (fmt_labels(labels), want[0], got)
        else:
            pts = [(round(float(t) * 1000), float(v)) for t, v in item["values"]]
            exp = [(ev["start"] + i * ev["step"], fval(v)) for i, v in enumerate(want) if v is not None]
            if len(pts) != len(exp) or any(a[0] != b[0] or not almost_equal(b[1], a[1]) for a, b in zip(pts, exp)):
                return "%s: expected %s, Prometheus: %s" % (fmt_labels(labels), exp, pts)
    missing = [fmt_labels(l) for l in expected if l not in seen]
    if missing:
        return "missing from Prometheus's result: " + ", ".join(missing)
    return ""


# --------------------------------------------------------------------- main

def check_file(path, binary, verbose):
    with open(path) as f:
        cmds = parse_script(f.read())
    disagreements, checked, skipped = 0, 0, 0
    prom, loads, pushed = None, [], 0
    try:
        for c in cmds:
            if c["kind"] == "clear":
                if prom:
                    prom.stop()
                prom, loads, pushed = None, [], 0
            elif c["kind"] == "load":
                loads.append(c)
            else:
                if c["skip"] or THREE_X_ONLY.search(c["query"]):
                    skipped += 1
                    if verbose:
                        print("%s:%d: skipped (%s): %s" % (path, c["line"], c["skip"] or "3.x-only", c["query"]))
                    continue
                if prom is None or pushed != len(loads):
                    # New data since the last push: a fresh server with all of
                    # it, as remote write only takes samples in time order.
                    if prom:
                        prom.stop()
                    prom = Prometheus(binary, verbose)
                    prom.push(loads)
                    pushed = len(loads)
                checked += 1
                why = compare(c, prom.query(c))
                if why:
                    disagreements += 1
                    print("%s:%d: %s\n    %s" % (path, c["line"], c["query"], why))
                elif verbose:
                    print("%s:%d: ok: %s" % (path, c["line"], c["query"]))
    finally:
        if prom:
            prom.stop()
    print("%s: %d evals checked against Prometheus, %d disagree, %d skipped" % (path, checked, disagreements, skipped))
    return disagreements


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--prometheus", default=shutil.which("prometheus") or "prometheus")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if not os.path.exists(args.prometheus):
        print("prometheus binary not found: %s" % args.prometheus, file=sys.stderr)
        return 2
    bad = 0
    for path in args.files:
        try:
            bad += check_file(path, args.prometheus, args.verbose)
        except ScriptError as e:
            print("%s: %s" % (path, e), file=sys.stderr)
            return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
