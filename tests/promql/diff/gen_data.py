#!/usr/bin/env python3
"""Deterministic test data for the PromQL differential test (docs/promql-compat.md).

Writes the same samples twice:
  * OpenMetrics text (timestamps in seconds, `# EOF`) for
    `promtool tsdb create-blocks-from openmetrics` (Prometheus), and
  * Prometheus text with millisecond timestamps for `llmon tsdb import`.

The data imitates what a GPU training cluster scrapes: node_exporter series
(CPU counters with 1/100 s resolution, network counters with a reset, disk
counters, memory/load gauges, a filesystem filling up, an info metric),
dcgm-exporter series (DCGM_FI_DEV_*), a trainer's classic histogram with a
restart, a loss gauge with NaN/+Inf/-Inf, series that stop, start late or have
scrape gaps (staleness via the lookback window only: promtool blocks carry no
staleness markers), label sets that collide once __name__ is dropped, and a
1 s-resolution subset for short windows.

Values depend only on --seed and the sample index, never on --end: the same
seed gives the same data shifted in time. Timestamps carry per-target scrape
phases and a few ms of jitter, like real scrapes.

Usage: gen_data.py --end EPOCH_S --openmetrics OUT.om --prom OUT.prom [--meta OUT.json]
"""

import argparse
import json
import math
import random
import sys

SPAN_S = 7200  # main data: [end - SPAN_S, end] at --step-s
FAST_SPAN_S = 1200  # 1 s subset: [end - FAST_SPAN_S, end]

CPU_MODES = ["idle", "iowait", "irq", "nice", "softirq", "steal", "system", "user"]
NODE_HOSTS = ["gpu-node-1", "gpu-node-2"]
GPU_MODEL = "NVIDIA H100 80GB HBM3"
FB_TOTAL_MIB = 81559
HIST_BOUNDS = ["0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"]


def fmt_value(v):
    """Shortest round-trip text of a float, in the spelling both parsers read."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def escape(label_value):
    """Label value escaping shared by both formats: backslash, quote, newline."""
    return label_value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def om_timestamp(ms):
    """Seconds text that promtool's OpenMetrics parser turns back into `ms`.

    Prometheus 2.42 computes int64(float64(text) * 1000), which truncates, so
    "1700000000.123" may come back as ...122. One extra digit (0.1 ms) keeps
    the truncated product on the intended millisecond, and is harmless if the
    parser rounds instead.
    """
    text = "%d.%03d" % (ms // 1000, ms % 1000)
    if int(float(text) * 1000) != ms:
        text += "1"
        assert int(float(text) * 1000) == ms, ms
    return text


class Series:
    __slots__ = ("name", "labels", "family", "samples")

    def __init__(self, name, labels, family):
        self.name = name
        self.labels = labels  # list of (name, value), written in this order
        self.family = family  # (family name, type)
        self.samples = []  # (ms, float)

    def label_text(self):
        if not self.labels:
            return ""
        return "{" + ",".join('%s="%s"' % (k, escape(v)) for k, v in self.labels) + "}"


class Target:
    """One scrape target: its sample timestamps (phase + jitter), its gaps."""

    def __init__(self, rng, start_ms, end_ms, step_ms, phase_ms, gaps=()):
        self.times = []
        t = start_ms + phase_ms
        while t <= end_ms:
            if not any(a <= t < b for a, b in gaps):
                self.times.append(t + rng.randint(0, 9))
            t += step_ms


class Builder:
    def __init__(self, seed, end_s, step_s, fast_step_s):
        self.rng = random.Random(seed)
        self.end_ms = end_s * 1000
        self.start_ms = self.end_ms - SPAN_S * 1000
        self.step_ms = step_s * 1000
        self.fast_step_ms = fast_step_s * 1000
        self.series = []
        self.families = {}  # family -> (type, help)

    def rel(self, s):
        """Absolute ms of `s` seconds after the data start."""
        return self.start_ms + s * 1000

    def add(self, family, mtype, help_text, name, labels):
        self.families.setdefault(family, (mtype, help_text))
        s = Series(name, labels, family)
        self.series.append(s)
        return s

    # -- node_exporter -----------------------------------------------------

    def node(self):
        rng = self.rng
        for hi, host in enumerate(NODE_HOSTS):
            inst = host + ":9100"
            base = [("instance", inst), ("job", "node")]
            # gpu-node-2's exporter is down for 10 minutes (a gap longer than
            # the 5 m lookback).
            gaps = [(self.rel(2400), self.rel(3000))] if hi == 1 else []
            tgt = Target(rng, self.start_ms, self.end_ms, self.step_ms, 1000 + 7377 * hi, gaps)
            self.cpu(tgt, base, 4, hi)
            self.network(tgt, base, hi)
            self.disk(tgt, base, hi)
            self.memory(tgt, base, hi)
            self.load(tgt, base, hi)
            self.filesystem(tgt, base, hi)
            boot = self.add("node_boot_time_seconds", "gauge", "Node boot time, in unixtime.",
                            "node_boot_time_seconds", base)
            uname = self.add("node_uname_info", "gauge", "Labeled system information as provided by the uname system call.",
                             "node_uname_info", base + [("nodename", host), ("release", "6.1.0-%d-amd64" % (17 + hi))])
            # Label values that need escaping (quote, backslash, newline) and UTF-8.
            chip = self.add("node_hwmon_chip_names", "gauge", "Annotation metric for human-readable chip names",
                            "node_hwmon_chip_names",
                            [("chip", "pci0000:00_0000:00:18_3"), ("chip_name", 'k10temp "Tctl"\\probe\nrev %d' % hi),
                             ("location", "Zürich ✓")] + base)
            # A recording-rule style name (colons).
            util = self.add("instance:node_cpu_utilisation:rate5m", "gauge", "Recorded CPU utilisation.",
                            "instance:node_cpu_utilisation:rate5m", base)
            boot_s = self.start_ms // 1000 - 86400 * (3 + hi) + 17
            for i, t in enumerate(tgt.times):
                boot.samples.append((t, float(boot_s)))
                uname.samples.append((t, 1.0))
                chip.samples.append((t, 1.0))
                util.samples.append((t, round(0.3 + 0.25 * math.sin(i / 30.0 + hi) + 0.05 * rng.random(), 4)))

    def cpu(self, tgt, base, ncpu, hi, modes=CPU_MODES):
        rng = self.rng
        for cpu in range(ncpu):
            series = {m: self.add("node_cpu_seconds", "counter", "Seconds the CPUs spent in each mode.",
                                  "node_cpu_seconds_total", base[:1] + [("cpu", str(cpu)), ("mode", m)] + base[1:])
                      for m in modes}
            # Centiseconds since boot, as /proc/stat gives them.
            cs = {m: rng.randint(10**6, 10**8) if m == "idle" else rng.randint(10**3, 10**6) for m in modes}
            if "steal" in cs:
                cs["steal"] = 0  # no hypervisor: a counter that never moves
            prev = None
            for i, t in enumerate(tgt.times):
                if prev is not None:
                    elapsed_cs = (t - prev) // 10
                    busy = 0.15 + 0.6 * (0.5 + 0.5 * math.sin(i / 40.0 + cpu + hi)) * rng.random()
                    shares = {"user": 0.7 * busy, "system": 0.2 * busy, "iowait": 0.05 * busy * rng.random(),
                              "softirq": 0.03 * busy, "irq": 0.01 * busy, "nice": 0.002 * busy if i % 7 == 0 else 0}
                    used = 0
                    for m, share in shares.items():
                        if m in cs:
                            d = int(elapsed_cs * share)
                            cs[m] += d
                            used += d
                    if "idle" in cs:
                        cs["idle"] += max(0, elapsed_cs - used)
                prev = t
                for m in modes:
                    series[m].samples.append((t, cs[m] / 100.0))

    def network(self, tgt, base, hi):
        rng = self.rng
        for dev, rate in (("eth0", 1.2e8), ("lo", 3.0e5)):
            for direction in ("receive", "transmit"):
                s = self.add("node_network_%s_bytes" % direction, "counter",
                             "Network device statistic %s_bytes." % direction,
                             "node_network_%s_bytes_total" % direction, base[:1] + [("device", dev)] + base[1:])
                v = rng.randint(10**9, 10**11)
                reset = hi == 1 and dev == "eth0"
                for t in tgt.times:
                    if reset and t >= self.rel(4321):
                        # gpu-node-2's eth0 driver is reloaded: its counters restart near 0.
                        v, reset = rng.randint(0, 10**6), False
                    else:
                        v += int(rate * 15 * (0.3 + rng.random()))
                    s.samples.append((t, float(v)))

    def disk(self, tgt, base, hi):
        rng = self.rng
        for dev in ("nvme0n1", "sda"):
            labels = base[:1] + [("device", dev)] + base[1:]
            rb = self.add("node_disk_read_bytes", "counter", "The total number of bytes read successfully.",
                          "node_disk_read_bytes_total", labels)
            wb = self.add("node_disk_written_bytes", "counter", "The total number of bytes written successfully.",
                          "node_disk_written_bytes_total", labels)
            io = self.add("node_disk_io_time_seconds", "counter", "Total seconds spent doing I/Os.",
                          "node_disk_io_time_seconds_total", labels)
            r, w, ioms = rng.randint(10**10, 10**12), rng.randint(10**10, 10**12), rng.randint(10**5, 10**8)
            for i, t in enumerate(tgt.times):
                burst = 1 if (i // 20) % 3 == 0 else 0
                r += 4096 * rng.randint(0, 5000 * (1 + 20 * burst))
                w += 4096 * rng.randint(0, 3000 * (1 + 10 * burst))
                ioms += rng.randint(0, 15000 if burst else 800)
                rb.samples.append((t, float(r)))
                wb.samples.append((t, float(w)))
                io.samples.append((t, ioms / 1000.0))

    def memory(self, tgt, base, hi):
        rng = self.rng
        total = (2**30) * (512 if hi == 0 else 1024)
        avail_s = self.add("node_memory_MemAvailable_bytes", "gauge", "Memory information field MemAvailable_bytes.",
                           "node_memory_MemAvailable_bytes", base)
        total_s = self.add("node_memory_MemTotal_bytes", "gauge", "Memory information field MemTotal_bytes.",
                           "node_memory_MemTotal_bytes", base)
        avail = total * 0.6
        for t in tgt.times:
            avail = min(total * 0.95, max(total * 0.05, avail + rng.gauss(0, total * 0.01)))
            avail_s.samples.append((t, float(int(avail) // 4096 * 4096)))
            total_s.samples.append((t, float(total)))

    def load(self, tgt, base, hi):
        rng = self.rng
        l1 = self.add("node_load1", "gauge", "1m load average.", "node_load1", base)
        l5 = self.add("node_load5", "gauge", "5m load average.", "node_load5", base)
        a, b = 2.0 + hi, 2.0 + hi
        for i, t in enumerate(tgt.times):
            a = max(0.0, a + rng.gauss(0, 0.4))
            b = b + (a - b) * 0.2
            l1.samples.append((t, round(a, 2)))
            l5.samples.append((t, round(b, 2)))

    def filesystem(self, tgt, base, hi):
        rng = self.rng
        s = self.add("node_filesystem_avail_bytes", "gauge", "Filesystem space available to non-root users in bytes.",
                     "node_filesystem_avail_bytes",
                     base[:1] + [("device", "/dev/nvme0n1p2"), ("fstype", "ext4"), ("mountpoint", "/")] + base[1:])
        # gpu-node-2's root fills up with checkpoints (predict_linear alerts on it).
        v, fill = (2.0e11, 9000) if hi == 0 else (1.5e11, 60000)
        for t in tgt.times:
            v -= 4096 * rng.randint(1000, fill)
            s.samples.append((t, float(v)))

    # -- dcgm-exporter -------------------------------------------------------

    def dcgm(self):
        rng = self.rng
        for hi, host in enumerate(NODE_HOSTS):
            # gpu-node-1's dcgm-exporter misses 3 minutes (shorter than the lookback).
            gaps = [(self.rel(6000), self.rel(6180))] if hi == 0 else []
            tgt = Target(rng, self.start_ms, self.end_ms, self.step_ms, 4321 + 5000 * hi, gaps)
            for gpu in range(4):
                uuid = "GPU-%08x-%04x-%04x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16),
                                                          rng.getrandbits(16), rng.getrandbits(48))
                labels = [("DCGM_FI_DRIVER_VERSION", "535.129.03"), ("Hostname", host), ("UUID", uuid),
                          ("device", "nvidia%d" % gpu), ("gpu", str(gpu)), ("instance", host + ":9400"),
                          ("job", "dcgm"), ("modelName", GPU_MODEL)]

                def mk(name, mtype, h, labels=labels):
                    return self.add(name, mtype, h, name, labels)

                util = mk("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).")
                fb_used = mk("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).")
                fb_free = mk("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).")
                power = mk("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).")
                temp = mk("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).")
                energy = mk("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
                            "Total energy consumption since boot (in mJ).")
                # GPU 3 of gpu-node-2 falls off the bus 5000 s in: its series stop.
                stop_ms = self.rel(5000) if (hi == 1 and gpu == 3) else None
                used = rng.randint(20000, 70000)
                e = rng.randint(10**9, 10**11)
                tc = 45.0
                for i, t in enumerate(tgt.times):
                    if stop_ms is not None and t >= stop_ms:
                        break
                    phase = math.sin(i / 25.0 + gpu)
                    u = int(max(0, min(100, 70 + 30 * phase + rng.gauss(0, 8))))
                    used = max(1000, min(FB_TOTAL_MIB - 500, used + rng.randint(-800, 800)))
                    p = round(90 + 6 * u * (0.9 + 0.2 * rng.random()), 3)
                    tc = tc + (35 + u * 0.45 - tc) * 0.3
                    e += int(p * (15000 if i else 0))
                    util.samples.append((t, float(u)))
                    fb_used.samples.append((t, float(used)))
                    fb_free.samples.append((t, float(FB_TOTAL_MIB - used - 423)))
                    power.samples.append((t, p))
                    temp.samples.append((t, float(int(tc))))
                    energy.samples.append((t, float(e)))

    # -- the trainer ----------------------------------------------------------

    def trainer(self):
        rng = self.rng
        for hi, host in enumerate(NODE_HOSTS):
            inst = host + ":8000"
            base = [("instance", inst), ("job", "trainer")]
            tgt = Target(rng, self.start_ms, self.end_ms, self.step_ms, 9000 + 2500 * hi)
            buckets = [self.add("step_time_seconds", "histogram", "Training step duration.",
                                "step_time_seconds_bucket", base[:1] + [("le", le)] + base[1:]) for le in HIST_BOUNDS]
            ssum = self.add("step_time_seconds", "histogram", "Training step duration.", "step_time_seconds_sum", base)
            scount = self.add("step_time_seconds", "histogram", "Training step duration.", "step_time_seconds_count",
                              base)
            loss = self.add("train_loss", "gauge", "Training loss of the last step.", "train_loss", base)
            counts = [0] * len(HIST_BOUNDS)
            total = 0.0
            lv = 3.2 + hi * 0.1
            restarted = False
            for i, t in enumerate(tgt.times):
                # gpu-node-2's trainer restarts 3300 s in: every histogram counter resets.
                if hi == 1 and not restarted and t >= self.rel(3300):
                    counts, total, restarted = [0] * len(HIST_BOUNDS), 0.0, True
                for _ in range(rng.randint(5, 30)):
                    d = rng.lognormvariate(math.log(0.4 + 0.3 * hi), 0.6)
                    total += d
                    for bi, le in enumerate(HIST_BOUNDS):
                        if d <= float(le):
                            counts[bi] += 1
                for bi, b in enumerate(buckets):
                    b.samples.append((t, float(counts[bi])))
                ssum.samples.append((t, round(total, 6)))
                scount.samples.append((t, float(counts[-1])))
                lv = max(0.05, lv * (0.999 - 0.0005 * rng.random()) + rng.gauss(0, 0.01))
                v = round(lv, 5)
                if hi == 0 and i in (100, 101, 250):
                    v = math.nan  # a diverged step
                elif hi == 0 and i == 300:
                    v = math.inf
                elif hi == 1 and i == 200:
                    v = -math.inf
                loss.samples.append((t, v))

    def batch_jobs(self):
        """Series that stop (r1), start late (r2) or live briefly (r3)."""
        rng = self.rng
        for run, a, b in (("r1", 600, 2000), ("r2", 2100, SPAN_S), ("r3", 5200, 5400)):
            tgt = Target(rng, self.rel(a), self.rel(b), self.step_ms, 3000)
            s = self.add("batch_job_progress_ratio", "gauge", "Fraction of the batch job done.",
                         "batch_job_progress_ratio", [("job", "batch"), ("run", run)])
            n = max(1, len(tgt.times) - 1)
            for i, t in enumerate(tgt.times):
                s.samples.append((t, round(i / n, 6)))

    # -- 1 s subset -------------------------------------------------------------

    def fast(self):
        rng = self.rng
        start = self.end_ms - FAST_SPAN_S * 1000
        tgt = Target(rng, start, self.end_ms, self.fast_step_ms, 250)
        base = [("instance", "gpu-node-1"), ("job", "llmon")]
        self.cpu(tgt, base, 2, 0, modes=["idle", "system", "user"])
        for gpu in range(2):
            labels = [("Hostname", "gpu-node-1"), ("gpu", str(gpu)), ("instance", "gpu-node-1"), ("job", "llmon"),
                      ("modelName", GPU_MODEL)]
            util = self.add("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", "DCGM_FI_DEV_GPU_UTIL", labels)
            power = self.add("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", "DCGM_FI_DEV_POWER_USAGE",
                             labels)
            for i, t in enumerate(tgt.times):
                u = int(max(0, min(100, 80 + 20 * math.sin(i / 7.0 + gpu) + rng.gauss(0, 5))))
                util.samples.append((t, float(u)))
                power.samples.append((t, round(100 + 5.5 * u + rng.gauss(0, 3), 3)))

    def build(self):
        self.node()
        self.dcgm()
        self.trainer()
        self.batch_jobs()
        self.fast()
        return self.series


def perturb(series, name):
    """Changes one sample of the first series named `name` (harness self-check)."""
    for s in series:
        if s.name == name and s.samples:
            i = len(s.samples) // 2
            t, v = s.samples[i]
            s.samples[i] = (t, v * 1.5 + 1)
            return "%s%s at %d ms: %s -> %s" % (s.name, s.label_text(), t, fmt_value(v), fmt_value(v * 1.5 + 1))
    raise SystemExit("no series named %s to perturb" % name)


def write_openmetrics(series, families, path):
    by_family = {}
    for s in series:
        by_family.setdefault(s.family, []).append(s)
    with open(path, "w") as f:
        for fam, members in by_family.items():
            mtype, help_text = families[fam]
            f.write("# HELP %s %s\n# TYPE %s %s\n" % (fam, help_text, fam, mtype))
            for s in members:
                prefix = s.name + s.label_text() + " "
                for t, v in s.samples:
                    f.write("%s%s %s\n" % (prefix, fmt_value(v), om_timestamp(t)))
        f.write("# EOF\n")


def write_prom(series, families, path):
    done = set()
    with open(path, "w") as f:
        for s in series:
            if s.family not in done:
                done.add(s.family)
                mtype, help_text = families[s.family]
                f.write("# HELP %s %s\n# TYPE %s %s\n" % (s.family, help_text, s.family, mtype))
            prefix = s.name + s.label_text() + " "
            for t, v in s.samples:
                f.write("%s%s %d\n" % (prefix, fmt_value(v), t))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--end", type=int, required=True, help="end of the data, epoch seconds (a multiple of 60 is neat)")
    ap.add_argument("--seed", type=int, default=20240301)
    ap.add_argument("--step-s", type=int, default=15, help="scrape interval of the main data")
    ap.add_argument("--fast-step-s", type=int, default=1, help="scrape interval of the short-window subset")
    ap.add_argument("--openmetrics", help="OpenMetrics output (for promtool)")
    ap.add_argument("--prom", help="Prometheus text output with ms timestamps (for llmon tsdb import)")
    ap.add_argument("--meta", help="JSON with the data's time range and counts (for gen_queries.py)")
    ap.add_argument("--perturb", metavar="METRIC", help="change one sample of the first series named METRIC")
    args = ap.parse_args()

    b = Builder(args.seed, args.end, args.step_s, args.fast_step_s)
    series = b.build()
    note = perturb(series, args.perturb) if args.perturb else None
    if args.openmetrics:
        write_openmetrics(series, b.families, args.openmetrics)
    if args.prom:
        write_prom(series, b.families, args.prom)
    nsamples = sum(len(s.samples) for s in series)
    meta = {"start": b.start_ms / 1000.0, "end": b.end_ms / 1000.0, "fast_start": (b.end_ms - FAST_SPAN_S * 1000) / 1000.0,
            "step_s": args.step_s, "fast_step_s": args.fast_step_s, "seed": args.seed, "series": len(series),
            "samples": nsamples, "perturbed": note}
    if args.meta:
        with open(args.meta, "w") as f:
            json.dump(meta, f, indent=1)
    print("gen_data: %d series, %d samples, %s .. %s%s" % (len(series), nsamples, meta["start"], meta["end"],
                                                            ("; perturbed " + note) if note else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
