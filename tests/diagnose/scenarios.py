#!/usr/bin/env python3
"""Labelled synthetic histories for `llmon diagnose` (issue 17): deterministic,
seeded scenarios of one GPU node, written as Prometheus text with millisecond
timestamps (the input of `llmon tsdb import FILE --storage.path=DIR`) plus a
JSON ground-truth file per run. Metric names and label sets are the ones llmon
stores (docs/metrics.md, tests/golden/gpu_h100x8.txt); every series carries
job="llmon",instance="node1:8747". Standard library only.

  scenarios.py list
  scenarios.py write OUTDIR [--only NAME[,NAME]] [--seeds N] [--hours H] [--step S]
                            [--end UNIX_S] [--gzip]
  scenarios.py selftest

See docs/diagnosis-scenarios.md for every scenario, its ground truth and the
noise model."""
import argparse
import gzip
import hashlib
import io
import json
import math
import os
import random
import re
import sys
import zlib

# ---------------------------------------------------------------- constants
GPU_IDS = [
    ("GPU-4f6c2a1e-9b3d-7e85-0c14-a2d8f61b93e7", "00000000:18:00.0"),
    ("GPU-b81d05c3-2e7a-4f69-d3a0-5c9e17b4826f", "00000000:2A:00.0"),
    ("GPU-0e93d7a4-61c8-b25f-7a3e-d04f8c1e65b2", "00000000:3A:00.0"),
    ("GPU-7a25c8e1-d439-0b6f-e812-39c4a7d05f1b", "00000000:5D:00.0"),
    ("GPU-c3f1946b-85ae-2d07-b6c9-e1a5408d7f32", "00000000:9A:00.0"),
    ("GPU-95e7b0d2-3c6f-a841-5e2d-8b07f3c1a9e4", "00000000:AB:00.0"),
    ("GPU-2d8a4f17-e0b5-69c3-f4a1-7e6d2b9c0853", "00000000:BA:00.0"),
    ("GPU-e6b3720c-a91d-4e58-2f07-c5d8b1a36e9f", "00000000:DB:00.0"),
]
MODEL = "NVIDIA H100 80GB HBM3"
DRIVER = "550.54.15"
HOSTNAME = "node1"
COMMON = 'job="llmon",instance="node1:8747"'
FB_TOTAL = 81559          # MiB, DCGM_FI_DEV_FB_TOTAL of the golden H100
FB_RESERVED = 579
FB_CAP = FB_TOTAL - FB_RESERVED   # FB_USED + FB_FREE
MAX_CLK = 1980
IDLE_CLK = 345
TDP = 700.0
IDLE_W = 72.0
SLOWDOWN = 89
SW_THERM = 85.0           # sw thermal slowdown starts ~4 C under the slowdown temperature
NCPU = 12                 # logical CPUs written (a small host keeps the files small)
CPU_MODES = ("user", "system", "iowait", "softirq", "idle")
MIB = 1 << 20
GIB = 1 << 30
PAGE = 4096
IB_LINE = 25e9            # HDR 200 Gb/s, bytes/s
ETH_LINE = 3.125e9        # 25 GbE, bytes/s
DEFAULT_END = 1796083200  # 2026-12-01T00:00:00Z; --end moves it (retention!)
REASONS = ("gpu_idle", "sw_power_cap", "sw_thermal_slowdown", "hw_thermal_slowdown")
DISKS = {  # device: (max read B/s, max write B/s, base latency s)
    "nvme0n1": (6.5e9, 3.5e9, 0.00012),   # dataset, /data
    "nvme1n1": (6.5e9, 3.5e9, 0.00012),   # checkpoints, /checkpoints
}
FILESYSTEMS = (("/dev/nvme0n1p1", "xfs", "/data", 7.68e12),
               ("/dev/nvme1n1p1", "xfs", "/checkpoints", 7.68e12))

KINDS = ("input_bound_cpu", "input_bound_io", "communication_bound", "straggler",
         "gpu_memory_pressure", "host_memory_pressure", "memory_leak_host", "memory_leak_gpu",
         "thermal_throttling", "power_throttling", "cooling_degradation", "idle_gpu",
         "disk_saturation", "network_saturation", "checkpoint_slow", "hardware_fault")


def clamp(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


# ---------------------------------------------------------------- model
class Gpu:
    def __init__(self, run, idx):
        n, rng = run.n, run.rng
        self.idx = idx
        self.load = [0.0] * n           # demanded busy fraction 0..1
        self.intensity = 0.92           # power per unit of load
        self.rth = [0.048 + 0.004 * rng.random() + 0.001 * (idx % 4)] * n   # C per W
        self.ambient = [27.0 + 3.0 * rng.random()] * n
        self.limit = [TDP] * n
        self.pcie_gen, self.pcie_width = 5, 16
        self.nvl = [0.0] * n            # NVLink tx bytes/s (rx about the same)
        self.pcie_rx = [0.0] * n        # H2D bytes/s
        self.xids = []                  # (index, xid)
        self.dbe = []                   # indices of uncorrectable ECC errors
        self.remap_pending_from = None
        self.remap_failure_from = None
        self.gone_from = None           # fell off the bus: series stop, llmon_gpu_up 0
        self.noise = run.ar1(0.012, 0.85)

    def labels(self):
        uuid, bus = GPU_IDS[self.idx]
        return (f'gpu="{self.idx}",UUID="{uuid}",pci_bus_id="{bus}",device="nvidia{self.idx}",'
                f'modelName="{MODEL}",Hostname="{HOSTNAME}",DCGM_FI_DRIVER_VERSION="{DRIVER}"')


class Proc:
    def __init__(self, run, gpu, pid, command, user, container="", pod="", namespace="",
                 start=0, end=None):
        n = run.n
        self.gpu, self.pid, self.command, self.user = gpu, pid, command, user
        self.container, self.pod, self.namespace = container, pod, namespace
        self.start, self.end = start, (n if end is None else end)
        self.mem = [0.0] * n            # MiB on the GPU
        self.sm = None                  # None: follow the GPU's utilisation
        self.cpu = [1.2] * n            # cores
        self.rss = [20.0 * GIB] * n     # bytes


class Run:
    def __init__(self, name, seed, hours, step, ngpu, end):
        self.name, self.seed, self.step = name, seed, step
        self.rng = random.Random(zlib.crc32(f"{name}/{seed}".encode()))
        self.n = n = max(2, int(round(hours * 3600 / step)))
        end = end // step * step
        self.t0 = end - n * step                  # first sample at t0 + step
        self.ts = [str((self.t0 + (i + 1) * step) * 1000) for i in range(n)]
        self.gpus = [Gpu(self, g) for g in range(ngpu)]
        self.procs = []
        # host
        self.cpu = {m: [[0.0] * n for _ in range(NCPU)] for m in CPU_MODES if m != "idle"}
        self.psi = {k: [0.0] * n for k in ("cpu_waiting", "memory_waiting", "memory_stalled",
                                           "io_waiting", "io_stalled")}
        self.mem_total = 1081897418752            # ~1 TiB
        self.mem_base_used = [self.mem_total * 0.18] * n  # besides GPU processes' RSS
        self.swap_total = 8 * GIB
        self.swap_used = [40 * MIB] * n
        self.pswpin = [0.0] * n                   # pages/s
        self.pswpout = [0.0] * n
        self.disk = {d: {"r": [0.0] * n, "w": [0.0] * n, "util": [0.0] * n, "lat": [DISKS[d][2]] * n}
                     for d in DISKS}
        self.net = {"ens3": {"rx": [0.0] * n, "tx": [0.0] * n, "rx_drop": [0.0] * n, "tx_drop": [0.0] * n}}
        self.ib = {"mlx5_0": {"rx": [0.0] * n, "tx": [0.0] * n}}
        self.fs_used = {fs[2]: [fs[3] * 0.4] * n for fs in FILESYSTEMS}
        # ground truth
        self.kinds, self.subjects, self.top, self.acceptable = [], {}, None, []
        self.onsets = {}
        self.notes = []

    # -- helpers
    def idx(self, seconds):
        return clamp(int(seconds / self.step), 0, self.n)

    def ar1(self, sigma, phi):
        """AR(1) noise with stationary std `sigma` (phi per second)."""
        r = self.rng
        p = phi ** self.step
        s = sigma * math.sqrt(1 - p * p)
        x, out = r.gauss(0, sigma), []
        for _ in range(self.n):
            x = p * x + r.gauss(0, s)
            out.append(x)
        return out

    def mark(self, kind, subjects, onset_i=0, end_i=None):
        if kind not in self.kinds:
            self.kinds.append(kind)
        self.subjects[kind] = subjects
        self.onsets[kind] = {"from_ms": int(self.ts[min(onset_i, self.n - 1)]),
                             "to_ms": int(self.ts[min((self.n if end_i is None else end_i), self.n) - 1])}

    def add_proc(self, *a, **kw):
        p = Proc(self, *a, **kw)
        self.procs.append(p)
        return p


# ---------------------------------------------------------------- baselines
def host_background(run, level=0.03):
    """OS noise on every core, page cache, a little ethernet."""
    r, n = run.rng, run.n
    for c in range(NCPU):
        nz = run.ar1(0.01, 0.95)
        for i in range(n):
            run.cpu["user"][c][i] += clamp(level + nz[i], 0.0, 1.0)
            run.cpu["system"][c][i] += clamp(level * 0.4 + 0.3 * nz[i], 0.0, 1.0)
            run.cpu["softirq"][c][i] += 0.003
            run.cpu["iowait"][c][i] += 0.001
    nz = run.ar1(0.3, 0.98)
    for i in range(n):
        run.net["ens3"]["rx"][i] += 2e6 * math.exp(nz[i])
        run.net["ens3"]["tx"][i] += 1.5e6 * math.exp(nz[i] * 0.8)
        run.psi["cpu_waiting"][i] += 0.004 + 0.003 * r.random()
        run.psi["io_waiting"][i] += 0.001 * r.random()


def training(run, gpus=None, warmup=True, pid0=4101, checkpoint=True, ib=True):
    """A data-parallel job, one process per GPU, steady ~95 % after warm-up,
    an evaluation pass every ~20 min and a fast checkpoint every ~30 min."""
    r, n, st = run.rng, run.n, run.step
    gpus = list(range(len(run.gpus))) if gpus is None else gpus
    launch = run.idx(r.uniform(20, 60)) if warmup else 0
    ready = launch + (run.idx(r.uniform(150, 300)) if warmup else 0)
    target = r.uniform(0.95, 0.98)
    evals = []
    t = r.uniform(600, 1300)
    while t < n * st:
        evals.append((run.idx(t), run.idx(t + r.uniform(20, 45))))
        t += r.uniform(1100, 1300)
    ckpts = []
    if checkpoint:
        t = r.uniform(900, 1800)
        while t < n * st:
            ckpts.append((run.idx(t), run.idx(t + r.uniform(8, 16))))
            t += 1800
    run.train_events = {"evals": evals, "ckpts": ckpts, "ready": ready, "launch": launch}
    common = run.ar1(0.01, 0.9)
    for g in gpus:
        gp = run.gpus[g]
        nz = gp.noise
        mem = r.uniform(72500, 76500)
        p = run.add_proc(g, str(pid0 + g), "python3" if g == gpus[0] else "pt_main_thread", "alice",
                         "trainer", "llama-train-0", "research", start=launch)
        cpu_nz = run.ar1(0.05, 0.9)
        rss = r.uniform(18, 23) * GIB
        for i in range(n):
            if i < launch:
                continue
            if i < ready:
                f = (i - launch) / max(1, ready - launch)
                p.mem[i] = mem * min(1.0, f * 1.6)
                gp.load[i] = 0.0 if f < 0.55 else clamp((f - 0.55) / 0.45 * target + nz[i], 0, 1)
                p.cpu[i] = 1.0 + 0.3 * r.random()
                p.rss[i] = rss * min(1.0, 0.3 + f)
                continue
            p.mem[i] = mem + r.choice((0, 0, 0, 2, -2))
            gp.load[i] = clamp(target + nz[i] + common[i], 0, 1)
            if r.random() < 0.002 * st:
                gp.load[i] *= 0.7
            p.cpu[i] = 1.25 + cpu_nz[i]
            p.rss[i] = rss + 64 * MIB * math.sin(i * st / 97.0)
            gp.nvl[i] = 45e9 * gp.load[i] * (0.9 + 0.2 * r.random())
            gp.pcie_rx[i] = 3e9 * gp.load[i] * (0.8 + 0.4 * r.random())
        for a, b in evals:
            for i in range(a, min(b, n)):
                gp.load[i] = clamp(0.5 + nz[i] * 3, 0, 1)
                gp.nvl[i] *= 0.1
        for a, b in ckpts:
            for i in range(a, min(b, n)):
                gp.load[i] = clamp(0.15 + nz[i], 0, 1)
    # host side of the job: dataloader workers, dataset reads, gradient traffic
    for c in range(NCPU):
        for i in range(ready, n):
            run.cpu["user"][c][i] += 0.30 + 0.08 * r.random()
            run.cpu["system"][c][i] += 0.05
            run.cpu["softirq"][c][i] += 0.01
    nz = run.ar1(0.2, 0.95)
    for i in range(ready, n):
        m = sum(run.gpus[g].load[i] for g in gpus) / len(gpus)
        d = run.disk["nvme0n1"]
        d["r"][i] += 4.5e8 * m * math.exp(nz[i])
        d["util"][i] += 0.28 * m * math.exp(nz[i] * 0.5)
        run.psi["cpu_waiting"][i] += 0.01
        if ib:
            run.ib["mlx5_0"]["tx"][i] += 8e9 * m * (0.85 + 0.3 * r.random())
            run.ib["mlx5_0"]["rx"][i] += 8e9 * m * (0.85 + 0.3 * r.random())
    for a, b in ckpts:
        rate = r.uniform(2.5e9, 3.3e9)              # a fast, healthy checkpoint
        ck_size = rate * max(1, b - a) * st
        for i in range(a, min(b, n)):
            run.disk["nvme1n1"]["w"][i] += rate
            run.disk["nvme1n1"]["util"][i] += 0.9
        for i in range(a, n):
            run.fs_used["/checkpoints"][i] += ck_size * min(1.0, (i - a + 1) / max(1, b - a))
    for p in run.procs:
        if p.gpu in gpus:
            for i in range(ready, n):
                run.mem_base_used[i] += 0  # RSS is counted separately
    return gpus


def inference(run, gpus=None, pid0=5201, container="vllm-server", load_scale=1.0):
    """An LLM server: diurnal request rate with Poisson bursts; memory held
    (KV cache) regardless of load."""
    r, n, st = run.rng, run.n, run.step
    gpus = list(range(len(run.gpus))) if gpus is None else gpus
    hour0 = ((run.t0 % 86400) / 3600.0)
    base = [0.0] * n
    burst = 0.0
    for i in range(n):
        h = hour0 + i * st / 3600.0
        diurnal = 0.45 + 0.3 * math.sin(2 * math.pi * (h - 9) / 24.0)
        if r.random() < 0.004 * st:
            burst += r.uniform(0.2, 0.5)
        burst *= 0.97 ** st
        base[i] = clamp((diurnal + burst) * load_scale, 0, 1)
    for g in gpus:
        gp = run.gpus[g]
        p = run.add_proc(g, str(pid0 + g), "python3", "root", container)
        mem = r.uniform(70000, 74000)
        for i in range(n):
            p.mem[i] = mem
            gp.load[i] = clamp(base[i] * (0.85 + 0.3 * r.random()), 0, 1)
            gp.nvl[i] = 4e9 * gp.load[i]
            gp.pcie_rx[i] = 2e8 * gp.load[i]
            p.cpu[i] = 0.4 + 0.8 * gp.load[i]
            p.rss[i] = 9 * GIB
        gp.intensity = 0.8
    for i in range(n):
        run.net["ens3"]["rx"][i] += 4e7 * base[i]
        run.net["ens3"]["tx"][i] += 1.2e8 * base[i]
        for c in range(NCPU):
            run.cpu["user"][c][i] += 0.1 * base[i]
    return gpus


# ---------------------------------------------------------------- injections
def inj_input_bound_cpu(run, gpus, variant=None, onset=None):
    r, n = run.rng, run.n
    variant = variant or r.choice(("core", "psi"))
    a = run.train_events["ready"] if onset is None else onset
    for g in gpus:
        gp = run.gpus[g]
        for i in range(a, n):
            # waiting for batches: a burst of work when one arrives, idle otherwise
            gp.load[i] = clamp(r.choice((0.02, 0.05, 0.1, 0.6, 0.9)) * (0.8 + 0.4 * r.random()), 0, 1)
            gp.nvl[i] *= gp.load[i]
            gp.pcie_rx[i] *= gp.load[i]
    main = next(p for p in run.procs if p.gpu == gpus[0])
    if variant == "core":
        core = r.randrange(NCPU)
        for i in range(a, n):
            for m in ("system", "softirq", "iowait"):
                run.cpu[m][core][i] = 0.0
            run.cpu["system"][core][i] = 0.02
            run.cpu["user"][core][i] = 0.975 + 0.02 * r.random()
            main.cpu[i] = 0.99 + 0.01 * r.random()
            for c in range(NCPU):
                if c != core:
                    run.cpu["user"][c][i] *= 0.3
        subj = {"pid": main.pid, "cpu": str(core)}
    else:
        for i in range(a, n):
            for c in range(NCPU):
                run.cpu["user"][c][i] = 0.86 + 0.08 * r.random()
                run.cpu["system"][c][i] = 0.08
            run.psi["cpu_waiting"][i] += 0.5 + 0.3 * r.random()
            main.cpu[i] = 3.5 + r.random()
        subj = {"pid": main.pid}
    run.notes.append(f"input_bound_cpu variant {variant}")
    run.mark("input_bound_cpu", subj, a)


def inj_input_bound_io(run, gpus, onset=None):
    r, n = run.rng, run.n
    a = run.train_events["ready"] if onset is None else onset
    d = run.disk["nvme0n1"]
    for g in gpus:
        gp = run.gpus[g]
        for i in range(a, n):
            gp.load[i] = clamp(r.choice((0.03, 0.1, 0.3, 0.7, 0.85)) * (0.8 + 0.4 * r.random()), 0, 1)
            gp.nvl[i] *= gp.load[i]
    for i in range(a, n):
        d["r"][i] = r.uniform(1.6e9, 2.2e9)       # random 128 KiB reads: far below sequential max
        d["util"][i] = r.uniform(0.97, 1.0)
        d["lat"][i] = r.uniform(0.004, 0.012)
        run.psi["io_waiting"][i] += r.uniform(0.35, 0.65)
        run.psi["io_stalled"][i] += r.uniform(0.1, 0.3)
        for c in range(NCPU):
            run.cpu["iowait"][c][i] += r.uniform(0.12, 0.3)
            run.cpu["user"][c][i] *= 0.5
    run.mark("input_bound_io", {"device": "nvme0n1"}, a)


def inj_communication_bound(run, gpus, onset=None):
    r, n, st = run.rng, run.n, run.step
    a = run.train_events["ready"] if onset is None else onset
    period = r.uniform(8, 14)
    comm = r.uniform(0.35, 0.5) * period
    phase = r.random() * period
    for i in range(a, n):
        t = (i * st + phase) % period
        in_comm = t < comm if st < period / 2 else r.random() < comm / period
        for g in gpus:
            gp = run.gpus[g]
            if in_comm:
                gp.load[i] = clamp(r.uniform(0.25, 0.45), 0, 1)
                gp.nvl[i] = r.uniform(250e9, 320e9)
            else:
                gp.nvl[i] = r.uniform(5e9, 20e9)
        ibr = r.uniform(0.93, 0.99) * IB_LINE if in_comm else r.uniform(0.5e9, 2e9)
        run.ib["mlx5_0"]["tx"][i] = ibr
        run.ib["mlx5_0"]["rx"][i] = ibr * r.uniform(0.97, 1.0)
        run.cpu["softirq"][0][i] += 0.05 if in_comm else 0.0
    run.notes.append(f"allreduce period {period:.1f}s, comm phase {comm:.1f}s")
    run.mark("communication_bound", {"device": "mlx5_0"}, a)


def inj_straggler(run, gpus, variant=None):
    r, n = run.rng, run.n
    variant = variant or r.choice(("thermal", "pcie"))
    s = r.choice(gpus)
    gp = run.gpus[s]
    a = run.train_events["ready"]
    if variant == "thermal":
        gp.rth = [0.118 + 0.006 * r.random()] * n        # a failing fan / blocked heatsink
        for i in range(a, n):
            gp.load[i] *= r.uniform(0.78, 0.85)
        run.mark("straggler", {"gpu": str(s)}, a)
        run.mark("thermal_throttling", {"gpu": str(s)}, a)
    else:
        gp.pcie_gen, gp.pcie_width = r.choice(((3, 16), (5, 8), (3, 8), (4, 8)))
        for i in range(a, n):
            gp.load[i] *= r.uniform(0.68, 0.78)
            gp.pcie_rx[i] = min(gp.pcie_rx[i], 0.9e9 * gp.pcie_width / 16 * (gp.pcie_gen - 1))
        run.mark("straggler", {"gpu": str(s)}, a)
        run.mark("hardware_fault", {"gpu": str(s)}, 0)
    # the rest wait for the straggler at every allreduce
    for g in gpus:
        if g != s:
            for i in range(a, n):
                run.gpus[g].load[i] *= r.uniform(0.9, 0.95)
    run.top = "straggler"
    run.notes.append(f"straggler variant {variant} gpu {s}")


def inj_gpu_memory_pressure(run, gpu, onset_frac=0.1):
    r, n = run.rng, run.n
    p = next(p for p in run.procs if p.gpu == gpu)
    a = max(run.idx(n * run.step * onset_frac), getattr(run, "train_events", {}).get("ready", 0))
    full = a + (n - a) // 3
    top_mib = FB_CAP * r.uniform(0.965, 0.985)
    base = p.mem[a]
    for i in range(a, n):
        f = min(1.0, (i - a) / max(1, full - a))
        p.mem[i] = base + (top_mib - base) * f + r.uniform(-300, 300) * f
        p.mem[i] = min(p.mem[i], FB_CAP - 700)
    run.mark("gpu_memory_pressure", {"gpu": str(gpu), "pid": p.pid}, a)


def inj_memory_leak_gpu(run, gpu, rate_gib_h=None):
    r, n, st = run.rng, run.n, run.step
    p = next(p for p in run.procs if p.gpu == gpu)
    rate = (rate_gib_h or r.uniform(5, 9)) * 1024 / 3600.0   # MiB/s
    base = r.uniform(38000, 44000)
    acc = 0.0
    for i in range(n):
        acc += rate * st * r.uniform(0.5, 1.5)
        p.mem[i] = min(base + (acc // 2) * 2, FB_CAP - 900)   # 2 MiB allocations
    run.mark("memory_leak_gpu", {"gpu": str(gpu), "pid": p.pid}, 0)


def inj_memory_leak_host(run, pid_gpu=0, pct_h=None, big=False):
    r, n, st = run.rng, run.n, run.step
    p = next(p for p in run.procs if p.gpu == pid_gpu)
    start = p.rss[min(n - 1, run.idx(600))]
    if big:
        start = 150 * GIB
    pct = (pct_h or r.uniform(8, 15)) / 100.0
    for i in range(n):
        hrs = i * st / 3600.0
        # linear growth with garbage-collector sawtooth
        p.rss[i] = start * (1 + pct * hrs) - (i % max(1, int(300 / st))) * 2 * MIB * r.random()
    run.mark("memory_leak_host", {"pid": p.pid}, 0)
    return p


def inj_host_memory_pressure(run, onset_frac=0.15, from_leak=None):
    """Swapping and PSI memory follow how little memory is left: nothing above
    10 % available, full strength at 3 %."""
    r, n = run.rng, run.n
    a = run.idx(n * run.step * onset_frac)
    if from_leak is None:
        # other tenants / pinned page cache: used memory climbs to ~80 % of RAM
        for i in range(a, n):
            f = min(1.0, (i - a) / max(1, (n - a) // 3))
            run.mem_base_used[i] = run.mem_total * (0.18 + 0.62 * f) + r.uniform(-2, 2) * GIB
    onset = None
    for i in range(n):
        rss = sum(p.rss[i] for p in run.procs if p.start <= i < p.end)
        frac = (run.mem_total - run.mem_base_used[i] - rss) / run.mem_total
        f = clamp((0.10 - frac) / 0.07, 0.0, 1.0)
        if i:
            run.swap_used[i] = run.swap_used[i - 1]
        if f <= 0:
            continue
        onset = i if onset is None else onset
        run.pswpin[i] = r.uniform(200, 3000) * f
        run.pswpout[i] = r.uniform(500, 5000) * f
        run.psi["memory_waiting"][i] += r.uniform(0.1, 0.4) * f
        run.psi["memory_stalled"][i] += r.uniform(0.03, 0.15) * f
        run.swap_used[i] = min(run.swap_total * 0.95, run.swap_used[i] + run.pswpout[i] * PAGE * run.step * 0.6)
        for g in run.gpus:
            g.load[i] *= 1.0 - r.uniform(0.0, 0.2) * f
    run.mark("host_memory_pressure", {"instance": "node1:8747"}, a if onset is None else onset)


def inj_thermal(run, gpus):
    """Inlet air temperature rises (CRAC failure): the hot half of the node throttles."""
    r, n, st = run.rng, run.n, run.step
    a = run.idx(r.uniform(0.1, 0.25) * n * st)
    hot = [g for g in gpus if g >= len(gpus) // 2] or gpus
    for g in gpus:
        gp = run.gpus[g]
        rise = r.uniform(18, 22) if g in hot else r.uniform(6, 9)
        for i in range(a, n):
            f = min(1.0, (i - a) * st / 900.0)
            gp.ambient[i] = gp.ambient[i] + rise * f
        if g in hot:
            gp.rth = [x + 0.015 for x in gp.rth]
    run.thermal_candidates = hot
    run.mark("thermal_throttling", {"gpu": [str(g) for g in hot]}, a)


def inj_power(run, gpus):
    r, n, st = run.rng, run.n, run.step
    a = run.idx(r.uniform(0.15, 0.3) * n * st)
    cap = r.choice((450.0, 500.0, 550.0))
    for g in gpus:
        gp = run.gpus[g]
        gp.intensity = 0.98
        for i in range(a, n):
            gp.limit[i] = cap
    run.notes.append(f"power limit lowered to {cap:.0f} W")
    run.mark("power_throttling", {"gpu": [str(g) for g in gpus]}, a)


def inj_cooling(run, gpu):
    r, n = run.rng, run.n
    gp = run.gpus[gpu]
    r0 = gp.rth[0]
    r1 = r0 + r.uniform(0.014, 0.02)      # +10..14 C at 700 W over the run
    gp.rth = [r0 + (r1 - r0) * i / n for i in range(n)]
    run.mark("cooling_degradation", {"gpu": str(gpu)}, 0)


def inj_checkpoint_slow(run, gpus):
    r, n, st = run.rng, run.n, run.step
    period = r.uniform(600, 900)
    t = r.uniform(300, 500)
    d = run.disk["nvme1n1"]
    bursts = []
    while t < n * st:
        dur = r.uniform(90, 180)
        bursts.append((run.idx(t), run.idx(t + dur)))
        t += period
    for a, b in bursts:
        for i in range(a, min(b, n)):
            d["w"][i] = r.uniform(110e6, 190e6)
            d["util"][i] = r.uniform(0.95, 1.0)
            d["lat"][i] = r.uniform(0.02, 0.05)
            run.psi["io_waiting"][i] += r.uniform(0.05, 0.15)
            run.fs_used["/checkpoints"][i] += 0
            for g in gpus:
                run.gpus[g].load[i] = r.uniform(0.0, 0.06)
                run.gpus[g].nvl[i] = 0.0
        size = sum(d["w"][a:min(b, n)]) * st
        for i in range(a, n):
            run.fs_used["/checkpoints"][i] += size * min(1.0, (i - a + 1) / max(1, b - a))
    run.notes.append(f"checkpoint every {period:.0f}s at <200 MB/s")
    run.mark("checkpoint_slow", {"device": "nvme1n1"}, bursts[0][0] if bursts else 0)


def inj_disk_saturation(run, dev="nvme0n1"):
    r, n, st = run.rng, run.n, run.step
    a = run.idx(r.uniform(0.1, 0.3) * n * st)
    d = run.disk[dev]
    for i in range(a, n):
        d["w"][i] = r.uniform(3.1e9, 3.45e9)      # an rsync/backup at the device's write maximum
        d["util"][i] = r.uniform(0.985, 1.0)
        d["lat"][i] = r.uniform(0.008, 0.03)
        run.psi["io_waiting"][i] += r.uniform(0.15, 0.3)
        run.psi["io_stalled"][i] += r.uniform(0.02, 0.08)
        run.cpu["iowait"][r.randrange(NCPU)][i] += r.uniform(0.3, 0.6)
        run.fs_used["/data"][i] += 0
    run.mark("disk_saturation", {"device": dev}, a)


def inj_network_saturation(run, dev="ens3"):
    r, n, st = run.rng, run.n, run.step
    a = run.idx(r.uniform(0.1, 0.3) * n * st)
    for i in range(a, n):
        run.net[dev]["tx"][i] = r.uniform(0.94, 0.99) * ETH_LINE
        run.net[dev]["rx"][i] += r.uniform(0.5e9, 1.2e9)
        run.cpu["softirq"][1][i] += r.uniform(0.2, 0.4)
    for i in range(a, n):
        run.net[dev]["tx_drop"][i] = r.uniform(20, 300)     # the qdisc drops what the link cannot take
    run.mark("network_saturation", {"device": dev}, a)


def inj_network_drops(run, dev="ens3"):
    """A flapping transceiver: receive drops and errors at half the link speed."""
    r, n, st = run.rng, run.n, run.step
    a = run.idx(r.uniform(0.1, 0.3) * n * st)
    for i in range(a, n):
        run.net[dev]["rx"][i] += r.uniform(1.2e9, 1.8e9)
        run.net[dev]["rx_drop"][i] = r.uniform(5, 80)
    run.mark("network_saturation", {"device": dev}, a)


def inj_xid79(run, gpus):
    r, n, st = run.rng, run.n, run.step
    s = r.choice(gpus)
    a = run.idx(r.uniform(0.4, 0.7) * n * st)
    gp = run.gpus[s]
    gp.xids.append((a, 79))
    gp.gone_from = a + 1
    crash = min(n, a + run.idx(30))
    for p in run.procs:
        p.end = min(p.end, crash if p.gpu != s else a + 1)
    for g in gpus:
        for i in range(a if g == s else crash, n):
            run.gpus[g].load[i] = 0.0
            run.gpus[g].nvl[i] = 0.0
            run.gpus[g].pcie_rx[i] = 0.0
    run.mark("hardware_fault", {"gpu": str(s)}, a)
    run.acceptable.append("idle_gpu")
    run.notes.append(f"gpu {s} fell off the bus (Xid 79); the job died 30 s later")


def inj_ecc(run, gpus):
    r, n, st = run.rng, run.n, run.step
    s = r.choice(gpus)
    a = run.idx(r.uniform(0.3, 0.5) * n * st)
    gp = run.gpus[s]
    gp.xids += [(a, 48), (a + 1, 94)]
    gp.dbe += [a, a + run.idx(r.uniform(60, 400))]
    gp.remap_pending_from = a + 1
    if r.random() < 0.35:
        gp.remap_failure_from = a + 1
    # the job dies on the contained error and is restarted by its launcher 2-4 min later
    down = min(n, a + 2)
    back = min(n, a + run.idx(r.uniform(120, 240)))
    old = [p for p in run.procs]
    for p in old:
        p.end = min(p.end, down)
        np_ = run.add_proc(p.gpu, str(int(p.pid) + 1000), p.command, p.user, p.container,
                           p.pod, p.namespace, start=back)
        for i in range(back, n):
            np_.mem[i] = p.mem[i]
            np_.cpu[i] = p.cpu[i]
            np_.rss[i] = p.rss[i]
    for g in gpus:
        for i in range(down, back):
            run.gpus[g].load[i] = 0.0
            run.gpus[g].nvl[i] = 0.0
        for i in range(back, min(n, back + run.idx(60))):
            run.gpus[g].load[i] *= (i - back) / max(1, run.idx(60))
    run.mark("hardware_fault", {"gpu": str(s)}, a)
    run.acceptable.append("idle_gpu")
    run.notes.append(f"gpu {s}: Xid 48 + 94, DBE, row remap pending; job restarted with pid+1000")


# ---------------------------------------------------------------- scenarios
def sc_healthy_training(run):
    host_background(run)
    training(run)
    run.top = None


def sc_healthy_inference(run):
    host_background(run)
    inference(run, load_scale=1.4)
    run.acceptable += ["idle_gpu"]
    run.top = None


def sc_healthy_idle_night(run):
    host_background(run, 0.01)
    run.acceptable += ["idle_gpu"]
    run.notes.append("no job on the node: idle GPUs are expected, not a finding")
    run.top = None


def sc_input_bound_cpu(run):
    host_background(run)
    g = training(run)
    inj_input_bound_cpu(run, g)
    run.top = "input_bound_cpu"


def sc_input_bound_io(run):
    host_background(run)
    g = training(run)
    inj_input_bound_io(run, g)
    run.top = "input_bound_io"


def sc_communication_bound(run):
    host_background(run)
    g = training(run)
    inj_communication_bound(run, g)
    run.top = "communication_bound"


def sc_straggler_thermal(run):
    host_background(run)
    inj_straggler(run, training(run), "thermal")


def sc_straggler_pcie(run):
    host_background(run)
    inj_straggler(run, training(run), "pcie")


def sc_gpu_memory_pressure(run):
    host_background(run)
    training(run)
    inj_gpu_memory_pressure(run, 0)
    run.top = "gpu_memory_pressure"


def sc_host_memory_pressure(run):
    host_background(run)
    training(run)
    inj_host_memory_pressure(run)
    run.top = "host_memory_pressure"


def sc_memory_leak_host(run):
    host_background(run)
    training(run)
    inj_memory_leak_host(run)
    run.top = "memory_leak_host"


def sc_memory_leak_gpu(run):
    host_background(run)
    inference(run)
    inj_memory_leak_gpu(run, len(run.gpus) - 1)
    run.acceptable += ["idle_gpu"]
    run.top = "memory_leak_gpu"


def sc_thermal_throttling(run):
    host_background(run)
    inj_thermal(run, training(run))
    run.top = "thermal_throttling"


def sc_power_throttling(run):
    host_background(run)
    inj_power(run, training(run))
    run.top = "power_throttling"


def sc_cooling_degradation(run):
    host_background(run)
    training(run, checkpoint=False)
    inj_cooling(run, 1 % len(run.gpus))
    run.top = "cooling_degradation"


def sc_idle_gpu(run):
    host_background(run)
    training(run, gpus=[0, 1, 2, 3])
    p = run.add_proc(5, "5301", "jupyter-lab", "bob")
    r = run.rng
    for i in range(run.n):
        p.mem[i] = 40960 + r.choice((0, 0, 2))
        p.cpu[i] = 0.01
        p.rss[i] = 3 * GIB
    p.sm = [0.0] * run.n
    run.mark("idle_gpu", {"gpu": ["4", "5", "6", "7"], "pid": "5301"}, 0)
    run.top = "idle_gpu"


def sc_disk_saturation(run):
    host_background(run)
    training(run)
    inj_disk_saturation(run, "nvme1n1")
    run.top = "disk_saturation"


def sc_network_saturation(run):
    host_background(run)
    inference(run)
    inj_network_saturation(run)
    run.acceptable += ["idle_gpu"]
    run.top = "network_saturation"


def sc_network_drops(run):
    host_background(run)
    inference(run)
    inj_network_drops(run)
    run.acceptable += ["idle_gpu"]
    run.top = "network_saturation"


def sc_healthy_training_long(run):
    host_background(run)
    training(run)
    run.top = None


def sc_mixed_cooling_disk(run):
    host_background(run)
    training(run, checkpoint=False)
    inj_cooling(run, 0)
    inj_disk_saturation(run, "nvme0n1")
    run.top = "cooling_degradation"


def sc_checkpoint_slow(run):
    host_background(run)
    inj_checkpoint_slow(run, training(run, checkpoint=False))
    run.top = "checkpoint_slow"


def sc_hw_xid79(run):
    host_background(run)
    inj_xid79(run, training(run))
    run.top = "hardware_fault"


def sc_hw_ecc(run):
    host_background(run)
    inj_ecc(run, training(run))
    run.top = "hardware_fault"


def sc_mixed_input_cpu_thermal(run):
    host_background(run)
    g = training(run)
    inj_input_bound_cpu(run, g, "core")
    s = run.rng.choice(g)
    run.gpus[s].rth = [0.175] * run.n
    run.gpus[s].intensity = 1.0
    run.mark("thermal_throttling", {"gpu": str(s)}, run.train_events["ready"])
    run.top = "input_bound_cpu"


def sc_mixed_comm_checkpoint(run):
    host_background(run)
    g = training(run, checkpoint=False)
    inj_communication_bound(run, g)
    inj_checkpoint_slow(run, g)
    run.top = "communication_bound"


def sc_mixed_leak_hostmem(run):
    run.mem_total = 512 * GIB
    run.mem_base_used = [run.mem_total * 0.3] * run.n
    host_background(run)
    training(run)
    inj_memory_leak_host(run, pct_h=run.rng.uniform(85, 100) / max(0.05, run.n * run.step / 3600.0), big=True)
    inj_host_memory_pressure(run, onset_frac=0.0, from_leak=True)
    run.top = "memory_leak_host"


def sc_mixed_leak_gpu_pressure(run):
    host_background(run)
    inference(run)
    g = len(run.gpus) - 1
    inj_memory_leak_gpu(run, g, rate_gib_h=40.0 / max(0.05, run.n * run.step / 3600.0))
    run.mark("gpu_memory_pressure", run.subjects["memory_leak_gpu"], run.n // 2)
    run.acceptable += ["idle_gpu"]
    run.top = "memory_leak_gpu"


# name: (builder, gpus, default hours, one-line description)
SCENARIOS = {
    "healthy_training": (sc_healthy_training, 8, 1, "8-GPU data-parallel training at ~95 % with evals and fast checkpoints"),
    "healthy_inference": (sc_healthy_inference, 2, 1, "2-GPU LLM server, diurnal + bursty load"),
    "healthy_idle_night": (sc_healthy_idle_night, 8, 1, "no job: all GPUs idle (idle_gpu acceptable)"),
    "input_bound_cpu": (sc_input_bound_cpu, 8, 1, "GPUs spiky/low while the dataloader pins one core or PSI cpu is high"),
    "input_bound_io": (sc_input_bound_io, 8, 1, "GPUs low, dataset disk at 100 % util, iowait and PSI io high"),
    "communication_bound": (sc_communication_bound, 8, 1, "all GPUs dip in lock-step with IB/NVLink peaks"),
    "straggler_thermal": (sc_straggler_thermal, 8, 1, "one GPU throttles thermally and holds back the rest"),
    "straggler_pcie": (sc_straggler_pcie, 8, 1, "one GPU's PCIe link trained below max, it lags"),
    "gpu_memory_pressure": (sc_gpu_memory_pressure, 4, 1, "rank 0 FB used climbs to <5 % headroom"),
    "host_memory_pressure": (sc_host_memory_pressure, 8, 1, "MemAvailable falls, swapping, PSI memory"),
    "memory_leak_host": (sc_memory_leak_host, 2, 3, "a training process's RSS grows 8-15 %/h"),
    "memory_leak_gpu": (sc_memory_leak_gpu, 2, 2, "an inference server's GPU memory grows steadily"),
    "thermal_throttling": (sc_thermal_throttling, 8, 1, "inlet temperature rises, the hot GPUs throttle"),
    "power_throttling": (sc_power_throttling, 8, 1, "power limit lowered: sw_power_cap, clocks down"),
    "cooling_degradation": (sc_cooling_degradation, 2, 3, "one GPU's temperature creeps up at constant power"),
    "idle_gpu": (sc_idle_gpu, 8, 1, "job on GPUs 0-3; 4-7 idle, GPU 5 held (40 GiB) by an idle notebook"),
    "disk_saturation": (sc_disk_saturation, 8, 1, "a backup saturates the checkpoint disk; GPUs fine"),
    "network_saturation": (sc_network_saturation, 4, 1, "ethernet transmit at line rate on an inference node"),
    "network_drops": (sc_network_drops, 4, 1, "receive drops and errors on ethernet at half its speed"),
    "healthy_training_long": (sc_healthy_training_long, 4, 3, "3 h of healthy training: no trend is a finding"),
    "mixed_cooling_disk": (sc_mixed_cooling_disk, 2, 3, "cooling_degradation (top) plus a saturated data disk"),
    "checkpoint_slow": (sc_checkpoint_slow, 8, 1, "checkpoint bursts <200 MB/s with GPU dips aligned"),
    "hardware_fault_xid79": (sc_hw_xid79, 8, 1, "a GPU falls off the bus (Xid 79), the job dies"),
    "hardware_fault_ecc": (sc_hw_ecc, 8, 1, "Xid 48/94, DBE ECC, row remap pending; job restarts"),
    "mixed_input_cpu_thermal": (sc_mixed_input_cpu_thermal, 8, 1, "input_bound_cpu (top) plus one GPU throttling"),
    "mixed_comm_checkpoint": (sc_mixed_comm_checkpoint, 8, 1, "communication_bound (top) plus slow checkpoints"),
    "mixed_leak_hostmem": (sc_mixed_leak_hostmem, 4, 1, "a large host leak (top) that ends in host memory pressure"),
    "mixed_leak_gpu_pressure": (sc_mixed_leak_gpu_pressure, 2, 1, "a GPU leak (top) that ends in GPU memory pressure"),
}


# ---------------------------------------------------------------- rendering
class Writer:
    def __init__(self, run):
        self.run = run
        self.out = []
        self.types = {}
        self.samples = 0
        self.series = 0

    def series_(self, name, typ, labels, values, fmt, start=0, end=None, every=1):
        """values: list (len n) or scalar; written from start to end (exclusive)."""
        run = self.run
        end = run.n if end is None else min(end, run.n)
        if start >= end:
            return
        if name not in self.types:
            self.types[name] = typ
            self.out.append(f"# TYPE {name} {typ}\n")
        lab = f"{labels},{COMMON}" if labels else COMMON
        pre = f"{name}{{{lab}}} "
        ts = run.ts
        if isinstance(values, (int, float)):
            v = fmt(values)
            lines = [f"{pre}{v} {ts[i]}\n" for i in range(start, end, every)]
        else:
            lines = [f"{pre}{fmt(values[i])} {ts[i]}\n" for i in range(start, end, every)]
        if every > 1 and (end - 1 - start) % every:
            lines.append(f"{pre}{fmt(values if isinstance(values, (int, float)) else values[end - 1])} {ts[end - 1]}\n")
        self.out.extend(lines)
        self.samples += len(lines)
        self.series += 1


def fi(v):
    return str(int(round(v)))


def f2(v):
    return f"{v:.2f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))


def f3(v):
    return f"{v:.3f}"


def f4(v):
    return f"{v:.4f}"


def cumsum(rates, step, base=0.0):
    out, acc = [], base
    for x in rates:
        acc += max(0.0, x) * step
        out.append(acc)
    return out


def render(run):
    """Derive the GPU physics, integrate counters, and write every series."""
    r, n, st = run.rng, run.n, run.step
    w = Writer(run)
    slow = max(1, int(round(30 / st)))          # constant-ish gauges every 30 s
    a_tau = 1 - math.exp(-st / 45.0)            # die temperature time constant 45 s
    procs_by_gpu = {}
    for p in run.procs:
        procs_by_gpu.setdefault(p.gpu, []).append(p)
    run.derived = {}
    for gp in run.gpus:
        L = gp.labels()
        util, sm, tens, fbu, fbf, temp, pw, clk = ([0.0] * n for _ in range(8))
        reasons = {k: [0] * n for k in REASONS}
        swt, hwt = [0.0] * n, [0.0] * n
        T = gp.ambient[0] + gp.rth[0] * IDLE_W
        tn = run.ar1(0.35, 0.7)
        pn = run.ar1(6.0, 0.6)
        plist = procs_by_gpu.get(gp.idx, [])
        for i in range(n):
            u = clamp(gp.load[i], 0.0, 1.0)
            demand = IDLE_W + (TDP - IDLE_W) * gp.intensity * (u ** 1.1) + pn[i] * u
            cf = 1.0
            lim = gp.limit[i]
            if demand > lim - 2:
                reasons["sw_power_cap"][i] = 1
                cf = max(0.55, ((lim - IDLE_W) / max(1.0, demand - IDLE_W)) ** 0.85)
                p = lim * (0.975 + 0.02 * r.random())
            else:
                p = demand
            if T > SW_THERM:
                reasons["sw_thermal_slowdown"][i] = 1
                cf_t = max(0.5, 1 - (T - SW_THERM) * 0.12)
                if T >= SLOWDOWN - 0.5:
                    reasons["hw_thermal_slowdown"][i] = 1
                    cf_t *= 0.8
                if cf_t < cf:
                    p = IDLE_W + (p - IDLE_W) * (cf_t / cf) ** 1.6
                    cf = cf_t
            if u < 0.02:
                reasons["gpu_idle"][i] = 1
                c = IDLE_CLK
                p = IDLE_W * (0.97 + 0.05 * r.random()) + (25 if plist else 0)
            else:
                c = round(MAX_CLK * cf / 15.0) * 15
            target = gp.ambient[i] + gp.rth[i] * p
            T += (target - T) * a_tau
            util[i] = clamp(round(100 * u + (r.gauss(0, 1.2) if u > 0.02 else 0)), 0, 100)
            sm[i] = clamp(u * 0.93 * (1 + r.gauss(0, 0.01)), 0, 1) if u > 0.005 else 0.0
            tens[i] = clamp(sm[i] * 0.66 * gp.intensity, 0, 1)
            temp[i] = clamp(round(T + tn[i]), 15, 95)
            pw[i] = clamp(p, 40, max(lim * 1.005, 60))
            clk[i] = c
            swt[i] = st if reasons["sw_thermal_slowdown"][i] else 0
            hwt[i] = st if reasons["hw_thermal_slowdown"][i] else 0
            used = sum(pr.mem[i] for pr in plist if pr.start <= i < pr.end)
            used = int(round(used)) + (0 if not used else 3)
            fbu[i] = min(used, FB_CAP)
            fbf[i] = FB_CAP - fbu[i]
        run.derived[gp.idx] = {"util": util, "sm_clock": clk, "temp": temp, "power": pw,
                               "reasons": reasons, "fb_used": fbu}
        gone = gp.gone_from if gp.gone_from is not None else n
        fast = [("DCGM_FI_DEV_GPU_UTIL", "gauge", util, fi), ("DCGM_FI_PROF_SM_ACTIVE", "gauge", sm, f4),
                ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge", tens, f4),
                ("DCGM_FI_DEV_FB_USED", "gauge", fbu, fi), ("DCGM_FI_DEV_FB_FREE", "gauge", fbf, fi),
                ("DCGM_FI_DEV_GPU_TEMP", "gauge", temp, fi), ("DCGM_FI_DEV_POWER_USAGE", "gauge", pw, f3),
                ("DCGM_FI_DEV_SM_CLOCK", "gauge", clk, fi)]
        for name, typ, vals, fmt in fast:
            w.series_(name, typ, L, vals, fmt, 0, gone)
        for k in REASONS:
            w.series_("llmon_gpu_clock_event_reason_active", "gauge", f'{L},reason="{k}"', reasons[k], fi, 0, gone)
        w.series_("llmon_gpu_clock_event_sw_thermal_seconds_total", "counter", L, cumsum(swt, 1), f3, 0, gone)
        w.series_("llmon_gpu_clock_event_hw_thermal_seconds_total", "counter", L, cumsum(hwt, 1), f3, 0, gone)
        base = r.uniform(1e14, 5e14)
        w.series_("llmon_gpu_nvlink_transmit_bytes_total", "counter", L, cumsum(gp.nvl, st, base), fi, 0, gone)
        w.series_("llmon_gpu_nvlink_receive_bytes_total", "counter", L,
                  cumsum([x * (0.98 + 0.04 * r.random()) for x in gp.nvl], st, base * 1.01), fi, 0, gone)
        pbase = r.uniform(1e13, 5e13)
        w.series_("llmon_gpu_pcie_receive_bytes_total", "counter", L, cumsum([x + 2e6 for x in gp.pcie_rx], st, pbase), fi, 0, gone)
        w.series_("llmon_gpu_pcie_transmit_bytes_total", "counter", L,
                  cumsum([x * 0.15 + 1e6 for x in gp.pcie_rx], st, pbase * 0.2), fi, 0, gone)
        # slow / constant gauges
        xid_last = [0] * n
        for (ei, code) in sorted(gp.xids):
            for i in range(ei, n):
                xid_last[i] = code
        dbe = [0] * n
        for ei in gp.dbe:
            for i in range(min(ei, n), n):
                dbe[i] += 1
        pend = [1 if gp.remap_pending_from is not None and i >= gp.remap_pending_from else 0 for i in range(n)]
        fail = [1 if gp.remap_failure_from is not None and i >= gp.remap_failure_from else 0 for i in range(n)]
        up = [1 if i < gone else 0 for i in range(n)]
        ev = slow if not (gp.xids or gp.dbe) else 1
        consts = [("DCGM_FI_DEV_SLOWDOWN_TEMP", SLOWDOWN), ("DCGM_FI_DEV_MAX_SM_CLOCK", MAX_CLK),
                  ("DCGM_FI_DEV_PCIE_LINK_GEN", gp.pcie_gen), ("DCGM_FI_DEV_PCIE_LINK_WIDTH", gp.pcie_width),
                  ("DCGM_FI_DEV_PCIE_MAX_LINK_GEN", 5), ("DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", 16),
                  ("DCGM_FI_DEV_FB_TOTAL", FB_TOTAL)]
        for name, v in consts:
            w.series_(name, "gauge", L, v, fi, 0, gone, slow)
        w.series_("DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "gauge", L, gp.limit, fi, 0, gone,
                  1 if min(gp.limit) != max(gp.limit) else slow)
        w.series_("DCGM_FI_DEV_XID_ERRORS", "gauge", L, xid_last, fi, 0, n, ev)
        w.series_("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", L, dbe, fi, 0, gone, ev)
        w.series_("DCGM_FI_DEV_ROW_REMAP_PENDING", "gauge", L, pend, fi, 0, gone, ev)
        w.series_("DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", L, fail, fi, 0, gone, ev)
        w.series_("llmon_gpu_up", "gauge", L, up, fi, 0, n, ev)
        for code in sorted({c for _, c in gp.xids}):
            cnt = [0] * n
            for (ei, c) in gp.xids:
                if c == code:
                    for i in range(ei, n):
                        cnt[i] += 1
            first = min(ei for ei, c in gp.xids if c == code)
            w.series_("llmon_gpu_xid_errors_total", "counter", f'{L},xid="{code}"', cnt, fi, first, n)
    # per-process series
    for p in run.procs:
        gp = run.gpus[p.gpu]
        L = (f'{gp.labels()},pid="{p.pid}",command="{p.command}",user="{p.user}",'
             f'container="{p.container}",pod="{p.pod}",namespace="{p.namespace}"')
        end = min(p.end, gp.gone_from if gp.gone_from is not None else n)
        util = run.derived[p.gpu]["util"]
        sm = p.sm if p.sm is not None else [util[i] / 100.0 * 0.97 for i in range(n)]
        w.series_("llmon_gpu_process_memory_bytes", "gauge", L, [m * MIB for m in p.mem], fi, p.start, end)
        w.series_("llmon_gpu_process_sm_utilization_ratio", "gauge", L, [clamp(x, 0, 1) for x in sm], f2, p.start, end)
        cpu = [0.0] * n
        acc = 0.0
        for i in range(p.start, n):
            acc += max(0.0, p.cpu[i]) * st
            cpu[i] = acc
        w.series_("llmon_gpu_process_cpu_seconds_total", "counter", L, cpu, f2, p.start, end)
        w.series_("llmon_gpu_process_resident_memory_bytes", "gauge", L, p.rss, fi, p.start, end)
    # host
    uptime = 3.2 * 86400
    for c in range(NCPU):
        busy = {m: [clamp(run.cpu[m][c][i], 0, 1) for i in range(n)] for m in run.cpu}
        idle = []
        for i in range(n):
            s = sum(busy[m][i] for m in busy)
            if s > 1.0:
                for m in busy:
                    busy[m][i] /= s
                s = 1.0
            idle.append(1.0 - s)
        busy["idle"] = idle
        for m in CPU_MODES:
            base = uptime * {"user": 0.3, "system": 0.05, "iowait": 0.004, "softirq": 0.01, "idle": 0.63}[m]
            w.series_("node_cpu_seconds_total", "counter", f'cpu="{c}",mode="{m}"',
                      cumsum(busy[m], st, base * (0.95 + 0.1 * r.random())), f2)
    psi_names = {"cpu_waiting": "node_pressure_cpu_waiting_seconds_total",
                 "memory_waiting": "node_pressure_memory_waiting_seconds_total",
                 "memory_stalled": "node_pressure_memory_stalled_seconds_total",
                 "io_waiting": "node_pressure_io_waiting_seconds_total",
                 "io_stalled": "node_pressure_io_stalled_seconds_total"}
    for k, name in psi_names.items():
        vals = [clamp(x, 0, 1) for x in run.psi[k]]
        if k == "memory_stalled":
            vals = [min(v, clamp(run.psi["memory_waiting"][i], 0, 1)) for i, v in enumerate(vals)]
        if k == "io_stalled":
            vals = [min(v, clamp(run.psi["io_waiting"][i], 0, 1)) for i, v in enumerate(vals)]
        w.series_(name, "counter", "", cumsum(vals, st, uptime * 0.002), f4)
    rss = [sum(p.rss[i] for p in run.procs if p.start <= i < p.end) for i in range(n)]
    avail = [clamp(run.mem_total - run.mem_base_used[i] - rss[i] + r.uniform(-1, 1) * 64 * MIB,
                   run.mem_total * 0.01 + r.uniform(0, 2) * GIB, run.mem_total) for i in range(n)]
    run.derived["mem_avail"] = avail
    w.series_("node_memory_MemTotal_bytes", "gauge", "", run.mem_total, fi, 0, n, slow)
    w.series_("node_memory_MemAvailable_bytes", "gauge", "", avail, fi)
    w.series_("node_memory_SwapTotal_bytes", "gauge", "", run.swap_total, fi, 0, n, slow)
    w.series_("node_memory_SwapFree_bytes", "gauge", "", [run.swap_total - x for x in run.swap_used], fi)
    w.series_("node_vmstat_pswpin", "untyped", "", cumsum(run.pswpin, st, 20480), fi)
    w.series_("node_vmstat_pswpout", "untyped", "", cumsum(run.pswpout, st, 51200), fi)
    for dev, d in sorted(run.disk.items()):
        mr, mw, _ = DISKS[dev]
        rd = [clamp(x, 0, mr) for x in d["r"]]
        wr = [clamp(x, 0, mw) for x in d["w"]]
        riops = [x / (128 * 1024) + 0.5 for x in rd]
        wiops = [x / (256 * 1024) + 2 for x in wr]
        util = [clamp(u + 0.002, 0, 1) for u in d["util"]]
        L = f'device="{dev}"'
        w.series_("node_disk_read_bytes_total", "counter", L, cumsum(rd, st, 4e13), fi)
        w.series_("node_disk_written_bytes_total", "counter", L, cumsum(wr, st, 2e13), fi)
        w.series_("node_disk_reads_completed_total", "counter", L, cumsum(riops, st, 3e8), fi)
        w.series_("node_disk_writes_completed_total", "counter", L, cumsum(wiops, st, 8e7), fi)
        w.series_("node_disk_read_time_seconds_total", "counter", L,
                  cumsum([riops[i] * d["lat"][i] for i in range(n)], st, 4e4), f3)
        w.series_("node_disk_write_time_seconds_total", "counter", L,
                  cumsum([wiops[i] * d["lat"][i] * 1.5 for i in range(n)], st, 9e4), f3)
        w.series_("node_disk_io_time_seconds_total", "counter", L, cumsum(util, st, 6e4), f3)
    for dev, d in sorted(run.net.items()):
        L = f'device="{dev}"'
        w.series_("node_network_speed_bytes", "gauge", L, ETH_LINE, fi, 0, n, slow)
        w.series_("node_network_receive_bytes_total", "counter", L, cumsum(d["rx"], st, 7e12), fi)
        w.series_("node_network_transmit_bytes_total", "counter", L, cumsum(d["tx"], st, 3e12), fi)
        w.series_("node_network_receive_packets_total", "counter", L, cumsum([x / 1400 for x in d["rx"]], st, 5e9), fi)
        w.series_("node_network_transmit_packets_total", "counter", L, cumsum([x / 1400 for x in d["tx"]], st, 2e9), fi)
        w.series_("node_network_receive_drop_total", "counter", L, cumsum(d["rx_drop"], st, 1200), fi)
        w.series_("node_network_transmit_drop_total", "counter", L, cumsum(d["tx_drop"], st, 0), fi)
        w.series_("node_network_receive_errs_total", "counter", L, cumsum([x * 0.1 for x in d["rx_drop"]], st, 3), fi)
        w.series_("node_network_transmit_errs_total", "counter", L, 0, fi, 0, n, slow)
    for dev, d in sorted(run.ib.items()):
        L = f'device="{dev}",port="1"'
        w.series_("node_infiniband_rate_bytes_per_second", "gauge", L, IB_LINE, fi, 0, n, slow)
        w.series_("node_infiniband_port_data_received_bytes_total", "counter", L, cumsum([x + 1e5 for x in d["rx"]], st, 9e14), fi)
        w.series_("node_infiniband_port_data_transmitted_bytes_total", "counter", L, cumsum([x + 1e5 for x in d["tx"]], st, 9e14), fi)
    for dev, fst, mnt, size in FILESYSTEMS:
        L = f'device="{dev}",fstype="{fst}",mountpoint="{mnt}"'
        w.series_("node_filesystem_size_bytes", "gauge", L, size, fi, 0, n, slow)
        used = run.fs_used[mnt]
        w.series_("node_filesystem_avail_bytes", "gauge", L,
                  [clamp(size - used[i], 0, size) // 4096 * 4096 for i in range(n)], fi)
    return w


def finish_truth(run):
    """Subjects that depend on the simulation (which GPUs really throttled)."""
    if "thermal_throttling" in run.kinds and hasattr(run, "thermal_candidates"):
        hot = []
        for g in run.thermal_candidates:
            act = run.derived[g]["reasons"]["sw_thermal_slowdown"]
            if sum(act) > 0.1 * run.n:
                hot.append(str(g))
        if not hot:   # short runs may not heat up enough: keep the hottest
            g = max(run.thermal_candidates, key=lambda g: max(run.derived[g]["temp"]))
            hot = [str(g)]
        run.subjects["thermal_throttling"] = {"gpu": hot if len(hot) > 1 else hot[0]}


def build(name, seed=0, hours=None, step=1, end=DEFAULT_END):
    fn, ngpu, dh, desc = SCENARIOS[name]
    run = Run(name, seed, dh if hours is None else hours, step, ngpu, end)
    fn(run)
    w = render(run)
    finish_truth(run)
    label = {
        "name": name if seed == 0 else f"{name}-s{seed}",
        "scenario": name, "seed": seed, "description": desc,
        "kinds": run.kinds, "top": run.top,
        "subjects": run.subjects, "acceptable": sorted(set(run.acceptable)),
        "onsets": run.onsets,
        "start_ms": int(run.ts[0]), "end_ms": int(run.ts[-1]), "window": "15m",
        "step_s": step, "hours": round(run.n * step / 3600.0, 4), "gpus": ngpu,
        "samples": w.samples, "series": w.series, "notes": run.notes,
    }
    return "".join(w.out), label


# ---------------------------------------------------------------- CLI
def cmd_list(_):
    for name, (_, ngpu, dh, desc) in SCENARIOS.items():
        print(f"{name:26s} {ngpu} GPU  {dh:>3} h  {desc}")


def write_one(outdir, name, seed, hours, step, end, gz):
    text, label = build(name, seed, hours, step, end)
    base = os.path.join(outdir, label["name"])
    data = text.encode()
    if gz:
        data = gzip.compress(data, 1, mtime=0)
        with open(base + ".prom.gz", "wb") as f:
            f.write(data)
    else:
        with open(base + ".prom", "wb") as f:
            f.write(data)
    with open(base + ".json", "w") as f:
        json.dump(label, f, indent=1, sort_keys=True)
        f.write("\n")
    return label, len(data)


def cmd_write(a):
    os.makedirs(a.outdir, exist_ok=True)
    names = list(SCENARIOS) if not a.only else a.only.split(",")
    for nm in names:
        if nm not in SCENARIOS:
            sys.exit(f"unknown scenario {nm!r} (scenarios.py list)")
    seeds = range(a.seeds) if a.seeds else [0]
    for nm in names:
        for s in seeds:
            label, size = write_one(a.outdir, nm, s, a.hours, a.step, a.end, a.gzip)
            print(f"{label['name']}: {label['samples']} samples, {label['series']} series, "
                  f"{size / 1e6:.1f} MB, top={label['top']}", flush=True)


LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+) (-?\d+)$')


def check_text(text, label, errors, values=None):
    types, last, seen_series = {}, {}, set()
    prev_key = None
    gpu_labels, pids = set(), set()
    for ln in text.splitlines():
        if ln.startswith("# TYPE "):
            _, _, nm, typ = ln.split(" ")
            if nm in types:
                errors.append(f"duplicate TYPE {nm}")
            types[nm] = typ
            continue
        m = LINE.match(ln)
        if not m:
            errors.append(f"bad line {ln[:80]!r}")
            return
        nm, lab, v, t = m.group(1), m.group(2), float(m.group(3)), int(m.group(4))
        if nm not in types:
            errors.append(f"{nm}: sample before its TYPE")
        if 'job="llmon",instance="node1:8747"' not in lab:
            errors.append(f"{nm}: job/instance missing")
        key = (nm, lab)
        if key != prev_key:
            if key in seen_series:
                errors.append(f"{nm}{{{lab[:60]}}}: series not contiguous")
            seen_series.add(key)
            prev_key = key
        if key in last:
            pt, pv = last[key]
            if t <= pt:
                errors.append(f"{nm}: timestamps not increasing")
            if types.get(nm) == "counter" and v < pv:
                errors.append(f"{nm}{{{lab[:60]}}}: counter decreased {pv} -> {v}")
        last[key] = (t, v)
        if values is not None:
            values.setdefault(key, []).append((t, v))
        if not (label["start_ms"] <= t <= label["end_ms"]):
            errors.append(f"{nm}: timestamp {t} outside label range")
        if math.isnan(v) or v < 0:
            errors.append(f"{nm}: bad value {v}")
        if nm == "DCGM_FI_DEV_GPU_UTIL" and v > 100:
            errors.append("util > 100")
        if nm.startswith("DCGM_FI_PROF_") or nm.endswith("_ratio") or nm == "llmon_gpu_clock_event_reason_active":
            if v > 1:
                errors.append(f"{nm} > 1")
        if nm == "DCGM_FI_DEV_SM_CLOCK" and v > MAX_CLK:
            errors.append("clock > max")
        if nm == "DCGM_FI_DEV_GPU_TEMP" and not 15 <= v <= 95:
            errors.append(f"temp {v}")
        if nm == "DCGM_FI_DEV_POWER_USAGE" and v > TDP * 1.01:
            errors.append(f"power {v}")
        if nm == "DCGM_FI_DEV_FB_USED" and v > FB_CAP:
            errors.append("fb used > cap")
        if nm == "DCGM_FI_DEV_GPU_UTIL":
            gpu_labels.add(re.search(r'gpu="(\d+)"', lab).group(1))
        if nm == "llmon_gpu_process_memory_bytes":
            pids.add(re.search(r'pid="(\d+)"', lab).group(1))
    # label file consistency
    if label["top"] is not None and label["top"] not in label["kinds"]:
        errors.append("top not among kinds")
    for k in label["kinds"]:
        if k not in KINDS:
            errors.append(f"unknown kind {k}")
        if k not in label["subjects"] or k not in label["onsets"]:
            errors.append(f"kind {k} without subject/onset")
    if set(label["subjects"]) - set(label["kinds"]):
        errors.append("subject for a kind not injected")
    if label["top"] is None and [k for k in label["kinds"] if k not in label["acceptable"]]:
        errors.append("healthy run with findings")
    for k, subj in label["subjects"].items():
        g = subj.get("gpu")
        for x in ([g] if isinstance(g, str) else g or []):
            if x not in gpu_labels:
                errors.append(f"{k}: subject gpu {x} has no series")
        if "pid" in subj and subj["pid"] not in pids:
            errors.append(f"{k}: subject pid {subj['pid']} has no series")
    if len(last) != label["series"]:
        errors.append(f"series count {len(last)} != label {label['series']}")


def _g(lab, k):
    m = re.search(k + r'="([^"]*)"', lab)
    return m.group(1) if m else None


def check_signals(values, label, errors):
    """The injected causes are visible in the data the label points at."""
    def fam(name, **match):
        return {lab: vs for (nm, lab), vs in values.items() if nm == name and
                all(_g(lab, k) == v for k, v in match.items())}

    def mean(vs, frm=0.5):
        vs = vs[int(len(vs) * frm):]
        return sum(v for _, v in vs) / max(1, len(vs))

    def rate(vs, frm=0.5):
        vs = vs[int(len(vs) * frm):]
        return (vs[-1][1] - vs[0][1]) / max(1e-9, (vs[-1][0] - vs[0][0]) / 1000.0)

    def peak_rate(vs, win_ms=60000):
        best, j = 0.0, 0
        for i in range(len(vs)):
            while vs[i][0] - vs[j][0] > win_ms:
                j += 1
            if vs[i][0] > vs[j][0]:
                best = max(best, (vs[i][1] - vs[j][1]) / ((vs[i][0] - vs[j][0]) / 1000.0))
        return best

    def gpus_of(subj):
        g = subj.get("gpu")
        return [g] if isinstance(g, str) else list(g or [])

    util = {_g(lab, "gpu"): vs for lab, vs in fam("DCGM_FI_DEV_GPU_UTIL").items()}
    problems = []
    for kind, subj in label["subjects"].items():
        gs = gpus_of(subj)
        if kind == "straggler":
            s = gs[0]
            others = [mean(v) for g, v in util.items() if g != s]
            if not mean(util[s]) < min(others) - 4:
                problems.append("straggler not slower than the rest")
        elif kind in ("thermal_throttling", "power_throttling"):
            reason = "sw_thermal_slowdown" if kind == "thermal_throttling" else "sw_power_cap"
            for g in gs:
                act = list(fam("llmon_gpu_clock_event_reason_active", gpu=g, reason=reason).values())[0]
                if mean(act, 0.0) < 0.05:
                    problems.append(f"{kind}: gpu {g} reason {reason} rarely active")
        elif kind == "gpu_memory_pressure":
            free = list(fam("DCGM_FI_DEV_FB_FREE", gpu=gs[0]).values())[0]
            if not min(v for _, v in free[-max(1, len(free) // 10):]) < 0.05 * FB_TOTAL:
                problems.append("gpu_memory_pressure: headroom not under 5 %")
        elif kind == "memory_leak_host":
            rss = list(fam("llmon_gpu_process_resident_memory_bytes", pid=subj["pid"]).values())[0]
            a, b = rss[len(rss) // 10], rss[-1]
            if not (b[1] / a[1] - 1) / ((b[0] - a[0]) / 3.6e6) > 0.05:
                problems.append("memory_leak_host: RSS grows < 5 %/h")
        elif kind == "memory_leak_gpu":
            mem = list(fam("llmon_gpu_process_memory_bytes", pid=subj["pid"]).values())[0]
            if not mem[-1][1] > mem[len(mem) // 10][1] * 1.02:
                problems.append("memory_leak_gpu: no growth")
        elif kind == "idle_gpu":
            for g in gs:
                if mean(util[g]) >= 30:
                    problems.append(f"idle_gpu: gpu {g} busy")
        elif kind == "hardware_fault":
            g = gs[0]
            xid = mean(list(fam("DCGM_FI_DEV_XID_ERRORS", gpu=g).values())[0], 0.9)
            gen = mean(list(fam("DCGM_FI_DEV_PCIE_LINK_GEN", gpu=g).values())[0], 0.0)
            wid = mean(list(fam("DCGM_FI_DEV_PCIE_LINK_WIDTH", gpu=g).values())[0], 0.0)
            if not (xid > 0 or gen < 5 or wid < 16):
                problems.append("hardware_fault: no Xid and the link at max")
        elif kind == "checkpoint_slow":
            w = list(fam("node_disk_written_bytes_total", device=subj["device"]).values())[0]
            if not 50e6 < peak_rate(w) < 200e6:
                problems.append(f"checkpoint_slow: peak write {peak_rate(w):.3g} B/s")
        elif kind in ("disk_saturation", "input_bound_io"):
            io = list(fam("node_disk_io_time_seconds_total", device=subj["device"]).values())[0]
            if rate(io, 0.75) < 0.9:
                problems.append(f"{kind}: disk util {rate(io, 0.75):.2f}")
        elif kind == "communication_bound":
            tx = list(fam("node_infiniband_port_data_transmitted_bytes_total", device=subj["device"]).values())[0]
            if peak_rate(tx, 1000 * label["step_s"]) < 0.9 * IB_LINE:
                problems.append("communication_bound: IB never near line rate")
        elif kind == "network_saturation":
            tx = list(fam("node_network_transmit_bytes_total", device=subj["device"]).values())[0]
            drops = sum(rate(v, 0.75) for nm in ("node_network_receive_drop_total", "node_network_transmit_drop_total")
                        for v in fam(nm, device=subj["device"]).values())
            if rate(tx, 0.75) < 0.9 * ETH_LINE and drops < 1:
                problems.append("network_saturation: NIC below 90 % and no drops")
        elif kind == "host_memory_pressure":
            av = list(fam("node_memory_MemAvailable_bytes").values())[0]
            tot = list(fam("node_memory_MemTotal_bytes").values())[0]
            sw = list(fam("node_vmstat_pswpout").values())[0]
            if not (av[-1][1] / tot[-1][1] < 0.1 and sw[-1][1] > sw[0][1]):
                problems.append("host_memory_pressure: memory not short or no swapping")
        elif kind == "cooling_degradation":
            t = list(fam("DCGM_FI_DEV_GPU_TEMP", gpu=gs[0]).values())[0]
            k = max(1, len(t) // 10)
            if not mean(t[-k:], 0.0) - mean(t[len(t) // 5:len(t) // 5 + k], 0.0) > 5:
                problems.append("cooling_degradation: temperature not rising")
        if kind in ("input_bound_cpu", "input_bound_io", "communication_bound"):
            m = sum(mean(v) for v in util.values()) / len(util)
            if m > 75:
                problems.append(f"{kind}: GPUs busy ({m:.0f} %)")
    if label["top"] is None and label["scenario"] == "healthy_training":
        m = min(mean(v, 0.5) for v in util.values())
        if m < 85:
            problems.append(f"healthy training at {m:.0f} %")
    errors += problems


def cmd_selftest(_):
    errors = []
    for nm in SCENARIOS:
        text, label = build(nm, 1, 0.3 if SCENARIOS[nm][2] <= 1 else 1.0, 5)
        e, vals = [], {}
        check_text(text, label, e, vals)
        check_signals(vals, label, e)
        errors += [f"{nm}: {x}" for x in e[:5]]
        print(f"{nm}: {label['samples']} samples, {len(e)} problems", flush=True)
    # a short 1 s run too
    text, label = build("hardware_fault_ecc", 0, 0.1, 1)
    e = []
    check_text(text, label, e)
    errors += [f"ecc@1s: {x}" for x in e[:5]]
    # determinism: same seed, same bytes; another seed, other bytes
    for nm in ("communication_bound", "straggler_pcie", "healthy_inference"):
        a = hashlib.sha256(build(nm, 3, 0.2, 5)[0].encode()).hexdigest()
        b = hashlib.sha256(build(nm, 3, 0.2, 5)[0].encode()).hexdigest()
        c = hashlib.sha256(build(nm, 4, 0.2, 5)[0].encode()).hexdigest()
        if a != b:
            errors.append(f"{nm}: not deterministic")
        if a == c:
            errors.append(f"{nm}: seed ignored")
        la, lb = build(nm, 3, 0.2, 5)[1], build(nm, 3, 0.2, 5)[1]
        if la != lb:
            errors.append(f"{nm}: label not deterministic")
    for x in errors:
        print("FAIL", x)
    print("selftest:", "ok" if not errors else f"{len(errors)} failures")
    return 1 if errors else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    wp = sub.add_parser("write")
    wp.add_argument("outdir")
    wp.add_argument("--only", default="")
    wp.add_argument("--seeds", type=int, default=0, help="N seeded variants (seeds 0..N-1) of each")
    wp.add_argument("--hours", type=float, default=None, help="override every scenario's default length")
    wp.add_argument("--step", type=int, default=1, help="seconds between samples (5 for speed)")
    wp.add_argument("--end", type=int, default=DEFAULT_END, help="unix seconds of the last sample")
    wp.add_argument("--gzip", action="store_true", help="write .prom.gz (llmon tsdb import reads it)")
    sub.add_parser("selftest")
    a = ap.parse_args(argv)
    if a.cmd == "list":
        return cmd_list(a)
    if a.cmd == "write":
        return cmd_write(a)
    return cmd_selftest(a)


if __name__ == "__main__":
    sys.exit(main() or 0)
