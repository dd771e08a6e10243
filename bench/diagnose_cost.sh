#!/usr/bin/env bash
# The cost of `llmon diagnose` (issue 17, docs/performance.md "Diagnosis cost"): one process
# run, opening the store, every detector, the JSON report, on a store imported from a labelled
# scenario of tests/diagnose/scenarios.py (8 GPUs, healthy training: every detector runs all
# its queries; a finding would add only a few):
#   - a 15-minute window at the end of 1 hour written every STEP_15M s (default 1, the agent's
#     collection interval),
#   - a 24-hour window over 24 hours written every STEP_24H s (default 5).
# Measures each with hyperfine (RUNS runs after 2 warm-ups; mean, stddev, min, max) and the
# peak RSS with /usr/bin/time; prints the load average before and after. Targets: < 100 ms and
# < 2 s. Scratch data (stores, scenario files) goes to $SCRATCH and is kept for reruns
# (delete it to regenerate).
#
# Usage: bench/diagnose_cost.sh [RUNS]
# Env:   LLMON (default <repo>/build/llmon), SCRATCH (default /tmp/llmon-diagnose-cost),
#        STEP_15M (1), STEP_24H (5), SCENARIO (healthy_training)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
RUNS="${1:-10}"
LLMON="${LLMON:-$REPO/build/llmon}"
SCRATCH="${SCRATCH:-/tmp/llmon-diagnose-cost}"
STEP_15M="${STEP_15M:-1}"; STEP_24H="${STEP_24H:-5}"; SCENARIO="${SCENARIO:-healthy_training}"
[[ -x "$LLMON" ]] || { echo "llmon binary not found: $LLMON (build it, or set LLMON)" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine not found" >&2; exit 2; }
mkdir -p "$SCRATCH"

# prepare NAME HOURS STEP -> a store $SCRATCH/NAME/store and the scenario's end time in $SCRATCH/NAME/end
prepare() {
  local name="$1" hours="$2" step="$3" dir="$SCRATCH/$1"
  if [[ -s "$dir/end" && -d "$dir/store" ]]; then return; fi
  rm -rf "$dir/store"; mkdir -p "$dir"
  [[ -s "$dir/data/$SCENARIO.json" ]] ||
    python3 "$REPO/tests/diagnose/scenarios.py" write "$dir/data" --only "$SCENARIO" --hours "$hours" --step "$step" --gzip
  "$LLMON" tsdb import "$dir/data/$SCENARIO.prom.gz" --storage.path="$dir/store" >"$dir/import.log"
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end_ms"] / 1000)' "$dir/data/$SCENARIO.json" >"$dir/end"
}

measure() {
  local name="$1" window="$2" dir="$SCRATCH/$1"
  local cmd="$LLMON diagnose --storage.path=$dir/store --time=$(cat "$dir/end") --window=$window --json"
  # exit 1 means "a finding": not an error here.
  hyperfine -N -i --warmup 2 --runs "$RUNS" --export-json "$dir/hyperfine.json" "$cmd" >"$dir/hyperfine.txt"
  /usr/bin/time -f '%M' -o "$dir/rss" $cmd >"$dir/report.json" || true
  python3 - "$dir/hyperfine.json" "$dir/rss" "$dir/report.json" "$name" "$window" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
rss = int(open(sys.argv[2]).read().split()[-1])
rep = json.load(open(sys.argv[3]))
print(f"{sys.argv[4]:>8}  window {sys.argv[5]:>4}: mean {r['mean'] * 1000:8.1f} ms  stddev {r['stddev'] * 1000:6.1f}  "
      f"min {r['min'] * 1000:8.1f}  max {r['max'] * 1000:8.1f}  runs {len(r['times'])}  peak RSS {rss / 1024:.0f} MiB  "
      f"findings {len(rep['findings'])}  errors {len(rep['errors'])}")
EOF
}

prepare h1 1 "$STEP_15M"
prepare h24 24 "$STEP_24H"
echo "load before: $(cat /proc/loadavg)  ($(nproc) CPUs)"
measure h1 15m
measure h24 24h
echo "load after:  $(cat /proc/loadavg)"
