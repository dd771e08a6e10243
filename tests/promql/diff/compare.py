#!/usr/bin/env python3
"""Runs a PromQL corpus against two Prometheus HTTP APIs and compares the answers.

A is the reference (Prometheus), B the implementation under test (llmon).
For every case of the corpus (gen_queries.py's JSON lines) both get the same
request (/api/v1/query or /api/v1/query_range, GET or form POST) and must
agree on:
  * the HTTP status code, `status`, and for errors `errorType` (the error
    messages need not match; they are shown in the diff);
  * `resultType`;
  * the set of series, by their complete label sets (order only for instant
    queries with "ordered", i.e. sort()/sort_desc(): there the sequence of
    values must match, so ties may come in any order);
  * every sample's timestamp, exactly (in ms), and value: equal when both are
    NaN, both the same infinity, or |a - b| <= rel * max(|a|, |b|) (rel 1e-6)
    or |a - b| <= abs (1e-9, for results that should be 0 but come out of a
    cancellation);
  * strings exactly.

A failing case whose query matches a pattern of the allowlist
(known_differences.txt: `REGEX :: reason`, REGEX searched in the query) is
counted as a known difference, not a failure. Every allowlist pattern must
appear verbatim in the compatibility doc (--compat-doc) so that the reason is
written down for users; patterns that excuse nothing are reported as stale.

Output: each failure (query, params, a compact diff), a line per failure
class (first tag of the case), and the summary line
`N passed, M failed (K known differences, S stale allowlist entries) ...`.
It also checks the corpus against A: cases tagged error:* must fail there and
all others (unless tagged may-fail) succeed; --strict-corpus makes a
contradiction exit 2, since it means the corpus does not test what it says.
Exit status: 0 when every case not allowlisted passes, 1 otherwise, 2 on a
usage or setup error (unreadable corpus, allowlist entry not in the doc,
--strict-corpus contradiction).

Usage: compare.py --a URL --b URL --corpus corpus.jsonl [--allowlist FILE]
                  [--compat-doc docs/promql-compat.md] [--report out.json] [-j 4]
"""

import argparse
import concurrent.futures
import json
import math
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

REL_TOL = 1e-6
ABS_TOL = 1e-9
MAX_DIFF_LINES = 6


# -- HTTP ------------------------------------------------------------------------


class Answer:
    """One server's answer: HTTP code and the decoded envelope (or why not)."""

    __slots__ = ("code", "body", "error", "seconds")

    def __init__(self, code, body, error, seconds):
        self.code = code  # int, 0 if no HTTP answer
        self.body = body  # dict or None
        self.error = error  # transport / decoding problem, or None
        self.seconds = seconds

    def status(self):
        return self.body.get("status") if self.body else None

    def describe(self):
        if self.error:
            return "no answer (%s)" % self.error
        if self.status() == "error":
            return "%d error %s: %s" % (self.code, self.body.get("errorType"), short(self.body.get("error", ""), 160))
        return "%d %s" % (self.code, self.status())


def ask(base_url, case, timeout_s):
    path = "/api/v1/query" if case["kind"] == "instant" else "/api/v1/query_range"
    params = dict(case["params"])
    params["query"] = case["query"]
    data = urllib.parse.urlencode(params)
    url = base_url.rstrip("/") + path
    if case.get("method", "POST") == "GET":
        req = urllib.request.Request(url + "?" + data, method="GET")
    else:
        req = urllib.request.Request(url, data=data.encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:
            code, raw = resp.status, resp.read()
    except urllib.error.HTTPError as e:
        code, raw = e.code, e.read()
    except Exception as e:  # refused, reset, timeout
        return Answer(0, None, "%s: %s" % (type(e).__name__, e), time.monotonic() - t0)
    elapsed = time.monotonic() - t0
    try:
        body = json.loads(raw)
        if not isinstance(body, dict):
            raise ValueError("not a JSON object")
    except ValueError as e:
        return Answer(code, None, "HTTP %d, body is not JSON (%s): %r" % (code, e, raw[:120]), elapsed)
    return Answer(code, body, None, elapsed)


# -- comparison ----------------------------------------------------------------------


def short(s, n=200):
    s = str(s)
    return s if len(s) <= n else s[: n - 3] + "..."


def labels_key(metric):
    items = sorted(metric.items(), key=lambda kv: (kv[0] != "__name__", kv[0]))
    return "{" + ",".join('%s="%s"' % kv for kv in items) + "}"


def parse_value(v):
    """Prometheus sends values as strings; a non-string is a protocol error."""
    if not isinstance(v, str):
        raise ValueError("value %r is not a string" % (v,))
    return float(v)  # accepts NaN, +Inf, -Inf


def ts_ms(t):
    if not isinstance(t, (int, float)) or isinstance(t, bool):
        raise ValueError("timestamp %r is not a number" % (t,))
    return int(round(t * 1000))


def values_equal(a, b, rel=REL_TOL, abs_tol=ABS_TOL):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    d = abs(a - b)
    return d <= abs_tol or d <= rel * max(abs(a), abs(b))


def fmt_pt(t, v):
    return "%s@%.3f" % (v, t / 1000.0)


def decode_sample(s):
    """[t, "v"] -> (ms, float, text)."""
    if not isinstance(s, list) or len(s) != 2:
        raise ValueError("sample %r is not [t, v]" % (s,))
    return ts_ms(s[0]), parse_value(s[1]), s[1]


def series_map(result, field, diffs, side):
    """Series list -> {labels_key: payload}; notes duplicates."""
    out = {}
    order = []
    for r in result:
        key = labels_key(r.get("metric", {}))
        if key in out:
            diffs.append("%s returned series %s twice" % (side, key))
        if field == "value":
            out[key] = decode_sample(r.get("value"))
        else:
            out[key] = [decode_sample(s) for s in r.get("values", [])]
        order.append(key)
    return out, order


def compare_sets(a_map, b_map, diffs, describe):
    only_a = [k for k in a_map if k not in b_map]
    only_b = [k for k in b_map if k not in a_map]
    for k in only_a[:3]:
        diffs.append("missing in B: %s %s" % (k, describe(a_map[k])))
    if len(only_a) > 3:
        diffs.append("... %d more series missing in B" % (len(only_a) - 3))
    for k in only_b[:3]:
        diffs.append("extra in B: %s %s" % (k, describe(b_map[k])))
    if len(only_b) > 3:
        diffs.append("... %d more extra series in B" % (len(only_b) - 3))
    return [k for k in a_map if k in b_map]


def compare_vector(a, b, ordered, diffs):
    a_map, a_order = series_map(a, "value", diffs, "A")
    b_map, b_order = series_map(b, "value", diffs, "B")
    common = compare_sets(a_map, b_map, diffs, lambda s: fmt_pt(s[0], s[2]))
    bad = 0
    for k in common:
        (ta, va, sa), (tb, vb, sb) = a_map[k], b_map[k]
        if ta != tb or not values_equal(va, vb):
            bad += 1
            if bad <= 3:
                diffs.append("%s: A=%s B=%s" % (k, fmt_pt(ta, sa), fmt_pt(tb, sb)))
    if bad > 3:
        diffs.append("... %d more series differ" % (bad - 3))
    if ordered and not diffs:
        seq_a = [a_map[k][1] for k in a_order]
        seq_b = [b_map[k][1] for k in b_order]
        for i, (x, y) in enumerate(zip(seq_a, seq_b)):
            if not values_equal(x, y):
                diffs.append("order differs at position %d: A has %s (%s), B has %s (%s)" %
                             (i, a_order[i], a_map[a_order[i]][2], b_order[i], b_map[b_order[i]][2]))
                break


def compare_matrix(a, b, diffs):
    a_map, _ = series_map(a, "values", diffs, "A")
    b_map, _ = series_map(b, "values", diffs, "B")

    def describe(pts):
        if not pts:
            return "(no points)"
        return "(%d points, %s .. %s)" % (len(pts), fmt_pt(pts[0][0], pts[0][2]), fmt_pt(pts[-1][0], pts[-1][2]))

    common = compare_sets(a_map, b_map, diffs, describe)
    bad = 0
    for k in common:
        pa, pb = a_map[k], b_map[k]
        ta = [p[0] for p in pa]
        tb = [p[0] for p in pb]
        msg = None
        if ta != tb:
            sa, sb = set(ta), set(tb)
            extra_a = sorted(sa - sb)
            extra_b = sorted(sb - sa)
            msg = "%s: timestamps differ (A %d points, B %d)" % (k, len(ta), len(tb))
            if extra_a:
                msg += "; only in A: %d, first %s" % (len(extra_a), fmt_pt(extra_a[0], dict((p[0], p[2]) for p in pa)[extra_a[0]]))
            if extra_b:
                msg += "; only in B: %d, first %s" % (len(extra_b), fmt_pt(extra_b[0], dict((p[0], p[2]) for p in pb)[extra_b[0]]))
            if not extra_a and not extra_b:
                msg += "; same timestamps, different order or duplicates"
        else:
            wrong = [(x, y) for x, y in zip(pa, pb) if not values_equal(x[1], y[1])]
            if wrong:
                x, y = wrong[0]
                msg = "%s: %d of %d values differ, first at %.3f: A=%s B=%s" % (k, len(wrong), len(pa), x[0] / 1000.0,
                                                                                 x[2], y[2])
        if msg:
            bad += 1
            if bad <= 3:
                diffs.append(msg)
    if bad > 3:
        diffs.append("... %d more series differ" % (bad - 3))


def compare_answers(a, b, ordered):
    """Returns a list of difference lines (empty: the answers agree)."""
    diffs = []
    if a.error or b.error:
        if a.error:
            diffs.append("A: " + a.describe())
        if b.error:
            diffs.append("B: " + b.describe())
        return diffs
    if a.status() != b.status() or a.code != b.code:
        return ["A: %s" % a.describe(), "B: %s" % b.describe()]
    if a.status() == "error":
        if a.body.get("errorType") != b.body.get("errorType"):
            diffs.append("errorType: A=%s B=%s" % (a.body.get("errorType"), b.body.get("errorType")))
            diffs.append("A: " + short(a.body.get("error", ""), 160))
            diffs.append("B: " + short(b.body.get("error", ""), 160))
        return diffs
    if a.status() != "success":
        return ["A answered status %r" % a.status()]
    da, db = a.body.get("data") or {}, b.body.get("data") or {}
    rt_a, rt_b = da.get("resultType"), db.get("resultType")
    if rt_a != rt_b:
        return ["resultType: A=%s B=%s; B: %s" % (rt_a, rt_b, short(json.dumps(db.get("result")), 160))]
    ra, rb = da.get("result"), db.get("result")
    try:
        if rt_a == "vector":
            compare_vector(ra or [], rb if isinstance(rb, list) else [], ordered, diffs)
            if not isinstance(rb, list):
                diffs.append("B's result is %s, not a list" % short(json.dumps(rb), 80))
        elif rt_a == "matrix":
            compare_matrix(ra or [], rb if isinstance(rb, list) else [], diffs)
            if not isinstance(rb, list):
                diffs.append("B's result is %s, not a list" % short(json.dumps(rb), 80))
        elif rt_a == "scalar":
            ta, va, sa = decode_sample(ra)
            tb, vb, sb = decode_sample(rb)
            if ta != tb or not values_equal(va, vb):
                diffs.append("scalar: A=%s B=%s" % (fmt_pt(ta, sa), fmt_pt(tb, sb)))
        elif rt_a == "string":
            if ra != rb:
                diffs.append("string: A=%s B=%s" % (json.dumps(ra), json.dumps(rb)))
        else:
            diffs.append("unknown resultType %r" % rt_a)
    except (ValueError, TypeError, AttributeError, KeyError) as e:
        diffs.append("malformed result: %s" % e)
    return diffs


# -- allowlist -------------------------------------------------------------------------


class AllowlistError(Exception):
    pass


class Allowlist:
    def __init__(self, path, doc_path):
        self.entries = []  # [regex, pattern text, reason, hits]
        if not path:
            return
        doc = None
        if doc_path:
            with open(doc_path) as f:
                doc = f.read()
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                if " :: " not in line:
                    raise AllowlistError("%s:%d: expected `REGEX :: reason`" % (path, n))
                pattern, reason = line.split(" :: ", 1)
                pattern = pattern.strip()
                if not reason.strip():
                    raise AllowlistError("%s:%d: the entry has no reason" % (path, n))
                try:
                    rx = re.compile(pattern)
                except re.error as e:
                    raise AllowlistError("%s:%d: bad regex %r: %s" % (path, n, pattern, e))
                if doc is not None and pattern not in doc:
                    raise AllowlistError("%s:%d: pattern %r is not explained in %s (write it there verbatim)" %
                                     (path, n, pattern, doc_path))
                self.entries.append([rx, pattern, reason.strip(), 0])

    def match(self, query):
        for e in self.entries:
            if e[0].search(query):
                e[3] += 1
                return e
        return None


# -- main ---------------------------------------------------------------------------------------


def corpus_problem(case, a):
    """Whether the reference contradicts the corpus: a case tagged error:* must
    fail, any other one (unless tagged may-fail) must succeed."""
    tags = case.get("tags", [])
    if a.error:
        return "no answer: %s" % a.error
    want_error = any(t.startswith("error") for t in tags)
    if want_error and a.status() != "error":
        return "succeeded although tagged as an error"
    if not want_error and "may-fail" not in tags and a.status() != "success":
        return "failed: " + a.describe()
    return None


def run_case(case, url_a, url_b, timeout_s):
    a = ask(url_a, case, timeout_s)
    b = ask(url_b, case, timeout_s)
    return case, a, b, compare_answers(a, b, case.get("ordered", False))


def describe_case(case):
    p = case["params"]
    if case["kind"] == "instant":
        where = "time=%s" % p.get("time")
    else:
        where = " ".join("%s=%s" % (k, p[k]) for k in ("start", "end", "step") if k in p)
    return "#%d %s %s %s: %s" % (case["id"], case["kind"], case.get("method", "POST"), where, case["query"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="reference API base URL (Prometheus)")
    ap.add_argument("--b", required=True, help="API base URL under test (llmon)")
    ap.add_argument("--corpus", required=True, help="gen_queries.py output (JSON lines)")
    ap.add_argument("--allowlist", help="known differences: `REGEX :: reason` per line")
    ap.add_argument("--compat-doc", help="every allowlist pattern must appear verbatim in this file")
    ap.add_argument("--report", help="write every case's verdict (and all failures' diffs) as JSON here")
    ap.add_argument("-j", "--jobs", type=int, default=4, help="cases in flight at once")
    ap.add_argument("--timeout-s", type=float, default=30)
    ap.add_argument("--max-print", type=int, default=150, help="failures printed in full (all are in --report)")
    ap.add_argument("--strict-corpus", action="store_true",
                    help="exit 2 when A fails a case not tagged error:* or answers one tagged so")
    ap.add_argument("--filter", help="only cases whose query matches this regex")
    ap.add_argument("--exclude", help="skip cases whose query matches this regex (e.g. one that crashes B)")
    args = ap.parse_args()

    try:
        with open(args.corpus) as f:
            cases = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        print("compare.py: cannot read corpus %s: %s" % (args.corpus, e), file=sys.stderr)
        return 2
    if args.filter:
        rx = re.compile(args.filter)
        cases = [c for c in cases if rx.search(c["query"])]
    if args.exclude:
        rx = re.compile(args.exclude)
        cases = [c for c in cases if not rx.search(c["query"])]
    if not cases:
        print("compare.py: the corpus is empty", file=sys.stderr)
        return 2
    try:
        allow = Allowlist(args.allowlist, args.compat_doc)
    except (AllowlistError, OSError) as e:
        print("compare.py: %s" % e, file=sys.stderr)
        return 2

    passed, failed, known = 0, [], []
    slow = []
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_case, c, args.a, args.b, args.timeout_s) for c in cases]
        results = [f.result() for f in futures]
    corpus_problems, shape = [], {"error": 0, "empty": 0, "non-empty": 0}
    for case, a, b, diffs in results:
        slow.append((b.seconds, a.seconds, case))
        problem = corpus_problem(case, a)
        if problem:
            corpus_problems.append((case, problem))
        if a.status() == "error":
            shape["error"] += 1
        elif a.status() == "success":
            r = (a.body.get("data") or {}).get("result")
            shape["empty" if isinstance(r, list) and not r else "non-empty"] += 1
        if not diffs:
            passed += 1
            continue
        entry = allow.match(case["query"])
        if entry:
            known.append((case, diffs, entry))
        else:
            failed.append((case, diffs))

    for i, (case, diffs) in enumerate(failed):
        if i == args.max_print:
            print("... %d more failures (see --report)" % (len(failed) - i))
            break
        print("FAIL " + describe_case(case))
        for d in diffs[:MAX_DIFF_LINES]:
            print("    " + d)
        if len(diffs) > MAX_DIFF_LINES:
            print("    ... %d more lines" % (len(diffs) - MAX_DIFF_LINES))
    if failed:
        by_class = {}
        for case, _ in failed:
            by_class.setdefault(case["tags"][0] if case.get("tags") else "-", []).append(case)
        print("failures by class:")
        for tag, cs in sorted(by_class.items(), key=lambda kv: -len(kv[1])):
            print("  %-28s %5d  e.g. %s" % (tag, len(cs), short(cs[0]["query"], 90)))
    stale = [e for e in allow.entries if e[3] == 0]
    for e in stale:
        print("stale allowlist entry (excused nothing): %s" % e[1])
    for e in allow.entries:
        if e[3]:
            print("known difference x%d: %s  (%s)" % (e[3], e[1], e[2]))
    silent = [case for case, a, b, _ in results if b.error and not a.error]
    if silent:
        first = min(silent, key=lambda c: c["id"])
        print("B gave no answer to %d cases, the first %s; if B crashed, the query that killed it is this one or"
              " one of the %d cases before it (run with -j 1 to pin it down)" %
              (len(silent), describe_case(first), max(0, args.jobs - 1)))
    for case, problem in corpus_problems[:20]:
        print("corpus problem (A, the reference, %s): %s" % (problem, describe_case(case)))
    print("A's answers: %(error)d errors, %(empty)d empty results, %(non-empty)d non-empty" % shape)
    slow.sort(key=lambda x: -x[0])
    took = time.monotonic() - t0
    print("slowest B answers: " + "; ".join("%.2fs (A %.2fs) %s" % (sb, sa, short(c["query"], 60))
                                            for sb, sa, c in slow[:3]))
    print("%d passed, %d failed (%d known differences, %d stale allowlist entries) in %.1fs, %d cases" %
          (passed, len(failed), len(known), len(stale), took, len(cases)))
    if args.report:
        with open(args.report, "w") as f:
            json.dump({"passed": passed, "failed": [{"case": c, "diff": d} for c, d in failed],
                       "known": [{"case": c, "diff": d, "pattern": e[1]} for c, d, e in known]}, f, indent=1)
    if corpus_problems and args.strict_corpus:
        print("compare.py: %d cases do not do what the corpus says (see above)" % len(corpus_problems))
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
