#!/usr/bin/env bash
# Capture on demand end to end (docs/trace.md#capture): `llmon agent
# --trace.capture-dir` answers Kineto's daemon protocol on an abstract socket
# of this test's own name; tests/tools/kineto_client.py plays PyTorch
# (registers with "ctxt", polls with "req", writes the trace it is asked for).
# Checks:
#   1. an alert rule fires with the client's pid as a label, the route's
#      trace_capture receiver captures from that pid, the trace is gzipped and
#      analysed, and the capture log (/api/v1/trace/captures) shows the alert,
#      the .json.gz and the headline numbers; the result is attached to the
#      alert (annotations in /api/v1/alerts, the report link serving the
#      capture's HTML page); the report route refuses names outside the
#      capture directory; with a browser, the dashboard's Traces view and
#      alert view (web/browser/traces.browser.mjs);
#   2. `llmon trace capture --pid P` round trip: exit 0, the path and summary
#      printed, the file readable by `llmon trace analyze`;
#   3. no match: exit 1 with "No processes were matched" naming the
#      registered process;
#   4. with real PyTorch built with Kineto, the same against its
#      Kineto (KINETO_USE_DAEMON=1); skipped with the reason otherwise.
# Usage: trace_capture_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"
PY=/usr/bin/python3
[[ -x "$PY" ]] || skip "$PY not installed"
CLIENT="$REPO/tests/tools/kineto_client.py"
SOCK="llmon-itest-$$-$RANDOM"
CAP="$SCRATCH/traces"
mkdir -p "$CAP"

# The client first: its pid goes into the alert rule.
"$PY" "$CLIENT" --socket "$SOCK" --gpu 0 --interval-ms 200 --traces 0 --ready "$SCRATCH/client.ready" \
  --log "$SCRATCH/client.log" &
CLIENT_PID=$!
ITEST_PIDS+=("$CLIENT_PID")
wait_for "client ready" 10 test -s "$SCRATCH/client.ready"

mkdir -p "$SCRATCH/rules"
mkdir -p "$SCRATCH/rules"
cat >"$SCRATCH/rules/itest.yml" <<EOF
groups:
  - name: itest
    interval: 1s
    rules:
      - alert: ItestStepTimeRegressed
        expr: vector(1)
        labels:
          severity: warning
          pid: "$CLIENT_PID"
EOF
cat >"$SCRATCH/notify.yml" <<'EOF'
route:
  receiver: nobody
  group_by: [alertname]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
  routes:
    - receiver: capture
      matchers: ['alertname="ItestStepTimeRegressed"']
receivers:
  - name: nobody
  - name: capture
    trace_capture_configs:
      - duration: 200ms
        timeout: 20s
EOF
start_llmon --collector.disable-defaults --rules.defaults=false --rules.evaluation-interval=1s \
  --rules.file="$SCRATCH/rules" --notify.config="$SCRATCH/notify.yml" \
  --trace.capture-dir="$CAP" --trace.ipc-socket="$SOCK" --log.level=info
URL="$llmon_URL"

# 1. Alert -> route -> capture -> analysis, visible in the capture log.
alert_capture() {
  curl -s --max-time 5 "$URL/api/v1/trace/captures" >"$SCRATCH/captures.json" || return 1
  "$PY" -c '
import json, sys
recs = [r for r in json.load(open(sys.argv[1]))["data"] if r["trigger"] == "alert"]
sys.exit(0 if recs else 1)' "$SCRATCH/captures.json"
}
wait_for "an alert-triggered capture in /api/v1/trace/captures" 60 alert_capture
"$PY" - "$SCRATCH/captures.json" "$CLIENT_PID" "$CAP" <<'PYEOF' || fail "capture record: $(cat "$SCRATCH/captures.json")"
import json, os, sys
rec = [r for r in json.load(open(sys.argv[1]))["data"] if r["trigger"] == "alert"][0]
pid, cap = int(sys.argv[2]), sys.argv[3]
assert rec["ok"], rec
assert rec["alerts"] == ["ItestStepTimeRegressed"], rec
assert rec["labels"]["pid"] == str(pid), rec
assert rec["selector"] == f"pid {pid}", rec
t = rec["traces"][0]
assert t["pid"] == pid and t["path"].startswith(os.path.realpath(cap) + "/") and t["path"].endswith(".json.gz"), t
assert f"_{pid}_" in os.path.basename(t["path"]), t
assert os.path.isfile(t["path"]), t
assert abs(t["compute_pct"] + t["idle_pct"] + t["non_compute_pct"] - 100) < 1e-6, t
assert t["top_kernel"]["name"] == "ampere_sgemm_128x64_tn", t
assert "GPU kernels over" in t["headline"] and "top kernel ampere_sgemm_128x64_tn" in t["headline"], t
PYEOF
grep -q '"trigger":"alert"' "$CAP/captures.jsonl" || fail "captures.jsonl lacks the alert record"
log "alert-triggered capture recorded"

# 1b. The result is attached to the alert: /api/v1/alerts shows the capture's
#     file and headline numbers as annotations, and the report link serves
#     the capture's HTML report.
fetch "$URL/api/v1/alerts" "$SCRATCH/alerts.json"
"$PY" - "$SCRATCH/alerts.json" "$SCRATCH/captures.json" <<'PYEOF' >"$SCRATCH/report_link" || fail "alert annotations: $(cat "$SCRATCH/alerts.json")"
import json, sys
alerts = json.load(open(sys.argv[1]))["data"]["alerts"]
rec = [r for r in json.load(open(sys.argv[2]))["data"] if r["trigger"] == "alert"][0]
t = rec["traces"][0]
a = [x for x in alerts if x["labels"]["alertname"] == "ItestStepTimeRegressed"][0]
ann = a["annotations"]
assert ann["llmon_trace_capture"].startswith(t["file"] + ": "), ann
assert "GPU kernels over" in ann["llmon_trace_capture"] and "idle " in ann["llmon_trace_capture"], ann
assert "top kernel ampere_sgemm_128x64_tn" in ann["llmon_trace_capture"], ann
assert ann["llmon_trace_report"] == t["report"] == "/api/v1/trace/report?file=" + t["file"], (ann, t)
print(ann["llmon_trace_report"])
PYEOF
fetch "$URL$(cat "$SCRATCH/report_link")" "$SCRATCH/report.html"
grep -q 'id="report-data"' "$SCRATCH/report.html" || fail "the report link did not serve the report page"
grep -q 'ampere_sgemm_128x64_tn' "$SCRATCH/report.html" || fail "the report page lacks the top kernel"
log "the capture is attached to the alert (annotations, report page)"

# 1c. The report route serves only files of the capture directory.
ln -s /etc/hostname "$CAP/evil.json"
mkdir "$CAP/dir.json"
for q in 'file=../captures.jsonl' 'file=..%2Fx.json' 'file=%2Fetc%2Fpasswd' 'file=captures.jsonl' 'file=.json' \
  'file=a/../../x.json.gz' '' 'file=a.json&file=b.json'; do
  code="$(http_status "$URL/api/v1/trace/report?$q")"
  [[ "$code" == 400 ]] || fail "GET /api/v1/trace/report?$q answered $code, want 400"
done
for q in 'file=evil.json' 'file=dir.json' 'file=missing.json.gz'; do
  code="$(http_status "$URL/api/v1/trace/report?$q")"
  [[ "$code" == 404 ]] || fail "GET /api/v1/trace/report?$q answered $code, want 404"
done
rm -f "$CAP/evil.json"
rmdir "$CAP/dir.json"
log "report route: names outside the directory refused"

# 1d. The dashboard's Traces view and alert view in a browser, when there is one.
find_browser
fetch "$URL/" "$SCRATCH/index.html"
if [[ -n "$BROWSER_MISSING" ]]; then
  log "$BROWSER_MISSING: the dashboard's Traces view is not checked in a browser"
elif ! grep -q 'assets/app.js' "$SCRATCH/index.html"; then
  log "llmon built without the dashboard (-DLLMON_WEB=OFF): the Traces view is not checked"
else
  ART="${LLMON_TEST_ARTIFACTS:-$(dirname "$LLMON")/test-artifacts}/trace-capture"
  "$NODE" "$REPO/web/browser/traces.browser.mjs" "$URL" "$ART" "$CHROMIUM" 2>&1 | tee "$SCRATCH/browser.out"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || fail "dashboard Traces view checks failed (screenshots in $ART)"
fi

# 2. The CLI round trip.
out="$("$LLMON" trace capture --url="$URL" --pid="$CLIENT_PID" --duration-ms=100 2>"$SCRATCH/cli.err")" ||
  fail "llmon trace capture failed: $out $(cat "$SCRATCH/cli.err")"
gz="$(sed -n "s/^pid $CLIENT_PID: \(.*\.json\.gz\)$/\1/p" <<<"$out")"
[[ -n "$gz" && -f "$gz" ]] || fail "no .json.gz in: $out"
grep -q "idle .*compute .*non-compute" <<<"$out" || fail "no summary: $out"
"$LLMON" trace analyze "$gz" | grep -q "ampere_sgemm_128x64_tn" || fail "llmon trace analyze $gz"
[[ -z "$(find "$CAP" -name '*.json' -print -quit)" ]] || fail "plain .json left: $(ls "$CAP")"

# 3. No match: the registered processes are named (GPU unknown: the client
#    started before the agent, so its one "ctxt" went nowhere, as Kineto's would).
if "$LLMON" trace capture --url="$URL" --pid=999999 >"$SCRATCH/nomatch.out" 2>"$SCRATCH/nomatch.err"; then
  fail "a capture of pid 999999 succeeded"
fi
grep -q "No processes were matched (pid 999999): registered: pid $CLIENT_PID (" "$SCRATCH/nomatch.err" ||
  fail "no-match message: $(cat "$SCRATCH/nomatch.err")"

# 4. Real PyTorch, when installed with Kineto (Debian's python3-torch 1.13 is
# built without it: kineto_available() is False, nothing to capture).
if "$PY" -c 'import sys, torch; sys.exit(0 if torch.autograd.profiler.kineto_available() else 1)' 2>/dev/null; then
  KINETO_USE_DAEMON=1 KINETO_DAEMON_INIT_DELAY_S=1 KINETO_ONDEMAND_TRACE_DIR="$CAP" "$PY" -c '
import torch, time
x = torch.randn(256, 256)
t = time.time()
while time.time() - t < 60:
    x = (x @ x).tanh()
' &
  TORCH_PID=$!
  ITEST_PIDS+=("$TORCH_PID")
  sleep 8  # Kineto's first poll comes after its init delay and a 5 s interval
  "$LLMON" trace capture --url="$URL" --pid="$TORCH_PID" --duration-ms=500 >"$SCRATCH/torch.out" 2>&1 ||
    fail "capture from real torch: $(cat "$SCRATCH/torch.out")"
  stop_pid "$TORCH_PID"
  log "real torch capture: $(head -1 "$SCRATCH/torch.out")"
elif "$PY" -c 'import torch' 2>/dev/null; then
  log "PyTorch $("$PY" -c 'import torch; print(torch.__version__)') has no Kineto (kineto_available() is False): no daemon protocol to test"
else
  log "real PyTorch not installed (python3 -c 'import torch' fails): its Kineto is not tested here"
fi
log "ok"
