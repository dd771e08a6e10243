#!/usr/bin/env bash
# Range-query latency of llmon's PromQL engine against Prometheus 2.42 on the same data, same
# machine, same run (issue 5, "Benchmarks"; docs/performance.md "PromQL: side by side with
# Prometheus (issue 5)").
#
#   bench/promql_compare.sh [--out FILE] [--runs N] [--warmup N] [--hours H] [--step-s S] [--instant]
#                           [--only TEXT] [--keep]
#
#   1. bench/promql_data.py (built on the differential test's tests/promql/diff/gen_data.py) writes
#      one GPU host's history, 24 h (--hours) at 15 s (--step-s) by default: node_exporter-like (16 CPUs x 8 modes, 4
#      NICs, 3 disks, memory), 8 GPUs x 8 DCGM fields, a 12-bucket step-time histogram.
#   2. The same samples go into both stores as in tests/integration/promql_diff_test.sh:
#      `promtool tsdb create-blocks-from openmetrics` for Prometheus, `llmon tsdb import` for llmon
#      (which must accept every sample).
#   3. Both servers start on free 127.0.0.1 ports with their own directories under the scratch
#      dir: `prometheus` (no scrape jobs) and `llmon agent --collector.disable-defaults` as a
#      pure store and query server. Prometheus compacts promtool's 2 h blocks about a minute
#      after it starts (2 h -> 6 h -> 18 h, its steady state); the timing waits for that to end.
#   4. bench/promql_latency.py times /api/v1/query_range (form POST) for each dashboard query
#      over the last 2 h (15 s step) and 24 h (60 s step): --warmup untimed requests, then --runs
#      timed ones per server, interleaved; checks both answer the same series and points;
#      records CPU time and peak RSS (VmHWM) of each server; adds llmon's parse throughput from
#      $BENCH_BIN/promql_bench --benchmark_filter=BM_Parse when that binary exists. Prints a
#      Markdown table; JSON results go to --out. --instant: instant queries (/api/v1/query) at the
#      data's end instead of the ranges (e.g. --hours 2 --step-s 1 --instant: rules and Grafana's
#      instant queries over 1 s data).
#   Takes ~3 min on the 2-core VM (data and both stores 30 s, Prometheus's compaction ~70 s,
#   timing ~1 min, BM_Parse ~30 s). Exit status: 0 done, 1 the servers' answers differ in shape or a step
#   failed, 2 usage.
#
# env: LLMON (build/llmon, a Release build), BENCH_BIN (build/bench), PROMETHEUS (prometheus),
#      PROMTOOL (promtool), TMPDIR (scratch dir parent).
# Only the processes started here are stopped (by PID, at exit); the scratch dir is removed
# unless --keep.

# NAME_URL/NAME_PID are set by start() (bench/lib.sh) through printf -v.
# shellcheck disable=SC2154,SC2317
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
LLMON="${LLMON:-$REPO/build/llmon}"
BENCH_BIN="${BENCH_BIN:-$REPO/build/bench}"
PROMETHEUS="${PROMETHEUS:-prometheus}"
PROMTOOL="${PROMTOOL:-promtool}"

OUT="" RUNS=20 WARMUP=3 HOURS=24 STEP_S=15 INSTANT="" ONLY="" KEEP=0
usage() {
  awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0" >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case "$1" in
  --out) OUT="${2:?}"; shift 2 ;;
  --out=*) OUT="${1#*=}"; shift ;;
  --runs) RUNS="${2:?}"; shift 2 ;;
  --runs=*) RUNS="${1#*=}"; shift ;;
  --warmup) WARMUP="${2:?}"; shift 2 ;;
  --warmup=*) WARMUP="${1#*=}"; shift ;;
  --hours) HOURS="${2:?}"; shift 2 ;;
  --hours=*) HOURS="${1#*=}"; shift ;;
  --step-s) STEP_S="${2:?}"; shift 2 ;;
  --step-s=*) STEP_S="${1#*=}"; shift ;;
  --instant) INSTANT=1; shift ;;
  --only) ONLY="${2:?}"; shift 2 ;;
  --only=*) ONLY="${1#*=}"; shift ;;
  --keep) KEEP=1; shift ;;
  -h | --help) usage ;;
  *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
[[ -n "$OUT" ]] || { echo "--out FILE is required" >&2; usage; }
OUT="$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")"
[[ -x "$LLMON" ]] || { echo "missing $LLMON (a Release build: ninja -C build llmon)" >&2; exit 1; }
for t in "$PROMETHEUS" "$PROMTOOL" python3 curl; do
  command -v "$t" >/dev/null || { echo "missing $t (apt-get install prometheus python3 curl)" >&2; exit 1; }
done

SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/promql_compare.XXXXXX")"
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"  # start, start_bg, stop_pid, stop_all, log; its EXIT trap stops every PID started
bench_on_exit() { if [[ $KEEP == 1 ]]; then log "kept $SCRATCH"; else rm -rf -- "$SCRATCH"; fi; }

# metric URL NAME: the value of an unlabelled sample on URL/metrics (0 when absent).
metric() {
  curl -s --max-time 5 "$1/metrics" | awk -v n="$2" '$1 == n {v = $2} END {print v == "" ? 0 : v}'
}

# Prometheus compacts the backfilled 2 h blocks once its first compaction cycle fires (a minute
# after start-up). Waits for that cycle, then until blocks and compactions stay unchanged for 10 s.
wait_prometheus_compaction() {
  local url="$1" deadline=$((SECONDS + 300)) now prev="" same=0
  while [[ "$(metric "$url" prometheus_tsdb_compactions_triggered_total)" == 0 ]]; do
    ((SECONDS < deadline)) || { log "WARNING: Prometheus never triggered a compaction"; return 0; }
    sleep 2
  done
  while ((SECONDS < deadline)); do
    now="$(metric "$url" prometheus_tsdb_blocks_loaded) $(metric "$url" prometheus_tsdb_compactions_total)"
    now+=" $(metric "$url" prometheus_tsdb_compaction_duration_seconds_count)"
    if [[ "$now" != "$prev" ]]; then
      same=0
    elif ((++same >= 5)); then
      log "Prometheus settled: blocks/compactions $now"
      return 0
    fi
    prev="$now"
    sleep 2
  done
  log "WARNING: Prometheus still compacting after 300 s ($now)"
}

# 1. Data: ends on a whole minute, 2 minutes ago (inside both servers' retention).
END_S=$(($(date +%s) / 60 * 60 - 120))
log "data: $HOURS h ending at $END_S"
python3 "$HERE/promql_data.py" --end "$END_S" --hours "$HOURS" --step-s "$STEP_S" --openmetrics "$SCRATCH/data.om" \
  --prom "$SCRATCH/data.prom" --meta "$SCRATCH/data.json"
SAMPLES="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["samples"])' "$SCRATCH/data.json")"

# 2. Into both stores.
log "promtool tsdb create-blocks-from openmetrics"
mkdir -p "$SCRATCH/prom-data"
"$PROMTOOL" tsdb create-blocks-from openmetrics "$SCRATCH/data.om" "$SCRATCH/prom-data" \
  >"$SCRATCH/promtool.log" 2>&1 || {
  tail -n 20 "$SCRATCH/promtool.log" >&2
  exit 1
}
log "llmon tsdb import"
"$LLMON" tsdb import "$SCRATCH/data.prom" --storage.path="$SCRATCH/llmon-data" >"$SCRATCH/import.log" 2>&1 || {
  cat "$SCRATCH/import.log" >&2
  exit 1
}
grep -q "accepted=$SAMPLES " "$SCRATCH/import.log" || {
  echo "llmon tsdb import did not accept all $SAMPLES samples: $(cat "$SCRATCH/import.log")" >&2
  exit 1
}
rm -f "$SCRATCH/data.om" "$SCRATCH/data.prom"

# 3. Both servers.
printf 'global:\n  evaluation_interval: 1m\n' >"$SCRATCH/prometheus.yml"
start prometheus /-/ready "$PROMETHEUS" --config.file="$SCRATCH/prometheus.yml" \
  --storage.tsdb.path="$SCRATCH/prom-data" --web.listen-address=127.0.0.1:@PORT@ --log.level=warn
start llmon /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/llmon-data" \
  --collector.disable-defaults --storage.retention.time=15d --log.level=warn
code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -d 'query=1&start=0&end=60&step=15' \
  "$llmon_URL/api/v1/query_range" || true)"
[[ "$code" == 200 ]] || { echo "llmon answers $code to /api/v1/query_range: this build has no query API" >&2; exit 1; }
log "waiting for Prometheus's first compaction cycle (about a minute)"
wait_prometheus_compaction "$prometheus_URL"
du -sb "$SCRATCH/prom-data" "$SCRATCH/llmon-data" >"$SCRATCH/du.txt"

# 4. Timing.
log "timing: $RUNS runs after $WARMUP warm-up requests per server, query and range"
PARSE_BENCH=""
[[ -x "$BENCH_BIN/promql_bench" ]] && PARSE_BENCH="$BENCH_BIN/promql_bench"
rc=0
python3 "$HERE/promql_latency.py" --llmon "$llmon_URL" --llmon-pid "$llmon_PID" \
  --prometheus "$prometheus_URL" --prometheus-pid "$prometheus_PID" --end "$END_S" --runs "$RUNS" \
  --warmup "$WARMUP" ${INSTANT:+--instant} ${ONLY:+--only "$ONLY"} --meta "$SCRATCH/data.json" ${PARSE_BENCH:+--parse-bench "$PARSE_BENCH"} \
  --note "llmon=$("$LLMON" version 2>&1 | head -1)" --note "prometheus=$("$PROMETHEUS" --version 2>&1 | head -1)" \
  --note "git=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')" \
  --note "nice=$(nice)" --note "du=$(tr '\t\n' '= ' <"$SCRATCH/du.txt")" --out "$OUT" || rc=$?
log "results: $OUT"
exit "$rc"
