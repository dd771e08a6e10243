#!/usr/bin/env bash
# `llmon snapshot` shows a running agent's top diagnosis findings
# (docs/snapshot.md "Findings"): an agent serves a store holding the
# gpu_memory_pressure scenario of tests/diagnose/scenarios.py ending now;
# the snapshot with --url lists the finding (text and JSON) with the process
# that holds the memory; against a port where nothing listens it says there
# is no agent and still prints the rest.
# Usage: snapshot_findings_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"

python3 "$REPO/tests/diagnose/scenarios.py" write "$SCRATCH/data" --only gpu_memory_pressure --step 5 \
  --end "$(date +%s)" >/dev/null || fail "scenarios.py failed"
"$LLMON" tsdb import "$SCRATCH/data/gpu_memory_pressure.prom" --storage.path="$SCRATCH/llmon-data" \
  >"$SCRATCH/import.log" 2>&1 || fail "import failed: $(cat "$SCRATCH/import.log")"
start_llmon --collector.disable-defaults --logwatch.enabled=false --rules.defaults=false \
  --diagnose.interval=0s --diagnose.selector='job="llmon",instance="node1:8747"'

SNAP=("$LLMON" snapshot --collector.disable-defaults --collector.meminfo --snapshot.interval=200ms)
"${SNAP[@]}" --url="$llmon_URL" >"$SCRATCH/snap.txt" 2>"$SCRATCH/snap.err" || fail "snapshot: $(cat "$SCRATCH/snap.err")"
grep -q "^FINDINGS  from the agent at $llmon_URL over the last 900 s" "$SCRATCH/snap.txt" ||
  fail "no FINDINGS section: $(cat "$SCRATCH/snap.txt")"
grep -Eq '^  (warning|critical) +gpu_memory_pressure +GPU 0 .*process 4101 holds' "$SCRATCH/snap.txt" ||
  fail "the finding is not listed: $(sed -n '/^FINDINGS/,$p' "$SCRATCH/snap.txt")"
"${SNAP[@]}" --url="$llmon_URL" --json >"$SCRATCH/snap.json" 2>&1 || fail "snapshot --json failed"
python3 - "$SCRATCH/snap.json" "$llmon_URL" <<'PY' || fail "snapshot --json findings (above)"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
print(f[:1], file=sys.stderr)
assert d["findings_source"] == sys.argv[2] and d["findings_window_seconds"] == 900, d["findings_source"]
assert f and f[0]["kind"] == "gpu_memory_pressure" and f[0]["subject"]["gpu"] == "0", f
assert f[0]["subject"]["pid"] == "4101" and f[0]["severity"] in ("warning", "critical"), f
PY

# Nothing at the URL: a note, the rest of the snapshot, exit 0.
dead="http://127.0.0.1:$(free_port)"
"${SNAP[@]}" --url="$dead" >"$SCRATCH/dead.txt" 2>&1 || fail "snapshot against a dead URL failed"
grep -q "^FINDINGS  no findings: $dead: " "$SCRATCH/dead.txt" || fail "no note: $(cat "$SCRATCH/dead.txt")"
grep -q "^MEM " "$SCRATCH/dead.txt" || fail "the snapshot itself is missing"
log "snapshot lists the agent's findings and says so when there is no agent"
