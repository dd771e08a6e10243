#!/usr/bin/env python3
"""Runs `promtool tsdb bench write` and measures the CPU time of its ingest stage, for
bench/tsdb_compare.sh (docs/performance.md "Time-series store: side by side").

promtool prints ">> start stage=ingestScrapes" and ">> completed stage=ingestScrapes" (unbuffered,
Go's os.Stdout) around the appends; this reads its stdout as it comes and samples utime+stime of
the whole process (all threads: appenders, GC, the WAL and head-chunk writers) from /proc/PID/stat
at those two lines, so CPU seconds cover the same stage as promtool's own samples/sec (total/wall
of that stage). promtool profiles itself during that stage (CPU profile, block and mutex sampling:
it cannot be turned off); that overhead is part of its figure. One JSON line per run.
Usage: tsdb_promtool_write.py LABEL_FILE OUT_DIR [--metrics 10000] [--scrapes 3000] [--runs 1]
"""
import argparse, json, os, resource, shutil, subprocess, sys, time

CLK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK  # utime, stime (fields 14, 15)


def one(args, run):
    shutil.rmtree(args.out, ignore_errors=True)
    cmd = ["promtool", "tsdb", "bench", "write", f"--out={args.out}", f"--metrics={args.metrics}",
           f"--scrapes={args.scrapes}", args.labels]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    res = {"run": run, "series": args.metrics, "scrapes": args.scrapes}
    c0 = w0 = None
    for line in p.stdout:
        if "start stage=ingestScrapes" in line:
            c0, w0 = cpu_s(p.pid), time.monotonic()
        elif "completed stage=ingestScrapes" in line:
            res["ingest_cpu_s"] = round(cpu_s(p.pid) - c0, 3)
            res["ingest_wall_s_observed"] = round(time.monotonic() - w0, 3)
        elif "total samples:" in line:
            res["samples"] = int(float(line.split(":")[1]))
        elif "samples/sec:" in line:
            res["samples_per_s_wall"] = round(float(line.split(":")[1]))
    rc = p.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc != 0 or "ingest_cpu_s" not in res or "samples" not in res:
        sys.exit(f"promtool failed (rc={rc}): {res}")
    res["samples_per_cpu_s"] = round(res["samples"] / res["ingest_cpu_s"])
    res["process_cpu_s"] = round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 3)
    res["peak_rss_kb"] = after.ru_maxrss  # max over children so far
    res["disk_bytes"] = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(args.out) for f in fs
                            if not f.endswith(".prof"))
    shutil.rmtree(args.out, ignore_errors=True)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("labels")
    ap.add_argument("out")
    ap.add_argument("--metrics", type=int, default=10000)
    ap.add_argument("--scrapes", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args()
    for r in range(1, args.runs + 1):
        print(json.dumps(one(args, r)), flush=True)


if __name__ == "__main__":
    main()
