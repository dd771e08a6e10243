#!/usr/bin/env bash
# Log-rule matching throughput, one core: llmon's Matcher with Hyperscan and
# with RE2 alone (build/bench/logwatch_match_bench) against GNU grep
# (LC_ALL=C grep -a -E -c -f) on the same generated file, in the same run
# (issue 18; docs/performance.md "Matching throughput against grep").
# bench/logwatch_match_data.py writes the file (MIB MiB of a training log,
# ~2 % matching lines) and the 50 patterns (the built-in packs' and 31 more).
# Each tool runs REPS times, pinned to one core; MiB/s from the median of
# the whole process's wall time (file in the page cache, pattern compilation
# and start-up included) and, for llmon, of its read+match loop alone (what
# a running agent spends per byte). The matching-line counts of all three
# must agree.
#
#   bench/logwatch_match.sh [--mib 200] [--reps 3] [--build DIR]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MIB=200 REPS=3 BUILD="$HERE/../build"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mib) MIB="$2"; shift 2 ;;
    --reps) REPS="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
BENCH="$BUILD/bench/logwatch_match_bench"
[[ -x "$BENCH" ]] || { echo "build bench/logwatch_match_bench first (ninja -C $BUILD logwatch_match_bench)" >&2; exit 1; }
SCRATCH="$(mktemp -d /tmp/llmon-lwmatch.XXXXXX)"
trap 'rm -rf "$SCRATCH"' EXIT
python3 "$HERE/logwatch_match_data.py" "$SCRATCH" --mib "$MIB"
LOG="$SCRATCH/train.log"
BYTES=$(stat -c %s "$LOG")
cat "$LOG" >/dev/null  # into the page cache
echo "file: $BYTES bytes, $(wc -l <"$LOG") lines; patterns: $(wc -l <"$SCRATCH/patterns.re2"); load: $(cut -d' ' -f1-3 /proc/loadavg)"

# One timed run of "$@" (pinned to one core); prints "seconds count".
timed() {
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$(taskset -c 0 "$@")
  t1=$(date +%s.%N)
  echo "$(echo "$t1 - $t0" | bc -l) $out"
}

declare -A counts
median() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }
for tool in hyperscan re2 grep; do
  times=() inner=()
  for ((i = 0; i < REPS; i++)); do
    case $tool in
      grep) r=$(timed env LC_ALL=C grep -a -E -c -f "$SCRATCH/patterns.ere" "$LOG"); count=${r#* } ;;
      *) r=$(timed "$BENCH" --engine=$tool --patterns="$SCRATCH/patterns.re2" --log="$LOG")
         count=$(sed -n 's/.*matching_lines=\([0-9]*\).*/\1/p' <<<"$r")
         inner+=("$(sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' <<<"$r")")
         [[ $i -eq 0 ]] && echo "  $tool: ${r#* }" ;;
    esac
    times+=("${r%% *}")
    counts[$tool]=$count
  done
  med=$(median "${times[@]}")
  printf '%-10s process median %.3f s %7.1f MiB/s' "$tool" "$med" "$(echo "$BYTES / 1048576 / $med" | bc -l)"
  if [[ ${#inner[@]} -gt 0 ]]; then
    imed=$(median "${inner[@]}")
    printf ' | read+match median %.3f s %7.1f MiB/s' "$imed" "$(echo "$BYTES / 1048576 / $imed" | bc -l)"
  fi
  printf ' | matching lines %s (process runs: %s)\n' "${counts[$tool]}" "${times[*]}"
done
if [[ "${counts[hyperscan]}" != "${counts[re2]}" || "${counts[re2]}" != "${counts[grep]}" ]]; then
  echo "matching-line counts differ: ${counts[*]}" >&2
  exit 1
fi
