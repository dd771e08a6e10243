#!/usr/bin/env bash
# remote_write without loss (docs/remote_write.md): `llmon agent` pushes its
# stored samples to a real Prometheus 2.42 (--web.enable-remote-write-receiver)
# and, when Debian's victoria-metrics is installed (or VICTORIA_METRICS names
# its binary), to VictoriaMetrics too, and when Debian's influxdb is
# installed (or INFLUXD names its binary), to InfluxDB 1.x's
# /api/v1/prom/write (started here on free ports with its own config, read
# back through its /query API; it cannot store NaN or Inf, which it drops,
# and stores a repeated sample once, so only loss is checked there).
# Outage: the receivers are stopped; meanwhile the agent is killed with -9
# and restarted (twice); then the receivers come back, and a SIGHUP
# reloads the queues while they catch up. Afterwards every
# sample llmon stored (every series) up to a cut-off time is in
# each receiver exactly once: the raw samples of both sides (an instant
# query of `{...}[range]` at the cut-off) are compared series by series.
# Usage: remote_write_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"

PROM="${PROMETHEUS:-prometheus}"
require_cmd "$PROM" || skip "prometheus not installed (apt-get install prometheus)"
require_cmd python3 || skip "python3 not installed"
VM="${VICTORIA_METRICS:-victoria-metrics}"
HAVE_VM=0
if require_cmd "$VM"; then HAVE_VM=1; else log "victoria-metrics not installed: VictoriaMetrics part skipped"; fi

INFLUXD="${INFLUXD:-influxd}"
HAVE_INFLUX=0
if require_cmd "$INFLUXD"; then HAVE_INFLUX=1; else log "influxd not installed: InfluxDB part skipped"; fi

# Every series llmon stores (its collectors' on this host, its own, the rules').
SELECTOR='{__name__=~".+"}'
SELECTOR="${RW_SELECTOR:-$SELECTOR}"

PROM_PORT="$(free_port)"
mkdir -p "$SCRATCH/tsdb"
printf 'global:\n  scrape_interval: 1h\n' >"$SCRATCH/prometheus.yml"
start_prom() {
  (cd "$SCRATCH" && exec "$PROM" --config.file="$SCRATCH/prometheus.yml" --storage.tsdb.path="$SCRATCH/tsdb" \
    --web.listen-address="127.0.0.1:$PROM_PORT" --web.enable-remote-write-receiver --log.level=warn) \
    >>"$SCRATCH/prom.log" 2>&1 &
  PROM_PID=$!
  ITEST_PIDS+=("$PROM_PID")
  wait_http "http://127.0.0.1:$PROM_PORT/-/ready" 60 "$PROM_PID" || fail "Prometheus did not start"
  log "Prometheus up on $PROM_PORT (pid $PROM_PID)"
}
VM_PORT="$(free_port)"
start_vm() {
  ((HAVE_VM)) || return 0
  (cd "$SCRATCH" && exec "$VM" -httpListenAddr="127.0.0.1:$VM_PORT" -storageDataPath="$SCRATCH/vm" \
    -retentionPeriod=100y) >>"$SCRATCH/vm.log" 2>&1 &
  VM_PID=$!
  ITEST_PIDS+=("$VM_PID")
  wait_http "http://127.0.0.1:$VM_PORT/health" 60 "$VM_PID" || fail "VictoriaMetrics did not start"
}
INFLUX_PORT="$(free_port)"
INFLUX_RPC_PORT="$(free_port)"
cat >"$SCRATCH/influxdb.conf" <<CONF
reporting-enabled = false
bind-address = "127.0.0.1:$INFLUX_RPC_PORT"
[meta]
  dir = "$SCRATCH/influx/meta"
[data]
  dir = "$SCRATCH/influx/data"
  wal-dir = "$SCRATCH/influx/wal"
  query-log-enabled = false
[monitor]
  store-enabled = false
[http]
  bind-address = "127.0.0.1:$INFLUX_PORT"
  log-enabled = false
[logging]
  level = "warn"
[continuous_queries]
  enabled = false
[subscriber]
  enabled = false
CONF
start_influx() {
  ((HAVE_INFLUX)) || return 0
  (cd "$SCRATCH" && exec "$INFLUXD" -config "$SCRATCH/influxdb.conf") >>"$SCRATCH/influx.log" 2>&1 &
  INFLUX_PID=$!
  ITEST_PIDS+=("$INFLUX_PID")
  influx_up() { [[ "$(http_status "http://127.0.0.1:$INFLUX_PORT/ping")" == 204 ]] || { kill -0 "$INFLUX_PID" || fail "influxd exited"; false; }; }
  wait_for "InfluxDB on $INFLUX_PORT" 60 influx_up
  curl -s --max-time 10 -XPOST "http://127.0.0.1:$INFLUX_PORT/query" --data-urlencode "q=CREATE DATABASE prometheus" \
    >/dev/null || fail "cannot create the InfluxDB database"
  log "InfluxDB up on $INFLUX_PORT (pid $INFLUX_PID)"
}

{
  echo "remote_write:"
  echo "  - url: http://127.0.0.1:$PROM_PORT/api/v1/write"
  echo "    name: prom"
  echo "    queue_config: {max_samples_per_send: 500, min_backoff: 50ms, max_backoff: 1s}"
  if ((HAVE_VM)); then
    echo "  - url: http://127.0.0.1:$VM_PORT/api/v1/write"
    echo "    name: vm"
    echo "    queue_config: {max_samples_per_send: 500, min_backoff: 50ms, max_backoff: 1s}"
  fi
  if ((HAVE_INFLUX)); then
    echo "  - url: http://127.0.0.1:$INFLUX_PORT/api/v1/prom/write?db=prometheus"
    echo "    name: influx"
    echo "    queue_config: {max_samples_per_send: 500, min_backoff: 50ms, max_backoff: 1s}"
  fi
} >"$SCRATCH/remote_write.yml"

LLMON_PORT="$(free_port)"
start_agent() {
  (cd "$SCRATCH" && exec "$LLMON" agent --web.listen-address="127.0.0.1:$LLMON_PORT" \
    --storage.path="$SCRATCH/llmon-data" --remote-write.config="$SCRATCH/remote_write.yml" \
    --collect.interval=1s --log.level=info) >>"$SCRATCH/llmon.log" 2>&1 &
  LLMON_PID=$!
  ITEST_PIDS+=("$LLMON_PID")
  wait_http "http://127.0.0.1:$LLMON_PORT/metrics" 60 "$LLMON_PID" || fail "llmon did not start"
  log "llmon up on $LLMON_PORT (pid $LLMON_PID)"
}
kill9_agent() {
  kill -KILL "$LLMON_PID"
  wait "$LLMON_PID" 2>/dev/null
  stop_pid "$LLMON_PID"
  log "llmon killed with -9"
}

# remote_metric NAME QUEUE: the agent's own value of NAME for that queue.
remote_metric() {
  curl -s --max-time 5 "http://127.0.0.1:$LLMON_PORT/metrics" |
    awk -v n="$1" -v q="$2" '$1 ~ "^"n"[{]" && index($1, "remote_name=\""q"\"") {print $2; exit}'
}

start_prom
start_vm
start_influx
start_agent
# (Waits, not fixed sleeps: under a loaded parallel ctest the agent's first
# cycle and send can take seconds.)
sent_some() { [[ "$(remote_metric llmon_remote_storage_samples_total prom)" =~ ^[1-9] ]]; }
wait_for "the first samples acknowledged by Prometheus" 30 sent_some ||
  fail "nothing sent to Prometheus: $(grep remote_write "$SCRATCH/llmon.log" | tail -3)"
log "sending: $(remote_metric llmon_remote_storage_samples_total prom) samples acknowledged"
# The shard gauges (Prometheus's prometheus_remote_storage_shards*): defaults 1..50, running 1 at this rate.
[[ "$(remote_metric llmon_remote_storage_shards_max prom)" == 50 && "$(remote_metric llmon_remote_storage_shards_min prom)" == 1 &&
  "$(remote_metric llmon_remote_storage_shards prom)" =~ ^[1-9] ]] || fail "llmon_remote_storage_shards* missing or wrong"

# Outage: the receivers go away while the agent keeps storing, is killed
# with -9 twice and restarted.
stop_pid "$PROM_PID"
if ((HAVE_VM)); then stop_pid "$VM_PID"; fi
if ((HAVE_INFLUX)); then stop_pid "$INFLUX_PID"; fi
log "receivers stopped"
sleep 4
kill9_agent
start_agent
sleep 4
kill9_agent
start_agent
failed_some() { [[ "$(remote_metric llmon_remote_storage_samples_failed_total prom)" =~ ^[1-9] ]]; }
wait_for "failed sends counted during the outage" 30 failed_some || fail "no failed sends counted during the outage"
start_prom
start_vm
start_influx
log "receivers back"
sleep 1
# A SIGHUP while catching up rebuilds the queues from their saved positions.
kill -HUP "$LLMON_PID"
wait_for "the remote_write reload" 15 grep -q "remote_write config reloaded" "$SCRATCH/llmon.log" ||
  fail "SIGHUP did not reload remote_write"
CUT="$(date +%s)"
# Wait until the queue acknowledged everything up to CUT.
caught_up() {
  local h
  h="$(remote_metric llmon_remote_storage_highest_timestamp_sent_seconds prom)"
  [[ -n "$h" ]] && python3 -c "import sys; sys.exit(0 if float('$h') >= $CUT + 1 else 1)"
}
wait_for "remote_write to catch up past $CUT" 60 caught_up
queue_caught_up() {
  local h
  h="$(remote_metric llmon_remote_storage_highest_timestamp_sent_seconds "$1")"
  [[ -n "$h" ]] && python3 -c "import sys; sys.exit(0 if float('$h') >= $CUT + 1 else 1)"
}
if ((HAVE_INFLUX)); then wait_for "remote_write to InfluxDB to catch up" 60 queue_caught_up influx; fi
if ((HAVE_VM)); then
  wait_for "remote_write to VictoriaMetrics to catch up" 60 queue_caught_up vm
  curl -s --max-time 10 "http://127.0.0.1:$VM_PORT/internal/force_flush" >/dev/null
  sleep 2
fi

raw() {  # raw URL OUT: every raw sample of SELECTOR in the last 10 minutes before CUT
  curl -s --max-time 20 -G "$1/api/v1/query" --data-urlencode "query=${SELECTOR}[10m]" \
    --data-urlencode "time=$CUT" >"$2" || fail "query $1 failed"
}
raw "http://127.0.0.1:$LLMON_PORT" "$SCRATCH/llmon.json"
raw "http://127.0.0.1:$PROM_PORT" "$SCRATCH/prom.json"
compare() {  # compare A B NAME [RELATIVE_TOLERANCE]
  /usr/bin/env python3 - "$@" <<'PY'
import json, sys
def load(p):
    d = json.load(open(p))
    assert d["status"] == "success", d
    out = {}
    for s in d["data"]["result"]:
        key = tuple(sorted(s["metric"].items()))
        pts = [(round(float(t) * 1000), v) for t, v in s["values"]]
        out[key] = pts
    return out
a, b, name = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
# VictoriaMetrics keeps values to about 12 significant decimal digits
# (its documented lossy float compression): compare within 1e-11 there.
tol = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
def same(p, q):
    if len(p) != len(q):
        return False
    for (t1, v1), (t2, v2) in zip(p, q):
        if t1 != t2:
            return False
        if v1 == v2:
            continue
        x, y = float(v1), float(v2)
        if not (abs(x - y) <= tol * max(abs(x), abs(y))):
            return False
    return True
if not a:
    sys.exit("llmon returned no series")
bad = 0
total = 0
for k, pts in a.items():
    got = b.get(k, [])
    total += len(pts)
    if len(got) != len(set(t for t, _ in got)):
        print(f"{name}: {dict(k)}: duplicate timestamps"); bad += 1
    if not same(pts, got):
        missing = sorted(set(pts) - set(got))[:5]
        extra = sorted(set(got) - set(pts))[:5]
        print(f"{name}: {dict(k)}: llmon {len(pts)} samples, {name} {len(got)}; missing {missing} extra {extra}")
        bad += 1
print(f"{name}: {len(a)} series, {total} samples compared, {bad} differ")
sys.exit(1 if bad else 0)
PY
}
compare "$SCRATCH/llmon.json" "$SCRATCH/prom.json" prometheus || fail "Prometheus does not hold exactly llmon's samples"
if ((HAVE_VM)); then
  raw "http://127.0.0.1:$VM_PORT" "$SCRATCH/vm.json"
  compare "$SCRATCH/llmon.json" "$SCRATCH/vm.json" victoriametrics 1e-11 || fail "VictoriaMetrics differs"
fi
if ((HAVE_INFLUX)); then
  curl -s --max-time 60 -G "http://127.0.0.1:$INFLUX_PORT/query" --data-urlencode db=prometheus \
    --data-urlencode epoch=ms --data-urlencode \
    "q=SELECT * FROM /.*/ WHERE time > $((CUT - 600))s AND time <= ${CUT}s" >"$SCRATCH/influx.json" ||
    fail "query InfluxDB failed"
  /usr/bin/env python3 - "$SCRATCH/llmon.json" "$SCRATCH/influx.json" <<'PY' || fail "InfluxDB lacks samples llmon stored"
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "success", d
llmon = {}
for s in d["data"]["result"]:
    pts = [(round(float(t) * 1000), float(v)) for t, v in s["values"]]
    # InfluxDB cannot store NaN or +-Inf: its prom write drops them.
    llmon[tuple(sorted(s["metric"].items()))] = [(t, v) for t, v in pts if math.isfinite(v)]
influx = {}
res = json.load(open(sys.argv[2]))["results"][0]
if "error" in res:
    sys.exit(f"InfluxDB: {res['error']}")
for s in res.get("series", []):
    cols = s["columns"]
    ti, vi = cols.index("time"), cols.index("value")
    for row in s["values"]:
        labels = {"__name__": s["name"]}
        for i, c in enumerate(cols):
            if i not in (ti, vi) and row[i] is not None and c != "__name__":
                labels[c] = row[i]
        influx.setdefault(tuple(sorted(labels.items())), []).append((row[ti], float(row[vi])))
bad = total = 0
for k, pts in llmon.items():
    total += len(pts)
    got = sorted(influx.get(k, []))
    if got != pts:
        bad += 1
        if bad <= 5:
            print(f"influxdb: {dict(k)}: llmon {len(pts)} samples, influxdb {len(got)};"
                  f" missing {sorted(set(pts) - set(got))[:3]} extra {sorted(set(got) - set(pts))[:3]}")
print(f"influxdb: {len(llmon)} series, {total} finite samples compared, {bad} differ")
sys.exit(1 if bad or not llmon else 0)
PY
fi
log "PASS"
