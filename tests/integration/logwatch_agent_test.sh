#!/usr/bin/env bash
# Log watching in the agent, end to end with real parts: `llmon agent` tails
# a glob of training logs and a kmsg-format file (--logwatch.kmsg-path), with
# a rule file of its own. Checks: lines become events (/api/v1/events and its
# filters, `llmon events` from the API and from the journal directory) and
# stored counters (llmon_log_matches_total with job and instance, queried
# through the Prometheus API); an alert on the counter fires at a real
# Alertmanager 0.25, which forwards it to a webhook; binary garbage does not
# stop the tailer; a kill -9 while lines are written loses and repeats none
# (event ids unique, every matching line once).
# Usage: logwatch_agent_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL/PORT/PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"
AM_BIN="$(command -v prometheus-alertmanager || true)"
[[ -n "$AM_BIN" ]] || skip "prometheus-alertmanager not installed (Debian package prometheus-alertmanager)"

# --- A webhook receiver: every POST body appended as one line to $SCRATCH/hooks/<path>.jsonl.
mkdir -p "$SCRATCH/hooks" "$SCRATCH/logs"
start_server hook / python3 "$REPO/tests/integration/webhook_sink.py" @PORT@ "$SCRATCH/hooks"
mkdir -p "$SCRATCH/am"
cat >"$SCRATCH/am/alertmanager.yml" <<EOF
route:
  receiver: hook
  group_by: [alertname]
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

cat >"$SCRATCH/logrules.yml" <<'EOF'
rules:
  - name: cuda_oom
    regex: 'CUDA out of memory\. Tried to allocate (?P<size>[0-9.]+ [GMK]iB)'
    severity: error
    source: files
  - name: itest_step
    regex: '^step (?P<step>\d+) '
    severity: info
    source: files
  - name: xid
    regex: 'NVRM: Xid \(PCI:(?P<pci>[0-9a-fA-F:.]+)\): (?P<xid>\d+)'
    severity: critical
    source: kmsg
    counter_labels: [xid]
EOF
mkdir -p "$SCRATCH/rules"
cat >"$SCRATCH/rules/logs.yml" <<'EOF'
groups:
  - name: itest-logs
    interval: 1s
    rules:
      - alert: ItestCudaOOM
        # A file's first match can be the counter's first sample: increase()
        # needs two, so a series that did not exist a minute ago counts too.
        expr: |
          (increase(llmon_log_matches_total{rule="cuda_oom"}[1m]) > 0)
          or
          (llmon_log_matches_total{rule="cuda_oom"} > 0 unless llmon_log_matches_total{rule="cuda_oom"} offset 1m)
        labels:
          severity: critical
        annotations:
          summary: "CUDA out of memory in {{ $labels.source }}"
EOF
: >"$SCRATCH/kmsg"
AGENT_FLAGS=(--collector.disable-defaults --collector.time --collect.interval=1s --rules.defaults=false
  --rules.evaluation-interval=1s --rules.file="$SCRATCH/rules" --alertmanager.url="$am_URL"
  --logwatch.path="$SCRATCH/logs/*.log" --logwatch.kmsg-path="$SCRATCH/kmsg" --logwatch.rules="$SCRATCH/logrules.yml"
  --logwatch.default-rules=false --log.level=info)
start_llmon "${AGENT_FLAGS[@]}"
URL="$llmon_URL"

event_count() {  # event_count QUERY -> number of events /api/v1/events answers
  curl -s --max-time 5 "$URL/api/v1/events?limit=10000&$1" |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]["events"]))'
}
events_are() { [[ "$(event_count "$1")" == "$2" ]]; }

# 1. A file created after the start is read from its beginning; the kernel log as it grows.
printf 'step 1 loss 2.31\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0)\n' \
  >>"$SCRATCH/logs/train-0.log"
printf '4,1,1000,-;NVRM: Xid (PCI:0000:9a:00): 79, pid=1234, GPU has fallen off the bus.\n' >>"$SCRATCH/kmsg"
wait_for "two events" 20 events_are "" 3
events_are "rule=cuda_oom" 1 || fail "rule filter"
events_are "severity=critical" 1 || fail "severity filter"
events_are "source=kmsg" 1 || fail "source filter"
events_are "source=$SCRATCH/logs/*.log" 2 || fail "source glob filter"
code="$(http_status "$URL/api/v1/events?severity=loud")"
[[ "$code" == 400 ]] || fail "a bad severity answered $code"

# 2. `llmon events`: text from the API, JSON, and the journal read directly.
"$LLMON" events --url="$URL" --rule=cuda_oom >"$SCRATCH/events.txt" || fail "llmon events failed"
grep -q 'error     cuda_oom' "$SCRATCH/events.txt" || fail "llmon events text: $(cat "$SCRATCH/events.txt")"
grep -q '    torch.OutOfMemoryError: CUDA out of memory' "$SCRATCH/events.txt" || fail "no log line shown"
"$LLMON" events --url="$URL" --json --severity=critical | python3 -c '
import json, sys
e = json.load(sys.stdin)["data"]["events"]
assert len(e) == 1 and e[0]["rule"] == "xid" and e[0]["labels"] == {"pci": "0000:9a:00", "xid": "79"}, e
assert e[0]["time"].endswith("Z"), e' || fail "llmon events --json"
"$LLMON" events --events.path="$SCRATCH/llmon-data/events" --source=kmsg >"$SCRATCH/local.txt" ||
  fail "llmon events --events.path failed"
grep -q 'critical  xid  kmsg  pci=0000:9a:00,xid=79' "$SCRATCH/local.txt" || fail "local read: $(cat "$SCRATCH/local.txt")"
"$LLMON" events --url="http://127.0.0.1:1" >/dev/null 2>&1 && fail "llmon events against no agent succeeded"

# 3. The counters are stored like every series, with the agent's job and instance.
stored() {
  curl -s --max-time 5 "$URL/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(" ".join(sorted("%s=%s" % (s["metric"].get(sys.argv[1], ""), s["value"][1]) for s in r)))' "$2"
}
wait_for "the stored OOM counter" 20 bash -c "[[ \"\$(curl -s '$URL/api/v1/query' --data-urlencode 'query=llmon_log_matches_total{rule=\"cuda_oom\",job=\"llmon\"}')\" == *'\"1\"'* ]]"
[[ "$(stored 'llmon_log_matches_total{rule="xid"}' xid)" == "79=1" ]] || fail "xid counter: $(stored 'llmon_log_matches_total{rule="xid"}' xid)"
[[ "$(stored 'llmon_kmsg_reader_up' job)" == "llmon=1" ]] || fail "kmsg reader not up"

# 4. The alert on the counter reaches Alertmanager and its webhook.
wait_for "Alertmanager holds ItestCudaOOM" 40 bash -c "curl -s '$am_URL/api/v2/alerts' | grep -q ItestCudaOOM"
wait_for "Alertmanager's webhook notification" 30 bash -c "grep -q ItestCudaOOM '$SCRATCH/hooks/am.jsonl' 2>/dev/null"
grep -q "CUDA out of memory in $SCRATCH/logs/train-0.log" "$SCRATCH/hooks/am.jsonl" || fail "annotation: $(cat "$SCRATCH/hooks/am.jsonl")"

# 5. Binary garbage and invalid UTF-8 do not stop the tailer.
head -c 4096 /dev/urandom >>"$SCRATCH/logs/train-0.log"
printf '\nstep 2 loss \xff\xfe 2.2\n' >>"$SCRATCH/logs/train-0.log"
wait_for "the line after the garbage" 20 events_are "rule=itest_step" 2
curl -s "$URL/api/v1/events?rule=itest_step&limit=1" | grep -q 'loss \\ufffd 2.2\|loss � 2.2' ||
  fail "invalid UTF-8 not replaced: $(curl -s "$URL/api/v1/events?rule=itest_step&limit=1")"

# 6. kill -9 while a writer appends: after the restart every step line is one event, once.
python3 - "$SCRATCH/logs/train-1.log" <<'EOF' &
import sys, time
with open(sys.argv[1], "a", buffering=1) as f:
    for i in range(1000, 1600):
        f.write("step %d loss 1.0\n" % i)
        if i % 50 == 0:
            time.sleep(0.05)
EOF
WRITER=$!
sleep 0.2
kill -9 "$llmon_PID"
wait "$llmon_PID" 2>/dev/null || true
wait "$WRITER"
printf '4,2,2000,-;NVRM: Xid (PCI:0000:9a:00): 13, pid=1234, Graphics Exception\n' >>"$SCRATCH/kmsg"
start_llmon "${AGENT_FLAGS[@]}"
URL="$llmon_URL"
wait_for "every step line once" 30 events_are "rule=itest_step" 602
curl -s "$URL/api/v1/events?limit=10000" | python3 -c '
import json, sys
ev = json.load(sys.stdin)["data"]["events"]
ids = [e["id"] for e in ev]
assert len(ids) == len(set(ids)), "duplicate ids"
steps = sorted(int(e["labels"]["step"]) for e in ev if e["rule"] == "itest_step")
assert steps == [1, 2] + list(range(1000, 1600)), (len(steps), steps[:5])
xids = sorted(e["labels"]["xid"] for e in ev if e["rule"] == "xid")
assert xids == ["13", "79"], xids' || fail "events after kill -9 are not exactly once"
log "log watching end to end: events, counters, alert, garbage, kill -9"
