#!/usr/bin/env python3
"""PyTorch's side of Kineto's daemon protocol, written from the published
layouts (dynolog ipcfabric FabricManager.h / Utils.h, kineto
IpcFabricConfigClient.cpp; docs/trace.md#capture-protocol), for tests:

  * binds the abstract name "\\0dynoconfigclient<uuid4>\\0" (Kineto keeps the
    trailing NUL in the address) and sends to "\\0<socket>\\0";
  * registers with "ctxt" (LibkinetoContext{int32 gpu, int32 pid, int64 job})
    and prints the int32 count the daemon answers;
  * polls with "req" (LibkinetoRequest{int32 type=2, int32 n, int64 job,
    int32 pids[n]}: itself then its ancestors from /proc) every
    --interval-ms, waiting 90 ms (9 x 10 ms) for each reply;
  * on a non-empty reply (KEY=VALUE lines) waits ACTIVITIES_DURATION_MSECS
    (or ACTIVITIES_ITERATIONS x --step-ms) and writes a small valid Chrome
    trace to ACTIVITIES_LOG_FILE with "_<pid>" inserted before ".json", as
    Kineto does, in two writes so a reader can see it unfinished.

Usage: kineto_client.py --socket NAME [--gpu N] [--job N] [--interval-ms 200]
       [--traces 1] [--ready FILE] [--log FILE]
Exits after --traces traces (0: never), or on SIGTERM.
"""
import argparse
import json
import os
import socket
import struct
import sys
import time
import uuid

TYPE_SIZE = 32


def message(kind, payload):
    return struct.pack("<Q", len(payload)) + kind.encode().ljust(TYPE_SIZE, b"\0") + payload


def parse(datagram):
    if len(datagram) < 8 + TYPE_SIZE:
        raise ValueError("short datagram")
    (size,) = struct.unpack_from("<Q", datagram, 0)
    kind = datagram[8:8 + TYPE_SIZE].split(b"\0", 1)[0].decode()
    return kind, datagram[8 + TYPE_SIZE:8 + TYPE_SIZE + size]


def ancestors(pid):
    chain = [pid]
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            break
        if pid <= 0:
            break
        chain.append(pid)
    return chain


def trace_json(pid, gpu, start_us):
    ev = []
    t = start_us
    for step in range(2):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": pid, "tid": pid,
                   "ts": t, "dur": 1000})
        for i, (name, dur) in enumerate([("ampere_sgemm_128x64_tn", 400), ("vectorized_layer_norm_kernel", 300),
                                         ("ncclKernel_AllReduce_RING_LL_Sum_float", 100)]):
            corr = step * 10 + i + 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": pid,
                       "ts": t + 10 * i, "dur": 5, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": gpu, "tid": 7, "ts": t + 50 + 420 * i // 1,
                       "dur": dur, "args": {"device": gpu, "stream": 7, "correlation": corr}})
        t += 1000
    head = {"schemaVersion": 1, "deviceProperties": [{"id": gpu, "name": "Test GPU"}],
            "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1}}
    body = json.dumps(head)[:-1] + ', "traceEvents": [\n' + ",\n".join(json.dumps(e) for e in ev)
    return body, '\n], "displayTimeUnit": "ms", "traceName": "kineto_client"}\n'


def kineto_log_file(path, pid):
    # libkineto Config.cpp: "_<pid>" before ".pt.trace.json", else before ".json".
    for ext in (".pt.trace.json", ".json"):
        i = path.find(ext)
        if i >= 0:
            return path[:i] + f"_{pid}" + path[i:]
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", default="dynolog")
    ap.add_argument("--gpu", type=int, default=0)
    ap.add_argument("--job", type=int, default=int(os.environ.get("SLURM_JOB_ID", "0") or 0))
    ap.add_argument("--interval-ms", type=int, default=200)
    ap.add_argument("--step-ms", type=int, default=50)
    ap.add_argument("--traces", type=int, default=1)
    ap.add_argument("--ready", default="")
    ap.add_argument("--log", default="")
    a = ap.parse_args()
    logf = open(a.log, "a") if a.log else sys.stderr

    def log(*x):
        print(*x, file=logf, flush=True)

    me = "\0dynoconfigclient" + str(uuid.uuid4()) + "\0"
    daemon = "\0" + a.socket + "\0"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(me.encode())
    s.settimeout(0.01)
    pid = os.getpid()

    def exchange(msg):
        try:
            s.sendto(msg, daemon.encode())
        except OSError as e:  # no daemon yet: Kineto retries later
            log("send failed:", e)
            return None
        for _ in range(9):
            try:
                return parse(s.recv(65536))
            except socket.timeout:
                continue
        return None

    r = exchange(message("ctxt", struct.pack("<iiq", a.gpu, pid, a.job)))
    if r and r[0] == "ctxt":
        log("registered; processes for this job and gpu:", struct.unpack("<i", r[1])[0])
    if a.ready:
        with open(a.ready, "w") as f:
            f.write(str(pid))
    chain = ancestors(pid)
    written = 0
    while a.traces == 0 or written < a.traces:
        time.sleep(a.interval_ms / 1000)
        r = exchange(message("req", struct.pack("<iiq", 2, len(chain), a.job) + struct.pack(f"<{len(chain)}i", *chain)))
        if not r or not r[1]:
            continue
        cfg = dict(line.split("=", 1) for line in r[1].decode().splitlines() if "=" in line)
        log("config:", cfg)
        out = kineto_log_file(cfg.get("ACTIVITIES_LOG_FILE", f"/tmp/libkineto_activities_{pid}.json"), pid)
        iters = int(cfg.get("ACTIVITIES_ITERATIONS", "0") or 0)
        wait_ms = iters * a.step_ms if iters > 0 else int(cfg.get("ACTIVITIES_DURATION_MSECS", "500"))
        start_us = int(time.time() * 1e6)
        time.sleep(wait_ms / 1000)
        head, tail = trace_json(pid, a.gpu, start_us)
        with open(out, "w") as f:
            f.write(head)
            f.flush()
            time.sleep(0.05)
            f.write(tail)
        log("wrote", out)
        written += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
