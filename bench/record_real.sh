#!/usr/bin/env bash
# Records the "real" input of bench/tsdb_compare.sh (its REC): llmon's own /metrics over time.
# Starts `llmon agent` (default collectors, 1 s cycles) on a free 127.0.0.1 port with a fresh
# store under a scratch directory, lets it run MINUTES minutes, stops exactly that PID (SIGTERM,
# up to 10 s, then SIGKILL), and writes `llmon tsdb dump` of the store to OUT: Prometheus text
# with ms timestamps, one sample a line, each series in time order. bench/chunk_data.py reads it
# as it reads a "# SCRAPE" recording. The scratch store is removed at exit.
#
# Usage: bench/record_real.sh MINUTES OUT [AGENT_ARG...]   e.g. bench/record_real.sh 36 "$SCRATCH/rec.txt"
#        AGENT_ARGs go to `llmon agent` (its defaults otherwise, the default rule pack included, whose
#        ALERTS and recording-rule series are then part of the store; --rules.defaults=false leaves them out).
# env:   LLMON (build/llmon), TMPDIR (parent of the scratch directory)
# The figures of docs/performance.md used a 36-minute recording on an otherwise idle 2-core VM.
# NAME_URL/NAME_PID are set by start() (bench/lib.sh) through printf -v.
# shellcheck disable=SC2154
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
LLMON="${LLMON:-$REPO/build/llmon}"
[[ $# -ge 2 && "$1" =~ ^[0-9]+$ && "$1" -gt 0 ]] || { awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0" >&2; exit 2; }
MINUTES="$1" OUT="$2"
shift 2
[[ -x "$LLMON" ]] || { echo "missing $LLMON (ninja -C build llmon, or set LLMON)" >&2; exit 1; }
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/record_real.XXXXXX")"
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"
bench_on_exit() { rm -rf -- "$SCRATCH"; }

start agent /-/ready "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/store" "$@"
log "recording for $MINUTES min (agent pid $agent_PID, log $SCRATCH/agent.log)"
sleep "$((MINUTES * 60))"
kill -0 "$agent_PID" 2>/dev/null || { tail -n 20 "$SCRATCH/agent.log" >&2; echo "the agent exited early" >&2; exit 1; }
stop_pid "$agent_PID"
"$LLMON" tsdb dump --storage.path="$SCRATCH/store" >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
log "wrote $OUT: $(wc -l <"$OUT") samples"
