#!/usr/bin/env bash
# Differential test of application scraping (docs/scrape.md): a real
# Prometheus 2.42 and `llmon agent --scrape.config` read the same
# configuration and scrape the same recorded pages (tests/fixtures/scrape/
# and tests/fixtures/apps/, served by page_server.py): static and file
# discovery, relabel_configs with every kind of action, metric_relabel_configs,
# honor_labels both ways, honor_timestamps false, params, basic auth from a
# password file, gzip, OpenMetrics, sample_limit, a failing target. After both
# have scraped every target a few times, scrape_diff.py compares the stored
# series and values, /api/v1/targets and /api/v1/metadata.
# Usage: scrape_prometheus_diff_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"

PROM="${PROMETHEUS:-prometheus}"
require_cmd "$PROM" || skip "prometheus not installed (apt-get install prometheus)"
require_cmd python3 || skip "python3 not installed"

mkdir -p "$SCRATCH/pages" "$SCRATCH/sd" "$SCRATCH/tsdb"
cp "$REPO"/tests/fixtures/scrape/*.prom "$REPO"/tests/fixtures/scrape/*.om "$SCRATCH/pages/"
for f in "$REPO"/tests/fixtures/apps/*.prom; do [[ -e "$f" ]] && cp "$f" "$SCRATCH/pages/app_$(basename "$f")"; done
export PAGE_SERVER_LOG="$SCRATCH/requests.jsonl"
start_server pages /three python3 "$REPO/tests/integration/page_server.py" "$SCRATCH/pages" @PORT@
P="127.0.0.1:$pages_PORT"
printf 's3cret\n' >"$SCRATCH/pw"
cat >"$SCRATCH/sd/targets.json" <<JSON
[{"targets": ["$P"], "labels": {"rack": "r1"}}, {"targets": ["localhost:$pages_PORT"], "labels": {"rack": "r2"}}]
JSON

apps=""
for f in "$SCRATCH"/pages/app_*.prom; do
  [[ -e "$f" ]] || continue
  n="$(basename "$f" .prom)"
  apps+="      - targets: [\"$P\"]
        labels: {__metrics_path__: /$n, app: ${n#app_}}
"
done
cat >"$SCRATCH/scrape.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: vllm
    static_configs:
      - targets: ["$P"]
        labels: {model: llama, __metrics_path__: /vllm}
    metric_relabel_configs:
      - {source_labels: [__name__], regex: "go_.*", action: drop}
      - {regex: pid, action: labeldrop}
      - {source_labels: [__name__], regex: "vllm:(.*)", target_label: __name__, replacement: "vllm_\$1"}
      - {source_labels: [model_name], regex: "(.*)/(.*)", target_label: model_family, replacement: "\$1"}
      - {source_labels: [model_family, model], separator: "@", target_label: both}
      - {source_labels: [__name__, le], regex: "vllm_time_to_first_token_seconds_bucket;0.04", action: drop}
  - job_name: honor
    honor_labels: true
    metrics_path: /labelled
    static_configs: [{targets: ["$P"]}]
  - job_name: conflict
    metrics_path: /labelled
    static_configs: [{targets: ["$P"], labels: {code: target}}]
  - job_name: relabel
    static_configs:
      - targets: ["$P"]
        labels: {__tmp_page: three, team: ML, keep: "yes"}
      - targets: ["localhost:$pages_PORT"]
        labels: {__tmp_page: three, keep: "no"}
      - targets: ["$P"]
        labels: {__tmp_page: three, keep: "yes", copy: "same", other: "same"}
    relabel_configs:
      - {source_labels: [keep], regex: "yes", action: keep}
      - {source_labels: [copy], target_label: other, action: dropequal}
      - {source_labels: [__tmp_page], target_label: __metrics_path__, replacement: "/\$1"}
      - {regex: "__tmp_(.+)", action: labelmap}
      - {source_labels: [__address__], modulus: 8, target_label: shard, action: hashmod}
      - {source_labels: [team], target_label: team_lc, action: lowercase}
      - {source_labels: [team], target_label: team_uc, action: uppercase}
      - {regex: keep, action: labeldrop}
      - {source_labels: [__address__], regex: "([^:]+):.*", target_label: host}
      - {source_labels: [__scheme__, host], separator: "://", target_label: "\${1}_url", regex: "(http)://(.*)", replacement: "\$0"}
  - job_name: om
    metrics_path: /openmetrics
    static_configs: [{targets: ["$P"]}]
  - job_name: limit
    sample_limit: 2
    metrics_path: /three
    static_configs: [{targets: ["$P"]}]
  - job_name: params
    metrics_path: /echo
    params: {module: [gpu, extra], "q x": ["a b&c"]}
    static_configs: [{targets: ["$P"]}]
    relabel_configs:
      - {target_label: __param_target, replacement: "node-1"}
  - job_name: stamps
    honor_timestamps: false
    metrics_path: /oldstamps
    static_configs: [{targets: ["$P"]}]
  - job_name: filesd
    metrics_path: /three
    file_sd_configs: [{files: ["$SCRATCH/sd/*.json"]}]
  - job_name: auth
    metrics_path: /auth/three
    basic_auth: {username: scraper, password_file: "$SCRATCH/pw"}
    static_configs: [{targets: ["$P"]}]
  - job_name: down
    metrics_path: /status/503
    static_configs: [{targets: ["$P"]}]
  - job_name: refused
    static_configs: [{targets: ["127.0.0.1:1"]}]
EOF
if [[ -n "$apps" ]]; then
  printf '  - job_name: apps\n    static_configs:\n%s' "$apps" >>"$SCRATCH/scrape.yml"
fi

START_TIMEOUT_S=60 start_server prom /-/ready "$PROM" --config.file="$SCRATCH/scrape.yml" \
  --storage.tsdb.path="$SCRATCH/tsdb" --web.listen-address=127.0.0.1:@PORT@ --log.level=warn
# No rules: their recording series would be llmon's alone.
start_llmon --log.level=warn --scrape.config="$SCRATCH/scrape.yml" --logwatch.enabled=false --rules.defaults=false

# Both have scraped every target at least once.
scraped_enough() {
  local url
  for url in "$prom_URL" "$llmon_URL"; do
    curl -s --max-time 5 "$url/api/v1/targets" | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]["activeTargets"]
sys.exit(0 if d and all(t["health"] != "unknown" for t in d) else 1)' || return 1
  done
}
wait_for "both to scrape every target" 60 scraped_enough
sleep 3  # a few more scrapes: scrape_series_added is 0 on both by then
python3 "$REPO/tests/integration/scrape_diff.py" "$prom_URL" "$llmon_URL" >"$SCRATCH/diff.txt" 2>&1
rc=$?
cat "$SCRATCH/diff.txt" >&2
[[ $rc -eq 0 ]] || fail "Prometheus and llmon stored different things (above)"

# The requests llmon sent: Prometheus's Accept header, gzip, the same basic
# auth and query strings, its own User-Agent.
python3 - "$SCRATCH/requests.jsonl" <<'PY' || fail "llmon's scrape requests are not what Prometheus sends"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
mine = [r for r in reqs if r["user_agent"].startswith("llmon/")]
prom = [r for r in reqs if r["user_agent"].startswith("Prometheus/")]
assert mine and prom, (len(mine), len(prom))
assert {r["accept"] for r in mine} == {r["accept"] for r in prom}, ({r["accept"] for r in mine}, {r["accept"] for r in prom})
assert all("gzip" in r["accept_encoding"] for r in mine)
auth_mine = {r["authorization"] for r in mine if r["path"].startswith("/auth/")}
auth_prom = {r["authorization"] for r in prom if r["path"].startswith("/auth/")}
assert auth_mine == auth_prom and auth_mine, (auth_mine, auth_prom)
q_mine = {r["query"] for r in mine if r["path"] == "/echo"}
q_prom = {r["query"] for r in prom if r["path"] == "/echo"}
assert q_mine == q_prom, (q_mine, q_prom)
PY
log "llmon and Prometheus agree on every series, target and metadata entry"
