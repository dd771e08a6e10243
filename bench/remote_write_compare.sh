#!/usr/bin/env bash
# shellcheck disable=SC2154  # start() in bench/lib.sh sets NAME_URL, NAME_PORT, NAME_PID
# remote_write cost and catch-up, llmon against Prometheus 2.42 in agent mode
# (--enable-feature=agent) in one run (docs/performance.md "remote_write"):
# both scrape the same TARGETS pages of SAMPLES samples every second (the
# pages of bench/scrape_cost.sh, tests/integration/page_server.py) and send
# them to the same receiver (VictoriaMetrics when installed, else a
# Prometheus 2.42 with --web.enable-remote-write-receiver), each with its
# own external label sender=llmon|prometheus so the series do not collide.
# Each sender runs alone in turn, twice: scraping without remote_write, then
# with it. In each phase its CPU (utime+stime) is measured over MEASURE_S
# seconds after WARM_S; "per sample" divides by the samples it sent in the
# window (its own *_remote_storage_samples_total). The remote_write share is
# the difference of the two phases. Then the receiver is stopped for
# OUTAGE_S seconds and restarted: the catch-up rate is the samples sent from
# the restart until the sender's newest sent timestamp passed the restart
# time, over that time, and is compared with the ingest rate.
# Usage: bench/remote_write_compare.sh [build/llmon]
#   (env TARGETS=2 SAMPLES=5000 WARM_S=15 MEASURE_S=40 OUTAGE_S=40 PROTOCOL=1|2)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LLMON="$(realpath "${1:-$REPO/build/llmon}")"
TARGETS="${TARGETS:-2}" SAMPLES="${SAMPLES:-5000}" WARM_S="${WARM_S:-15}" MEASURE_S="${MEASURE_S:-40}"
OUTAGE_S="${OUTAGE_S:-40}" PROTOCOL="${PROTOCOL:-1}"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/llmon-rw-compare.XXXXXX")"
bench_on_exit() { rm -rf "$SCRATCH"; }

mkdir -p "$SCRATCH/pages"
python3 "$REPO/bench/app_pages.py" "$SCRATCH/pages" "$TARGETS" "$SAMPLES" --help-lines
start pages /t0 python3 "$REPO/tests/integration/page_server.py" "$SCRATCH/pages" @PORT@

RECV_PORT="$(free_port)"
if command -v victoria-metrics >/dev/null; then
  RECEIVER=victoria-metrics
  start_receiver() {
    start_bg "$SCRATCH/recv.log" victoria-metrics -httpListenAddr="127.0.0.1:$RECV_PORT" \
      -storageDataPath="$SCRATCH/vm" -retentionPeriod=100y -loggerLevel=ERROR
    recv_PID="$LAST_PID"
    wait_http "http://127.0.0.1:$RECV_PORT/health" 120
  }
else
  RECEIVER=prometheus-2.42
  printf 'global:\n  scrape_interval: 1h\n' >"$SCRATCH/recv.yml"
  start_receiver() {
    start_bg "$SCRATCH/recv.log" prometheus --config.file="$SCRATCH/recv.yml" \
      --storage.tsdb.path="$SCRATCH/recv-data" --web.listen-address="127.0.0.1:$RECV_PORT" \
      --web.enable-remote-write-receiver --log.level=error
    recv_PID="$LAST_PID"
    wait_http "http://127.0.0.1:$RECV_PORT/-/ready" 120
  }
fi
start_receiver
RW_URL="http://127.0.0.1:$RECV_PORT/api/v1/write"
MESSAGE=prometheus.WriteRequest
[[ "$PROTOCOL" == 2 ]] && MESSAGE=io.prometheus.write.v2.Request

scrape_cfg() {  # scrape_cfg FILE SENDER WITH_REMOTE_WRITE: Prometheus's file (llmon's gets no remote_write)
  {
    printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n'
    [[ "$2" == prometheus ]] && printf '  external_labels: {sender: prometheus}\n'
    printf 'scrape_configs:\n  - job_name: apps\n    static_configs:\n'
    for ((t = 0; t < TARGETS; t++)); do
      printf '      - targets: ["127.0.0.1:%s"]\n        labels: {__metrics_path__: /t%d, target: t%d}\n' \
        "$pages_PORT" "$t" "$t"
    done
    [[ "$2" == prometheus && "$3" == 1 ]] && printf 'remote_write:\n  - url: %s\n    name: bench\n' "$RW_URL"
  } >"$1"
  # llmon reads the same remote_write list from its own file.
  printf 'global:\n  external_labels: {sender: llmon}\nremote_write:\n  - url: %s\n    name: bench\n    protobuf_message: %s\n' \
    "$RW_URL" "$MESSAGE" >"$SCRATCH/llmon-rw.yml"
}

metric() {  # metric URL NAME: the first value of NAME on URL/metrics (0 when absent)
  local page
  page="$(curl -s --max-time 5 "$1/metrics" || true)"
  awk -v n="$2" '$1 == n || index($1, n"{") == 1 {print $2; found=1; exit} END {if (!found) print 0}' <<<"$page"
}

start_sender() {  # start_sender llmon|prometheus WITH_REMOTE_WRITE
  local who="$1" cfg="$SCRATCH/$1-$2.yml"
  scrape_cfg "$cfg" "$who" "$2"
  rm -rf "$SCRATCH/$who-data"
  if [[ "$who" == llmon ]]; then
    local rw=()
    [[ "$2" == 1 ]] && rw=(--remote-write.config="$SCRATCH/llmon-rw.yml")
    start sender /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/$who-data" \
      --scrape.config="$cfg" "${rw[@]}" --collector.disable-defaults --rules.defaults=false \
      --logwatch.enabled=false --diagnose.interval=0 --log.level=warn
    SENT_METRIC=llmon_remote_storage_samples_total
    HIGHEST_METRIC=llmon_remote_storage_highest_timestamp_sent_seconds
  else
    start sender /-/ready prometheus --enable-feature=agent --config.file="$cfg" \
      --storage.agent.path="$SCRATCH/$who-data" --web.listen-address=127.0.0.1:@PORT@ --log.level=error
    SENT_METRIC=prometheus_remote_storage_samples_total
    HIGHEST_METRIC=prometheus_remote_storage_queue_highest_sent_timestamp_seconds
  fi
}

# phase WHO WITH_RW: starts the sender and measures; sets PH_CPU, PH_SENT.
phase() {
  start_sender "$1" "$2"
  sleep "$WARM_S"
  local c0 c1 s0 s1
  c0="$(cpu_ticks "$sender_PID")"
  s0="$(metric "$sender_URL" "$SENT_METRIC")"
  sleep "$MEASURE_S"
  c1="$(cpu_ticks "$sender_PID")"
  s1="$(metric "$sender_URL" "$SENT_METRIC")"
  PH_CPU="$(python3 -c "print(($c1 - $c0) / $CLK_TCK)")"
  PH_SENT="$(python3 -c "print($s1 - $s0)")"
}

# catch_up: with the sender running and sending, stops the receiver for
# OUTAGE_S and restarts it. The catch-up runs from the first poll (every
# 0.1 s) that sees samples acknowledged again (after the sender's retry
# backoff, up to 5 s for both) until the sender's newest sent timestamp
# passed the restart time; sets UP_SECS, UP_SAMPLES (in that span) and
# UP_WALL (from the restart).
catch_up() {
  stop_pid "$recv_PID"
  sleep "$OUTAGE_S"
  local s0 t0 t1="" s1="" h now i n
  s0="$(metric "$sender_URL" "$SENT_METRIC")"
  t0="$(date +%s)"  # whole seconds: Prometheus prints its timestamp gauge to 10 digits
  start_receiver
  for ((i = 0; i < 6000; i++)); do
    n="$(metric "$sender_URL" "$SENT_METRIC")"
    if [[ -z "$t1" ]] && python3 -c "import sys; sys.exit(0 if float('$n') > float('$s0') else 1)"; then
      t1="$(date +%s.%N)"
      s1="$n"
    fi
    h="$(metric "$sender_URL" "$HIGHEST_METRIC")"
    [[ -n "$t1" ]] && python3 -c "import sys; sys.exit(0 if float('$h') >= $t0 else 1)" && break
    sleep 0.1
  done
  now="$(date +%s.%N)"
  UP_WALL="$(python3 -c "print($now - $t0)")"
  UP_SECS="$(python3 -c "print($now - $t1)")"
  UP_SAMPLES="$(python3 -c "print($(metric "$sender_URL" "$SENT_METRIC") - $s1)")"
}

declare -A CPU SENT UP_S UP_N UP_W
for who in prometheus llmon; do
  log "$who: scraping only"
  phase "$who" 0
  CPU[$who-base]="$PH_CPU"
  stop_pid "$sender_PID"
  log "$who: scraping and remote_write to $RECEIVER"
  phase "$who" 1
  CPU[$who-rw]="$PH_CPU"
  SENT[$who]="$PH_SENT"
  log "$who: receiver outage of ${OUTAGE_S}s"
  catch_up
  UP_S[$who]="$UP_SECS"
  UP_N[$who]="$UP_SAMPLES"
  UP_W[$who]="$UP_WALL"
  log "$who: caught up ${UP_WALL}s after the restart; ${UP_SAMPLES} samples in the last ${UP_SECS}s"
  stop_pid "$sender_PID"
done

python3 - "$TARGETS" "$SAMPLES" "$MEASURE_S" "$OUTAGE_S" "$RECEIVER" "$PROTOCOL" \
  "${CPU[prometheus-base]}" "${CPU[prometheus-rw]}" "${SENT[prometheus]}" "${UP_S[prometheus]}" "${UP_N[prometheus]}" \
  "${UP_W[prometheus]}" \
  "${CPU[llmon-base]}" "${CPU[llmon-rw]}" "${SENT[llmon]}" "${UP_S[llmon]}" "${UP_N[llmon]}" "${UP_W[llmon]}" <<'PY'
import sys
t, s, window, outage, recv, proto = sys.argv[1:7]
window = float(window)
rows = {}
for name, vals in (("Prometheus agent", sys.argv[7:13]), ("llmon", sys.argv[13:19])):
    base, rw, sent, up_s, up_n, up_w = map(float, vals)
    ingest = int(t) * int(s)  # samples/s scraped
    rows[name] = dict(
        base=base, rw=rw, sent=sent,
        total_ns=rw / sent * 1e9 if sent else float("nan"),
        rw_ns=(rw - base) / sent * 1e9 if sent else float("nan"),
        up_rate=up_n / up_s if up_s else float("nan"), up_s=up_s, up_w=up_w, ingest=ingest)
print(f"targets={t} samples_per_page={s} interval=1s window={window:.0f}s receiver={recv} llmon_protocol={proto}.0 outage={outage}s")
print(f"{'':18}{'CPU s base':>11}{'CPU s rw':>9}{'sent':>10}{'ns/sample':>10}{'rw ns/sample':>13}"
      f"{'catch-up/s':>11}{'x ingest':>9}{'sending s':>10}{'restart->caught up s':>21}")
for name, r in rows.items():
    print(f"{name:18}{r['base']:11.2f}{r['rw']:9.2f}{r['sent']:10.0f}{r['total_ns']:10.0f}{r['rw_ns']:13.0f}"
          f"{r['up_rate']:11.0f}{r['up_rate'] / r['ingest']:9.1f}{r['up_s']:10.1f}{r['up_w']:21.1f}")
p, l = rows["Prometheus agent"], rows["llmon"]
print(f"llmon/Prometheus: CPU per sample sent {l['total_ns'] / p['total_ns']:.2f} (whole process), "
      f"{l['rw_ns'] / p['rw_ns']:.2f} (remote_write share)")
PY
