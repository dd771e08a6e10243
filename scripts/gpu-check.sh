#!/usr/bin/env bash
# gpu-check.sh: compares what `llmon snapshot --json` says about the NVIDIA
# GPUs of this host with what nvidia-smi says, field by field, and times
# llmon's GPU sampling. Needs python3 (and an NVIDIA GPU with nvidia-smi for
# the live check). Schema of the JSON: docs/snapshot.md.
#
# Usage:
#   scripts/gpu-check.sh [LLMON]      live check; LLMON defaults to build/llmon
#   scripts/gpu-check.sh --compare SNAPSHOT.json SMI_GPU.csv SMI_APPS.csv [SMI_GPU.csv SMI_APPS.csv ...]
#                                     the comparison only, on saved output
#
# SMI_GPU.csv is the output of
#   nvidia-smi --query-gpu=<GPU_FIELDS below, in that order> --format=csv,noheader,nounits
# (20 columns; a 21st, enforced.power.limit, is optional) and SMI_APPS.csv that of
#   nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader,nounits
# Each CSV pair is one nvidia-smi sample; the live check takes one just before
# and one just after llmon's snapshot. A changing value agrees when llmon's is
# within the tolerance of the range the samples span; a pid nvidia-smi lists
# in every sample must be in llmon's list, and a pid llmon lists must be in
# some sample. Tolerances: utilisation ±10 points, memory ±1% (at least 1 MiB),
# temperature ±2 C, power draw ±10%, power limit ±1%, clocks ±5%, fan ±5
# points; identity fields, P-state, PCIe link gen/width and the set of active
# clock event reasons exactly.
#
# Prints per GPU and field: llmon value, nvidia-smi value, difference,
# tolerance and agree / DIFFER / n/a (not comparable: missing on one side),
# then "N fields agree, M differ, K not comparable".
# Exit: 0 nothing differs, 1 something differs, 2 usage or tool error,
# 77 no nvidia-smi or no NVIDIA GPU (the live check only).
#
# Environment: NVIDIA_SMI (default nvidia-smi), GPU_CHECK_RUNS (timed
# `llmon snapshot` runs, default 3; 0 skips timing), GPU_CHECK_AGENT_SECONDS
# (how long the agent runs to count NVML calls, default 5; 0 skips it),
# GPU_CHECK_LLMON_FLAGS (extra flags for every llmon command, split on spaces).
set -u -o pipefail
export LC_ALL=C

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GPU_FIELDS=(index uuid name pci.bus_id utilization.gpu utilization.memory memory.used memory.total memory.reserved
  temperature.gpu temperature.memory power.draw power.limit clocks.sm clocks.mem pstate fan.speed
  pcie.link.gen.current pcie.link.width.current clocks_event_reasons.active enforced.power.limit)
APP_FIELDS="gpu_uuid,pid,process_name,used_memory"

say() { printf 'gpu-check: %s\n' "$*" >&2; }
die() {
  say "error: $*"
  exit 2
}
skip() {
  say "SKIP: $*"
  exit 77
}
usage() {
  sed -n '7,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# compare SNAPSHOT.json (SMI_GPU.csv SMI_APPS.csv)...: prints the table and
# the summary line; exits 0 / 1 / 2.
compare() {
  python3 - "$@" <<'PY'
import csv, json, math, sys

GPU_FIELDS = ["index", "uuid", "name", "pci.bus_id", "utilization.gpu", "utilization.memory", "memory.used",
              "memory.total", "memory.reserved", "temperature.gpu", "temperature.memory", "power.draw",
              "power.limit", "clocks.sm", "clocks.mem", "pstate", "fan.speed", "pcie.link.gen.current",
              "pcie.link.width.current", "clocks_event_reasons.active", "enforced.power.limit"]
REASON_BITS = [(0x1, "gpu_idle"), (0x2, "applications_clocks_setting"), (0x4, "sw_power_cap"),
               (0x8, "hw_slowdown"), (0x10, "sync_boost"), (0x20, "sw_thermal_slowdown"),
               (0x40, "hw_thermal_slowdown"), (0x80, "hw_power_brake_slowdown"), (0x100, "display_clock_setting")]
MIB = 1024.0 * 1024.0


def fail(msg):
    print("gpu-check: error: " + msg, file=sys.stderr)
    sys.exit(2)


def absent(v):
    # nvidia-smi writes "[N/A]", "[Not Supported]", "[Unknown Error]", "N/A", ...
    return v is None or v == "" or v.startswith("[") or v.upper() == "N/A"


def read_csv(path, min_cols, max_cols):
    rows = []
    try:
        with open(path, newline="") as f:
            for n, rec in enumerate(csv.reader(f, skipinitialspace=True), 1):
                if not rec or all(not c.strip() for c in rec):
                    continue
                if len(rec) == 1 and rec[0].strip().lower().startswith("no "):
                    continue  # "No running processes found"
                if not min_cols <= len(rec) <= max_cols:
                    fail("%s:%d: %d columns, expected %d..%d" % (path, n, len(rec), min_cols, max_cols))
                rows.append([c.strip() for c in rec])
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    return rows


args = sys.argv[1:]
if len(args) < 3 or len(args) % 2 != 1:
    fail("--compare needs SNAPSHOT.json and pairs of SMI_GPU.csv SMI_APPS.csv")
try:
    snap = json.load(open(args[0]))
except (OSError, ValueError) as e:
    fail("%s: %s" % (args[0], e))
if snap.get("schema") != "llmon.snapshot.v1" or not isinstance(snap.get("gpus"), list):
    fail("%s: not an llmon.snapshot.v1 snapshot with gpus[] (schema %r)" % (args[0], snap.get("schema")))

samples = []  # [(gpus by uuid, apps by uuid: {pid: MiB or None})]
for gpath, apath in zip(args[1::2], args[2::2]):
    gpus = {}
    for rec in read_csv(gpath, 20, len(GPU_FIELDS)):
        d = dict(zip(GPU_FIELDS, rec))
        gpus[d["uuid"]] = d
    apps = {}
    for rec in read_csv(apath, 4, 4):
        uuid, pid, _name, mem = rec
        if not pid.isdigit():
            fail("%s: pid %r is not a number" % (apath, pid))
        apps.setdefault(uuid, {})[int(pid)] = None if absent(mem) else float(mem)
    samples.append((gpus, apps))

counts = {"agree": 0, "DIFFER": 0, "n/a": 0}
missing_in_llmon = 0


def show(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return ("%.0f" if v == int(v) else "%.2f") % v
    if isinstance(v, (list, tuple, set)):
        return ",".join(str(x) for x in v) or "none"
    return str(v)


def report(gpu, field, mine, theirs, diff, tol, status):
    global missing_in_llmon
    counts["DIFFER" if status == "DIFFER" else ("n/a" if status.startswith("n/a") else "agree")] += 1
    if status == "n/a (llmon missing)":
        missing_in_llmon += 1
    print("%-4s %-28s %20s %20s %9s %7s  %s" % (gpu, field, mine, theirs, diff, tol, status))


def number(v):
    try:
        x = float(v)
        return x if math.isfinite(x) else None
    except (TypeError, ValueError):
        return None


def check_number(gpu, field, mine, theirs, abs_tol=0.0, rel_tol=0.0, floor=0.0, unit=""):
    """theirs: list of nvidia-smi values (strings or numbers), one per sample."""
    vals = [number(t) for t in theirs if not (isinstance(t, str) and absent(t))]
    vals = [v for v in vals if v is not None]
    tol_text = ("±%g%s" % (abs_tol, unit)) if abs_tol else ("±%g%%" % (rel_tol * 100))
    if not vals or mine is None:
        status = "n/a (llmon missing)" if vals and mine is None else "n/a"
        report(gpu, field, show(mine), show(vals[0]) if vals else "-", "", tol_text, status)
        return
    lo, hi = min(vals), max(vals)
    tol = lambda ref: max(abs_tol, rel_tol * abs(ref), floor)
    ok = lo - tol(lo) <= mine <= hi + tol(hi)
    ref = min(vals, key=lambda v: abs(v - mine))
    theirs_text = show(lo) if lo == hi else "%s..%s" % (show(lo), show(hi))
    report(gpu, field, show(mine), theirs_text, "%+.2f" % (mine - ref), tol_text, "agree" if ok else "DIFFER")


def check_exact(gpu, field, mine, theirs, norm=lambda v: v):
    vals = [norm(t) for t in theirs if not (isinstance(t, str) and absent(t))]
    vals = [v for v in vals if v is not None]
    if not vals or mine is None:
        status = "n/a (llmon missing)" if vals and mine is None else "n/a"
        report(gpu, field, show(mine), show(vals[0]) if vals else "-", "", "exact", status)
        return
    distinct = []
    for v in vals:
        if v not in distinct:
            distinct.append(v)
    theirs_text = " | ".join(show(v) for v in distinct)
    report(gpu, field, show(mine), theirs_text, "", "exact", "agree" if mine in distinct else "DIFFER")


def as_int(v):
    x = number(v)
    return int(x) if x is not None and x == int(x) else None


def pstate(v):
    v = v.strip().upper()
    return int(v[1:]) if v.startswith("P") and v[1:].isdigit() else None


def reasons(v):
    try:
        mask = int(v, 16)
    except ValueError:
        return None
    return tuple(name for bit, name in REASON_BITS if mask & bit)


llmon_gpus = {g.get("uuid"): g for g in snap["gpus"] if g.get("backend") in ("nvml", "", None)}
smi_uuids = []
for gpus, _ in samples:
    for u in gpus:
        if u not in smi_uuids:
            smi_uuids.append(u)

print("%-4s %-28s %20s %20s %9s %7s  %s" % ("gpu", "field", "llmon", "nvidia-smi", "diff", "tol", "result"))
for uuid in smi_uuids:
    rows = [gpus[uuid] for gpus, _ in samples if uuid in gpus]
    col = lambda f: [r[f] for r in rows if f in r]
    idx = rows[0]["index"]
    print("\nGPU %s  %s  %s  %s" % (idx, uuid, rows[0]["name"], rows[0]["pci.bus_id"]))
    g = llmon_gpus.get(uuid)
    if g is None:
        report(idx, "gpu " + uuid, "absent", "present", "", "", "DIFFER")
        continue
    mib = lambda k: None if g.get(k) is None else g[k] / MIB
    check_exact(idx, "index", g.get("index"), col("index"), as_int)
    check_exact(idx, "uuid", g.get("uuid"), col("uuid"))
    check_exact(idx, "name", g.get("name"), col("name"))
    check_exact(idx, "pci.bus_id", (g.get("pci_bus_id") or "").upper() or None, col("pci.bus_id"), str.upper)
    check_number(idx, "utilization.gpu", g.get("utilization_percent"), col("utilization.gpu"), abs_tol=10)
    check_number(idx, "utilization.memory", g.get("memory_utilization_percent"), col("utilization.memory"), abs_tol=10)
    check_number(idx, "memory.used [MiB]", mib("memory_used_bytes"), col("memory.used"), rel_tol=0.01, floor=1)
    check_number(idx, "memory.total [MiB]", mib("memory_total_bytes"), col("memory.total"), rel_tol=0.01, floor=1)
    check_number(idx, "memory.reserved [MiB]", mib("memory_reserved_bytes"), col("memory.reserved"), rel_tol=0.01,
                 floor=1)
    check_number(idx, "temperature.gpu [C]", g.get("temperature_celsius"), col("temperature.gpu"), abs_tol=2)
    check_number(idx, "temperature.memory [C]", g.get("memory_temperature_celsius"), col("temperature.memory"),
                 abs_tol=2)
    check_number(idx, "power.draw [W]", g.get("power_watts"), col("power.draw"), rel_tol=0.10)
    # llmon reports the enforced limit; older nvidia-smi only has power.limit.
    limit = col("enforced.power.limit")
    limit_field = "enforced.power.limit [W]"
    if not [v for v in limit if not absent(v)]:
        limit, limit_field = col("power.limit"), "power.limit [W]"
    check_number(idx, limit_field, g.get("power_limit_watts"), limit, rel_tol=0.01)
    check_number(idx, "clocks.sm [MHz]", g.get("sm_clock_mhz"), col("clocks.sm"), rel_tol=0.05)
    check_number(idx, "clocks.mem [MHz]", g.get("memory_clock_mhz"), col("clocks.mem"), rel_tol=0.05)
    check_exact(idx, "pstate", g.get("pstate"), col("pstate"), pstate)
    check_number(idx, "fan.speed [%]", g.get("fan_percent"), col("fan.speed"), abs_tol=5)
    check_exact(idx, "pcie.link.gen.current", g.get("pcie_link_gen"), col("pcie.link.gen.current"), as_int)
    check_exact(idx, "pcie.link.width.current", g.get("pcie_link_width"), col("pcie.link.width.current"), as_int)
    mine = g.get("clock_event_reasons")
    check_exact(idx, "clocks_event_reasons.active", None if mine is None else tuple(mine),
                col("clocks_event_reasons.active"), reasons)

    # Compute apps on this GPU (MIG instances included: nvidia-smi names the parent GPU).
    procs = {p["pid"]: p for p in snap.get("gpu_processes", []) if p.get("gpu_uuid") == uuid and p.get("pid") is not None}
    sets = [set(apps.get(uuid, {})) for _, apps in samples]
    required, allowed = set.intersection(*sets), set.union(*sets)
    have = set(procs)
    ok = required <= have <= allowed
    report(idx, "compute-apps pids", show(sorted(have)), show(sorted(allowed)), "", "exact", "agree" if ok else "DIFFER")
    for pid in sorted(have & allowed):
        mem = procs[pid].get("gpu_memory_bytes")
        check_number(idx, "pid %d used_memory [MiB]" % pid, None if mem is None else mem / MIB,
                     [apps[uuid][pid] for _, apps in samples if pid in apps.get(uuid, {})
                      and apps[uuid][pid] is not None], rel_tol=0.01, floor=1)

for uuid, g in llmon_gpus.items():
    if uuid not in smi_uuids:
        print("\nGPU %s  %s  (llmon only)" % (g.get("index"), uuid))
        report(str(g.get("index")), "gpu " + str(uuid), "present", "absent", "", "", "DIFFER")

print()
note = " (%d of them missing in llmon only)" % missing_in_llmon if missing_in_llmon else ""
print("%d fields agree, %d differ, %d not comparable%s" % (counts["agree"], counts["DIFFER"], counts["n/a"], note))
sys.exit(1 if counts["DIFFER"] else 0)
PY
}

if [[ "${1:-}" == "--compare" ]]; then
  shift
  (($# >= 3 && $# % 2 == 1)) || usage
  command -v python3 >/dev/null 2>&1 || die "python3 is required"
  compare "$@"
  exit $?
fi
[[ "${1:-}" == -* ]] && usage

# ---- live check ------------------------------------------------------------

SMI="${NVIDIA_SMI:-nvidia-smi}"
command -v "$SMI" >/dev/null 2>&1 || skip "$SMI not found: no NVIDIA driver tools on this host"
command -v python3 >/dev/null 2>&1 || die "python3 is required"
LLMON="${1:-$REPO/build/llmon}"
[[ -x "$LLMON" && -f "$LLMON" ]] || die "llmon binary \"$LLMON\" is not executable (build it, or pass its path)"
read -r -a EXTRA <<<"${GPU_CHECK_LLMON_FLAGS:-}"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")" || die "cannot create a scratch dir"
AGENT_PID=""
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  if [[ -n "$AGENT_PID" ]]; then
    kill -TERM "$AGENT_PID" 2>/dev/null
    wait "$AGENT_PID" 2>/dev/null
  fi
  rm -rf -- "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! "$SMI" -L >"$TMP/list" 2>&1; then
  skip "$SMI -L failed: $(head -c 300 "$TMP/list")"
fi
grep -q '^GPU ' "$TMP/list" || skip "$SMI lists no GPU"
say "$(grep -c '^GPU ' "$TMP/list") GPU(s): $(head -n 1 "$TMP/list")"

# The fields this nvidia-smi knows (an old one rejects the whole query if one
# field is unknown): all at once; else those --help-query-gpu lists (lines
# '"name" or "alias"'); else probed one by one. clocks_event_reasons.* was
# clocks_throttle_reasons.* before driver 535.
join() {
  local IFS=,
  printf '%s' "$*"
}
query_ok() { "$SMI" --query-gpu="$1" --format=csv,noheader,nounits >/dev/null 2>&1; }
# pick_fields TEST: fields=(GPU_FIELDS, the old alias where needed, "-name" for unknown ones).
pick_fields() {
  local f
  fields=()
  for f in "${GPU_FIELDS[@]}"; do
    if "$1" "$f"; then
      fields+=("$f")
    elif [[ "$f" == clocks_event_reasons.active ]] && "$1" clocks_throttle_reasons.active; then
      fields+=(clocks_throttle_reasons.active)
    else
      fields+=("-$f")
    fi
  done
}
# shellcheck disable=SC2317  # called through pick_fields
listed() { grep -qxF -- "$1" "$TMP/help-fields"; }
known_fields() {
  local f
  known=()
  for f in "${fields[@]}"; do [[ "$f" == -* ]] || known+=("$f"); done
}
fields=("${GPU_FIELDS[@]}")
if ! query_ok "$(join "${GPU_FIELDS[@]}")"; then
  "$SMI" --help-query-gpu 2>/dev/null | grep -E '^"[A-Za-z0-9_.]+"' | grep -oE '"[A-Za-z0-9_.]+"' | tr -d '"' \
    >"$TMP/help-fields"
  pick_fields listed
  known_fields
  if ((${#known[@]} == 0)) || ! query_ok "$(join "${known[@]}")"; then
    say "--help-query-gpu did not tell which fields work; probing them one by one"
    pick_fields query_ok
  fi
  for f in "${fields[@]}"; do [[ "$f" == -* ]] && say "this nvidia-smi does not know --query-gpu=${f#-}"; done
fi
known_fields

# smi_sample N: nvidia-smi's answers in the canonical column order.
smi_sample() {
  local n="$1"
  "$SMI" --query-gpu="$(join "${known[@]}")" --format=csv,noheader,nounits >"$TMP/raw$n.csv" 2>"$TMP/smi.err" ||
    die "$SMI --query-gpu failed: $(head -c 300 "$TMP/smi.err")"
  "$SMI" --query-compute-apps="$APP_FIELDS" --format=csv,noheader,nounits >"$TMP/apps$n.csv" 2>"$TMP/smi.err" ||
    die "$SMI --query-compute-apps failed: $(head -c 300 "$TMP/smi.err")"
  python3 - "$TMP/raw$n.csv" "$TMP/gpu$n.csv" "${fields[@]}" <<'PY' || die "cannot reorder $SMI output"
import csv, sys
src, dst, fields = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(src, newline="") as f, open(dst, "w", newline="") as out:
    w = csv.writer(out, lineterminator="\n")
    for rec in csv.reader(f, skipinitialspace=True):
        if not rec:
            continue
        vals = iter(c.strip() for c in rec)
        w.writerow(["[Not Supported]" if name.startswith("-") else next(vals, "") for name in fields])
PY
}

now() { printf '%s\n' "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

smi_sample 1
t0="$(now)"
"$LLMON" snapshot --json "${EXTRA[@]}" >"$TMP/snapshot.json" 2>"$TMP/snapshot.err" ||
  die "llmon snapshot --json failed: $(tail -c 500 "$TMP/snapshot.err")"
t1="$(now)"
smi_sample 2
compare "$TMP/snapshot.json" "$TMP/gpu1.csv" "$TMP/apps1.csv" "$TMP/gpu2.csv" "$TMP/apps2.csv"
rc=$?
((rc == 2)) && exit 2

# ---- timing ----------------------------------------------------------------

echo
echo "timing:"
printf '  llmon snapshot --json: %s s wall (includes --snapshot.interval, 1 s by default)\n' "$(elapsed "$t0" "$t1")"
runs="${GPU_CHECK_RUNS:-3}"
if ((runs > 0)); then
  t0="$(now)"
  for ((i = 0; i < runs; i++)); do
    "$LLMON" snapshot --json --snapshot.interval=1ms "${EXTRA[@]}" >/dev/null 2>&1 || say "llmon snapshot run $i failed"
  done
  t1="$(now)"
  printf '  llmon snapshot --json --snapshot.interval=1ms: %s s mean over %d runs (two cycles each, NVML init included)\n' \
    "$(awk -v a="$t0" -v b="$t1" -v n="$runs" 'BEGIN { printf "%.3f", (b - a) / n }')" "$runs"
  t0="$(now)"
  for ((i = 0; i < runs; i++)); do
    "$SMI" --query-gpu="$(join "${known[@]}")" --format=csv,noheader,nounits >/dev/null 2>&1
  done
  t1="$(now)"
  printf '  nvidia-smi --query-gpu (same fields): %s s mean over %d runs\n' \
    "$(awk -v a="$t0" -v b="$t1" -v n="$runs" 'BEGIN { printf "%.3f", (b - a) / n }')" "$runs"
fi

# NVML calls per GPU per cycle and sampling time, from the agent's own metrics.
agent_s="${GPU_CHECK_AGENT_SECONDS:-5}"
if ((agent_s > 0)); then
  port="$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
  "$LLMON" agent --web.listen-address="127.0.0.1:$port" --no-storage.enabled --collect.interval=500ms --log.level=warn "${EXTRA[@]}" \
    >"$TMP/agent.log" 2>&1 &
  AGENT_PID=$!
  python3 - "http://127.0.0.1:$port/metrics" "$agent_s" 0.5 <<'PY' || say "agent measurement failed: $(tail -c 300 "$TMP/agent.log")"
import re, sys, time, urllib.request
url, seconds, interval = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])

def scrape():
    with urllib.request.urlopen(url, timeout=5) as r:
        text = r.read().decode()
    vals = {}
    for line in text.splitlines():
        m = re.match(r'^(llmon_gpu_nvml_calls_total|llmon_gpu_sample_duration_seconds|llmon_gpu_devices)(\{[^}]*\})? (\S+)', line)
        if m:
            vals[m.group(1)] = vals.get(m.group(1), 0.0) + float(m.group(3))
    return vals

deadline = time.time() + 10
while True:
    try:
        first = scrape()
        break
    except OSError:
        if time.time() > deadline:
            sys.exit("agent did not answer within 10 s")
        time.sleep(0.2)
time.sleep(interval * 2)  # past start-up (NVML init)
first, t_first = scrape(), time.time()
durations = []
while time.time() - t_first < seconds:
    time.sleep(interval)
    v = scrape()
    if "llmon_gpu_sample_duration_seconds" in v:
        durations.append(v["llmon_gpu_sample_duration_seconds"])
last, t_last = v, time.time()
if "llmon_gpu_nvml_calls_total" not in last:
    print("  agent: no llmon_gpu_nvml_calls_total (gpu collector off?)")
    sys.exit(0)
cycles = (t_last - t_first) / interval
gpus = last.get("llmon_gpu_devices", 0)
calls = last["llmon_gpu_nvml_calls_total"] - first.get("llmon_gpu_nvml_calls_total", 0)
per = calls / cycles / gpus if cycles > 0 and gpus > 0 else float("nan")
print("  agent (--collect.interval=%gs, %.1f s): %.0f NVML calls in ~%.0f cycles, %.1f per GPU per cycle "
      "(%d GPUs, all threads)" % (interval, t_last - t_first, calls, cycles, per, gpus))
if durations:
    print("  agent: mean NVML sampling time %.1f ms per cycle (llmon_gpu_sample_duration_seconds, %d scrapes)"
          % (1000 * sum(durations) / len(durations), len(durations)))
PY
  kill -TERM "$AGENT_PID" 2>/dev/null
  wait "$AGENT_PID" 2>/dev/null
  AGENT_PID=""
fi
exit "$rc"
