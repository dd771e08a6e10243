#!/usr/bin/env python3
"""The anomaly baselines measured on the labelled scenarios (docs/diagnosis.md, "Baselines and
anomalies"): every run of tests/diagnose/scenarios.py is imported into its own store and replayed
by bench's anomaly_replay (the agent's Tracker, one observation a minute from the run's start).
Per run: the share of scored (series, minute) points that are anomalous (score >= 0.5, or ANOMALY_THRESHOLD) on healthy
runs and before the onset on labelled ones (false anomalies), the minutes the node rate is >= 0.5;
for each injected kind whose onset comes after the baseline is ready, whether a series the kind
cites (same GPU / device; node-wide series for a device) turns anomalous within 30 min of the
onset, and after how long.
Usage: anomaly_eval.py LLMON ANOMALY_REPLAY SCENARIO_DIR [WORK_DIR] [-- replay options]"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

RELATED = {
    "straggler": ["temp", "power", "gpu_util", "sm_active"], "thermal_throttling": ["temp", "power", "gpu_util", "sm_active"],
    "power_throttling": ["temp", "power", "gpu_util", "sm_active"], "cooling_degradation": ["temp", "power", "gpu_util", "sm_active"],
    "hardware_fault": ["temp", "power", "gpu_util", "sm_active"], "gpu_memory_pressure": ["fb_used"],
    "memory_leak_gpu": ["fb_used"], "idle_gpu": ["gpu_util", "sm_active", "power"],
    "input_bound_cpu": ["cpu_busy", "gpu_util"], "input_bound_io": ["iowait", "disk_bytes", "gpu_util"],
    "communication_bound": ["net_rx", "net_tx", "gpu_util"], "disk_saturation": ["disk_bytes", "iowait"],
    "checkpoint_slow": ["disk_bytes", "iowait"], "network_saturation": ["net_rx", "net_tx"],
}
NODE_RATE_MIN = 0.5
# The score from which a point counts as anomalous (llmon: 0.5, z >= 7); ANOMALY_THRESHOLD measures others.
THRESHOLD = float(os.environ.get("ANOMALY_THRESHOLD", "0.5"))
WITHIN_MS = 30 * 60_000


def as_set(v):
    return {v} if isinstance(v, str) else set(v or [])


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    llmon, replay, scen = args[0], args[1], args[2]
    work = args[3] if len(args) > 3 else tempfile.mkdtemp(prefix="llmon-anom-eval.")
    rows, false_pts, total_pts, rate_min, all_min = [], 0, 0, 0, 0
    det, measurable, delays = 0, 0, []
    healthy_false, healthy_total, healthy_rate_min, healthy_min = 0, 0, 0, 0
    for label_path in sorted(glob.glob(os.path.join(scen, "*.json"))):
        label = json.load(open(label_path))
        data = label_path[:-5] + (".prom.gz" if os.path.exists(label_path[:-5] + ".prom.gz") else ".prom")
        store = os.path.join(work, label["name"])
        shutil.rmtree(store, ignore_errors=True)
        subprocess.run([llmon, "tsdb", "import", data, f"--storage.path={store}"], check=True, capture_output=True)
        start = label["start_ms"] // 60_000 * 60_000 + 60_000
        out = subprocess.run([replay, store, str(start), str(label["end_ms"])] + extra, check=True,
                             capture_output=True, text=True).stdout
        shutil.rmtree(store, ignore_errors=True)
        pts = []
        for ln in out.splitlines():
            t, metric, gpu, dev, ready, score = ln.split()
            if ready == "1":
                pts.append((int(t), metric, gpu, dev, float(score)))
        first_onset = min([o["from_ms"] for o in label["onsets"].values()], default=None)
        clean = [p for p in pts if first_onset is None or p[0] < first_onset]
        nf = sum(p[4] >= THRESHOLD for p in clean)
        by_t = {}
        for p in pts:
            by_t.setdefault(p[0], []).append(p[4] >= THRESHOLD)
        high = sum(1 for t, v in by_t.items() if (first_onset is None or t < first_onset) and sum(v) / len(v) >= NODE_RATE_MIN)
        mins = sum(1 for t in by_t if first_onset is None or t < first_onset)
        false_pts += nf
        total_pts += len(clean)
        rate_min += high
        all_min += mins
        if not label["top"]:
            healthy_false += nf
            healthy_total += len(clean)
            healthy_rate_min += high
            healthy_min += mins
        ready_ms = min((p[0] for p in pts), default=None)
        found = []
        for kind, on in label["onsets"].items():
            if ready_ms is None or on["from_ms"] < ready_ms or kind not in RELATED:
                continue
            subj = label["subjects"].get(kind, {})
            gpus, devs = as_set(subj.get("gpu")), as_set(subj.get("device"))
            hits = [p for p in pts if on["from_ms"] <= p[0] <= on["from_ms"] + WITHIN_MS and p[4] >= THRESHOLD
                    and p[1] in RELATED[kind] and (p[2] == "-" or p[2] in gpus) and (p[2] != "-" or gpus == set() or True)
                    and (p[3] == "-" or not devs or p[3] in devs)]
            if gpus:
                hits = [p for p in hits if p[2] in gpus]
            measurable += 1
            if hits:
                det += 1
                d = (min(p[0] for p in hits) - on["from_ms"]) / 60_000
                delays.append(d)
                found.append(f"{kind}:+{d:.0f}m")
            else:
                found.append(f"{kind}:missed")
        rows.append(f"| {label['name']} | {len(clean)} | {100 * nf / max(1, len(clean)):.2f} % | {high}/{mins} | "
                    f"{' '.join(found) or '-'} |")
    print("| Run | Scored points before onset | Anomalous | Minutes node rate >= 0.5 | Injected (onset after ready) |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print(f"false anomalies (healthy runs): {healthy_false}/{healthy_total} points "
          f"({100 * healthy_false / max(1, healthy_total):.2f} %), node rate >= 0.5 in {healthy_rate_min}/{healthy_min} minutes")
    print(f"false anomalies (all runs, before any onset): {false_pts}/{total_pts} points "
          f"({100 * false_pts / max(1, total_pts):.2f} %), node rate >= 0.5 in {rate_min}/{all_min} minutes")
    delays.sort()
    print(f"injected anomalies detected within 30 min: {det}/{measurable} "
          f"(median delay {delays[len(delays) // 2] if delays else float('nan'):.0f} min)")


if __name__ == "__main__":
    main()
