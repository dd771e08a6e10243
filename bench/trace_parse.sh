#!/usr/bin/env bash
# `llmon trace analyze` on a large synthetic Kineto trace, side by side in one
# run with simdjson's On-Demand API doing the same work
# (bench/trace_simdjson_probe, when built) and a straightforward Python `json`
# implementation of the same temporal breakdown (bench/trace_breakdown.py).
# Reports wall time, CPU time, MB/s of raw JSON and peak RSS (/usr/bin/time -v)
# as a markdown table for docs/performance.md; the answers must agree.
# Usage: bench/trace_parse.sh [SIZE_MB=1000] [BUILD_DIR=build]
#   RUNS=3 (best of, for the C++ readers); PYTHON=0 skips the Python run;
#   GZ=1 also measures a gzip -1 copy; TMPDIR decides where the trace is written;
#   BASELINE=PATH/llmon also measures another llmon build (before/after in one run).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SIZE_MB="${1:-1000}"
BUILD="${2:-build}"
RUNS="${RUNS:-3}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LLMON="$BUILD/llmon"
PROBE="$BUILD/bench/trace_simdjson_probe"
PY=/usr/bin/python3
[[ -x "$LLMON" ]] || { echo "build llmon first ($LLMON)" >&2; exit 2; }
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/llmon-trace-bench.XXXXXX")"
bench_on_exit() { rm -rf "$SCRATCH"; }

TRACE="$SCRATCH/trace.json"
log "generating a ${SIZE_MB} MB trace"
"$PY" "$ROOT/bench/trace_gen.py" "$SIZE_MB" "$TRACE"
BYTES="$(stat -c %s "$TRACE")"

# measure NAME CMD...: /usr/bin/time -v of CMD; sets WALL CPU RSS_KB and OUT
measure() {
  local tv="$SCRATCH/time.txt"
  OUT="$(/usr/bin/time -v -o "$tv" "$@")"
  WALL="$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$tv")"
  CPU="$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {print u + s}' "$tv")"
  RSS_KB="$(awk -F': ' '/Maximum resident/ {print $2}' "$tv")"
}
best_of() {  # best wall of RUNS; keeps that run's CPU and RSS
  local bw="" bc="" br=""
  for _ in $(seq "$RUNS"); do
    measure "$@"
    if [[ -z "$bw" ]] || awk -v a="$WALL" -v b="$bw" 'BEGIN {exit !(a < b)}'; then bw="$WALL" bc="$CPU" br="$RSS_KB"; fi
  done
  WALL="$bw" CPU="$bc" RSS_KB="$br"
}
row() {  # NAME FILE_BYTES
  awk -v n="$1" -v b="$2" -v w="$WALL" -v c="$CPU" -v r="$RSS_KB" 'BEGIN {
    printf "| %s | %.0f | %.2f | %.2f | %.0f | %.0f | %.0f | %.2f |\n", n, b / 1e6, w, c, b / 1e6 / w, b / 1e6 / c, r / 1024, r * 1024 / b }'
}

echo "| reader | MB | wall s | CPU s | MB/s (wall) | MB/s (CPU) | peak RSS MB | RSS / file |"
echo "|---|---|---|---|---|---|---|---|"
log "llmon trace analyze --json (best of $RUNS)"
best_of "$LLMON" trace analyze --json "$TRACE"
row "llmon trace analyze (streaming parser)" "$BYTES"
LLMON_IDLE="$(printf '%s' "$OUT" | "$PY" -c 'import json,sys; t=json.load(sys.stdin)["ranks"][0]["temporal"]; print(t["idle_us"], t["compute_us"], t["kernel_time_us"])')"
if [[ -n "${BASELINE:-}" ]]; then
  log "baseline llmon $BASELINE (best of $RUNS)"
  best_of "$BASELINE" trace analyze --json "$TRACE"
  row "llmon trace analyze, baseline build ($BASELINE)" "$BYTES"
fi
if [[ -x "$PROBE" ]]; then
  log "simdjson On-Demand probe (best of $RUNS)"
  best_of "$PROBE" "$TRACE"
  row "simdjson 3.0.1 On-Demand, same builder and analysis" "$BYTES"
  echo "$OUT" >&2
fi
if [[ "${GZ:-0}" == 1 ]]; then
  log "gzip -1 copy"
  gzip -1 -c "$TRACE" >"$TRACE.gz"
  best_of "$LLMON" trace analyze --json "$TRACE.gz"
  row "llmon trace analyze, .json.gz ($(($(stat -c %s "$TRACE.gz") / 1000000)) MB compressed)" "$BYTES"
  if [[ -n "${BASELINE:-}" ]]; then
    best_of "$BASELINE" trace analyze --json "$TRACE.gz"
    row "llmon trace analyze, .json.gz, baseline build" "$BYTES"
  fi
  rm -f "$TRACE.gz"
fi
if [[ "${PYTHON:-1}" == 1 ]]; then
  log "Python json baseline (one run)"
  measure "$PY" "$ROOT/bench/trace_breakdown.py" "$TRACE"
  row "Python $("$PY" -c 'import sys; print(sys.version.split()[0])') json.load + same breakdown" "$BYTES"
  PY_IDLE="$(printf '%s' "$OUT" | "$PY" -c 'import json,sys; t=json.load(sys.stdin); print(t["idle_us"], t["compute_us"], t["kernel_time_us"])')"
  if [[ "$PY_IDLE" != "$LLMON_IDLE" ]]; then
    echo "MISMATCH: llmon idle/compute/kernel $LLMON_IDLE, Python $PY_IDLE" >&2
    exit 1
  fi
  log "answers agree: idle, compute, kernel time (µs) = $LLMON_IDLE"
fi
