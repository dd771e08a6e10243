#!/usr/bin/env python3
"""Checks whether a VictoriaMetrics server gives back the samples of FILE bit for bit, for
bench/tsdb_compare.sh: exports everything (/api/v1/export, JSON lines) and compares each sample
with FILE (Prometheus text with ms timestamps, as imported). llmon and Prometheus store float64
values exactly; VictoriaMetrics converts values to a decimal mantissa and exponent, so a value
with more significant digits than it keeps comes back rounded (e.g. 0.0016763158169370155 ->
0.001676315816937), and part of its bytes/sample advantage on float data comes from that.
Prints one JSON line: samples in FILE, exported, compared, missing, changed, the largest relative
change and one example. With OUT, also writes the exported samples as Prometheus text with ms
timestamps (series grouped, time order), so llmon can be measured on the values VictoriaMetrics
kept.
Usage: tsdb_vm_roundtrip.py BASE_URL FILE [OUT]
"""
import json, math, re, sys, urllib.parse, urllib.request

PAIR = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def unescape(v):
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), v)


def key_of_text(series):
    b = series.find("{")
    if b < 0:
        return (series, ())
    # An empty value means "no such label" (VictoriaMetrics and Prometheus drop it).
    return (series[:b], tuple(sorted((n, unescape(v)) for n, v in PAIR.findall(series[b:]) if v)))


def esc(v):
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def fmt(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


def main():
    base, path = sys.argv[1], sys.argv[2]
    out = open(sys.argv[3], "w", encoding="utf-8") if len(sys.argv) > 3 else None
    src = {}
    for line in open(path, encoding="utf-8"):
        if not line or line[0] == "#":
            continue
        series, v, t = line.rstrip("\n").rsplit(" ", 2)
        src[(key_of_text(series), int(t))] = float(v)
    url = base + "/api/v1/export?" + urllib.parse.urlencode({"match[]": '{__name__=~".+"}'})
    exported = compared = changed = 0
    worst, example = 0.0, None
    with urllib.request.urlopen(url, timeout=300) as r:
        for line in r:
            d = json.loads(line)
            m = d["metric"]
            name = m.pop("__name__")
            k = (name, tuple(sorted(m.items())))
            if out is not None:
                text = name + ("{" + ",".join(f'{a}="{esc(b)}"' for a, b in k[1]) + "}" if k[1] else "")
                out.write("".join(f"{text} {fmt(v)} {t}\n" for t, v in sorted(zip(d["timestamps"], d["values"]))))
            for t, v in zip(d["timestamps"], d["values"]):
                exported += 1
                s = src.get((k, t))
                if s is None:
                    continue
                compared += 1
                if (s != v) and not (math.isnan(s) and (v is None or math.isnan(v))):
                    changed += 1
                    rel = abs(s - v) / abs(s) if s not in (0, float("inf"), float("-inf")) else float("inf")
                    if example is None or rel > worst:
                        worst, example = rel, [f"{name}{dict(m)}", t, repr(s), repr(v)]
    if out is not None:
        out.close()
    print(json.dumps({"file": path, "samples": len(src), "exported": exported, "compared": compared,
                      "missing": len(src) - compared, "changed": changed,
                      "changed_pct": round(100 * changed / max(1, compared), 2), "max_rel_change": worst,
                      "example": example}))


if __name__ == "__main__":
    main()
