#!/usr/bin/env bash
# Device check of llmon's NVIDIA collection against nvidia-smi on a real GPU.
# Run from the repository root on a machine with an NVIDIA GPU, nvidia-smi and
# PyTorch (the load): LLMON=path/to/llmon OUT=results-dir bash THIS_SCRIPT.
# Libraries the device lacks can sit in .dev/lib (LD_LIBRARY_PATH); results
# and method: docs/performance.md "GPU collection on a real H200".
set -u
export LD_LIBRARY_PATH="$PWD/.dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONUNBUFFERED=1
B="${LLMON:-$PWD/.dev/llmon}"
OUT="${OUT:?set OUT to a results directory}"
exec > >(tee "$OUT/console.txt") 2>&1
echo "== host"; uname -a; nvidia-smi -L; nvidia-smi --version | head -3
nvidia-smi -q > "$OUT/smi-q.txt" 2>&1
"$B" version || { echo "llmon does not run here"; ldd "$B"; exit 1; }
echo "== idle check"
GPU_CHECK_RUNS=5 GPU_CHECK_AGENT_SECONDS=5 timeout 120 bash scripts/gpu-check.sh "$B" > "$OUT/check-idle.txt" 2>&1; echo "idle rc=$?"
echo "== load"
python3 bench/device/load.py 170 40 > "$OUT/load.log" 2>&1 &
LOAD=$!
python3 bench/device/idle_holder.py 170 8 >> "$OUT/load.log" 2>&1 &
HOLD=$!
for i in $(seq 60); do grep -q "load: started" "$OUT/load.log" && grep -q "holder: ready" "$OUT/load.log" && break; sleep 1; done
sleep 8
nvidia-smi
GPU_CHECK_RUNS=5 GPU_CHECK_AGENT_SECONDS=5 timeout 120 bash scripts/gpu-check.sh "$B" > "$OUT/check-load.txt" 2>&1; echo "load rc=$?"
"$B" snapshot --json > "$OUT/snap-load.json" 2>>"$OUT/console.txt"
"$B" snapshot 2>&1 | head -60
PORT=18747
"$B" agent --web.listen-address=127.0.0.1:$PORT --storage.path=/tmp/llmon-data --log.level=warn &
AG=$!
sleep 6
python3 - <<PY > "$OUT/metrics-load.txt"
import urllib.request
print(urllib.request.urlopen("http://127.0.0.1:$PORT/metrics", timeout=5).read().decode())
PY
kill $AG; wait $AG
echo "== cost, 25 s each, under load"
python3 bench/device/cost.py 25 "$B" agent --web.listen-address=127.0.0.1:18748 --no-storage.enabled --log.level=warn
python3 bench/device/cost.py 25 "$B" agent --web.listen-address=127.0.0.1:18749 --storage.path=/tmp/llmon-data2 --log.level=warn
python3 bench/device/cost.py 25 nvidia-smi --query-gpu=index,uuid,utilization.gpu,utilization.memory,memory.used,memory.total,temperature.gpu,power.draw,clocks.sm,clocks.mem,pstate --format=csv -l 1
python3 bench/device/cost.py 25 nvidia-smi dmon -s pucm
wait $LOAD $HOLD
cat "$OUT/load.log"
grep -h "agree\|DIFFER\|timing\|mean\|agent:" "$OUT"/check-*.txt
