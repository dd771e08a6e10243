#!/usr/bin/env bash
# The Debian package on a fresh Debian 12 with systemd as PID 1: a
# debootstrapped bookworm booted with systemd-nspawn (the tree read-only
# under a tmpfs overlay, so it stays fresh; a network namespace of its own),
# `dpkg -i llmon_*.deb` with the libraries a minimal system lacks (fetched
# beforehand by this host's `apt-get download`), and the
# package's own postinst enabling and starting llmon.service: the unit runs
# under its sandbox (DynamicUser, StateDirectory), answers /-/ready and
# /metrics, survives `systemctl restart` with its store, and `systemd-analyze
# security` inside the container scores it as the hardening promised.
# Needs root, systemd-nspawn (systemd-container), debootstrap or a prepared
# tree in LLMON_DEB12_ROOTFS, and the registry for debootstrap/apt; skipped
# with the reason otherwise, and when this machine cannot boot a container.
# Usage: deb_systemd_test.sh LLMON_BINARY (ctest passes it)
source "$(dirname "$0")/lib.sh"
itest_init "$@"
BUILD="$(dirname "$LLMON")"
[[ "$(id -u)" == 0 ]] || skip "not root: systemd-nspawn needs root"
require_cmd systemd-nspawn || skip "systemd-nspawn not installed (package systemd-container)"
require_cmd nsenter || skip "nsenter not installed (util-linux)"
require_cmd cpack || skip "cpack (cmake) not installed"
require_cmd curl || skip "curl not installed"
[[ -f "$BUILD/CPackConfig.cmake" ]] || skip "no CPackConfig.cmake in $BUILD"

ROOTFS="${LLMON_DEB12_ROOTFS:-}"
if [[ -z "$ROOTFS" ]]; then
  require_cmd debootstrap || skip "no LLMON_DEB12_ROOTFS and debootstrap not installed"
  # The mirror this host's apt uses (the package registry CI may reach), else Debian's.
  MIRROR="${LLMON_DEBIAN_MIRROR:-$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)}"
  [[ -n "$MIRROR" ]] || MIRROR="$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null)"
  MIRROR="${MIRROR:-http://deb.debian.org/debian}"
  ROOTFS="$SCRATCH/rootfs"
  log "debootstrap bookworm from $MIRROR (a few minutes)"
  debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,ca-certificates bookworm "$ROOTFS" "$MIRROR" \
    >"$SCRATCH/debootstrap.log" 2>&1 || skip "debootstrap failed (no registry?): $(tail -2 "$SCRATCH/debootstrap.log")"
fi
[[ -x "$ROOTFS/lib/systemd/systemd" ]] || skip "$ROOTFS has no systemd"

PKG="$SCRATCH/pkg"
(cd "$BUILD" && cpack -G DEB -B "$PKG" >"$SCRATCH/cpack.log" 2>&1) || fail "cpack failed: $(tail -5 "$SCRATCH/cpack.log")"
debs=("$PKG"/llmon_*.deb)
[[ -f "${debs[0]}" ]] || fail "cpack wrote no .deb"
DEB="/pkg/$(basename "${debs[0]}")"
# The libraries a minimal system lacks, fetched by this host's apt (the same
# release) so the container can stay off the network: it gets a network
# namespace of its own, and its agent on 127.0.0.1:8747 meets no other test.
mkdir -p "$PKG/deps"
deps="$(dpkg-deb --field "${debs[0]}" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/ //g' | sed '/^$/d')"
# With their own dependencies (apt-cache depends --recurse), minus what the tree has.
deps="$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
  --no-enhances $deps 2>/dev/null | grep -v '^[ <]' | sort -u)"
missing=()
for d in $deps; do
  dpkg-query --admindir="$ROOTFS/var/lib/dpkg" -W -f='${Status}' "$d" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$d")
done
if ((${#missing[@]})); then
  (cd "$PKG/deps" && apt-get download "${missing[@]}" >"$SCRATCH/download.log" 2>&1) ||
    skip "apt-get download of ${missing[*]} failed (no registry?): $(tail -2 "$SCRATCH/download.log")"
fi
log "libraries to install with the package: ${missing[*]:-none}"

MACHINE="llmon-itest-$$"
log "booting $MACHINE"
SYSTEMD_NSPAWN_LOCK=0 systemd-nspawn -q -D "$ROOTFS" --volatile=overlay --register=no --keep-unit --console=passive -M "$MACHINE" --bind-ro="$PKG:/pkg" \
  --private-network -b >"$SCRATCH/nspawn.log" 2>&1 &
NSPAWN=$!
ITEST_PIDS+=("$NSPAWN")
leader() { pgrep -P "$NSPAWN" -x systemd | head -1; }
booted() { [[ -n "$(leader)" ]] && nsenter -t "$(leader)" -a systemctl is-system-running 2>/dev/null | grep -Eq 'running|degraded'; }
for ((i = 0; i < 150; i++)); do
  booted && break
  kill -0 "$NSPAWN" 2>/dev/null || skip "this machine cannot boot a container: $(tail -3 "$SCRATCH/nspawn.log")"
  sleep 0.2
done
booted || skip "the container did not finish booting in 30 s: $(tail -3 "$SCRATCH/nspawn.log")"
L="$(leader)"
inside() { nsenter -t "$L" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
inside systemctl is-system-running >"$SCRATCH/state.txt" 2>&1
log "container up ($(cat "$SCRATCH/state.txt")); dpkg -i $DEB"

inside sh -c "dpkg -i /pkg/deps/*.deb $DEB" >"$SCRATCH/dpkg.log" 2>&1 ||
  fail "dpkg -i failed: $(tail -5 "$SCRATCH/dpkg.log")"
inside dpkg -s llmon | grep -q '^Status: install ok installed' || fail "llmon is not installed: $(tail -5 "$SCRATCH/dpkg.log")"

log "the postinst enabled and started the unit"
inside systemctl is-enabled llmon.service >/dev/null 2>&1 || fail "llmon.service not enabled"
unit_state() { inside systemctl status llmon.service --no-pager -l 2>&1 | tail -5; inside journalctl -u llmon.service --no-pager -n 15 2>&1; }
active() { inside systemctl is-active --quiet llmon.service; }
for ((i = 0; i < 150; i++)); do active && break; sleep 0.2; done
active || fail "llmon.service is not active: $(unit_state)"
# curl from this host inside the container's network namespace only.
ccurl() { nsenter -t "$L" -n curl "$@"; }
wait_for "/-/ready" 60 ccurl -sf -o /dev/null http://127.0.0.1:8747/-/ready
ccurl -sf http://127.0.0.1:8747/metrics >"$SCRATCH/metrics.txt" || fail "GET /metrics"
grep -q '^node_cpu_seconds_total' "$SCRATCH/metrics.txt" || fail "no node_cpu_seconds_total in /metrics"
inside systemctl show llmon.service -p DynamicUser -p User -p ActiveState >"$SCRATCH/show.txt"
grep -qx 'DynamicUser=yes' "$SCRATCH/show.txt" || fail "not a DynamicUser: $(cat "$SCRATCH/show.txt")"
pid="$(inside systemctl show llmon.service -p MainPID --value)"
[[ "$(inside stat -c %u "/proc/$pid")" != 0 ]] || fail "the agent runs as root"
inside test -d /var/lib/private/llmon || fail "no StateDirectory /var/lib/private/llmon"

log "restart keeps the store"
sleep 3  # a few cycles stored, all before `now`
now="$(date +%s)"
inside systemctl restart llmon.service
wait_for "/-/ready after restart" 60 ccurl -sf -o /dev/null http://127.0.0.1:8747/-/ready
ccurl -sf --data-urlencode "query=count_over_time(node_load1[1h] @ $now)" http://127.0.0.1:8747/api/v1/query >"$SCRATCH/q.json" ||
  fail "query after restart"
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['data']['result']; sys.exit(0 if r and float(r[0]['value'][1]) >= 1 else 1)" \
  "$SCRATCH/q.json" || fail "samples from before the restart are gone: $(cat "$SCRATCH/q.json")"
if inside systemd-analyze security llmon.service >"$SCRATCH/security.txt" 2>&1; then
  score="$(grep -o 'Overall exposure level for llmon.service: [0-9.]*' "$SCRATCH/security.txt" | awk '{print $NF}')"
  log "systemd-analyze security inside the container: ${score:-?}"
  [[ -n "$score" ]] && python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 3.0 else 1)" "$score" ||
    fail "exposure ${score:-unknown} > 3.0"
fi
inside systemctl poweroff >/dev/null 2>&1 || true
for ((i = 0; i < 100; i++)); do kill -0 "$NSPAWN" 2>/dev/null || break; sleep 0.2; done
log "ok"
