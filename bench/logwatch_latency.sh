#!/usr/bin/env bash
# Line-to-event, line-to-counter and line-to-alert latency of the agent's log watcher
# (issue 18; docs/performance.md "Log watching"). Starts, on free 127.0.0.1 ports:
# a webhook receiver, a real Alertmanager (group_wait 0s), and
#   llmon agent --collector.disable-defaults --collect.interval=INTERVAL
#     --logwatch.path=SCRATCH/train.log --logwatch.kmsg-path=SCRATCH/kmsg (a kmsg-format file)
#     --rules.evaluation-interval=1s with one alert per new `run` label
# then bench/logwatch_latency.py appends lines and times them (see its header).
#
#   bench/logwatch_latency.sh [--runs N] [--alert-runs N] [--interval D] [--build DIR]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/lib.sh"
RUNS=40 ALERT_RUNS=5 INTERVAL=1s BUILD="$HERE/../build"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --alert-runs) ALERT_RUNS="$2"; shift 2 ;;
    --interval) INTERVAL="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
LLMON="$BUILD/llmon"
AM="$(command -v prometheus-alertmanager)" || { echo "prometheus-alertmanager not installed" >&2; exit 1; }
SCRATCH="$(mktemp -d /tmp/llmon-lwlat.XXXXXX)"
bench_on_exit() { rm -rf "$SCRATCH"; }
mkdir -p "$SCRATCH/hooks" "$SCRATCH/rules"
cat >"$SCRATCH/hook.py" <<'PY'
import http.server, sys
out = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with open(out, "ab") as f:
            f.write(body.replace(b"\n", b" ") + b"\n")
        self.send_response(200); self.end_headers()
    def do_GET(self):
        self.send_response(200); self.end_headers()
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
start hook / python3 "$SCRATCH/hook.py" @PORT@ "$SCRATCH/hooks/am.jsonl"
cat >"$SCRATCH/am.yml" <<YML
route: {receiver: hook, group_by: [run], group_wait: 0s, group_interval: 1s, repeat_interval: 1h}
receivers: [{name: hook, webhook_configs: [{url: "$hook_URL/am"}]}]
YML
start am /-/ready "$AM" --config.file="$SCRATCH/am.yml" --storage.path="$SCRATCH/am" \
  --web.listen-address=127.0.0.1:@PORT@ --cluster.listen-address=
cat >"$SCRATCH/logrules.yml" <<'YML'
rules:
  - {name: bench_line, regex: 'bench: marker run=(?P<run>\w+)', severity: info, source: any}
  - {name: bench_alert, regex: 'bench: alert run=(?P<run>\w+)', severity: error, counter_labels: [run]}
YML
cat >"$SCRATCH/rules/alert.yml" <<'YML'
groups:
  - name: bench
    interval: 1s
    rules:
      - alert: BenchLogLine
        expr: llmon_log_matches_total{rule="bench_alert"} > 0 unless llmon_log_matches_total{rule="bench_alert"} offset 1m
YML
: >"$SCRATCH/train.log"
: >"$SCRATCH/kmsg"
start llmon /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/data" \
  --collector.disable-defaults --collect.interval="$INTERVAL" --rules.defaults=false --rules.file="$SCRATCH/rules" \
  --rules.evaluation-interval=1s --alertmanager.url="$am_URL" --logwatch.path="$SCRATCH/train.log" \
  --logwatch.kmsg-path="$SCRATCH/kmsg" --logwatch.rules="$SCRATCH/logrules.yml" --logwatch.default-rules=false
sleep 1
log "llmon $(git -C "$HERE/.." rev-parse --short HEAD), collect interval $INTERVAL, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
python3 "$HERE/logwatch_latency.py" --port "$llmon_PORT" --log "$SCRATCH/train.log" --kmsg "$SCRATCH/kmsg" \
  --hooks "$SCRATCH/hooks/am.jsonl" --runs "$RUNS" --alert-runs "$ALERT_RUNS"
