#!/usr/bin/env python3
"""Grafana dashboards as they are, against Prometheus' query API (used by
grafana_dashboards_test.sh).

A minimal model of what Grafana's Prometheus data source does with a dashboard
JSON: it extracts every panel target's `expr` (nested row panels and the old
`rows` schema included; hidden targets skipped, as Grafana skips them),
resolves the templating variables in order (`label_values(metric, label)`
through /api/v1/label/<label>/values?match[]=metric, and again through
/api/v1/series?match[]=metric as Grafana does without a Prometheus version
set: both must agree; `label_values(label)`
without match[], `query_result(expr)` through an instant query, custom,
constant and textbox variables from their values), substitutes `$var`, `${var}`,
`[[var]]` the way Grafana's interpolateQueryExpr does (a single-value
variable as is, a multi/includeAll one regex-escaped, several values as
`(a|b)`), then $__interval, $__rate_interval, $__range like Grafana's
backend, and runs each query as an instant query.

  grafana_dash.py selftest FIXTURE_DIR
  grafana_dash.py compare DASHBOARD --llmon URL --prom URL --gaps FILE [options]
      every query against both; fails when Prometheus has data and llmon has
      none, unless the query or the panel title is listed in FILE
  grafana_dash.py fill DASHBOARD --llmon URL [--per-value VAR,...] [--expect VAR=N,...]
      every query must have data, with the variables on All and then on
      each single value of the --per-value variables
  grafana_dash.py agree DASHBOARD --llmon URL --prom URL --time T --range S [--per-value VAR,...]
                  [--known FILE]
      both sides over the same data: the same variable values, and every
      query (instant at T, and the range query over [T - S, T] where Grafana
      sends one), on All and on each single value of the --per-value
      variables, answers without error, with data from Prometheus (on All),
      and the same series and values (tests/promql/diff/compare.py's rules)
      from llmon; a difference fails unless the query or panel title is in
      FILE
"""
import argparse
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# ---------------------------------------------------------------- dashboard


def walk_panels(panels):
    for p in panels or []:
        if p.get("type") != "row":
            yield p
        yield from walk_panels(p.get("panels"))  # a collapsed row holds its panels


def panels_of(dash):
    out = list(walk_panels(dash.get("panels")))
    for row in dash.get("rows") or []:  # schema before Grafana 5
        out.extend(walk_panels(row.get("panels")))
    return out


def targets_of(dash):
    """(panel, target) for every target Grafana runs: an expr, not hidden."""
    out = []
    for p in panels_of(dash):
        for t in p.get("targets") or []:
            if t.get("expr") and not t.get("hide"):
                out.append((p, t))
    return out


def variables_of(dash):
    return (dash.get("templating") or {}).get("list") or []


def variable_query(v):
    q = v.get("query", "")
    return q.get("query", "") if isinstance(q, dict) else q


LABEL_VALUES = re.compile(r"^label_values\((?:(.+),\s*)?([a-zA-Z_][a-zA-Z0-9_]*)\)\s*$")
QUERY_RESULT = re.compile(r"^query_result\((.+)\)\s*$")
VAR_REF = re.compile(r"\$(\w+)|\[\[(\w+?)(?::(\w+))?\]\]|\$\{(\w+)(?:\.([^:^}]+))?(?::([^}]+))?\}")

# ------------------------------------------------------------ interpolation


def regular_escape(s):
    return s.replace("\\", "\\\\").replace("'", "\\\\'")


def special_regex_escape(s):
    s = s.replace("\\", "\\\\\\\\")
    return re.sub(r"[$^*{}\[\]+?.()|]", lambda m: "\\\\" + m.group(0), s)


def format_value(var, values):
    """Grafana's PrometheusDatasource.interpolateQueryExpr."""
    if not var.get("multi") and not var.get("includeAll"):
        return regular_escape(values[0] if values else "")
    escaped = [special_regex_escape(x) for x in values]
    if len(escaped) == 1:
        return escaped[0]
    return "(" + "|".join(escaped) + ")"


def interpolate(expr, selected, by_name):
    """Dashboard variables; names that are not variables stay (Grafana's templateSrv)."""

    def repl(m):
        name = m.group(1) or m.group(2) or m.group(4)
        if name not in selected:
            return m.group(0)
        return format_value(by_name[name], selected[name])

    return VAR_REF.sub(repl, expr)


ROUND = [(15, 10), (35, 20), (75, 50), (150, 100), (250, 200), (350, 300), (450, 400), (750, 500),
         (1500, 1000), (3500, 2000), (7500, 5000), (12500, 10000), (17500, 15000), (25000, 20000),
         (45000, 30000), (90000, 60000), (210000, 120000), (450000, 300000), (750000, 600000),
         (1050000, 900000), (1500000, 1200000), (2700000, 1800000), (5400000, 3600000),
         (9000000, 7200000), (16200000, 10800000), (32400000, 21600000), (86400000, 43200000)]


def round_interval_ms(ms):
    for limit, value in ROUND:
        if ms <= limit:
            return value
    return 86400000


def parse_duration_ms(s):
    total = 0
    for num, unit in re.findall(r"(\d+)(ms|s|m|h|d|w|y)", s):
        total += int(num) * {"ms": 1, "s": 1000, "m": 60000, "h": 3600000, "d": 86400000,
                             "w": 604800000, "y": 31536000000}[unit]
    return total


def grafana_duration(ms):
    """intervalv2.FormatDuration: the largest unit that divides evenly."""
    for unit, size in (("y", 31536000000), ("w", 604800000), ("d", 86400000), ("h", 3600000),
                       ("m", 60000), ("s", 1000)):
        if ms >= size and ms % size == 0:
            return "%d%s" % (ms // size, unit)
    return "%dms" % ms


def go_duration(ms):
    """Go's time.Duration.String() for whole milliseconds (what $__rate_interval becomes)."""
    if ms < 1000:
        return "%dms" % ms
    h, rest = divmod(ms, 3600000)
    m, rest = divmod(rest, 60000)
    s = rest / 1000.0
    sec = ("%d" % s) if rest % 1000 == 0 else ("%g" % s)
    if h:
        return "%dh%dm%ss" % (h, m, sec)
    if m:
        return "%dm%ss" % (m, sec)
    return "%ss" % sec


def step_ms_of(panel, target, range_ms, scrape_ms, max_points):
    """(interval, step) in ms: Grafana's interval for the panel, the step of its range query."""
    min_ms = parse_duration_ms(target.get("interval") or panel.get("interval") or "") or scrape_ms
    interval_ms = max(round_interval_ms(range_ms / max_points), min_ms)
    return interval_ms, int(interval_ms * float(target.get("intervalFactor") or 1))


def builtins(expr, panel, target, range_ms, scrape_ms, max_points):
    """$__interval, $__rate_interval, $__range as Grafana's backend replaces them."""
    interval_ms, step_ms = step_ms_of(panel, target, range_ms, scrape_ms, max_points)
    rate_ms = max(interval_ms + scrape_ms, 4 * scrape_ms)
    range_s = int(round(range_ms / 1000.0))
    for name, value in (("$__interval_ms", str(step_ms)), ("$__interval", grafana_duration(step_ms)),
                        ("$__range_ms", str(range_ms)), ("$__range_s", str(range_s)),
                        ("$__range", "%ds" % range_s), ("$__rate_interval_ms", str(rate_ms)),
                        ("$__rate_interval", go_duration(rate_ms))):
        expr = expr.replace(name, value)
    return expr


# --------------------------------------------------------------------- HTTP


class Api:
    def __init__(self, base):
        self.base = base.rstrip("/")

    def call(self, path, params, post=False):
        data = urllib.parse.urlencode(params, doseq=True)
        url = self.base + path
        try:
            if post:  # Grafana's default HTTP method
                req = urllib.request.Request(url, data=data.encode(), headers={
                    "Content-Type": "application/x-www-form-urlencoded"})
            else:
                req = urllib.request.Request(url + "?" + data)
            with urllib.request.urlopen(req, timeout=20) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            try:
                return json.load(e)
            except ValueError:
                return {"status": "error", "error": "HTTP %d" % e.code}
        except (OSError, ValueError) as e:
            return {"status": "error", "error": str(e)}

    def query(self, expr, t):
        return self.call("/api/v1/query", {"query": expr, "time": "%.3f" % t}, post=True)

    def query_range(self, expr, start, end, step_s):
        return self.call("/api/v1/query_range", {"query": expr, "start": "%d" % start, "end": "%d" % end,
                                                 "step": "%g" % step_s}, post=True)


def is_range(target):
    """Grafana runs a range query unless the target asks for an instant one only."""
    return target.get("range", not target.get("instant", False))


def has_data(answer):
    if answer.get("status") != "success":
        return False
    d = answer.get("data") or {}
    if d.get("resultType") in ("scalar", "string"):
        return True
    return bool(d.get("result"))


def natural_key(s):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", s)]


def label_values(api, label, metric, start, end, series_api):
    """label_values(metric, label): /api/v1/label/<label>/values?match[]=metric when the data
    source is set to a Prometheus version with that API (>= 2.24), else /api/v1/series?match[]=
    and the label's distinct values (Grafana's default when no version is set)."""
    params = {"start": "%d" % start, "end": "%d" % end}
    if metric:
        params["match[]"] = metric
    if series_api and metric:
        ans = api.call("/api/v1/series", params)
        seen = []
        for series in ans.get("data") or [] if ans.get("status") == "success" else []:
            value = series.get(label, "")
            if value and value not in seen:
                seen.append(value)
        return seen
    ans = api.call("/api/v1/label/%s/values" % label, params)
    return [str(x) for x in (ans.get("data") or [])] if ans.get("status") == "success" else []


def resolve(dash, api, start, end, series_api=False):
    """Values of each variable, in templating order, Grafana's way; the selection
    Grafana makes on load with nothing saved: All for includeAll, else the first."""
    by_name, options, selected = {}, {}, {}
    for v in variables_of(dash):
        name, kind = v.get("name"), v.get("type")
        by_name[name] = v
        if kind == "datasource":
            continue
        if kind in ("custom", "constant", "textbox"):  # a textbox's query is its default value
            values = [x.strip() for x in variable_query(v).split(",")] if kind == "custom" else [variable_query(v)]
        elif kind == "query":
            q = interpolate(variable_query(v), selected, by_name)
            values = []
            m, r = LABEL_VALUES.match(q), QUERY_RESULT.match(q)
            if m:
                values = label_values(api, m.group(2), m.group(1), start, end, series_api)
            elif r:
                ans = api.query(r.group(1), end)
                for s in (ans.get("data") or {}).get("result") or []:
                    metric = dict(s.get("metric") or {})
                    text = metric.pop("__name__", "") + "{" + ",".join(
                        '%s="%s"' % kv for kv in metric.items()) + "}"
                    values.append(text + " " + s["value"][1] + " " + str(int(s["value"][0] * 1000)))
            if v.get("regex"):
                rx = re.compile(v["regex"].strip("/"))
                values = [(mm.group(1) if mm.groups() else mm.group(0)) for mm in map(rx.search, values) if mm]
            if v.get("sort") in (1, 2):
                values = sorted(set(values), reverse=v["sort"] == 2)
            elif v.get("sort") in (3, 4):
                values = sorted(set(values), key=natural_key, reverse=v["sort"] == 4)
        else:
            continue
        options[name] = values
        if v.get("includeAll"):
            selected[name] = values
        elif v.get("current", {}).get("value") and kind != "query":
            cur = v["current"]["value"]
            selected[name] = cur if isinstance(cur, list) else [cur]
        else:
            selected[name] = values[:1]
    return by_name, options, selected


class Run:
    def __init__(self, dash, api, t, range_s, scrape_ms, max_points):
        self.dash, self.api, self.t = dash, api, t
        self.range_ms, self.scrape_ms, self.max_points = range_s * 1000, scrape_ms, max_points
        self.by_name, self.options, self.selected = resolve(dash, api, t - range_s, t)
        # The same variables the way Grafana resolves them with no Prometheus version set.
        self.series_options = resolve(dash, api, t - range_s, t, series_api=True)[1]
        self.series_mismatch = [
            "$%s: %s by /api/v1/series, %s by /api/v1/label/%s/values" % (n, self.series_options.get(n), v, n)
            for n, v in self.options.items() if sorted(self.series_options.get(n) or []) != sorted(v)]

    def expr(self, panel, target, selected=None):
        e = interpolate(target["expr"], selected if selected is not None else self.selected, self.by_name)
        return builtins(e, panel, target, self.range_ms, self.scrape_ms, self.max_points)

    def run(self, panel, target, selected=None):
        """The query as an instant query at the range's end: (expr, has data, error)."""
        e = self.expr(panel, target, selected)
        ans = self.api.query(e, self.t)
        return e, has_data(ans), ans.get("error", "")

    def run_range(self, panel, target, selected=None):
        """The query as the range query a time-series panel sends (start and end on multiples of the step)."""
        e = self.expr(panel, target, selected)
        step = step_ms_of(panel, target, self.range_ms, self.scrape_ms, self.max_points)[1] / 1000.0
        end = int(self.t // step * step)
        ans = self.api.query_range(e, end - self.range_ms // 1000, end, step)
        return e, has_data(ans), ans.get("error", "")


# -------------------------------------------------------------- subcommands


def load_gaps(path):
    gaps = {}
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, reason = line.rpartition(" | ")
        if not sep or not key.strip() or not reason.strip():
            sys.exit("%s:%d: want 'query or panel title | reason'" % (path, n))
        gaps[key.strip()] = reason.strip()
    return gaps


def gap_key(panel, target, gaps):
    """The known-gaps entry that covers this query: its expr, else its panel's title; None."""
    for key in (target["expr"], panel.get("title", "")):
        if key in gaps:
            return key
    return None


def common_args(ap):
    ap.add_argument("dashboard")
    ap.add_argument("--llmon", required=True)
    ap.add_argument("--range", type=int, default=300, help="dashboard time range, seconds (now-5m)")
    ap.add_argument("--scrape-interval", default="1s", help="the data source's Scrape interval setting")
    ap.add_argument("--max-data-points", type=int, default=1000, help="panel width in pixels")
    ap.add_argument("--time", type=float, default=0, help="evaluation time (default: now - 1 s)")


def start(args):
    dash = json.load(open(args.dashboard))
    t = args.time or time.time() - 1
    return dash, t, parse_duration_ms(args.scrape_interval)


def describe(side, run):
    for name, values in run.options.items():
        print("  %-6s $%s: %d value(s) %s; selected %s" % (
            side, name, len(values), values[:8], run.selected.get(name, [])[:8]))
    for m in run.series_mismatch:
        print("  %-6s VARIABLES DIFFER: %s" % (side, m))
    if not run.series_mismatch:
        print("  %-6s the same values through /api/v1/series (Grafana without a Prometheus version set)" % side)


def cmd_compare(args):
    dash, t, scrape_ms = start(args)
    gaps = load_gaps(args.gaps)
    lm = Run(dash, Api(args.llmon), t, args.range, scrape_ms, args.max_data_points)
    pr = Run(dash, Api(args.prom), t, args.range, scrape_ms, args.max_data_points)
    title = dash.get("title", args.dashboard)
    print("%s: variables" % title)
    describe("llmon", lm)
    describe("prom", pr)
    rows, used = [], {}
    range_rows = 0
    for panel, target in targets_of(dash):
        le, ld, lerr = lm.run(panel, target)
        _, pd, perr = pr.run(panel, target)
        if is_range(target):  # a time-series panel: the range query too; data in both or it counts as none
            range_rows += 1
            _, rld, rlerr = lm.run_range(panel, target)
            _, rpd, rperr = pr.run_range(panel, target)
            if ld != rld or pd != rpd:
                print("  instant and range query disagree: [%s] %s (llmon %s/%s, prometheus %s/%s)" % (
                    panel.get("title"), le, ld, rld, pd, rpd))
            ld, pd, lerr, perr = ld and rld, pd and rpd, lerr or rlerr, perr or rperr
        rows.append((panel, target, ld, pd, lerr, perr, le))
    unexpected, llmon_only = [], []
    for panel, target, ld, pd, lerr, perr, le in rows:
        key = gap_key(panel, target, gaps)
        listed = key is not None
        if listed:
            used.setdefault(key, []).append("gap" if pd and not ld else "filled" if ld else "empty")
        if pd and not ld and not listed:
            unexpected.append((panel, target, lerr, le))
        if ld and not pd:
            llmon_only.append((panel, target, perr))
    m = len(rows)
    n = sum(1 for r in rows if r[2])
    k = sum(1 for r in rows if r[3])
    panels = {}
    for panel, target, ld, pd, *_ in rows:
        p = panels.setdefault(id(panel), [False, False])
        p[0] |= ld
        p[1] |= pd
    pn = sum(1 for v in panels.values() if v[0])
    pk = sum(1 for v in panels.values() if v[1])
    print("%s: llmon %d of %d queries with data, Prometheus %d of %d (%d of them also as range queries)" % (
        title, n, m, k, m, range_rows))
    print("%s: llmon %d of %d panels with data, Prometheus %d of %d" % (title, pn, len(panels), pk, len(panels)))
    if args.verbose:
        for panel, target, ld, pd, lerr, perr, le in rows:
            if not ld and not pd:
                print("  no data on either side: [%s] %s" % (panel.get("title"), target["expr"]))
    for panel, target, perr in llmon_only:
        print("  llmon only: [%s] %s%s" % (
            panel.get("title"), target["expr"], (" (prometheus: %s)" % perr) if perr else ""))
    for key, reason in gaps.items():
        if key not in used:
            print("  known gap not in this dashboard: %s" % key)
        elif "gap" not in used[key] and "filled" in used[key]:
            print("  known gap no longer a gap, llmon has the data (remove it): %s" % key)
        elif "gap" not in used[key]:
            print("  known gap not exercised on this host (no data on either side): %s" % key)
    for panel, target, lerr, le in unexpected:
        print("  NO DATA from llmon where Prometheus has data: [%s] %s%s" % (
            panel.get("title"), le, (" (llmon: %s)" % lerr) if lerr else ""))
    listed = sum(1 for r in rows if gap_key(r[0], r[1], gaps) and r[3] and not r[2])
    print("%s: %d queries without llmon data are known gaps (%s)" % (title, listed, args.gaps))
    return 1 if unexpected or lm.series_mismatch else 0


def cmd_fill(args):
    dash, t, scrape_ms = start(args)
    run = Run(dash, Api(args.llmon), t, args.range, scrape_ms, args.max_data_points)
    title = dash.get("title", args.dashboard)
    print("%s: variables" % title)
    describe("llmon", run)
    bad = list(run.series_mismatch)
    for spec in filter(None, (args.expect or "").split(",")):
        name, _, want = spec.partition("=")
        got = len(run.options.get(name, []))
        if got != int(want):
            bad.append("$%s has %d values, want %s: %s" % (name, got, want, run.options.get(name)))
    selections = [("All", run.selected)]
    for name in filter(None, (args.per_value or "").split(",")):
        for value in run.options.get(name, []):
            sel = dict(run.selected)
            sel[name] = [value]
            selections.append(("%s=%s" % (name, value), sel))
    targets = targets_of(dash)
    gaps = load_gaps(args.gaps) if args.gaps else {}
    total = filled = listed = 0
    gap_filled = set()
    for label, sel in selections:
        for panel, target in targets:
            e, ok, err = run.run(panel, target, sel)
            which = "instant"
            if ok and is_range(target):
                e, ok, err = run.run_range(panel, target, sel)
                which = "range"
            if not ok:
                err = "%s query%s" % (which, (": " + err) if err else "")
            total += 1
            filled += ok
            key = gap_key(panel, target, gaps)
            if key and ok:
                gap_filled.add(key)
            elif key:
                listed += 1
            elif not ok:
                bad.append("[%s] (%s) %s%s" % (panel.get("title"), label, e, (" (%s)" % err) if err else ""))
    print("%s: llmon %d of %d queries with data (%d panel queries x %d variable selections)" % (
        title, filled, total, len(targets), len(selections)))
    if gaps:
        print("%s: %d queries without data are known gaps (%s)" % (title, listed, args.gaps))
    for key in sorted(gap_filled):
        bad.append("known gap %r has data now: remove it from %s" % (key, args.gaps))
    for b in bad:
        print("  FAIL: " + b)
    return 1 if bad else 0


def cmd_agree(args):
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "promql", "diff"))
    import compare  # the answers' comparison of the PromQL differential test

    dash, t, scrape_ms = start(args)
    known = load_gaps(args.known) if args.known else {}
    lm = Run(dash, Api(args.llmon), t, args.range, scrape_ms, args.max_data_points)
    pr = Run(dash, Api(args.prom), t, args.range, scrape_ms, args.max_data_points)
    title = dash.get("title", args.dashboard)
    print("%s: variables" % title)
    describe("llmon", lm)
    describe("prom", pr)
    print("  (differences below: A is Prometheus, B is llmon)")
    bad = ["llmon " + m for m in lm.series_mismatch] + ["Prometheus " + m for m in pr.series_mismatch]
    for name, values in pr.options.items():
        if not values:
            bad.append("$%s has no values in Prometheus: the data do not cover the dashboard" % name)
        if lm.options.get(name) != values:
            bad.append("$%s: llmon %s, Prometheus %s" % (name, lm.options.get(name), values))
    selections = [("All", pr.selected)]
    for name in filter(None, args.per_value.split(",")):
        for value in pr.options.get(name, []):
            sel = dict(pr.selected)
            sel[name] = [value]
            selections.append(("%s=%s" % (name, value), sel))
    targets = targets_of(dash)
    requests = agreed = 0
    used = set()
    for label, sel in selections:
        for panel, target in targets:
            expr = pr.expr(panel, target, sel)
            cases = [("instant", {"kind": "instant", "query": expr, "params": {"time": "%.3f" % t}})]
            if is_range(target):
                step = step_ms_of(panel, target, pr.range_ms, scrape_ms, args.max_data_points)[1] / 1000.0
                end = int(t // step * step)
                cases.append(("range", {"kind": "range", "query": expr, "params": {
                    "start": "%d" % (end - args.range), "end": "%d" % end, "step": "%g" % step}}))
            for kind, case in cases:
                requests += 1
                a = compare.ask(args.prom, case, 30)
                b = compare.ask(args.llmon, case, 30)
                problems = compare.compare_answers(a, b, False)
                if a.status() != "success":
                    problems.insert(0, "Prometheus: %s" % a.describe())
                elif not has_data(a.body) and label == "All":  # one value may rightly have none
                    problems.insert(0, "no data from Prometheus: the data do not cover this query")
                key = gap_key(panel, target, known)
                if key and problems:
                    used.add(key)
                    print("  known failure (%s): [%s] (%s, %s) %s" % (known[key], panel.get("title"), label, kind, expr))
                elif problems:
                    bad.append("[%s] (%s, %s) %s\n      %s" % (panel.get("title"), label, kind, expr,
                                                             "\n      ".join(problems)))
                else:
                    agreed += 1
    print("%s: %d panel queries x %d variable selections: %d requests (instant and range), %d agree" % (
        title, len(targets), len(selections), requests, agreed))
    for key in sorted(set(known) - used):
        if any(gap_key(p, tg, {key: ""}) for p, tg in targets):
            bad.append("known failure %r agrees now: remove it from %s" % (key, args.known))
    for b in bad:
        print("  FAIL: " + b)
    return 1 if bad else 0


def cmd_selftest(args):
    """The extractor and the interpolation on the fixtures and on Grafana's own rules."""
    fails = []

    def check(cond, what):
        if not cond:
            fails.append(what)

    nef = json.load(open(os.path.join(args.fixtures, "node-exporter-full.json")))
    check(len([p for p in walk_panels(nef["panels"])]) == 116, "Node Exporter Full: 116 panels")
    check(len(targets_of(nef)) == 242, "Node Exporter Full: 242 visible targets (249, 7 hidden)")
    check(any(p.get("title") == "Memory Vmalloc" for p in panels_of(nef)), "a panel nested in a collapsed row")
    names = [v["name"] for v in variables_of(nef)]
    check(names == ["datasource", "job", "node", "diskdevices"], "Node Exporter Full variables: %s" % names)
    old = {"rows": [{"panels": [{"type": "graph", "targets": [{"expr": "up", "refId": "A"},
                                                               {"expr": "x", "refId": "B", "hide": True}]}]}]}
    check([t["expr"] for _, t in targets_of(old)] == ["up"], "old rows schema, hidden target skipped")
    for f in ("dcgm-exporter-12239.json", "dcgm-exporter-nvidia.json"):
        d = json.load(open(os.path.join(args.fixtures, f)))
        check(len(targets_of(d)) == 8, "%s: 8 targets" % f)
    m = LABEL_VALUES.match("label_values(node_uname_info{job=\"$job\"}, instance)")
    check(m and m.group(1) == 'node_uname_info{job="$job"}' and m.group(2) == "instance", "label_values(metric, label)")
    m = LABEL_VALUES.match("label_values(gpu)")
    check(m and m.group(1) is None and m.group(2) == "gpu", "label_values(label)")
    multi = {"name": "instance", "multi": True, "includeAll": True}
    single = {"name": "job", "multi": False}
    by = {"instance": multi, "job": single}
    got = interpolate('x{instance=~"$instance",job="${job}"}', {"instance": ["a.b:9100", "c:1"], "job": ["node"]}, by)
    check(got == 'x{instance=~"(a\\\\.b:9100|c:1)",job="node"}', "multi-value as escaped alternation: %s" % got)
    got = interpolate('x{instance=~"$instance"}', {"instance": ["h.x:1"]}, by)
    check(got == 'x{instance=~"h\\\\.x:1"}', "one value of a multi variable: %s" % got)
    check(interpolate("rate(x[$__rate_interval])", {}, by) == "rate(x[$__rate_interval])",
          "built-ins left to the backend")
    p, t = {}, {"expr": ""}
    check(builtins("[$__rate_interval]", p, t, 300000, 1000, 1000) == "[4s]", "$__rate_interval, 5 m at 1 s scrape")
    check(builtins("[$__rate_interval]", p, t, 86400000, 15000, 1000) == "[1m15s]", "$__rate_interval, 24 h at 15 s")
    check(builtins("[$__interval] $__range", p, t, 3600000, 15000, 1000) == "[15s] 3600s", "$__interval, $__range")
    check(builtins("[$__interval]", {"interval": "1m"}, t, 3600000, 15000, 1000) == "[1m]",
          "a panel's min interval raises $__interval")

    class FakeApi:
        def __init__(self):
            self.matches = []

        def call(self, path, params, post=False):
            self.matches.append(params.get("match[]"))
            return {"status": "success", "data": ["b.x:8000", "a.x:8000", "a.x:8001"]}

    fake = FakeApi()
    dash = {"templating": {"list": [
        {"name": "prefix", "type": "textbox", "query": "trainer"},
        {"name": "host", "type": "query", "query": "label_values(${prefix}_step_count, instance)",
         "regex": "/^([^:]+)/", "includeAll": True, "multi": True, "sort": 1}]}}
    _, opts, sel = resolve(dash, fake, 0, 1)
    check(fake.matches == ["trainer_step_count"], "a textbox's value in a later variable's query: %s" % fake.matches)
    check(opts.get("host") == ["a.x", "b.x"] and sel.get("prefix") == ["trainer"],
          "regex capture, sorted and deduplicated: %s %s" % (opts, sel))
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as g:
        g.write("# comment\n\nnode_load1{instance=\"$node\"} | one query\nEntropy | a whole panel\n")
    gaps = load_gaps(g.name)
    os.unlink(g.name)
    expr = 'node_load1{instance="$node"}'
    check(gap_key({"title": "System Load"}, {"expr": expr}, gaps) == expr, "a gap keyed by its query")
    check(gap_key({"title": "Entropy"}, {"expr": "x"}, gaps) == "Entropy", "a gap keyed by its panel title")
    check(gap_key({"title": "CPU"}, {"expr": "x"}, gaps) is None, "not a gap")
    for f in fails:
        print("selftest FAIL: " + f)
    print("selftest: %d checks failed" % len(fails))
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("selftest")
    s.add_argument("fixtures")
    c = sub.add_parser("compare")
    common_args(c)
    c.add_argument("--prom", required=True)
    c.add_argument("--gaps", required=True)
    c.add_argument("--verbose", action="store_true", help="also list the queries without data on either side")
    f = sub.add_parser("fill")
    common_args(f)
    f.add_argument("--per-value", default="")
    f.add_argument("--expect", default="")
    f.add_argument("--gaps", default="", help="queries or panel titles allowed to be empty (QUERY | reason)")
    a = sub.add_parser("agree")
    common_args(a)
    a.add_argument("--prom", required=True)
    a.add_argument("--per-value", default="")
    a.add_argument("--known", default="", help="queries or panel titles known to differ (QUERY | reason)")
    args = ap.parse_args()
    return {"selftest": cmd_selftest, "compare": cmd_compare, "fill": cmd_fill, "agree": cmd_agree}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
