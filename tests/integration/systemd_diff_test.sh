#!/usr/bin/env bash
# Differential test of the systemd collector: a private dbus-daemon, a fake
# systemd on it (tests/fake_systemd, serving scenarios/host.json), and the real
# node_exporter 1.5 and `llmon agent` both reading it as their system bus
# (DBUS_SYSTEM_BUS_ADDRESS, which node_exporter's godbus and llmon's sd-bus
# both honour). expo_diff.py compares the pages series by series; known
# differences: node_exporter_known_diffs.txt. Three runs:
#   defaults    the enable-* flags on, upstream 1.5's unit-exclude
#   all units   unit-exclude empty (the mount, target, device, slice, scope too)
#   old         a systemd 211 (scenarios/old.json): no timers, no system state
#   no bus      the address names no socket: both report success 0
# Usage: systemd_diff_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL/PORT/PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"

NE="${NODE_EXPORTER:-prometheus-node-exporter}"
require_cmd "$NE" || skip "node_exporter ($NE) not installed (apt-get install prometheus-node-exporter)"
require_cmd python3 || skip "python3 not installed"
require_cmd dbus-daemon || skip "dbus-daemon not installed (apt-get install dbus-daemon)"
FAKE="$(dirname "$LLMON")/fake_systemd/fake_systemd"
[[ -x "$FAKE" ]] || fail "$FAKE not built (target fake_systemd)"
SCENARIO="$REPO/tests/fake_systemd/scenarios/host.json"

# start_bus NAME SCENARIO: a session-type dbus-daemon (anyone may own names)
# on a socket in the scratch dir, with fake_systemd serving SCENARIO on it;
# sets ADDRESS. Both are stopped at exit (lib.sh's ITEST_PIDS).
start_bus() {
  local name="$1" scenario="$2" socket="$SCRATCH/$1.bus" i
  dbus-daemon --session --nofork --nopidfile --address="unix:path=$socket" >"$SCRATCH/dbus-$name.log" 2>&1 &
  ITEST_PIDS+=("$!")
  for ((i = 0; i < 100; i++)); do
    [[ -S "$socket" ]] && break
    sleep 0.05
  done
  [[ -S "$socket" ]] || fail "dbus-daemon did not create $socket"
  ADDRESS="unix:path=$socket"
  "$FAKE" --address="$ADDRESS" --scenario="$scenario" --ready="$SCRATCH/$name.ready" \
    --call-log="$SCRATCH/calls-$name.log" >"$SCRATCH/fake_systemd-$name.log" 2>&1 &
  ITEST_PIDS+=("$!")
  for ((i = 0; i < 100; i++)); do
    [[ -e "$SCRATCH/$name.ready" ]] && break
    sleep 0.05
  done
  [[ -e "$SCRATCH/$name.ready" ]] || fail "fake_systemd ($name) did not take org.freedesktop.systemd1"
}

UPSTREAM_EXCLUDE='--collector.systemd.unit-exclude=.+\.(automount|device|mount|scope|slice)'
EXTRAS=(--collector.systemd.enable-task-metrics --collector.systemd.enable-restarts-metrics
  --collector.systemd.enable-start-time-metrics)

# compare RUN BUS_ADDRESS FLAGS...: both exporters with the systemd collector
# alone on that bus; the pages must match; llmon's page is left in $SCRATCH/RUN.llmon.prom.
compare() {
  local run="$1" bus="$2" rc
  shift 2
  DBUS_SYSTEM_BUS_ADDRESS="$bus" start_server ne /metrics "$NE" --web.listen-address=127.0.0.1:@PORT@ \
    --collector.disable-defaults --collector.systemd "$@" --log.level=debug
  DBUS_SYSTEM_BUS_ADDRESS="$bus" start_llmon --collector.disable-defaults --collector.systemd "$@" --log.level=debug
  python3 "$REPO/tests/integration/expo_diff.py" \
    --node-exporter "$ne_URL/metrics" --llmon "$llmon_URL/metrics" --attribute-url "$ne_URL/metrics" \
    --known-diffs "$REPO/tests/integration/node_exporter_known_diffs.txt" >"$SCRATCH/$run.diff" 2>&1
  rc=$?
  fetch "$llmon_URL/metrics" "$SCRATCH/$run.llmon.prom"
  fetch "$ne_URL/metrics" "$SCRATCH/$run.ne.prom"
  stop_pid "$ne_PID"
  stop_pid "$llmon_PID"
  case $rc in
    0) log "$run: llmon matches node_exporter ($(grep -o 'compared .*' "$SCRATCH/$run.diff"))" ;;
    1) cat "$SCRATCH/$run.diff" >&2; fail "$run: llmon's page differs from node_exporter's" ;;
    *) cat "$SCRATCH/$run.diff" >&2; fail "$run: expo_diff.py could not compare the pages (exit $rc)" ;;
  esac
}

# expect RUN LINE: llmon's page of RUN holds LINE (so an empty page cannot pass).
expect() {
  grep -qxF "$2" "$SCRATCH/$1.llmon.prom" || fail "$1: llmon's page lacks: $2"
}

start_bus host "$SCENARIO"
compare defaults "$ADDRESS" "$UPSTREAM_EXCLUDE" "${EXTRAS[@]}"
expect defaults 'node_scrape_collector_success{collector="systemd"} 1'
expect defaults 'node_systemd_unit_state{name="ssh.service",state="active",type="notify"} 1'
expect defaults 'node_systemd_unit_state{name="nginx.service",state="failed",type="forking"} 1'
expect defaults 'node_systemd_service_restart_total{name="nginx.service"} 5'
expect defaults 'node_systemd_timer_last_trigger_seconds{name="apt-daily.timer"} 1.76464440025e+09'
expect defaults 'node_systemd_socket_accepted_connections_total{name="dbus.socket"} 1234'
expect defaults 'node_systemd_units{state="reloading"} 1'
expect defaults 'node_systemd_system_running 0'
expect defaults 'node_systemd_version{version="252.22-1~deb12u1"} 252.22'

compare all_units "$ADDRESS" --collector.systemd.unit-exclude= "${EXTRAS[@]}"
expect all_units 'node_systemd_unit_state{name="data.mount",state="active",type="xfs"} 1'
expect all_units 'node_systemd_unit_state{name="session-3.scope",state="active",type=""} 1'

# A systemd older than 212: no timer or system-state series, on either side.
start_bus old "$REPO/tests/fake_systemd/scenarios/old.json"
compare old "$ADDRESS" "${EXTRAS[@]}"
expect old 'node_systemd_version{version="systemd 211"} 211'
expect old 'node_systemd_unit_state{name="cron.service",state="active",type="simple"} 1'
if grep -q '^node_systemd_\(timer_last_trigger_seconds\|system_running\)' "$SCRATCH/old.llmon.prom"; then
  fail "old: llmon read timers or the system state of systemd 211"
fi

compare no_bus "unix:path=$SCRATCH/no-such-bus" "${EXTRAS[@]}"
expect no_bus 'node_scrape_collector_success{collector="systemd"} 0'

# SYSTEMD_DIFF_KEEP=DIR keeps both pages of each run, the comparisons and the fake's call log.
if [[ -n "${SYSTEMD_DIFF_KEEP:-}" ]]; then cp "$SCRATCH"/*.prom "$SCRATCH"/*.diff "$SCRATCH"/calls-*.log "$SYSTEMD_DIFF_KEEP/"; fi
log "calls node_exporter and llmon made: $(cut -d' ' -f1,4 "$SCRATCH/calls-host.log" | sort | uniq -c | tr -s ' \n' ' ')"
