#!/usr/bin/env bash
# The dashboard in a real browser: Debian's chromium, headless, driven by
# playwright-core (web/browser/dashboard.browser.mjs) against `llmon agent` on
# the fake NVML library's 8x H100 scenario, with notifications on (a null
# receiver) so that silences exist, and a second agent on the A100 MIG scenario. The checks compare the page with the
# agent's API (cards, charts' series, processes, heatmap rows, filesystems, a
# firing alert, a silence created and expired, completion, the URL state,
# drag-zoom, a phone-sized screen, no console errors). Screenshots are kept
# in <build>/test-artifacts/dashboard/.
# Usage: dashboard_browser_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # llmon_URL comes from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"
find_browser
[[ -z "$BROWSER_MISSING" ]] || skip "$BROWSER_MISSING"
FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
[[ -f "$FAKE" ]] || fail "fake NVML not built next to $LLMON (expected $FAKE)"
ART="${LLMON_TEST_ARTIFACTS:-$(dirname "$LLMON")/test-artifacts}/dashboard"
mkdir -p "$ART"

printf 'route:\n  receiver: nobody\nreceivers:\n  - name: nobody\n' >"$SCRATCH/notify.yml"
export LLMON_FAKE_NVML_SCENARIO="$REPO/tests/fake_nvml/scenarios/h100x8.json"
LLMON_FAKE_NVML_SCENARIO="$REPO/tests/fake_nvml/scenarios/a100_mig.json" \
  start_server mig /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/mig-data" \
  --nvml.library="$FAKE"
start_llmon --nvml.library="$FAKE" --notify.config="$SCRATCH/notify.yml"
fetch "$llmon_URL/" "$SCRATCH/index.html"
grep -q 'assets/app.js' "$SCRATCH/index.html" || skip "this llmon was built without the dashboard (-DLLMON_WEB=OFF)"

MIG_URL="$mig_URL" "$NODE" "$REPO/web/browser/dashboard.browser.mjs" "$llmon_URL" "$ART" "$CHROMIUM" 2>&1 | tee "$SCRATCH/browser.out"
rc=${PIPESTATUS[0]}
grep -q 'level=error' "$SCRATCH/llmon.log" && fail "error lines in the agent log: $(grep 'level=error' "$SCRATCH/llmon.log" | head -3)"
[[ $rc -eq 0 ]] || fail "browser checks failed (screenshots in $ART)"
log "screenshots in $ART"
