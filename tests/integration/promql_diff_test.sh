#!/usr/bin/env bash
# Differential test of llmon's PromQL engine and query API against a real
# Prometheus 2.42 (docs/promql-compat.md, "Differential testing against
# Prometheus"). Both get the same generated data (tests/promql/diff/gen_data.py):
# Prometheus as blocks written by `promtool tsdb create-blocks-from
# openmetrics`, llmon through `llmon tsdb import`; then compare.py runs the
# generated corpus (gen_queries.py, ~5 000 instant and range requests)
# through both HTTP APIs and fails on any difference not explained in
# tests/promql/diff/known_differences.txt.
#
# The data ends a few minutes before now, so it is inside both servers'
# retention; every query time is relative to the data, not to the clock.
#
# PROMQL_DIFF_MODE=self checks the harness instead of llmon: B is a second
# Prometheus over a copy of the same blocks (everything must pass), then a
# Prometheus over data with one node_load1 sample changed (must fail).
# ITEST_KEEP_SCRATCH_ON_FAILURE=1 keeps the data, corpus and report.
# Usage: promql_diff_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL/PORT/PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"

PROM="${PROMETHEUS:-prometheus}"
PROMTOOL="${PROMTOOL:-promtool}"
require_cmd "$PROM" || skip "prometheus not installed (apt-get install prometheus)"
require_cmd "$PROMTOOL" || skip "promtool not installed (apt-get install prometheus)"
require_cmd python3 || skip "python3 not installed"
DIFF="$REPO/tests/promql/diff"
MODE="${PROMQL_DIFF_MODE:-llmon}"
JOBS="${PROMQL_DIFF_JOBS:-4}"

# 0. The comparer itself (no servers).
python3 "$DIFF/compare_selftest.py" >"$SCRATCH/selftest.log" 2>&1 || {
  cat "$SCRATCH/selftest.log" >&2
  fail "compare_selftest.py failed"
}

# 1. Data and corpus. The data ends on a whole minute, 2 minutes ago.
END_S=$(($(date +%s) / 60 * 60 - 120))
gen() { # gen NAME [gen_data args...]: NAME.om, NAME.prom, NAME.json
  local name="$1"
  shift
  python3 "$DIFF/gen_data.py" --end "$END_S" --openmetrics "$SCRATCH/$name.om" --prom "$SCRATCH/$name.prom" \
    --meta "$SCRATCH/$name.json" "$@" || fail "gen_data.py failed"
}
gen data
python3 "$DIFF/gen_queries.py" --meta "$SCRATCH/data.json" --out "$SCRATCH/corpus.jsonl" ||
  fail "gen_queries.py failed"

# 2. Prometheus over promtool-made blocks.
printf 'global:\n  evaluation_interval: 1m\n' >"$SCRATCH/prometheus.yml" # 1m: the default subquery step
start_prom() { # start_prom NAME DATA_DIR
  START_TIMEOUT_S=60 start_server "$1" /-/ready "$PROM" \
    --config.file="$SCRATCH/prometheus.yml" \
    --storage.tsdb.path="$2" \
    --web.listen-address=127.0.0.1:@PORT@ \
    --log.level=warn
}
blocks() { # blocks NAME.om DIR
  mkdir -p "$2"
  "$PROMTOOL" tsdb create-blocks-from openmetrics "$1" "$2" >"$SCRATCH/promtool.log" 2>&1 || {
    tail -n 20 "$SCRATCH/promtool.log" >&2
    fail "promtool tsdb create-blocks-from openmetrics $1 failed"
  }
}
blocks "$SCRATCH/data.om" "$SCRATCH/prom-a"
start_prom promA "$SCRATCH/prom-a"

compare() { # compare URL_B [compare.py args...]; sets COMPARE_RC
  local b="$1"
  shift
  COMPARE_RC=0
  python3 "$DIFF/compare.py" --a "$promA_URL" --b "$b" --corpus "$SCRATCH/corpus.jsonl" --strict-corpus \
    -j "$JOBS" "$@" || COMPARE_RC=$?
}

if [[ "$MODE" == self ]]; then
  mkdir -p "$SCRATCH/prom-b"
  cp -r "$SCRATCH/prom-a"/01* "$SCRATCH/prom-b/" || fail "cannot copy the blocks"
  start_prom promB "$SCRATCH/prom-b"
  compare "$promB_URL" --report "$SCRATCH/report-same.json"
  [[ $COMPARE_RC -eq 0 ]] || fail "Prometheus vs Prometheus on the same blocks: compare.py exit $COMPARE_RC"
  stop_pid "$promB_PID"
  gen perturbed --perturb node_load1
  blocks "$SCRATCH/perturbed.om" "$SCRATCH/prom-c"
  start_prom promC "$SCRATCH/prom-c"
  compare "$promC_URL" --filter node_load1 --max-print 3 >"$SCRATCH/perturbed.out"
  tail -n 3 "$SCRATCH/perturbed.out" >&2
  [[ $COMPARE_RC -eq 1 ]] || fail "one changed sample went unnoticed (compare.py exit $COMPARE_RC)"
  grep -q '^FAIL .*node_load1' "$SCRATCH/perturbed.out" || fail "the perturbed run reported no node_load1 failure"
  log "harness self-check passed: identical servers agree, one changed sample is caught"
  exit 0
fi

# 3. llmon over the same data, as a pure store and query server.
"$LLMON" tsdb import "$SCRATCH/data.prom" --storage.path="$SCRATCH/llmon-data" >"$SCRATCH/import.log" 2>&1 || {
  cat "$SCRATCH/import.log" >&2
  fail "llmon tsdb import failed"
}
want_samples="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["samples"])' "$SCRATCH/data.json")"
grep -q "accepted=$want_samples " "$SCRATCH/import.log" ||
  fail "llmon tsdb import did not accept all $want_samples samples: $(cat "$SCRATCH/import.log")"
start_llmon --collector.disable-defaults --rules.defaults=false --storage.retention.time=15d --log.level=warn
code="$(http_status "$llmon_URL/api/v1/query?query=1")"
[[ "$code" == 200 ]] || fail "llmon /api/v1/query?query=1 answered HTTP $code"

compare "$llmon_URL" --allowlist "$DIFF/known_differences.txt" --compat-doc "$REPO/docs/promql-compat.md" \
  --report "$SCRATCH/report.json"
case $COMPARE_RC in
0) log "llmon agrees with Prometheus 2.42 on the whole corpus" ;;
1) fail "llmon and Prometheus 2.42 disagree (failures above; ITEST_KEEP_SCRATCH_ON_FAILURE=1 keeps $SCRATCH/report.json)" ;;
*) fail "compare.py could not run (exit $COMPARE_RC)" ;;
esac
