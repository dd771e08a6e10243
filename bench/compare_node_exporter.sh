#!/usr/bin/env bash
# llmon agent vs prometheus-node-exporter, side by side in one run, both with their default
# collectors on the live /proc and /sys, each on a free 127.0.0.1 port (docs/performance.md).
# Measures: idle CPU over IDLE_S seconds (llmon collects every second, node_exporter only on
# scrape: llmon's CPU per collection cycle = CPU / cycles), then RUNS rounds of N sequential
# scrapes of each (plain and gzip, interleaved) with bench/scrape_bench.py: series, bytes,
# server CPU per scrape and per series, latency median/p99; RSS (VmRSS, VmHWM) after scraping;
# then PACED_S seconds of one gzip scrape per second of each (whole-process CPU per scrape);
# optionally wrk -t1 -c1 -d10s against each; finally the collect_bench floor comparison.
# Prints a table with llmon/node_exporter ratios; raw results go to $SCRATCH.
# It stops exactly the PIDs it started; every wait and loop is bounded.
#
# Usage: bench/compare_node_exporter.sh [RUNS] [N]
# Env:   LLMON (default <repo>/build/llmon), NODE_EXPORTER (default prometheus-node-exporter,
#        Debian's package), SCRATCH (default /tmp/llmon-compare),
#        IDLE_S (30), WARM_S (5), PACED_S (30; 0 skips), WRK (1: run wrk if installed),
#        COLLECT_BENCH (path to collect_bench, default next to $LLMON in bench/; "0" skips),
#        LLMON_PORT, NE_PORT (default: free ports picked by the kernel).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
SCRATCH="${SCRATCH:-/tmp/llmon-compare}"
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"   # start_bg, stop_pid, stop_all (EXIT trap), wait_http, free_port, cpu_ticks, mem_kb

RUNS="${1:-5}"; N="${2:-200}"
IDLE_S="${IDLE_S:-30}"; WARM_S="${WARM_S:-5}"; PACED_S="${PACED_S:-30}"; WRK="${WRK:-1}"
LLMON="${LLMON:-$REPO/build/llmon}"
NE="${NODE_EXPORTER:-prometheus-node-exporter}"
COLLECT_BENCH="${COLLECT_BENCH:-$(dirname "$LLMON")/bench/collect_bench}"
[[ -x "$LLMON" ]] || { echo "llmon binary not found: $LLMON (build it, or set LLMON)" >&2; exit 2; }
command -v "$NE" >/dev/null || { echo "node_exporter not found: $NE" >&2; exit 2; }

OUT="$SCRATCH/compare-$(date +%Y%m%d-%H%M%S)"; mkdir -p "$OUT"
LP="${LLMON_PORT:-$(free_port)}"; NP="${NE_PORT:-$(free_port)}"
[[ "$LP" != "$NP" ]] || NP="$(free_port)"

# cpu_ns PID... -> each process's CPU time in ns (every thread, exited ones included: the
# process CPU-time clock of clock_getcpuclockid(3), (~pid << 3) | CPUCLOCK_SCHED), then the
# CLOCK_MONOTONIC time in ns, all read at one instant. /proc/PID/stat ticks are only 10 ms.
cpu_ns() {
  python3 -c 'import sys, time
print(*[time.clock_gettime_ns(((~int(p)) << 3) | 2) for p in sys.argv[1:]], time.monotonic_ns())' "$@"
}

{
  echo "date=$(date -Is) host=$(uname -n) kernel=$(uname -r) cpus=$(nproc)"
  echo "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "llmon=$("$LLMON" version 2>&1 | head -1) ($LLMON)"
  echo "node_exporter=$("$NE" --version 2>&1 | head -1)"
  echo "runs=$RUNS n=$N idle_s=$IDLE_S llmon_port=$LP ne_port=$NP"
} | tee "$OUT/env.txt"

start_bg "$OUT/llmon.log" "$LLMON" agent --web.listen-address="127.0.0.1:$LP" --no-storage.enabled
L_PID=$LAST_PID
start_bg "$OUT/node_exporter.log" "$NE" --web.listen-address="127.0.0.1:$NP"
N_PID=$LAST_PID
wait_http "http://127.0.0.1:$LP/-/ready"   # llmon: ready after its first cycle
wait_http "http://127.0.0.1:$NP/"          # node_exporter: landing page only, no collection
grep -o 'collectors=[^ ]*' "$OUT/llmon.log" | head -1 | tee "$OUT/llmon_collectors.txt" || true
sleep "$WARM_S"

# --- Idle window: both sampled over the same IDLE_S seconds, no scrapes.
read -r ls0 ns0 w0 <<<"$(cpu_ns "$L_PID" "$N_PID")"; lt0=$(cpu_ticks "$L_PID"); nt0=$(cpu_ticks "$N_PID")
sleep "$IDLE_S"
read -r ls1 ns1 w1 <<<"$(cpu_ns "$L_PID" "$N_PID")"; lt1=$(cpu_ticks "$L_PID"); nt1=$(cpu_ticks "$N_PID")
python3 - "$OUT/idle.json" "$CLK_TCK" "$lt0" "$lt1" "$nt0" "$nt1" "$ls0" "$ls1" "$ns0" "$ns1" "$w0" "$w1" \
  "$(mem_kb "$L_PID" VmRSS)" "$(mem_kb "$N_PID" VmRSS)" <<'PY' | tee "$OUT/idle.txt"
import json, sys
out, hz, lt0, lt1, nt0, nt1, ls0, ls1, ns0, ns1, w0, w1, lrss, nrss = sys.argv[1], *map(int, sys.argv[2:])
wall = (w1 - w0) / 1e9
cycles = round(wall)  # llmon: one cycle per 1 s interval tick
d = {"window_s": round(wall, 2), "llmon_cycles": cycles,
     "llmon_cpu_ms": round((ls1 - ls0) / 1e6, 3), "llmon_cpu_ticks_ms": (lt1 - lt0) * 1000 / hz,
     "llmon_cpu_us_per_cycle": round((ls1 - ls0) / 1e3 / cycles, 1),
     "llmon_cpu_pct": round((ls1 - ls0) / 1e9 / wall * 100, 3),
     "ne_cpu_ms": round((ns1 - ns0) / 1e6, 3), "ne_cpu_ticks_ms": (nt1 - nt0) * 1000 / hz,
     "ne_cpu_pct": round((ns1 - ns0) / 1e9 / wall * 100, 3),
     "llmon_idle_VmRSS_kB": lrss, "ne_idle_VmRSS_kB": nrss}
json.dump(d, open(out, "w"))
print("idle " + " ".join(f"{k}={v}" for k, v in d.items()))
PY

curl -s -m 10 "http://127.0.0.1:$LP/metrics" >"$OUT/llmon_metrics.txt"
curl -s -m 10 "http://127.0.0.1:$NP/metrics" >"$OUT/node_exporter_metrics.txt"

# --- Scrapes: RUNS rounds x {plain, gzip} x {node_exporter, llmon}, interleaved.
: >"$OUT/runs.jsonl"
scrape() {  # scrape NAME PID PORT [--gzip]
  local name=$1 pid=$2 port=$3; shift 3
  local c0 c1 t0 t1 line
  read -r c0 t0 <<<"$(cpu_ns "$pid")"
  line=$(timeout 300 python3 "$HERE/scrape_bench.py" --url "http://127.0.0.1:$port/metrics" --pid "$pid" --n "$N" --max-seconds 120 "$@")
  read -r c1 t1 <<<"$(cpu_ns "$pid")"
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); d.update(server=sys.argv[2], cpu_ns=int(sys.argv[3]), wall_ns=int(sys.argv[4])); print(json.dumps(d))' \
    "$line" "$name" "$((c1 - c0))" "$((t1 - t0))" | tee -a "$OUT/runs.jsonl"
}
for ((r = 1; r <= RUNS; r++)); do
  for gz in "" "--gzip"; do
    scrape node_exporter "$N_PID" "$NP" $gz
    scrape llmon "$L_PID" "$LP" $gz
  done
done
for p in "llmon $L_PID" "node_exporter $N_PID"; do
  read -r name pid <<<"$p"
  echo "after_scrapes server=$name VmRSS_kB=$(mem_kb "$pid" VmRSS) VmHWM_kB=$(mem_kb "$pid" VmHWM)"
done | tee "$OUT/after.txt"

# --- Paced: one gzip scrape per second of each (as Prometheus at scrape_interval 1s) for
# PACED_S seconds, both at once. Whole-process CPU per scrape: for llmon that is its 1 s
# collection cycle + a fresh render + gzip + HTTP + idle wakeups, for node_exporter the same
# set of jobs, so this is the all-inclusive cost of monitoring at a 1 s interval.
if ((PACED_S > 0)); then
  python3 - "$PACED_S" "$L_PID" "$LP" "$N_PID" "$NP" <<'PY' | tee "$OUT/paced.json"
import http.client, json, sys, threading, time
secs = float(sys.argv[1]); servers = {"llmon": (int(sys.argv[2]), int(sys.argv[3])),
                                      "node_exporter": (int(sys.argv[4]), int(sys.argv[5]))}
cpu = lambda pid: time.clock_gettime_ns(((~pid) << 3) | 2)
res = {}
def pace(name, pid, port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    lat, t_next, t_end = [], time.monotonic(), time.monotonic() + secs
    c0 = cpu(pid)
    while time.monotonic() < t_end:
        t0 = time.perf_counter()
        conn.request("GET", "/metrics", headers={"Accept-Encoding": "gzip"})
        conn.getresponse().read()
        lat.append(time.perf_counter() - t0)
        t_next += 1.0
        time.sleep(max(0.0, t_next - time.monotonic()))
    c1 = cpu(pid)
    lat.sort()
    res[name] = {"scrapes": len(lat), "cpu_ms_per_scrape": round((c1 - c0) / 1e6 / len(lat), 3),
                 "lat_ms_median": round(lat[len(lat) // 2] * 1e3, 3), "lat_ms_max": round(lat[-1] * 1e3, 3)}
ts = [threading.Thread(target=pace, args=(n, *v)) for n, v in servers.items()]
for t in ts: t.start()
for t in ts: t.join(secs + 60)
res["ratio_cpu"] = round(res["llmon"]["cpu_ms_per_scrape"] / res["node_exporter"]["cpu_ms_per_scrape"], 4)
print(json.dumps(res))
PY
fi

# --- Optional: wrk, 1 thread, 1 connection, 10 s each; server CPU per request from its CPU clock.
: >"$OUT/wrk.txt"
if [[ "$WRK" == 1 ]] && command -v wrk >/dev/null; then
  for gzh in "" "Accept-Encoding: gzip"; do
    for p in "node_exporter $N_PID $NP" "llmon $L_PID $LP"; do
      read -r name pid port <<<"$p"
      kind=$([[ -n "$gzh" ]] && echo gzip || echo plain)
      f="$OUT/wrk_${name}_$kind.txt"
      read -r c0 _ <<<"$(cpu_ns "$pid")"
      timeout 30 wrk -t1 -c1 -d10s --latency ${gzh:+-H "$gzh"} "http://127.0.0.1:$port/metrics" >"$f" 2>&1 || true
      read -r c1 _ <<<"$(cpu_ns "$pid")"
      reqs=$(awk '/requests in/ {print $1}' "$f"); rps=$(awk '/Requests\/sec/ {print $2}' "$f")
      p50=$(awk '$1 == "50%" {print $2}' "$f"); p99=$(awk '$1 == "99%" {print $2}' "$f")
      cpu=$(awk -v c=$((c1 - c0)) -v n="${reqs:-0}" 'BEGIN {printf "%.1f", (n > 0 ? c / n / 1e3 : 0)}')
      echo "wrk server=$name $kind requests=${reqs:-0} rps=${rps:-0} p50=${p50:-?} p99=${p99:-?} cpu_us_per_req=$cpu" >>"$OUT/wrk.txt"
      echo "wrk $name $kind done" >&2
    done
  done
fi

echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/env.txt"
stop_pid "$L_PID"; stop_pid "$N_PID"

# --- Summary table (medians over RUNS) with llmon/node_exporter ratios.
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import json, os, statistics as st, sys
out = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(out, "runs.jsonl"))]
idle = json.load(open(os.path.join(out, "idle.json")))
after = {}
for l in open(os.path.join(out, "after.txt")):
    kv = dict(x.split("=") for x in l.split()[1:])
    after[kv["server"]] = kv

def med(server, gz, f):
    return st.median(f(r) for r in rows if r["server"] == server and r["gzip"] == gz)

def cpu_ms(r):  # process CPU clock per scrape (ns precision); ticks-based value kept in runs.jsonl
    return r["cpu_ns"] / 1e6 / r["n"]

def cpu_ms_net(r):  # minus the idle background rate over the same wall time (llmon's own cycles)
    rate = idle["llmon_cpu_ms"] / idle["window_s"] if r["server"] == "llmon" else idle["ne_cpu_ms"] / idle["window_s"]
    return max(0.0, (r["cpu_ns"] / 1e6 - rate * r["wall_ns"] / 1e9) / r["n"])

metrics = []
for gz in (False, True):
    t = "gzip" if gz else "plain"
    metrics += [
        (f"series ({t})", lambda s, gz=gz: med(s, gz, lambda r: r["series"]), "{:.0f}"),
        (f"page bytes on wire ({t})", lambda s, gz=gz: med(s, gz, lambda r: r["bytes_on_wire"]), "{:.0f}"),
        (f"server CPU ms/scrape ({t})", lambda s, gz=gz: med(s, gz, cpu_ms), "{:.3f}"),
        (f"  same, minus idle background ({t})", lambda s, gz=gz: med(s, gz, cpu_ms_net), "{:.3f}"),
        (f"  ticks-based (scrape_bench) ({t})", lambda s, gz=gz: med(s, gz, lambda r: r["server_cpu_ms_per_scrape"]), "{:.3f}"),
        (f"server CPU us/series ({t})", lambda s, gz=gz: med(s, gz, lambda r: cpu_ms(r) * 1e3 / r["series"]), "{:.3f}"),
        (f"latency median ms ({t})", lambda s, gz=gz: med(s, gz, lambda r: r["lat_ms_median"]), "{:.3f}"),
        (f"latency p99 ms ({t})", lambda s, gz=gz: med(s, gz, lambda r: r["lat_ms_p99"]), "{:.3f}"),
    ]
metrics += [
    ("idle CPU % of one core", lambda s: idle["llmon_cpu_pct" if s == "llmon" else "ne_cpu_pct"], "{:.3f}"),
    ("VmRSS kB after scrapes", lambda s: float(after[s]["VmRSS_kB"]), "{:.0f}"),
    ("VmHWM kB after scrapes", lambda s: float(after[s]["VmHWM_kB"]), "{:.0f}"),
]
print(f"\n{'metric':40} {'llmon':>12} {'node_exporter':>14} {'llmon/ne':>9}")
for name, f, fmt in metrics:
    lv, nv = f("llmon"), f("node_exporter")
    ratio = f"{lv / nv:.3f}" if nv else "-"
    print(f"{name:40} {fmt.format(lv):>12} {fmt.format(nv):>14} {ratio:>9}")
print(f"\nllmon idle CPU per collection cycle, whole process (cycle + every other wakeup), "
      f"{idle['llmon_cycles']} cycles: {idle['llmon_cpu_us_per_cycle']} us")
rss = lambda s: float(after[s]["VmRSS_kB"])
verdict = lambda ok: "met" if ok else "NOT met"
for label, f in (("raw", cpu_ms), ("minus idle background", cpu_ms_net)):
    per = lambda s: med(s, True, lambda r: f(r) * 1e3 / r["series"])
    q = per("llmon") / per("node_exporter") if per("node_exporter") else float("nan")
    print(f"target scrape CPU/series (gzip, {label}) <= 0.1x node_exporter: {q:.3f}x -> {verdict(q <= 0.1)}")
q = rss("llmon") / rss("node_exporter")
print(f"target VmRSS <= 0.5x node_exporter: {q:.3f}x -> {verdict(q <= 0.5)}")
PY
[[ -s "$OUT/paced.json" ]] && echo "paced 1 Hz gzip scrapes: $(cat "$OUT/paced.json")"
[[ -s "$OUT/wrk.txt" ]] && cat "$OUT/wrk.txt"

# --- The collection-cycle floor comparison (Google Benchmark), servers stopped.
if [[ "$COLLECT_BENCH" != 0 && -x "$COLLECT_BENCH" ]]; then
  echo "collect_bench ($COLLECT_BENCH), loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 600 "$COLLECT_BENCH" --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_color=false \
    --benchmark_out="$OUT/collect_bench.json" --benchmark_out_format=json >"$OUT/collect_bench.txt" 2>&1 || true
  sed -n '/^Median CPU time/,$p' "$OUT/collect_bench.txt"
else
  echo "collect_bench not run (COLLECT_BENCH=$COLLECT_BENCH)"
fi
echo "raw results: $OUT"
