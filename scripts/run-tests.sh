#!/usr/bin/env bash
# Runs every test through ctest and ends with ctest's summary line, repeated
# after the list of skipped tests
# ("100% tests passed, 0 tests failed out of N"). Integration tests start
# their own servers on free loopback ports and stop exactly those PIDs.
set -uo pipefail
BUILD="${1:-build}"
cd "$(dirname "$0")/.."
JOBS="${CTEST_JOBS:-$(nproc)}"
out="$(mktemp)"
ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" --timeout 600 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
# ctest lists skipped tests (e.g. gpu_hardware.* without a GPU) after its
# summary; repeat the summary so it is the last line.
summary="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$out" | tail -n 1)"
skipped="$(grep -cE '\(Skipped\)$' "$out")"
rm -f "$out"
if [[ -n "$summary" ]]; then
  echo
  echo "skipped: $skipped (reasons above: they need hardware or tools this machine lacks)"
  echo "$summary"
fi
exit "$rc"
