#!/usr/bin/env bash
# --scrape.discover=gpu-processes end to end (docs/scrape.md "Discovery"):
# the fake NVML lists three processes this test starts as the GPUs' users:
#   * a page server (page_server.py) on a fixed port below the ephemeral
#     range, serving a vLLM page at /metrics: it must become a target whose
#     series carry the process's pid and command, so they join
#     llmon_gpu_process_memory_bytes in PromQL;
#   * a plain file server (404 at /metrics): probed, not a target, with the
#     reason in /api/v1/targets' discoveryNotes;
#   * a listener on an ephemeral port (what NCCL's bootstrap looks like):
#     never probed, noted as such; the test checks that it saw no request.
# Usage: scrape_discover_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"

require_cmd python3 || skip "python3 not installed"
FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
[[ -f "$FAKE" ]] || fail "fake NVML not built next to $LLMON (expected $FAKE)"
read -r EPH_LO EPH_HI </proc/sys/net/ipv4/ip_local_port_range

# A port below the ephemeral range that nothing listens on.
low_port() {
  local p i
  for ((i = 0; i < 100; i++)); do
    p=$((20000 + RANDOM % (EPH_LO - 20000)))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  fail "no free port below $EPH_LO"
}

mkdir -p "$SCRATCH/pages" "$SCRATCH/empty"
cp "$REPO/tests/fixtures/scrape/vllm.prom" "$SCRATCH/pages/metrics.prom"
APP_PORT="$(low_port)"
python3 "$REPO/tests/integration/page_server.py" "$SCRATCH/pages" "$APP_PORT" >"$SCRATCH/app.log" 2>&1 &
APP_PID=$!
ITEST_PIDS+=("$APP_PID")
FILES_PORT="$(low_port)"
python3 -m http.server "$FILES_PORT" --bind 127.0.0.1 --directory "$SCRATCH/empty" >"$SCRATCH/files.log" 2>&1 &
FILES_PID=$!
ITEST_PIDS+=("$FILES_PID")
# An ephemeral-port listener that records any connection it gets.
python3 - "$SCRATCH/eph_port" "$SCRATCH/eph_hits" >"$SCRATCH/eph.log" 2>&1 <<'PY' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept()
    open(sys.argv[2], "a").write("hit\n")
    c.close()
PY
EPH_PID=$!
ITEST_PIDS+=("$EPH_PID")
wait_for "the three listeners" 10 bash -c "curl -s -o /dev/null http://127.0.0.1:$APP_PORT/metrics && curl -s -o /dev/null http://127.0.0.1:$FILES_PORT/ && test -s '$SCRATCH/eph_port'"

python3 - "$REPO/tests/fake_nvml/scenarios/h100x8.json" "$SCRATCH/scenario.json" "$APP_PID" "$FILES_PID" "$EPH_PID" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for i, dev in enumerate(d["devices"]):
    dev["processes"] = []
for i, pid in enumerate(sys.argv[3:]):
    d["devices"][i]["processes"] = [{"pid": int(pid), "type": "C", "used_memory": 1 << 30}]
json.dump(d, open(sys.argv[2], "w"))
PY
export LLMON_FAKE_NVML_SCENARIO="$SCRATCH/scenario.json"
start_llmon --collector.disable-defaults --collector.gpu --nvml.library="$FAKE" --collect.interval=1s \
  --scrape.discover=gpu-processes --logwatch.enabled=false --log.level=warn

# json URL PYTHON_EXPR: eval(PYTHON_EXPR) on the JSON answer as d.
json() {
  curl -s --max-time 5 -G "$1" ${3:+--data-urlencode "$3"} | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(eval(sys.argv[1]))' "$2"
}
targets_up() {
  [[ "$(json "$llmon_URL/api/v1/targets" '",".join(t["health"] for t in d["data"]["activeTargets"])')" == up ]]
}
wait_for "the discovered target to be scraped" 60 targets_up
T="$(json "$llmon_URL/api/v1/targets" 'd["data"]["activeTargets"][0]["labels"]')"
log "target: $T"
[[ "$T" == *"'pid': '$APP_PID'"* && "$T" == *"'command': 'python3'"* && "$T" == *"'job': 'gpu-processes'"* &&
  "$T" == *"'instance': '127.0.0.1:$APP_PORT'"* ]] || fail "target labels: $T"
NOTES="$(json "$llmon_URL/api/v1/targets" '"\n".join(d["data"]["discoveryNotes"])')"
log "notes: $NOTES"
[[ "$NOTES" == *"pid $FILES_PID (python3) 127.0.0.1:$FILES_PORT: GET /metrics: server returned HTTP status 404"* ]] ||
  fail "no note on the file server"
EPH_PORT="$(cat "$SCRATCH/eph_port")"
[[ "$NOTES" == *"pid $EPH_PID (python3) 127.0.0.1:$EPH_PORT: an ephemeral port"* ]] || fail "no note on the ephemeral port"
[[ ! -s "$SCRATCH/eph_hits" ]] || fail "the ephemeral-port listener was probed"

# The application's series join the GPU process series of the same pid.
JOIN='vllm:num_requests_running * on(pid) group_left(gpu) (llmon_gpu_process_memory_bytes > 0)'
got() { [[ "$(json "$llmon_URL/api/v1/query" 'len(d["data"]["result"])' "query=$JOIN")" == 1 ]]; }
wait_for "the join of application and GPU series" 30 got
log "join: $(json "$llmon_URL/api/v1/query" 'd["data"]["result"][0]["metric"]' "query=$JOIN")"

# `llmon snapshot` finds the same process's page, and shows its numbers next to its GPU.
"$LLMON" snapshot --collector.disable-defaults --collector.gpu --nvml.library="$FAKE" \
  --scrape.discover=gpu-processes --json >"$SCRATCH/snap.json" 2>"$SCRATCH/snap.err" ||
  fail "llmon snapshot failed: $(cat "$SCRATCH/snap.err")"
python3 - "$SCRATCH/snap.json" "$APP_PID" <<'PY' || fail "llmon snapshot --json: no vLLM application on GPU 0 (above)"
import json, sys
apps = json.load(open(sys.argv[1]))["applications"]
print(apps, file=sys.stderr)
assert len(apps) == 1, apps
a = apps[0]
assert a["pid"] == sys.argv[2] and a["engine"] == "vllm" and a["health"] == "up", a
assert a["gpus"] == ["0"] and a["gpu_memory_bytes"]["0"] == 1 << 30, a
assert a["values"]["running"] == 3 and "ttft_p50" in a["values"], a
PY
"$LLMON" snapshot --collector.disable-defaults --collector.gpu --nvml.library="$FAKE" \
  --scrape.discover=gpu-processes >"$SCRATCH/snap.txt" 2>&1 || fail "llmon snapshot (text) failed"
grep -A1 "gpu-processes .*vllm .*$APP_PID up .*running 3" "$SCRATCH/snap.txt" | grep -q "on GPU 0 .*this process 1.0 GiB" ||
  fail "llmon snapshot's APPS section: $(sed -n '/^APPS/,$p' "$SCRATCH/snap.txt")"
log "llmon snapshot: $(grep -A1 "gpu-processes" "$SCRATCH/snap.txt" | tr -s ' ')"

# The process exits: its target goes away and its series go stale.
stop_pid "$APP_PID"
gone() { [[ "$(json "$llmon_URL/api/v1/query" 'len(d["data"]["result"])' 'query=vllm:num_requests_running')" == 0 ]]; }
wait_for "the series of the exited process to go stale" 40 gone
log "discovery found the GPU process's page, skipped the others with reasons, and followed its exit"
