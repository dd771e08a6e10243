#!/usr/bin/env python3
"""Differential check of llmon's /metrics page against node_exporter's.

Both exporters read the same fixture tree; this script parses both pages
(Prometheus text format 0.0.4) and reports, per family and per series:

  * TYPE and HELP of every shared family must agree;
  * a shared family must have the same label names on both sides;
  * every series both expose (same name, same label set) must have the same
    value: exactly (NaN equals NaN), except for the few time-varying families
    in TOLERANCES below;
  * a series one side has and the other lacks, in a shared family, is a
    failure (except node_scrape_collector_* series of collectors only one side
    runs);
  * a node_exporter family missing from llmon is a failure when it belongs to
    a collector llmon runs (one named in llmon's node_scrape_collector_success;
    the family-to-collector map comes from node_exporter's own
    /metrics?collect[]=NAME pages), otherwise a note;
  * differences matched by a line of the known-diffs file
    ("REGEX  reason": REGEX full-matches the family name or the series as
    name{l="v",...}) are reported as known, not as failures.

Standard library only. Exit status: 0 no failures, 1 failures, 2 usage or
fetch/parse error. Inputs are URLs (http://...) or files.
"""

import argparse
import math
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

# name regex -> (absolute tolerance, relative tolerance); None = value not compared.
# Only families whose value is read from the live system at scrape time (so two
# exporters scraping a few milliseconds apart legitimately differ) are here.
TOLERANCES = [
    # Wall clock, read by each exporter at its own scrape time.
    (re.compile(r"node_time_seconds"), (5.0, 0.0)),
    # How long each exporter's collector took: not comparable.
    (re.compile(r"node_scrape_collector_duration_seconds"), None),
    # statfs() of fixture directories reports the live disk under the checkout,
    # which other processes write to between the two scrapes.
    (re.compile(r"node_filesystem_(free|avail)_bytes"), (0.0, 0.01)),
    (re.compile(r"node_filesystem_files_free"), (0.0, 0.01)),
]

# Families that describe the exporter itself rather than a collector.
META_FAMILY = re.compile(r"(go_|process_|promhttp_|node_exporter_build_info$|node_scrape_collector_|llmon_)")
SCRAPE_FAMILIES = ("node_scrape_collector_duration_seconds", "node_scrape_collector_success")

SUFFIXES = {"summary": ("_sum", "_count"), "histogram": ("_bucket", "_sum", "_count")}


class ParseError(Exception):
    pass


class Family:
    def __init__(self, name):
        self.name = name
        self.help = None
        self.type = None  # None = no TYPE line (untyped)
        self.series = {}  # (sample_name, labels tuple) -> value

    def label_names(self):
        return sorted({tuple(sorted(k for k, _ in labels)) for _, labels in self.series})


def series_id(name, labels):
    return name + ("{" + ",".join('%s="%s"' % (k, escape(v)) for k, v in labels) + "}" if labels else "")


def escape(v):
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def parse_value(s, where):
    try:
        return float(s)  # accepts NaN, +Inf, -Inf, 1e+06 like Go's ParseFloat
    except ValueError:
        raise ParseError("%s: bad value %r" % (where, s))


def parse_labels(line, i, where):
    """Parses {k="v",...} starting at line[i] == '{'. Returns (labels, next index)."""
    labels = []
    i += 1
    n = len(line)
    while True:
        while i < n and line[i] in " \t":
            i += 1
        if i < n and line[i] == "}":
            return labels, i + 1
        m = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*").match(line, i)
        if not m:
            raise ParseError("%s: bad label name at column %d" % (where, i + 1))
        key = m.group(0)
        i = m.end()
        while i < n and line[i] in " \t":
            i += 1
        if line[i : i + 2] != '="':
            raise ParseError("%s: expected =\" after label %s" % (where, key))
        i += 2
        val = []
        while True:
            if i >= n:
                raise ParseError("%s: unterminated label value" % where)
            c = line[i]
            if c == "\\":
                if i + 1 >= n:
                    raise ParseError("%s: dangling backslash" % where)
                nxt = line[i + 1]
                val.append({"n": "\n", "\\": "\\", '"': '"'}.get(nxt, "\\" + nxt))
                i += 2
            elif c == '"':
                i += 1
                break
            else:
                val.append(c)
                i += 1
        labels.append((key, "".join(val)))
        while i < n and line[i] in " \t":
            i += 1
        if i < n and line[i] == ",":
            i += 1
        elif i < n and line[i] == "}":
            continue
        else:
            raise ParseError("%s: expected , or } after label %s" % (where, key))


def unescape_help(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append({"n": "\n", "\\": "\\"}.get(s[i + 1], "\\" + s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def parse_page(text, source):
    """Returns (families by name, list of problems such as duplicate series)."""
    families = {}
    problems = []
    current = None

    def family(name):
        f = families.get(name)
        if f is None:
            f = families[name] = Family(name)
        return f

    for lineno, raw in enumerate(text.split("\n"), 1):
        where = "%s:%d" % (source, lineno)
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                f = family(parts[2])
                rest = parts[3] if len(parts) > 3 else ""
                if parts[1] == "HELP":
                    f.help = unescape_help(rest)
                else:
                    if f.type is not None:
                        problems.append("%s: second TYPE line for %s" % (where, f.name))
                    f.type = rest.strip()
                current = f
            continue
        m = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*").match(line)
        if not m:
            raise ParseError("%s: bad metric name" % where)
        name = m.group(0)
        i = m.end()
        labels = []
        if i < len(line) and line[i] == "{":
            labels, i = parse_labels(line, i, where)
        fields = line[i:].split()
        if not fields or len(fields) > 2:
            raise ParseError("%s: expected value [timestamp]" % where)
        value = parse_value(fields[0], where)
        fam = None
        if current is not None:
            if name == current.name or any(name == current.name + s for s in SUFFIXES.get(current.type or "", ())):
                fam = current
        if fam is None:
            fam = family(name)
            current = fam
        key = (name, tuple(sorted(labels)))
        if key in fam.series:
            problems.append("%s: duplicate series %s" % (where, series_id(*key)))
        fam.series[key] = value
    return families, problems


def load(src):
    if re.match(r"https?://", src):
        try:
            with urllib.request.urlopen(src, timeout=20) as r:
                return r.read().decode("utf-8")
        except (urllib.error.URLError, OSError) as e:
            raise ParseError("GET %s: %s" % (src, e))
    with open(src, encoding="utf-8") as f:
        return f.read()


def load_known(path):
    known = []
    if not path:
        return known
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            try:
                rx = re.compile(parts[0])
            except re.error as e:
                raise ParseError("%s:%d: bad regex: %s" % (path, lineno, e))
            known.append((rx, parts[1].strip() if len(parts) > 1 else "(no reason given)", parts[0]))
    return known


def values_equal(name, a, b):
    for rx, tol in TOLERANCES:
        if rx.fullmatch(name):
            if tol is None:
                return True, "not compared"
            abs_tol, rel_tol = tol
            if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
                return (math.isnan(a) and math.isnan(b)) or a == b, "tolerance"
            return abs(a - b) <= max(abs_tol, rel_tol * max(abs(a), abs(b))), "tolerance"
    if math.isnan(a) and math.isnan(b):
        return True, "exact"
    return a == b, "exact"


def fmt(v):
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if v == int(v) and abs(v) < 1e21:
        return "%d" % v
    return repr(v)


def collector_families(base_url, collectors):
    """For each collector name: the families node_exporter's ?collect[]=NAME page
    holds (meta families removed), or None when node_exporter does not run it."""
    out = {}
    for c in collectors:
        url = base_url + ("&" if "?" in base_url else "?") + urllib.parse.urlencode({"collect[]": c})
        try:
            with urllib.request.urlopen(url, timeout=20) as r:
                text = r.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            if e.code == 400:  # missing or disabled collector
                out[c] = None
                continue
            raise ParseError("GET %s: %s" % (url, e))
        except (urllib.error.URLError, OSError) as e:
            raise ParseError("GET %s: %s" % (url, e))
        fams, _ = parse_page(text, url)
        out[c] = {n for n, f in fams.items() if f.series and not META_FAMILY.match(n)}
    return out


class Report:
    def __init__(self, known, a_name, b_name):
        self.known = known
        self.a, self.b = a_name, b_name
        self.failures = []
        self.known_hits = []
        self.notes = []
        self.used_known = set()
        self.only_on = {}  # side -> families only that side has (notes)

    def _known(self, family, sid):
        for rx, reason, src in self.known:
            if rx.fullmatch(family) or (sid and rx.fullmatch(sid)):
                self.used_known.add(src)
                return reason
        return None

    def fail(self, family, sid, msg):
        reason = self._known(family, sid)
        if reason is not None:
            self.known_hits.append("%s  [known: %s]" % (msg, reason))
            return False
        self.failures.append(msg)
        return True

    def note(self, msg):
        self.notes.append(msg)


def scrape_collector(labels):
    return dict(labels).get("collector")


def compare(ne, ll, claimed, attribution, report, show_limit):
    a, b = report.a, report.b
    n_series = n_equal = n_differ = n_known = 0
    n_families = 0

    ne_collectors = {scrape_collector(l) for _, l in ne.get("node_scrape_collector_success", Family("")).series}
    family_collector = {}
    for c, fams in (attribution or {}).items():
        for f in fams or ():
            family_collector.setdefault(f, c)

    for name in sorted(set(ne) | set(ll)):
        fa, fb = ne.get(name), ll.get(name)
        if fa is not None and not fa.series:
            fa = None
        if fb is not None and not fb.series:
            fb = None
        if fa is None and fb is None:
            continue
        if fb is None:
            c = family_collector.get(name)
            if c is not None and c in claimed:
                report.fail(name, None, "missing family: %s (%d series) from collector %s is on %s's page, not on %s's"
                            % (name, len(fa.series), c, a, b))
            else:
                report.only_on.setdefault(a, []).append(name + (" (collector %s)" % c if c else ""))
            continue
        if fa is None:
            report.only_on.setdefault(b, []).append(name)
            continue

        n_families += 1
        if (fa.type or "untyped") != (fb.type or "untyped"):
            report.fail(name, None, "TYPE differs: %s: %s=%s %s=%s" % (name, a, fa.type, b, fb.type))
        if fa.help != fb.help:
            report.fail(name, None, "HELP differs: %s:\n    %s: %r\n    %s: %r" % (name, a, fa.help, b, fb.help))
        la, lb = fa.label_names(), fb.label_names()
        if la != lb:
            ex_a = [series_id(*k) for k in list(fa.series)[:3]]
            ex_b = [series_id(*k) for k in list(fb.series)[:3]]
            if report.fail(name, None, "label names differ: %s\n    %s: %s\n    %s: %s\n    e.g. %s: %s\n    e.g. %s: %s"
                           % (name, a, la, b, lb, a, " ".join(ex_a), b, " ".join(ex_b))):
                n_differ += len(fa.series)
            else:
                n_known += len(fa.series)
            continue

        only_a = [k for k in fa.series if k not in fb.series]
        only_b = [k for k in fb.series if k not in fa.series]
        if name in SCRAPE_FAMILIES:
            # Series of collectors only one side runs are expected.
            only_a_kept = [k for k in only_a if scrape_collector(k[1]) in claimed]
            only_b_kept = [k for k in only_b if scrape_collector(k[1]) in ne_collectors]
            if name == "node_scrape_collector_success":
                for side, keys, kept in ((a, only_a, only_a_kept), (b, only_b, only_b_kept)):
                    names = sorted(scrape_collector(k[1]) for k in keys if k not in kept)
                    if names:
                        report.note("collectors only %s runs (%d): %s" % (side, len(names), ", ".join(names)))
            only_a, only_b = only_a_kept, only_b_kept
        for keys, have, lack, fam in ((only_a, a, b, fb), (only_b, b, a, fa)):
            if not keys:
                continue
            failed = 0
            lines = []
            for k in keys:
                sid = series_id(*k)
                if report._known(name, sid) is not None:
                    report.known_hits.append("series only on %s: %s  [known: %s]" % (have, sid, report._known(name, sid)))
                    n_known += 1
                    continue
                failed += 1
                if len(lines) < show_limit:
                    lines.append("      " + sid + " " + fmt((fa if have == a else fb).series[k]))
            if failed:
                other = ["      " + series_id(*k) for k in list(fam.series)[:show_limit]]
                report.failures.append(
                    "series only on %s (%d) in %s:\n%s%s\n    %s has:\n%s%s"
                    % (have, failed, name, "\n".join(lines), "\n      ..." if failed > len(lines) else "", lack,
                       "\n".join(other), "\n      ..." if len(fam.series) > len(other) else ""))
                n_differ += failed

        for k, va in fa.series.items():
            if k not in fb.series:
                continue
            vb = fb.series[k]
            n_series += 1
            ok, _ = values_equal(k[0], va, vb)
            if ok:
                n_equal += 1
                continue
            sid = series_id(*k)
            if report.fail(name, sid, "value differs: %s  %s=%s %s=%s" % (sid, a, fmt(va), b, fmt(vb))):
                n_differ += 1
            else:
                n_known += 1
    return n_series, n_families, n_equal, n_differ, n_known


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--node-exporter", required=True, help="node_exporter page: URL or file")
    p.add_argument("--llmon", required=True, help="llmon page: URL or file")
    p.add_argument("--attribute-url", help="node_exporter /metrics URL; ?collect[]=NAME is appended per collector "
                   "to learn which families each collector llmon runs owns")
    p.add_argument("--attribute-page", action="append", default=[], metavar="COLLECTOR=URL_OR_FILE",
                   help="node_exporter page holding only COLLECTOR's families (instead of --attribute-url)")
    p.add_argument("--known-diffs", help="file of 'REGEX reason' lines")
    p.add_argument("--show", type=int, default=8, help="series shown per failure (default 8)")
    p.add_argument("--quiet-notes", action="store_true", help="do not list notes")
    args = p.parse_args(argv)

    try:
        known = load_known(args.known_diffs)
        ne, ne_problems = parse_page(load(args.node_exporter), "node_exporter")
        ll, ll_problems = parse_page(load(args.llmon), "llmon")
    except (ParseError, OSError) as e:
        print("expo_diff: %s" % e, file=sys.stderr)
        return 2

    report = Report(known, "node_exporter", "llmon")
    for prob in ll_problems:
        report.failures.append("llmon page: " + prob)
    for prob in ne_problems:
        report.note("node_exporter page: " + prob)

    claimed = {scrape_collector(l) for _, l in ll.get("node_scrape_collector_success", Family("")).series}
    claimed.discard(None)
    attribution = None
    if args.attribute_url:
        try:
            attribution = collector_families(args.attribute_url, sorted(claimed))
        except ParseError as e:
            print("expo_diff: %s" % e, file=sys.stderr)
            return 2
    if args.attribute_page:
        attribution = attribution or {}
        for spec in args.attribute_page:
            c, _, src = spec.partition("=")
            try:
                fams, _ = parse_page(load(src), src)
            except (ParseError, OSError) as e:
                print("expo_diff: %s" % e, file=sys.stderr)
                return 2
            attribution[c] = {n for n, f in fams.items() if f.series and not META_FAMILY.match(n)}
    if attribution is not None:
        for c, fams in sorted(attribution.items()):
            if fams is None:
                report.note("collector %s: node_exporter does not run it here (llmon-only or disabled)" % c)
            elif not fams:
                report.note("collector %s: node_exporter emits no families for it on this tree" % c)

    n_series, n_families, n_equal, n_differ, n_known = compare(ne, ll, claimed, attribution, report, args.show)

    print("llmon collectors: %s" % ", ".join(sorted(claimed)))
    if not args.quiet_notes and (report.notes or report.only_on):
        print("\nNOTES (not failures):")
        for n in report.notes:
            print("  " + n)
        for side, names in sorted(report.only_on.items()):
            print("  families only on %s (%d): %s" % (side, len(names), ", ".join(names)))
    if report.known_hits:
        print("\nKNOWN DIFFERENCES (from %s):" % args.known_diffs)
        for k in report.known_hits:
            print("  " + k)
    unused = [src for _, _, src in known if src not in report.used_known]
    if unused:
        print("\nknown-diffs entries that matched nothing (stale?): %s" % ", ".join(unused))
    if report.failures:
        print("\nFAILURES:")
        for f in report.failures:
            print("  " + f)
    print("\ncompared %d series in %d families: %d equal, %d differ, %d known differences, %d failures"
          % (n_series, n_families, n_equal, n_differ, n_known, len(report.failures)))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
