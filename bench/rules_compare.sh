#!/usr/bin/env bash
# Rule evaluation of llmon against Prometheus 2.42 on the same data and rules, same machine, same
# run, and the cost of the built-in rule pack in the agent (issue 6, "Benchmarks";
# docs/performance.md "Rule evaluation: side by side with Prometheus (issue 6)").
#
#   bench/rules_compare.sh [--out DIR] [--hours H] [--window S] [--warmup S] [--agent-window S]
#                          [--groups N] [--per-group N] [--interval D] [--skip-agent] [--keep]
#
#   Part 1, 1 000 rules over one 8-GPU node:
#   1. bench/rules_data.py data writes the node's history ending now (2 h at 15 s by default):
#      8 GPUs x 20 DCGM_FI_DEV_* fields and a 64-core host's node_exporter series (770 series),
#      and the next minutes of the same series for the feeder (step 3).
#      bench/rules_data.py rules writes --groups x --per-group rules (10 x 100), each group at
#      `interval: --interval` (5s); `promtool check rules` and `llmon rules check` must accept it.
#   2. The same samples into both stores, as bench/promql_compare.sh does:
#      `promtool tsdb create-blocks-from openmetrics` into Prometheus's data dir, `llmon tsdb
#      import` into llmon's --storage.path (which must accept every sample).
#   3. Both servers start on free 127.0.0.1 ports, each evaluating the same rule file:
#      `llmon agent --collector.disable-defaults --rules.defaults=false --rules.file=...
#      --web.enable-import` and `prometheus` (rule_files, --storage.tsdb.retention.time=30d).
#      `rules_data.py feed` keeps both stores current with the samples that come due after the
#      history's end: pushed to llmon's /api/v1/import/prometheus every 5 s, and served with
#      their timestamps on a page Prometheus scrapes every 5 s (honor_labels), so instant
#      selectors and short windows see fresh data all through the window. After the window
#      both servers are asked for the number of samples of the last 10 minutes (must agree).
#   4. bench/rules_data.py measure: after --warmup s (20), polls both /metrics every 2 s for
#      --window s (120) and keeps every group evaluation seen (last_evaluation_timestamp ->
#      last_duration, prometheus_rule_group_* / llmon_rule_group_*), each process's CPU seconds
#      (utime + stime, /proc/PID/stat) and RSS over the window, then 6 samples of /api/v1/rules
#      5 s apart (per-rule evaluationTime). Reported: the median over cycles of all groups' durations
#      summed, llmon / Prometheus, per group, and per rule template.
#   Part 2, the built-in pack in the agent (skipped with --skip-agent): three `llmon agent`s with
#      default collectors side by side for --agent-window s (120): --rules.defaults=false,
#      --rules.defaults=true with --rules.evaluation-interval=15s and with =1s (the pack's groups
#      set no interval of their own); CPU share of one core, per-cycle evaluation time of the pack
#      (sum over groups of llmon_rule_group_last_duration_seconds), RSS.
#   Takes ~6 min on the 2-core VM. Prints Markdown; JSON and the tables go to --out (default a
#   results/ folder in the scratch dir, kept). Exit status: 0 done, 1 a step failed, 2 usage.
#
# env: LLMON (build/llmon, a Release build), PROMETHEUS (prometheus), PROMTOOL (promtool),
#      TMPDIR (scratch dir parent).
# Only the processes started here are stopped (by PID, at exit); the scratch dir is removed
# unless --keep (the results folder is kept when it lies outside it).

# NAME_URL/NAME_PID are set by start() (bench/lib.sh) through printf -v.
# shellcheck disable=SC2154,SC2317
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
LLMON="${LLMON:-$REPO/build/llmon}"
PROMETHEUS="${PROMETHEUS:-prometheus}"
PROMTOOL="${PROMTOOL:-promtool}"

OUT="" HOURS=2 WINDOW=120 WARMUP=20 AGENT_WINDOW=120 GROUPS_N=10 PER_GROUP=100 INTERVAL=5s SKIP_AGENT=0 KEEP=0
usage() {
  awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0" >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case "$1" in
  --out) OUT="${2:?}"; shift 2 ;;
  --out=*) OUT="${1#*=}"; shift ;;
  --hours) HOURS="${2:?}"; shift 2 ;;
  --hours=*) HOURS="${1#*=}"; shift ;;
  --window) WINDOW="${2:?}"; shift 2 ;;
  --window=*) WINDOW="${1#*=}"; shift ;;
  --warmup) WARMUP="${2:?}"; shift 2 ;;
  --warmup=*) WARMUP="${1#*=}"; shift ;;
  --agent-window) AGENT_WINDOW="${2:?}"; shift 2 ;;
  --agent-window=*) AGENT_WINDOW="${1#*=}"; shift ;;
  --groups) GROUPS_N="${2:?}"; shift 2 ;;
  --groups=*) GROUPS_N="${1#*=}"; shift ;;
  --per-group) PER_GROUP="${2:?}"; shift 2 ;;
  --per-group=*) PER_GROUP="${1#*=}"; shift ;;
  --interval) INTERVAL="${2:?}"; shift 2 ;;
  --interval=*) INTERVAL="${1#*=}"; shift ;;
  --skip-agent) SKIP_AGENT=1; shift ;;
  --keep) KEEP=1; shift ;;
  -h | --help) usage ;;
  *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
[[ -x "$LLMON" ]] || { echo "missing $LLMON (a Release build: ninja -C build llmon)" >&2; exit 1; }
for t in "$PROMETHEUS" "$PROMTOOL" python3 curl; do
  command -v "$t" >/dev/null || { echo "missing $t (apt-get install prometheus python3 curl)" >&2; exit 1; }
done
# Data generated ahead for the feeder (step 3): start-up, warm-up, window, /api/v1/rules, margin.
AHEAD=$((WARMUP + WINDOW + 300))

SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/rules_compare.XXXXXX")"
[[ -n "$OUT" ]] || OUT="$SCRATCH/results"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
[[ "$OUT" == "$SCRATCH"/* ]] && KEEP=1
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"  # start, start_bg, stop_pid, stop_all, log; its EXIT trap stops every PID started
bench_on_exit() { if [[ $KEEP == 1 ]]; then log "kept $SCRATCH"; else rm -rf -- "$SCRATCH"; fi; }

{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ) host=$(uname -n) cpus=$(nproc) loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "llmon=$("$LLMON" version 2>&1 | head -1) ($LLMON)"
  echo "prometheus=$("$PROMETHEUS" --version 2>&1 | head -1)"
  echo "git=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?') nice=$(nice)"
} >"$OUT/env.txt"
cat "$OUT/env.txt" >&2

# ---- Part 1 -------------------------------------------------------------------------------
# 1. Data ending now; the rules.
END_S=$(date +%s)
log "data: $HOURS h ending at $END_S; rules: $GROUPS_N x $PER_GROUP at $INTERVAL"
python3 "$HERE/rules_data.py" data --end "$END_S" --hours "$HOURS" --openmetrics "$SCRATCH/data.om" \
  --prom "$SCRATCH/data.prom" --meta "$OUT/data.json" --ahead "$AHEAD" --future "$SCRATCH/future.tsv"
python3 "$HERE/rules_data.py" rules --out "$OUT/rules.yml" --meta "$OUT/rules.json" --groups "$GROUPS_N" \
  --per-group "$PER_GROUP" --interval "$INTERVAL"
"$PROMTOOL" check rules "$OUT/rules.yml" >"$SCRATCH/check.log" 2>&1 || { cat "$SCRATCH/check.log" >&2; exit 1; }
"$LLMON" rules check "$OUT/rules.yml" >>"$SCRATCH/check.log" 2>&1 || { cat "$SCRATCH/check.log" >&2; exit 1; }
SAMPLES="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["samples"])' "$OUT/data.json")"

# 2. Into both stores.
log "promtool tsdb create-blocks-from openmetrics"
mkdir -p "$SCRATCH/prom-data"
"$PROMTOOL" tsdb create-blocks-from openmetrics "$SCRATCH/data.om" "$SCRATCH/prom-data" \
  >"$SCRATCH/promtool.log" 2>&1 || { tail -n 20 "$SCRATCH/promtool.log" >&2; exit 1; }
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

# 3. Both servers, same rule file, and the feeder that keeps their data current.
start llmon /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/llmon-data" \
  --collector.disable-defaults --rules.defaults=false --rules.file="$OUT/rules.yml" \
  --storage.retention.time=30d --web.enable-import --log.level=warn
start_bg "$SCRATCH/feed.log" python3 "$HERE/rules_data.py" feed --future "$SCRATCH/future.tsv" --end "$END_S" \
  --push "$llmon_URL" --port-file "$SCRATCH/feed.port"
for ((i = 0; i < 100; i++)); do [[ -s "$SCRATCH/feed.port" ]] && break; sleep 0.1; done
[[ -s "$SCRATCH/feed.port" ]] || { cat "$SCRATCH/feed.log" >&2; exit 1; }
cat >"$SCRATCH/prometheus.yml" <<EOF
global:
  evaluation_interval: $INTERVAL
  scrape_interval: 5s
rule_files:
  - $OUT/rules.yml
scrape_configs:
  - job_name: feed
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$(cat "$SCRATCH/feed.port")']
EOF
start prometheus /-/ready "$PROMETHEUS" --config.file="$SCRATCH/prometheus.yml" \
  --storage.tsdb.path="$SCRATCH/prom-data" --storage.tsdb.retention.time=30d \
  --web.listen-address=127.0.0.1:@PORT@ --log.level=warn
AGE=$(($(date +%s) - END_S))

# 4. Measure.
log "part 1: $WARMUP s warm-up, $WINDOW s window (history ended ${AGE} s ago; fed since)"
python3 "$HERE/rules_data.py" measure --server "llmon:llmon:$llmon_URL:$llmon_PID" \
  --server "prometheus:prometheus:$prometheus_URL:$prometheus_PID" --warmup "$WARMUP" --window "$WINDOW" \
  --rules-api 6 --out "$OUT/part1.json"
# Both stores must hold the same samples: count the last 10 minutes of the node's series in both.
T=$(($(date +%s) - 30))
Q='query={__name__=~"(DCGM|node)_.+",instance="gpu-node-1:8747"}[10m]'
COUNT='import json, sys
r = json.load(sys.stdin)["data"]["result"]
print("%d series, %d samples" % (len(r), sum(len(x["values"]) for x in r)))'
for s in llmon prometheus; do
  u="${s}_URL"
  printf '%s: %s\n' "$s" "$(curl -s --max-time 30 -d "time=$T" --data-urlencode "$Q" "${!u}/api/v1/query" |
    python3 -c "$COUNT" 2>&1)"
done >"$OUT/samples_check.txt"
cat "$OUT/samples_check.txt" >&2
[[ "$(cut -d: -f2 "$OUT/samples_check.txt" | sort -u | wc -l)" == 1 ]] ||
  log "WARNING: the two stores hold different samples for the last 10 minutes"
curl -s --max-time 30 "$llmon_URL/api/v1/alerts" >"$OUT/llmon_alerts.json" || true
curl -s --max-time 30 "$prometheus_URL/api/v1/alerts" >"$OUT/prometheus_alerts.json" || true
python3 - "$OUT/llmon_alerts.json" "$OUT/prometheus_alerts.json" >"$OUT/alerts.txt" <<'EOF' || true
import json, sys, collections
for path in sys.argv[1:]:
    alerts = json.load(open(path))["data"]["alerts"]
    c = collections.Counter(a["state"] for a in alerts)
    print("%s: %d alerts %s" % (path.rsplit("/", 1)[-1].split("_")[0], len(alerts), dict(sorted(c.items()))))
EOF
stop_all
{
  echo "### Part 1: $GROUPS_N x $PER_GROUP rules every $INTERVAL, llmon vs Prometheus"
  echo
  python3 "$HERE/rules_data.py" report "$OUT/part1.json" --meta "$OUT/rules.json" --a llmon --b prometheus
  echo
  echo "Samples of the node's series in the 10 minutes before the check, per store:"
  echo
  sed 's/^/    /' "$OUT/samples_check.txt"
  echo
  echo "Alerts when the window ended (each server asked in turn; the fed samples reach each store up"
  echo "to 5 s apart, so a few alerts near a threshold can differ by a cycle):"
  echo
  sed 's/^/    /' "$OUT/alerts.txt"
} >"$OUT/report.md"
cat "$OUT/report.md"

# ---- Part 2 -------------------------------------------------------------------------------
if [[ $SKIP_AGENT == 0 ]]; then
  log "part 2: three agents with default collectors, side by side"
  start agent_norules /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ \
    --storage.path="$SCRATCH/agent-norules" --rules.defaults=false --log.level=warn
  start agent_pack15s /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ \
    --storage.path="$SCRATCH/agent-pack15s" --rules.defaults=true --rules.evaluation-interval=15s --log.level=warn
  start agent_pack1s /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ \
    --storage.path="$SCRATCH/agent-pack1s" --rules.defaults=true --rules.evaluation-interval=1s --log.level=warn
  python3 "$HERE/rules_data.py" measure --server "rules.defaults=false:llmon:$agent_norules_URL:$agent_norules_PID" \
    --server "pack at 15s:llmon:$agent_pack15s_URL:$agent_pack15s_PID" \
    --server "pack at 1s:llmon:$agent_pack1s_URL:$agent_pack1s_PID" --warmup 15 --window "$AGENT_WINDOW" \
    --rules-api 1 --out "$OUT/part2.json"
  stop_all
  {
    echo
    echo "### Part 2: the built-in pack in \`llmon agent\` (default collectors)"
    echo
    python3 "$HERE/rules_data.py" report "$OUT/part2.json"
  } | tee -a "$OUT/report.md"
fi
log "results: $OUT"
