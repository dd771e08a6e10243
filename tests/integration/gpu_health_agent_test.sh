#!/usr/bin/env bash
# GPU health and log alerts end to end: the agent with the fake 8x H100 NVML
# (tests/fake_nvml/scenarios/h100x8.json: Xid 79 on GPU 3 at tick 2, Xid 13
# twice on GPU 5), a kmsg file in the real record format with the scenario's
# PCI addresses (Xid lines of two driver generations, a fatal AER error as
# the root port's summary line and the device's detail line,
# SXid, the OOM killer), a training log with a CUDA OOM, the built-in log
# packs and the built-in rule pack, and a real Alertmanager:
#  * health verdicts and actions per GPU (/api/v1/health, llmon health), the
#    Xid seen by NVML and by the kernel log counted once, events naming the GPU;
#  * the pack's GPUUnhealthy and log alerts (LogCudaOutOfMemory,
#    LogKernelOomKill, LogNVSwitchError) reach Alertmanager;
#  * llmon health set-healthy clears a GPU, and the override survives a restart.
# Usage: gpu_health_agent_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"
require_cmd curl || skip "curl not installed"
AM_BIN="$(command -v prometheus-alertmanager || true)"
[[ -n "$AM_BIN" ]] || skip "prometheus-alertmanager not installed (Debian package prometheus-alertmanager)"
FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
[[ -f "$FAKE" ]] || fail "fake NVML not built next to $LLMON (expected $FAKE)"
HOST="$REPO/tests/fixtures/gpu_host"

mkdir -p "$SCRATCH/hooks" "$SCRATCH/logs" "$SCRATCH/am"
start_server hook / python3 "$REPO/tests/integration/webhook_sink.py" @PORT@ "$SCRATCH/hooks"
cat >"$SCRATCH/am/alertmanager.yml" <<EOF
route:
  receiver: hook
  group_by: [alertname, gpu]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: $hook_URL/am
EOF
start_server am /-/ready "$AM_BIN" --config.file="$SCRATCH/am/alertmanager.yml" --storage.path="$SCRATCH/am/data" \
  --web.listen-address=127.0.0.1:@PORT@ --cluster.listen-address=

# The kernel log: one record per line, prio,seq,usec,flags;text.
cat >"$SCRATCH/kmsg" <<'EOF'
4,2001,61000000,-;NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
4,2002,61500000,-;NVRM: Xid (0000:9a:00): 48, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 0.
3,2003,62000000,-;pcieport 0000:16:01.0: AER: Uncorrectable (Fatal) error received: 0000:18:00.0
3,2004,62000100,-;nvidia 0000:18:00.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)
4,2005,62500000,-;nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 30 LTSSM Fault Up
3,2006,63000000,-;Out of memory: Killed process 917 (pt_main_thread) total-vm:1234kB, anon-rss:1000kB, file-rss:0kB
EOF
printf 'step 10 loss 2.31\n' >"$SCRATCH/logs/rank0.log"

export LLMON_FAKE_NVML_SCENARIO="$REPO/tests/fake_nvml/scenarios/h100x8.json"
AGENT_FLAGS=(--collector.disable-defaults --collector.gpu --nvml.library="$FAKE" --path.procfs="$HOST/proc"
  --path.rootfs="$HOST/rootfs" --collector.gpu.hostname=node1 --collect.interval=1s --rules.evaluation-interval=1s
  --alertmanager.url="$am_URL" --logwatch.path="$SCRATCH/logs/*.log" --logwatch.kmsg-path="$SCRATCH/kmsg"
  --logwatch.from-beginning)
start_llmon "${AGENT_FLAGS[@]}"
URL="$llmon_URL"

# verdicts: "gpu:state:action:sources-of-its-xid-evidence" for every GPU.
verdicts() {
  curl -s --max-time 5 "$URL/api/v1/health" | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]
print(" ".join("%s:%s:%s:%s" % (g["gpu"], g["state"], g["action"],
      "+".join(e.get("sources", "") for e in g["evidence"] if e["kind"] == "xid")) for g in d["gpus"]))'
}
WANT="0:unhealthy:reboot: 1:healthy:none: 2:healthy:none: 3:unhealthy:reboot:nvml,kernel 4:unhealthy:reset_gpu:kernel 5:degraded:restart_app:nvml 6:healthy:none: 7:healthy:none:"
verdicts_are() { [[ "$(verdicts)" == "$1" ]]; }
for ((i = 0; i < 100; i++)); do verdicts_are "$WANT" && break || sleep 0.3; done
verdicts_are "$WANT" || fail "verdicts: $(verdicts)"

# Xids counted once: 79 on GPU 3 came from NVML and from the kernel log.
# (GPU 5's second Xid 13 comes at tick 3.)
xids() {
  fetch "$URL/metrics" "$SCRATCH/metrics"
  grep '^llmon_gpu_xid_errors_total' "$SCRATCH/metrics" | sed -E 's/.*gpu="([0-9])".*xid="([0-9]+)"} (.*)/\1:\2=\3/' |
    sort | tr '\n' ' '
}
for ((i = 0; i < 50; i++)); do [[ "$(xids)" == "3:79=1 4:48=1 5:13=2 " ]] && break || sleep 0.3; done
[[ "$(xids)" == "3:79=1 4:48=1 5:13=2 " ]] || fail "llmon_gpu_xid_errors_total: $(xids)"
grep -q '^llmon_gpu_health_state{gpu="0",.*state="unhealthy"} 1$' "$SCRATCH/metrics" || fail "GPU 0 not unhealthy on /metrics"
grep -q '^llmon_gpu_health_action{gpu="4",.*action="reset_gpu"} 1$' "$SCRATCH/metrics" || fail "GPU 4's action on /metrics"
grep -q '^llmon_gpu_health_evidence{gpu="0",.*kind="aer_line"} 1$' "$SCRATCH/metrics" || fail "GPU 0's AER evidence"

# Events of a GPU's PCI address name the GPU.
curl -s "$URL/api/v1/events?rule=xid" | python3 -c '
import json, sys
e = {x["labels"]["xid"]: x["labels"] for x in json.load(sys.stdin)["data"]["events"]}
assert e["79"]["gpu"] == "3" and e["79"]["UUID"] == "GPU-7a25c8e1-d439-0b6f-e812-39c4a7d05f1b", e
assert e["48"]["gpu"] == "4", e' || fail "xid events without their GPU: $(curl -s "$URL/api/v1/events?rule=xid")"

# llmon health: text, exit 1 while a GPU is not healthy.
rc=0
"$LLMON" health --url="$URL" >"$SCRATCH/health.txt" || rc=$?
[[ "$rc" == 1 ]] || fail "llmon health exit $rc with unhealthy GPUs"
grep -q '^GPU 3 .*unhealthy.*action reboot' "$SCRATCH/health.txt" || fail "llmon health: $(cat "$SCRATCH/health.txt")"
grep -q "NVRM: Xid (PCI:0000:5d:00): 79" "$SCRATCH/health.txt" || fail "llmon health shows no kernel line"

# The training log's CUDA OOM, then the pack's alerts at Alertmanager.
printf 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB\n' \
  >>"$SCRATCH/logs/rank0.log"
for a in GPUUnhealthy LogCudaOutOfMemory LogKernelOomKill LogNVSwitchError; do
  wait_for "Alertmanager's webhook for $a" 60 bash -c "grep -q '\"alertname\":\"$a\"' '$SCRATCH/hooks/am.jsonl' 2>/dev/null"
done
python3 - "$SCRATCH/hooks/am.jsonl" <<'EOF' || fail "alert contents: $(head -c 2000 "$SCRATCH/hooks/am.jsonl")"
import json, sys
alerts = [a for line in open(sys.argv[1]) for a in json.loads(line)["alerts"]]
unhealthy = sorted({a["labels"]["gpu"] for a in alerts if a["labels"]["alertname"] == "GPUUnhealthy"})
assert unhealthy == ["0", "3", "4"], unhealthy
oom = [a for a in alerts if a["labels"]["alertname"] == "LogCudaOutOfMemory"][0]
assert oom["labels"]["rule"] == "cuda_oom" and oom["labels"]["severity"] == "critical", oom
assert oom["labels"]["source"].endswith("/logs/rank0.log"), oom
kill = [a for a in alerts if a["labels"]["alertname"] == "LogKernelOomKill"][0]
assert kill["labels"]["source"] == "kmsg", kill
EOF

# The operator's override, kept across a restart.
"$LLMON" health set-healthy 4 --url="$URL" >/dev/null || fail "llmon health set-healthy 4"
[[ "$(verdicts)" == *" 4:healthy:none: "* ]] || fail "GPU 4 after set-healthy: $(verdicts)"
"$LLMON" health set-healthy 42 --url="$URL" >/dev/null 2>&1 && fail "set-healthy of an unknown GPU succeeded"
stop_pid "$llmon_PID"
start_llmon "${AGENT_FLAGS[@]}"
URL="$llmon_URL"
wait_for "GPU 4 listed after the restart" 30 bash -c "curl -s '$URL/api/v1/health' | grep -q '\"gpu\":\"4\"'"
curl -s "$URL/api/v1/health" | python3 -c '
import json, sys
g = {x["gpu"]: x for x in json.load(sys.stdin)["data"]["gpus"]}
assert g["4"]["state"] == "healthy" and g["4"]["set_healthy_ms"] > 0, g["4"]
assert g["0"]["state"] == "unhealthy", g["0"]' || fail "after the restart: $(curl -s "$URL/api/v1/health")"
grep -q 'level=error' "$SCRATCH/llmon.log" && fail "error lines in the agent log: $(grep 'level=error' "$SCRATCH/llmon.log" | head -3)"
log "GPU health end to end: verdicts, Xids once, events with the GPU, pack alerts at Alertmanager, override kept"
