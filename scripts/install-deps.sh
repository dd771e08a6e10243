#!/usr/bin/env bash
# Installs the Debian 12 packages llmon needs to build, test and benchmark.
# Idempotent: asks apt only for what is missing; needs root (or sudo) only then.
# Services from these packages are never started (policy-rc.d denies it during the install).
set -euo pipefail

BUILD_PKGS=(build-essential cmake ninja-build ccache pkg-config
  libyaml-cpp-dev nlohmann-json3-dev zlib1g-dev libre2-dev libhyperscan-dev libsystemd-dev libsnappy-dev
  libgtest-dev libgmock-dev libbenchmark-dev libsqlite3-dev libssl-dev)
TEST_PKGS=(grep prometheus prometheus-node-exporter prometheus-alertmanager python3-aiosmtpd curl python3 hyperfine wrk
  python3-grpcio python3-protobuf python3-grpc-tools python3-yaml
  dbus-daemon rsyslog prometheus-pushgateway python3-prometheus-client victoria-metrics influxdb tmux btop htop btrfs-progs
  systemd-container debootstrap)
# The dashboard (web/): node and npm build it, chromium runs its browser tests.
WEB_PKGS=(nodejs npm)
WEB_TEST_PKGS=(chromium)

want=("${BUILD_PKGS[@]}" "${WEB_PKGS[@]}")
[[ "${LLMON_DEPS:-all}" == build ]] || want+=("${TEST_PKGS[@]}" "${WEB_TEST_PKGS[@]}")

missing=()
for p in "${want[@]}"; do
  # node and npm may come from another nodejs build that bundles npm: a
  # working command counts as installed (Debian's npm would conflict with it).
  case "$p" in nodejs) command -v node >/dev/null 2>&1 && continue ;; npm) command -v npm >/dev/null 2>&1 && continue ;; esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
SUDO=()
[[ $(id -u) -eq 0 ]] || SUDO=(sudo)
policy=/usr/sbin/policy-rc.d
created_policy=0
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee "$policy" >/dev/null
  "${SUDO[@]}" chmod +x "$policy"
  created_policy=1
fi
cleanup() { [[ $created_policy -eq 1 ]] && "${SUDO[@]}" rm -f "$policy"; true; }
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Packaged daemons may have been enabled; make sure none of them runs because of us.
for svc in prometheus prometheus-node-exporter prometheus-alertmanager; do
  if command -v systemctl >/dev/null 2>&1; then "${SUDO[@]}" systemctl disable --now "$svc" >/dev/null 2>&1 || true; fi
done
