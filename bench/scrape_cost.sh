#!/usr/bin/env bash
# Scrape cost, llmon against Prometheus 2.42 on the same targets in one run
# (docs/performance.md "Scraping applications"): TARGETS pages of SAMPLES
# samples each (vLLM-shaped: counters, gauges and histograms with a few
# labels; tests/integration/page_server.py serves them, gzip as both ask),
# scraped every second by each server alone in turn with the same
# scrape_configs. Each runs WARM_S seconds, then its CPU (utime+stime of the
# process) is measured over MEASURE_S seconds and divided by the samples it
# scraped in that window (sum_over_time(scrape_samples_scraped) from its own
# API); RSS (VmRSS) is read at the end. llmon runs with its collectors, rules,
# diagnosis and log watching off, so the figure is the scraper's and the
# store's. Prints a table and the llmon/Prometheus ratios.
# Usage: bench/scrape_cost.sh [build/llmon]   (env TARGETS=10 SAMPLES=5000 WARM_S=20 MEASURE_S=60)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LLMON="$(realpath "${1:-$REPO/build/llmon}")"
TARGETS="${TARGETS:-10}" SAMPLES="${SAMPLES:-5000}" WARM_S="${WARM_S:-20}" MEASURE_S="${MEASURE_S:-60}"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/llmon-scrape-cost.XXXXXX")"
bench_on_exit() { rm -rf "$SCRATCH"; }

mkdir -p "$SCRATCH/pages"
python3 "$REPO/bench/app_pages.py" "$SCRATCH/pages" "$TARGETS" "$SAMPLES"
start pages /t0 python3 "$REPO/tests/integration/page_server.py" "$SCRATCH/pages" @PORT@
{
  printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: apps\n    static_configs:\n'
  for ((t = 0; t < TARGETS; t++)); do
    printf '      - targets: ["127.0.0.1:%s"]\n        labels: {__metrics_path__: /t%d, target: t%d}\n' "$pages_PORT" "$t" "$t"
  done
} >"$SCRATCH/scrape.yml"

# measure NAME URL PID: prints "cpu_s samples rss_kb" after the warm-up and the window.
measure() {
  local url="$2" pid="$3" c0 c1 samples
  sleep "$WARM_S"
  c0="$(cpu_ticks "$pid")"
  sleep "$MEASURE_S"
  c1="$(cpu_ticks "$pid")"
  samples="$(curl -s -G "$url/api/v1/query" --data-urlencode "query=sum(sum_over_time(scrape_samples_scraped{job=\"apps\"}[${MEASURE_S}s]))" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')"
  echo "$(python3 -c "print(($c1 - $c0) / $CLK_TCK)") $samples $(mem_kb "$pid" VmRSS)"
}

mkdir -p "$SCRATCH/prom-data"
start prom /-/ready prometheus --config.file="$SCRATCH/scrape.yml" --storage.tsdb.path="$SCRATCH/prom-data" \
  --web.listen-address=127.0.0.1:@PORT@ --log.level=warn
log "Prometheus scraping $TARGETS targets x $SAMPLES samples"
read -r P_CPU P_SAMPLES P_RSS <<<"$(measure prom "$prom_URL" "$prom_PID")"
stop_pid "$prom_PID"

start llmon /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/llmon-data" \
  --scrape.config="$SCRATCH/scrape.yml" --collector.disable-defaults --rules.defaults=false \
  --logwatch.enabled=false --diagnose.interval=0 --log.level=warn
log "llmon scraping $TARGETS targets x $SAMPLES samples"
read -r L_CPU L_SAMPLES L_RSS <<<"$(measure llmon "$llmon_URL" "$llmon_PID")"
stop_pid "$llmon_PID"

python3 - "$TARGETS" "$SAMPLES" "$P_CPU" "$P_SAMPLES" "$P_RSS" "$L_CPU" "$L_SAMPLES" "$L_RSS" <<'PY'
import sys
t, s = sys.argv[1], sys.argv[2]
p_cpu, p_n, p_rss, l_cpu, l_n, l_rss = map(float, sys.argv[3:])
p_ns = p_cpu / p_n * 1e9 if p_n else float("nan")
l_ns = l_cpu / l_n * 1e9 if l_n else float("nan")
print(f"targets={t} samples_per_page={s} interval=1s")
print(f"{'':12}{'CPU s':>8}{'samples':>12}{'ns/sample':>11}{'RSS MiB':>9}")
print(f"{'Prometheus':12}{p_cpu:8.2f}{p_n:12.0f}{p_ns:11.0f}{p_rss/1024:9.1f}")
print(f"{'llmon':12}{l_cpu:8.2f}{l_n:12.0f}{l_ns:11.0f}{l_rss/1024:9.1f}")
print(f"llmon/Prometheus: CPU per sample {l_ns/p_ns:.2f}, RSS {l_rss/p_rss:.2f}")
PY
