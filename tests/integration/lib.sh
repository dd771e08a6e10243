# shellcheck shell=bash disable=SC2034
# Shared helpers for tests/integration/*_test.sh (sourced, not run).
# Every server a test starts listens on 127.0.0.1 on a port picked at run time,
# lives in the test's own scratch dir and is stopped by its PID at exit, so the
# tests can run in parallel (ctest -j). Every wait is bounded.
#
# Usage:
#   source "$(dirname "$0")/lib.sh"
#   itest_init "$@"                    # sets LLMON, SCRATCH, REPO; installs the EXIT trap
#   require_cmd promtool || skip "promtool not installed"
#   start_server ne /metrics prometheus-node-exporter --web.listen-address=127.0.0.1:@PORT@
#   fetch "http://127.0.0.1:$ne_PORT/metrics" "$SCRATCH/ne.prom"

set -u -o pipefail

ITEST_NAME="$(basename "${0%.sh}")"
ITEST_PIDS=()
SCRATCH=""

log() { printf '[%s] %s\n' "$ITEST_NAME" "$*" >&2; }
fail() {
  printf '[%s] FAIL: %s\n' "$ITEST_NAME" "$*" >&2
  exit 1
}
# Exit code 77 is ctest's SKIP_RETURN_CODE for these tests.
skip() {
  printf '[%s] SKIP: %s\n' "$ITEST_NAME" "$*" >&2
  exit 77
}
require_cmd() { command -v "$1" >/dev/null 2>&1; }

# wait_for DESC TIMEOUT_S CMD...: runs CMD (a command or a function of the
# test) every 0.2 s until it succeeds; fails the test after TIMEOUT_S.
wait_for() {
  local desc="$1" timeout_s="$2" deadline
  shift 2
  deadline=$((SECONDS + timeout_s))
  until "$@"; do
    ((SECONDS < deadline)) || fail "timed out after ${timeout_s}s waiting for: $desc"
    sleep 0.2
  done
}

# Stops a PID this test started: TERM, up to 5 s, then KILL; reaps it and
# forgets it (so a recycled PID is never signalled at exit).
stop_pid() {
  local pid="$1" i p kept=()
  for p in "${ITEST_PIDS[@]}"; do [[ "$p" == "$pid" ]] || kept+=("$p"); done
  ITEST_PIDS=("${kept[@]}")
  if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid ignored SIGTERM for 5 s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
  return 0
}

itest_cleanup() {
  local rc=$? pid f
  for pid in "${ITEST_PIDS[@]}"; do stop_pid "$pid"; done
  if [[ $rc -ne 0 && $rc -ne 77 && -n "$SCRATCH" ]]; then
    for f in "$SCRATCH"/*.log; do
      [[ -s "$f" ]] || continue
      log "last lines of $(basename "$f"):"
      tail -n 15 "$f" >&2
    done
  fi
  if [[ -n "$SCRATCH" && -d "$SCRATCH" ]]; then
    if [[ $rc -ne 0 && $rc -ne 77 && -n "${ITEST_KEEP_SCRATCH_ON_FAILURE:-}" ]]; then
      log "keeping scratch dir $SCRATCH"
    else
      rm -rf -- "$SCRATCH"
    fi
  fi
  exit "$rc"
}

# itest_init LLMON_BINARY: checks the binary, makes the scratch dir, sets REPO.
itest_init() {
  LLMON="${1:-}"
  [[ -n "$LLMON" ]] || fail "usage: $0 <path-to-llmon-binary>"
  [[ -x "$LLMON" && -f "$LLMON" ]] || fail "llmon binary \"$LLMON\" is not executable"
  LLMON="$(cd "$(dirname "$LLMON")" && pwd)/$(basename "$LLMON")"  # servers run in SCRATCH
  REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/llmon-${ITEST_NAME}.XXXXXX")" || fail "cannot create a scratch dir"
  trap itest_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  require_cmd curl || skip "curl not installed"
}

# Prints a TCP port on 127.0.0.1 that was free a moment ago.
free_port() {
  local port
  if require_cmd python3; then
    port="$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' 2>/dev/null)"
  fi
  if [[ -z "${port:-}" ]]; then
    # Fallback: a random port in the ephemeral range that nothing listens on.
    local i
    for ((i = 0; i < 50; i++)); do
      port=$((20000 + RANDOM % 30000))
      (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
    done
  fi
  printf '%s\n' "$port"
}

# http_status URL [curl args...]: prints the status code ("000" if no answer).
http_status() {
  local url="$1"
  shift
  curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@" "$url" 2>/dev/null || true
}

# wait_http URL TIMEOUT_S [PID]: waits until URL answers 200; fails early when
# PID (the server) has died. Returns 1 on timeout or death.
wait_http() {
  local url="$1" timeout_s="$2" pid="${3:-}" deadline code
  deadline=$((SECONDS + timeout_s))
  while ((SECONDS < deadline)); do
    code="$(http_status "$url")"
    [[ "$code" == 200 ]] && return 0
    if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then return 1; fi
    sleep 0.1
  done
  return 1
}

# find_browser: what the browser checks (web/browser/*.mjs) need. Sets NODE
# and CHROMIUM (the environment's if given) and BROWSER_MISSING: empty, or
# why they cannot run.
find_browser() {
  NODE="${NODE:-node}"
  CHROMIUM="${CHROMIUM:-$(command -v chromium || true)}"
  BROWSER_MISSING=""
  if ! require_cmd "$NODE"; then
    BROWSER_MISSING="node not installed (scripts/install-deps.sh installs nodejs)"
  elif [[ -z "$CHROMIUM" ]]; then
    BROWSER_MISSING="chromium not installed (scripts/install-deps.sh installs it)"
  elif [[ ! -d "$REPO/web/node_modules/playwright-core" ]]; then
    BROWSER_MISSING="web/node_modules missing (the build runs npm ci)"
  fi
}

# start_server NAME READY_PATH CMD ARGS...: runs CMD with every "@PORT@" in
# its arguments replaced by a free port, in the background (cwd = SCRATCH,
# output in $SCRATCH/NAME.log), and waits up to ${START_TIMEOUT_S:-30} s for
# READY_PATH to answer 200. If the server dies first (e.g. the port was taken
# in between), retries with another port, 3 attempts in all.
# Sets NAME_PORT, NAME_PID, NAME_URL (http://127.0.0.1:PORT).
start_server() {
  local name="$1" ready="$2"
  shift 2
  local attempt port pid args a logf="$SCRATCH/$name.log"
  for attempt in 1 2 3; do
    port="$(free_port)"
    [[ -n "$port" ]] || fail "no free port found for $name"
    args=()
    for a in "$@"; do args+=("${a//@PORT@/$port}"); done
    (cd "$SCRATCH" && exec "${args[@]}") >"$logf" 2>&1 &
    pid=$!
    ITEST_PIDS+=("$pid")
    if wait_http "http://127.0.0.1:$port$ready" "${START_TIMEOUT_S:-30}" "$pid"; then
      printf -v "${name}_PORT" '%s' "$port"
      printf -v "${name}_PID" '%s' "$pid"
      printf -v "${name}_URL" '%s' "http://127.0.0.1:$port"
      log "$name up on 127.0.0.1:$port (pid $pid)"
      return 0
    fi
    if kill -0 "$pid" 2>/dev/null; then
      log "$name did not answer $ready within ${START_TIMEOUT_S:-30} s; log:"
      tail -n 30 "$logf" >&2
      stop_pid "$pid"
      fail "$name did not become ready"
    fi
    stop_pid "$pid"
    log "$name exited during start-up (attempt $attempt, port $port); log:"
    tail -n 20 "$logf" >&2
  done
  fail "$name could not be started"
}

# fetch URL OUT_FILE [curl args...]: GET with a bounded time; fails the test
# on a transport error or a non-200 status.
fetch() {
  local url="$1" out="$2" code
  shift 2
  code="$(curl -s -o "$out" -w '%{http_code}' --max-time 20 "$@" "$url")" || fail "GET $url failed (curl exit $?)"
  [[ "$code" == 200 ]] || fail "GET $url answered $code: $(head -c 300 "$out")"
}

# The llmon agent on a free port with the given extra flags, its store in the
# scratch dir (never the working directory); sets llmon_*.
# The host's kernel log stays out of tests (an OOM kill on a CI machine once
# fired LogKernelOomKill into a test's receiver): the kmsg source is off
# unless the caller passes its own --logwatch.kmsg-path (the last one wins).
start_llmon() {
  start_server llmon /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ \
    --storage.path="$SCRATCH/llmon-data" --logwatch.kmsg-path= "$@"
}
