#!/usr/bin/env bash
# Grafana dashboards as they are (tests/fixtures/grafana/, extractor and
# Grafana's variable and interval rules in grafana_dash.py):
#  1. Node Exporter Full (grafana.com 1860): the real node_exporter 1.5
#     (Debian's prometheus-node-exporter, default collectors) on this host,
#     scraped every second by a real Prometheus (job "node"), and `llmon agent`
#     on its defaults on the same host. Each side's variables are resolved
#     through its own /api/v1/label/<name>/values?match[]=..., as Grafana's
#     data source does (and again through /api/v1/series, as it does with no
#     Prometheus version set: the same values), every panel query runs against
#     both (instant, and as a range query where Grafana sends one), and the test
#     fails where Prometheus has data and llmon has none, except the entries of
#     grafana_known_gaps.txt (query or panel title | reason).
#  2. NVIDIA's dcgm-exporter dashboard (grafana.com 12239 with its instance
#     and gpu variables, and the current one from NVIDIA/dcgm-exporter with
#     Hostname and gpu) against an agent on the fake NVML library, 8x H100:
#     every query has data, with the variables on All and on each single value.
#  3. utkuozdemir/nvidia_gpu_exporter's dashboard (grafana.com 14574) with
#     --collector.gpu.names=nvidia_smi on the same node, gaps listed in
#     grafana_nvidia_smi_gaps.txt.
# Both print "llmon N of M queries with data" (and Prometheus' K of M).
# Usage: grafana_dashboards_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL/PORT/PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"
PROM="${PROMETHEUS:-prometheus}"
NE="${NODE_EXPORTER:-prometheus-node-exporter}"
require_cmd "$PROM" || skip "prometheus not installed (apt-get install prometheus)"
require_cmd "$NE" || skip "node_exporter not installed (apt-get install prometheus-node-exporter)"
FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
[[ -f "$FAKE" ]] || fail "fake NVML not built next to $LLMON (expected $FAKE)"

DASH="$REPO/tests/fixtures/grafana"
TOOL="$REPO/tests/integration/grafana_dash.py"
GAPS="$REPO/tests/integration/grafana_known_gaps.txt"
WAIT_S="${SCRAPE_WAIT_S:-60}"

python3 "$TOOL" selftest "$DASH" || fail "grafana_dash.py selftest"

# samples URL EXPR: the instant value of EXPR (a count), 0 when empty or on error.
samples() {
  curl -s --max-time 5 -G "$1/api/v1/query" --data-urlencode "query=$2" 2>/dev/null | python3 -c 'import json, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
    print(int(float(r[0]["value"][1])) if r else 0)
except Exception:
    print(0)'
}

# wait_samples URL EXPR MIN: until EXPR (a count of samples) reaches MIN.
wait_samples() {
  local deadline=$((SECONDS + WAIT_S)) n=0
  while ((SECONDS < deadline)); do
    n="$(samples "$1" "$2")"
    ((n >= $3)) && return 0
    sleep 0.5
  done
  fail "$1: $2 stayed at $n (want >= $3) for ${WAIT_S}s"
}

# 1. Node Exporter Full: node_exporter + Prometheus against llmon, same host.
start_server ne /metrics "$NE" --web.listen-address=127.0.0.1:@PORT@ --log.level=warn
mkdir -p "$SCRATCH/tsdb"
cat >"$SCRATCH/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["127.0.0.1:$ne_PORT"]
EOF
START_TIMEOUT_S=60 start_server prom /-/ready "$PROM" --config.file="$SCRATCH/prometheus.yml" \
  --storage.tsdb.path="$SCRATCH/tsdb" --web.listen-address=127.0.0.1:@PORT@ --log.level=warn
start_llmon --log.level=warn

# Both sides hold a few samples: rate() over $__rate_interval (4 s at a 1 s
# scrape interval) needs two, and the guest-CPU panel's [1m] too.
wait_samples "$prom_URL" 'count_over_time(node_load1[1m])' 6
wait_samples "$llmon_URL" 'count_over_time(node_load1[1m])' 6
log "both sides hold >= 6 samples of node_load1"

python3 "$TOOL" compare "$DASH/node-exporter-full.json" --llmon "$llmon_URL" --prom "$prom_URL" \
  --gaps "$GAPS" --scrape-interval 1s --range 300 --verbose | tee "$SCRATCH/nef.txt"
rc=${PIPESTATUS[0]}
((rc == 0)) || fail "Node Exporter Full: llmon has no data where Prometheus has (above); fix llmon or list the gap with its reason in $GAPS"
stop_pid "$llmon_PID"
stop_pid "$prom_PID"
stop_pid "$ne_PID"
rm -rf -- "$SCRATCH/llmon-data"  # the GPU agent gets a store of its own

# 2. The dcgm-exporter dashboards on the fake 8-GPU node.
export LLMON_FAKE_NVML_SCENARIO="$REPO/tests/fake_nvml/scenarios/h100x8.json"
HOST="$REPO/tests/fixtures/gpu_host"
start_llmon --log.level=warn --collector.disable-defaults --collector.gpu --nvml.library="$FAKE" \
  --path.procfs="$HOST/proc" --path.rootfs="$HOST/rootfs" --collector.gpu.hostname=node1
# GPM-derived families (tensor activity) are rates: they appear from the second cycle.
wait_samples "$llmon_URL" 'count(count_over_time(DCGM_FI_PROF_PIPE_TENSOR_ACTIVE[1m]) >= 3)' 8
for d in dcgm-exporter-12239 dcgm-exporter-nvidia; do
  case "$d" in
    dcgm-exporter-12239) vars="instance,gpu" expect="instance=1,gpu=8" ;;
    *) vars="Hostname,gpu" expect="Hostname=1,gpu=8" ;;
  esac
  python3 "$TOOL" fill "$DASH/$d.json" --llmon "$llmon_URL" --per-value "$vars" --expect "$expect" \
    --scrape-interval 1s --range 900 | tee "$SCRATCH/$d.txt"
  rc=${PIPESTATUS[0]}
  ((rc == 0)) || fail "$d: panels without data on the fake 8-GPU node (above)"
done
grep -q 'level=error' "$SCRATCH/llmon.log" && fail "error lines in the agent log: $(grep 'level=error' "$SCRATCH/llmon.log" | head -3)"
stop_pid "$llmon_PID"
rm -rf -- "$SCRATCH/llmon-data"

# 3. utkuozdemir/nvidia_gpu_exporter's dashboard (14574) on the same node under
#    --collector.gpu.names=nvidia_smi: every panel has data per GPU, except
#    the listed gaps (grafana_nvidia_smi_gaps.txt, each with its reason).
start_llmon --log.level=warn --collector.disable-defaults --collector.gpu --nvml.library="$FAKE" \
  --path.procfs="$HOST/proc" --path.rootfs="$HOST/rootfs" --collector.gpu.hostname=node1 --collector.gpu.names=nvidia_smi
# Six samples: the range queries of a 30-minute dashboard step by 2 s and end
# on a multiple of it, up to 2 s before now, and must find a sample there.
wait_samples "$llmon_URL" 'count(count_over_time(nvidia_smi_utilization_gpu_ratio[1m]) >= 6)' 8
python3 "$TOOL" fill "$DASH/nvidia-gpu-exporter-14574.json" --llmon "$llmon_URL" --per-value gpu --expect gpu=8 \
  --gaps "$REPO/tests/integration/grafana_nvidia_smi_gaps.txt" --scrape-interval 1s --range 1800 | tee "$SCRATCH/smi.txt"
((PIPESTATUS[0] == 0)) || fail "nvidia-gpu-exporter-14574: panels without data on the fake 8-GPU node (above)"
grep -q 'level=error' "$SCRATCH/llmon.log" && fail "error lines in the agent log: $(grep 'level=error' "$SCRATCH/llmon.log" | head -3)"
log "Node Exporter Full, both dcgm-exporter dashboards and the nvidia_gpu_exporter one: every query Prometheus fills, llmon fills (or is a listed gap)"
