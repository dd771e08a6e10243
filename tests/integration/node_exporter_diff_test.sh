#!/usr/bin/env bash
# Differential test: real node_exporter 1.5 and `llmon agent` read the same
# fixture tree (tests/fixtures/{proc,sys,rootfs}); expo_diff.py compares the
# two /metrics pages series by series (see its docstring for the rules).
# Known, explained differences: node_exporter_known_diffs.txt.
# Usage: node_exporter_diff_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL/PORT/PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"

NE="${NODE_EXPORTER:-prometheus-node-exporter}"
require_cmd "$NE" || skip "node_exporter ($NE) not installed (apt-get install prometheus-node-exporter)"
require_cmd python3 || skip "python3 not installed"

FIX="${LLMON_FIXTURE_DIR:-$REPO/tests/fixtures}"
for d in proc sys rootfs; do
  [[ -d "$FIX/$d" ]] || skip "fixture tree $FIX/$d does not exist yet"
done

# udev's device database (diskstats' node_disk_info labels): the fixture copy.
UDEV="$FIX/udev/data"
[[ -d "$UDEV" ]] || UDEV="$FIX/rootfs/run/udev/data"

# Debian's build changes two of upstream 1.5's defaults (it also excludes
# /run, /mnt, /media mounts and the lo device); llmon follows upstream, so
# give node_exporter upstream's values.
NE_UPSTREAM_DEFAULTS=(
  '--collector.filesystem.mount-points-exclude=^/(dev|proc|run/credentials/.+|sys|var/lib/docker/.+|var/lib/containers/storage/.+)($|/)'
  '--collector.netdev.device-exclude='
)

# Collectors and options off by default in both (issue 15), switched on on
# both sides (mountstats reads proc/self -> 2210, the agent's own pid there).
OFF_BY_DEFAULT=(--collector.meminfo_numa --collector.interrupts --collector.processes
  --collector.cpu.info '--collector.cpu.info.flags-include=^(avx512.*|amx_.*|ht)$'
  --collector.cpu.info.bugs-include=spectre --collector.mountstats --collector.bcache.priorityStats)

# Both read the same text files: two good ones and a malformed one
# (node_textfile_scrape_error 1, its families left out).
TEXTFILE_DIR="$FIX/textfile"

# node_exporter collectors that read the live system instead of the fixture
# tree: timex (adjtimex(2) of the live kernel: llmon has it, but the values
# move between the two scrapes on a synchronised clock, so its families and
# types are checked in tests/collector/timex_test.cpp instead), selinux (the
# live /sys/fs/selinux via libselinux), systemd (enabled by default in
# Debian's build; asks the live systemd over D-Bus).
start_server ne /metrics "$NE" \
  --web.listen-address=127.0.0.1:@PORT@ \
  --path.procfs="$FIX/proc" --path.sysfs="$FIX/sys" --path.rootfs="$FIX/rootfs" \
  --path.udev.data="$UDEV" \
  --no-collector.netdev.netlink \
  "${NE_UPSTREAM_DEFAULTS[@]}" \
  --collector.textfile.directory="$TEXTFILE_DIR" \
  --no-collector.timex --no-collector.selinux --no-collector.systemd \
  "${OFF_BY_DEFAULT[@]}" \
  --log.level=warn

start_llmon --path.procfs="$FIX/proc" --path.sysfs="$FIX/sys" --path.rootfs="$FIX/rootfs" \
    --path.udev.data="$UDEV" --collector.textfile.directory="$TEXTFILE_DIR" --no-collector.timex \
    "${OFF_BY_DEFAULT[@]}" --log.level=warn

# Both pages are fetched back to back by the comparer; the per-collector
# pages (?collect[]=NAME) tell it which node_exporter families belong to the
# collectors llmon claims.
python3 "$REPO/tests/integration/expo_diff.py" \
  --node-exporter "$ne_URL/metrics" \
  --llmon "$llmon_URL/metrics" \
  --attribute-url "$ne_URL/metrics" \
  --known-diffs "$REPO/tests/integration/node_exporter_known_diffs.txt"
rc=$?
case $rc in
  0) log "llmon matches node_exporter on the fixture tree" ;;
  1) fail "llmon's page differs from node_exporter's (see FAILURES above)" ;;
  *) fail "expo_diff.py could not compare the pages (exit $rc)" ;;
esac

# Per-request collector selection (?collect[]=): the same selection on both
# sides must match as well and hold nothing of the other collectors, and a
# name neither has gets node_exporter's 400 answer, byte for byte.
sel='collect[]=cpu&collect[]=meminfo'
python3 "$REPO/tests/integration/expo_diff.py" \
  --node-exporter "$ne_URL/metrics?$sel" \
  --llmon "$llmon_URL/metrics?$sel" \
  --attribute-url "$ne_URL/metrics" \
  --known-diffs "$REPO/tests/integration/node_exporter_known_diffs.txt" >"$SCRATCH/collect_diff.txt"
rc=$?
[[ $rc == 0 ]] || { cat "$SCRATCH/collect_diff.txt" >&2; fail "?$sel: llmon's page differs from node_exporter's (exit $rc)"; }
fetch "$llmon_URL/metrics?$sel" "$SCRATCH/llmon_collect.txt"
grep -q '^node_memory_MemTotal_bytes ' "$SCRATCH/llmon_collect.txt" || fail "?$sel lacks node_memory_MemTotal_bytes"
if grep -q '^node_load1 \|collector="loadavg"' "$SCRATCH/llmon_collect.txt"; then
  fail "?$sel still holds the loadavg collector's series"
fi
for q in 'collect[]=nosuch' 'collect[]=' 'collect[]=cpu&collect[]=nosuch'; do
  ne_answer="$(curl -s --max-time 20 -w ' HTTP %{http_code}' "$ne_URL/metrics?$q")"
  llmon_answer="$(curl -s --max-time 20 -w ' HTTP %{http_code}' "$llmon_URL/metrics?$q")"
  [[ "$ne_answer" == "$llmon_answer" ]] || fail "?$q: node_exporter answered '$ne_answer', llmon '$llmon_answer'"
done
log "?collect[]= selections match node_exporter's"
