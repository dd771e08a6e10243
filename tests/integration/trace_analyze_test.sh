#!/usr/bin/env bash
# `llmon trace analyze` end to end on the fixtures in tests/fixtures/traces/:
# text and --json output, a directory of ranks, exit codes for a truncated
# file and for usage errors, and a differential check against the Python
# baseline (bench/trace_breakdown.py: HTA's temporal breakdown over json.load)
# on every fixture Python can read, plus the HTA sample traces when present
# (LLMON_TRACE_SAMPLES, default the shared data folder beside the clone).
# Usage: trace_analyze_test.sh path/to/llmon
source "$(dirname "$0")/lib.sh"
itest_init "$@"

FIX="$REPO/tests/fixtures/traces"
PY=/usr/bin/python3
[[ -x "$PY" ]] || skip "$PY not installed"

out="$("$LLMON" trace analyze "$FIX/one_step.json")" || fail "text output failed"
grep -q "temporal breakdown over 0.200 ms: idle 15.00%  compute 60.00%  non-compute 25.00%" <<<"$out" ||
  fail "temporal line: $out"
grep -q "aten::layer_norm   <-- above threshold" <<<"$out" || fail "operator flag missing: $out"
grep -q "skipped 1 events: negative duration (first at byte 3002)" <<<"$out" || fail "skip line: $out"

# A directory: one rank per file, sorted by name; .json.gz read alike.
mkdir -p "$SCRATCH/ranks"
cp "$FIX/one_step.json" "$SCRATCH/ranks/a.json"
cp "$FIX/two_steps_ns.json.gz" "$SCRATCH/ranks/b.json.gz"
"$LLMON" trace analyze --json "$SCRATCH/ranks" >"$SCRATCH/dir.json" || fail "directory failed"
"$PY" - "$SCRATCH/dir.json" <<'PYEOF' || fail "directory JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["threshold"] == 0.3, d
ranks = d["ranks"]
assert [r["rank"] for r in ranks] == [3, 1], [r["rank"] for r in ranks]
assert ranks[1]["temporal"]["kernel_time_us"] == 69.75, ranks[1]["temporal"]
assert ranks[0]["top_operators"][0]["flagged"] is True
PYEOF

# A truncated trace: exit 1 and the byte offset; the good rank still reported.
head -c 1500 "$FIX/one_step.json" >"$SCRATCH/ranks/c.json"
"$LLMON" trace analyze --json "$SCRATCH/ranks" >"$SCRATCH/trunc.json" 2>"$SCRATCH/trunc.err"
rc=$?
[[ $rc == 1 ]] || fail "truncated file: exit $rc, want 1"
grep -q "c.json: byte 1500: truncated: the input ends inside an event that starts at byte" "$SCRATCH/trunc.err" ||
  fail "truncation message: $(cat "$SCRATCH/trunc.err")"
"$PY" -c 'import json,sys; assert len(json.load(open(sys.argv[1]))["ranks"]) == 2' "$SCRATCH/trunc.json" ||
  fail "the readable ranks are not reported"

"$LLMON" trace >/dev/null 2>&1
[[ $? == 2 ]] || fail "no subcommand: want exit 2"
"$LLMON" trace analyze "$SCRATCH/none" >/dev/null 2>&1
[[ $? == 2 ]] || fail "missing file: want exit 2"

# `trace diff`: one fixture against itself has no delta; against another the
# temporal rows come first, then kernels by |delta|.
"$LLMON" trace diff --json "$FIX/one_step.json" "$FIX/one_step.json" >"$SCRATCH/same.json" || fail "diff failed"
"$PY" - "$SCRATCH/same.json" <<'PYEOF' || fail "diff of a trace with itself"
import json, sys
d = json.load(open(sys.argv[1]))
assert all(r["delta_us"] == 0 for k in ("temporal", "kernels", "operators") for r in d[k]), d
assert [r["name"] for r in d["temporal"]] == ["kernel_time", "idle", "compute", "non_compute"], d["temporal"]
PYEOF
out="$("$LLMON" trace diff "$FIX/one_step.json" "$FIX/two_steps_ns.json")" || fail "diff text failed"
grep -q "^temporal breakdown (share of kernel time)" <<<"$out" || fail "diff text: $out"
"$LLMON" trace diff "$FIX/one_step.json" >/dev/null 2>&1
[[ $? == 2 ]] || fail "diff with one argument: want exit 2"

# A directory of ranks gets the per-rank table and the stragglers, which
# equal the Python baseline's (trace_breakdown.py --stragglers).
out="$("$LLMON" trace analyze "$FIX/two_ranks")" || fail "two_ranks failed"
grep -q "^stragglers: 3 collectives matched across ranks" <<<"$out" || fail "stragglers line: $out"
compare_stragglers() {
  local dir="$1"
  "$LLMON" trace analyze --json --trace.top=10 "$dir" >"$SCRATCH/sl.json" || fail "$dir: llmon failed"
  "$PY" "$REPO/bench/trace_breakdown.py" --stragglers $(find "$dir" -maxdepth 1 \( -name '*.json' -o -name '*.json.gz' \) | sort) \
    >"$SCRATCH/sp.json" || fail "$dir: Python --stragglers failed"
  "$PY" "$REPO/tests/tools/trace_analyses_compare.py" --stragglers "$SCRATCH/sl.json" "$SCRATCH/sp.json" ||
    fail "$dir: stragglers differ from the Python baseline"
  log "$(basename "$dir"): stragglers llmon = Python"
}
compare_stragglers "$FIX/two_ranks"

# Differential: llmon's temporal breakdown and the other single-rank analyses
# equal the Python baseline's.
compare() {
  local f="$1" a b
  a="$("$LLMON" trace analyze --json "$f" | "$PY" -c 'import json,sys; t=json.load(sys.stdin)["ranks"][0]["temporal"]; print(t["kernel_time_us"], t["idle_us"], t["compute_us"], t["non_compute_us"])')" ||
    fail "$f: llmon failed"
  b="$("$PY" "$REPO/bench/trace_breakdown.py" "$f" | "$PY" -c 'import json,sys; t=json.load(sys.stdin); print(t.get("kernel_time_us", 0), t.get("idle_us", 0), t.get("compute_us", 0), t.get("non_compute_us", 0))')" ||
    fail "$f: Python baseline failed"
  "$PY" -c 'import sys; a=list(map(float,sys.argv[1].split())); b=list(map(float,sys.argv[2].split())); sys.exit(0 if all(abs(x-y) <= 1e-6*max(1,abs(y)) for x,y in zip(a,b)) else 1)' "$a" "$b" ||
    fail "$f: llmon $a, Python $b"
  "$LLMON" trace analyze --json "$f" >"$SCRATCH/l.json" || fail "$f: llmon failed"
  "$PY" "$REPO/bench/trace_breakdown.py" --analyses "$f" >"$SCRATCH/p.json" || fail "$f: Python --analyses failed"
  "$PY" "$REPO/tests/tools/trace_analyses_compare.py" "$SCRATCH/l.json" "$SCRATCH/p.json" ||
    fail "$f: analyses differ from the Python baseline"
  log "$(basename "$f"): llmon = Python ($a; overlap, idle, launches, queues, bandwidth too)"
}
compare "$FIX/two_steps_ns.json"
compare "$FIX/analyses.json"
compare "$FIX/two_steps_ns.json.gz"
SAMPLES="${LLMON_TRACE_SAMPLES:-$REPO/../shared/data/traces}"
if [[ -d "$SAMPLES" ]]; then
  while IFS= read -r f; do compare "$f"; done < <(find "$SAMPLES" -name '*.json.gz' | sort)
  # Ranks 0 and 1 of one job (sampled): a real directory for the stragglers.
  if [[ -f "$SAMPLES/timeline_analysis/sampled_rank-0.json.gz" && -f "$SAMPLES/trace_filter/sampled_rank-1.json.gz" ]]; then
    mkdir -p "$SCRATCH/sampled"
    ln -s "$SAMPLES/timeline_analysis/sampled_rank-0.json.gz" "$SAMPLES/trace_filter/sampled_rank-1.json.gz" "$SCRATCH/sampled/"
    compare_stragglers "$SCRATCH/sampled"
  fi
else
  log "no sample traces at $SAMPLES: differential on the fixtures only"
fi
log "ok"
