#!/usr/bin/env bash
# Proves frozen_tree.py (node_exporter_frozen_test.sh's copier and comparer)
# does what it claims: the copy keeps sysfs's relative links where their
# targets are copied and drops dangling ones, skips unreadable files and
# reroutes /proc/self/mounts to proc/1/mounts; the comparer counts coverage,
# leaves out the exporter's own families, and fails on a low coverage or a
# differing value unless the known-diffs file names it. No servers.
# Usage: frozen_tree_selftest_test.sh <path-to-llmon-binary> (unused)
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"
TOOL=(python3 "$REPO/tests/integration/frozen_tree.py")

# ---- copy: a fake /proc and /sys shaped like the kernel's.
P="$SCRATCH/src/proc" S="$SCRATCH/src/sys"
mkdir -p "$P/self" "$P/net" "$P/pressure" \
  "$S/devices/platform/coretemp.0/hwmon/hwmon0" "$S/bus/platform" "$S/class/hwmon" \
  "$S/devices/virtual/net/lo/queues/rx-0" "$S/class/net" "$S/devices/system/cpu/cpu0/topology"
printf 'cpu  1 2 3 4 5 6 7 8 0 0\nbtime 1700000000\n' >"$P/stat"
printf 'proc /proc proc rw 0 0\n' >"$P/self/mounts"  # no 1/mounts: the fallback
printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n' >"$P/pressure/cpu"
printf 'Inter-|\n' >"$P/net/dev"
printf 'coretemp\n' >"$S/devices/platform/coretemp.0/hwmon/hwmon0/name"
printf '42000\n' >"$S/devices/platform/coretemp.0/hwmon/hwmon0/temp1_input"
printf 'secret\n' >"$S/devices/platform/coretemp.0/hwmon/hwmon0/temp1_crit"
printf 'x\n' >"$S/devices/platform/coretemp.0/hwmon/hwmon0/resource0"
ln -s ../../../coretemp.0 "$S/devices/platform/coretemp.0/hwmon/hwmon0/device"
ln -s ../../../bus/platform "$S/devices/platform/coretemp.0/subsystem"
ln -s ../../../../nowhere "$S/devices/platform/coretemp.0/hwmon/hwmon0/driver"
ln -s ../../devices/platform/coretemp.0/hwmon/hwmon0 "$S/class/hwmon/hwmon0"
printf '65536\n' >"$S/devices/virtual/net/lo/mtu"
printf '0\n' >"$S/devices/virtual/net/lo/queues/rx-0/rps_cpus"
ln -s ../../devices/virtual/net/lo "$S/class/net/lo"
printf '0\n' >"$S/devices/system/cpu/cpu0/topology/core_id"
D="$SCRATCH/frozen"
out="$("${TOOL[@]}" copy "$D" --proc "$P" --sys "$S" 2>&1)" || { printf '%s\n' "$out" >&2; fail "copy failed"; }
check() {  # check DESCRIPTION TEST-ARGS...
  local what="$1"
  shift
  test "$@" || { find "$D" -printf '%p %l\n' | sort >&2; fail "copy: $what"; }
  log "ok: copy $what"
}
check "holds proc/stat" -f "$D/proc/stat"
check "puts self/mounts at 1/mounts" -f "$D/proc/1/mounts"
check "copies /proc directories" -f "$D/proc/pressure/cpu"
check "keeps class links" -L "$D/sys/class/hwmon/hwmon0"
check "resolves a class link" -f "$D/sys/class/hwmon/hwmon0/temp1_input"
check "follows the device link" -d "$D/sys/class/hwmon/hwmon0/device"
check "follows the subsystem link" -d "$D/sys/class/hwmon/hwmon0/device/subsystem"
check "drops a dangling link" ! -L "$D/sys/devices/platform/coretemp.0/hwmon/hwmon0/driver"
check "skips BARs" ! -e "$D/sys/class/hwmon/hwmon0/resource0"
check "copies nested dirs" -f "$D/sys/class/net/lo/queues/rx-0/rps_cpus"
check "copies devices/system/cpu" -f "$D/sys/devices/system/cpu/cpu0/topology/core_id"
[[ "$(cat "$D/sys/class/hwmon/hwmon0/temp1_input")" == 42000 ]] || fail "copy: wrong content"
if [[ $(id -u) != 0 ]]; then  # root reads a 0200 file anyway
  chmod 0200 "$S/devices/platform/coretemp.0/hwmon/hwmon0/temp1_crit"
  rm -rf "$D"
  "${TOOL[@]}" copy "$D" --proc "$P" --sys "$S" >/dev/null 2>&1 || fail "copy failed on an unreadable file"
  check "skips an unreadable file" ! -e "$D/sys/class/hwmon/hwmon0/temp1_crit"
fi

# ---- compare: pages written inline.
ne="$SCRATCH/ne.prom"
cat >"$ne" <<'EOF'
# HELP node_load1 1m load average.
# TYPE node_load1 gauge
node_load1 0.21
# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.
# TYPE node_cpu_seconds_total counter
node_cpu_seconds_total{cpu="0",mode="idle"} 1.5e+06
node_cpu_seconds_total{cpu="0",mode="user"} 12.5
node_cpu_seconds_total{cpu="1",mode="idle"} 1.5e+06
node_cpu_seconds_total{cpu="1",mode="user"} 0.1
# HELP node_time_seconds System time in seconds since epoch (1970).
# TYPE node_time_seconds gauge
node_time_seconds 1.7e+09
# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 8
# HELP node_scrape_collector_duration_seconds node_exporter: Duration of a collector scrape.
# TYPE node_scrape_collector_duration_seconds gauge
node_scrape_collector_duration_seconds{collector="cpu"} 0.001
EOF
good="$SCRATCH/good.prom"
grep -v -e go_goroutines -e duration "$ne" >"$good"
n=0
mutate() {  # mutate SED_EXPR: a variant of the good page; prints its path
  n=$((n + 1))
  sed -e "$1" "$good" >"$SCRATCH/v$n.prom"
  printf '%s\n' "$SCRATCH/v$n.prom"
}
compare() { "${TOOL[@]}" compare --node-exporter "$ne" --llmon "$@"; }
expect() {  # expect RC PATTERN WHAT PAGE [args]
  local want="$1" pattern="$2" what="$3" out rc
  shift 3
  out="$(compare "$@" 2>&1)"
  rc=$?
  [[ $rc == "$want" ]] || { printf '%s\n' "$out" >&2; fail "compare exit $rc (want $want) for $what"; }
  grep -qF -- "$pattern" <<<"$out" || { printf '%s\n' "$out" >&2; fail "compare output for $what lacks \"$pattern\""; }
  log "ok: compare $what"
}
expect 0 "coverage: 6 of 6 node_exporter series (100.0 %)" "equal pages (go_, duration left out)" "$good"
expect 0 "1 equal as printed" "a last-digit difference" "$(mutate 's/^node_load1 .*/node_load1 0.21000000000000002/')"
expect 0 "1 live within tolerance" "node_time_seconds within 5 s" "$(mutate 's/^node_time_seconds .*/node_time_seconds 1.700000003e+09/')"
expect 1 "value differs: node_time_seconds" "node_time_seconds beyond 5 s" "$(mutate 's/^node_time_seconds .*/node_time_seconds 1.7001e+09/')"
expect 1 'value differs: node_cpu_seconds_total{cpu="0",mode="user"}' "a different value" "$(mutate 's/mode="user"} 12.5/mode="user"} 12.6/')"
expect 1 "HELP differs: node_load1" "a different HELP" "$(mutate 's/^# HELP node_load1 .*/# HELP node_load1 Load./')"
expect 1 "coverage below the minimum" "a missing series" "$(mutate '/cpu="1",mode="user"/d')"
expect 0 "(unattributed) [not in llmon] 1 series: node_cpu_seconds_total (1/4)" "a missing series above a lower minimum" \
  "$(mutate '/cpu="1",mode="user"/d')" --min-coverage 0.8
expect 1 "node_load1 (1/1)" "a missing family" "$(mutate '/node_load1/d')"
expect 1 'series only on llmon: node_cpu_seconds_total{cpu="2",mode="idle"}' "an extra series" \
  "$(mutate 's/^\(node_cpu_seconds_total{cpu="1",mode="user"} 0.1\)$/\1\nnode_cpu_seconds_total{cpu="2",mode="idle"} 1/')"
known="$SCRATCH/known.txt"
printf '# comment\nnode_load1  test reason\n' >"$known"
expect 0 "[known: test reason]" "a known difference" "$(mutate 's/^node_load1 .*/node_load1 7/')" --known-diffs "$known" --min-coverage 0.8
log "frozen_tree.py copies and compares as it claims"
