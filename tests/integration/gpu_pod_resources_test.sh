#!/usr/bin/env bash
# GPU to pod mapping through the kubelet's pod-resources API (docs/kubernetes.md):
# the agent with the fake 8x H100 NVML (h100x8, GPU 3's processes removed, so
# GPU 3 is idle) and gRPC's own Python server (tests/tools/pod_resources_server.py,
# python3-grpcio) on a Unix socket in the scratch dir:
#  * GPU 3, held by the pod idle-notebook with no process on it, carries that pod
#    on every per-GPU family; GPUs 0 and 1 the training pod (kubelet), GPU 2 the
#    training pod too (its process's cgroup: the kubelet does not list it), GPU 6
#    (processes of two containers) none;
#  * a changed allocation is followed on the next cycles;
#  * the server gone with a socket file left: broken, reported once with the
#    path, llmon_kubelet_pod_resources_up 0, cgroups used; the file removed:
#    missing, quiet, the gauge gone;
#  * MIG (a100_mig): an idle 1g.10gb instance allocated as nvidia.com/mig-1g.10gb
#    by its MIG UUID carries its pod on its framebuffer series, its GPU does not.
# Usage: gpu_pod_resources_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"
PY=""
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import grpc, google.protobuf, grpc_tools.protoc' 2>/dev/null; then PY="$p"; break; fi
done
[[ -n "$PY" ]] || skip "no python3 with grpc, protobuf and grpc_tools (python3-grpcio python3-protobuf python3-grpc-tools)"
FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
[[ -f "$FAKE" ]] || fail "fake NVML not built next to $LLMON (expected $FAKE)"
HOST="$REPO/tests/fixtures/gpu_host"
GPU0=GPU-4f6c2a1e-9b3d-7e85-0c14-a2d8f61b93e7
GPU1=GPU-b81d05c3-2e7a-4f69-d3a0-5c9e17b4826f
GPU3=GPU-7a25c8e1-d439-0b6f-e812-39c4a7d05f1b

# The scenario with GPU 3 idle.
"$PY" - "$REPO/tests/fake_nvml/scenarios/h100x8.json" "$SCRATCH/scenario.json" <<'PY' || fail "cannot write the scenario"
import json, sys
s = json.load(open(sys.argv[1]))
s["devices"][3]["processes"] = []
json.dump(s, open(sys.argv[2], "w"))
PY

# pods HOLDER_OF_GPU3: the kubelet's allocations (the server rereads the file per call).
pods() {
  printf '%s\n' "[{\"name\": \"llama-train-0\", \"namespace\": \"research\", \"containers\": [
   {\"name\": \"trainer\", \"cpu_ids\": [2, 3], \"devices\": [{\"resource_name\": \"nvidia.com/gpu\", \"device_ids\": [\"$GPU0\", \"$GPU1\"]}]}]},
 {\"name\": \"$1\", \"namespace\": \"team-a\", \"containers\": [
   {\"name\": \"jupyter\", \"devices\": [{\"resource_name\": \"nvidia.com/gpu\", \"device_ids\": [\"$GPU3\"]}]}]},
 {\"name\": \"coredns\", \"namespace\": \"kube-system\", \"containers\": [{\"name\": \"coredns\"}]}]" >"$SCRATCH/pods.json.new"
  mv "$SCRATCH/pods.json.new" "$SCRATCH/pods.json"
}
pods idle-notebook

SOCK_DIR="$SCRATCH/pod-resources"
SOCK="$SOCK_DIR/kubelet.sock"
mkdir -p "$SOCK_DIR"
"$PY" "$REPO/tests/tools/pod_resources_server.py" "$SOCK" "$SCRATCH/pods.json" --ready "$SCRATCH/server.ready" \
  >"$SCRATCH/server.log" 2>&1 &
SERVER_PID=$!
ITEST_PIDS+=("$SERVER_PID")
for ((i = 0; i < 150; i++)); do
  [[ -f "$SCRATCH/server.ready" ]] && break
  sleep 0.1
done
[[ -f "$SCRATCH/server.ready" && -S "$SOCK" ]] || fail "the gRPC server did not start: $(cat "$SCRATCH/server.log")"
log "gRPC pod-resources server on $SOCK (pid $SERVER_PID)"

export LLMON_FAKE_NVML_SCENARIO="$SCRATCH/scenario.json"
start_llmon --collector.disable-defaults --collector.gpu --nvml.library="$FAKE" --path.procfs="$HOST/proc" \
  --path.rootfs="$HOST/rootfs" --collector.gpu.hostname=node1 --collect.interval=1s \
  --collector.gpu.pod-resources-socket="$SOCK"

# page_check PYTHON_CONDITION: evaluated over the page's series, `s` (name ->
# list of label dicts, the value as "__value__"), with gpu(name, index) and
# holder(index) = (namespace, pod, container) of DCGM_FI_DEV_GPU_UTIL.
page_check() {
  curl -s --max-time 5 "$llmon_URL/metrics" >"$SCRATCH/page.txt" || return 1
  "$PY" - "$SCRATCH/page.txt" "$1" <<'PY'
import re, sys
s = {}
for line in open(sys.argv[1]):
    m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)$', line.strip())
    if m:
        labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(2)))
        labels["__value__"] = m.group(3)
        s.setdefault(m.group(1), []).append(labels)
def gpu(name, g):
    return [l for l in s.get(name, []) if l.get("gpu") == g]
def holder(g):
    rows = gpu("DCGM_FI_DEV_GPU_UTIL", g)
    return (rows[0].get("namespace"), rows[0].get("pod"), rows[0].get("container")) if rows else None
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
wait_page() {  # wait_page DESC CONDITION
  local i
  for ((i = 0; i < 60; i++)); do
    page_check "$2" && return 0
    sleep 0.5
  done
  fail "$1: not seen within 30 s; page: $(grep -E '^(DCGM_FI_DEV_GPU_UTIL|llmon_kubelet)' "$SCRATCH/page.txt" | head -12)"
}

TRAIN='("research", "llama-train-0", "trainer")'
wait_page "GPU 3 attributed to idle-notebook" 'holder("3") == ("team-a", "idle-notebook", "jupyter")'
page_check "holder('0') == holder('1') == $TRAIN" || fail "GPUs 0 and 1 are not the training pod's"
page_check "holder('2') == $TRAIN" || fail "GPU 2 is not attributed by its process's cgroup"
page_check 'holder("6") == ("", "", "")' || fail "GPU 6 (processes of two containers) is attributed"
page_check 'gpu("llmon_gpu_processes", "3")[0]["__value__"] == "0" and gpu("llmon_gpu_processes", "3")[0]["pod"] == "idle-notebook"' ||
  fail "GPU 3 should show no process and its pod"
# (the event watcher's families come after its first cycles: waited for)
wait_page "every per-GPU family of GPU 3 names its pod" 'all(gpu(n, "3") and all(l.get("pod") == "idle-notebook" for l in gpu(n, "3")) for n in ("llmon_gpu_up", "llmon_gpu_info", "DCGM_FI_DEV_FB_USED", "llmon_gpu_clock_event_reason_active", "DCGM_FI_DEV_XID_ERRORS", "llmon_gpu_health_state"))'
page_check "[l['__value__'] for l in s['llmon_kubelet_pod_resources_up'] if l['path'] == '$SOCK'] == ['1']" ||
  fail "llmon_kubelet_pod_resources_up is not 1"
page_check 'all(l.get("namespace") == "research" and l.get("pid") for l in gpu("llmon_gpu_process_memory_bytes", "0"))' ||
  fail "the process series lost their own labels"
# promtool: no format error (a label given twice, a bad name); only dcgm-exporter's own naming lint.
if require_cmd promtool; then
  promtool check metrics <"$SCRATCH/page.txt" >"$SCRATCH/promtool.txt" 2>&1
  other="$(grep -vE "label names should be written in 'snake_case' not 'camelCase'|^DCGM_FI_[A-Z0-9_]+ (counter metrics should have \"_total\" suffix|metric name should not include type 'counter')" "$SCRATCH/promtool.txt")"
  [[ -z "$other" ]] || fail "promtool check metrics: $other"
fi
log "GPU 3 (no process) is idle-notebook's; 0 and 1 by the kubelet, 2 by cgroup, 6 nobody's"

pods other-notebook
wait_page "GPU 3 moved to other-notebook" 'holder("3") == ("team-a", "other-notebook", "jupyter")'
log "a changed allocation is followed"

# The kubelet goes away and a socket file stays behind (as after a crash): broken.
stop_pid "$SERVER_PID"
if [[ ! -S "$SOCK" ]]; then
  "$PY" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$SOCK"
fi
wait_page "the broken socket reported" "[l['__value__'] for l in s.get('llmon_kubelet_pod_resources_up', [])] == ['0'] and holder('3') == ('', '', '') and holder('2') == $TRAIN"
sleep 2.2
n="$(grep -c 'kubelet pod-resources socket is not usable' "$SCRATCH/llmon.log")"
[[ "$n" -eq 1 ]] || fail "want the broken socket logged once, got $n: $(grep pod-resources "$SCRATCH/llmon.log")"
grep 'kubelet pod-resources socket is not usable' "$SCRATCH/llmon.log" | grep -qF "path=$SOCK" ||
  fail "the log line does not name the path: $(grep pod-resources "$SCRATCH/llmon.log")"
log "a dead socket is reported once with its path; cgroups meanwhile"

rm -f "$SOCK"
wait_page "a missing socket is quiet" "'llmon_kubelet_pod_resources_up' not in s and holder('0') == $TRAIN"
sleep 1.2
n="$(grep -c 'pod-resources' "$SCRATCH/llmon.log")"
[[ "$n" -eq 1 ]] || fail "a missing socket was logged: $(grep pod-resources "$SCRATCH/llmon.log")"
cp "$SCRATCH/llmon.log" "$SCRATCH/llmon.first.log"
if grep -q 'level=error' "$SCRATCH/llmon.log"; then fail "error lines in the agent log: $(grep 'level=error' "$SCRATCH/llmon.log" | head -3)"; fi
stop_pid "$llmon_PID"
log "a missing socket is quiet; the gauge is gone"

# MIG: the kubelet names MIG devices by their MIG UUIDs.
printf '%s\n' '[{"name": "mig-job", "namespace": "ml", "containers": [{"name": "worker", "devices": [
  {"resource_name": "nvidia.com/mig-1g.10gb", "device_ids": ["MIG-6d14e8b0-c527-5f93-8a0d-2b7c95e3f416"]}]}]}]' >"$SCRATCH/pods.json"
rm -f "$SCRATCH/server.ready"
"$PY" "$REPO/tests/tools/pod_resources_server.py" "$SOCK" "$SCRATCH/pods.json" --ready "$SCRATCH/server.ready" \
  >"$SCRATCH/server2.log" 2>&1 &
ITEST_PIDS+=("$!")
for ((i = 0; i < 150; i++)); do
  [[ -f "$SCRATCH/server.ready" ]] && break
  sleep 0.1
done
[[ -S "$SOCK" ]] || fail "the gRPC server did not start again: $(cat "$SCRATCH/server2.log")"
export LLMON_FAKE_NVML_SCENARIO="$REPO/tests/fake_nvml/scenarios/a100_mig.json"
start_llmon --collector.disable-defaults --collector.gpu --nvml.library="$FAKE" --path.procfs="$HOST/proc" \
  --path.rootfs="$HOST/rootfs" --collector.gpu.hostname=node1 --collect.interval=1s \
  --collector.gpu.pod-resources-socket="$SOCK"
wait_page "the MIG instance 13 attributed" '[l.get("pod") for l in gpu("DCGM_FI_DEV_FB_USED", "0") if l.get("GPU_I_ID") == "13"] == ["mig-job"]'
page_check '[(l.get("namespace"), l.get("container")) for l in gpu("DCGM_FI_DEV_FB_USED", "0") if l.get("GPU_I_ID") == "13"] == [("ml", "worker")] and [l.get("pod") for l in gpu("DCGM_FI_DEV_FB_USED", "0") if "GPU_I_ID" not in l] == [""]' ||
  fail "the MIG instance's labels, or its GPU's: $(grep '^DCGM_FI_DEV_FB_USED{gpu="0"' "$SCRATCH/page.txt")"
log "a MIG instance is attributed by its MIG UUID"
log "GPU pod attribution through the kubelet's pod-resources API passes"
