#!/usr/bin/env bash
# Differential test of pushes (docs/scrape.md "Pushes"): the same pushes, by
# Python's prometheus_client (tests/tools/push_client.py) and as protobuf and
# gzip bodies (tests/tools/push_proto.py), go to Prometheus Pushgateway and
# to `llmon agent --web.enable-push`. Compared:
#   * every answer (status) of both;
#   * the series Prometheus 2.42 stores scraping the Pushgateway with
#     honor_labels: true, and the series llmon stores: the same names,
#     labels and values (push times masked: the two servers' clocks differ);
#   * groups deleted or replaced are gone from both (staleness);
# then llmon restarts and still holds the groups (its persistence file).
# Usage: push_prometheus_diff_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"

PROM="${PROMETHEUS:-prometheus}"
PGW="${PUSHGATEWAY:-prometheus-pushgateway}"
PY=/usr/bin/python3
require_cmd "$PROM" || skip "prometheus not installed (apt-get install prometheus)"
require_cmd "$PGW" || skip "prometheus-pushgateway not installed (apt-get install prometheus-pushgateway)"
"$PY" -c 'import prometheus_client' 2>/dev/null || skip "python3-prometheus-client not installed"

start_server pgw /-/ready "$PGW" --web.listen-address=127.0.0.1:@PORT@ --persistence.file= --log.level=warn
cat >"$SCRATCH/prom.yml" <<EOF
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: pushgateway
    honor_labels: true
    static_configs: [{targets: ["127.0.0.1:$pgw_PORT"]}]
EOF
mkdir -p "$SCRATCH/tsdb"
START_TIMEOUT_S=60 start_server prom /-/ready "$PROM" --config.file="$SCRATCH/prom.yml" \
  --storage.tsdb.path="$SCRATCH/tsdb" --web.listen-address=127.0.0.1:@PORT@ --log.level=warn
start_llmon --log.level=warn --web.enable-push --collector.disable-defaults --logwatch.enabled=false \
  --rules.defaults=false

for url in "$pgw_URL" "$llmon_URL"; do
  n="$([[ "$url" == "$pgw_URL" ]] && echo pgw || echo llmon)"
  "$PY" "$REPO/tests/tools/push_client.py" "$url" >"$SCRATCH/client_$n.txt" 2>&1 ||
    fail "push_client.py against $n: $(cat "$SCRATCH/client_$n.txt")"
  "$PY" "$REPO/tests/tools/push_proto.py" "$url" >"$SCRATCH/proto_$n.txt" 2>&1 ||
    fail "push_proto.py against $n: $(cat "$SCRATCH/proto_$n.txt")"
done
diff "$SCRATCH/client_pgw.txt" "$SCRATCH/client_llmon.txt" >&2 || fail "prometheus_client got other answers"
diff "$SCRATCH/proto_pgw.txt" "$SCRATCH/proto_llmon.txt" >&2 || fail "the protobuf/gzip pushes got other answers"
grep -q ': 200$' "$SCRATCH/proto_llmon.txt" || fail "no protobuf push was accepted"

# try_for SECONDS CMD...: CMD until it succeeds (0) or the time is up (1);
# unlike wait_for it does not fail the test, so the caller can show a diff.
try_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.3
  done
}

# The pushed series as a server stores them now, one line each, push times masked.
JOBS='push_client|batch/nightly|short_lived|proto_job|gz_job'
series() {
  curl -s --max-time 10 "$1/api/v1/query" --data-urlencode "query={job=~\"$JOBS\"}" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
assert d["status"] == "success", d
for r in d["data"]["result"]:
    m = r["metric"]
    name = m.pop("__name__")
    v = r["value"][1]
    if name in ("push_time_seconds", "push_failure_time_seconds") and v != "0":
        v = "<time>"
    print(name + "{" + ",".join(f"{k}={m[k]!r}" for k in sorted(m)) + "} " + v)' | sort
}
# Prometheus has scraped the Pushgateway after the last push.
prom_caught_up() {
  series "$prom_URL" >"$SCRATCH/prom.txt" && series "$llmon_URL" >"$SCRATCH/llmon.txt" &&
    cmp -s "$SCRATCH/prom.txt" "$SCRATCH/llmon.txt"
}
if ! try_for 30 prom_caught_up; then
  diff "$SCRATCH/prom.txt" "$SCRATCH/llmon.txt" >&2
  fail "Prometheus (scraping the Pushgateway) and llmon store different pushed series (above: < Prometheus, > llmon)"
fi
n="$(wc -l <"$SCRATCH/llmon.txt")"
[[ "$n" -ge 30 ]] || fail "only $n pushed series compared"
grep -q '^proto_step_seconds_bucket{instance=.a.,job=.proto_job.,le=.+Inf.} 10$' "$SCRATCH/llmon.txt" ||
  fail "the protobuf histogram is missing: $(grep proto_step "$SCRATCH/llmon.txt")"
grep -q '^short_lived' "$SCRATCH/llmon.txt" && fail "the deleted group short_lived is still there"
grep -q '^push_client_requests_total' "$SCRATCH/llmon.txt" && fail "the families a PUT replaced are still there"
log "Prometheus+Pushgateway and llmon agree on $n pushed series"

# The history is queryable as a range (the agent stores every interval).
stored_twice() {
  curl -s --max-time 10 "$llmon_URL/api/v1/query" --data-urlencode 'query=count_over_time(gz_value[1m])' |
    "$PY" -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; sys.exit(0 if r and float(r[0]["value"][1]) >= 2 else 1)'
}
wait_for "gz_value stored at least twice" 30 stored_twice

# A restart keeps the groups (<storage.path>/push-groups.json).
stop_pid "$llmon_PID"
[[ -s "$SCRATCH/llmon-data/push-groups.json" ]] || fail "no push-groups.json after a clean stop"
start_llmon --log.level=warn --web.enable-push --collector.disable-defaults --logwatch.enabled=false \
  --rules.defaults=false
same_after_restart() {
  series "$llmon_URL" >"$SCRATCH/llmon_after.txt" && cmp -s "$SCRATCH/llmon.txt" "$SCRATCH/llmon_after.txt"
}
if ! try_for 30 same_after_restart; then
  diff "$SCRATCH/llmon.txt" "$SCRATCH/llmon_after.txt" >&2
  fail "the pushed series changed across a restart"
fi
log "the groups survived a restart"
