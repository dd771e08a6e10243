#!/usr/bin/env bash
# The push store against Prometheus Pushgateway 1.5 in one run (docs/performance.md
# "Push store (issue 19)"):
#
#   bench/push_compare.sh [BUILD_DIR]        (default: build)
#
# 1. prometheus-pushgateway on a free 127.0.0.1 port, in memory (--persistence.file=),
#    timed by bench/push_timing.py: median PUT of a 100-series body and median GET /metrics
#    with 1, 10, 100 and 1000 such groups stored (HTTP and the Python client included).
# 2. BUILD_DIR/bench/push_store_bench: the same body and store sizes pushed into
#    scrape::PushStore in process (parse, check, write), and the merged page written.
# The Pushgateway's figures include HTTP; llmon's route adds its own HTTP cost on top of (2).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
BUILD="${1:-build}"
SCRATCH="$(mktemp -d /tmp/llmon-push-compare.XXXXXX)"
bench_on_exit() { rm -rf "$SCRATCH"; }
command -v prometheus-pushgateway >/dev/null || { echo "prometheus-pushgateway not installed" >&2; exit 77; }
[[ -x "$BUILD/bench/push_store_bench" ]] || { echo "build $BUILD/bench/push_store_bench first" >&2; exit 2; }

start PGW /-/ready prometheus-pushgateway --web.listen-address=127.0.0.1:@PORT@ --persistence.file=
log "Pushgateway $(prometheus-pushgateway --version 2>&1 | head -1)"
/usr/bin/python3 bench/push_timing.py "$PGW_URL"
stop_pid "$PGW_PID"
log "llmon scrape::PushStore (in process)"
"$BUILD/bench/push_store_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>&1 |
  grep -E '_median|^Benchmark'
