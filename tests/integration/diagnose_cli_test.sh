#!/usr/bin/env bash
# `llmon diagnose` end to end, both ways: against a running agent (--url, its
# /api/v1/diagnosis) and against the agent's data directory afterwards
# (--storage.path, read-only). The agent runs on the fake NVML library's 8x
# H100 scenario, where GPU 2 sits at its power cap (sw_power_cap active) while
# busy: both must report power_throttling for GPU 2, exit 1 (a warning), and
# give the same JSON schema with 8 GPUs in the summary; the agent's continuous
# diagnosis (--diagnose.interval) stores the finding as llmon_diagnosis_finding.
# Usage: diagnose_cli_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # llmon_URL comes from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"
FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
[[ -f "$FAKE" ]] || fail "fake NVML not built next to $LLMON (expected $FAKE)"
export LLMON_FAKE_NVML_SCENARIO="$REPO/tests/fake_nvml/scenarios/h100x8.json"
start_llmon --nvml.library="$FAKE" --diagnose.interval=2s --window=1m
sleep 12  # a dozen cycles in the 1 m window

check() {  # check FILE WHAT
  python3 - "$1" "$2" <<'PY' || fail "$2: unexpected diagnosis (see $1)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "llmon.diagnosis.v1", d
assert d["summary"]["gpus"] == 8, d["summary"]
power = [f for f in d["findings"] if f["kind"] == "power_throttling"]
assert [f["subject"]["gpu"] for f in power] == ["2"], [(f["kind"], f["subject"]) for f in d["findings"]]
assert power[0]["severity"] == "warning" and power[0]["evidence"], power[0]
assert any("sw_power_cap" in e["expr"] for e in power[0]["evidence"]), power[0]["evidence"]
print(sys.argv[2], "ok:", [(f["kind"], f["subject"].get("gpu")) for f in d["findings"]])
PY
}

"$LLMON" diagnose --url="$llmon_URL" --window=1m --json >"$SCRATCH/url.json" 2>"$SCRATCH/url.err"
rc=$?
[[ $rc -eq 1 ]] || fail "--url: exit $rc, want 1 (a warning): $(cat "$SCRATCH/url.err")"
check "$SCRATCH/url.json" "--url"
"$LLMON" diagnose --url="$llmon_URL" --window=1m >"$SCRATCH/url.txt" 2>&1
grep -q '^\[warning\] power_throttling' "$SCRATCH/url.txt" || fail "--url text: $(head -5 "$SCRATCH/url.txt")"
grep -q '  evidence: ' "$SCRATCH/url.txt" || fail "--url text has no evidence lines"
# The continuous diagnosis stores the findings as series.
fetch "$llmon_URL/api/v1/query?query=llmon_diagnosis_finding%7Bkind%3D%22power_throttling%22%7D" "$SCRATCH/series.json"
python3 - "$SCRATCH/series.json" <<'PY' || fail "llmon_diagnosis_finding: $(cat "$SCRATCH/series.json")"
import json, sys
r = json.load(open(sys.argv[1]))["data"]["result"]
assert [x["metric"]["gpu"] for x in r] == ["2"], r
m = r[0]["metric"]
assert m["severity"] == "warning" and m["job"] == "llmon" and m["instance"], m
PY
# Cold start of the anomaly baselines: every curated GPU series is stored as not ready, with no score yet.
fetch "$llmon_URL/api/v1/query?query=llmon_anomaly_baseline_ready%7Bmetric%3D%22gpu_util%22%7D" "$SCRATCH/ready.json"
fetch "$llmon_URL/api/v1/query?query=llmon_anomaly_score" "$SCRATCH/score.json"
python3 - "$SCRATCH/ready.json" "$SCRATCH/score.json" <<'PY' || fail "llmon_anomaly_*: $(cat "$SCRATCH/ready.json")"
import json, sys
r = json.load(open(sys.argv[1]))["data"]["result"]
assert len(r) >= 1 and all(x["value"][1] == "0" and x["metric"]["gpu"] and x["metric"]["job"] == "llmon" for x in r), r
assert json.load(open(sys.argv[2]))["data"]["result"] == [], "a score before the baseline is ready"
PY
status="$(http_status "$llmon_URL/api/v1/diagnosis?window=banana")"
[[ "$status" == 400 ]] || fail "a bad window answers $status, want 400"

end_s="$(python3 -c 'import json,sys,datetime; print(int(datetime.datetime.fromisoformat(json.load(open(sys.argv[1]))["end"].replace("Z","+00:00")).timestamp()))' "$SCRATCH/url.json")"
stop_pid "$llmon_PID"
"$LLMON" diagnose --storage.path="$SCRATCH/llmon-data" --time="$end_s" --window=1m \
  --diagnose.selector='job="llmon"' --json >"$SCRATCH/dir.json" 2>"$SCRATCH/dir.err"
rc=$?
[[ $rc -eq 1 ]] || fail "--storage.path: exit $rc, want 1: $(cat "$SCRATCH/dir.err")"
check "$SCRATCH/dir.json" "--storage.path"
"$LLMON" diagnose --storage.path="$SCRATCH/missing" --window=1m >/dev/null 2>"$SCRATCH/missing.err"
[[ $? -eq 2 ]] || fail "a missing store must exit 2"
"$LLMON" diagnose --diagnose.gpu-price=H100 --storage.path="$SCRATCH/llmon-data" >/dev/null 2>"$SCRATCH/price.err"
[[ $? -eq 2 ]] && grep -q 'MODEL=PRICE' "$SCRATCH/price.err" || fail "a bad price must exit 2 naming the form: $(cat "$SCRATCH/price.err")"
log "ok"
