#!/usr/bin/env bash
# The dashboard's fleet view (--ui.datasource, docs/dashboard.md): two agents
# on different fake NVML scenarios, a real Prometheus 2.42 scraping both, and
# a third agent whose dashboard reads from that Prometheus. The proxy's
# answers are Prometheus's own for the node-scoped queries; the node picker
# and the cards are checked in Debian's chromium (web/browser/fleet.browser.mjs).
# Usage: fleet_view_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # *_URL/*_PORT come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd prometheus || skip "prometheus not installed"
FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
[[ -f "$FAKE" ]] || fail "fake NVML not built next to $LLMON (expected $FAKE)"
S="$REPO/tests/fake_nvml/scenarios"
node_agent() {  # NAME SCENARIO
  LLMON_FAKE_NVML_SCENARIO="$S/$2" start_server "$1" /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ \
    --storage.path="$SCRATCH/$1-data" --nvml.library="$FAKE" --logwatch.kmsg-path= --rules.defaults=false
}
node_agent a h100x8.json
node_agent b a100_mig.json
cat >"$SCRATCH/prometheus.yml" <<YML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: llmon
    static_configs: [{targets: ["127.0.0.1:$a_PORT", "127.0.0.1:$b_PORT"]}]
YML
start_server prom /-/ready prometheus --config.file="$SCRATCH/prometheus.yml" --storage.tsdb.path="$SCRATCH/prom-data" \
  --web.listen-address=127.0.0.1:@PORT@
start_server fleet /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/fleet-data" \
  --logwatch.kmsg-path= --ui.datasource="$prom_URL" --rules.defaults=false
A="127.0.0.1:$a_PORT" B="127.0.0.1:$b_PORT"
prom_q() { curl -sf --data-urlencode "query=$1" "$prom_URL/api/v1/query"; }
proxy_q() { curl -sf --data-urlencode "query=$1" --data-urlencode "node=$2" "$fleet_URL/ui/datasource/api/v1/query"; }
have_both() { prom_q 'count by (instance) (DCGM_FI_DEV_GPU_UTIL)' | python3 -c 'import json,sys; sys.exit(0 if len(json.load(sys.stdin)["data"]["result"]) == 2 else 1)'; }
wait_for "Prometheus to scrape both agents' GPUs" 60 have_both

log "the node list"
curl -sf "$fleet_URL/ui/datasource/nodes" >"$SCRATCH/nodes.json" || fail "GET /ui/datasource/nodes"
python3 - "$SCRATCH/nodes.json" "$A" "$B" "$prom_URL" <<'PY' || fail "nodes: $(cat "$SCRATCH/nodes.json")"
import json, sys
d = json.load(open(sys.argv[1]))["data"]
assert d["label"] == "instance" and d["url"] == sys.argv[4], d
assert sorted(d["nodes"]) == sorted(sys.argv[2:4]), d
PY

log "node-scoped answers are Prometheus's answers for that node"
same() {  # QUERY NODE: the proxy's answer for QUERY on NODE = Prometheus's for the scoped query
  local scoped="$3"
  proxy_q "$1" "$2" >"$SCRATCH/p.json" || fail "proxy query $1"
  prom_q "$scoped" >"$SCRATCH/q.json" || fail "prometheus query $scoped"
  python3 - "$SCRATCH/p.json" "$SCRATCH/q.json" <<'PY' || fail "proxy vs Prometheus for $1 on $2: $(head -c 300 "$SCRATCH/p.json") / $(head -c 300 "$SCRATCH/q.json")"
import json, sys
a, b = (json.load(open(f))["data"]["result"] for f in sys.argv[1:3])
key = lambda r: json.dumps(r["metric"], sort_keys=True)
assert sorted(map(key, a)) == sorted(map(key, b)) and a, (a, b)
PY
}
same 'count(DCGM_FI_DEV_GPU_UTIL)' "$A" "count(DCGM_FI_DEV_GPU_UTIL{instance=\"$A\"})"
same 'count(DCGM_FI_DEV_GPU_UTIL)' "$B" "count(DCGM_FI_DEV_GPU_UTIL{instance=\"$B\"})"
same 'DCGM_FI_DEV_FB_USED{GPU_I_ID="",instance=~".+"} / on (gpu, UUID, instance) (DCGM_FI_DEV_FB_USED{GPU_I_ID=""} + DCGM_FI_DEV_FB_FREE{GPU_I_ID=""})' "$B" \
  "DCGM_FI_DEV_FB_USED{GPU_I_ID=\"\",instance=\"$B\"} / on (gpu, UUID, instance) (DCGM_FI_DEV_FB_USED{GPU_I_ID=\"\",instance=\"$B\"} + DCGM_FI_DEV_FB_FREE{GPU_I_ID=\"\",instance=\"$B\"})"
n_a=$(proxy_q 'count(DCGM_FI_DEV_GPU_UTIL)' "$A" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])')
n_b=$(proxy_q 'count(DCGM_FI_DEV_GPU_UTIL)' "$B" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])')
[[ "$n_a" != "$n_b" ]] || fail "both nodes answer $n_a GPU series: the scenarios should differ"
now=$(date +%s)
curl -sf --data-urlencode 'query=DCGM_FI_DEV_GPU_UTIL' --data-urlencode "node=$A" --data-urlencode "start=$((now - 30))" \
  --data-urlencode "end=$now" --data-urlencode step=5 "$fleet_URL/ui/datasource/api/v1/query_range" >"$SCRATCH/r.json" ||
  fail "proxy query_range"
python3 - "$SCRATCH/r.json" "$A" <<'PY' || fail "query_range on $A: $(head -c 300 "$SCRATCH/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))["data"]["result"]
assert r and all(s["metric"]["instance"] == sys.argv[2] for s in r), r
PY
curl -sf "$fleet_URL/ui/datasource/api/v1/label/gpu/values?node=$B" >"$SCRATCH/lv.json" || fail "proxy label values"
curl -sf -G --data-urlencode "match[]={instance=\"$B\"}" "$prom_URL/api/v1/label/gpu/values" >"$SCRATCH/lv2.json"
cmp -s <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["data"])' "$SCRATCH/lv.json") \
  <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["data"])' "$SCRATCH/lv2.json") ||
  fail "label values on $B differ: $(cat "$SCRATCH/lv.json") / $(cat "$SCRATCH/lv2.json")"
code=$(curl -s -o "$SCRATCH/bad.json" -w '%{http_code}' --data-urlencode 'query=sum(' --data-urlencode "node=$A" \
  "$fleet_URL/ui/datasource/api/v1/query")
[[ "$code" == 400 ]] && grep -q 'parse error' "$SCRATCH/bad.json" || fail "a bad query: HTTP $code $(cat "$SCRATCH/bad.json")"

log "a data source that is down: 502 naming it"
DOWN_PORT="$(free_port)"
start_server down /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/down-data" \
  --logwatch.kmsg-path= --ui.datasource="http://127.0.0.1:$DOWN_PORT" --rules.defaults=false
code=$(curl -s -o "$SCRATCH/down.json" -w '%{http_code}' --data-urlencode 'query=up' "$down_URL/ui/datasource/api/v1/query")
[[ "$code" == 502 ]] && grep -q "127.0.0.1:$DOWN_PORT" "$SCRATCH/down.json" || fail "down: HTTP $code $(cat "$SCRATCH/down.json")"
stop_pid "$down_PID"

find_browser
[[ -z "$BROWSER_MISSING" ]] || skip "API checks passed; the browser half cannot run: $BROWSER_MISSING"
fetch "$fleet_URL/" "$SCRATCH/index.html"
grep -q 'assets/app.js' "$SCRATCH/index.html" || skip "API checks passed; this llmon was built without the dashboard"
ART="${LLMON_TEST_ARTIFACTS:-$(dirname "$LLMON")/test-artifacts}/fleet"
"$NODE" "$REPO/web/browser/fleet.browser.mjs" "$fleet_URL" "$prom_URL" "$ART" "$CHROMIUM" 2>&1 | tee "$SCRATCH/browser.out"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail "browser checks failed (screenshots in $ART)"
log "ok"
