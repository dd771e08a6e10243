#!/usr/bin/env bash
# The dashboard's budgets (issue 16; docs/performance.md "Issue 16"), in one run:
#  1. size: every file served for / (HTML, JS, CSS), gzipped as the agent sends them, against
#     the files Prometheus's own UI (/graph on Debian's prometheus, same run) sends;
#  2. the chart library: uPlot against Chart.js on 8 series x 1 000 and x 86 400 points in
#     headless chromium (web/bench/chartlib_run.mjs), and each library's min+gzip size;
#  3. time to the first chart with data and to every chart drawn (the page's performance marks,
#     median of RUNS fresh pages): the overview live (fake 8x H100 NVML, 5 m), and 24 h x 8 GPUs
#     x 1 s imported (bench/dashboard_data.py, 2.07 M samples) shown whole (range=1d);
#  4. the agent's extra CPU with the overview open and following live: utime+stime of the agent
#     over CPU_S seconds without a browser, then CPU_S seconds with one (web/bench/keep_open.mjs).
# Stops exactly the PIDs it started; every wait is bounded. Raw results in $SCRATCH.
# Usage: bench/dashboard_bench.sh
# Env:   BUILD (<repo>/build), LLMON ($BUILD/llmon), CHROMIUM (chromium), PROMETHEUS (prometheus),
#        RUNS (5), CPU_S (60), WARM_S (10), SCRATCH (/tmp/llmon-dashboard-bench)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
SCRATCH="${SCRATCH:-/tmp/llmon-dashboard-bench}"
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"
BUILD="${BUILD:-$REPO/build}"
LLMON="${LLMON:-$BUILD/llmon}"
FAKE="$BUILD/fake_nvml/libnvidia-ml.so.1"
CHROMIUM="${CHROMIUM:-$(command -v chromium || true)}"
PROM="${PROMETHEUS:-prometheus}"
RUNS="${RUNS:-5}"; CPU_S="${CPU_S:-60}"; WARM_S="${WARM_S:-10}"
WEB="$REPO/web"
[[ -x "$LLMON" ]] || { echo "llmon not found: $LLMON" >&2; exit 2; }
[[ -r "$FAKE" ]] || { echo "fake NVML not found: $FAKE" >&2; exit 2; }
[[ -n "$CHROMIUM" ]] || { echo "chromium not installed" >&2; exit 2; }
[[ -d "$WEB/node_modules/playwright-core" ]] || { echo "web/node_modules missing: build first (npm ci)" >&2; exit 2; }
rm -rf "$SCRATCH"; mkdir -p "$SCRATCH"

# gz_sum URL PATH...: bytes of each path fetched with Accept-Encoding: gzip, then the sum.
gz_sum() {
  local base="$1" total=0 p n
  shift
  for p in "$@"; do
    n="$(curl -sL -H 'Accept-Encoding: gzip' -o "$SCRATCH/asset" -w '%{size_download}' --max-time 10 "$base$p")"
    printf '  %-60s %8d B\n' "$p" "$n" >&2
    total=$((total + n))
  done
  echo "$total"
}

log "1. size of / (agent on the fake 8-GPU scenario) and of Prometheus's /graph"
printf 'route:\n  receiver: nobody\nreceivers:\n  - name: nobody\n' >"$SCRATCH/notify.yml"
export LLMON_FAKE_NVML_SCENARIO="$REPO/tests/fake_nvml/scenarios/h100x8.json"
start llmon /-/ready "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/llmon-data" \
  --nvml.library="$FAKE" --notify.config="$SCRATCH/notify.yml"
llmon_bytes="$(gz_sum "$llmon_URL" / /assets/app.js /assets/app.css)"
prom_bytes=NA
if command -v "$PROM" >/dev/null; then
  start prom /-/ready "$PROM" --web.listen-address=127.0.0.1:@PORT@ --storage.tsdb.path="$SCRATCH/prom-data" \
    --config.file=/dev/null
  # Debian builds Prometheus with its classic UI (web/static), not the React one.
  curl -sL "$prom_URL/graph" >"$SCRATCH/prom-graph.html"
  mapfile -t prom_assets < <(grep -oE '(src|href)="[^"]+\.(js|css)(\?[^"]*)?"' "$SCRATCH/prom-graph.html" |
    sed -E 's/^(src|href)="//; s/"$//' | sed -E 's#^\./#/#; s#^([^/])#/\1#' | sort -u)
  prom_bytes="$(gz_sum "$prom_URL" /graph "${prom_assets[@]}")"
  stop_pid "$prom_PID"
fi
echo "size_gzip llmon=$llmon_bytes prometheus_graph=$prom_bytes" | tee "$SCRATCH/size.txt"

log "2. chart library: uPlot vs Chart.js"
mkdir -p "$SCRATCH/chartlib"
(cd "$WEB" && node bench/chartlib_run.mjs "$SCRATCH/chartlib" 7 "$CHROMIUM") | tee "$SCRATCH/chartlib.json"

log "3a. first chart, overview live on the fake 8-GPU node (after ${WARM_S} s of history)"
sleep "$WARM_S"
(cd "$WEB" && node bench/page_timing.mjs "$llmon_URL/#/overview" "$RUNS" "$CHROMIUM") | tee "$SCRATCH/timing-live.json"

log "4. agent CPU: ${CPU_S} s without a browser, then ${CPU_S} s with the overview open and live"
t0="$(cpu_ticks "$llmon_PID")"; sleep "$CPU_S"; t1="$(cpu_ticks "$llmon_PID")"
(cd "$WEB" && node bench/keep_open.mjs "$llmon_URL/#/overview" "$((CPU_S + 5))" "$CHROMIUM") >"$SCRATCH/keep_open.out" 2>&1 &
KEEP=$!; BENCH_PIDS+=("$KEEP")
for ((i = 0; i < 600; i++)); do grep -q '^open' "$SCRATCH/keep_open.out" && break; sleep 0.1; done
t2="$(cpu_ticks "$llmon_PID")"; sleep "$CPU_S"; t3="$(cpu_ticks "$llmon_PID")"
wait "$KEEP" || true
cat "$SCRATCH/keep_open.out"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v s="$CPU_S" -v hz="$CLK_TCK" 'BEGIN {
  idle = (b - a) / hz / s * 100; open = (d - c) / hz / s * 100
  printf "agent_cpu idle=%.3f%% with_overview=%.3f%% extra=%.3f%% of a core\n", idle, open, open - idle }' | tee "$SCRATCH/cpu.txt"
stop_pid "$llmon_PID"

log "3b. 24 h x 8 GPUs x 1 s imported, overview over the whole day"
end_s="$(( $(date +%s) / 60 * 60 ))"
python3 "$HERE/dashboard_data.py" "$SCRATCH/day.prom" "$end_s" 24 bench:1
"$LLMON" tsdb import "$SCRATCH/day.prom" --storage.path="$SCRATCH/day-data" | tee "$SCRATCH/import.txt"
rm -f "$SCRATCH/day.prom"
start day /-/ready "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/day-data" \
  --storage.self.instance=bench:1 --no-collector.gpu
(cd "$WEB" && node bench/page_timing.mjs "$day_URL/#/overview?range=1d&end=$end_s" "$RUNS" "$CHROMIUM") | tee "$SCRATCH/timing-day.json"
log "results in $SCRATCH"
