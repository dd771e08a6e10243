#!/usr/bin/env python3
"""One GPU host's history for the PromQL latency benchmark (bench/promql_compare.sh).

Reuses the differential test's generator (tests/promql/diff/gen_data.py: its
Builder, Target and both writers) for a bigger, single host shaped like what a
Grafana dashboard reads: by default 24 h at 15 s of

  * node_exporter: node_cpu_seconds_total for 16 CPUs x 8 modes (1/100 s
    counters), 4 NICs (receive/transmit bytes), 3 disks (read/written bytes,
    I/O time), 5 memory gauges, load1/load5, a filesystem, boot time, uname;
  * dcgm-exporter: 8 GPUs x 8 DCGM_FI_DEV_* fields (utilisation, framebuffer
    used/free, power, temperature, energy counter, SM clock, memory copy
    utilisation);
  * the trainer: step_time_seconds, a classic histogram with 12 buckets
    (+ _sum and _count) and a train_loss gauge.

No gaps, resets or NaN here (the differential test covers those): this is the
steady-state shape a dashboard reads. Values depend only on --seed and the
sample index; timestamps carry a scrape phase and a few ms of jitter per
target, like real scrapes. Output is the same samples twice: OpenMetrics (for
`promtool tsdb create-blocks-from openmetrics`) and Prometheus text with ms
timestamps (for `llmon tsdb import`), plus a JSON summary.

Usage: promql_data.py --end EPOCH_S [--hours 24] [--step-s 15] --openmetrics OUT.om --prom OUT.prom --meta OUT.json
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "promql", "diff"))
import gen_data  # noqa: E402  (the differential test's generator)

HOST = "gpu-node-1"
NICS = [("eth0", 1.2e8), ("eth1", 4.0e7), ("ib0", 9.0e8), ("lo", 3.0e5)]
DISKS = ["nvme0n1", "nvme1n1", "sda"]
N_CPUS = 16
N_GPUS = 8
HIST_BOUNDS = ["0.025", "0.05", "0.1", "0.25", "0.5", "0.75", "1", "1.5", "2.5", "5", "10", "+Inf"]


class BenchBuilder(gen_data.Builder):
    def __init__(self, seed, end_s, hours, step_s):
        super().__init__(seed, end_s, step_s, step_s)
        self.start_ms = self.end_ms - int(hours * 3600) * 1000

    def target(self, phase_ms):
        return gen_data.Target(self.rng, self.start_ms, self.end_ms, self.step_ms, phase_ms)

    # -- node_exporter -------------------------------------------------------

    def host(self):
        base = [("instance", HOST + ":9100"), ("job", "node")]
        tgt = self.target(1000)
        self.cpu(tgt, base, N_CPUS, 0)  # gen_data: 8 modes, /proc/stat-like counters
        self.nics(tgt, base)
        self.disks(tgt, base)
        self.memory_fields(tgt, base)
        self.load(tgt, base, 0)
        self.filesystem(tgt, base, 0)
        boot = self.add("node_boot_time_seconds", "gauge", "Node boot time, in unixtime.", "node_boot_time_seconds",
                        base)
        uname = self.add("node_uname_info", "gauge",
                         "Labeled system information as provided by the uname system call.", "node_uname_info",
                         base + [("nodename", HOST), ("release", "6.1.0-17-amd64")])
        boot_s = self.start_ms // 1000 - 3 * 86400 + 17
        for t in tgt.times:
            boot.samples.append((t, float(boot_s)))
            uname.samples.append((t, 1.0))

    def nics(self, tgt, base):
        rng = self.rng
        for dev, rate in NICS:
            for direction in ("receive", "transmit"):
                s = self.add("node_network_%s_bytes" % direction, "counter",
                             "Network device statistic %s_bytes." % direction,
                             "node_network_%s_bytes_total" % direction, base[:1] + [("device", dev)] + base[1:])
                v = rng.randint(10**9, 10**11)
                for t in tgt.times:
                    v += int(rate * 15 * (0.3 + rng.random()))
                    s.samples.append((t, float(v)))

    def disks(self, tgt, base):
        rng = self.rng
        for dev in DISKS:
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

    def memory_fields(self, tgt, base):
        rng = self.rng
        total = float(2**30 * 1024)
        fields = {f: self.add("node_memory_%s_bytes" % f, "gauge", "Memory information field %s_bytes." % f,
                              "node_memory_%s_bytes" % f, base)
                  for f in ("MemTotal", "MemAvailable", "MemFree", "Cached", "Buffers")}
        avail = total * 0.6
        for t in tgt.times:
            avail = min(total * 0.95, max(total * 0.05, avail + rng.gauss(0, total * 0.01)))
            a = float(int(avail) // 4096 * 4096)
            cached = float(int(a * (0.55 + 0.05 * rng.random())) // 4096 * 4096)
            fields["MemTotal"].samples.append((t, total))
            fields["MemAvailable"].samples.append((t, a))
            fields["MemFree"].samples.append((t, a - cached))
            fields["Cached"].samples.append((t, cached))
            fields["Buffers"].samples.append((t, float(2**20 * rng.randint(200, 260))))

    # -- dcgm-exporter -------------------------------------------------------

    def gpus(self):
        rng = self.rng
        tgt = self.target(4321)
        for gpu in range(N_GPUS):
            uuid = "GPU-%08x-%04x-%04x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16),
                                                      rng.getrandbits(16), rng.getrandbits(48))
            labels = [("DCGM_FI_DRIVER_VERSION", "535.129.03"), ("Hostname", HOST), ("UUID", uuid),
                      ("device", "nvidia%d" % gpu), ("gpu", str(gpu)), ("instance", HOST + ":9400"), ("job", "dcgm"),
                      ("modelName", gen_data.GPU_MODEL)]

            def mk(name, mtype, h):
                return self.add(name, mtype, h, name, labels)

            util = mk("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).")
            fb_used = mk("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).")
            fb_free = mk("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).")
            power = mk("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).")
            temp = mk("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).")
            energy = mk("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
                        "Total energy consumption since boot (in mJ).")
            sm_clock = mk("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).")
            copy_util = mk("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).")
            used = rng.randint(20000, 70000)
            e = rng.randint(10**9, 10**11)
            tc = 45.0
            for i, t in enumerate(tgt.times):
                u = int(max(0, min(100, 70 + 30 * math.sin(i / 25.0 + gpu) + rng.gauss(0, 8))))
                used = max(1000, min(gen_data.FB_TOTAL_MIB - 500, used + rng.randint(-800, 800)))
                p = round(90 + 6 * u * (0.9 + 0.2 * rng.random()), 3)
                tc = tc + (35 + u * 0.45 - tc) * 0.3
                e += int(p * (15000 if i else 0))
                util.samples.append((t, float(u)))
                fb_used.samples.append((t, float(used)))
                fb_free.samples.append((t, float(gen_data.FB_TOTAL_MIB - used - 423)))
                power.samples.append((t, p))
                temp.samples.append((t, float(int(tc))))
                energy.samples.append((t, float(e)))
                sm_clock.samples.append((t, float(1980 if u > 5 else 345)))
                copy_util.samples.append((t, float(int(u * (0.3 + 0.2 * rng.random())))))

    # -- the trainer -----------------------------------------------------------

    def trainer_hist(self):
        rng = self.rng
        base = [("instance", HOST + ":8000"), ("job", "trainer")]
        tgt = self.target(9000)
        buckets = [self.add("step_time_seconds", "histogram", "Training step duration.", "step_time_seconds_bucket",
                            base[:1] + [("le", le)] + base[1:]) for le in HIST_BOUNDS]
        ssum = self.add("step_time_seconds", "histogram", "Training step duration.", "step_time_seconds_sum", base)
        scount = self.add("step_time_seconds", "histogram", "Training step duration.", "step_time_seconds_count", base)
        loss = self.add("train_loss", "gauge", "Training loss of the last step.", "train_loss", base)
        bounds = [float(le) for le in HIST_BOUNDS]
        counts = [0] * len(bounds)
        total = 0.0
        lv = 3.2
        for i, t in enumerate(tgt.times):
            for _ in range(rng.randint(5, 30)):
                d = rng.lognormvariate(math.log(0.4 + 0.2 * math.sin(i / 200.0)), 0.6)
                total += d
                for bi, le in enumerate(bounds):
                    if d <= le:
                        counts[bi] += 1
            for bi, b in enumerate(buckets):
                b.samples.append((t, float(counts[bi])))
            ssum.samples.append((t, round(total, 6)))
            scount.samples.append((t, float(counts[-1])))
            lv = max(0.05, lv * (0.9999 - 0.00005 * rng.random()) + rng.gauss(0, 0.005))
            loss.samples.append((t, round(lv, 5)))

    def build(self):
        self.host()
        self.gpus()
        self.trainer_hist()
        return self.series


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--end", type=int, required=True, help="end of the data, epoch seconds (a multiple of 60 is neat)")
    ap.add_argument("--hours", type=float, default=24.0, help="length of the history")
    ap.add_argument("--step-s", type=int, default=15, help="scrape interval")
    ap.add_argument("--seed", type=int, default=20240305)
    ap.add_argument("--openmetrics", help="OpenMetrics output (for promtool)")
    ap.add_argument("--prom", help="Prometheus text output with ms timestamps (for llmon tsdb import)")
    ap.add_argument("--meta", help="JSON summary: time range, series and sample counts")
    args = ap.parse_args()
    if args.hours <= 0 or args.step_s <= 0:
        ap.error("--hours and --step-s must be positive")

    b = BenchBuilder(args.seed, args.end, args.hours, args.step_s)
    series = b.build()
    if args.openmetrics:
        gen_data.write_openmetrics(series, b.families, args.openmetrics)
    if args.prom:
        gen_data.write_prom(series, b.families, args.prom)
    nsamples = sum(len(s.samples) for s in series)
    by_name = {}
    for s in series:
        by_name[s.name] = by_name.get(s.name, 0) + 1
    meta = {"start": b.start_ms / 1000.0, "end": b.end_ms / 1000.0, "hours": args.hours, "step_s": args.step_s,
            "seed": args.seed, "series": len(series), "samples": nsamples, "series_by_name": by_name}
    if args.meta:
        with open(args.meta, "w") as f:
            json.dump(meta, f, indent=1)
    print("promql_data: %d series, %d samples, %s .. %s" % (len(series), nsamples, meta["start"], meta["end"]),
          file=sys.stderr)


if __name__ == "__main__":
    main()
