#!/usr/bin/env bash
# The store on a filesystem that really fills up (a 48 MiB tmpfs the test
# mounts; as a normal user inside a private user+mount namespace made with
# `unshare -rm`; skipped with the reason when neither is possible):
#  1. --storage.min-free-space=16MB: filling the disk below the reserve makes
#     the agent refuse commits (llmon_tsdb_writable 0, commits_refused_total
#     grows, an error naming the path is logged) while it keeps serving
#     /metrics; removing the filler makes it writable again and commits grow.
#  2. --storage.min-free-space=0 and the disk filled completely: writes fail
#     with ENOSPC; same expectations (the error names the file and says "No
#     space left on device").
#  After each part the agent is stopped with SIGTERM (exit 0) and restarted
#  on the same directory: it opens with no repairs (at most a torn tail), the
#  series are there and commits resume.
# Usage: tsdb_disk_full_test.sh <path-to-llmon-binary>
# shellcheck disable=SC2154  # NAME_URL/NAME_PID are set by start_server

# Without the right to mount, rerun inside a private user+mount namespace
# (root there; the mount vanishes with the namespace).
if [[ -z "${LLMON_DFULL_IN_NS:-}" ]]; then
  probe="$(mktemp -d "${TMPDIR:-/tmp}/llmon-dfull-probe.XXXXXX")"
  if mount -t tmpfs -o size=1m llmon-probe "$probe" 2>/dev/null; then
    umount "$probe"
  elif command -v unshare >/dev/null 2>&1 &&
    unshare -rm sh -c "mount -t tmpfs -o size=1m llmon-probe '$probe'" 2>/dev/null; then
    rmdir "$probe"
    LLMON_DFULL_IN_NS=1 exec unshare -rm bash "$0" "$@"
  fi
  rmdir "$probe" 2>/dev/null
fi

# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd fallocate || skip "fallocate not installed"

MNT="$SCRATCH/mnt"
DATA="$MNT/data"
mkdir -p "$MNT"
mount_err="$(mount -t tmpfs -o size=48m llmon-disk-full "$MNT" 2>&1)" ||
  skip "cannot mount a tmpfs (needs root, or unprivileged user namespaces for unshare -rm): $mount_err"
MOUNTED=1

# Agents first (they hold files on the tmpfs), then the mount, then lib.sh's cleanup.
dfull_cleanup() {
  local rc=$? pid
  for pid in "${ITEST_PIDS[@]}"; do stop_pid "$pid"; done
  if [[ -n "${MOUNTED:-}" ]]; then umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null; fi
  (exit "$rc")
  itest_cleanup
}
trap dfull_cleanup EXIT

free_bytes() { df -B1 --output=avail "$MNT" | tail -n 1 | tr -d ' '; }

# metric URL NAME: the value of the unlabelled sample NAME on URL/metrics ("" if absent/unreachable).
metric() { curl -s --max-time 5 "$1/metrics" | awk -v n="$2" '$1 == n { print $2; exit }'; }

# wait_metric URL NAME OP VALUE TIMEOUT_S: waits until NAME OP VALUE holds
# (OP: gt, ge, eq); prints the last value seen; returns 1 on timeout.
wait_metric() {
  local url="$1" name="$2" op="$3" want="$4" deadline=$((SECONDS + $5)) v=""
  while ((SECONDS < deadline)); do
    v="$(metric "$url" "$name")"
    if [[ -n "$v" ]] && awk -v a="$v" -v b="$want" -v op="$op" \
      'BEGIN { exit !((op == "gt" && a + 0 > b + 0) || (op == "ge" && a + 0 >= b + 0) || (op == "eq" && a + 0 == b + 0)) }'; then
      printf '%s\n' "$v"
      return 0
    fi
    sleep 0.2
  done
  printf '%s\n' "$v"
  return 1
}

# start_agent NAME MIN_FREE: an agent on the tmpfs store; sets NAME_URL/PID.
start_agent() {
  start_server "$1" /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$DATA" \
    --storage.min-free-space="$2" --collect.interval=1s --storage.fsync-interval=1s
}

# sigterm_agent NAME: SIGTERM, wait (15 s at most), check the exit status is 0.
sigterm_agent() {
  local pidvar="${1}_PID" pid i rc kept=() p
  pid="${!pidvar}"
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 150; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && fail "$1 did not stop within 15 s of SIGTERM"
  wait "$pid"
  rc=$?
  for p in "${ITEST_PIDS[@]}"; do [[ "$p" == "$pid" ]] || kept+=("$p"); done
  ITEST_PIDS=("${kept[@]}")
  [[ $rc -eq 0 ]] || fail "$1 exited with status $rc after SIGTERM"
  grep -q 'msg=stopped' "$SCRATCH/$1.log" || fail "$1 did not log a clean stop"
}

# check_restart NAME: restarts on the same directory and checks recovery.
check_restart() {
  local url pidvar reps series bad
  start_agent "$1" 16MB
  url="${1}_URL"
  url="${!url}"
  wait_metric "$url" llmon_tsdb_series gt 0 15 >/dev/null || fail "$1: the restarted store has no series"
  reps="$(metric "$url" llmon_tsdb_recovery_repairs)"
  [[ -n "$reps" ]] || fail "$1: llmon_tsdb_recovery_repairs missing"
  # Repairs at start-up may only be a dropped torn tail.
  bad="$(grep 'storage repair' "$SCRATCH/$1.log" | grep -v 'torn tail' || true)"
  [[ -z "$bad" ]] || fail "$1: the store needed repairs beyond a torn tail: $bad"
  if [[ "$reps" != 0 ]]; then log "$1: $reps torn tail(s) dropped at start-up"; fi
  series="$(metric "$url" llmon_tsdb_series)"
  local c0
  c0="$(metric "$url" llmon_tsdb_commits_total)"
  wait_metric "$url" llmon_tsdb_commits_total gt "${c0:-0}" 10 >/dev/null || fail "$1: commits do not resume after restart"
  log "$1: restart ok ($series series, $reps repairs)"
  sigterm_agent "$1"
}

# ---------------------------------------------------------------- part 1
start_agent a1 16MB
c="$(wait_metric "$a1_URL" llmon_tsdb_commits_total gt 0 20)" || fail "no commits within 20 s (last value '$c')"
log "a1 committing ($c commits); $(free_bytes) bytes free on $MNT"

avail="$(free_bytes)"
fill=$((avail - 8 * 1024 * 1024))
((fill > 0)) || fail "tmpfs has only $avail bytes free"
fallocate -l "$fill" "$MNT/filler" || fail "fallocate of $fill bytes failed"
log "filled: $(free_bytes) bytes free (reserve 16 MB)"
v="$(wait_metric "$a1_URL" llmon_tsdb_writable eq 0 5)" || fail "llmon_tsdb_writable is '$v' 5 s after the disk filled, want 0"
v="$(wait_metric "$a1_URL" llmon_tsdb_commits_refused_total gt 0 5)" || fail "llmon_tsdb_commits_refused_total is '$v', want > 0"
r1="$v"
v="$(wait_metric "$a1_URL" llmon_tsdb_commits_refused_total gt "$r1" 5)" || fail "commits_refused_total stopped at '$v': is the agent still collecting?"
[[ "$(http_status "$a1_URL/metrics")" == 200 ]] || fail "the agent stopped serving /metrics while the disk is full"
refusal="$(grep 'storage is not accepting samples' "$SCRATCH/a1.log" || true)"
[[ "$refusal" == *"$DATA"* ]] || fail "no error naming $DATA in the log: $(grep -i storage "$SCRATCH/a1.log" | tail -n 5)"
[[ "$refusal" == *min-free-space* ]] || fail "the error does not name --storage.min-free-space: $refusal"

rm -f "$MNT/filler"
v="$(wait_metric "$a1_URL" llmon_tsdb_writable eq 1 5)" || fail "llmon_tsdb_writable is '$v' 5 s after space returned, want 1"
c1="$(metric "$a1_URL" llmon_tsdb_commits_total)"
v="$(wait_metric "$a1_URL" llmon_tsdb_commits_total gt "$c1" 5)" || fail "commits do not grow after space returned ('$v')"
grep -q 'storage is accepting samples again' "$SCRATCH/a1.log" || fail "no log line when appends resumed"
log "part 1: refused below the reserve, resumed after; $(metric "$a1_URL" llmon_tsdb_commits_refused_total) refused"
sigterm_agent a1
check_restart a1r

# ---------------------------------------------------------------- part 2
start_agent a2 0
c="$(wait_metric "$a2_URL" llmon_tsdb_commits_total gt 0 20)" || fail "a2: no commits ($c)"
avail="$(free_bytes)"
fallocate -l "$avail" "$MNT/filler" 2>/dev/null || true
# Whatever fallocate left (rounding): fill it byte-exactly with writes.
dd if=/dev/zero of="$MNT/filler2" bs=4096 2>/dev/null || true
dd if=/dev/zero of="$MNT/filler3" bs=1 2>/dev/null || true
[[ "$(free_bytes)" == 0 ]] || fail "could not fill the tmpfs: $(free_bytes) bytes free"
log "filled completely: 0 bytes free"
# Appends that fit in the WAL's last, already allocated page still succeed: the
# first ENOSPC can take a few cycles.
v="$(wait_metric "$a2_URL" llmon_tsdb_writable eq 0 15)" || fail "a2: llmon_tsdb_writable is '$v' with the disk full, want 0"
v="$(wait_metric "$a2_URL" llmon_tsdb_commits_refused_total gt 0 5)" || fail "a2: commits_refused_total is '$v'"
r1="$v"
v="$(wait_metric "$a2_URL" llmon_tsdb_commits_refused_total gt "$r1" 5)" || fail "a2: refused commits stopped at '$v'"
[[ "$(http_status "$a2_URL/metrics")" == 200 ]] || fail "a2 stopped serving /metrics with the disk full"
kill -0 "$a2_PID" 2>/dev/null || fail "a2 died with the disk full"
refusal="$(grep 'storage is not accepting samples' "$SCRATCH/a2.log" || true)"
[[ "$refusal" == *"$DATA"* && "$refusal" == *"No space left on device"* ]] ||
  fail "a2: no ENOSPC error naming $DATA: $(grep -i storage "$SCRATCH/a2.log" | tail -n 5)"

rm -f "$MNT/filler" "$MNT/filler2" "$MNT/filler3"
v="$(wait_metric "$a2_URL" llmon_tsdb_writable eq 1 5)" || fail "a2: llmon_tsdb_writable is '$v' after space returned"
c1="$(metric "$a2_URL" llmon_tsdb_commits_total)"
v="$(wait_metric "$a2_URL" llmon_tsdb_commits_total gt "$c1" 5)" || fail "a2: commits do not grow after space returned"
log "part 2: ENOSPC refused, resumed after; $(metric "$a2_URL" llmon_tsdb_commits_refused_total) refused"
sigterm_agent a2
check_restart a2r

log "ok"
