#!/usr/bin/env bash
# Second device check: NVML time per function per cycle, snapshot latency.
# Run from the repository root on a machine with an NVIDIA GPU, nvidia-smi and
# PyTorch (the load): LLMON=path/to/llmon OUT=results-dir bash THIS_SCRIPT.
# Libraries the device lacks can sit in .dev/lib (LD_LIBRARY_PATH); results
# and method: docs/performance.md "GPU collection on a real H200".
set -u
export LD_LIBRARY_PATH="$PWD/.dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONUNBUFFERED=1
B="${LLMON:-$PWD/.dev/llmon}"
OUT="${OUT:?set OUT to a results directory}"
exec > >(tee "$OUT/console2.txt") 2>&1
scrape() { python3 -c "import urllib.request;print(urllib.request.urlopen('http://127.0.0.1:18750/metrics',timeout=5).read().decode())"; }
phase() {
  "$B" agent --web.listen-address=127.0.0.1:18750 --no-storage.enabled --log.level=warn &
  local ag=$!
  sleep 4; scrape > "$OUT/m-$1-a.txt"; sleep 20; scrape > "$OUT/m-$1-b.txt"
  kill $ag; wait $ag
  python3 - "$OUT/m-$1-a.txt" "$OUT/m-$1-b.txt" "$1" <<'PY'
import re, sys
def rd(p):
    d = {}
    for l in open(p):
        m = re.match(r'llmon_gpu_nvml_call_seconds_total\{function="(\w+)"\} (\S+)', l)
        if m: d[m.group(1)] = float(m.group(2))
        m = re.match(r'llmon_gpu_nvml_calls_total (\S+)', l)
        if m: d["_calls"] = float(m.group(1))
    return d
a, b = rd(sys.argv[1]), rd(sys.argv[2])
cycles = 20.0
rows = sorted(((b[k] - a.get(k, 0)) / cycles * 1000, k) for k in b if not k.startswith("_"))
print(f"== {sys.argv[3]}: NVML ms per 1 s cycle by function (20 s), calls/cycle {(b['_calls']-a['_calls'])/cycles:.1f}")
tot = 0
for ms, k in reversed(rows):
    if k.startswith("nvmlEventSetWait"): continue
    tot += ms
    if ms >= 0.01: print(f"  {ms:8.3f} ms  {k}")
print(f"  {tot:8.3f} ms  total (without nvmlEventSetWait)")
PY
}
phase idle
python3 bench/device/load.py 45 20 > "$OUT/load2.log" 2>&1 &
L=$!
for i in $(seq 60); do grep -q "load: started" "$OUT/load2.log" && break; sleep 1; done
phase load
wait $L
echo "== latency, mean of 5 runs"
python3 - "$B" <<'PY'
import subprocess, sys, time
def t(cmd):
    t0 = time.time()
    for _ in range(5): subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.time() - t0) / 5
print(f"llmon snapshot --json --snapshot.interval=1ms: {t([sys.argv[1], 'snapshot', '--json', '--snapshot.interval=1ms']):.3f} s")
print(f"nvidia-smi --query-gpu=index,utilization.gpu,memory.used,power.draw: {t(['nvidia-smi', '--query-gpu=index,utilization.gpu,memory.used,power.draw', '--format=csv,noheader']):.3f} s")
print(f"nvidia-smi (default table): {t(['nvidia-smi']):.3f} s")
PY
