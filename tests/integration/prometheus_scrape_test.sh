#!/usr/bin/env bash
# A real Prometheus scrapes `llmon agent` (default collectors, live host)
# every second; the test waits until Prometheus reports the target up, then
# asks its query API for up{job="llmon"} == 1, node_load1 and
# node_cpu_seconds_total. Every wait is bounded.
# Usage: prometheus_scrape_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL/PORT/PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"

PROM="${PROMETHEUS:-prometheus}"
require_cmd "$PROM" || skip "prometheus not installed (apt-get install prometheus)"
require_cmd python3 || skip "python3 not installed"
WAIT_S="${SCRAPE_WAIT_S:-60}"

start_llmon --log.level=warn

mkdir -p "$SCRATCH/tsdb"
cat >"$SCRATCH/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: llmon
    static_configs:
      - targets: ["127.0.0.1:$llmon_PORT"]
EOF
START_TIMEOUT_S=60 start_server prom /-/ready "$PROM" \
  --config.file="$SCRATCH/prometheus.yml" \
  --storage.tsdb.path="$SCRATCH/tsdb" \
  --web.listen-address=127.0.0.1:@PORT@ \
  --log.level=warn

# json_get URL PYTHON_EXPR [PARAM=VALUE]: fetches URL (JSON; the optional
# parameter URL-encoded) and prints eval(PYTHON_EXPR) on it as `d`; empty
# output on any error.
json_get() {
  local curl_args=(-s --max-time 5 -G "$1")
  [[ $# -ge 3 ]] && curl_args+=(--data-urlencode "$3")
  curl "${curl_args[@]}" 2>/dev/null |
    python3 -c 'import json, sys
try:
    d = json.load(sys.stdin)
    print(eval(sys.argv[1]))
except Exception as e:
    print("", end="")' "$2" 2>/dev/null
}

# 1. The target page: wait until the llmon target's health is "up".
deadline=$((SECONDS + WAIT_S))
health=""
while ((SECONDS < deadline)); do
  health="$(json_get "$prom_URL/api/v1/targets" \
    '",".join(t["health"] + ":" + t.get("lastError", "") for t in d["data"]["activeTargets"] if t["labels"].get("job") == "llmon")')"
  [[ "$health" == up:* ]] && break
  sleep 0.5
done
[[ "$health" == up:* ]] || fail "Prometheus did not report the llmon target up within ${WAIT_S}s (targets: \"$health\"; prometheus log: $(tail -n 5 "$SCRATCH/prom.log"))"
log "Prometheus reports target 127.0.0.1:$llmon_PORT up"

# query EXPR: prints the instant vector's result count and first value ("N V").
query() {
  json_get "$prom_URL/api/v1/query" \
    '"%d %s" % (len(d["data"]["result"]), d["data"]["result"][0]["value"][1] if d["data"]["result"] else "-") if d["status"] == "success" else "error"' \
    "query=$1"
}

# wait_query EXPR MIN_SERIES [WANT_VALUE]: retries until EXPR returns at least
# MIN_SERIES series (and, if given, WANT_VALUE as the first value).
wait_query() {
  local expr="$1" min="$2" want="${3:-}" out="" n v
  local deadline=$((SECONDS + WAIT_S))
  while ((SECONDS < deadline)); do
    out="$(query "$expr")"
    read -r n v <<<"$out"
    if [[ "$n" =~ ^[0-9]+$ ]] && ((n >= min)) && [[ -z "$want" || "$v" == "$want" ]]; then
      log "query $expr: $n series, first value $v"
      return 0
    fi
    sleep 0.5
  done
  fail "query $expr did not return ${want:+value $want in }at least $min series within ${WAIT_S}s (last answer: \"$out\")"
}

wait_query 'up{job="llmon"}' 1 1
wait_query 'node_load1{job="llmon"}' 1
# One series per CPU and mode: at least 8 modes on any host.
wait_query 'node_cpu_seconds_total{job="llmon"}' 8
# Prometheus stored more than one sample: a rate over the scrapes is defined.
wait_query 'rate(node_cpu_seconds_total{job="llmon",mode="idle"}[5s])' 1
# No scrape was rejected for a malformed or mistyped page.
wait_query 'scrape_samples_scraped{job="llmon"} > 0' 1
log "Prometheus scrapes llmon and stores its series"
