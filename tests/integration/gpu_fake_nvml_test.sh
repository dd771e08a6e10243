#!/usr/bin/env bash
# The real agent loads the fake libnvidia-ml.so.1 built from tests/fake_nvml
# (--nvml.library), driven by scenario files, and its /metrics page is
# compared with golden files (tests/golden/gpu_*.txt; values that change
# from tick to tick are masked by gpu_golden.py):
#   h100x8      8x H100 training node: dcgm-exporter families, per-process and
#               per-container attribution on the tests/fixtures/gpu_host tree,
#               Xid counters
#   h100x8_smi  the same node under nvidia_gpu_exporter's nvidia_smi_* names,
#               and the seeds' alert rule for that exporter through
#               `llmon rules test` and `promtool test rules`
#   a100_mig    MIG instances (GPU_I_PROFILE / GPU_I_ID), processes per instance
#   legacy      the older-driver symbol set (no _v2/_v3 entry points)
#   r535_stride the current symbol set with R535's 32-byte process entries
# and the hosts without NVIDIA: no library, driver not loaded, zero GPUs.
# Usage: gpu_fake_nvml_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"
require_cmd curl || skip "curl not installed"

FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
LEGACY="$(dirname "$LLMON")/fake_nvml/legacy/libnvidia-ml.so.1"
[[ -f "$FAKE" && -f "$LEGACY" ]] || fail "fake NVML not built next to $LLMON (expected $FAKE and $LEGACY)"
SCEN="$REPO/tests/fake_nvml/scenarios"
HOST="$REPO/tests/fixtures/gpu_host"
GOLDEN="$REPO/tests/golden"

# wait_for URL PYTHON_CONDITION: polls the page until the condition on its
# text (variable `t`) holds; 30 s at most.
wait_for() {
  local url="$1" cond="$2" i
  for ((i = 0; i < 60; i++)); do
    if curl -s --max-time 5 "$url/metrics" | python3 -c "import sys; t = sys.stdin.read(); sys.exit(0 if ($cond) else 1)"; then
      return 0
    fi
    sleep 0.5
  done
  fail "condition not met within 30 s: $cond"
}

# wait_ticks FILE N: waits (30 s at most) until the fake's call log says it
# has reached tick N (the scenarios settle by tick 2; rates need two cycles and
# the event watcher registers after the first).
wait_ticks() {
  local i ticks
  for ((i = 0; i < 60; i++)); do
    ticks="$(awk '$1 == "ticks" {print $2}' "$1" 2>/dev/null)"
    [[ -n "$ticks" && "$ticks" -ge "$2" ]] && return 0
    sleep 0.5
  done
  fail "the fake NVML did not reach tick $2 within 30 s (call log $1)"
}

# golden_run NAME LIBRARY SCENARIO READY_CONDITION [agent flags...]
golden_run() {
  local name="$1" lib="$2" scen="$3" cond="$4"
  shift 4
  export LLMON_FAKE_NVML_SCENARIO="$scen"
  export LLMON_FAKE_NVML_CALL_LOG="$SCRATCH/calls.$name"
  start_llmon --collector.disable-defaults --collector.gpu --nvml.library="$lib" \
    --path.procfs="$HOST/proc" --path.rootfs="$HOST/rootfs" --collector.gpu.hostname=node1 "$@"
  wait_ticks "$SCRATCH/calls.$name" 4
  wait_for "$llmon_URL" "$cond"
  fetch "$llmon_URL/metrics" "$SCRATCH/$name.a"
  sleep 1.2
  fetch "$llmon_URL/metrics" "$SCRATCH/$name.b"
  stop_pid "$llmon_PID"
  python3 "$REPO/tests/integration/gpu_golden.py" "$SCRATCH/$name.a" "$SCRATCH/$name.b" "$GOLDEN/gpu_$name.txt" ||
    fail "$name: /metrics differs from tests/golden/gpu_$name.txt (LLMON_UPDATE_GOLDEN=1 rewrites it)"
  grep -q 'level=error' "$SCRATCH/llmon.log" && fail "$name: error lines in the agent log: $(grep 'level=error' "$SCRATCH/llmon.log" | head -3)"
  return 0
}

# 1. 8x H100: ready once GPU 5 has seen both of its Xid 13 events (tick 3).
golden_run h100x8 "$FAKE" "$SCEN/h100x8.json" \
  "'xid=\"13\"} 2' in t"

# promtool on the 8-GPU page: no format error; the only lint problems are the
# ones dcgm-exporter's own names carry (camelCase label names modelName/UUID,
# DCGM counters without _total, "COUNTER" in DCGM_FI_DEV_PCIE_REPLAY_COUNTER).
if require_cmd promtool; then
  promtool check metrics <"$SCRATCH/h100x8.a" >"$SCRATCH/promtool.txt" 2>&1
  other="$(grep -vE "label names should be written in 'snake_case' not 'camelCase'|^DCGM_FI_[A-Z0-9_]+ (counter metrics should have \"_total\" suffix|metric name should not include type 'counter')" "$SCRATCH/promtool.txt")"
  [[ -z "$other" ]] || fail "promtool check metrics on the GPU page: $other"
  log "promtool: only dcgm-exporter's own naming lint on the GPU page"
fi

# 1b. The nvidia_smi name set alone (--collector.gpu.names=nvidia_smi:
#     utkuozdemir/nvidia_gpu_exporter's nvidia_smi_* families, `uuid` label):
#     golden page, and no DCGM family on it.
golden_run h100x8_smi "$FAKE" "$SCEN/h100x8.json" "'xid=\"13\"} 2' in t" --collector.gpu.names=nvidia_smi
grep -q '^DCGM_FI_' "$SCRATCH/h100x8_smi.a" && fail "h100x8_smi: DCGM families with --collector.gpu.names=nvidia_smi"

# 1c. The seeds' alert rule for that exporter, through `llmon rules test` and
#     `promtool test rules`, on the values of the page above as Prometheus
#     would store them from a job "chatglm-training". The seed names
#     nvidia_smi_utilization_gpu, which the exporter never exposed (its name
#     is nvidia_smi_utilization_gpu_ratio, 0-1: docs/metrics.md): the seed as
#     written stays silent on both tools; the same rule on the real name fires
#     exactly when a node's average utilisation is above 90 %: node1 has the
#     page's values, node2 is idle, node3 has every GPU at the page's busiest.
mkdir -p "$SCRATCH/seed"
python3 - "$SCRATCH/h100x8_smi.a" "$SCRATCH/seed" <<'PY' || fail "could not build the seed rule test from the page"
import re, sys
page, out = sys.argv[1], sys.argv[2]
vals = [float(m.group(2)) for m in re.finditer(r'^nvidia_smi_utilization_gpu_ratio\{uuid="([^"]+)"\} (\S+)$', open(page).read(), re.M)]
if len(vals) != 8:
    sys.exit("expected 8 nvidia_smi_utilization_gpu_ratio series, got %d" % len(vals))
avg = sum(vals) / len(vals)
fires = avg * 100 > 90
uuids = re.findall(r'^nvidia_smi_utilization_gpu_ratio\{uuid="([^"]+)"\}', open(page).read(), re.M)
with open(out + "/seed.yml", "w") as f:
    f.write("""groups:
  - name: seed
    rules:
      - alert: GPUHighUtilizationAsSeeded
        expr: avg(nvidia_smi_utilization_gpu{job="chatglm-training"}) by (instance) > 90
        for: 1m
      - alert: GPUHighUtilization
        expr: avg(nvidia_smi_utilization_gpu_ratio{job="chatglm-training"}) by (instance) * 100 > 90
        for: 1m
""")
series = "".join("""      - series: 'nvidia_smi_utilization_gpu_ratio{instance="node1:9835",job="chatglm-training",uuid="%s"}'
        values: '%rx10'
""" % (u, v) for u, v in zip(uuids, vals))
# node2 idle (never fires), node3 with every GPU at the page's busiest value.
series += "".join("""      - series: 'nvidia_smi_utilization_gpu_ratio{instance="node2:9835",job="chatglm-training",uuid="%s"}'
        values: '0.05x10'
""" % u for u in uuids)
series += "".join("""      - series: 'nvidia_smi_utilization_gpu_ratio{instance="node3:9835",job="chatglm-training",uuid="%s"}'
        values: '%rx10'
""" % (u, max(vals)) for u in uuids)
firing = ["node1:9835"] if fires else []
if max(vals) * 100 > 90:
    firing.append("node3:9835")
if not firing:
    sys.exit("the page has no GPU above 90 %%: the test would not exercise a firing alert (max %r)" % max(vals))
expected = "".join("""
          - exp_labels: {alertname: GPUHighUtilization, instance: "%s"}""" % i for i in firing)
with open(out + "/seed.test.yml", "w") as f:
    f.write("""rule_files: [seed.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
%s    alert_rule_test:
      - eval_time: 5m
        alertname: GPUHighUtilizationAsSeeded
        exp_alerts: []
      - eval_time: 5m
        alertname: GPUHighUtilization
        exp_alerts: %s
""" % (series, expected))
print("node1 average utilisation %.4f; GPUHighUtilization fires for %s" % (avg, ", ".join(firing)))
PY
"$LLMON" rules test "$SCRATCH/seed/seed.test.yml" >"$SCRATCH/seed/llmon.out" 2>&1 ||
  fail "llmon rules test on the seed rule: $(cat "$SCRATCH/seed/llmon.out")"
if require_cmd promtool; then
  promtool test rules "$SCRATCH/seed/seed.test.yml" >"$SCRATCH/seed/promtool.out" 2>&1 ||
    fail "promtool test rules on the seed rule: $(cat "$SCRATCH/seed/promtool.out")"
fi
log "seed rule: llmon rules test and promtool agree on the nvidia_smi page"

# 2. MIG.
golden_run a100_mig "$FAKE" "$SCEN/a100_mig.json" "'GPU_I_PROFILE' in t and 'llmon_gpu_process_memory_bytes' in t"

# 3. Older driver: no versioned symbols, 32-byte process entries.
golden_run legacy "$LEGACY" "$SCEN/legacy_r535.json" "'llmon_gpu_process_memory_bytes' in t"

# 4. Current driver, R535-style 32-byte process entries through the _v3 calls.
golden_run r535_stride "$FAKE" "$SCEN/legacy_r535.json" "'llmon_gpu_process_memory_bytes' in t"
grep -q 'process entry stride detected.*bytes=32' "$SCRATCH/llmon.log" || fail "r535_stride: 32-byte stride not detected"

# 5. Hosts without a usable NVIDIA stack: backend down with the reason, the
#    rest of the agent (here: the time collector) unaffected, one info line.
check_down() {
  local name="$1" lib="$2" scen="$3" want="$4"
  export LLMON_FAKE_NVML_SCENARIO="$scen"
  start_llmon --collector.disable-defaults --collector.gpu --collector.time --nvml.library="$lib" \
    --path.procfs="$HOST/proc"
  sleep 2.2
  fetch "$llmon_URL/metrics" "$SCRATCH/$name.prom"
  stop_pid "$llmon_PID"
  python3 - "$SCRATCH/$name.prom" "$want" <<'PY' || fail "$name: unexpected page (see above)"
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r'^llmon_gpu_backend_up\{backend="nvml",reason="([^"]*)"\} (\S+)$', t, re.M)
ok = True
if not m:
    print("no llmon_gpu_backend_up line"); ok = False
elif sys.argv[2] == "zero-gpus":
    ok = m.group(2) == "1" and re.search(r'^llmon_gpu_devices\{backend="nvml"\} 0$', t, re.M) is not None
    ok = ok and "DCGM_FI_" not in t
else:
    ok = m.group(2) == "0" and sys.argv[2] in m.group(1) and "DCGM_FI_" not in t
if 'node_scrape_collector_success{collector="gpu"} 1' not in t:
    print("gpu collector reported failure"); ok = False
if "node_time_seconds " not in t:
    print("node_time_seconds missing"); ok = False
if not ok:
    print(t[:3000])
sys.exit(0 if ok else 1)
PY
  local infos
  infos="$(grep -c 'NVIDIA GPU metrics off' "$SCRATCH/llmon.log")"
  [[ "$infos" == 1 ]] || fail "$name: expected one 'GPU metrics off' line in the log, got $infos"
  grep -qE 'level=(warn|error)' "$SCRATCH/llmon.log" && fail "$name: warnings in the log: $(grep -E 'level=(warn|error)' "$SCRATCH/llmon.log" | head -3)"
  log "$name: backend down as expected"
}
check_down no_library "$SCRATCH/does-not-exist/libnvidia-ml.so.1" "" "cannot load"
check_down driver_not_loaded "$FAKE" "$SCEN/init_error.json" "nvmlInit"

# Zero GPUs: up, 0 devices, no device series.
export LLMON_FAKE_NVML_SCENARIO="$SCEN/no_gpus.json"
start_llmon --collector.disable-defaults --collector.gpu --collector.time --nvml.library="$FAKE" --path.procfs="$HOST/proc"
sleep 2.2
fetch "$llmon_URL/metrics" "$SCRATCH/zero.prom"
stop_pid "$llmon_PID"
grep -q '^llmon_gpu_devices{backend="nvml"} 0$' "$SCRATCH/zero.prom" || fail "zero GPUs: llmon_gpu_devices 0 missing"
grep -q '^DCGM_FI_' "$SCRATCH/zero.prom" && fail "zero GPUs: device series present"
log "all GPU scenarios pass"
