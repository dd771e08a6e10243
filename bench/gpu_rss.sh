#!/usr/bin/env bash
# Memory and CPU of the running llmon agent with NVIDIA GPU collection, against the fake
# libnvidia-ml.so.1 (tests/fake_nvml): what llmon itself costs, not a driver (docs/performance.md,
# "GPU collection"). One host from bench/gpu_scenario.py (GPUS H100-like GPUs x PER_GPU processes,
# with a /proc tree of those processes for attribution and links to the host's own /proc files),
# and three agents started at the same time, each on a free 127.0.0.1 port, default 1 s interval:
#   gpu_only   --collector.disable-defaults --collector.gpu
#   all        every default collector (gpu included)
#   no_gpu     every default collector, --no-collector.gpu
# After WARM_S seconds: VmRSS and VmHWM (/proc/PID/status); then CPU over CPU_S seconds:
# utime+stime delta from /proc/PID/stat (clock ticks) and the process CPU-time clock (ns);
# NVML calls per GPU per cycle from the fake's call log (LLMON_FAKE_NVML_CALL_LOG); RSS again at
# the end; one scrape of /metrics each (series, bytes). GPU cost = all - no_gpu.
# Stops exactly the PIDs it started; every wait is bounded.
#
# Usage: bench/gpu_rss.sh
# Env:   BUILD (default <repo>/build), LLMON (default $BUILD/llmon), FAKE_NVML (default
#        $BUILD/fake_nvml/libnvidia-ml.so.1), GPUS (8), PER_GPU (8), WARM_S (20), CPU_S (30),
#        SCRATCH (default /tmp/llmon-gpu-rss; raw results in a dated directory below it),
#        EXTRA_FLAGS (appended to every agent's flags, e.g. --collector.gpu.processes=false).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BUILD:-$REPO/build}"
LLMON="${LLMON:-$BUILD/llmon}"
FAKE_NVML="${FAKE_NVML:-$BUILD/fake_nvml/libnvidia-ml.so.1}"
GPUS="${GPUS:-8}"; PER_GPU="${PER_GPU:-8}"; WARM_S="${WARM_S:-20}"; CPU_S="${CPU_S:-30}"
SCRATCH="${SCRATCH:-/tmp/llmon-gpu-rss}"
[[ -x "$LLMON" ]] || { echo "llmon binary not found: $LLMON (build it, or set BUILD/LLMON)" >&2; exit 2; }
[[ -r "$FAKE_NVML" ]] || { echo "fake NVML not found: $FAKE_NVML (ninja fake_nvml, or set FAKE_NVML)" >&2; exit 2; }
command -v curl >/dev/null || { echo "curl not found" >&2; exit 2; }

OUT="$SCRATCH/gpu-rss-$(date +%Y%m%d-%H%M%S)"; mkdir -p "$OUT"
HOST="$OUT/host"
python3 "$REPO/bench/gpu_scenario.py" --gpus "$GPUS" --procs-per-gpu "$PER_GPU" --out "$HOST" --host-links \
  | tee "$OUT/host.txt"
CLK_TCK="$(getconf CLK_TCK)"

STARTED=()
stop_pid() {  # SIGTERM, up to 10 s, then SIGKILL: that PID only
  local p="$1"
  kill "$p" 2>/dev/null || return 0
  for ((i = 0; i < 50; i++)); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.2; done
  kill -9 "$p" 2>/dev/null || true
}
stop_started() { for p in "${STARTED[@]:-}"; do [[ -n "$p" ]] && stop_pid "$p"; done; }
trap stop_started EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# snap PID... -> one line per PID, all read at one instant: "pid utime+stime(ticks) cpu_ns VmRSS VmHWM
# monotonic_ns". cpu_ns is the process CPU-time clock (clock_getcpuclockid: (~pid << 3) | CPUCLOCK_SCHED).
snap() {
  python3 - "$@" <<'PY'
import sys, time
for p in sys.argv[1:]:
    ticks = sum(int(x) for x in open("/proc/%s/stat" % p).read().rsplit(")", 1)[1].split()[11:13])
    ns = time.clock_gettime_ns(((~int(p)) << 3) | 2)
    st = {l.split(":")[0]: l.split()[1] for l in open("/proc/%s/status" % p) if l.startswith(("VmRSS", "VmHWM"))}
    print(p, ticks, ns, st["VmRSS"], st["VmHWM"], time.monotonic_ns())
PY
}
# Sum of all calls in a fake call log, and its tick count.
log_calls() { awk '$1!="ticks"{s+=$2} END{print s+0}' "$1"; }
log_ticks() { awk '$1=="ticks"{print $2}' "$1"; }
wait_ready() {
  for ((i = 0; i < 150; i++)); do curl -fs -o /dev/null "$1" && return 0; sleep 0.2; done
  echo "timeout waiting for $1" >&2; return 1
}

COMMON=(--nvml.library="$FAKE_NVML" --path.procfs="$HOST/proc" --path.rootfs="$HOST/rootfs"
        --collector.gpu.hostname=bench)
# shellcheck disable=SC2206  # a word list
[[ -n "${EXTRA_FLAGS:-}" ]] && COMMON+=(${EXTRA_FLAGS})
declare -A ARGS=(
  [gpu_only]="--collector.disable-defaults --collector.gpu"
  [all]=""
  [no_gpu]="--no-collector.gpu"
)
NAMES=(gpu_only all no_gpu)
declare -A PID PORT
{
  echo "date=$(date -Is) host=$(uname -n) kernel=$(uname -r) cpus=$(nproc) loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "llmon=$LLMON fake=$FAKE_NVML gpus=$GPUS per_gpu=$PER_GPU warm_s=$WARM_S cpu_s=$CPU_S"
} | tee "$OUT/env.txt"
for n in "${NAMES[@]}"; do
  PORT[$n]="$(free_port)"
  # shellcheck disable=SC2086  # ARGS are word lists
  LLMON_FAKE_NVML_SCENARIO="$HOST/scenario.json" LLMON_FAKE_NVML_CALL_LOG="$OUT/$n.calls" \
    "$LLMON" agent ${ARGS[$n]} --no-storage.enabled "${COMMON[@]}" --web.listen-address="127.0.0.1:${PORT[$n]}" >"$OUT/$n.log" 2>&1 &
  PID[$n]=$!
  STARTED+=("${PID[$n]}")
  echo "started $n: PID ${PID[$n]} port ${PORT[$n]}: agent ${ARGS[$n]} ${COMMON[*]}" | tee -a "$OUT/env.txt"
done
for n in "${NAMES[@]}"; do wait_ready "http://127.0.0.1:${PORT[$n]}/-/ready"; done
sleep "$WARM_S"

PIDS=(); for n in "${NAMES[@]}"; do PIDS+=("${PID[$n]}"); done
snap "${PIDS[@]}" >"$OUT/snap0.txt"
for n in "${NAMES[@]}"; do [[ -s "$OUT/$n.calls" ]] && cp "$OUT/$n.calls" "$OUT/$n.calls.t0"; done
sleep "$CPU_S"
snap "${PIDS[@]}" >"$OUT/snap1.txt"
for n in "${NAMES[@]}"; do [[ -s "$OUT/$n.calls" ]] && cp "$OUT/$n.calls" "$OUT/$n.calls.t1"; done

printf '%-9s %9s %9s %9s %9s %11s %11s %9s %10s %11s %8s %9s\n' config "RSS@${WARM_S}s" "HWM@${WARM_S}s" RSS_end HWM_end \
  "cpu_ms(tck)" "cpu_ms(ns)" "%core" "ms/cycle" calls/gpu/cy series bytes | tee "$OUT/results.txt"
for n in "${NAMES[@]}"; do
  p=${PID[$n]}
  calls="-"
  if [[ -s "$OUT/$n.calls.t0" && -s "$OUT/$n.calls.t1" ]]; then
    calls=$(awk -v a="$(log_calls "$OUT/$n.calls.t0")" -v b="$(log_calls "$OUT/$n.calls.t1")" \
      -v ka="$(log_ticks "$OUT/$n.calls.t0")" -v kb="$(log_ticks "$OUT/$n.calls.t1")" -v g="$GPUS" \
      'BEGIN{ if (kb > ka) printf "%.2f", (b - a) / (kb - ka) / g; else print "-" }')
  fi
  curl -fs "http://127.0.0.1:${PORT[$n]}/metrics" -o "$OUT/$n.metrics" || true
  series=$(grep -vc '^#' "$OUT/$n.metrics" || true); bytes=$(wc -c <"$OUT/$n.metrics")
  read -r _ t0 s0 r0 h0 w0 < <(awk -v p="$p" '$1==p' "$OUT/snap0.txt")
  read -r _ t1 s1 r1 h1 w1 < <(awk -v p="$p" '$1==p' "$OUT/snap1.txt")
  awk -v n="$n" -v r0="$r0" -v h0="$h0" -v r1="$r1" -v h1="$h1" -v t0="$t0" -v t1="$t1" -v hz="$CLK_TCK" \
      -v s0="$s0" -v s1="$s1" -v w0="$w0" -v w1="$w1" -v calls="$calls" -v series="$series" -v bytes="$bytes" 'BEGIN{
    wall = (w1 - w0) / 1e9; ms = (s1 - s0) / 1e6
    printf "%-9s %9d %9d %9d %9d %11.0f %11.1f %9.3f %10.3f %11s %8d %9d\n", n, r0, h0, r1, h1,
      (t1 - t0) * 1000 / hz, ms, ms / 10 / wall, ms / wall, calls, series, bytes }' | tee -a "$OUT/results.txt"
done
W0=$(awk 'NR==1{print $6}' "$OUT/snap0.txt"); W1=$(awk 'NR==1{print $6}' "$OUT/snap1.txt")
echo "(RSS/HWM in kB; CPU over $(awk -v a="$W0" -v b="$W1" 'BEGIN{printf "%.1f", (b-a)/1e9}') s wall; ms/cycle = CPU ms per second at the 1 s interval)" \
  | tee -a "$OUT/results.txt"
echo "llmon_gpu_process_memory_bytes series: gpu_only $(grep -c '^llmon_gpu_process_memory_bytes{' "$OUT/gpu_only.metrics" || true), all $(grep -c '^llmon_gpu_process_memory_bytes{' "$OUT/all.metrics" || true), no_gpu $(grep -c '^llmon_gpu_process_memory_bytes{' "$OUT/no_gpu.metrics" || true)" \
  | tee -a "$OUT/results.txt"
echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg); raw results in $OUT" | tee -a "$OUT/results.txt"
for n in "${NAMES[@]}"; do stop_pid "${PID[$n]}"; done
