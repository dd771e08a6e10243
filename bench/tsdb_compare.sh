#!/usr/bin/env bash
# Side-by-side benchmarks of llmon's time-series store against Prometheus 2.42 (promtool) and
# VictoriaMetrics 1.79 on the same inputs (docs/performance.md "Time-series store: side by side").
#
#   bench/tsdb_compare.sh STEP...      STEP: size write rss read (or all)
#     size   bytes/sample on disk incl. the index, for two inputs:
#              real  = llmon's /metrics recorded every second ($REC: "# SCRAPE <ms>" before each
#                      page, or `llmon tsdb dump` of an agent's store as bench/record_real.sh
#                      writes it) -> bench/chunk_data.py -> Prometheus text with ms timestamps,
#                      samples not after their series' previous one dropped (tsdb_inputs.py clean);
#                      left out, with a note, when REC is not set
#              synth = a synthetic 2 h node_exporter history: two pages of a local
#                      prometheus-node-exporter 10 s apart -> bench/gen_synth.py, 4 instances, 15 s
#            llmon: `llmon tsdb import` + `llmon tsdb inspect --json` + du; VictoriaMetrics:
#            import, force flush, force merge; storage + indexdb; du; Prometheus: promtool tsdb
#            create-blocks-from openmetrics on the same samples (tsdb_inputs.py om, gen_synth.py's
#            .om) + bench/block_stats.py (chunks, chunks + index) + du. VictoriaMetrics keeps ~12
#            significant digits of a value: tsdb_vm_roundtrip.py counts the values it gives back
#            changed, and llmon is measured once more on exactly those values.
#     write  append throughput: promtool tsdb bench write (10 000 series x 3 000 scrapes) and
#            tsdb_write_bench on the same label file (bench/gen_labels.py 20000) in promtool's
#            shape and in the agent's shape,
#            interleaved, $RUNS times each; samples per CPU second and per wall second.
#     rss    24 h of 1 s history for this machine's series (tsdb_inputs.py history from the real
#            recording: needs REC), imported into llmon and into Prometheus blocks; then `llmon agent` on
#            its store and `prometheus` on its blocks scraping that agent every 1 s: VmRSS/VmHWM
#            after start, after 60 s, and after reading every sample of the 24 h (llmon: a
#            separate reader process, tsdb_read_bench --read-all; Prometheus: count_over_time
#            query_range per metric name, tsdb_prom_readall.py).
#     read   tsdb_read_bench (Google Benchmark): a week of one series and all series, warm and
#            cold; also on the 24 h store of the rss step when it exists.
#   Durations measured on the 2-core VM (docs/performance.md): size 3 min, write 3 min (RUNS=3),
#   rss 8 min, read 1.5 min; run them as `size write` and `rss read` to stay near 15 min a run.
#   Results: $SCRATCH/results/, summarised by bench/tsdb_report.py (markdown tables, ratios
#   against the peer measured in the same run). Nothing is hard-coded.
#
# env: LLMON (build/llmon), BENCH_BIN (dir of tsdb_*_bench: build/bench), REC (a recording of
#      llmon's /metrics, no default: make one with `bench/record_real.sh 36 FILE`), SCRATCH
#      (/tmp/tsdb_compare), RUNS (3), HOURS (24), KEEP (0: delete the multi-GB history texts after
#      use). Servers: Debian's prometheus (with promtool), prometheus-node-exporter,
#      victoria-metrics (apt-get install --no-install-recommends; none needs to run as a service).
# Everything listens on 127.0.0.1 on free ports; only the PIDs started here are stopped (bench/lib.sh).
# NAME_URL/NAME_PID are set by start() (bench/lib.sh) through printf -v.
# shellcheck disable=SC2154
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
export SCRATCH="${SCRATCH:-/tmp/tsdb_compare}"
LLMON="${LLMON:-$REPO/build/llmon}"
BENCH_BIN="${BENCH_BIN:-$REPO/build/bench}"
REC="${REC:-}"
RUNS="${RUNS:-3}"
HOURS="${HOURS:-24}"
KEEP="${KEEP:-0}"
RES="$SCRATCH/results"

[[ $# -gt 0 ]] || { awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0"; exit 2; }
STEPS=("$@")
[[ "${STEPS[*]}" == "all" ]] && STEPS=(size write rss read)
need_bin=("$LLMON") need_cmd=()
for s in "${STEPS[@]}"; do
  case "$s" in
  size) need_cmd+=(promtool victoria-metrics prometheus-node-exporter) ;;
  write) need_bin+=("$BENCH_BIN/tsdb_write_bench") need_cmd+=(promtool) ;;
  rss) need_bin+=("$BENCH_BIN/tsdb_read_bench") need_cmd+=(promtool prometheus) ;;
  read) need_bin+=("$BENCH_BIN/tsdb_read_bench") ;;
  *) echo "unknown step $s (size write rss read all)" >&2; exit 2 ;;
  esac
done
if [[ -z "$REC" && " ${STEPS[*]} " == *" rss "* ]]; then
  echo "step rss replays the real recording: set REC (make one: bench/record_real.sh 36 FILE)" >&2
  exit 2
fi
[[ -z "$REC" || -s "$REC" ]] || { echo "REC=$REC is missing or empty" >&2; exit 1; }
for b in "${need_bin[@]}"; do
  [[ -x "$b" ]] || { echo "missing $b (build: cmake -DLLMON_BENCH=ON; ninja llmon tsdb_write_bench tsdb_read_bench)" >&2; exit 1; }
done
for t in "${need_cmd[@]}"; do
  command -v "$t" >/dev/null || { echo "missing $t (Debian: apt-get install prometheus prometheus-node-exporter victoria-metrics)" >&2; exit 1; }
done
mkdir -p "$RES"
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"  # start, start_bg, stop_pid, mem_kb, wait_http, free_port, log; EXIT trap stops our PIDs
# rss_line TAG PID -> "TAG pid=.. VmRSS_kB=.. VmHWM_kB=.. RssAnon_kB=.. RssFile_kB=.."
rss_line() {
  echo "$1 VmRSS_kB=$(mem_kb "$2" VmRSS) VmHWM_kB=$(mem_kb "$2" VmHWM) RssAnon_kB=$(mem_kb "$2" RssAnon) RssFile_kB=$(mem_kb "$2" RssFile)"
}
env_note() {
  {
    echo "step=$1 at=$(date -u +%FT%TZ) load=\"$(cut -d' ' -f1-3 /proc/loadavg)\" nproc=$(nproc)"
    echo "llmon=\"$("$LLMON" version 2>&1 | head -1)\" git=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo ?)"
    echo "prometheus=\"$(prometheus --version 2>&1 | head -1)\""
    echo "victoria-metrics=$(dpkg-query -W -f '${Version}' victoria-metrics 2>/dev/null || echo ?)"
  } >>"$RES/env.txt"
}

# The real recording, frozen: copied once (a recorder may still be appending to REC).
real_inputs() {
  [[ -s "$SCRATCH/real.prom" && -s "$SCRATCH/real.om" ]] && return 0
  cp "$REC" "$SCRATCH/real.txt"
  python3 "$REPO/bench/chunk_data.py" "$SCRATCH/real.txt" >"$SCRATCH/real.raw.prom"
  python3 "$REPO/bench/tsdb_inputs.py" clean "$SCRATCH/real.raw.prom" "$SCRATCH/real.prom" >"$RES/real_clean.txt"
  rm -f "$SCRATCH/real.raw.prom"
  python3 "$REPO/bench/tsdb_inputs.py" om "$SCRATCH/real.prom" "$SCRATCH/real.om" >"$RES/real_om.txt"
  python3 - "$SCRATCH/real.txt" "$SCRATCH/real.prom" >"$RES/real_recording.txt" <<'PY'
import sys
ts = [int(l.split()[2]) for l in open(sys.argv[1], errors="replace") if l.startswith("# SCRAPE ")]
if not ts:  # `llmon tsdb dump` form: one cycle per distinct (second-rounded) timestamp
    ts = sorted({int(l.rsplit(None, 1)[1]) for l in open(sys.argv[2]) if l.strip()})
gaps = {}
for a, b in zip(ts, ts[1:]):
    d = round(b / 1000) - round(a / 1000)
    gaps[d] = gaps.get(d, 0) + 1
print(f"scrapes={len(ts)} minutes={(ts[-1] - ts[0]) / 60000:.1f} interval_s_histogram={dict(sorted(gaps.items()))}")
PY
}

llmon_size() {  # TAG FILE
  local dir="$SCRATCH/llmon_$1"
  rm -rf "$dir"
  "$LLMON" tsdb import "$2" --storage.path "$dir" >"$RES/llmon_import_$1.txt"
  "$LLMON" tsdb inspect --json --storage.path "$dir" >"$RES/llmon_inspect_$1.json"
  du -sb "$dir" | cut -f1 >"$RES/llmon_du_$1.txt"
}

# The synthetic input: two pages of a local node_exporter 10 s apart, extrapolated by gen_synth.py
# to 4 instances x 2 h at 15 s ($SCRATCH/synth.prom and synth.om, the same samples).
synth_inputs() {
  start node_exporter / prometheus-node-exporter --web.listen-address=127.0.0.1:@PORT@
  curl -fs --max-time 10 "$node_exporter_URL/metrics" >"$SCRATCH/ne_page0.txt"
  sleep 10
  curl -fs --max-time 10 "$node_exporter_URL/metrics" >"$SCRATCH/ne_page1.txt"
  stop_pid "$node_exporter_PID"
  python3 "$HERE/gen_synth.py" "$SCRATCH/ne_page0.txt" "$SCRATCH/ne_page1.txt" 10 "$SCRATCH/synth" 4 2 15 \
    >"$RES/synth.txt"
}

prom_blocks() {  # TAG OPENMETRICS_FILE: promtool's blocks of the samples, chunk and index bytes
  local dir="$SCRATCH/prom_blocks_$1"
  rm -rf "$dir"
  promtool tsdb create-blocks-from openmetrics "$2" "$dir" >"$RES/prom_create_$1.log" 2>&1
  python3 "$HERE/block_stats.py" "$dir" >"$RES/prom_blocks_$1.json"
  du -sb "$dir" | cut -f1 >"$RES/prom_du_$1.txt"
}

# vm_sum RE: the sum of the VictoriaMetrics self-metrics (vm_URL) whose line matches RE.
vm_sum() { curl -s --max-time 10 "$vm_URL/metrics" | awk -v re="$1" '$0 ~ re {s += $NF} END {printf "%.0f\n", s}'; }
vm_sizes() {  # STAGE DATA_DIR -> "STAGE vm_rows=.. vm_data_size_bytes(storage)=.. (indexdb)=.. du_data_dir=.."
  echo "$1 vm_rows=$(vm_sum '^vm_rows\\{type="storage/') vm_data_size_bytes(storage)=$(vm_sum '^vm_data_size_bytes\\{type="storage/') vm_data_size_bytes(indexdb)=$(vm_sum '^vm_data_size_bytes\\{type="indexdb') du_data_dir=$(du -sb "$2" | cut -f1)"
}

# vm_size TAG FILE: VictoriaMetrics (rollup cache off) imports FILE through
# /api/v1/import/prometheus; its rows and bytes (storage, indexdb, du) after a forced flush and
# after a forced merge of every partition, as "STAGE k=v..." lines in $RES/vm_TAG.txt; then the
# values it gives back (tsdb_vm_roundtrip.py -> $SCRATCH/TAG_vm.prom).
vm_size() {
  local tag="$1" file="$2" data="$SCRATCH/victoria_$1" out="$RES/vm_$1.txt" i samples t
  rm -rf "$data"
  start vm /health victoria-metrics -storageDataPath="$data" -httpListenAddr=127.0.0.1:@PORT@ -search.disableCache
  echo "idle VmRSS_kB=$(mem_kb "$vm_PID" VmRSS) VmHWM_kB=$(mem_kb "$vm_PID" VmHWM)" >"$out"
  samples=$(wc -l <"$file")
  t=$(curl -s -o /dev/null -w '%{time_total}' --data-binary @"$file" "$vm_URL/api/v1/import/prometheus")
  echo "import samples=$samples seconds=$t samples_per_s=$(awk -v s="$samples" -v t="$t" 'BEGIN {printf "%.0f", s / t}')" >>"$out"
  curl -s --max-time 60 "$vm_URL/internal/force_flush" >/dev/null
  sleep 5
  vm_sizes after_flush "$data" >>"$out"
  curl -s --max-time 60 "$vm_URL/internal/force_merge" >/dev/null  # no partition_prefix: every partition
  for ((i = 0; i < 60; i++)); do
    [[ "$(vm_sum '^vm_active_merges')" == 0 ]] && break
    sleep 1
  done
  sleep 2
  vm_sizes after_force_merge "$data" >>"$out"
  echo "after_import VmRSS_kB=$(mem_kb "$vm_PID" VmRSS) VmHWM_kB=$(mem_kb "$vm_PID" VmHWM)" >>"$out"
  python3 "$HERE/tsdb_vm_roundtrip.py" "$vm_URL" "$file" "$SCRATCH/${tag}_vm.prom" >"$RES/vm_roundtrip_$tag.json"
  stop_pid "$vm_PID"
}

step_size() {
  env_note size
  local tags=(synth)
  if [[ -n "$REC" ]]; then
    tags=(real synth)
    log "size: real inputs ($REC)"
    real_inputs
    log "size: Prometheus blocks of the real recording"
    prom_blocks real "$SCRATCH/real.om"
  else
    log "size: REC not set: the real input is left out (record one: bench/record_real.sh 36 FILE)"
  fi
  log "size: synthetic 2 h history (node_exporter pages -> gen_synth.py) + its Prometheus blocks"
  synth_inputs
  prom_blocks synth "$SCRATCH/synth.om"
  for tag in "${tags[@]}"; do
    log "size: llmon import $tag"
    llmon_size "$tag" "$SCRATCH/$tag.prom"
    log "size: VictoriaMetrics $tag: import, flush, merge, round trip (values given back vs imported)"
    vm_size "$tag" "$SCRATCH/$tag.prom"
    log "size: llmon on VictoriaMetrics' values ($tag)"
    llmon_size "${tag}_vmvalues" "$SCRATCH/${tag}_vm.prom"
  done
  env_note size-end
}

step_write() {
  env_note write
  local labels="$SCRATCH/20kseries_synth.json"
  [[ -s "$labels" ]] || python3 "$HERE/gen_labels.py" 20000 >"$labels"
  : >"$RES/write_promtool.jsonl"; : >"$RES/write_llmon_promtool.jsonl"; : >"$RES/write_llmon_cycle.jsonl"
  for ((r = 1; r <= RUNS; r++)); do
    log "write: run $r/$RUNS promtool"
    python3 "$REPO/bench/tsdb_promtool_write.py" "$labels" "$SCRATCH/promtool_benchout" >>"$RES/write_promtool.jsonl"
    log "write: run $r/$RUNS llmon (promtool shape)"
    "$BENCH_BIN/tsdb_write_bench" --labels "$labels" --shape promtool --dir "$SCRATCH/llmon_write" >>"$RES/write_llmon_promtool.jsonl"
    log "write: run $r/$RUNS llmon (cycle shape)"
    "$BENCH_BIN/tsdb_write_bench" --labels "$labels" --shape cycle --dir "$SCRATCH/llmon_write" >>"$RES/write_llmon_cycle.jsonl"
  done
  env_note write-end
}

step_rss() {
  env_note rss
  real_inputs
  local end_s=$(($(date +%s) - 120)) hist="$SCRATCH/hist"
  log "rss: $HOURS h of 1 s history ending $(date -u -d "@$end_s" +%TZ)"
  python3 "$REPO/bench/tsdb_inputs.py" history "$SCRATCH/real.prom" "$hist" "$HOURS" "$end_s" >"$RES/hist.txt"
  log "rss: llmon import"
  rm -rf "$SCRATCH/llmon_hist"
  /usr/bin/time -f "wall_s=%e user_s=%U sys_s=%S maxrss_kB=%M" "$LLMON" tsdb import "$hist.prom" \
    --storage.path "$SCRATCH/llmon_hist" >"$RES/hist_llmon_import.txt" 2>&1
  "$LLMON" tsdb inspect --json --storage.path "$SCRATCH/llmon_hist" >"$RES/hist_llmon_inspect.json"
  log "rss: promtool create-blocks-from openmetrics"
  rm -rf "$SCRATCH/prom_hist"
  /usr/bin/time -f "wall_s=%e user_s=%U sys_s=%S maxrss_kB=%M" promtool tsdb create-blocks-from openmetrics -q \
    "$hist.om" "$SCRATCH/prom_hist" >"$RES/hist_prom_create.txt" 2>&1
  python3 "$HERE/block_stats.py" "$SCRATCH/prom_hist" >"$RES/hist_prom_blocks.json"
  [[ "$KEEP" == 1 ]] || rm -f "$hist.prom" "$hist.om"

  local aport pport
  aport="$(free_port)"
  log "rss: llmon agent on the 24 h store (127.0.0.1:$aport)"
  start_bg "$RES/hist_agent.log" "$LLMON" agent --storage.path "$SCRATCH/llmon_hist" --web.listen-address "127.0.0.1:$aport"
  local a_pid=$LAST_PID
  wait_http "http://127.0.0.1:$aport/metrics"
  pport="$(free_port)"
  cat >"$SCRATCH/prom_hist.yml" <<YML
global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1m}
scrape_configs:
  - job_name: llmon
    static_configs: [{targets: ["127.0.0.1:$aport"]}]
    # Same series identities as the backfilled blocks (which carry no job/instance).
    metric_relabel_configs: [{action: labeldrop, regex: "job|instance"}]
YML
  log "rss: prometheus on the blocks, scraping the agent every 1 s (127.0.0.1:$pport)"
  # min = max block duration: no compaction of the 2 h backfilled blocks during the measurement.
  start_bg "$RES/hist_prometheus.log" prometheus --config.file="$SCRATCH/prom_hist.yml" \
    --storage.tsdb.path="$SCRATCH/prom_hist" --storage.tsdb.retention.time=30d \
    --storage.tsdb.min-block-duration=2h --storage.tsdb.max-block-duration=2h \
    --web.listen-address="127.0.0.1:$pport"
  local p_pid=$LAST_PID
  wait_http "http://127.0.0.1:$pport/-/ready"
  sleep 10
  {
    rss_line "llmon_start" "$a_pid"
    rss_line "prom_start" "$p_pid"
  } >"$RES/hist_rss.txt"
  sleep 60
  {
    rss_line "llmon_60s" "$a_pid"
    rss_line "prom_60s" "$p_pid"
  } >>"$RES/hist_rss.txt"
  log "rss: llmon reads every sample (separate process, read-only)"
  "$BENCH_BIN/tsdb_read_bench" --read-all "$SCRATCH/llmon_hist" >"$RES/hist_llmon_read.json"
  rss_line "llmon_after_read" "$a_pid" >>"$RES/hist_rss.txt"
  log "rss: prometheus reads every sample (count_over_time per metric name, query_range step 60 s)"
  python3 "$REPO/bench/tsdb_prom_readall.py" "http://127.0.0.1:$pport" "$((end_s - HOURS * 3600 + 1))" "$end_s" 60 \
    >"$RES/hist_prom_read.json"
  rss_line "prom_after_read" "$p_pid" >>"$RES/hist_rss.txt"
  curl -s "http://127.0.0.1:$pport/metrics" | grep -E '^(go_memstats_heap_inuse_bytes|prometheus_tsdb_head_series |prometheus_tsdb_blocks_loaded|prometheus_tsdb_compactions_total|process_resident_memory_bytes)' >"$RES/hist_prom_metrics.txt" || true
  curl -s "http://127.0.0.1:$aport/metrics" | grep -E '^(llmon_tsdb_series|llmon_tsdb_head_memory_bytes|llmon_tsdb_persisted_chunks|process_resident_memory_bytes)' >"$RES/hist_llmon_metrics.txt" || true
  stop_pid "$p_pid"
  stop_pid "$a_pid"
  env_note rss-end
}

step_read() {
  env_note read
  log "read: tsdb_read_bench, synthetic week"
  "$BENCH_BIN/tsdb_read_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$RES/read_synth.json" --benchmark_out_format=json >"$RES/read_synth.txt" 2>&1
  if [[ -d "$SCRATCH/llmon_hist/chunks" ]]; then
    log "read: tsdb_read_bench on the $HOURS h store of the rss step"
    "$BENCH_BIN/tsdb_read_bench" --db "$SCRATCH/llmon_hist" --benchmark_filter='BM_(OneSeries|AllSeries)' \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
      --benchmark_out="$RES/read_hist.json" --benchmark_out_format=json >"$RES/read_hist.txt" 2>&1
  fi
  env_note read-end
}

for s in "${STEPS[@]}"; do
  "step_$s"
done
python3 "$REPO/bench/tsdb_report.py" "$RES"
