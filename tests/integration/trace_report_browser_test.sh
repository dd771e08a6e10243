#!/usr/bin/env bash
# `llmon trace analyze DIR --json --html OUT` in a real browser
# (docs/trace.md#html-report---html): two fixture ranks analysed into one page, which
# Debian's chromium (headless, playwright-core: web/browser/trace_report.browser.mjs)
# opens from file:// and checks against the --json document of the same run:
# no console errors, nothing fetched, the temporal breakdown, kernel types and
# classes, the top kernels and operators with the flagged rows marked, the
# steps, and unknown sections drawn as generic tables. With the HTA sample
# traces (LLMON_TRACE_SAMPLES) a real trace's page is checked too.
# Screenshots: <build>/test-artifacts/trace-report/.
# Usage: trace_report_browser_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
itest_init "$@"
find_browser
[[ -z "$BROWSER_MISSING" ]] || skip "$BROWSER_MISSING"
ART="${LLMON_TEST_ARTIFACTS:-$(dirname "$LLMON")/test-artifacts}/trace-report"
mkdir -p "$ART" "$SCRATCH/ranks"

cp "$REPO/tests/fixtures/traces/one_step.json" "$SCRATCH/ranks/rank0.json"
cp "$REPO/tests/fixtures/traces/two_steps_ns.json.gz" "$SCRATCH/ranks/rank1.json.gz"
"$LLMON" trace analyze "$SCRATCH/ranks" --json --html="$SCRATCH/report.html" >"$SCRATCH/report.json" ||
  fail "llmon trace analyze --html failed"
[[ -s "$SCRATCH/report.html" ]] || fail "no HTML written"
grep -q 'id="report-data"' "$SCRATCH/report.html" || fail "no embedded report in the page"
EXPECT_FLAGGED=1 "$NODE" "$REPO/web/browser/trace_report.browser.mjs" "$SCRATCH/report.html" "$SCRATCH/report.json" "$ART" "$CHROMIUM" 2>&1 |
  tee "$SCRATCH/browser.out"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail "browser checks failed (screenshots in $ART)"

SAMPLES="${LLMON_TRACE_SAMPLES:-$REPO/../shared/data/traces}"
NS="$(ls "$SAMPLES"/ns_resolution_trace/*.json.gz 2>/dev/null | head -1 || true)"
if [[ -n "$NS" ]]; then
  "$LLMON" trace analyze "$NS" --json --html="$SCRATCH/ns.html" >"$SCRATCH/ns.json" || fail "analyze $NS"
  "$NODE" "$REPO/web/browser/trace_report.browser.mjs" "$SCRATCH/ns.html" "$SCRATCH/ns.json" "$ART/ns" "$CHROMIUM" 2>&1 |
    tee "$SCRATCH/browser-ns.out"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || fail "browser checks of the ns_resolution_trace sample failed"
else
  log "HTA sample traces not found (LLMON_TRACE_SAMPLES): the real-trace page is not checked"
fi
log "screenshots in $ART"
