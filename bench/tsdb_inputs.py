#!/usr/bin/env python3
"""Inputs for bench/tsdb_compare.sh: the same samples in the two text forms the three stores import.

  tsdb_inputs.py om IN.prom OUT.om
      Prometheus text with ms timestamps ("name{labels} value t_ms", one sample a line, series
      grouped as bench/chunk_data.py writes them) -> OpenMetrics with timestamps in seconds and
      "# EOF", for `promtool tsdb create-blocks-from openmetrics` (as bench/gen_synth.py does).
      Each metric name must be contiguous (OpenMetrics families): checked, error if not.

  tsdb_inputs.py clean IN.prom OUT.prom
      Drops every sample whose timestamp is not above its series' previous one (keeps the first:
      two recorded cycles rounded to the same second), so that no store sees a duplicate or
      out-of-order sample. Prints how many were dropped.

  tsdb_inputs.py history IN.prom OUT HOURS END_S
      HOURS of 1 s history ending at END_S (unix seconds) for every series of IN.prom, written as
      OUT.prom (ms timestamps, for llmon and VictoriaMetrics) and OUT.om (OpenMetrics, for promtool)
      with identical samples. Each series' recorded values are replayed in order, one per second
      (gaps of the recording closed up), looped as often as needed:
        counters (values never decrease and change at least once) stay continuous: loop k adds
          k * (last - first + mean step), rounded to the recorded number of decimals (so a
          ticks/100 counter stays a 2-decimal number), so they keep growing at the recorded rate;
        everything else (gauges, constants) repeats as recorded (one jump per loop).
      Each series starts at its own phase in the recording (a hash of its labels), so the loop
      seams of different series do not line up. Non-finite values are kept as recorded.
      Prints one line: series, samples, seconds, counters.
"""
import math, re, sys, zlib


def read_series(path):
    """Ordered dict key -> list of (t_ms, value_text), in file order."""
    series = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line or line[0] == "#":
                continue
            line = line.rstrip("\n")
            key, v, t = line.rsplit(" ", 2)
            series.setdefault(key, []).append((int(t), v))
    return series


def name_of(key):
    b = key.find("{")
    return key if b < 0 else key[:b]


def cmd_clean(src, dst):
    last, kept, dropped = {}, 0, 0
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            if not line or line[0] == "#":
                continue
            key, _, t = line.rstrip("\n").rsplit(" ", 2)
            t = int(t)
            if key in last and t <= last[key]:
                dropped += 1
                continue
            last[key] = t
            out.write(line)
            kept += 1
    print(f"clean samples={kept} dropped_not_increasing={dropped} series={len(last)}")


def cmd_om(src, dst):
    seen, last = set(), None
    n = 0
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            if not line or line[0] == "#":
                continue
            key, v, t = line.rstrip("\n").rsplit(" ", 2)
            nm = name_of(key)
            if nm != last:
                if nm in seen:
                    sys.exit(f"{src}: metric {nm} is not contiguous (line {n + 1}); OpenMetrics needs families grouped")
                seen.add(nm)
                last = nm
            ms = int(t)
            out.write(f"{key} {v} {ms // 1000}.{ms % 1000:03d}\n")
            n += 1
        out.write("# EOF\n")
    print(f"om samples={n} families={len(seen)}")


PLAIN = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")


def decimals(texts):
    """Most decimals among plain decimal texts ("12", "0.25"); None if any is not plain."""
    d = 0
    for t in texts:
        if not PLAIN.match(t):
            return None
        if "." in t:
            d = max(d, len(t) - t.index(".") - 1)
    return d


def fmt(x, d):
    if d is not None:
        x = round(x, d)
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def cmd_history(src, out, hours, end_s):
    series = read_series(src)
    n = int(hours * 3600)
    start = end_s - n + 1
    counters = 0
    total = 0
    with open(out + ".prom", "w", encoding="utf-8") as fp, open(out + ".om", "w", encoding="utf-8") as fo:
        for key in series:  # file order: families stay contiguous
            vals_txt = [v for _, v in series[key]]
            vals = [float(v) for v in vals_txt]
            m = len(vals)
            finite = all(math.isfinite(x) for x in vals)
            is_counter = finite and m > 1 and vals[-1] > vals[0] and all(b >= a for a, b in zip(vals, vals[1:]))
            step = (vals[-1] - vals[0]) / (m - 1) if is_counter else 0.0
            span = vals[-1] - vals[0] + step
            dec = decimals(vals_txt) if is_counter else None
            counters += is_counter
            phase = zlib.crc32(key.encode()) % m
            # Whole loops of text, built once per loop index.
            cache = {}

            def loop_text(k):
                if not is_counter or k == 0:
                    return vals_txt
                if k not in cache:
                    cache.clear()
                    cache[k] = [fmt(x + k * span, dec) for x in vals]
                return cache[k]

            prom_lines, om_lines = [], []
            for i in range(n):
                j = i + phase
                k, r = divmod(j, m)
                v = loop_text(k)[r]
                s = start + i
                prom_lines.append(f"{key} {v} {s}000\n")
                om_lines.append(f"{key} {v} {s}\n")
            fp.write("".join(prom_lines))
            fo.write("".join(om_lines))
            total += n
        fo.write("# EOF\n")
    print(f"history series={len(series)} samples={total} seconds={n} start_s={start} end_s={end_s} counters={counters}")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "clean":
        cmd_clean(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "om":
        cmd_om(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == "history":
        cmd_history(sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
