#!/usr/bin/python3
"""The straightforward Python baseline of `llmon trace analyze`: json.load
the whole trace (.json or .json.gz) and compute HTA's temporal breakdown
(docs/trace.md#analyses) with the same kernel selection: events with a
`stream` arg other than -1 (an integer: ROCm runtime calls carry "0x0"); with >= 2 ProfilerStep#N annotations only
kernels whose launch (by correlation) precedes the last step; times
truncated to integer microseconds (ns for displayTimeUnit "ns" traces).
Prints one JSON object. Usage: trace_breakdown.py FILE"""
import decimal
import gzip
import json
import re
import sys

COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
MEM = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
NOT_COMPUTE = re.compile(
    r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)|(^runFunction)|"
    r"(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution)")
LAUNCH = {"cuda_runtime", "cuda_driver", "Runtime", "mtia_runtime", "privateuse1_runtime", "xpu_runtime"}


def is_compute(name):
    return not COMM.match(name) and not MEM.match(name) and not NOT_COMPUTE.match(name)


def union(iv):
    total, cs, ce = 0, None, None
    for s, e in sorted(iv):
        if cs is None:
            cs, ce = s, e
        elif s > ce:
            total += ce - cs
            cs, ce = s, e
        else:
            ce = max(ce, e)
    return total + (ce - cs if cs is not None else 0)


def main(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        trace = json.load(f)
    scale = 1000 if isinstance(trace, dict) and trace.get("displayTimeUnit") == "ns" else 1
    if scale == 1000:  # ns traces: µs with three decimals, beyond a double's precision at 1.7e15
        with opener(path, "rb") as f:
            trace = json.load(f, parse_float=decimal.Decimal)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    kernels, launches, steps = [], {}, []
    for e in events:
        if e.get("ph") != "X" or "ts" not in e or "dur" not in e or e["dur"] < 0:
            continue
        args = e.get("args") or {}
        ts, dur = int(e["ts"] * scale), int(e["dur"] * scale)
        stream = args.get("stream", -1)
        if isinstance(stream, int) and stream != -1:  # ROCm's runtime calls carry "stream": "0x0"
            kernels.append((ts, ts + dur, e.get("name", ""), args.get("correlation")))
        elif e.get("cat") in LAUNCH and "correlation" in args:
            launches.setdefault(args["correlation"], ts)
        elif e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#"):
            steps.append(ts)
    if len(steps) >= 2:
        cutoff = max(steps)
        kernels = [k for k in kernels if k[3] in launches and launches[k[3]] < cutoff]
    out = {"kernels": len(kernels)}
    if kernels:
        kt = max(k[1] for k in kernels) - min(k[0] for k in kernels)
        idle = kt - union([(k[0], k[1]) for k in kernels])
        compute = union([(k[0], k[1]) for k in kernels if is_compute(k[2])])
        out.update(kernel_time_us=kt / scale, idle_us=idle / scale, compute_us=compute / scale,
                   non_compute_us=(kt - compute - idle) / scale)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
