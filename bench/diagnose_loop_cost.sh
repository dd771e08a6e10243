#!/usr/bin/env bash
# CPU of the agent with and without the continuous diagnosis (--diagnose.interval
# 0s, 15s without anomaly scoring, 15s with it) on the fake 8-GPU NVML:
# utime+stime from /proc/PID/stat over MEASURE_S seconds after WARM_S
# (docs/performance.md "Diagnosis cost"). The three agents run at the same
# time (PARALLEL=1, the default) or one after the other (PARALLEL=0). WARM_S
# above --window (15 min) measures the steady state, with the window full.
# Usage: bench/diagnose_loop_cost.sh [build-dir]
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
B="${1:-$REPO/build}"
L="$B/llmon"
WARM_S="${WARM_S:-30}"; MEASURE_S="${MEASURE_S:-120}"; PARALLEL="${PARALLEL:-1}"
export LLMON_FAKE_NVML_SCENARIO="$REPO/tests/fake_nvml/scenarios/h100x8.json"
tck=$(getconf CLK_TCK)
pids=(); dirs=(); names=()
start() {  # interval anomaly
  local port d
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  d=$(mktemp -d)
  $L agent --web.listen-address=127.0.0.1:$port --storage.path=$d --nvml.library=$B/fake_nvml/libnvidia-ml.so.1 \
    --logwatch.enabled=false --diagnose.interval=$1 --diagnose.anomaly=$2 --log.level=warn > $d/log 2>&1 &
  pids+=($!); dirs+=("$d"); names+=("diagnose.interval=$1 diagnose.anomaly=$2")
}
measure() {  # indexes...
  local i; declare -A a
  sleep "$WARM_S"
  for i in "$@"; do a[$i]=$(awk '{print $14+$15}' /proc/${pids[$i]}/stat); done
  sleep "$MEASURE_S"
  for i in "$@"; do
    b=$(awk '{print $14+$15}' /proc/${pids[$i]}/stat)
    echo "${names[$i]} cpu_pct_of_core=$(python3 -c "print(round(($b-${a[$i]})/$tck/$MEASURE_S*100,3))")"
    kill "${pids[$i]}"; wait "${pids[$i]}" 2>/dev/null || true; rm -rf "${dirs[$i]}"
  done
}
cfgs=("0s false" "15s false" "15s true")
if [[ "$PARALLEL" == 1 ]]; then
  for c in "${cfgs[@]}"; do start $c; done
  measure 0 1 2
else
  for n in 0 1 2; do start ${cfgs[$n]}; measure $n; done
fi
