#!/usr/bin/env bash
# Alerting end to end with real parts: `llmon agent` on the fake NVML
# scenario tests/fake_nvml/scenarios/alerting.json (framebuffer 10 % -> 95 %
# -> 10 %, uncorrectable ECC errors) evaluates the built-in rule pack plus a test rule file
# every second, and delivers to
#   * a real Alertmanager 0.25 (--alertmanager.url), which forwards to a webhook,
#   * llmon's own routing (--notify.config): a webhook receiver in this test
#     and email to a real SMTP server (aiosmtpd, Maildir).
# Checks: the alert goes pending -> firing -> resolved in /api/v1/alerts and
# the ALERTS series; the pack's GPUUncorrectableECCErrors fires; Alertmanager
# receives both alerts and forwards the group; our webhook gets firing then
# resolved payloads (Alertmanager webhook version 4); the email arrives with
# both bodies; a broken rule file on SIGHUP keeps the old rules
# (llmon_rules_config_last_reload_successful 0) and POST /-/reload recovers;
# a notification queued while its receiver is down survives an agent
# restart and is delivered once the receiver is back; amtool manages
# silences through the agent's Alertmanager v2 silence API.
# Usage: alerting_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL/PORT/PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"
AM_BIN="$(command -v prometheus-alertmanager || true)"
[[ -n "$AM_BIN" ]] || skip "prometheus-alertmanager not installed (Debian package prometheus-alertmanager)"
[[ -x /usr/bin/aiosmtpd ]] || skip "aiosmtpd not installed (Debian package python3-aiosmtpd)"
FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
[[ -f "$FAKE" ]] || fail "fake NVML not built next to $LLMON (expected $FAKE)"

# --- A webhook receiver: every POST body is appended as one line to
#     $SCRATCH/hooks/<path>.jsonl; GET /status/<path> answers its line count.
#     A file $SCRATCH/hooks/<path>.down makes it answer 503 (receiver down).
mkdir -p "$SCRATCH/hooks"
start_server hook / python3 "$REPO/tests/integration/webhook_sink.py" @PORT@ "$SCRATCH/hooks"

# --- SMTP: aiosmtpd storing messages in a Maildir.
SMTP_PORT="$(free_port)"
(cd "$SCRATCH" && exec /usr/bin/aiosmtpd -n -l "127.0.0.1:$SMTP_PORT" -c aiosmtpd.handlers.Mailbox "$SCRATCH/maildir") \
  >"$SCRATCH/smtp.log" 2>&1 &
SMTP_PID=$!
ITEST_PIDS+=("$SMTP_PID")
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$SMTP_PORT") 2>/dev/null && break
  kill -0 "$SMTP_PID" 2>/dev/null || fail "aiosmtpd exited: $(cat "$SCRATCH/smtp.log")"
  sleep 0.1
done

# --- Alertmanager forwarding to the webhook receiver at /am.
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
        send_resolved: true
EOF
start_server am /-/ready "$AM_BIN" --config.file="$SCRATCH/am/alertmanager.yml" --storage.path="$SCRATCH/am/data" \
  --web.listen-address=127.0.0.1:@PORT@ --cluster.listen-address=

# --- llmon's rules and notification routing.
mkdir -p "$SCRATCH/rules"
cat >"$SCRATCH/rules/itest.yml" <<'EOF'
groups:
  - name: itest
    interval: 1s
    rules:
      - alert: ItestGpuMemoryHigh
        expr: llmon:gpu_memory_used:ratio > 0.9
        for: 2s
        labels:
          severity: critical
        annotations:
          summary: "GPU {{ $labels.gpu }} framebuffer at {{ $value | humanizePercentage }}"
EOF
cat >"$SCRATCH/notify.yml" <<EOF
route:
  receiver: team
  group_by: [alertname]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: team
    webhook_configs:
      - url: $hook_URL/llmon
        send_resolved: true
    email_configs:
      - to: oncall@example.org
        from: llmon@example.org
        smarthost: 127.0.0.1:$SMTP_PORT
        require_tls: false
        send_resolved: true
EOF
export LLMON_FAKE_NVML_SCENARIO="$REPO/tests/fake_nvml/scenarios/alerting.json"
AGENT_FLAGS=(--collector.disable-defaults --collector.gpu --nvml.library="$FAKE" --collect.interval=1s
  --rules.evaluation-interval=1s --rules.file="$SCRATCH/rules" --alertmanager.url="$am_URL"
  --notify.config="$SCRATCH/notify.yml" --web.external-url=http://llmon.test:8747 --log.level=info)
start_llmon "${AGENT_FLAGS[@]}"
URL="$llmon_URL"

# alerts_json: /api/v1/alerts; alert_state NAME: its state or "none".
alert_state() {
  curl -s --max-time 5 "$URL/api/v1/alerts" | python3 -c '
import json, sys
name = sys.argv[1]
alerts = [a for a in json.load(sys.stdin)["data"]["alerts"] if a["labels"]["alertname"] == name]
print(alerts[0]["state"] if alerts else "none")' "$1"
}
# wait_for DESC TIMEOUT_S CMD...: polls CMD until it succeeds.
state_is() { [[ "$(alert_state "$1")" == "$2" ]]; }
lines_in() { [[ -f "$1" ]] && (($(wc -l <"$1") >= $2)); }

# 1. The rules API lists the pack and the test group.
fetch "$URL/api/v1/rules" "$SCRATCH/rules.json"
python3 - "$SCRATCH/rules.json" <<'EOF' || fail "rules API: $(head -c 400 "$SCRATCH/rules.json")"
import json, sys
groups = json.load(open(sys.argv[1]))["data"]["groups"]
files = {g["file"] for g in groups}
assert any(f.startswith("<builtin>/") for f in files), files
names = [r["name"] for g in groups for r in g["rules"]]
assert "ItestGpuMemoryHigh" in names and "GPUUncorrectableECCErrors" in names, names
EOF

# 2. pending -> firing (framebuffer 95 % from tick 6; for: 2s).
wait_for "ItestGpuMemoryHigh pending or firing" 60 bash -c "[[ \$(curl -s '$URL/api/v1/alerts') == *ItestGpuMemoryHigh* ]]"
wait_for "ItestGpuMemoryHigh firing" 30 state_is ItestGpuMemoryHigh firing
wait_for "GPUUncorrectableECCErrors firing (ECC errors from tick 8)" 30 state_is GPUUncorrectableECCErrors firing
curl -s "$URL/api/v1/query" --data-urlencode 'query=ALERTS{alertname="ItestGpuMemoryHigh",alertstate="firing"}' \
  >"$SCRATCH/alerts_series.json"
grep -q '"value":\[[0-9.]*,"1"\]' "$SCRATCH/alerts_series.json" ||
  fail "ALERTS series not written: $(head -c 300 "$SCRATCH/alerts_series.json")"

# 3. Alertmanager has it, and forwards the group to its webhook.
wait_for "Alertmanager holds ItestGpuMemoryHigh" 30 bash -c \
  "curl -s '$am_URL/api/v2/alerts' | grep -q ItestGpuMemoryHigh"
wait_for "Alertmanager's webhook notification" 30 bash -c "grep -q ItestGpuMemoryHigh '$SCRATCH/hooks/am.jsonl' 2>/dev/null"

# 4. llmon's own webhook: a firing payload in Alertmanager's format v4.
wait_for "llmon webhook firing" 30 bash -c "grep -q '\"status\":\"firing\".*ItestGpuMemoryHigh\\|ItestGpuMemoryHigh.*\"status\":\"firing\"' '$SCRATCH/hooks/llmon.jsonl' 2>/dev/null"
python3 - "$SCRATCH/hooks/llmon.jsonl" <<'EOF' || fail "webhook payload: $(head -c 600 "$SCRATCH/hooks/llmon.jsonl")"
import json, sys
msgs = [json.loads(l) for l in open(sys.argv[1])]
m = next(m for m in msgs if m["groupLabels"].get("alertname") == "ItestGpuMemoryHigh")
assert m["version"] == "4" and m["receiver"] == "team" and m["status"] == "firing", m
a = m["alerts"][0]
assert a["labels"]["severity"] == "critical" and a["labels"]["alertname"] == "ItestGpuMemoryHigh", a
assert a["annotations"]["summary"].startswith("GPU ") and "%" in a["annotations"]["summary"], a
assert a["generatorURL"].startswith("http://llmon.test:8747/graph?g0.expr="), a
EOF

# 5. Resolved (framebuffer back to 10 % from tick 21): gone from the API,
#    resolved payloads at both webhooks.
wait_for "ItestGpuMemoryHigh resolved" 60 state_is ItestGpuMemoryHigh none
wait_for "llmon webhook resolved" 30 python3 -c '
import json, sys
msgs = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if any(m["status"] == "resolved" and m["groupLabels"].get("alertname") == "ItestGpuMemoryHigh" for m in msgs) else 1)
' "$SCRATCH/hooks/llmon.jsonl"
wait_for "Alertmanager resolved notification" 60 python3 -c '
import json, sys
msgs = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if any(m["status"] == "resolved" and m["groupLabels"].get("alertname") == "ItestGpuMemoryHigh" for m in msgs) else 1)
' "$SCRATCH/hooks/am.jsonl"

# 6. The email: subject, recipients, a text and an HTML part.
wait_for "an email in the Maildir" 30 bash -c "ls '$SCRATCH'/maildir/new/* >/dev/null 2>&1"
python3 - "$SCRATCH/maildir" <<'EOF' || fail "email check failed"
import email, email.policy, glob, sys
msgs = [email.message_from_binary_file(open(p, "rb"), policy=email.policy.default) for p in glob.glob(sys.argv[1] + "/new/*")]
m = next(m for m in msgs if "ItestGpuMemoryHigh" in m["Subject"])
assert "oncall@example.org" in m["To"] and "llmon@example.org" in m["From"], (m["To"], m["From"])
text = m.get_body(preferencelist=("plain",)).get_content()
html = m.get_body(preferencelist=("html",)).get_content()
assert "ItestGpuMemoryHigh" in text and "framebuffer" in text, text[:500]
assert "<html" in html.lower() and "ItestGpuMemoryHigh" in html, html[:500]
EOF

# 7. Reload: a broken file keeps the old rules; fixing it and POST /-/reload recovers.
cp "$SCRATCH/rules/itest.yml" "$SCRATCH/itest.good"
printf 'groups:\n  - name: broken\n    rules:\n      - alert: X\n        expr: sum(\n' >"$SCRATCH/rules/itest.yml"
kill -HUP "$llmon_PID"
wait_for "reload failure reported" 20 bash -c \
  "curl -s '$URL/metrics' | grep -q '^llmon_rules_config_last_reload_successful 0'"
curl -s "$URL/api/v1/rules" | grep -q ItestGpuMemoryHigh || fail "old rules gone after a failed reload"
code="$(curl -s -o "$SCRATCH/reload.txt" -w '%{http_code}' -X POST "$URL/-/reload")"
[[ "$code" == 500 ]] || fail "POST /-/reload with a broken file answered $code"
grep -q "itest.yml" "$SCRATCH/reload.txt" || fail "reload error does not name the file: $(cat "$SCRATCH/reload.txt")"
cp "$SCRATCH/itest.good" "$SCRATCH/rules/itest.yml"
code="$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/-/reload")"
[[ "$code" == 200 ]] || fail "POST /-/reload with a good file answered $code"
wait_for "reload success reported" 20 bash -c \
  "curl -s '$URL/metrics' | grep -q '^llmon_rules_config_last_reload_successful 1'"

# 8. A notification queued while the receiver is down survives a restart.
touch "$SCRATCH/hooks/restart.down"
cat >"$SCRATCH/rules/itest.yml" <<'EOF'
groups:
  - name: itest
    interval: 1s
    rules:
      - alert: ItestRestart
        expr: vector(1)
        labels:
          severity: info
EOF
sed -i "s|$hook_URL/llmon|$hook_URL/restart|" "$SCRATCH/notify.yml"
stop_pid "$llmon_PID"
start_llmon "${AGENT_FLAGS[@]}"
URL="$llmon_URL"
wait_for "ItestRestart firing" 30 state_is ItestRestart firing
wait_for "the notification queued (receiver down)" 30 bash -c \
  "curl -s '$URL/metrics' | grep -E '^llmon_notifications_retries_total\\{' | grep -vq ' 0\$'"
stop_pid "$llmon_PID"
rm -f "$SCRATCH/hooks/restart.down"
# Without the rule: whatever arrives now came from the persistent queue.
NO_RULES=()
for f in "${AGENT_FLAGS[@]}"; do [[ "$f" == --rules.file=* ]] || NO_RULES+=("$f"); done
start_llmon "${NO_RULES[@]}"
URL="$llmon_URL"
wait_for "the queued notification delivered after the restart" 60 lines_in "$SCRATCH/hooks/restart.jsonl" 1
wait_for "ItestRestart among the delivered payloads" 30 grep -q ItestRestart "$SCRATCH/hooks/restart.jsonl"
# 9. amtool (Alertmanager's CLI) manages silences on the agent through the v2 API.
if require_cmd amtool; then
  id="$(amtool --alertmanager.url="$URL" silence add alertname=GPUUnderutilized --comment=maintenance \
    --duration=1h)" || fail "amtool silence add failed"
  amtool --alertmanager.url="$URL" silence query | grep -q "$id" || fail "amtool does not list silence $id"
  amtool --alertmanager.url="$URL" silence expire "$id" || fail "amtool silence expire failed"
  amtool --alertmanager.url="$URL" silence query -q | grep -q "$id" && fail "silence $id still active"
  test -s "$SCRATCH/llmon-data/silences/silences.json" || fail "silences not persisted"
else
  log "amtool not installed: silence API check with amtool skipped"
fi
# ... and llmon's own CLI does the same.
id="$("$LLMON" alerts silence add GPUUnderutilized --comment=maintenance --duration=30m --url="$URL")" ||
  fail "llmon alerts silence add failed"
"$LLMON" alerts silence list --url="$URL" | grep "$id" | grep -q active || fail "llmon does not list silence $id"
"$LLMON" alerts silence expire "$id" --url="$URL" || fail "llmon alerts silence expire failed"
"$LLMON" alerts silence list --url="$URL" | grep "$id" | grep -q expired || fail "silence $id not expired"
"$LLMON" alerts --url="$URL" >"$SCRATCH/alerts.txt" || fail "llmon alerts failed: $(cat "$SCRATCH/alerts.txt")"
log "ok"
