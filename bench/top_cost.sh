#!/usr/bin/env bash
# CPU cost of `llmon top` against btop and htop (Debian's packages) in one
# run (docs/performance.md "llmon top"): each runs alone in a detached tmux
# session of COLSxROWS refreshing every second, WARM_S seconds to settle, then
# its CPU (utime+stime of the process, /proc/PID/stat) is measured over
# MEASURE_S seconds and printed as % of one core, with VmRSS at the end.
# llmon top runs its default collectors on the live host plus the fake
# 8-GPU NVML (tests/fake_nvml): scenario h100x8 with its processes replaced
# by GPU_PROCS processes spread over the 8 GPUs, named by pids of live
# processes of this host (cycled when there are fewer), so the process
# resolver reads real /proc entries as it would on a GPU node; btop and htop
# read the live host (every process of it).
# Then the same for `llmon top --url` against an agent of its own (below).
# Usage: bench/top_cost.sh [build/llmon]   (env WARM_S=5 MEASURE_S=30 COLS=200 ROWS=60 GPU_PROCS=100)
#        TOP_URL_BASELINE=path/to/another/llmon: its `top --url` is measured too,
#        against the same agent right after (a before/after comparison in one run).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LLMON="$(realpath "${1:-$REPO/build/llmon}")"
FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
WARM_S="${WARM_S:-5}" MEASURE_S="${MEASURE_S:-30}" COLS="${COLS:-200}" ROWS="${ROWS:-60}" GPU_PROCS="${GPU_PROCS:-100}"
command -v tmux >/dev/null || { echo "tmux not installed" >&2; exit 1; }
[[ -f "$FAKE" ]] || { echo "fake NVML not built: $FAKE" >&2; exit 1; }
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/llmon-top-cost.XXXXXX")"
SOCK="$SCRATCH/tmux.sock"
tm() { tmux -S "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server >/dev/null 2>&1 || true; rm -rf "$SCRATCH"' EXIT
HZ="$(getconf CLK_TCK)"

python3 - "$REPO/tests/fake_nvml/scenarios/h100x8.json" "$SCRATCH/scenario.json" "$GPU_PROCS" <<'PY'
import json, os, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = json.load(open(src))
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
for d in s["devices"]:
    d["processes"] = []
for i in range(n):
    s["devices"][i % len(s["devices"])]["processes"].append(
        {"pid": pids[i % len(pids)], "type": "C", "used_memory": (1 + i % 40) << 30, "sm_util": [i % 100],
         "mem_util": [i % 50], "enc_util": 0, "dec_util": 0})
json.dump(s, open(dst, "w"))
PY

# btop at a 1 s refresh: its config file under a HOME of our own.
mkdir -p "$SCRATCH/home/.config/btop"
printf 'update_ms = 1000\n' >"$SCRATCH/home/.config/btop/btop.conf"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# measure NAME CMD: runs CMD in a session, prints "NAME cpu% rss_kB".
measure() {
  local name="$1" cmd="$2" shell pid t0 t1
  tm new-session -d -s "$name" -x "$COLS" -y "$ROWS" "exec env HOME=$SCRATCH/home TERM=xterm-256color LANG=C.UTF-8 $cmd"
  sleep 1
  pid="$(tm list-panes -t "$name" -F '#{pane_pid}')"
  sleep "$WARM_S"
  t0="$(cpu_ticks "$pid")"
  sleep "$MEASURE_S"
  t1="$(cpu_ticks "$pid")"
  rss="$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")"
  # It must have drawn a screen, or the figure means nothing.
  tm capture-pane -p -t "$name" >"$SCRATCH/$name.screen"
  drawn="$(tr -d ' \n' <"$SCRATCH/$name.screen" | wc -c)"
  shows="$(grep -o '[0-9]*/[0-9]* procs' "$SCRATCH/$name.screen" || true)"
  tm kill-session -t "$name"
  ((drawn > 1000)) || { echo "$name drew only $drawn characters" >&2; exit 1; }
  awk -v n="$name" -v d="$((t1 - t0))" -v hz="$HZ" -v s="$MEASURE_S" -v r="$rss" \
    -v p="$shows" 'BEGIN {printf "%-10s %6.2f %% of a core  %7d kB RSS  %s\n", n, 100 * d / hz / s, r, p}'
}

echo "llmon top vs btop vs htop: ${COLS}x${ROWS}, 1 s refresh, ${MEASURE_S} s measured after ${WARM_S} s;" \
  "$(ls /proc | grep -c '^[0-9]') processes, $GPU_PROCS GPU processes, $(nproc) CPUs; $(btop --version | head -1), $(htop --version | head -1)"
measure llmon-top "env LLMON_FAKE_NVML_SCENARIO=$SCRATCH/scenario.json $LLMON top --nvml.library=$FAKE --top.interval=1s"
measure btop "btop"
measure htop "htop -d 10"

# Agent mode: an agent of our own (same fake GPUs, default collectors, its
# store in SCRATCH) on a free port; `llmon top --url` measured as above, and
# the agent's CPU over the same window once idle and once serving top.
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
env LLMON_FAKE_NVML_SCENARIO="$SCRATCH/scenario.json" "$LLMON" agent --nvml.library="$FAKE" \
  --web.listen-address="127.0.0.1:$PORT" --storage.path="$SCRATCH/agent-data" --logwatch.kmsg-path= \
  >"$SCRATCH/agent.log" 2>&1 &
AGENT=$!
trap 'kill "$AGENT" 2>/dev/null; tm kill-server >/dev/null 2>&1 || true; rm -rf "$SCRATCH"' EXIT
for ((i = 0; i < 100; i++)); do curl -sf "http://127.0.0.1:$PORT/-/ready" >/dev/null 2>&1 && break; sleep 0.2; done
sleep "$WARM_S"
a0="$(cpu_ticks "$AGENT")"
sleep "$MEASURE_S"
a1="$(cpu_ticks "$AGENT")"
awk -v d="$((a1 - a0))" -v hz="$HZ" -v s="$MEASURE_S" 'BEGIN {printf "%-10s %6.2f %% of a core  (the agent alone)\n", "agent", 100 * d / hz / s}'
( sleep $((1 + WARM_S)); b0="$(cpu_ticks "$AGENT")"; sleep "$MEASURE_S"; b1="$(cpu_ticks "$AGENT")"
  awk -v d="$((b1 - b0))" -v hz="$HZ" -v s="$MEASURE_S" 'BEGIN {printf "%-10s %6.2f %% of a core  (the agent serving llmon top --url)\n", "agent", 100 * d / hz / s}' >"$SCRATCH/agent-serving" ) &
SERVING=$!
measure top-url "$LLMON top --url=http://127.0.0.1:$PORT --top.interval=1s"
wait "$SERVING"
cat "$SCRATCH/agent-serving"
if [[ -n "${TOP_URL_BASELINE:-}" ]]; then
  measure top-url-baseline "$TOP_URL_BASELINE top --url=http://127.0.0.1:$PORT --top.interval=1s"
fi
