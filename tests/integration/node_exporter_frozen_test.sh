#!/usr/bin/env bash
# Differential test on this machine's own data: a frozen copy of the /proc
# files and /sys subtrees node_exporter 1.5's default collectors read
# (frozen_tree.py copy), read by the real node_exporter and by `llmon agent`
# with their default collectors. At least 95 % of node_exporter's series
# (less its Go runtime, process and HTTP families: frozen_tree.py's EXCLUDED)
# must be on llmon's page with equal values, and no value may differ unless
# node_exporter_frozen_known_diffs.txt names it with a reason. Prints the
# coverage and the missing families by collector.
# Usage: node_exporter_frozen_test.sh <path-to-llmon-binary>
#   FROZEN_MIN_COVERAGE=0.95 (fraction), ITEST_KEEP_SCRATCH_ON_FAILURE=1 keeps the copy.
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL/PORT/PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"

NE="${NODE_EXPORTER:-prometheus-node-exporter}"
require_cmd "$NE" || skip "node_exporter ($NE) not installed (apt-get install prometheus-node-exporter)"
require_cmd python3 || skip "python3 not installed"
[[ -r /proc/stat && -d /sys/class ]] || skip "no /proc or /sys to copy"

FROZEN="$SCRATCH/frozen"
TOOL=(python3 "$REPO/tests/integration/frozen_tree.py")
"${TOOL[@]}" copy "$FROZEN" >&2 || fail "could not copy /proc and /sys"

# Both read the same text-file directory: an empty one (node_exporter's
# Debian default, /var/lib/prometheus/node-exporter, is not llmon's).
mkdir -p "$SCRATCH/textfile"

# As in node_exporter_diff_test.sh: upstream 1.5's defaults where Debian's
# build changes them (llmon follows upstream).
NE_UPSTREAM_DEFAULTS=(
  '--collector.filesystem.mount-points-exclude=^/(dev|proc|run/credentials/.+|sys|var/lib/docker/.+|var/lib/containers/storage/.+)($|/)'
  '--collector.netdev.device-exclude='
)
# --path.rootfs=/ on both: the mount table is the frozen proc/1/mounts, the
# statfs(2) of each mount point and /etc/os-release are the live ones.
# node_exporter's netlink modes read the live kernel, not the copy; systemd
# is a Debian-only default that asks the live systemd over D-Bus.
NE_FLAGS=(
  --no-collector.netdev.netlink --no-collector.netclass.netlink --no-collector.systemd
  "${NE_UPSTREAM_DEFAULTS[@]}" --collector.textfile.directory="$SCRATCH/textfile" --log.level=warn
)
start_server ne /metrics "$NE" --web.listen-address=127.0.0.1:@PORT@ \
  --path.procfs="$FROZEN/proc" --path.sysfs="$FROZEN/sys" --path.rootfs=/ \
  --path.udev.data="$FROZEN/udev/data" "${NE_FLAGS[@]}"
# The same node_exporter on the live system: the families it shows there and
# not on the copy are reported as gaps of the copy (not a failure).
start_server nelive /metrics "$NE" --web.listen-address=127.0.0.1:@PORT@ "${NE_FLAGS[@]}"

start_llmon --path.procfs="$FROZEN/proc" --path.sysfs="$FROZEN/sys" --path.rootfs=/ \
  --path.udev.data="$FROZEN/udev/data" --collector.textfile.directory="$SCRATCH/textfile" \
  --log.level=warn

"${TOOL[@]}" compare --node-exporter "$ne_URL/metrics" --llmon "$llmon_URL/metrics" \
  --live-node-exporter "$nelive_URL/metrics" \
  --known-diffs "$REPO/tests/integration/node_exporter_frozen_known_diffs.txt" \
  --min-coverage "${FROZEN_MIN_COVERAGE:-0.95}"
rc=$?
case $rc in
  0) log "llmon covers node_exporter's series on the frozen copy of this machine" ;;
  1) fail "coverage too low or values differ (see above)" ;;
  *) fail "frozen_tree.py could not compare the pages (exit $rc)" ;;
esac
