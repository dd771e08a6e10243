#!/usr/bin/env bash
# Grafana's Prometheus data source against llmon: backfills one hour of node,
# GPU and histogram data with `llmon tsdb import`, starts `llmon agent
# --collector.disable-defaults` over that store, and replays the requests
# Grafana sends (tests/integration/grafana_requests.txt: Save & test, the
# query editor's metadata calls, dashboard queries as form POSTs), checking
# each status code and the JSON shape Grafana parses, then the values of the
# dashboard queries. Then `llmon query` against the same agent, and an agent
# without a store (503 unavailable).
# Usage: grafana_api_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL/PORT/PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"

REQUESTS="$(dirname "$0")/grafana_requests.txt"
DATA="$SCRATCH/llmon-data"
RETENTION=20y  # the data are from 2023: keep them

# 1. One hour (1700000000-1700003600 s) at 15 s: CPU counters with constant
#    rates, GPU framebuffer gauges, a step-time histogram. Timestamps in ms.
python3 - "$SCRATCH/backfill.prom" <<'EOF'
import sys
t0, step, n = 1700000000, 15, 241
out = []
out.append("# TYPE node_cpu_seconds_total counter")
for cpu in ("0", "1"):
    for mode, rate in (("idle", 0.9), ("user", 0.1)):
        for i in range(n):
            out.append('node_cpu_seconds_total{cpu="%s",instance="gpu01:9100",job="node",mode="%s"} %r %d'
                       % (cpu, mode, 1000 + rate * step * i, (t0 + step * i) * 1000))
out.append("# TYPE DCGM_FI_DEV_FB_USED gauge")
out.append("# TYPE DCGM_FI_DEV_FB_FREE gauge")
for gpu in ("0", "1"):
    for name, v in (("DCGM_FI_DEV_FB_USED", 30000), ("DCGM_FI_DEV_FB_FREE", 50000)):
        for i in range(n):
            out.append('%s{Hostname="gpu01",gpu="%s",instance="gpu01:9400",job="dcgm"} %d %d'
                       % (name, gpu, v, (t0 + step * i) * 1000))
out.append("# TYPE llm_step_seconds histogram")
for le, inc in (("0.1", 1), ("0.5", 5), ("1", 9), ("+Inf", 10)):
    for i in range(n):
        out.append('llm_step_seconds_bucket{instance="gpu01:9500",job="trainer",le="%s"} %d %d'
                   % (le, inc * i, (t0 + step * i) * 1000))
for i in range(n):
    out.append('up{instance="gpu01:9100",job="node"} 1 %d' % ((t0 + step * i) * 1000))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF
"$LLMON" tsdb import "$SCRATCH/backfill.prom" --storage.path="$DATA" --storage.retention.time="$RETENTION" \
  >"$SCRATCH/import.log" 2>&1 || fail "llmon tsdb import failed: $(tail -n 5 "$SCRATCH/import.log")"
grep -q "invalid_lines=0" "$SCRATCH/import.log" || fail "import reported invalid lines: $(cat "$SCRATCH/import.log")"

start_llmon --collector.disable-defaults --rules.defaults=false --storage.retention.time="$RETENTION" --log.level=warn
URL="$llmon_URL"

# check_shape FILE PATH STATUS: the envelope and the `data` shape Grafana
# parses for that endpoint; prints what is wrong, nothing when all is well.
check_shape() {
  python3 - "$@" <<'EOF'
import json, sys
path_q, status = sys.argv[2], int(sys.argv[3])
path = path_q.split("?")[0]
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("not JSON: %s" % e); sys.exit()
def strs(x): return isinstance(x, list) and all(isinstance(s, str) for s in x)
def labelset(x): return isinstance(x, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in x.items())
def point(p): return isinstance(p, list) and len(p) == 2 and isinstance(p[0], (int, float)) and isinstance(p[1], str) and (float(p[1]) == float(p[1]) or p[1] == "NaN")
problems = []
for k in ("warnings", "infos"):
    if k in d and (not strs(d[k]) or not d[k]):
        problems.append("%s must be a non-empty list of strings when present" % k)
if status != 200:
    if d.get("status") != "error" or not isinstance(d.get("errorType"), str) or not isinstance(d.get("error"), str) or "data" in d:
        problems.append("bad error envelope")
else:
    data = d.get("data")
    if d.get("status") != "success" or "errorType" in d or "error" in d:
        problems.append("bad success envelope")
    elif path in ("/api/v1/query", "/api/v1/query_range"):
        t, r = data.get("resultType"), data.get("result")
        if path.endswith("_range") and t != "matrix":
            problems.append("range query resultType %r" % t)
        if t in ("scalar", "string"):
            ok = point(r) if t == "scalar" else (isinstance(r, list) and len(r) == 2 and isinstance(r[1], str))
        elif t == "vector":
            ok = isinstance(r, list) and all(set(s) == {"metric", "value"} and labelset(s["metric"]) and point(s["value"]) for s in r)
        elif t == "matrix":
            ok = isinstance(r, list) and all(set(s) == {"metric", "values"} and labelset(s["metric"]) and s["values"] and all(point(p) for p in s["values"]) for s in r)
        else:
            ok = False
        if not ok:
            problems.append("bad %s result" % t)
    elif path == "/api/v1/series":
        if not (isinstance(data, list) and all(labelset(s) and "__name__" in s for s in data)):
            problems.append("series: not a list of label sets")
    elif path == "/api/v1/labels" or path.startswith("/api/v1/label/"):
        if not strs(data) or data != sorted(set(data)):
            problems.append("not a sorted list of unique strings")
    elif path == "/api/v1/metadata":
        if not (isinstance(data, dict) and all(isinstance(v, list) and v and all(set(m) == {"type", "help", "unit"} for m in v) for v in data.values())):
            problems.append("metadata: not {metric: [{type, help, unit}]}")
    elif path == "/api/v1/status/buildinfo":
        if not (isinstance(data, dict) and isinstance(data.get("version"), str) and data["version"]):
            problems.append("buildinfo: no version")
        if "features" in data:
            problems.append("buildinfo: a `features` field makes Grafana treat the source as Mimir")
    else:
        problems.append("no shape check for %s" % path)
print("; ".join(problems))
EOF
}

# 2. Replay Grafana's requests.
n=0
while read -r want method target body; do
  [[ -z "$want" || "$want" == \#* ]] && continue
  n=$((n + 1))
  out="$SCRATCH/resp.$n.json"
  args=(-s -o "$out" -w '%{http_code}' --max-time 30 -X "$method")
  if [[ "$method" == POST ]]; then
    args+=(-H 'Content-Type: application/x-www-form-urlencoded' --data-binary "${body:-}")
  fi
  code="$(curl "${args[@]}" "$URL$target")" || fail "request $n ($method $target) failed: curl exit $?"
  [[ "$code" == "$want" ]] || fail "request $n: $method $target ${body:-} answered $code, want $want: $(head -c 400 "$out")"
  problems="$(check_shape "$out" "$target" "$code")"
  [[ -z "$problems" ]] || fail "request $n: $method $target ${body:-}: $problems: $(head -c 400 "$out")"
  printf '%s\t%s %s %s\n' "$n" "$method" "$target" "${body:-}" >>"$SCRATCH/index.tsv"
done <"$REQUESTS"
((n >= 20)) || fail "only $n requests in $REQUESTS"
log "$n Grafana requests answered with the expected status and JSON shape"

# 3. Values: the answers to particular requests, located by their text.
# expect NEEDLE PYTHON_EXPR WANT: eval(PYTHON_EXPR) on the answer (as `d`) to
# the first request whose "METHOD TARGET BODY" contains NEEDLE must print WANT.
expect() {
  local i file got
  i="$(grep -F -- "$1" "$SCRATCH/index.tsv" | head -n 1 | cut -f 1)"
  [[ -n "$i" ]] || fail "no request matching \"$1\" in $REQUESTS"
  file="$SCRATCH/resp.$i.json"
  got="$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$file" "$2" 2>&1)"
  [[ "$got" == "$3" ]] || fail "$1: $2 gave \"$got\", want \"$3\" (answer: $(head -c 300 "$file"))"
}
expect "query=1%2B1&time=4" 'd["data"]' "{'resultType': 'scalar', 'result': [4, '2']}"
expect "/api/v1/status/buildinfo" 'd["data"]["version"] == "'"$("$LLMON" version | cut -d' ' -f2)"'"' "True"
expect "/api/v1/label/__name__/values" '[m for m in d["data"] if not m.startswith("llmon_") and not m.startswith("node_scrape")]' \
  "['DCGM_FI_DEV_FB_FREE', 'DCGM_FI_DEV_FB_USED', 'llm_step_seconds_bucket', 'node_cpu_seconds_total', 'up']"
expect "GET /api/v1/labels?start=1700000000&end=1700003600&match" 'd["data"]' "['__name__', 'cpu', 'instance', 'job', 'mode']"
expect "/api/v1/series?start=1700000000&end=1700003600&match%5B%5D=node_cpu" 'len(d["data"]), sorted({s["mode"] for s in d["data"]})' \
  "(4, ['idle', 'user'])"
expect "DCGM_FI_DEV_FB_USED%22%7D&limit" '[s["gpu"] for s in d["data"]]' "['0', '1']"
expect "/api/v1/label/job/values" 'd["data"]' "['node']"
expect "/api/v1/label/mode/values" 'd["data"]' "['idle', 'user']"
expect "/api/v1/label/instance/values" '[i for i in d["data"] if i.startswith("gpu01")]' \
  "['gpu01:9100', 'gpu01:9400', 'gpu01:9500']"
expect "/api/v1/metadata" 'all(v[0]["type"] in ("counter", "gauge", "unknown") for v in d["data"].values())' "True"
# rate of counters growing 0.9/s and 0.1/s; 240 steps have two samples in 1m.
expect "query=rate%28node_cpu_seconds_total%5B1m%5D%29&start=1700000000&" \
  'len(d["data"]["result"]), sorted({(s["metric"]["mode"], len(s["values"]), round(float(s["values"][-1][1]), 9)) for s in d["data"]["result"]}), "__name__" in d["data"]["result"][0]["metric"]' \
  "(4, [('idle', 240, 0.9), ('user', 240, 0.1)], False)"
expect "sum+by+%28instance%2C+mode%29" 'sorted((sorted(s["metric"].items()), round(float(s["values"][-1][1]), 9)) for s in d["data"]["result"])' \
  "[([('instance', 'gpu01:9100'), ('mode', 'idle')], 1.8), ([('instance', 'gpu01:9100'), ('mode', 'user')], 0.2)]"
expect "DCGM_FI_DEV_FB_USED+%2F+" '{float(v[1]) for s in d["data"]["result"] for v in s["values"]}, len(d["data"]["result"][0]["values"])' \
  "({0.375}, 61)"
expect "histogram_quantile" 'round(float(d["data"]["result"][0]["values"][-1][1]), 9), d["data"]["result"][0]["metric"]' "(1.0, {})"
expect "start=1700000000.123" 'd["data"]["result"][0]["values"][0][0], d["data"]["result"][0]["values"][-1][0]' \
  "(1700000015.123, 1700003600.123)"
expect "GET /api/v1/query_range?query=up" 'len(d["data"]["result"][0]["values"])' "241"
expect "query=sum+by+%28instance%29" 'd["data"]["result"]' \
  "[{'metric': {'instance': 'gpu01:9400'}, 'value': [1700003600, '60000']}]"
expect "query=topk" 'd["data"]["result"][0]["value"]' "[1700003600.5, '30000']"
expect "query=rate%28node_cpu_seconds_total%29" 'd["errorType"], d["error"]' \
  "('bad_data', '1:6: parse error: expected type range vector in call to function \"rate\", got instant vector')"
expect "step=0" 'd["error"]' \
  'invalid parameter "step": zero or negative query resolution step widths are not accepted. Try a positive integer'
expect "query=sum%28&time" 'd["error"]' 'invalid parameter "query": 1:5: parse error: unclosed left parenthesis'
log "dashboard values as expected"

# 4. `llmon query` against the same agent.
run_query() { "$LLMON" query --url="$URL" "$@"; }
got="$(run_query '1+1' --time=4)" || fail "llmon query 1+1 exited $?"
[[ "$got" == "2" ]] || fail "llmon query 1+1 printed \"$got\""
got="$(run_query 'DCGM_FI_DEV_FB_USED' --time=1700003600)" || fail "llmon query (instant) exited $?"
want='DCGM_FI_DEV_FB_USED{Hostname="gpu01", gpu="0", instance="gpu01:9400", job="dcgm"} 30000
DCGM_FI_DEV_FB_USED{Hostname="gpu01", gpu="1", instance="gpu01:9400", job="dcgm"} 30000'
[[ "$got" == "$want" ]] || fail "llmon query (instant) printed: $got"
got="$(run_query 'sum(DCGM_FI_DEV_FB_FREE)' --start=1700003570 --end=2023-11-14T23:13:20Z --step=15s)" ||
  fail "llmon query (range) exited $?"
want='{}
  1700003570 100000
  1700003585 100000
  1700003600 100000'
[[ "$got" == "$want" ]] || fail "llmon query (range) printed: $got"
got="$("$LLMON" query 'vector(1)' --time=4 --json --web.listen-address="127.0.0.1:$llmon_PORT")" ||
  fail "llmon query --json exited $?"
[[ "$got" == '{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[4,"1"]}]}}' ]] ||
  fail "llmon query --json printed: $got"
run_query 'sum(' >"$SCRATCH/q.out" 2>"$SCRATCH/q.err"
rc=$?
[[ $rc == 1 ]] || fail "llmon query with a parse error exited $rc, want 1"
grep -qF 'bad_data: invalid parameter "query": 1:5: parse error: unclosed left parenthesis' "$SCRATCH/q.err" ||
  fail "llmon query error text: $(cat "$SCRATCH/q.err")"
run_query 'up' --start=1 >/dev/null 2>"$SCRATCH/q.err"
rc=$?
[[ $rc == 2 ]] || fail "llmon query with --start alone exited $rc, want 2"
"$LLMON" query up --url="http://127.0.0.1:$(free_port)" >/dev/null 2>"$SCRATCH/q.err"
rc=$?
[[ $rc == 2 ]] || fail "llmon query to a closed port exited $rc, want 2"
grep -q "cannot connect" "$SCRATCH/q.err" || fail "llmon query connection error text: $(cat "$SCRATCH/q.err")"
log "llmon query: table, range, --json and exit codes as expected"

# 5. The engine flags reach the engine: a sample limit and the lookback delta.
stop_pid "$llmon_PID"
start_server limited /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --collector.disable-defaults \
  --storage.path="$DATA" --storage.retention.time="$RETENTION" --query.max-samples=100 --query.lookback-delta=1s \
  --log.level=warn
code="$(curl -s -o "$SCRATCH/limited.json" -w '%{http_code}' --max-time 10 \
  "$limited_URL/api/v1/query?query=node_cpu_seconds_total%5B1h%5D&time=1700003600")"
[[ "$code" == 422 ]] || fail "964 samples with --query.max-samples=100 answered $code: $(head -c 300 "$SCRATCH/limited.json")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["errorType"] == "execution", d' \
  "$SCRATCH/limited.json" || fail "sample limit answer: $(cat "$SCRATCH/limited.json")"
got="$(curl -s --max-time 10 "$limited_URL/api/v1/query?query=up&time=1700000007")"
[[ "$got" == '{"status":"success","data":{"resultType":"vector","result":[]}}' ]] ||
  fail "up 7 s after its sample with --query.lookback-delta=1s: $got"
got="$(curl -s --max-time 10 "$limited_URL/api/v1/query?query=up&time=1700000007&lookback_delta=10s")"
[[ "$got" == *'"value":[1700000007,"1"]'* ]] || fail "lookback_delta=10s did not find the sample: $got"
stop_pid "$limited_PID"
log "--query.max-samples and --query.lookback-delta reach the engine"

# 6. No store: the query endpoints answer 503 `unavailable`, buildinfo still works.
start_server nostore /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --collector.disable-defaults \
  --storage.enabled=false --log.level=warn
code="$(curl -s -o "$SCRATCH/nostore.json" -w '%{http_code}' --max-time 10 "$nostore_URL/api/v1/query?query=1")"
[[ "$code" == 503 ]] || fail "query without a store answered $code: $(cat "$SCRATCH/nostore.json")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["errorType"] == "unavailable" and "--storage.enabled=false" in d["error"], d' \
  "$SCRATCH/nostore.json" || fail "unavailable answer: $(cat "$SCRATCH/nostore.json")"
[[ "$(http_status "$nostore_URL/api/v1/status/buildinfo")" == 200 ]] || fail "buildinfo without a store is not 200"
log "without a store: 503 unavailable"
