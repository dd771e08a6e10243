#!/usr/bin/env bash
# Proves expo_diff.py (the node_exporter differential comparer) can fail: it
# must accept two equal pages and reject each kind of difference it claims to
# catch. No servers; pages are written inline.
# Usage: expo_diff_selftest_test.sh <path-to-llmon-binary> (unused)
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL/PORT/PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"
DIFF=("python3" "$REPO/tests/integration/expo_diff.py" --quiet-notes)

ne="$SCRATCH/ne.prom"
cat >"$ne" <<'EOF'
# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.
# TYPE node_cpu_seconds_total counter
node_cpu_seconds_total{cpu="0",mode="idle"} 1.5e+06
node_cpu_seconds_total{cpu="0",mode="user"} 12.5
# HELP node_load1 1m load average.
# TYPE node_load1 gauge
node_load1 0.21
# HELP node_arp_entries ARP entries by device
# TYPE node_arp_entries gauge
node_arp_entries{device="eth0"} 3
# HELP node_hwmon_temp_celsius Hardware monitor for temperature (input)
# TYPE node_hwmon_temp_celsius gauge
node_hwmon_temp_celsius{chip="platform_coretemp_0",sensor="temp1"} NaN
# HELP node_time_seconds System time in seconds since epoch (1970).
# TYPE node_time_seconds gauge
node_time_seconds 1.7e+09
# HELP node_scrape_collector_success node_exporter: Whether a collector succeeded.
# TYPE node_scrape_collector_success gauge
node_scrape_collector_success{collector="arp"} 1
node_scrape_collector_success{collector="cpu"} 1
node_scrape_collector_success{collector="hwmon"} 1
node_scrape_collector_success{collector="loadavg"} 1
node_scrape_collector_success{collector="time"} 1
# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 8
EOF

# llmon's page: the same minus the arp collector, plus a llmon-only family.
good="$SCRATCH/good.prom"
grep -v -e arp "$ne" | grep -v go_goroutines >"$good"
cat >>"$good" <<'EOF'
# HELP llmon_build_info llmon build.
# TYPE llmon_build_info gauge
llmon_build_info{version="0.1.0"} 1
EOF
cpu_page="$SCRATCH/cpu.prom"
grep -e node_cpu_seconds_total "$ne" >"$cpu_page"

run_diff() {  # run_diff LLMON_PAGE [extra args]: prints output, returns exit code
  local page="$1"
  shift
  "${DIFF[@]}" --node-exporter "$ne" --llmon "$page" --attribute-page "cpu=$cpu_page" "$@"
}

expect_pass() {
  local what="$1" out
  shift
  out="$(run_diff "$@" 2>&1)" || { printf '%s\n' "$out" >&2; fail "comparer rejected $what"; }
  log "ok: accepts $what"
}

# expect_fail WHAT PATTERN PAGE...: the comparer must exit 1 and print PATTERN.
expect_fail() {
  local what="$1" pattern="$2" out rc
  shift 2
  out="$(run_diff "$@" 2>&1)"
  rc=$?
  [[ $rc -eq 1 ]] || { printf '%s\n' "$out" >&2; fail "comparer exit $rc (want 1) for $what"; }
  grep -qF -- "$pattern" <<<"$out" || { printf '%s\n' "$out" >&2; fail "comparer output for $what lacks \"$pattern\""; }
  log "ok: rejects $what"
}

# mutate SED_EXPR: writes a variant of the good page, prints its path.
n=0
mutate() {
  n=$((n + 1))
  sed -e "$1" "$good" >"$SCRATCH/v$n.prom"
  printf '%s\n' "$SCRATCH/v$n.prom"
}

expect_pass "equal pages" "$good"
# node_time_seconds may differ within its tolerance, not beyond.
expect_pass "node_time_seconds within tolerance" "$(mutate 's/^node_time_seconds .*/node_time_seconds 1.700000003e+09/')"
expect_fail "node_time_seconds beyond tolerance" "value differs: node_time_seconds" \
  "$(mutate 's/^node_time_seconds .*/node_time_seconds 1.7001e+09/')"
expect_fail "a different value" 'value differs: node_cpu_seconds_total{cpu="0",mode="user"}' \
  "$(mutate 's/mode="user"} 12.5/mode="user"} 12.51/')"
expect_fail "a number where NaN is expected" "value differs: node_hwmon_temp_celsius" "$(mutate 's/} NaN$/} 0/')"
expect_fail "a different TYPE" "TYPE differs: node_load1" "$(mutate 's/^# TYPE node_load1 gauge/# TYPE node_load1 untyped/')"
expect_fail "a different HELP" "HELP differs: node_load1" "$(mutate 's/^# HELP node_load1 .*/# HELP node_load1 Load./')"
expect_fail "different label names" "label names differ: node_cpu_seconds_total" \
  "$(mutate 's/cpu="0",mode=/core="0",mode=/')"
expect_fail "a missing series" 'series only on node_exporter (1) in node_cpu_seconds_total' \
  "$(mutate '/mode="idle"/d')"
expect_fail "an extra series" 'node_cpu_seconds_total{cpu="1",mode="user"}' \
  "$(mutate 's/^\(node_cpu_seconds_total{cpu="0",mode="user"} 12.5\)$/\1\nnode_cpu_seconds_total{cpu="1",mode="user"} 1/')"
expect_fail "a missing family of a claimed collector" "missing family: node_cpu_seconds_total" \
  "$(mutate '/node_cpu_seconds_total/d')"
expect_fail "a duplicate series" "duplicate series node_load1" "$(mutate 's/^\(node_load1 .*\)$/\1\n\1/')"
# The known-diffs file turns a failure into a note, by family or by series.
known="$SCRATCH/known.txt"
printf '# comment\nnode_cpu_seconds_total\\{cpu="0",mode="user"\\}  test reason\n' >"$known"
expect_pass "a known difference" "$(mutate 's/mode="user"} 12.5/mode="user"} 13/')" --known-diffs "$known"
expect_fail "an unknown difference next to a known one" "value differs: node_load1" \
  "$(mutate 's/mode="user"} 12.5/mode="user"} 13/; s/^node_load1 .*/node_load1 7/')" --known-diffs "$known"
log "expo_diff.py detects every difference it claims to"
