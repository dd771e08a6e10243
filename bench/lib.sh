# shellcheck shell=bash
# Shared helpers for the bench/*.sh comparison scripts (sourced, not run):
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# Contract: every server a script starts listens on 127.0.0.1 on a port picked
# at run time, its PID is remembered, and at exit (EXIT trap; INT and TERM exit
# 130/143 through it) exactly those PIDs are stopped: TERM, up to 10 s, then
# KILL. Every wait is bounded. A script that needs more at exit defines
# bench_on_exit (called after the servers are stopped, with $? of the script).
#
#   start_bg LOG CMD...                background CMD, output to LOG; sets LAST_PID
#   start NAME READY_PATH CMD...       @PORT@ in CMD replaced by a free port, run in
#                                      $SCRATCH (log $SCRATCH/NAME.log) until READY_PATH
#                                      answers 200 (120 s; 3 tries if it exits at start);
#                                      sets NAME_URL, NAME_PORT, NAME_PID
#   wait_http URL [SECONDS]            until URL answers 2xx (default 30 s)
#   stop_pid PID / stop_all            stop one started PID / all of them
#   free_port                          a free 127.0.0.1 TCP port
#   cpu_ticks PID, mem_kb PID FIELD    utime+stime ticks; a /proc/PID/status field in kB
#   median                             median of the numbers on stdin
#   log MSG                            "== HH:MM:SS MSG" on stderr
# shellcheck disable=SC2034  # CLK_TCK, NAME_* are for the caller

CLK_TCK="$(getconf CLK_TCK)"
BENCH_PIDS=()

log() { echo "== $(date -u +%H:%M:%S) $*" >&2; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

start_bg() {
  local out="$1"
  shift
  "$@" >"$out" 2>&1 &
  LAST_PID=$!
  BENCH_PIDS+=("$LAST_PID")
  echo "started PID $LAST_PID: $*" >&2
}

wait_http() {
  local url="$1" tries=$((${2:-30} * 5)) i
  for ((i = 0; i < tries; i++)); do
    curl -fs -o /dev/null --max-time 5 "$url" && return 0
    sleep 0.2
  done
  echo "timeout waiting for $url" >&2
  return 1
}

start() {
  local name="$1" ready="$2" attempt port pid a i args
  shift 2
  for attempt in 1 2 3; do
    port="$(free_port)"
    args=()
    for a in "$@"; do args+=("${a//@PORT@/$port}"); done
    (cd "$SCRATCH" && exec "${args[@]}") >"$SCRATCH/$name.log" 2>&1 &
    pid=$!
    BENCH_PIDS+=("$pid")
    for ((i = 0; i < 1200; i++)); do  # 120 s
      if [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$port$ready" || true)" == 200 ]]; then
        printf -v "${name}_URL" '%s' "http://127.0.0.1:$port"
        printf -v "${name}_PORT" '%s' "$port"
        printf -v "${name}_PID" '%s' "$pid"
        log "$name up on 127.0.0.1:$port (pid $pid)"
        return 0
      fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    tail -n 20 "$SCRATCH/$name.log" >&2
    kill -0 "$pid" 2>/dev/null && { log "$name not ready within 120 s"; return 1; }
    log "$name exited during start-up (attempt $attempt)"
  done
  return 1
}

# Forgets the PID first, so a recycled PID is never signalled at exit.
stop_pid() {
  local pid="$1" p i kept=()
  for p in "${BENCH_PIDS[@]}"; do [[ "$p" == "$pid" ]] || kept+=("$p"); done
  BENCH_PIDS=("${kept[@]}")
  if kill -TERM "$pid" 2>/dev/null; then
    for ((i = 0; i < 100; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "pid $pid ignored SIGTERM for 10 s; SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
}

stop_all() {
  local pid
  for pid in "${BENCH_PIDS[@]}"; do stop_pid "$pid"; done
}

bench_exit() {
  local rc=$?
  stop_all
  if declare -F bench_on_exit >/dev/null; then bench_on_exit "$rc"; fi
  exit "$rc"
}
trap bench_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
mem_kb() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status"; }
median() { sort -g | awk '{a[NR] = $1} END {if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
