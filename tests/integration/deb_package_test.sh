#!/usr/bin/env bash
# The Debian package (make deb: CPack from the build directory next to the
# binary) built, checked and installed with dpkg into a scratch root (dpkg
# --root, maintainer scripts chrootless; they do nothing outside the host's
# root, so no service of this host is touched):
#   * control: name, version, dpkg-shlibdeps' Depends, the conffile, the
#     maintainer scripts; apt-get resolves the package against this system;
#   * the hardened unit passes systemd-analyze security at exposure <= 3.0;
#   * the agent starts from the installed files exactly as the unit's
#     ExecStart runs it (paths under the scratch root, a free port), reads
#     /etc/llmon/llmon.yml and stores into /var/lib/llmon;
#   * an upgrade (the same build packaged as a higher version) keeps the
#     edited conffile and the store: samples from before the upgrade are
#     queried after it; remove keeps the conffile and the store, purge keeps
#     the store.
# Not done here: dpkg -i on a fresh Debian 12 with systemd starting the unit
# (docs/deploy.md).
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"
BUILD="$(dirname "$LLMON")"
require_cmd cpack || skip "cpack (cmake) not installed"
require_cmd dpkg-deb || skip "dpkg-deb not installed"
require_cmd python3 || skip "python3 not installed"
[[ -f "$BUILD/CPackConfig.cmake" ]] || skip "no CPackConfig.cmake in $BUILD (configure with CMake first)"
[[ "$(id -u)" == 0 ]] || skip "not root: dpkg --root keeps the files' owners (root) only as root"

PKG="$SCRATCH/pkg"
ROOT="$SCRATCH/root"
(cd "$BUILD" && cpack -G DEB -B "$PKG" >"$SCRATCH/cpack1.log" 2>&1) || fail "cpack failed: $(tail -5 "$SCRATCH/cpack1.log")"
debs=("$PKG"/llmon_*.deb)
DEB1="${debs[0]}"
[[ -f "$DEB1" ]] || fail "cpack wrote no .deb: $(ls "$PKG")"
V1="$(dpkg-deb --field "$DEB1" Version)"

# --- control
[[ "$(dpkg-deb --field "$DEB1" Package)" == llmon ]] || fail "package name: $(dpkg-deb --field "$DEB1" Package)"
dpkg-deb --field "$DEB1" Depends | grep -q 'libc6' || fail "no shlibs Depends: $(dpkg-deb --field "$DEB1" Depends)"
mkdir -p "$SCRATCH/control"
dpkg-deb --control "$DEB1" "$SCRATCH/control"
grep -qx /etc/llmon/llmon.yml "$SCRATCH/control/conffiles" || fail "llmon.yml is not a conffile"
for s in postinst prerm postrm; do
  [[ -x "$SCRATCH/control/$s" ]] || fail "no executable $s"
  sh -n "$SCRATCH/control/$s" || fail "$s is not valid sh"
done
dpkg-deb --contents "$DEB1" >"$SCRATCH/contents.txt"
for f in ./usr/bin/llmon ./lib/systemd/system/llmon.service ./etc/llmon/llmon.yml ./usr/share/llmon/rules/gpu.yml \
  ./usr/share/doc/llmon/README.md; do
  grep -q " $f\$" "$SCRATCH/contents.txt" || fail "$f not in the package"
done
if require_cmd apt-get; then
  apt-get install -s "$DEB1" >"$SCRATCH/apt.log" 2>&1 || fail "apt-get cannot install the package here: $(tail -5 "$SCRATCH/apt.log")"
  grep -q "^Inst llmon" "$SCRATCH/apt.log" || fail "apt-get would not install llmon: $(tail -5 "$SCRATCH/apt.log")"
fi

# --- install into the scratch root
mkdir -p "$ROOT/var/lib/dpkg/info" "$ROOT/var/lib/dpkg/updates" "$ROOT/var/lib/dpkg/triggers"
touch "$ROOT/var/lib/dpkg/status" "$ROOT/var/lib/dpkg/available"
dpkg_root() {
  # Libraries are installed on this host, not in the scratch root's database.
  dpkg --root="$ROOT" --force-script-chrootless --force-depends --force-confold --log="$SCRATCH/dpkg.log" "$@" \
    >>"$SCRATCH/dpkg-out.log" 2>&1 || fail "dpkg $* failed: $(tail -5 "$SCRATCH/dpkg-out.log")"
}
dpkg_root -i "$DEB1"
[[ -x "$ROOT/usr/bin/llmon" ]] || fail "no $ROOT/usr/bin/llmon after install"
"$ROOT/usr/bin/llmon" version | grep -q "llmon" || fail "the installed binary does not run"

UNIT="$ROOT/lib/systemd/system/llmon.service"
if require_cmd systemd-analyze; then
  systemd-analyze security --offline=yes --threshold=30 "$UNIT" >"$SCRATCH/security.txt" 2>&1 ||
    fail "systemd-analyze security: $(tail -1 "$SCRATCH/security.txt")"
  log "unit exposure: $(grep -o 'Overall exposure level.*' "$SCRATCH/security.txt")"
fi

# run_installed: the unit's ExecStart with its paths under $ROOT, on a free port.
run_installed() {
  local line args=()
  line="$(sed -n 's/^ExecStart=//p' "$UNIT")"
  read -ra args <<<"$line"
  [[ "${args[0]}" == /usr/bin/llmon ]] || fail "ExecStart runs ${args[0]}, not the packaged /usr/bin/llmon"
  args[0]="$ROOT/usr/bin/llmon"
  local i
  for i in "${!args[@]}"; do
    args[i]="${args[i]/=\/etc\/llmon/=$ROOT/etc/llmon}"
    args[i]="${args[i]/=\/var\/lib\/llmon/=$ROOT/var/lib/llmon}"
  done
  grep -q -- '--config.file=' <<<"$line" || fail "ExecStart does not read /etc/llmon/llmon.yml"
  start_server pkg /-/ready "${args[@]}" --web.listen-address=127.0.0.1:@PORT@ --logwatch.kmsg-path= \
    --collect.interval=1s
}

# The operator's edit of the conffile: the agent's own series carry job="pkgtest".
printf '\nstorage.self.job: "pkgtest"\n' >>"$ROOT/etc/llmon/llmon.yml"
run_installed
query() { curl -s --max-time 10 --get --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} "$pkg_URL/api/v1/query"; }
has_value() { python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["data"]["result"] else 1)'; }
wait_for "stored samples with the conffile's job" 30 bash -c "$(declare -f query has_value); pkg_URL='$pkg_URL'; query 'up{job=\"pkgtest\"}' | has_value"
sleep 2
T_BEFORE="$(date +%s)"
sleep 1
stop_pid "$pkg_PID"

# --- upgrade: the same build as a higher version
(cd "$BUILD" && cpack -G DEB -B "$PKG/v2" -D CPACK_PACKAGE_VERSION="${V1}.1" >"$SCRATCH/cpack2.log" 2>&1) ||
  fail "cpack (upgrade) failed: $(tail -5 "$SCRATCH/cpack2.log")"
debs=("$PKG"/v2/llmon_*.deb)
DEB2="${debs[0]}"
[[ "$(dpkg-deb --field "$DEB2" Version)" != "$V1" ]] || fail "the upgrade package has the same version $V1"
dpkg_root -i "$DEB2"
[[ "$(dpkg --root="$ROOT" -s llmon | sed -n 's/^Version: //p')" == "${V1}.1" ]] || fail "not upgraded"
grep -q 'storage.self.job: "pkgtest"' "$ROOT/etc/llmon/llmon.yml" || fail "the upgrade replaced the edited conffile"
run_installed
wait_for "the agent up after the upgrade" 30 bash -c "$(declare -f query has_value); pkg_URL='$pkg_URL'; query 'up{job=\"pkgtest\"}' | has_value"
query "up{job=\"pkgtest\"}" "$T_BEFORE" | has_value || fail "samples from before the upgrade are gone: $(query "up{job=\"pkgtest\"}" "$T_BEFORE")"
stop_pid "$pkg_PID"

# --- remove and purge: the store stays
dpkg_root -r llmon
[[ ! -e "$ROOT/usr/bin/llmon" ]] || fail "remove left /usr/bin/llmon"
[[ -f "$ROOT/etc/llmon/llmon.yml" ]] || fail "remove deleted the conffile (only purge should)"
[[ -d "$ROOT/var/lib/llmon" ]] || fail "remove deleted the store"
dpkg_root -P llmon
[[ ! -e "$ROOT/etc/llmon/llmon.yml" ]] || fail "purge left the conffile"
[[ -d "$ROOT/var/lib/llmon" ]] || fail "purge deleted the store (the users' history stays)"
log "package $V1 -> ${V1}.1 installs, runs as its unit says, upgrades keeping conffile and store"
