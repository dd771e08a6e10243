#!/usr/bin/env bash
# CPU of the agent with and without the continuous diagnosis (--diagnose.interval
# 0s, 15s without anomaly scoring, 15s with it) on the fake 8-GPU NVML: utime+stime from /proc/PID/stat over
# MEASURE_S seconds after WARM_S (docs/performance.md "Diagnosis cost").
# Usage: bench/diagnose_loop_cost.sh [build-dir]
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
B="${1:-$REPO/build}"
L="$B/llmon"
WARM_S="${WARM_S:-30}"; MEASURE_S="${MEASURE_S:-120}"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
export LLMON_FAKE_NVML_SCENARIO="$REPO/tests/fake_nvml/scenarios/h100x8.json"
for cfg in 0s:false 15s:false 15s:true; do
  iv=${cfg%%:*}; an=${cfg##*:}
  d=$(mktemp -d)
  $L agent --web.listen-address=127.0.0.1:$PORT --storage.path=$d --nvml.library=$B/fake_nvml/libnvidia-ml.so.1 --logwatch.enabled=false --diagnose.interval=$iv --diagnose.anomaly=$an --log.level=warn > $d/log 2>&1 &
  pid=$!
  sleep "$WARM_S"
  a=$(awk '{print $14+$15}' /proc/$pid/stat)
  sleep "$MEASURE_S"
  b=$(awk '{print $14+$15}' /proc/$pid/stat)
  tck=$(getconf CLK_TCK)
  echo "diagnose.interval=$iv diagnose.anomaly=$an cpu_pct_of_core=$(python3 -c "print(round(($b-$a)/$tck/$MEASURE_S*100,3))")"
  kill $pid; wait $pid 2>/dev/null; rm -rf $d
done
