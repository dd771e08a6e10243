#!/usr/bin/env bash
# --scrape.discover=kubelet-pods end to end: page_server.py plays the
# kubelet (GET /pods answers tests/fixtures/kubelet/pods.json with its own
# port as the vLLM pod's annotated port and 127.0.0.1 as its IP) and the
# vLLM pod. The agent must ask for the pod list with the service-account
# token, scrape the annotated pod with namespace/pod/container/node labels,
# and list the other annotated running pods as targets too.
# Usage: scrape_kubelet_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"

mkdir -p "$SCRATCH/pages"
cp "$REPO/tests/fixtures/scrape/vllm.prom" "$SCRATCH/pages/vllm.prom"
export PAGE_SERVER_LOG="$SCRATCH/requests.jsonl"
# The pod list needs the server's port: a placeholder page first, then the real list.
printf '{"items": []}\n' >"$SCRATCH/pages/pods.json"
start_server kubelet /pods python3 "$REPO/tests/integration/page_server.py" "$SCRATCH/pages" @PORT@
sed "s/@PORT@/$kubelet_PORT/g" "$REPO/tests/fixtures/kubelet/pods.json" >"$SCRATCH/pages/pods.json"
printf 'tok-123\n' >"$SCRATCH/token"

start_llmon --collector.disable-defaults --collector.cpu --scrape.discover=kubelet-pods --logwatch.enabled=false \
  --scrape.kubelet-url="$kubelet_URL/pods" --scrape.kubelet-token-file="$SCRATCH/token" --log.level=warn

json() {
  curl -s --max-time 5 -G "$1" ${3:+--data-urlencode "$3"} | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(eval(sys.argv[1]))' "$2"
}
vllm_up() {
  [[ "$(json "$llmon_URL/api/v1/query" 'len(d["data"]["result"])' 'query=vllm:num_requests_running{job="kubelet-pods",namespace="serving",pod="vllm-llama-7f9c",container="vllm",node="gpu-node-1"}')" == 1 ]]
}
wait_for "the annotated pod's series" 60 vllm_up
HEALTH="$(json "$llmon_URL/api/v1/targets" '" ".join(sorted(t["labels"]["pod"] + "=" + t["health"] for t in d["data"]["activeTargets"]))')"
log "targets: $HEALTH"
[[ "$HEALTH" == "dcgm-exporter-x2k="* && "$HEALTH" == *"trainer-0="* && "$HEALTH" == *"vllm-llama-7f9c=up"* ]] ||
  fail "targets: $HEALTH"
python3 - "$SCRATCH/requests.jsonl" <<'PY' || fail "the pod list was not asked for with the token"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert any(r["path"] == "/pods" and r["authorization"] == "Bearer tok-123" for r in reqs), reqs[:3]
PY
log "kubelet discovery scraped the annotated pod with its Kubernetes labels"
