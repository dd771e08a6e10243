#!/usr/bin/env bash
# Runs every test through ctest and ends with ctest's summary line
# ("100% tests passed, 0 tests failed out of N"). Integration tests start
# their own servers on free loopback ports and stop exactly those PIDs.
set -uo pipefail
BUILD="${1:-build}"
cd "$(dirname "$0")/.."
JOBS="${CTEST_JOBS:-$(nproc)}"
ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" --timeout 600
