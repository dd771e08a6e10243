#!/usr/bin/env bash
# remote_write protocol 2.0 (docs/remote_write.md "Protocol 2.0"): `llmon
# agent` with `protobuf_message: io.prometheus.write.v2.Request` sends
#  * to a 2.0 receiver written from the spec (remote_write_v2_receiver.py:
#    it checks the headers, the symbol table, sorted labels, sample order,
#    and answers with the *-Written headers): every stored sample arrives,
#    with its family's metadata (TYPE/HELP) on the series, and the queue
#    stays on 2.0;
#  * to a real Prometheus 2.42 (a 1.x receiver): the queue falls back to
#    1.0 (llmon_remote_storage_protocol_fallbacks_total 1), every sample
#    still arrives, and the 1.0 metadata requests are acknowledged;
#  * to VictoriaMetrics 1.79 when installed (also a 1.x receiver: a 204
#    without the headers): the same fallback, and samples acknowledged.
# Both compared with llmon's raw samples (`{...}[10m]` at a cut-off).
# Usage: remote_write_v2_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"

PROM="${PROMETHEUS:-prometheus}"
require_cmd "$PROM" || skip "prometheus not installed (apt-get install prometheus)"
require_cmd python3 || skip "python3 not installed"
PY=/usr/bin/python3
[[ -x "$PY" ]] || PY=python3
"$PY" -c 'import ctypes.util, sys; sys.exit(0 if ctypes.util.find_library("snappy") else 1)' ||
  skip "libsnappy not found for the test receiver"

printf 'global:\n  scrape_interval: 1h\n' >"$SCRATCH/prometheus.yml"
mkdir -p "$SCRATCH/tsdb"
start_server prom /-/ready "$PROM" --config.file="$SCRATCH/prometheus.yml" --storage.tsdb.path="$SCRATCH/tsdb" \
  --web.listen-address=127.0.0.1:@PORT@ --web.enable-remote-write-receiver --log.level=warn
HAVE_VM=0
if require_cmd victoria-metrics; then
  HAVE_VM=1
  start_server vm /health victoria-metrics -httpListenAddr=127.0.0.1:@PORT@ -storageDataPath="$SCRATCH/vm" \
    -retentionPeriod=100y -loggerLevel=ERROR
else
  log "victoria-metrics not installed: its fallback is not checked"
fi
start_server v2 /ready "$PY" "$REPO/tests/integration/remote_write_v2_receiver.py" @PORT@ "$SCRATCH/v2.jsonl"

cat >"$SCRATCH/remote_write.yml" <<YML
remote_write:
  - url: http://127.0.0.1:$v2_PORT/api/v1/write
    name: v2
    protobuf_message: io.prometheus.write.v2.Request
    queue_config: {max_samples_per_send: 500, batch_send_deadline: 1s, min_backoff: 50ms, max_backoff: 1s}
  - url: http://127.0.0.1:$prom_PORT/api/v1/write
    name: prom
    protobuf_message: io.prometheus.write.v2.Request
    queue_config: {max_samples_per_send: 500, batch_send_deadline: 1s, min_backoff: 50ms, max_backoff: 1s}
YML
if ((HAVE_VM)); then
  cat >>"$SCRATCH/remote_write.yml" <<YML
  - url: http://127.0.0.1:$vm_PORT/api/v1/write
    name: vm
    protobuf_message: io.prometheus.write.v2.Request
    queue_config: {max_samples_per_send: 500, batch_send_deadline: 1s, min_backoff: 50ms, max_backoff: 1s}
YML
fi
start_llmon --remote-write.config="$SCRATCH/remote_write.yml" --collect.interval=1s --log.level=info

remote_metric() {  # remote_metric NAME QUEUE
  curl -s --max-time 5 "$llmon_URL/metrics" |
    awk -v n="$1" -v q="$2" '$1 ~ "^"n"[{]" && index($1, "remote_name=\""q"\"") {print $2; exit}'
}
sleep 3
CUT="$(date +%s)"
caught_up() {
  local h
  h="$(remote_metric llmon_remote_storage_highest_timestamp_sent_seconds "$1")"
  [[ -n "$h" ]] && "$PY" -c "import sys; sys.exit(0 if float('$h') >= $CUT + 1 else 1)"
}
wait_for "the 2.0 receiver to get samples past $CUT" 60 caught_up v2
wait_for "Prometheus to get samples past $CUT" 60 caught_up prom

[[ -s "$SCRATCH/v2.jsonl.errors" ]] && fail "the 2.0 receiver saw protocol errors: $(head -5 "$SCRATCH/v2.jsonl.errors")"
[[ "$(remote_metric llmon_remote_storage_protocol_fallbacks_total v2)" == 0 ]] ||
  fail "the queue to the 2.0 receiver fell back to 1.0"
[[ "$(remote_metric llmon_remote_storage_protocol_fallbacks_total prom)" == 1 ]] ||
  fail "the queue to Prometheus 2.42 did not fall back to 1.0 once"
curl -s --max-time 5 "$llmon_URL/metrics" >"$SCRATCH/metrics.txt"
grep -q '^llmon_remote_storage_protocol_info{protocol="1.0",remote_name="prom",' "$SCRATCH/metrics.txt" ||
  fail "llmon_remote_storage_protocol_info does not say 1.0 for prom"
grep -q '^llmon_remote_storage_protocol_info{protocol="2.0",remote_name="v2",' "$SCRATCH/metrics.txt" ||
  fail "llmon_remote_storage_protocol_info does not say 2.0 for v2"
grep -q "falling back to 1.0" "$SCRATCH/llmon.log" || fail "the fallback was not logged"
if ((HAVE_VM)); then
  wait_for "VictoriaMetrics to get samples past $CUT" 60 caught_up vm
  [[ "$(remote_metric llmon_remote_storage_protocol_fallbacks_total vm)" == 1 ]] ||
    fail "the queue to VictoriaMetrics did not fall back to 1.0 once"
  [[ "$(remote_metric llmon_remote_storage_samples_dropped_total vm)" == 0 ]] || fail "samples dropped for VictoriaMetrics"
fi
# Once on 1.0 the queue sends the families' MetricMetadata (Prometheus 2.42 takes and ignores it).
[[ "$(remote_metric llmon_remote_storage_metadata_total prom)" =~ ^[1-9] ]] ||
  fail "no 1.0 metadata acknowledged by Prometheus"
[[ "$(remote_metric llmon_remote_storage_metadata_total v2)" == 0 ]] || fail "2.0 sent 1.0 metadata requests"

curl -s --max-time 20 -G "$llmon_URL/api/v1/query" --data-urlencode 'query={__name__=~".+"}[10m]' \
  --data-urlencode "time=$CUT" >"$SCRATCH/llmon.json" || fail "query llmon failed"
curl -s --max-time 20 -G "$prom_URL/api/v1/query" --data-urlencode 'query={__name__=~".+"}[10m]' \
  --data-urlencode "time=$CUT" >"$SCRATCH/prom.json" || fail "query Prometheus failed"
"$PY" - "$SCRATCH/llmon.json" "$SCRATCH/v2.jsonl" "$SCRATCH/prom.json" "$CUT" <<'PY' || fail "samples differ"
import json, math, sys
def load_api(p):
    d = json.load(open(p))
    assert d["status"] == "success", d
    return {tuple(sorted(s["metric"].items())): [(round(float(t) * 1000), v) for t, v in s["values"]]
            for s in d["data"]["result"]}
llmon, prom = load_api(sys.argv[1]), load_api(sys.argv[3])
cut = int(sys.argv[4]) * 1000
lo = cut - 600_000
v2, meta = {}, {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if not (lo < r["t"] <= cut):
        continue
    k = tuple(sorted(r["labels"].items()))
    v = r["v"]
    v = "NaN" if v == "NaN" else repr(float(v))
    v2.setdefault(k, []).append((r["t"], v))
    if "meta" in r:
        meta[r["labels"]["__name__"]] = r["meta"]
def norm(pts):  # Prometheus's API formats values with Go's strconv 'g'; compare as floats
    return [(t, "NaN" if v == "NaN" else repr(float(v))) for t, v in pts]
if not llmon:
    sys.exit("llmon returned no series")
bad = total = 0
for k, pts in llmon.items():
    total += len(pts)
    want = norm(pts)
    for name, got in (("2.0 receiver", sorted(v2.get(k, []))), ("prometheus", norm(prom.get(k, [])))):
        if got != want:
            bad += 1
            if bad < 10:
                print(f"{name}: {dict(k)}: llmon {len(want)} samples, {len(got)} received;"
                      f" missing {sorted(set(want) - set(got))[:3]} extra {sorted(set(got) - set(want))[:3]}")
# Duplicates in the 2.0 receiver (it keeps every sample it was sent; at
# most a resent batch may repeat after a failure, and there was none).
dups = sum(len(p) - len(set(p)) for p in v2.values())
print(f"{len(llmon)} series, {total} samples compared, {bad} differ, {dups} duplicates at the 2.0 receiver")
# Metadata travelled per series: llmon's own families have TYPE and HELP.
m = meta.get("llmon_build_info") or next(iter(meta.values()), None)
print(f"metadata for {len(meta)} metric names, e.g. {m}")
if not meta or not any(x["help"] for x in meta.values()) or not any(x["type"] for x in meta.values()):
    sys.exit("no metadata (TYPE/HELP) on the 2.0 series")
sys.exit(1 if bad or dups else 0)
PY
log "PASS"
