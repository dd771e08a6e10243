#!/usr/bin/env bash
# The application /metrics pages in tests/fixtures/apps/ (README.md there) are
# valid exposition text:
#   1. `promtool check metrics` parses every *.prom page (exit 0 or 3: lint
#      findings are the applications' own, a parse error is exit 1);
#   2. `llmon tsdb import` reads every line of every *.prom page as a sample;
#   3. prometheus_client's strict OpenMetrics parser reads openmetrics.txt
#      (when a python3 has prometheus_client), and promtool rejects it (it reads
#      only the 0.0.4 text format: the page really is OpenMetrics);
#   4. the checks can fail: a page with a broken line fails 1 and 2.
# Usage: app_fixtures_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

LLMON="${1:-}"
[[ -n "$LLMON" ]] || fail "usage: $0 <path-to-llmon-binary>"
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/llmon-${ITEST_NAME}.XXXXXX")" || fail "cannot create a scratch dir"
trap itest_cleanup EXIT

APPS="$REPO/tests/fixtures/apps"
pages=("$APPS"/*.prom)
((${#pages[@]} >= 5)) || fail "expected at least 5 *.prom pages in $APPS, found ${#pages[@]}"
[[ -f "$APPS/openmetrics.txt" ]] || fail "no $APPS/openmetrics.txt"

# check_page FILE: promtool parses it (lint findings allowed), llmon imports every sample line.
check_page() {
  local f="$1" rc n out
  if require_cmd promtool; then
    promtool check metrics <"$f" >"$SCRATCH/promtool.out" 2>&1
    rc=$?
    if ((rc != 0 && rc != 3)) || grep -q 'parsing error' "$SCRATCH/promtool.out"; then
      cat "$SCRATCH/promtool.out" >&2
      return 1
    fi
  fi
  n=$(grep -cv -e '^#' -e '^$' "$f")
  rm -rf "$SCRATCH/tsdb"
  out=$("$LLMON" tsdb import --storage.path="$SCRATCH/tsdb" "$f" 2>&1) || {
    printf '%s\n' "$out" >&2
    return 1
  }
  if ! grep -q "samples=$n accepted=$n invalid_lines=0 " <<<"$out"; then
    printf '%s\n' "$out" >&2
    log "$(basename "$f"): expected samples=$n accepted=$n invalid_lines=0"
    return 1
  fi
}

require_cmd promtool || log "promtool not installed: step 1 skipped (apt-get install prometheus)"
for f in "${pages[@]}"; do
  check_page "$f" || fail "$(basename "$f") is not valid exposition text"
  log "$(basename "$f"): $(grep -cv -e '^#' -e '^$' "$f") samples, parsed by promtool and llmon"
done

if require_cmd promtool; then
  if promtool check metrics <"$APPS/openmetrics.txt" >/dev/null 2>&1; then
    fail "promtool's 0.0.4 text parser accepted openmetrics.txt: it has no OpenMetrics-only syntax"
  fi
fi
# The Debian package python3-prometheus-client (scripts/install-deps.sh) installs
# into the system python3, which a python3 earlier on PATH (pyenv, venv) hides.
PY=""
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import prometheus_client.openmetrics.parser' 2>/dev/null; then
    PY="$p"
    break
  fi
done
if [[ -n "$PY" ]]; then
  "$PY" - "$APPS/openmetrics.txt" <<'EOF' || fail "openmetrics.txt is not valid OpenMetrics"
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
families = list(text_string_to_metric_families(open(sys.argv[1]).read()))
types = {f.type for f in families}
need = {'counter', 'gauge', 'histogram', 'gaugehistogram', 'summary', 'info', 'stateset', 'unknown'}
missing = need - types
exemplars = sum(1 for f in families for s in f.samples if s.exemplar)
units = sum(1 for f in families if f.unit)
created = sum(1 for f in families for s in f.samples if s.name.endswith('_created'))
if missing or exemplars < 2 or units < 2 or created < 3:
    sys.exit(f'missing types {sorted(missing)}, {exemplars} exemplars, {units} units, {created} _created')
print(f'openmetrics.txt: {len(families)} families, {exemplars} exemplars, {units} units, {created} _created',
      file=sys.stderr)
EOF
else
  log "python3 without prometheus_client: openmetrics.txt not parsed"
fi

# The checks can fail.
sed '5s/ [^ ]*$/ not-a-number/' "$APPS/vllm.prom" >"$SCRATCH/broken.prom"
cmp -s "$APPS/vllm.prom" "$SCRATCH/broken.prom" && fail "self-check: could not break a line"
check_page "$SCRATCH/broken.prom" 2>/dev/null && fail "self-check: a page with a broken value passed"
log "self-check: a broken page fails"
