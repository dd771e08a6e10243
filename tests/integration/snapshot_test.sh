#!/usr/bin/env bash
# `llmon snapshot` end to end: the text form shows every section, and the
# JSON form (schema llmon.snapshot.v1, docs/snapshot.md) agrees with what the
# kernel says on this host: one cpu entry per online CPU plus "all", memory
# total = MemTotal, percentages within 0..100.
# Usage: snapshot_test.sh <path-to-llmon-binary>
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"

text="$SCRATCH/snapshot.txt"
json="$SCRATCH/snapshot.json"
timeout 30 "$LLMON" snapshot --snapshot.interval=200ms >"$text" 2>"$SCRATCH/snapshot.err" ||
  fail "llmon snapshot exited non-zero: $(cat "$SCRATCH/snapshot.err")"
for section in "CPU " "MEM " "NET " "DISK " "FS "; do
  grep -q "^$section" "$text" || [[ "$section" == "DISK " && ! -s /proc/diskstats ]] ||
    fail "text snapshot lacks the ${section% } section: $(cat "$text")"
done

timeout 30 "$LLMON" snapshot --json --snapshot.interval=200ms >"$json" 2>"$SCRATCH/json.err" ||
  fail "llmon snapshot --json exited non-zero: $(cat "$SCRATCH/json.err")"
python3 - "$json" <<'PY' || fail "JSON snapshot check failed"
import json, os, sys
s = json.load(open(sys.argv[1]))
assert s["schema"] == "llmon.snapshot.v1", s["schema"]
assert 0.1 <= s["interval_seconds"] <= 5, s["interval_seconds"]
cpus = s["cpu"]
assert cpus[0]["cpu"] == "all", cpus[0]
online = sum(1 for l in open("/proc/stat") if l.startswith("cpu") and l[3].isdigit())
assert len(cpus) == online + 1, (len(cpus), online)
for c in cpus:
    for k in ("busy_percent", "user_percent", "system_percent", "iowait_percent", "steal_percent"):
        assert -1e-9 <= c[k] <= 100 + 1e-9, (c, k)
memtotal = next(int(l.split()[1]) * 1024 for l in open("/proc/meminfo") if l.startswith("MemTotal:"))
assert s["memory"]["total_bytes"] == memtotal, (s["memory"], memtotal)
assert 0 < s["memory"]["used_percent"] < 100, s["memory"]
devs = {l.split(":")[0].strip() for l in list(open("/proc/net/dev"))[2:]}
assert {n["device"] for n in s["network"]} == devs, (s["network"], devs)
for f in s["filesystems"]:
    assert f["size_bytes"] >= f["used_bytes"] >= 0, f
# Absent hardware is "no data", not a failure (node_exporter's ErrNoData); a collector that
# reads files every Linux host has (thermal_zone on a VM aside) must not fail.
assert set(s["failed_collectors"]) <= {"thermal_zone"}, s["failed_collectors"]
assert isinstance(s["no_data_collectors"], list), s
print("snapshot JSON ok:", len(cpus) - 1, "cpus,", len(s["network"]), "interfaces,", len(s["filesystems"]), "filesystems")
PY
log "ok"
