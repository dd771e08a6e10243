#!/usr/bin/env python3
"""Deterministic fleet data for the deploy/grafana/ dashboards (grafana_fleet_test.sh).

One hour at 15 s, as Prometheus would have scraped it, of three nodes with
four H100s each:
  * gpu-node-1, gpu-node-2 train one model: llmon on :8747 (job "llmon":
    node_exporter 1.5 names, dcgm-exporter's DCGM_FI_* with gpu, UUID,
    pci_bus_id, device, modelName, Hostname, DCGM_FI_DRIVER_VERSION,
    llmon_gpu_* families) and the trainer on :8000 (job "trainer":
    trainer_step_duration_seconds and trainer_nccl_collective_duration_seconds
    histograms, the latter per collective);
  * infer-node-1 serves two models with vLLM on :8000 and :8001 (job "vllm":
    vllm:* names and buckets as vLLM exposes them, label model_name; the
    first as vLLM 0.11 and later name things, the second as older ones).
Stories the dashboards must show: gpu-node-2 GPU 1 leaks memory towards an
OOM, gpu-node-1 GPU 3 runs hot and throttles, gpu-node-2 is the straggler
(slower steps, slower all-reduce after 30 minutes), gpu-node-2's trainer
restarts 40 minutes in (2 minutes down, every counter back to 0), gpu-node-2
GPU 3 reports Xid 79 twice from minute 50, vLLM's queue builds up in a burst. Every target also has `up`.

Writes the same samples as OpenMetrics (for `promtool tsdb create-blocks-from
openmetrics`) and as Prometheus text with ms timestamps (for `llmon tsdb
import`), with tests/promql/diff/gen_data.py's writers and node_exporter
series. Values depend only on --seed and the sample index, never on --end.

Usage: grafana_fleet_data.py --end EPOCH_S [--openmetrics OUT.om] [--prom OUT.prom] [--meta OUT.json]
                             [--perturb METRIC]
"""

import argparse
import bisect
import json
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "promql", "diff"))
import gen_data  # noqa: E402  (node_exporter series, Target, the two writers)

SPAN_S = 3600
STEP_S = 15
GPUS = 4
GPU_MODEL = "NVIDIA H100 80GB HBM3"
FB_TOTAL_MIB = 81559
FB_RESERVED_MIB = 423
POWER_LIMIT_W = 700.0
DRIVER = "550.54.15"
TRAIN_HOSTS = ["gpu-node-1", "gpu-node-2"]
INFER_HOST = "infer-node-1"
MODELS = [("infer-node-1:8000", "meta-llama/Llama-3.1-8B-Instruct"),
          ("infer-node-1:8001", "mistralai/Mistral-7B-Instruct-v0.3")]
THROTTLE_REASONS = ["gpu_idle", "sw_power_cap", "hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown"]

STEP_BOUNDS = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0]
NCCL_BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0]
COLLECTIVES = [("all_reduce", 6, 0.012), ("all_gather", 2, 0.004), ("reduce_scatter", 2, 0.005)]
# vLLM's own buckets (vllm/engine/metrics.py).
TTFT_BOUNDS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
TPOT_BOUNDS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
E2E_BOUNDS = [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]


def le_text(bound):
    """`le` as Python's prometheus_client writes it (vLLM, most trainers): 1.0, 0.25, +Inf."""
    return "+Inf" if bound is None else repr(float(bound))


class Histogram:
    """A classic histogram of one label set: cumulative buckets, _sum, _count."""

    def __init__(self, b, family, help_text, labels, bounds):
        self.bounds = bounds
        before, after = labels[:1], labels[1:]  # `le` sorts after `instance`, like the other labels
        self.buckets = [b.add(family, "histogram", help_text, family + "_bucket",
                              sorted(before + after + [("le", le_text(x))]))
                        for x in bounds + [None]]
        self.sum = b.add(family, "histogram", help_text, family + "_sum", labels)
        self.count = b.add(family, "histogram", help_text, family + "_count", labels)
        self.reset()

    def reset(self):
        self.counts = [0] * (len(self.bounds) + 1)
        self.total = 0.0

    def observe(self, v):
        self.counts[bisect.bisect_left(self.bounds, v)] += 1
        self.total += v

    def sample(self, t):
        c = 0
        for s, n in zip(self.buckets, self.counts):
            c += n
            s.samples.append((t, float(c)))
        self.sum.samples.append((t, round(self.total, 6)))
        self.count.samples.append((t, float(c)))


class Fleet(gen_data.Builder):
    def __init__(self, seed, end_s):
        super().__init__(seed, end_s, STEP_S, 1)
        self.start_ms = self.end_ms - SPAN_S * 1000

    def target(self, phase_ms, gaps=()):
        return gen_data.Target(self.rng, self.start_ms, self.end_ms, self.step_ms, phase_ms, gaps)

    def up(self, tgt, base, down=()):
        """`up` at every scrape time of the target, 0 inside `down` (then nothing else is written)."""
        s = self.add("up", "gauge", "1 if the target answered the scrape.", "up", base)
        t = self.start_ms + (tgt.times[0] - self.start_ms) % self.step_ms if tgt.times else self.start_ms
        times = sorted(set(tgt.times) | {x for a, b in down for x in range(t, b, self.step_ms) if x >= a})
        for x in times:
            s.samples.append((x, 0.0 if any(a <= x < b for a, b in down) else 1.0))

    # -- llmon on every node: node_exporter names, DCGM_FI_*, llmon_gpu_* -------

    def llmon(self, hi, host, training):
        inst = host + ":8747"
        base = [("instance", inst), ("job", "llmon")]
        tgt = self.target(1000 + 3700 * hi)
        self.up(tgt, base)
        self.cpu(tgt, base, 8, hi)
        self.network(tgt, base, hi)
        self.disk(tgt, base, hi)
        self.memory(tgt, base, hi)
        self.load(tgt, base, hi)
        self.filesystem(tgt, base, hi)
        size = self.add("node_filesystem_size_bytes", "gauge", "Filesystem size in bytes.", "node_filesystem_size_bytes",
                        base[:1] + [("device", "/dev/nvme0n1p2"), ("fstype", "ext4"), ("mountpoint", "/")] + base[1:])
        uname = self.add("node_uname_info", "gauge", "Labeled system information as provided by the uname system call.",
                         "node_uname_info", [("domainname", "(none)")] + base[:1] +
                         [("job", "llmon"), ("machine", "x86_64"), ("nodename", host),
                          ("release", "6.1.0-18-amd64"), ("sysname", "Linux"), ("version", "#1 SMP Debian")])
        for t in tgt.times:
            size.samples.append((t, 1.9e12))
            uname.samples.append((t, 1.0))
        for gpu in range(GPUS):
            self.gpu(tgt, base, hi, host, gpu, training)

    def gpu(self, tgt, base, hi, host, gpu, training):
        rng = self.rng
        uuid = "GPU-%08x-%04x-%04x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16),
                                                  rng.getrandbits(16), rng.getrandbits(48))
        dev = [("gpu", str(gpu)), ("UUID", uuid), ("pci_bus_id", "00000000:%02X:00.0" % (0x18 + 0x20 * gpu)),
               ("device", "nvidia%d" % gpu), ("modelName", GPU_MODEL), ("Hostname", host),
               ("DCGM_FI_DRIVER_VERSION", DRIVER)] + base

        def mk(name, mtype, h, extra=()):
            return self.add(name, mtype, h, name, dev + list(extra))

        util = mk("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).")
        tensor = mk("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge", "Ratio of cycles the tensor (HMMA) pipe is active.")
        used_s = mk("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).")
        free_s = mk("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).")
        temp_s = mk("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).")
        mtemp_s = mk("DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).")
        power_s = mk("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).")
        limit_s = mk("DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "gauge", "Power limit the driver enforces (in W).")
        pviol = mk("DCGM_FI_DEV_POWER_VIOLATION", "counter", "Time clocks were held down by the power limit (in ns).")
        tviol = mk("DCGM_FI_DEV_THERMAL_VIOLATION", "counter", "Time clocks were held down by thermal limits (in ns).")
        nvtx = mk("llmon_gpu_nvlink_transmit_bytes", "counter", "NVLink data transmitted, all links.")
        nvrx = mk("llmon_gpu_nvlink_receive_bytes", "counter", "NVLink data received, all links.")
        for s in (nvtx, nvrx):
            s.name += "_total"
        reasons = {r: self.add("llmon_gpu_clock_event_reason_active", "gauge",
                               "1 while the clock event (throttle) reason is active.",
                               "llmon_gpu_clock_event_reason_active", dev + [("reason", r)])
                   for r in THROTTLE_REASONS}
        # gpu-node-2 GPU 3 reports Xid 79 (fallen off the bus, recovered) twice, from minute 50:
        # the labelled counter exists from its first event, as llmon's event watcher makes it.
        xid = None
        if training and hi == 1 and gpu == 3:
            xid = self.add("llmon_gpu_xid_errors", "counter", "Xid errors the driver reported, by Xid.",
                           "llmon_gpu_xid_errors_total", dev + [("xid", "79")])
        pid = 4000 + 100 * hi + gpu
        proc = self.add("llmon_gpu_process_memory_bytes", "gauge", "GPU memory used by the process.",
                        "llmon_gpu_process_memory_bytes",
                        dev[:7] + [("pid", str(pid)), ("command", "python3" if training else "vllm"),
                                   ("user", "train" if training else "serve"), ("container", "worker"),
                                   ("pod", "%s-%d" % ("llama-train" if training else "vllm", hi)),
                                   ("namespace", "ml")] + base)
        leak = training and hi == 1 and gpu == 1  # grows towards the OOM
        hot = training and hi == 0 and gpu == 3  # poor airflow: thermal throttling
        used = (30000 + 2500 * gpu + 1000 * hi) if leak else rng.randint(52000, 70000)
        pv = rng.randint(10**9, 10**11)
        tv = rng.randint(10**8, 10**10) if hot else 0
        tx, rx = rng.randint(10**12, 10**14), rng.randint(10**12, 10**14)
        tc = 60.0 if hot else 40.0
        for i, t in enumerate(tgt.times):
            phase = math.sin(i / 25.0 + gpu + hi)
            if training:
                u = int(max(0, min(100, 88 + 10 * phase + rng.gauss(0, 4))))
            else:
                u = int(max(0, min(100, 45 + 35 * math.sin(i / 40.0 + gpu) + rng.gauss(0, 6))))
            if leak:
                used = min(FB_TOTAL_MIB - FB_RESERVED_MIB - 200, used + rng.randint(80, 260))
            else:
                used = max(20000, min(FB_TOTAL_MIB - 2000, used + rng.randint(-300, 300)))
            p = round(min(POWER_LIMIT_W + 5, 120 + 6.4 * u * (0.92 + 0.12 * rng.random())), 3)
            tc += ((51 if hot else 33) + u * (0.4 if hot else 0.3) - tc) * 0.25 + rng.gauss(0, 0.3)
            temp = int(tc)
            power_capped = p >= POWER_LIMIT_W - 20
            thermal = temp >= 85
            pv += int(STEP_S * 1e9 * (0.3 + 0.4 * rng.random())) if power_capped else 0
            tv += int(STEP_S * 1e9 * (0.2 + 0.6 * rng.random())) if thermal else 0
            link = (2.0e11 if training else 6.0e9) * u / 100.0
            tx += int(STEP_S * link * (0.9 + 0.2 * rng.random()))
            rx += int(STEP_S * link * (0.9 + 0.2 * rng.random()))
            util.samples.append((t, float(u)))
            tensor.samples.append((t, round(u / 100.0 * (0.55 if training else 0.3) * (0.9 + 0.1 * rng.random()), 4)))
            used_s.samples.append((t, float(used)))
            free_s.samples.append((t, float(FB_TOTAL_MIB - FB_RESERVED_MIB - used)))
            temp_s.samples.append((t, float(temp)))
            mtemp_s.samples.append((t, float(temp + 4)))
            power_s.samples.append((t, p))
            limit_s.samples.append((t, POWER_LIMIT_W))
            pviol.samples.append((t, float(pv)))
            tviol.samples.append((t, float(tv)))
            nvtx.samples.append((t, float(tx)))
            nvrx.samples.append((t, float(rx)))
            active = {"gpu_idle": u < 5, "sw_power_cap": power_capped, "hw_slowdown": False,
                      "sw_thermal_slowdown": thermal, "hw_thermal_slowdown": temp >= 88}
            for r, s in reasons.items():
                s.samples.append((t, 1.0 if active[r] else 0.0))
            proc.samples.append((t, float((used - 510) * 1048576)))
            if xid is not None and t >= self.start_ms + 3000 * 1000:
                xid.samples.append((t, 1.0 if t < self.start_ms + 3300 * 1000 else 2.0))

    # -- the trainer: step time and NCCL collectives -------------------------------

    def trainer(self, hi, host):
        rng = self.rng
        inst = host + ":8000"
        base = [("instance", inst), ("job", "trainer")]
        restart = (self.start_ms + 2400 * 1000, self.start_ms + 2520 * 1000) if hi == 1 else None
        tgt = self.target(9000 + 2500 * hi, [restart] if restart else [])
        self.up(tgt, base, [restart] if restart else [])
        step = Histogram(self, "trainer_step_duration_seconds", "Wall time of one optimizer step.", base, STEP_BOUNDS)
        nccl = {c: Histogram(self, "trainer_nccl_collective_duration_seconds",
                             "Duration of one NCCL collective, launch to completion.", base[:1] + [("collective", c)] +
                             base[1:], NCCL_BOUNDS) for c, _, _ in COLLECTIVES}
        restarted = False
        for i, t in enumerate(tgt.times):
            if restart and not restarted and t >= restart[1]:
                step.reset()
                for h in nccl.values():
                    h.reset()
                restarted = True
            straggle = hi == 1 and t >= self.start_ms + 1800 * 1000  # a slow link from minute 30
            median = (0.78 + 0.07 * hi) * (1.25 if straggle else 1.0)
            elapsed = 0.0
            while elapsed < STEP_S:
                d = rng.lognormvariate(math.log(median), 0.18 if rng.random() > 0.03 else 0.6)
                elapsed += d
                step.observe(d)
                for c, per_step, m in COLLECTIVES:
                    for _ in range(per_step):
                        slow = 2.2 if (straggle and c == "all_reduce") else 1.0
                        nccl[c].observe(rng.lognormvariate(math.log(m * slow), 0.35))
            step.sample(t)
            for h in nccl.values():
                h.sample(t)

    # -- vLLM ------------------------------------------------------------------------

    def vllm(self, mi, inst, model):
        rng = self.rng
        base = [("instance", inst), ("job", "vllm")]
        # The first server runs vLLM >= 0.11 (an engine label, inter_token_latency and
        # kv_cache_usage_perc), the second an older one (time_per_output_token, gpu_cache_usage_perc).
        new = mi == 0
        labels = ([("engine", "0")] if new else []) + base + [("model_name", model)]
        tgt = self.target(4000 + 6000 * mi)
        self.up(tgt, base)

        def gauge(name, h):
            return self.add(name, "gauge", h, name, labels)

        def counter(family, h, extra=()):
            return self.add(family, "counter", h, family + "_total", sorted(labels + list(extra)))

        running = gauge("vllm:num_requests_running", "Number of requests currently running on GPU.")
        waiting = gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.")
        cache = gauge("vllm:kv_cache_usage_perc" if new else "vllm:gpu_cache_usage_perc",
                      "KV-cache usage. 1 means 100 percent usage.")
        prompt = counter("vllm:prompt_tokens", "Number of prefill tokens processed.")
        gen = counter("vllm:generation_tokens", "Number of generation tokens processed.")
        ok = {r: counter("vllm:request_success", "Count of successfully processed requests.", [("finished_reason", r)])
              for r in ("stop", "length")}
        ttft = Histogram(self, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                         labels, TTFT_BOUNDS)
        tpot = Histogram(self, "vllm:inter_token_latency_seconds" if new else "vllm:time_per_output_token_seconds",
                         "Histogram of inter-token latency in seconds." if new else
                         "Histogram of time per output token in seconds.", labels, TPOT_BOUNDS)
        e2e = Histogram(self, "vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.",
                        labels, E2E_BOUNDS)
        npt, ngt = rng.randint(10**6, 10**8), rng.randint(10**6, 10**8)
        nok = {"stop": 0, "length": 0}
        for i, t in enumerate(tgt.times):
            burst = 1.0 + (1.5 if 120 <= i < 150 and mi == 0 else 0.0)  # a traffic burst 30 minutes in
            load = (0.6 + 0.3 * math.sin(i / 30.0 + mi)) * burst
            reqs = max(0, int(rng.gauss(18 * load, 3)))
            queue = max(0, int(rng.gauss(12 * (load - 1.1), 2))) if load > 1.1 else 0
            for _ in range(reqs):
                p_tokens = rng.randint(200, 3000)
                g_tokens = rng.randint(20, 600)
                npt += p_tokens
                ngt += g_tokens
                nok["length" if g_tokens >= 590 else "stop"] += 1
                first = rng.lognormvariate(math.log(0.08 + 0.0001 * p_tokens * (1 + queue / 4.0)), 0.4)
                per_tok = rng.lognormvariate(math.log(0.02 * (1 + 0.4 * load)), 0.25)
                ttft.observe(first)
                for _ in range(4):  # one observation per output token; a few stand for them
                    tpot.observe(rng.lognormvariate(math.log(0.02 * (1 + 0.4 * load)), 0.3))
                e2e.observe(first + per_tok * g_tokens)
            running.samples.append((t, float(max(0, int(rng.gauss(24 * load, 3))))))
            waiting.samples.append((t, float(queue)))
            cache.samples.append((t, round(min(1.0, 0.25 + 0.5 * load + rng.gauss(0, 0.03)), 4)))
            prompt.samples.append((t, float(npt)))
            gen.samples.append((t, float(ngt)))
            for r, s in ok.items():
                s.samples.append((t, float(nok[r])))
            ttft.sample(t)
            tpot.sample(t)
            e2e.sample(t)

    def build(self):
        for hi, host in enumerate(TRAIN_HOSTS):
            self.llmon(hi, host, True)
            self.trainer(hi, host)
        self.llmon(2, INFER_HOST, False)
        for mi, (inst, model) in enumerate(MODELS):
            self.vllm(mi, inst, model)
        return self.series


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--end", type=int, required=True, help="end of the data, epoch seconds (a multiple of 60)")
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--openmetrics", help="OpenMetrics output (for promtool)")
    ap.add_argument("--prom", help="Prometheus text output with ms timestamps (for llmon tsdb import)")
    ap.add_argument("--meta")
    ap.add_argument("--perturb", metavar="METRIC", help="change one sample of the first series named METRIC")
    args = ap.parse_args()
    b = Fleet(args.seed, args.end)
    series = b.build()
    if args.perturb:
        print("grafana_fleet_data: perturbed " + gen_data.perturb(series, args.perturb), file=sys.stderr)
    if args.openmetrics:
        gen_data.write_openmetrics(series, b.families, args.openmetrics)
    if args.prom:
        gen_data.write_prom(series, b.families, args.prom)
    n = sum(len(s.samples) for s in series)
    meta = {"start": b.start_ms / 1000.0, "end": b.end_ms / 1000.0, "step_s": STEP_S, "series": len(series),
            "samples": n}
    if args.meta:
        with open(args.meta, "w") as f:
            json.dump(meta, f, indent=1)
    print("grafana_fleet_data: %d series, %d samples, %s .. %s" % (len(series), n, meta["start"], meta["end"]),
          file=sys.stderr)


if __name__ == "__main__":
    main()
