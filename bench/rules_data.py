#!/usr/bin/env python3
"""Data, rules and measurements for the rule-evaluation benchmark (bench/rules_compare.sh).

Subcommands:

  data     One 8-GPU node's history (2 h at 15 s by default) ending at --end: dcgm-exporter's
           DCGM_FI_DEV_* for 8 H100s (labels gpu, UUID, pci_bus_id, device, modelName, Hostname,
           DCGM_FI_DRIVER_VERSION, as llmon exposes them) and node_exporter series of a 64-core
           host (cpu, memory, vmstat, pressure, load, 4 file systems, 4 disks, 5 NICs), each
           target with a scrape phase and a few ms of jitter. The same samples twice, with the
           differential test's writers (tests/promql/diff/gen_data.py): OpenMetrics for
           `promtool tsdb create-blocks-from openmetrics`, Prometheus text with ms timestamps for
           `llmon tsdb import`. With --ahead S, the next S seconds of the same series go to
           --future (by time) for `feed`.
  feed     Keeps both stores current while the servers run: each sample of --future, once due,
           is pushed to llmon's /api/v1/import/prometheus (every --push-every s) and served with
           its timestamp on a page that Prometheus scrapes (each sample once). Runs until killed.
  rules    --groups x --per-group rules (10 x 100) in one Prometheus rule file, every group at
           `interval: --interval`: recording rules (sum/avg/max by, rate/increase of counters,
           ratios of GPU memory, *_over_time) and alerts with thresholds, `for:` and templated
           annotations, plus the built-in pack's expressions (deploy/rules/*.yml) with other
           thresholds. Deterministic; a JSON map says which template each rule came from.
  measure  Polls servers' /metrics every --poll s for --window s after --warmup s and keeps
           every group evaluation it sees (distinct last_evaluation_timestamp per group, with
           its last_duration); CPU seconds (utime+stime of all threads, /proc/PID/stat) and RSS
           (/proc/PID/status) over the window; then --rules-api samples of /api/v1/rules
           (per-rule evaluationTime). SERVER is LABEL:KIND:URL:PID, KIND prometheus or llmon
           (metric prefix prometheus_rule_* or llmon_rule_*). Writes JSON.
  report   Markdown tables from measure's JSON (part 1: --a/--b ratio; part 2: agent cost).

Nothing here starts or stops a server; rules_compare.sh does that (and stops `feed`).
"""

import argparse
import json
import math
import os
import re
import statistics
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "promql", "diff"))
import gen_data  # noqa: E402  (the differential test's generator and writers)

HOST = "gpu-node-1"
INSTANCE = HOST + ":8747"  # one llmon agent exposes both the host's and the GPUs' series
N_CPUS = 64
N_GPUS = 8
CPU_MODES = gen_data.CPU_MODES
NICS = [("eth0", 1.2e8), ("eth1", 4.0e7), ("ib0", 9.0e8), ("ib1", 8.5e8), ("lo", 3.0e5)]
DISKS = ["nvme0n1", "nvme1n1", "nvme2n1", "sda"]
FILESYSTEMS = [("/dev/nvme0n1p2", "ext4", "/", 2.0e12, 9000), ("/dev/nvme1n1", "xfs", "/data", 7.0e12, 90000),
               ("/dev/nvme2n1", "xfs", "/checkpoints", 3.5e12, 400000), ("tmpfs", "tmpfs", "/run", 5.0e10, 10)]
PER_GPU = "gpu, UUID, pci_bus_id, device, modelName, DCGM_FI_DRIVER_VERSION, GPU_I_PROFILE, GPU_I_ID"


# ---------------------------------------------------------------------------------------------
# data


class NodeBuilder(gen_data.Builder):
    def __init__(self, seed, start_s, end_s, step_s):
        super().__init__(seed, end_s, step_s, step_s)
        self.start_ms = start_s * 1000

    def target(self, phase_ms):
        return gen_data.Target(self.rng, self.start_ms, self.end_ms, self.step_ms, phase_ms)

    def counter(self, name, help_text, labels):
        return self.add(name[:-len("_total")], "counter", help_text, name, labels)

    def gauge(self, name, help_text, labels):
        return self.add(name, "gauge", help_text, name, labels)

    def host(self):
        rng = self.rng
        base = [("instance", INSTANCE), ("job", "llmon")]
        tgt = self.target(1000)
        self.cpu(tgt, base, N_CPUS, 0)  # gen_data: 8 modes, /proc/stat-like 1/100 s counters
        n = len(tgt.times)

        def lbl(**kw):
            return base[:1] + sorted(kw.items()) + base[1:]

        for dev, rate in NICS:
            for d in ("receive", "transmit"):
                by = self.counter("node_network_%s_bytes_total" % d, "Network device statistic %s_bytes." % d,
                                  lbl(device=dev))
                pk = self.counter("node_network_%s_packets_total" % d, "Network device statistic %s_packets." % d,
                                  lbl(device=dev))
                er = self.counter("node_network_%s_errs_total" % d, "Network device statistic %s_errs." % d,
                                  lbl(device=dev))
                dr = self.counter("node_network_%s_drop_total" % d, "Network device statistic %s_drop." % d,
                                  lbl(device=dev))
                b, p = rng.randint(10**9, 10**11), rng.randint(10**6, 10**8)
                e, x = rng.randint(0, 50), rng.randint(0, 500)
                lossy = dev == "eth1"  # eth1 drops a few % of its packets: NodeNetworkErrors-like rules fire
                for i, t in enumerate(tgt.times):
                    db = int(rate * 15 * (0.3 + rng.random()))
                    dp = db // 1400 + 1
                    b, p = b + db, p + dp
                    e += rng.randint(0, 3) if lossy else (1 if rng.random() < 0.01 else 0)
                    x += int(dp * 0.03 * rng.random()) if lossy else 0
                    by.samples.append((t, float(b)))
                    pk.samples.append((t, float(p)))
                    er.samples.append((t, float(e)))
                    dr.samples.append((t, float(x)))
        for dev in DISKS:
            rb = self.counter("node_disk_read_bytes_total", "The total number of bytes read successfully.",
                              lbl(device=dev))
            wb = self.counter("node_disk_written_bytes_total", "The total number of bytes written successfully.",
                              lbl(device=dev))
            rc = self.counter("node_disk_reads_completed_total", "The total number of reads completed successfully.",
                              lbl(device=dev))
            wc = self.counter("node_disk_writes_completed_total", "The total number of writes completed successfully.",
                              lbl(device=dev))
            io = self.counter("node_disk_io_time_seconds_total", "Total seconds spent doing I/Os.", lbl(device=dev))
            iw = self.counter("node_disk_io_time_weighted_seconds_total", "The weighted # of seconds spent doing I/Os.",
                              lbl(device=dev))
            r, w, nr, nw = rng.randint(10**10, 10**12), rng.randint(10**10, 10**12), rng.randint(10**5, 10**7), \
                rng.randint(10**5, 10**7)
            ioms, iwms = rng.randint(10**5, 10**8), rng.randint(10**5, 10**8)
            busy_disk = dev == "nvme2n1"  # the checkpoint disk is saturated
            for i, t in enumerate(tgt.times):
                burst = 1 if (i // 20) % 3 == 0 else 0
                k = rng.randint(0, 5000 * (1 + 20 * burst))
                r, nr = r + 4096 * k, nr + k // 8
                k = rng.randint(0, 3000 * (1 + 10 * burst))
                w, nw = w + 4096 * k, nw + k // 8
                d = rng.randint(13500, 15000) if busy_disk else rng.randint(0, 15000 if burst else 800)
                ioms, iwms = ioms + d, iwms + d * rng.randint(1, 8)
                for s, v in ((rb, r), (wb, w), (rc, nr), (wc, nw)):
                    s.samples.append((t, float(v)))
                io.samples.append((t, ioms / 1000.0))
                iw.samples.append((t, iwms / 1000.0))
        total = float(2**30 * 2048)
        mem = {f: self.gauge("node_memory_%s_bytes" % f, "Memory information field %s_bytes." % f, base)
               for f in ("MemTotal", "MemAvailable", "MemFree", "Cached", "Buffers", "SwapTotal", "SwapFree")}
        vm = {f: self.gauge("node_vmstat_%s" % f, "/proc/vmstat information field %s." % f, base)
              for f in ("pgmajfault", "pswpin", "pswpout")}
        psi = {r: self.counter("node_pressure_%s_waiting_seconds_total" % r,
                               "Total time in seconds that processes have waited for %s" % r, base)
               for r in ("cpu", "memory", "io")}
        loads = {f: self.gauge("node_%s" % f, "%s load average." % f, base) for f in ("load1", "load5", "load15")}
        avail, swapfree, vmc, psc = total * 0.6, float(2**30 * 64), [10**6, 10**4, 10**4], [10**4, 10**2, 10**3]
        la = [30.0, 30.0, 30.0]
        for i, t in enumerate(tgt.times):
            # a slow leak: ~6 % of RAM per hour (NodeMemoryGrowing-like rules fire)
            avail = min(total * 0.95, max(total * 0.05, avail - total * 0.06 / 240 + rng.gauss(0, total * 0.002)))
            a = float(int(avail) // 4096 * 4096)
            cached = float(int(a * (0.55 + 0.05 * rng.random())) // 4096 * 4096)
            swapfree = max(0.0, swapfree - 4096 * rng.randint(0, 200))
            vmc = [vmc[0] + rng.randint(0, 400), vmc[1] + rng.randint(0, 300), vmc[2] + rng.randint(0, 300)]
            psc = [psc[0] + rng.randint(0, 15), psc[1] + rng.randint(0, 2), psc[2] + rng.randint(0, 6)]
            la = [max(0.0, la[0] + rng.gauss(0, 2)), 0.0, 0.0]
            la[1], la[2] = la[0] * 0.9, la[0] * 0.8
            for f, v in (("MemTotal", total), ("MemAvailable", a), ("MemFree", a - cached), ("Cached", cached),
                         ("Buffers", float(2**20 * rng.randint(200, 260))), ("SwapTotal", float(2**30 * 64)),
                         ("SwapFree", float(int(swapfree)))):
                mem[f].samples.append((t, v))
            for j, f in enumerate(("pgmajfault", "pswpin", "pswpout")):
                vm[f].samples.append((t, float(vmc[j])))
            for j, r in enumerate(("cpu", "memory", "io")):
                psi[r].samples.append((t, psc[j] / 1.0))
            for j, f in enumerate(("load1", "load5", "load15")):
                loads[f].samples.append((t, round(la[j], 2)))
        for dev, fstype, mp, size, fill in FILESYSTEMS:
            labels = lbl(device=dev, fstype=fstype, mountpoint=mp)
            av = self.gauge("node_filesystem_avail_bytes", "Filesystem space available to non-root users in bytes.",
                            labels)
            fr = self.gauge("node_filesystem_free_bytes", "Filesystem free space in bytes.", labels)
            sz = self.gauge("node_filesystem_size_bytes", "Filesystem size in bytes.", labels)
            ro = self.gauge("node_filesystem_readonly", "Filesystem read-only status.", labels)
            v = size * (0.25 if mp == "/checkpoints" else 0.6)
            for t in tgt.times:
                v = max(0.0, v - 4096 * rng.randint(fill // 4, fill))
                av.samples.append((t, float(int(v))))
                fr.samples.append((t, float(int(v + size * 0.05))))
                sz.samples.append((t, size))
                ro.samples.append((t, 0.0))
        boot = self.gauge("node_boot_time_seconds", "Node boot time, in unixtime.", base)
        uname = self.gauge("node_uname_info", "Labeled system information as provided by the uname system call.",
                           base + [("nodename", HOST), ("release", "6.1.0-17-amd64")])
        for t in tgt.times:
            boot.samples.append((t, float(self.start_ms // 1000 - 3 * 86400 + 17)))
            uname.samples.append((t, 1.0))
        return n

    def gpus(self):
        rng = self.rng
        tgt = self.target(4321)
        fields = [
            ("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %)."),
            ("DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %)."),
            ("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB)."),
            ("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB)."),
            ("DCGM_FI_DEV_FB_TOTAL", "Framebuffer memory total (in MiB)."),
            ("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C)."),
            ("DCGM_FI_DEV_MEMORY_TEMP", "Memory temperature (in C)."),
            ("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W)."),
            ("DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "Current power limit for the device (in W)."),
            ("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz)."),
            ("DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz)."),
            ("DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered."),
            ("DCGM_FI_DEV_ROW_REMAP_PENDING", "Pending remapping of rows."),
            ("DCGM_FI_DEV_ROW_REMAP_FAILURE", "Whether remapping of rows has failed."),
        ]
        counters = [
            ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ)."),
            ("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "Total number of single-bit volatile ECC errors."),
            ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "Total number of double-bit volatile ECC errors."),
            ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "Total number of PCIe retries."),
            ("DCGM_FI_DEV_POWER_VIOLATION", "Throttling duration due to power constraints (in us)."),
            ("DCGM_FI_DEV_THERMAL_VIOLATION", "Throttling duration due to thermal constraints (in us)."),
        ]
        for gpu in range(N_GPUS):
            uuid = "GPU-%08x-%04x-%04x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16),
                                                      rng.getrandbits(16), rng.getrandbits(48))
            labels = [("DCGM_FI_DRIVER_VERSION", "535.129.03"), ("Hostname", HOST), ("UUID", uuid),
                      ("device", "nvidia%d" % gpu), ("gpu", str(gpu)), ("instance", INSTANCE), ("job", "llmon"),
                      ("modelName", gen_data.GPU_MODEL), ("pci_bus_id", "00000000:%02X:00.0" % (0x18 + 0x10 * gpu))]
            # dcgm-exporter types every field as gauge or counter without a _total suffix; gauges here
            # (OpenMetrics wants _total on counters), which changes nothing for PromQL.
            s = {name: self.add(name, "gauge", h, name, labels) for name, h in fields + counters}
            used = rng.randint(20000, 70000) if gpu != 5 else 76500  # GPU 5 is near OOM
            e, sbe, dbe, replay, pv, tv = rng.randint(10**9, 10**11), rng.randint(0, 10), 0, rng.randint(0, 100), 0, 0
            tc = 45.0
            for i, t in enumerate(tgt.times):
                u = int(max(0, min(100, 70 + 30 * math.sin(i / 25.0 + gpu) + rng.gauss(0, 8))))
                if gpu == 7:
                    u = rng.randint(0, 12)  # an idle GPU (holding memory)
                used = max(1000, min(gen_data.FB_TOTAL_MIB - 500, used + rng.randint(-800, 800)))
                p = round(90 + 6 * u * (0.9 + 0.2 * rng.random()), 3)
                tc = tc + (35 + u * 0.5 + (6 if gpu == 2 else 0) - tc) * 0.3
                e += int(p * 15000)
                sbe += 1 if rng.random() < 0.02 else 0
                dbe += 1 if (gpu == 3 and i == len(tgt.times) - 20) else 0
                replay += rng.randint(0, 3)
                pv += rng.randint(0, 2000000) if p > 600 else 0
                tv += rng.randint(0, 500000) if tc > 78 else 0
                vals = {"DCGM_FI_DEV_GPU_UTIL": u, "DCGM_FI_DEV_MEM_COPY_UTIL": int(u * (0.3 + 0.2 * rng.random())),
                        "DCGM_FI_DEV_FB_USED": used, "DCGM_FI_DEV_FB_FREE": gen_data.FB_TOTAL_MIB - used - 423,
                        "DCGM_FI_DEV_FB_TOTAL": gen_data.FB_TOTAL_MIB, "DCGM_FI_DEV_GPU_TEMP": int(tc),
                        "DCGM_FI_DEV_MEMORY_TEMP": int(tc) + 4, "DCGM_FI_DEV_POWER_USAGE": p,
                        "DCGM_FI_DEV_ENFORCED_POWER_LIMIT": 700, "DCGM_FI_DEV_SM_CLOCK": 1980 if u > 5 else 345,
                        "DCGM_FI_DEV_MEM_CLOCK": 2619,
                        "DCGM_FI_DEV_XID_ERRORS": 31 if (gpu == 6 and i % 97 == 0) else 0,
                        "DCGM_FI_DEV_ROW_REMAP_PENDING": 1 if gpu == 3 else 0, "DCGM_FI_DEV_ROW_REMAP_FAILURE": 0,
                        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": e, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL": sbe,
                        "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": dbe, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER": replay,
                        "DCGM_FI_DEV_POWER_VIOLATION": pv, "DCGM_FI_DEV_THERMAL_VIOLATION": tv}
                for name, v in vals.items():
                    s[name].samples.append((t, float(v)))

    def build(self):
        self.host()
        self.gpus()
        return self.series


def cmd_data(args):
    b = NodeBuilder(args.seed, args.end - int(args.hours * 3600), args.end + args.ahead, args.step_s)
    series = b.build()
    end_ms = args.end * 1000
    past, future = [], []
    for s in series:
        p = gen_data.Series(s.name, s.labels, s.family)
        p.samples = [x for x in s.samples if x[0] <= end_ms]
        past.append(p)
        key = s.name + s.label_text()
        future.extend((t, key, v) for t, v in s.samples if t > end_ms)
    if args.openmetrics:
        gen_data.write_openmetrics(past, b.families, args.openmetrics)
    if args.prom:
        gen_data.write_prom(past, b.families, args.prom)
    if args.future:
        future.sort(key=lambda x: x[0])
        with open(args.future, "w") as f:
            for t, key, v in future:
                f.write("%d\t%s\t%s\n" % (t, key, gen_data.fmt_value(v)))
    nsamples = sum(len(s.samples) for s in past)
    by_name = {}
    for s in past:
        by_name[s.name] = by_name.get(s.name, 0) + 1
    meta = {"start": b.start_ms / 1000.0, "end": float(args.end), "hours": args.hours, "step_s": args.step_s,
            "seed": args.seed, "series": len(past), "samples": nsamples, "future_samples": len(future),
            "ahead_s": args.ahead, "series_by_name": by_name}
    if args.meta:
        with open(args.meta, "w") as f:
            json.dump(meta, f, indent=1)
    print("rules_data: %d series, %d samples, %s .. %s; %d more samples for the next %d s"
          % (len(past), nsamples, meta["start"], meta["end"], len(future), args.ahead), file=sys.stderr)


def cmd_feed(args):
    """Keeps both stores current: the samples of --future as they come due, pushed to llmon's import
    endpoint (--push) and served on a /metrics page that Prometheus scrapes (honor_labels,
    explicit timestamps: every sample not served before, so nothing is lost between scrapes)."""
    import http.server  # noqa: PLC0415
    import threading  # noqa: PLC0415
    entries = []
    with open(args.future) as f:
        for line in f:
            t, key, v = line.rstrip("\n").split("\t")
            entries.append((int(t), key, v))
    lock = threading.Lock()
    cursors = {"scrape": args.end * 1000, "push": args.end * 1000}

    def due_since(name):
        now_ms = int(time.time() * 1000)
        with lock:
            lo = cursors[name]
            cursors[name] = now_ms
        return ["%s %s %d\n" % (key, v, t) for t, key, v in entries if lo < t <= now_ms]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = "".join(due_since("scrape")).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    pushed = 0
    while True:
        time.sleep(args.push_every)
        if not args.push:
            continue
        lines = due_since("push")
        if not lines:
            continue
        req = urllib.request.Request(args.push + "/api/v1/import/prometheus", data="".join(lines).encode(),
                                     method="POST")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                hdr = r.headers.get("X-Llmon-Import", "")
            pushed += len(lines)
            if "accepted=%d " % len(lines) not in hdr + " ":
                print("rules_data feed: llmon import: %s" % hdr, file=sys.stderr)
        except OSError as e:
            print("rules_data feed: push of %d samples failed: %s" % (len(lines), e), file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# rules

WINDOWS = ["1m", "2m", "5m", "10m", "15m", "30m", "1h"]
FORS = ["0s", "1m", "2m", "5m", "10m"]
DCGM_FIELDS = ["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_TEMP",
               "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_SM_CLOCK"]
AGGS = ["sum", "avg", "max", "min"]
FB_RATIO = "DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)"
IDLE = 'node_cpu_seconds_total{mode=~"idle|iowait|steal"}'
DEV_RE = 'device!~"lo|veth.+"'

# Each template: (kind, name stem, function of the variant k -> (expr, for or None for a recording rule)).
# Alert thresholds and windows move with k so that no two rules are identical.


def thr(k, lo, hi, steps=10):
    return round(lo + (hi - lo) * (k % steps) / (steps - 1), 4)


def win(k):
    return WINDOWS[k % len(WINDOWS)]


def fr(k):
    return FORS[k % len(FORS)]


GROUPS = [
    ("bench-gpu-memory", [
        ("record", "gpu:fb_used:ratio", lambda k: (FB_RATIO, None)),
        ("alert", "GPUMemoryHigh", lambda k: ("(%s) >= %s" % (FB_RATIO, thr(k, 0.5, 0.95)), fr(k))),
        ("record", "instance:gpu_fb_used:ratio_max", lambda k: ("max without (%s) (%s)" % (PER_GPU, FB_RATIO), None)),
        ("record", "gpu:fb_used_bytes:avg_over_time", lambda k: (
            "avg_over_time(DCGM_FI_DEV_FB_USED[%s]) * 1048576" % win(k), None)),
        ("alert", "GPUMemoryFillingUp", lambda k: (
            "predict_linear(DCGM_FI_DEV_FB_FREE[%s], %d) < %d" % (win(k + 2), 300 * (1 + k % 4), 1024 * (1 + k % 8)),
            fr(k))),
        ("record", "gpu:fb_used:deriv", lambda k: ("deriv(DCGM_FI_DEV_FB_USED[%s])" % win(k + 2), None)),
        ("alert", "GPUMemoryCriticalOr", lambda k: (
            "(%s or llmon_gpu_memory_used_bytes / llmon_gpu_memory_total_bytes) >= %s" % (FB_RATIO, thr(k, 0.80, 0.99)),
            fr(k))),
        ("record", "Hostname:gpu_fb_used_bytes:sum", lambda k: (
            "sum by (Hostname) (DCGM_FI_DEV_FB_USED) * 1048576", None)),
        ("alert", "GPUMemoryNearlyFull", lambda k: (
            "DCGM_FI_DEV_FB_FREE < %d and DCGM_FI_DEV_GPU_UTIL > %d" % (2048 * (1 + k % 6), 5 * (k % 5)), fr(k))),
    ]),
    ("bench-gpu-util", [
        ("record", "gpu:util:avg_over_time", lambda k: (
            "avg_over_time(DCGM_FI_DEV_GPU_UTIL[%s]) / 100" % win(k), None)),
        ("alert", "GPUHighUtilization", lambda k: (
            "avg without (%s) (DCGM_FI_DEV_GPU_UTIL / 100) > %s" % (PER_GPU, thr(k, 0.4, 0.95)), fr(k))),
        ("alert", "GPUUnderutilized", lambda k: (
            "avg_over_time(DCGM_FI_DEV_GPU_UTIL[%s]) / 100 < %s" % (win(k), thr(k, 0.1, 0.5)), fr(k))),
        ("record", "gpu:util:quantile90", lambda k: (
            "quantile_over_time(0.9, DCGM_FI_DEV_GPU_UTIL[%s])" % win(k), None)),
        ("record", "gpu:util:stddev", lambda k: ("stddev_over_time(DCGM_FI_DEV_GPU_UTIL[%s])" % win(k), None)),
        ("record", "Hostname:gpus_busy:count", lambda k: (
            "count by (Hostname) (DCGM_FI_DEV_GPU_UTIL > %d)" % (10 * (k % 10)), None)),
        ("record", "Hostname:gpu_mem_copy_util:avg", lambda k: (
            "avg by (Hostname) (avg_over_time(DCGM_FI_DEV_MEM_COPY_UTIL[%s]))" % win(k), None)),
        ("record", "gpu:util:top2", lambda k: ("topk(2, DCGM_FI_DEV_GPU_UTIL)", None)),
        ("alert", "GPUSaturated", lambda k: (
            "(avg_over_time(DCGM_FI_DEV_GPU_UTIL[%s]) / 100 or avg_over_time(llmon_gpu_utilization_ratio[%s])) > %s"
            % (win(k), win(k), thr(k, 0.6, 0.99)), fr(k))),
        ("alert", "GPUClockLow", lambda k: (
            "DCGM_FI_DEV_SM_CLOCK < %d and DCGM_FI_DEV_GPU_UTIL > %d" % (1000 + 100 * (k % 9), 10 * (k % 6)), fr(k))),
    ]),
    ("bench-gpu-power-thermal", [
        ("record", "gpu:power_usage:ratio", lambda k: (
            "DCGM_FI_DEV_POWER_USAGE / DCGM_FI_DEV_ENFORCED_POWER_LIMIT", None)),
        ("alert", "GPUPowerHigh", lambda k: (
            "DCGM_FI_DEV_POWER_USAGE / DCGM_FI_DEV_ENFORCED_POWER_LIMIT > %s" % thr(k, 0.5, 0.98), fr(k))),
        ("alert", "GPUPowerUnstable", lambda k: (
            "(max_over_time(DCGM_FI_DEV_POWER_USAGE[%s]) - min_over_time(DCGM_FI_DEV_POWER_USAGE[%s])) > %s * "
            "DCGM_FI_DEV_ENFORCED_POWER_LIMIT and (max_over_time(DCGM_FI_DEV_GPU_UTIL[%s]) - "
            "min_over_time(DCGM_FI_DEV_GPU_UTIL[%s])) < %d" % (win(k), win(k), thr(k, 0.1, 0.5), win(k), win(k),
                                                               20 + 5 * (k % 8)), fr(k))),
        ("alert", "GPUTemperatureHigh", lambda k: ("DCGM_FI_DEV_GPU_TEMP >= %d" % (60 + 3 * (k % 10)), fr(k))),
        ("record", "gpu:temp:max_over_time", lambda k: ("max_over_time(DCGM_FI_DEV_GPU_TEMP[%s])" % win(k), None)),
        ("record", "gpu:power_watts:from_energy", lambda k: (
            "rate(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[%s]) / 1000" % win(k), None)),
        ("record", "Hostname:gpu_power_watts:sum", lambda k: ("sum by (Hostname) (DCGM_FI_DEV_POWER_USAGE)", None)),
        ("alert", "GPUThermalViolation", lambda k: (
            "increase(DCGM_FI_DEV_THERMAL_VIOLATION[%s]) / 1e6 > %d" % (win(k), k % 10), fr(k))),
        ("alert", "GPUMemoryTemperatureHigh", lambda k: ("DCGM_FI_DEV_MEMORY_TEMP >= %d" % (65 + 3 * (k % 10)), fr(k))),
        ("record", "Hostname:gpu_energy_joules:increase", lambda k: (
            "sum by (Hostname) (increase(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[%s])) / 1000" % win(k), None)),
    ]),
    ("bench-gpu-health", [
        ("alert", "GPUUncorrectableECCErrors", lambda k: (
            "increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL[%s]) > %d" % (win(k), k % 3), fr(k))),
        ("alert", "GPUCorrectableECCErrors", lambda k: (
            "increase(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL[%s]) > %d" % (win(k), k % 5), fr(k))),
        ("alert", "GPURowRemapPending", lambda k: ("DCGM_FI_DEV_ROW_REMAP_PENDING > %d" % (k % 2), fr(k))),
        ("alert", "GPURowRemapFailure", lambda k: ("DCGM_FI_DEV_ROW_REMAP_FAILURE > 0", fr(k))),
        ("alert", "GPUPCIeReplays", lambda k: (
            "rate(DCGM_FI_DEV_PCIE_REPLAY_COUNTER[%s]) > %s" % (win(k), thr(k, 0.01, 0.2)), fr(k))),
        ("alert", "GPUXidSeen", lambda k: ("changes(DCGM_FI_DEV_XID_ERRORS[%s]) > %d" % (win(k), k % 4), fr(k))),
        ("alert", "GPUXidNonZero", lambda k: ("max_over_time(DCGM_FI_DEV_XID_ERRORS[%s]) != 0" % win(k), fr(k))),
        ("alert", "GPUMissing", lambda k: (
            "count by (Hostname) (DCGM_FI_DEV_GPU_UTIL) < %d" % (N_GPUS - k % 3), fr(k))),
        ("alert", "GPUExporterDown", lambda k: ('absent(DCGM_FI_DEV_GPU_UTIL{Hostname="%s"})' % HOST, fr(k))),
        ("record", "gpu:ecc_sbe:resets", lambda k: ("resets(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL[%s])" % win(k), None)),
    ]),
    ("bench-gpu-recording", [
        ("record", "Hostname:dcgm_field:agg", lambda k: (
            "%s by (Hostname, modelName) (%s)" % (AGGS[k % 4], DCGM_FIELDS[(k // 4) % len(DCGM_FIELDS)]), None)),
        ("record", "Hostname:dcgm_field:agg_over_time", lambda k: (
            "%s by (Hostname) (%s_over_time(%s[%s]))" % (AGGS[k % 4], AGGS[(k + 1) % 4],
                                                        DCGM_FIELDS[(k // 4) % len(DCGM_FIELDS)], win(k)), None)),
        ("record", "modelName:dcgm_field:avg_without", lambda k: (
            "avg without (%s) (%s)" % (PER_GPU, DCGM_FIELDS[k % len(DCGM_FIELDS)]), None)),
        ("record", "gpu:fb_used:ratio_avg_over_time", lambda k: (
            "avg_over_time(DCGM_FI_DEV_FB_USED[%s]) / avg_over_time(DCGM_FI_DEV_FB_TOTAL[%s])" % (win(k), win(k)),
            None)),
        ("record", "Hostname:gpu_energy_watts:rate", lambda k: (
            "sum by (Hostname) (rate(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[%s])) / 1000" % win(k), None)),
    ]),
    ("bench-host-cpu", [
        ("record", "instance_cpu:node_cpu_utilisation:rate", lambda k: (
            "1 - sum without (mode) (rate(%s[%s]))" % (IDLE, win(k)), None)),
        ("record", "instance:node_cpu_utilisation:rate", lambda k: (
            "1 - avg without (cpu) (sum without (mode) (rate(%s[%s])))" % (IDLE, win(k)), None)),
        ("record", "instance_mode:node_cpu_seconds:rate", lambda k: (
            "sum by (instance, mode) (rate(node_cpu_seconds_total[%s]))" % win(k), None)),
        ("alert", "NodeCPUHigh", lambda k: (
            "(1 - avg without (cpu) (sum without (mode) (rate(%s[%s])))) > %s and on (instance) "
            "count by (instance) (DCGM_FI_DEV_GPU_UTIL or llmon_gpu_utilization_ratio)"
            % (IDLE, win(k), thr(k, 0.2, 0.95)), fr(k))),
        ("alert", "NodeCPUCoreSaturated", lambda k: (
            "(1 - sum without (mode) (rate(%s[%s]))) >= %s unless on (instance) (1 - avg without (cpu) "
            "(sum without (mode) (rate(%s[%s])))) > 0.90" % (IDLE, win(k), thr(k, 0.5, 0.99), IDLE, win(k)), fr(k))),
        ("record", "instance:node_num_cpu:sum", lambda k: (
            "count without (cpu) (count without (mode) (node_cpu_seconds_total))", None)),
        ("alert", "NodeLoadHigh", lambda k: (
            "node_load%s / on (instance) count by (instance) (node_cpu_seconds_total{mode=\"idle\"}) > %s"
            % (["1", "5", "15"][k % 3], thr(k, 0.2, 1.5)), fr(k))),
        ("record", "instance:node_cpu_iowait:rate", lambda k: (
            "avg by (instance) (rate(node_cpu_seconds_total{mode=\"iowait\"}[%s]))" % win(k), None)),
        ("alert", "NodeCPUPressure", lambda k: (
            "rate(node_pressure_cpu_waiting_seconds_total[%s]) > %s" % (win(k), thr(k, 0.1, 1.5)), fr(k))),
        ("record", "instance:node_cpu_user:topk", lambda k: (
            "topk(%d, rate(node_cpu_seconds_total{mode=\"user\"}[%s]))" % (1 + k % 5, win(k)), None)),
    ]),
    ("bench-host-memory", [
        ("record", "instance:node_memory_utilisation:ratio", lambda k: (
            "1 - node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes", None)),
        ("alert", "NodeMemoryHigh", lambda k: (
            "1 - node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes > %s" % thr(k, 0.3, 0.95), fr(k))),
        ("alert", "NodeMemoryGrowing", lambda k: (
            "-deriv(node_memory_MemAvailable_bytes[%s]) * 3600 / node_memory_MemTotal_bytes > %s"
            % (["10m", "30m", "1h"][k % 3], thr(k, 0.01, 0.1)), fr(k))),
        ("record", "instance:node_memory_used_growth:ratio_per_hour", lambda k: (
            "-deriv(node_memory_MemAvailable_bytes[%s]) * 3600 / node_memory_MemTotal_bytes" % win(k), None)),
        ("alert", "NodeSwapping", lambda k: (
            "rate(node_vmstat_pswpin[%s]) + rate(node_vmstat_pswpout[%s]) > %d" % (win(k), win(k), 2 * (k % 10)),
            fr(k))),
        ("record", "instance:node_vmstat_pgmajfault:rate", lambda k: (
            "rate(node_vmstat_pgmajfault[%s])" % win(k), None)),
        ("alert", "NodeSwapFilling", lambda k: (
            "1 - node_memory_SwapFree_bytes / node_memory_SwapTotal_bytes > %s" % thr(k, 0.01, 0.5), fr(k))),
        ("alert", "NodeMemoryPressure", lambda k: (
            "rate(node_pressure_memory_waiting_seconds_total[%s]) > %s" % (win(k), thr(k, 0.01, 0.2)), fr(k))),
        ("record", "instance:node_memory_available:min_over_time", lambda k: (
            "min_over_time(node_memory_MemAvailable_bytes[%s])" % win(k), None)),
        ("alert", "NodeMemoryExhaustionForecast", lambda k: (
            "predict_linear(node_memory_MemAvailable_bytes[%s], %d) < 0" % (["30m", "1h"][k % 2], 3600 * (1 + k % 12)),
            fr(k))),
    ]),
    ("bench-host-disk", [
        ("record", "instance_device:node_disk_io_time_seconds:rate", lambda k: (
            "rate(node_disk_io_time_seconds_total[%s])" % win(k), None)),
        ("alert", "NodeDiskSaturated", lambda k: (
            "rate(node_disk_io_time_seconds_total[%s]) > %s" % (win(k), thr(k, 0.5, 0.99)), fr(k))),
        ("record", "instance_device:node_disk_bytes:rate", lambda k: (
            "rate(node_disk_%s_bytes_total[%s])" % (["read", "written"][k % 2], win(k)), None)),
        ("record", "instance:node_disk_iops:rate", lambda k: (
            "sum without (device) (rate(node_disk_reads_completed_total[%s]) + "
            "rate(node_disk_writes_completed_total[%s]))"
            % (win(k), win(k)), None)),
        ("alert", "NodeFilesystemFillingUp", lambda k: (
            "(node_filesystem_avail_bytes{fstype!~\"tmpfs|ramfs|squashfs|iso9660\"} / node_filesystem_size_bytes < %s "
            "and predict_linear(node_filesystem_avail_bytes{fstype!~\"tmpfs|ramfs|squashfs|iso9660\"}[%s], %d) < 0 "
            "and node_filesystem_readonly == 0)" % (thr(k, 0.1, 0.6), ["30m", "1h"][k % 2], 3600 * (1 + k % 8)),
            fr(k))),
        ("alert", "NodeFilesystemAlmostFull", lambda k: (
            "(node_filesystem_avail_bytes{fstype!~\"tmpfs|ramfs|squashfs|iso9660\"} / node_filesystem_size_bytes < %s "
            "and node_filesystem_readonly == 0)" % thr(k, 0.05, 0.5), fr(k))),
        ("record", "instance_mountpoint:node_filesystem_avail:ratio", lambda k: (
            "node_filesystem_avail_bytes{fstype!~\"tmpfs|ramfs|squashfs|iso9660\"} / "
            "node_filesystem_size_bytes", None)),
        ("record", "instance_device:node_disk_io_time_weighted_seconds:rate", lambda k: (
            "rate(node_disk_io_time_weighted_seconds_total[%s])" % win(k), None)),
        ("alert", "NodeIOPressure", lambda k: (
            "rate(node_pressure_io_waiting_seconds_total[%s]) > %s" % (win(k), thr(k, 0.01, 0.5)), fr(k))),
        ("record", "instance:node_disk_written_bytes:increase", lambda k: (
            "sum by (instance) (increase(node_disk_written_bytes_total[%s]))" % win(k), None)),
    ]),
    ("bench-host-network", [
        ("record", "instance:node_network_receive_bytes_excluding_lo:rate", lambda k: (
            "sum without (device) (rate(node_network_%s_bytes_total{device!=\"lo\"}[%s]))"
            % (["receive", "transmit"][k % 2], win(k)), None)),
        ("record", "instance_device:node_network_bytes:rate", lambda k: (
            "rate(node_network_%s_bytes_total{%s}[%s])" % (["receive", "transmit"][k % 2], DEV_RE, win(k)), None)),
        ("alert", "NodeNetworkErrors", lambda k: (
            "label_replace((rate(node_network_receive_errs_total{%(d)s}[%(w)s]) + rate(node_network_receive_drop_total"
            "{%(d)s}[%(w)s])) / rate(node_network_receive_packets_total{%(d)s}[%(w)s]) > %(t)s and "
            "(rate(node_network_receive_errs_total{%(d)s}[%(w)s]) + "
            "rate(node_network_receive_drop_total{%(d)s}[%(w)s]))"
            " > 1, \"direction\", \"receive\", \"\", \"\") or label_replace((rate(node_network_transmit_errs_total"
            "{%(d)s}[%(w)s]) + rate(node_network_transmit_drop_total{%(d)s}[%(w)s])) / "
            "rate(node_network_transmit_packets_total{%(d)s}[%(w)s]) > %(t)s and "
            "(rate(node_network_transmit_errs_total{%(d)s}[%(w)s]) + rate(node_network_transmit_drop_total{%(d)s}"
            "[%(w)s])) > 1, \"direction\", \"transmit\", \"\", \"\")"
            % {"d": DEV_RE, "w": win(k), "t": thr(k, 0.001, 0.05)}, fr(k))),
        ("alert", "NodeNetworkSaturated", lambda k: (
            "rate(node_network_%s_bytes_total{%s}[%s]) * 8 > %d" % (["receive", "transmit"][k % 2], DEV_RE, win(k),
                                                                   10**8 * (1 + k % 10)), fr(k))),
        ("record", "instance:node_network_errs_excluding_lo:rate", lambda k: (
            "sum without (device) (rate(node_network_receive_errs_total{device!=\"lo\"}[%s]) + "
            "rate(node_network_transmit_errs_total{device!=\"lo\"}[%s]))" % (win(k), win(k)), None)),
        ("record", "instance_device:node_network_packets:rate", lambda k: (
            "rate(node_network_%s_packets_total{%s}[%s])" % (["receive", "transmit"][k % 2], DEV_RE, win(k)), None)),
        ("alert", "NodeNetworkDrops", lambda k: (
            "rate(node_network_receive_drop_total{%s}[%s]) > %d" % (DEV_RE, win(k), 5 * (k % 10)), fr(k))),
        ("record", "instance:node_network_top_device:rate", lambda k: (
            "topk(1, rate(node_network_receive_bytes_total[%s]))" % win(k), None)),
    ]),
]

# The built-in pack (deploy/rules/*.yml), read from the repository; thresholds varied per copy.
NUM_RE = re.compile(r"(?<![\w.\[])(0\.\d+|\d+\.\d+)(?![\w.\]])")


def pack_templates(repo):
    try:
        import yaml  # noqa: PLC0415  (python3-yaml; the pack is optional)
    except ImportError:
        return []
    out = []
    for fname in ("gpu.yml", "gpu_health.yml", "host.yml", "recording.yml"):
        path = os.path.join(repo, "deploy", "rules", fname)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            doc = yaml.safe_load(f)
        for g in doc.get("groups", []):
            for r in g.get("rules", []):
                expr = " ".join(r["expr"].split())
                if "record" in r:
                    # recording rules of the pack read each other's output: kept as they are
                    continue
                out.append(("alert", r["alert"] + "Pack", expr, r.get("for")))
    return out


def vary(expr, k):
    """The pack expression with every decimal threshold scaled by 0.8 .. 1.1 (k-dependent)."""
    f = 0.8 + 0.3 * (k % 7) / 6

    def sub(m):
        return repr(round(float(m.group(1)) * f, 4))
    return NUM_RE.sub(sub, expr)


def build_rules(n_groups, per_group, interval, repo):
    groups = [(name, list(t)) for name, t in GROUPS]
    pack = pack_templates(repo)
    if pack:
        groups.append(("bench-pack-copies", [("alert", stem, (lambda e, f: lambda k: (vary(e, k), f))(expr, for_))
                                             for _, stem, expr, for_ in pack]))
    groups = groups[:n_groups]
    while len(groups) < n_groups:  # more groups than themes: repeat the themes
        name, t = groups[len(groups) % len(GROUPS)]
        groups.append(("%s-%d" % (name, len(groups)), t))
    out_groups, index = [], []
    for name, templates in groups:
        rules = []
        for i in range(per_group):
            kind, stem, fn = templates[i % len(templates)]
            k = i // len(templates)
            expr, for_ = fn(k)
            rname = "%s_v%02d" % (stem, k)
            r = {kind: rname, "expr": expr}
            if kind == "alert":
                if for_ and for_ != "0s":
                    r["for"] = for_
                r["labels"] = {"severity": ["warning", "critical"][k % 2]}
                r["annotations"] = {
                    "summary": "%s on {{ $labels.instance }}{{ with $labels.gpu }} GPU {{ . }}{{ end }}: "
                               "{{ $value | humanize }}" % stem,
                    "description": "{{ $labels.Hostname }}{{ $labels.device }}{{ $labels.mountpoint }} is at "
                                   "{{ printf \"%.3f\" $value }} (rule " + rname + ")."}
            rules.append(r)
            index.append({"group": name, "rule": rname, "kind": kind, "template": stem})
        out_groups.append({"name": name, "interval": interval, "rules": rules})
    return out_groups, index


def yaml_quote(s):
    return json.dumps(s, ensure_ascii=False)  # JSON strings are valid YAML double-quoted scalars


def write_rules_yaml(groups, path):
    with open(path, "w") as f:
        f.write("# Generated by bench/rules_data.py rules: %d groups, %d rules.\ngroups:\n"
                % (len(groups), sum(len(g["rules"]) for g in groups)))
        for g in groups:
            f.write("  - name: %s\n    interval: %s\n    rules:\n" % (g["name"], g["interval"]))
            for r in g["rules"]:
                kind = "alert" if "alert" in r else "record"
                f.write("      - %s: %s\n        expr: %s\n" % (kind, r[kind], yaml_quote(r["expr"])))
                if "for" in r:
                    f.write("        for: %s\n" % r["for"])
                if "labels" in r:
                    f.write("        labels:\n")
                    for k, v in r["labels"].items():
                        f.write("          %s: %s\n" % (k, yaml_quote(v)))
                if "annotations" in r:
                    f.write("        annotations:\n")
                    for k, v in r["annotations"].items():
                        f.write("          %s: %s\n" % (k, yaml_quote(v)))


def cmd_rules(args):
    repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    groups, index = build_rules(args.groups, args.per_group, args.interval, repo)
    write_rules_yaml(groups, args.out)
    if args.meta:
        with open(args.meta, "w") as f:
            json.dump({"groups": [g["name"] for g in groups], "rules": index}, f, indent=0)
    n_alert = sum(1 for r in index if r["kind"] == "alert")
    print("rules_data: %d groups, %d rules (%d alerting, %d recording), interval %s"
          % (len(groups), len(index), n_alert, len(index) - n_alert, args.interval), file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# measure

LINE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)')
GROUP_RE = re.compile(r'rule_group="((?:[^"\\]|\\.)*)"')
CLK_TCK = os.sysconf("SC_CLK_TCK")


def http_get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read()


def group_name(raw):
    return raw.rsplit(";", 1)[-1]  # Prometheus: "FILE;GROUP"


def rule_metrics(text, prefix):
    """{group: {metric suffix: value}} for PREFIX_rule_group_* and PREFIX_rule_evaluation* families."""
    out = {}
    for line in text.splitlines():
        if not line.startswith(prefix + "_rule"):
            continue
        m = LINE_RE.match(line)
        if not m:
            continue
        name, labels, value = m.groups()
        g = GROUP_RE.search(labels or "")
        if not g:
            continue
        try:
            v = float(value)
        except ValueError:
            continue
        out.setdefault(group_name(g.group(1)), {})[name[len(prefix) + 1:]] = v
    return out


def proc_cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime (fields 14, 15)


def proc_mem_kib(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = int(line.split()[1])
    return out


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def cmd_measure(args):
    servers = []
    for spec in args.server:
        label, kind, rest = spec.split(":", 2)
        url, pid = rest.rsplit(":", 1)
        servers.append({"label": label, "kind": kind, "url": url, "pid": int(pid),
                        "prefix": "prometheus" if kind == "prometheus" else "llmon"})
    time.sleep(args.warmup)
    res = {"warmup_s": args.warmup, "window_s": args.window, "poll_s": args.poll, "loadavg_start": loadavg(),
           "started": time.time(), "servers": {}}
    for s in servers:
        s["cycles"] = {}  # group -> {last_evaluation_timestamp: last_duration}
        s["first"] = None
        s["last"] = None
        s["cpu0"], s["mem0"] = proc_cpu_s(s["pid"]), proc_mem_kib(s["pid"])
    t0 = time.monotonic()
    polls = 0
    while True:
        for s in servers:
            try:
                m = rule_metrics(http_get(s["url"] + "/metrics").decode("utf-8", "replace"), s["prefix"])
            except OSError as e:
                print("rules_data measure: %s /metrics: %s" % (s["label"], e), file=sys.stderr)
                continue
            if s["first"] is None:
                s["first"] = m
            s["last"] = m
            for g, v in m.items():
                ts, d = v.get("rule_group_last_evaluation_timestamp_seconds"), v.get("rule_group_last_duration_seconds")
                if ts and d is not None and ts >= res["started"]:
                    s["cycles"].setdefault(g, {})[ts] = d
        polls += 1
        elapsed = time.monotonic() - t0
        if elapsed >= args.window:
            break
        time.sleep(max(0.0, min(args.poll, args.window - elapsed)))
    wall = time.monotonic() - t0
    res["loadavg_end"] = loadavg()
    for s in servers:
        cpu = proc_cpu_s(s["pid"]) - s["cpu0"]
        groups = {}
        for g, cyc in sorted(s["cycles"].items()):
            groups[g] = [cyc[t] for t in sorted(cyc)]
        per_cycle = []
        n = min((len(v) for v in groups.values()), default=0)
        for i in range(n):
            per_cycle.append(sum(v[i] for v in groups.values()))
        counters = {}
        for key in ("rule_group_iterations_total", "rule_group_iterations_missed_total",
                    "rule_evaluation_failures_total", "rule_evaluations_total", "rule_group_duration_seconds_sum",
                    "rule_group_evaluation_seconds_total"):
            a = sum(v.get(key, 0.0) for v in (s["first"] or {}).values())
            b = sum(v.get(key, 0.0) for v in (s["last"] or {}).values())
            if any(key in v for v in (s["last"] or {}).values()):
                counters[key] = b - a
        res["servers"][s["label"]] = {
            "kind": s["kind"], "pid": s["pid"], "cpu_s": cpu, "wall_s": wall, "cpu_share": cpu / wall,
            "mem_start_kib": s["mem0"], "mem_end_kib": proc_mem_kib(s["pid"]), "groups": groups,
            "per_cycle_sum_s": per_cycle, "counters": counters,
            "rules_total": sum(v.get("rule_group_rules", 0) for v in (s["last"] or {}).values()),
        }
    res["polls"] = polls
    # Per-rule evaluation times from /api/v1/rules, after the CPU window.
    for s in servers:
        per_rule = {}
        for i in range(args.rules_api):
            if i:
                time.sleep(args.rules_api_gap)
            try:
                doc = json.loads(http_get(s["url"] + "/api/v1/rules", timeout=30))
            except (OSError, ValueError) as e:
                print("rules_data measure: %s /api/v1/rules: %s" % (s["label"], e), file=sys.stderr)
                continue
            for g in doc.get("data", {}).get("groups", []):
                for r in g.get("rules", []):
                    per_rule.setdefault(g["name"] + "/" + r["name"], []).append(
                        {"t": r.get("evaluationTime", 0.0), "health": r.get("health"),
                         "alerts": len(r.get("alerts", []) or []), "error": r.get("lastError", "")})
        res["servers"][s["label"]]["rules"] = per_rule
    with open(args.out, "w") as f:
        json.dump(res, f, indent=0)


# ---------------------------------------------------------------------------------------------
# report


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def ms(x):
    return "%.1f" % (x * 1000) if x == x else "n/a"


def mib(kib):
    return "%.0f" % (kib / 1024.0)


def report_compare(res, a, b, meta):
    A, B = res["servers"][a], res["servers"][b]
    out = []
    la = res["loadavg_start"] + res["loadavg_end"]
    out.append("Window %.0f s after %d s warm-up; load average at start %s, at end %s."
               % (A["wall_s"], res["warmup_s"], "/".join("%.2f" % x for x in la[:3]),
                  "/".join("%.2f" % x for x in la[3:])))
    out.append("")
    out.append("| | %s | %s | %s ÷ %s |" % (a, b, a, b))
    out.append("|---|---:|---:|---:|")
    ma, mb = med(A["per_cycle_sum_s"]), med(B["per_cycle_sum_s"])
    out.append("| median per-cycle evaluation time, all groups summed (ms) | %s | %s | **%.2f** |"
               % (ms(ma), ms(mb), ma / mb if mb else float("nan")))
    sa = sum(med(v) for v in A["groups"].values())
    sb = sum(med(v) for v in B["groups"].values())
    out.append("| sum over groups of each group's median (ms) | %s | %s | %.2f |" % (ms(sa), ms(sb), sa / sb))
    out.append("| cycles seen per group (min–max) | %s | %s | |" % (
        "%d–%d" % (min(map(len, A["groups"].values())), max(map(len, A["groups"].values()))),
        "%d–%d" % (min(map(len, B["groups"].values())), max(map(len, B["groups"].values())))))
    out.append("| CPU seconds over the window (share of one core) | %.2f (%.1f %%) | %.2f (%.1f %%) | %.2f |"
               % (A["cpu_s"], 100 * A["cpu_share"], B["cpu_s"], 100 * B["cpu_share"], A["cpu_s"] / B["cpu_s"]))
    out.append("| VmRSS at the end (MiB); VmHWM | %s; %s | %s; %s | %.2f |" % (
        mib(A["mem_end_kib"]["VmRSS"]), mib(A["mem_end_kib"]["VmHWM"]), mib(B["mem_end_kib"]["VmRSS"]),
        mib(B["mem_end_kib"]["VmHWM"]), A["mem_end_kib"]["VmRSS"] / B["mem_end_kib"]["VmRSS"]))
    fa = A["counters"].get("rule_evaluation_failures_total", 0)
    fb = B["counters"].get("rule_evaluation_failures_total", 0)
    out.append("| rule evaluation failures in the window | %d | %d | |" % (fa, fb))
    mia = A["counters"].get("rule_group_iterations_missed_total", 0)
    mib_ = B["counters"].get("rule_group_iterations_missed_total", 0)
    out.append("| group iterations missed in the window | %d | %d | |" % (mia, mib_))
    out.append("")
    out.append("| group | rules | %s median ms | %s median ms | ratio |" % (a, b))
    out.append("|---|---:|---:|---:|---:|")
    counts = {}
    for r in meta.get("rules", []):
        counts[r["group"]] = counts.get(r["group"], 0) + 1
    for g in sorted(set(A["groups"]) | set(B["groups"])):
        x, y = med(A["groups"].get(g, [])), med(B["groups"].get(g, []))
        out.append("| %s | %s | %s | %s | %.2f |" % (g, counts.get(g, "?"), ms(x), ms(y), x / y if y else float("nan")))
    # per template (rule kind), from /api/v1/rules
    tmpl = {(r["group"] + "/" + r["rule"]): r["template"] for r in meta.get("rules", [])}
    by_t = {}
    for key, t in tmpl.items():
        ra, rb = A["rules"].get(key), B["rules"].get(key)
        if not ra or not rb:
            continue
        d = by_t.setdefault(t, [0.0, 0.0, 0])
        d[0] += med([x["t"] for x in ra])
        d[1] += med([x["t"] for x in rb])
        d[2] += 1
    if by_t:
        out.append("")
        out.append("Per rule template (/api/v1/rules evaluationTime, median of the samples, summed over the "
                   "template's rules), the 12 where %s spends the most:" % a)
        out.append("")
        out.append("| template | rules | %s ms | %s ms | ratio |" % (a, b))
        out.append("|---|---:|---:|---:|---:|")
        for t, (x, y, n) in sorted(by_t.items(), key=lambda kv: -kv[1][0])[:12]:
            out.append("| %s | %d | %.2f | %.2f | %.2f |" % (t, n, x * 1000, y * 1000, x / y if y else float("nan")))
        worst = sorted(((x / y if y else 0, t) for t, (x, y, n) in by_t.items() if y), reverse=True)[:5]
        out.append("")
        out.append("Highest %s ÷ %s ratio per template: %s." % (a, b, ", ".join("%s %.2f" % (t, r) for r, t in worst)))
    errs = {}
    for lab, S in ((a, A), (b, B)):
        for key, samples in S.get("rules", {}).items():
            e = samples[-1].get("error") if samples else ""
            if e:
                errs.setdefault(lab, []).append("%s: %s" % (key, e))
    for lab, lst in errs.items():
        out.append("")
        out.append("%s rule errors (%d): %s" % (lab, len(lst), "; ".join(lst[:5])))
    return "\n".join(out)


def report_agents(res):
    out = []
    la = res["loadavg_start"] + res["loadavg_end"]
    out.append("Window %.0f s after %d s warm-up, the agents side by side; load average at start %s, at end %s."
               % (next(iter(res["servers"].values()))["wall_s"], res["warmup_s"],
                  "/".join("%.2f" % x for x in la[:3]), "/".join("%.2f" % x for x in la[3:])))
    out.append("")
    out.append("| agent | CPU s | share of one core | rules | cycles (min per group) | per-cycle evaluation, "
               "all groups summed: median ms | mean ms (duration_sum ÷ iterations) | VmRSS MiB |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for lab, S in res["servers"].items():
        n = min(map(len, S["groups"].values()), default=0)
        c = S["counters"]
        it = c.get("rule_group_iterations_total", 0)
        groups = max(1, len(S["groups"]))
        # Prometheus: the summary's _sum; llmon: llmon_rule_group_evaluation_seconds_total.
        total_s = c.get("rule_group_duration_seconds_sum", c.get("rule_group_evaluation_seconds_total", 0))
        mean = (total_s / (it / groups)) if it else float("nan")
        out.append("| %s | %.2f | %.2f %% | %d | %d | %s | %s | %s |" % (
            lab, S["cpu_s"], 100 * S["cpu_share"], S["rules_total"], n, ms(med(S["per_cycle_sum_s"])), ms(mean),
            mib(S["mem_end_kib"]["VmRSS"])))
    return "\n".join(out)


def cmd_report(args):
    meta = {}
    if args.meta:
        with open(args.meta) as f:
            meta = json.load(f)
    with open(args.json) as f:
        res = json.load(f)
    if args.a and args.b:
        print(report_compare(res, args.a, args.b, meta))
    else:
        print(report_agents(res))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="one 8-GPU node's history")
    d.add_argument("--end", type=int, required=True, help="end of the data, epoch seconds")
    d.add_argument("--hours", type=float, default=2.0)
    d.add_argument("--step-s", type=int, default=15)
    d.add_argument("--seed", type=int, default=20241130)
    d.add_argument("--openmetrics")
    d.add_argument("--prom")
    d.add_argument("--meta")
    d.add_argument("--ahead", type=int, default=0, help="seconds of data after --end, for the feeder")
    d.add_argument("--future", help="the samples after --end: TIMESTAMP_MS TAB SERIES TAB VALUE, by time")
    f = sub.add_parser("feed", help="push/serve --future's samples as they come due (runs until killed)")
    f.add_argument("--future", required=True)
    f.add_argument("--end", type=int, required=True, help="data's end (epoch s): samples after it are fed")
    f.add_argument("--push", help="llmon's URL (its /api/v1/import/prometheus, --web.enable-import)")
    f.add_argument("--push-every", type=float, default=5.0)
    f.add_argument("--port-file", required=True, help="where the /metrics page's port is written")
    r = sub.add_parser("rules", help="the benchmark's rule file")
    r.add_argument("--out", required=True)
    r.add_argument("--meta")
    r.add_argument("--groups", type=int, default=10)
    r.add_argument("--per-group", type=int, default=100)
    r.add_argument("--interval", default="5s")
    m = sub.add_parser("measure", help="poll servers' rule metrics, CPU and RSS")
    m.add_argument("--server", action="append", required=True, help="LABEL:KIND:URL:PID")
    m.add_argument("--warmup", type=int, default=20)
    m.add_argument("--window", type=int, default=120)
    m.add_argument("--poll", type=float, default=2.0)
    m.add_argument("--rules-api", type=int, default=3, help="samples of /api/v1/rules after the window")
    m.add_argument("--rules-api-gap", type=float, default=5.0)
    m.add_argument("--out", required=True)
    p = sub.add_parser("report", help="Markdown from measure's JSON")
    p.add_argument("json")
    p.add_argument("--meta", help="rules' JSON map (group sizes, templates)")
    p.add_argument("--a", help="label of the first server of a comparison (ratio numerator)")
    p.add_argument("--b")
    args = ap.parse_args()
    commands = {"data": cmd_data, "feed": cmd_feed, "rules": cmd_rules, "measure": cmd_measure, "report": cmd_report}
    commands[args.cmd](args)


if __name__ == "__main__":
    main()
