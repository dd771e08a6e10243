#!/usr/bin/env python3
"""Inputs of bench/logwatch_match.sh: a training log and 50 patterns.

  logwatch_match_data.py OUTDIR [--mib 200] [--match-percent 2]

OUTDIR/patterns.re2: the built-in packs' patterns (deploy/logwatch/*.yml) and
31 more realistic ones, one RE2 pattern a line ("(?i)" for caseless rules);
OUTDIR/patterns.ere: the same for GNU grep -E (groups unnamed, caseless
letters spelled [aA]); OUTDIR/train.log: MIB MiB of training-job lines, of
which about MATCH_PERCENT % are real-shaped error lines (the packs' test
corpus shapes), the rest progress, NCCL INFO and warning chatter. Seeded:
the same arguments give the same bytes.
"""
import argparse, os, random, re, yaml

HERE = os.path.dirname(os.path.abspath(__file__))
EXTRA = [
    r"NULL pointer dereference", r"divide error: 0000", r"EXT4-fs error \(device [a-z0-9]+\)",
    r"Buffer I/O error on dev(ice)? [a-z0-9]+", r"Remounting filesystem read-only",
    r"unregister_netdevice: waiting for [a-z0-9]+ to become free", r"kernel BUG at [^ ]+",
    r"segfault at [0-9a-f]+ ip [0-9a-f]+", r"Segmentation fault", r"Bus error \(core dumped\)",
    r"Illegal instruction", r"CUDA error: an illegal memory access was encountered",
    r"CUDA error: device-side assert triggered", r"cuDNN error: CUDNN_STATUS_[A-Z_]+", r"CUBLAS_STATUS_[A-Z_]+",
    r"ChildFailedError", r"torch\.distributed\.elastic\.multiprocessing\.errors",
    r"DataLoader worker \(pid\(s\) [0-9, ]+\) exited unexpectedly", r"ConnectionRefusedError: \[Errno 111\]",
    r"TimeoutError: ", r"MemoryError", r"Gradient overflow\. Skipping step", r"OVERFLOW! Rank [0-9]+ Skipping step",
    r"slurmstepd: error: \*\*\* (JOB|STEP) [0-9.]+ ON [^ ]+ CANCELLED", r"nvidia-smi has failed",
    r"NVML: Driver/library version mismatch", r"FileNotFoundError: \[Errno 2\]", r"PermissionError: \[Errno 13\]",
    r"AssertionError", r"ECC error|Uncorrectable ECC", r"Input/output error",
]
MATCHING = [
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB of which 1.02 GiB is free.",
    "step {n}: loss is nan, skipping batch",
    "OSError: [Errno 28] No space left on device: '/ckpt/step_{n}/model.pt'",
    "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={n}, OpType=ALLREDUCE, NumelIn=52, NumelOut=52, Timeout(ms)=600000) ran for 600097 milliseconds before timing out.",
    "node7:2211:2390 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<36241> with error 12, opcode 0, len 0, vendor err 129",
    "[rank1]: Traceback (most recent call last):",
    "[rank1]:   File \"/opt/train.py\", line 88, in <module>",
    "E1203 05:01:02.123000 4242 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: -9) local_rank: 0 (pid: {n}) of binary: /usr/bin/python3",
    "[W socket.cpp:663] [c10d] The client socket has failed to connect to [node1]:29500 (errno: 111 - Connection refused).",
    "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "[  {n}.123456] NVRM: Xid (PCI:0000:3b:00): 79, pid={n}, name=python3, GPU has fallen off the bus.",
    "[  {n}.5] nvidia 0000:3b:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
]
CHATTER = [
    "[2026-12-03 05:{m:02d}:{s:02d},{ms:03d}] [INFO] [rank{r}] step {n} | loss {loss:.4f} | lr {lr:.3e} | grad_norm {g:.3f} | tokens/s {tps} | mem {mem:.1f} GiB",
    "node{r}:{pid}:{pid} [{r}] NCCL INFO Channel {c:02d}/32 : 0 1 2 3 4 5 6 7 via P2P/CUMEM/read",
    "node{r}:{pid}:{pid} [{r}] NCCL INFO comm 0x55d{pid} rank {r} nranks 64 cudaDev {r} nvmlDev {r} busId 3b000 commId 0x9f1e - Init COMPLETE",
    "/opt/venv/lib/python3.11/site-packages/torch/utils/checkpoint.py:{c}: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.",
    "{{'loss': {loss:.4f}, 'grad_norm': {g:.4f}, 'learning_rate': {lr:.3e}, 'epoch': {e:.2f}}}",
    "Saving checkpoint to /ckpt/run-17/step_{n} (took {g:.2f} s), 8 shards",
    "[2026-12-03 05:{m:02d}:{s:02d}] [INFO] [dataloader] worker {r} prefetched {c} batches from /data/shard-{pid}.tar",
    " {n:>8}/100000 [{m:02d}:{s:02d}<12:00:00, {g:.2f} it/s, loss={loss:.3f}]",
]


def to_ere(p, caseless):
    """p (RE2) for grep -E: groups unnamed; letters caseless where p is."""
    out, i, n, stack = [], 0, len(p), []
    while i < n:
        c = p[i]
        if c == "\\":
            e = p[i + 1]
            out.append(e if e in "]}-" else "\\" + e)
            i += 2
        elif c == "(":
            stack.append(caseless)
            caseless = caseless or p.startswith("(?i:", i)
            out.append("(")
            if p.startswith("(?P<", i):
                i = p.index(">", i) + 1
            elif p.startswith("(?", i):
                i = p.index(":", i) + 1
            else:
                i += 1
        elif c == ")":
            caseless = stack.pop()
            out.append(c)
            i += 1
        elif c == "[":
            j = p.index("]", i + 2 if p[i + 1] in "]^" else i + 1)
            assert "\\" not in p[i:j], p
            out.append(p[i:j + 1])
            i = j + 1
        else:
            out.append("[%s%s]" % (c.lower(), c.upper()) if caseless and c.isalpha() else c)
            i += 1
    return "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mib", type=int, default=200)
    ap.add_argument("--match-percent", type=float, default=2.0)
    a = ap.parse_args()
    re2, ere = [], []
    for f in ("kernel.yml", "training.yml"):
        for r in yaml.safe_load(open(os.path.join(HERE, "..", "deploy", "logwatch", f)))["rules"]:
            ci = bool(r.get("case_insensitive"))
            p = r["regex"] if "regex" in r else re.escape(r["literal"])
            re2.append(("(?i)" if ci else "") + p)
            ere.append(to_ere(p, ci))
    for p in EXTRA:
        re2.append(p)
        ere.append(to_ere(p, False))
    assert len(re2) == 50, len(re2)
    open(os.path.join(a.out, "patterns.re2"), "w").write("\n".join(re2) + "\n")
    open(os.path.join(a.out, "patterns.ere"), "w").write("\n".join(ere) + "\n")
    rnd = random.Random(18)
    want, size = a.mib << 20, 0
    with open(os.path.join(a.out, "train.log"), "w") as f:
        buf = []
        while size < want:
            n = rnd.randrange(1, 10**6)
            if rnd.random() * 100 < a.match_percent:
                line = rnd.choice(MATCHING).format(n=n)
            else:
                line = rnd.choice(CHATTER).format(
                    n=n, m=rnd.randrange(60), s=rnd.randrange(60), ms=rnd.randrange(1000), r=rnd.randrange(8),
                    loss=rnd.uniform(1.5, 3), lr=rnd.uniform(1e-5, 3e-4), g=rnd.uniform(0.1, 2), tps=rnd.randrange(10**5),
                    mem=rnd.uniform(40, 79), pid=rnd.randrange(10**5), c=rnd.randrange(32), e=rnd.uniform(0, 3))
            buf.append(line)
            size += len(line) + 1
            if len(buf) >= 10000:
                f.write("\n".join(buf) + "\n")
                buf = []
        if buf:
            f.write("\n".join(buf) + "\n")


if __name__ == "__main__":
    main()
