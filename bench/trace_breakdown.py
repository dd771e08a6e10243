#!/usr/bin/python3
"""The straightforward Python baseline of `llmon trace analyze`: json.load
the whole trace (.json or .json.gz) and compute HTA's temporal breakdown
(docs/trace.md#analyses) with the same kernel selection: events with a
`stream` arg other than -1 (an integer: ROCm runtime calls carry "0x0"); with >= 2 ProfilerStep#N annotations only
kernels whose launch (by correlation) precedes the last step; times
truncated to integer microseconds (ns for displayTimeUnit "ns" traces).
Prints one JSON object. Usage: trace_breakdown.py [--analyses] FILE
                               trace_breakdown.py --stragglers FILE...

--analyses adds HTA's other single-rank analyses over the same kernels, as
docs/trace.md defines them: communication/computation overlap, idle time by
cause per stream, launch statistics, queue lengths per stream and memory
bandwidth per kind (the same keys as `llmon trace analyze --json`).
--stragglers FILE... (the ranks of one job) prints the stragglers object of
`llmon trace analyze --json DIR`: communication kernels matched across ranks
by key ("Process Group Name/Collective name", else the kernel name) and
occurrence, the last rank of each and how late."""
import decimal
import gzip
import json
import re
import statistics
import sys

COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
MEM = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
NOT_COMPUTE = re.compile(
    r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)|(^runFunction)|"
    r"(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution)")
LAUNCH = {"cuda_runtime", "cuda_driver", "Runtime", "mtia_runtime", "privateuse1_runtime", "xpu_runtime"}
LAUNCH_CALLS = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaMemcpyAsync",
                "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution", "hipLaunchKernel",
                "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream"}


def kernel_type(name):
    if COMM.match(name):
        return "COMMUNICATION"
    if MEM.match(name):
        return "MEMORY"
    return "OTHER" if NOT_COMPUTE.match(name) else "COMPUTATION"


def merge(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def intersect(a, b):
    """Length of the intersection of two merged interval lists: a sweep over
    their boundaries with a running count (HTA's comm +-1, comp +-2, status 3)."""
    events = sorted([(s, 1) for s, e in a] + [(e, -1) for s, e in a] + [(s, 2) for s, e in b] + [(e, -2) for s, e in b])
    total, running = 0, 0
    for (t, d), nxt in zip(events, events[1:] + [(None, 0)]):
        running += d
        if running == 3 and nxt[0] is not None:
            total += nxt[0] - t
    return total


def describe(v):
    if not v:
        return {"count": 0}
    v = sorted(v)
    def q(p):
        pos = p * (len(v) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(v) - 1)
        return v[lo] + (v[hi] - v[lo]) * (pos - lo)
    return {"count": len(v), "mean": statistics.fmean(v), "std": statistics.stdev(v) if len(v) > 1 else 0.0,
            "min": v[0], "p25": q(0.25), "p50": q(0.5), "p75": q(0.75), "max": v[-1]}


def analyses(kernels, first_launch, calls, scale):
    """kernels: (ts, end, name, correlation, stream, args) in trace units."""
    out = {}
    types = {k[2]: kernel_type(k[2]) for k in kernels}
    comm = merge([(k[0], k[1]) for k in kernels if types[k[2]] == "COMMUNICATION"])
    comp = merge([(k[0], k[1]) for k in kernels if types[k[2]] == "COMPUTATION"])
    comm_t = sum(e - s for s, e in comm)
    over = intersect(comm, comp) if comm_t else 0
    out["overlap"] = {"comm_us": comm_t / scale, "overlapped_us": over / scale,
                      "pct": 100.0 * over / comm_t if comm_t else 0.0}
    idle = []
    for stream in sorted({k[4] for k in kernels}):
        ks = sorted((k for k in kernels if k[4] == stream), key=lambda k: k[0])
        gaps = {"host_wait": [], "kernel_wait": [], "other": []}
        for prev, k in zip(ks, ks[1:]):
            gap = k[0] - prev[1]
            launch = first_launch.get(k[3])
            if launch is not None and launch > prev[1]:
                gaps["host_wait"].append(gap)
            elif gap < 30 * scale:
                gaps["kernel_wait"].append(gap)
            else:
                gaps["other"].append(gap)
        total = sum(sum(g) for g in gaps.values())
        row = {"stream": stream, "kernels": len(ks), "idle_us": total / scale, "gaps": {}, "gap_us": {}}
        for c, g in gaps.items():
            row[c + "_us"] = sum(g) / scale
            row[c + "_ratio"] = sum(g) / total if total else 0.0
            row["gaps"][c] = len(g)
            row["gap_us"][c] = describe([x / scale for x in g])
        idle.append(row)
    out["idle_by_stream"] = idle
    pairs = [(calls[k[3]], k) for k in kernels if k[3] in calls]
    cpu = [c[1] for c, k in pairs]
    gpu = [k[1] - k[0] for c, k in pairs]
    delay = [k[0] - (c[0] + c[1]) for c, k in pairs]
    out["launches"] = {"pairs": len(pairs),
                       "cpu_us": {"mean": statistics.fmean(cpu) / scale if cpu else 0},
                       "gpu_us": {"mean": statistics.fmean(gpu) / scale if gpu else 0},
                       "delay_us": {"mean": statistics.fmean(delay) / scale if delay else 0,
                                    "max": max(delay) / scale if delay else 0},
                       "short_kernels": sum(1 for c, g in zip(cpu, gpu) if c <= 50 * scale and g < c),
                       "runtime_outliers": sum(1 for c in cpu if c > 50 * scale),
                       "delay_outliers": sum(1 for d in delay if d > 100 * scale)}
    queues = []
    for stream in sorted({k[4] for c, k in pairs}):
        steps = []
        for c, k in pairs:
            if k[4] == stream:
                steps += [(c[0], 1), (k[0], -1)]
        steps.sort(key=lambda x: (x[0], -x[1]))  # at equal times the launch first
        length, series = 0, []
        for t, d in steps:
            length += d
            series.append((t, length))
        top = max(n for t, n in series)
        at_max = sum(b[0] - a[0] for a, b in zip(series, series[1:]) if a[1] == top)
        row = describe([n for t, n in series])
        row.update(stream=stream, time_at_max_us=at_max / scale)
        queues.append(row)
    out["queues"] = queues
    mem = {}
    for k in kernels:
        if types[k[2]] != "MEMORY":
            continue
        n = k[2]
        kind = "Memset" if n.startswith("Memset") else (n[:11] if n.startswith("Memcpy") else "Memcpy Unknown")
        m = mem.setdefault(kind, {"kind": kind, "ops": 0, "bytes": 0, "dur_us": 0, "steps": []})
        m["ops"] += 1
        m["dur_us"] += (k[1] - k[0]) / scale
        dur = max(k[1] - k[0], 1)
        a = k[5]
        if isinstance(a.get("bytes"), int):
            m["bytes"] += a["bytes"]
        bw = a.get("memory bandwidth (GB/s)")
        if not isinstance(bw, (int, float, decimal.Decimal)):
            bw = a["bytes"] / (dur * 1000 / scale) if isinstance(a.get("bytes"), int) else None
        if bw is not None:
            m["steps"] += [(k[0], float(bw)), (k[0] + dur, -float(bw))]
    rows = []
    for kind in sorted(mem):
        m = mem[kind]
        bw, pts = 0.0, []
        for t, d in sorted(m.pop("steps"), key=lambda x: (x[0], x[1] > 0)):  # ends first
            bw += d
            if abs(bw) < 1e-9:
                bw = 0.0
            if bw > 0:
                pts.append(bw)
        m["gbps"] = describe(pts)
        rows.append(m)
    out["memory_bandwidth"] = rows
    return out


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


def stragglers(paths):
    per_rank = []
    for i, path in enumerate(paths):
        opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
        with opener(path, "rb") as f:
            trace = json.load(f, parse_float=decimal.Decimal)
        events = trace["traceEvents"] if isinstance(trace, dict) else trace
        info = trace.get("distributedInfo", {}) if isinstance(trace, dict) else {}
        scale = 1 if isinstance(trace, dict) and trace.get("displayTimeUnit") == "ns" else 1000  # to ns
        kernels, launches, steps = [], {}, []
        for e in events:
            if e.get("ph") != "X" or "ts" not in e or "dur" not in e or e["dur"] < 0:
                continue
            args = e.get("args") or {}
            ts = int(e["ts"]) * 1000 if scale == 1000 else int(e["ts"] * 1000)  # ns; µs traces truncated to µs
            stream = args.get("stream", -1)
            if isinstance(stream, int) and stream != -1:
                kernels.append((ts, e.get("name", ""), args.get("correlation"), args))
            elif e.get("cat") in LAUNCH and "correlation" in args:
                launches.setdefault(args["correlation"], ts)
            elif e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#"):
                steps.append(ts)
        if len(steps) >= 2:
            kernels = [k for k in kernels if k[2] in launches and launches[k[2]] < max(steps)]
        calls = []
        for ts, name, corr, args in sorted(kernels, key=lambda k: k[0]):
            if kernel_type(name) != "COMMUNICATION":
                continue
            if "Collective name" in args:
                pg = args.get("Process Group Name")
                key = (pg + "/" if pg else "") + args["Collective name"]
            else:
                key = name
            n = args.get("In msg nelems")
            calls.append((key, ts, launches.get(corr), n if isinstance(n, int) else -1))
        per_rank.append((info.get("rank", i), calls))
    inst = {}
    for pos, (rank, calls) in enumerate(per_rank):
        seen = {}
        for key, ts, launch, nelems in calls:
            n = seen.get(key, 0)
            seen[key] = n + 1
            inst.setdefault((key, n), []).append((pos, ts, launch, nelems))
    ranks = [{"rank": r, "collectives": 0, "last": 0, "late": [], "launch_last": 0, "launch_late": []}
             for r, _ in per_rank]
    worst = []
    for (key, n), starts in inst.items():
        if len(starts) < 2:
            continue
        first = min(s[1] for s in starts)
        last_pos, last = max(starts, key=lambda x: (x[1], -per_rank[x[0]][0]))[:2]
        for pos, ts in (s[:2] for s in starts):
            ranks[pos]["collectives"] += 1
            ranks[pos]["late"].append(ts - first)
        if last > first:
            ranks[last_pos]["last"] += 1
        w = {"key": key, "occurrence": n, "ranks": len(starts), "last_rank": per_rank[last_pos][0],
             "late_us": (last - first) / 1000, "_first": first, "last_launch_rank": -1, "launch_late_us": 0.0,
             "in_msg_nelems": next((s[3] for s in starts if s[3] >= 0), -1)}
        if all(s[2] is not None for s in starts):
            lfirst = min(s[2] for s in starts)
            lpos, _, llast = max(starts, key=lambda x: (x[2], -per_rank[x[0]][0]))[:3]
            for pos, _, launch in (s[:3] for s in starts):
                ranks[pos]["launch_late"].append(launch - lfirst)
            if llast > lfirst:
                ranks[lpos]["launch_last"] += 1
            w.update(last_launch_rank=per_rank[lpos][0], launch_late_us=(llast - lfirst) / 1000)
        worst.append(w)
    worst.sort(key=lambda w: (-w["late_us"], w["_first"], w["key"], w["occurrence"]))
    for w in worst:
        del w["_first"]
    for r in ranks:
        late = r.pop("late")
        r["late_mean_us"] = sum(late) / len(late) / 1000 if late else 0.0
        r["late_max_us"] = max(late) / 1000 if late else 0.0
        ll = r.pop("launch_late")
        r["launched"] = len(ll)
        r["launch_late_mean_us"] = sum(ll) / len(ll) / 1000 if ll else 0.0
        r["launch_late_max_us"] = max(ll) / 1000 if ll else 0.0
    ranks.sort(key=lambda r: r["rank"])
    print(json.dumps({"collectives": len(worst), "worst": worst[:10], "ranks": ranks}))


def main(path, with_analyses=False):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        trace = json.load(f)
    scale = 1000 if isinstance(trace, dict) and trace.get("displayTimeUnit") == "ns" else 1
    if scale == 1000:  # ns traces: µs with three decimals, beyond a double's precision at 1.7e15
        with opener(path, "rb") as f:
            trace = json.load(f, parse_float=decimal.Decimal)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    kernels, launches, steps, calls, device_memory = [], {}, [], {}, []
    for e in events:
        if e.get("ph") != "X" or "ts" not in e or "dur" not in e or e["dur"] < 0:
            continue
        args = e.get("args") or {}
        ts, dur = int(e["ts"] * scale), int(e["dur"] * scale)
        stream = args.get("stream", -1)
        if isinstance(stream, int) and stream != -1:  # ROCm's runtime calls carry "stream": "0x0"
            kernels.append((ts, ts + dur, e.get("name", ""), args.get("correlation"), stream, args))
        elif e.get("cat") in LAUNCH and "correlation" in args:
            launches.setdefault(args["correlation"], ts)
            if e.get("name") in LAUNCH_CALLS:
                calls.setdefault(args["correlation"], (ts, dur))
        elif e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#"):
            steps.append((ts, dur))
        elif e.get("cat") == "mtia_ccp_events" and MEM.match(e.get("name", "")) and isinstance(e.get("tid"), int):
            # MTIA memory events without a stream: their thread is the stream (HTA's _fix_mtia_memory_kernels)
            device_memory.append((ts, ts + dur, e["name"], args.get("correlation"), e["tid"], args))
    if len(steps) >= 2:
        cutoff = max(s for s, d in steps)
        kernels = [k for k in kernels if k[3] in launches and launches[k[3]] < cutoff]
    kernels += [m for m in device_memory if any(s <= m[0] <= s + d for s, d in steps)]
    out = {"kernels": len(kernels)}
    if kernels:
        kt = max(k[1] for k in kernels) - min(k[0] for k in kernels)
        idle = kt - union([(k[0], k[1]) for k in kernels])
        compute = union([(k[0], k[1]) for k in kernels if is_compute(k[2])])
        out.update(kernel_time_us=kt / scale, idle_us=idle / scale, compute_us=compute / scale,
                   non_compute_us=(kt - compute - idle) / scale)
        if with_analyses:
            out.update(analyses(kernels, launches, calls, scale))
    print(json.dumps(out, default=float))


if __name__ == "__main__":
    if sys.argv[1] == "--analyses":
        main(sys.argv[2], True)
    elif sys.argv[1] == "--stragglers":
        stragglers(sys.argv[2:])
    else:
        main(sys.argv[1])
