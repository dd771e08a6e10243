#!/usr/bin/env bash
# `promtool check metrics` on llmon's /metrics page, against the fixture tree
# and against the live host: no format error at all; lint problems only where
# node_exporter's own page (same tree, same promtool) has the very same
# problem line, or where promtool_lint_allowlist.txt allows it. Any lint
# problem on an llmon_* or process_* family fails.
# Usage: promtool_check_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL/PORT/PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"

require_cmd promtool || skip "promtool not installed (apt-get install prometheus)"
NE="${NODE_EXPORTER:-prometheus-node-exporter}"
HAVE_NE=1
require_cmd "$NE" || HAVE_NE=0
FIX="${LLMON_FIXTURE_DIR:-$REPO/tests/fixtures}"
ALLOW="$REPO/tests/integration/promtool_lint_allowlist.txt"
[[ -f "$ALLOW" ]] || fail "missing $ALLOW"
grep -v '^[[:space:]]*\(#\|$\)' "$ALLOW" >"$SCRATCH/allow.re" || fail "$ALLOW lists nothing"

# Collectors node_exporter runs that read the live system / llmon lacks (see
# node_exporter_diff_test.sh).
# Debian changes two upstream defaults; llmon follows upstream 1.5.
NE_FLAGS=('--collector.filesystem.mount-points-exclude=^/(dev|proc|run/credentials/.+|sys|var/lib/docker/.+|var/lib/containers/storage/.+)($|/)'
  '--collector.netdev.device-exclude='
  --no-collector.textfile --no-collector.timex --no-collector.selinux --no-collector.systemd --log.level=warn)
UDEV="$FIX/udev/data"
[[ -d "$UDEV" ]] || UDEV="$FIX/rootfs/run/udev/data"

# lint PAGE OUT: runs promtool; writes its problem lines to OUT; returns its
# exit code (0 clean, 3 lint problems, 1 parse error).
lint() {
  local rc
  promtool check metrics <"$1" >"$2.raw" 2>&1
  rc=$?
  grep -v '^[[:space:]]*$' "$2.raw" | sort -u >"$2"
  return $rc
}

# check NAME LLMON_PAGE NE_PROBLEMS_FILE: fails the test on a format error or
# on a lint problem that is not allowed.
check() {
  local name="$1" page="$2" ne_problems="$3" out="$SCRATCH/$1.lint" rc line bad=0 allowed n=0
  [[ -s "$page" ]] || fail "$name: empty page"
  lint "$page" "$out"
  rc=$?
  if [[ $rc -ne 0 && $rc -ne 3 ]] || grep -q 'error while linting\|parsing error' "$out"; then
    cat "$out" >&2
    fail "$name: promtool found a format error in llmon's page (exit $rc)"
  fi
  while IFS= read -r line; do
    n=$((n + 1))
    allowed=""
    case "$line" in
      llmon_* | process_*) ;;  # never allowed
      *)
        if [[ -n "$ne_problems" ]] && grep -qxF -- "$line" "$ne_problems"; then
          allowed="node_exporter has it too"
        elif grep -qxE -f "$SCRATCH/allow.re" <<<"$line"; then
          allowed="allowlist"
        fi
        ;;
    esac
    if [[ -z "$allowed" ]]; then
      log "$name: lint problem not allowed: $line"
      bad=$((bad + 1))
    fi
  done <"$out"
  ((bad == 0)) || fail "$name: $bad lint problem(s) in llmon's page (of $n reported)"
  log "$name: promtool check metrics ok ($(grep -c '^[a-z]' "$page") samples, $n lint line(s), all shared with node_exporter or allowlisted)"
}

# 1. Fixture tree.
if [[ -d "$FIX/proc" && -d "$FIX/sys" ]]; then
  start_llmon --path.procfs="$FIX/proc" --path.sysfs="$FIX/sys" --path.rootfs="$FIX/rootfs" \
    --path.udev.data="$UDEV" --log.level=warn
  fetch "$llmon_URL/metrics" "$SCRATCH/llmon-fixture.prom"
  stop_pid "$llmon_PID"
  ne_fix=""
  if ((HAVE_NE)); then
    start_server ne /metrics "$NE" --web.listen-address=127.0.0.1:@PORT@ \
      --path.procfs="$FIX/proc" --path.sysfs="$FIX/sys" --path.rootfs="$FIX/rootfs" \
      --path.udev.data="$UDEV" --no-collector.netdev.netlink "${NE_FLAGS[@]}"
    fetch "$ne_URL/metrics" "$SCRATCH/ne-fixture.prom"
    stop_pid "$ne_PID"
    lint "$SCRATCH/ne-fixture.prom" "$SCRATCH/ne-fixture.lint"
    ne_fix="$SCRATCH/ne-fixture.lint"
  else
    log "node_exporter not installed: only the allowlist applies"
  fi
  check fixture "$SCRATCH/llmon-fixture.prom" "$ne_fix"
else
  log "no fixture tree at $FIX: checking the live host only"
fi

# 2. Live host (/proc, /sys, /).
start_llmon --log.level=warn
fetch "$llmon_URL/metrics" "$SCRATCH/llmon-live.prom"
stop_pid "$llmon_PID"
ne_live=""
if ((HAVE_NE)); then
  start_server ne /metrics "$NE" --web.listen-address=127.0.0.1:@PORT@ "${NE_FLAGS[@]}"
  fetch "$ne_URL/metrics" "$SCRATCH/ne-live.prom"
  stop_pid "$ne_PID"
  lint "$SCRATCH/ne-live.prom" "$SCRATCH/ne-live.lint"
  ne_live="$SCRATCH/ne-live.lint"
  # Allow what node_exporter reports on either tree.
  [[ -n "${ne_fix:-}" ]] && sort -u "$ne_fix" "$ne_live" -o "$ne_live"
fi
check live "$SCRATCH/llmon-live.prom" "$ne_live"

# The checker itself must be able to fail: an llmon_* lint problem and a
# broken line are both rejected.
bad_page="$SCRATCH/bad.prom"
printf '# HELP llmon_bad_total A gauge named like a counter.\n# TYPE llmon_bad_total gauge\nllmon_bad_total 1\n' >"$bad_page"
if (check selftest-lint "$bad_page" "" 2>/dev/null); then fail "checker accepted an llmon_* lint problem"; fi
printf '# TYPE llmon_x gauge\nllmon_x{a="b" 1\n' >"$bad_page"
if (check selftest-format "$bad_page" "" 2>/dev/null); then fail "checker accepted a format error"; fi
log "checker rejects lint problems on llmon_* and format errors"
