#!/usr/bin/env bash
# The whole default cycle against the raw read floor of the same files (issue 15's "within 2x
# the raw read floor"): records, with strace, every /proc and /sys file the agent opens and
# every statfs it makes over CYCLES collection cycles (default collectors, store off, GPU
# collector on whatever this host has), writes them as "read PATH"/"statfs PATH" lines, then
# runs collect_bench's BM_CollectAllDefaults and BM_FloorOfAllDefaults (those files read the
# collectors' way, descriptors kept open) in one process and prints the ratio.
# Usage: bench/cycle_floor.sh   Env: BUILD (<repo>/build), CYCLES (5), REPS (5), SCRATCH
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BUILD:-$REPO/build}"
CYCLES="${CYCLES:-5}"; REPS="${REPS:-5}"
SCRATCH="${SCRATCH:-/tmp/llmon-cycle-floor}"
command -v strace >/dev/null || { echo "strace not installed (apt-get install strace)" >&2; exit 2; }
[[ -x "$BUILD/bench/collect_bench" ]] || { echo "build collect_bench first (ninja -C $BUILD collect_bench)" >&2; exit 2; }
mkdir -p "$SCRATCH"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
timeout -s INT "$((CYCLES + 1))" strace -f -qq -y -e trace=openat,statfs -o "$SCRATCH/trace.txt" \
  "$BUILD/llmon" agent --storage.enabled=false --web.listen-address="127.0.0.1:$port" >"$SCRATCH/agent.log" 2>&1 || true
# With -y: openat(AT_FDCWD, "/proc/stat", O_RDONLY|O_CLOEXEC) = 7</proc/stat>, also for opens relative to a
# directory descriptor (openat(5</sys/class/net/eth0>, "speed", ...)): the path after "= N<" is the file.
# statfs("/", {...}) = 0.
{
  grep -E 'openat\(.*\) = [0-9]+<' "$SCRATCH/trace.txt" | grep -v O_DIRECTORY |
    sed -E 's/.*\) = [0-9]+<([^>]+)>$/\1/' | { grep -E '^/(proc|sys)/' || true; } |
    sed -E 's#^/proc/[0-9]{2,}/#/proc/self/#; s/^/read /'  # -y resolves /proc/self (and /proc/net) to the PID
  grep -E 'statfs\("[^"]+", .*\) = 0$' "$SCRATCH/trace.txt" | sed -E 's/^[0-9]+ +statfs\("([^"]+)".*/statfs \1/' || true
} | { grep -vE '^read /proc/(self|[0-9]+)/(maps|exe|cmdline)$' || true; } | sort -u >"$SCRATCH/cycle_files.txt"
echo "recorded $(grep -c '^read ' "$SCRATCH/cycle_files.txt") files and $(grep -c '^statfs ' "$SCRATCH/cycle_files.txt") statfs over $CYCLES s" >&2
LLMON_CYCLE_FILES="$SCRATCH/cycle_files.txt" "$BUILD/bench/collect_bench" \
  --benchmark_filter='^(BM_CollectAllDefaults|BM_FloorOfAllDefaults)/' --benchmark_repetitions="$REPS" \
  --benchmark_report_aggregates_only=true --benchmark_out="$SCRATCH/bench.json" --benchmark_out_format=json >"$SCRATCH/bench.txt"
python3 - "$SCRATCH/bench.json" <<'PY'
import json, sys
b = {r["run_name"].split("/")[0]: r for r in json.load(open(sys.argv[1]))["benchmarks"] if r.get("aggregate_name") == "median"}
cyc, flo = b["BM_CollectAllDefaults"], b["BM_FloorOfAllDefaults"]
unit = {"ns": 1e-3, "us": 1, "ms": 1e3}
c = cyc["cpu_time"] * unit[cyc["time_unit"]]; f = flo["cpu_time"] * unit[flo["time_unit"]]  # process CPU
print(f"CPU per cycle: BM_CollectAllDefaults {c:.1f} us, BM_FloorOfAllDefaults {f:.1f} us ({int(flo['files'])} files, "
      f"{int(flo['statfs'])} statfs, {int(flo['bytes_per_pass'])} B), ratio {c / f:.2f}x")
PY
