#!/usr/bin/env bash
# `llmon top`'s process detail, tree, filter, signals and agent mode in tmux
# (docs/top.md), the fake 8-GPU NVML (tests/fake_nvml/scenarios/h100x8.json):
#  * fixture host: Enter on pid 4101 -> the detail pane against
#    tests/golden/top_tmux_detail_{80x24,120x40,200x60}.txt (clock and chart
#    dots masked: how full the charts are depends on timing);
#  * processes this test starts (a bash with two sleep children, put into a
#    copy of the scenario as GPU processes, the real /proc): the tree (t),
#    the filter (/sleep), the detail's environment, k -> TERM -> y kills
#    exactly the selected sleep, which this test then sees gone;
#  * `llmon top --url` against a `llmon agent` on the same fake GPUs: the
#    GPUs and processes from the query API, the charts filled from the store,
#    [ and ] scroll the moment shown back and forth, the screen at 80x24
#    against tests/golden/top_tmux_agent_120x40.txt (title and GPU
#    rows; clock, port and chart dots masked).
# LLMON_UPDATE_GOLDEN=1 rewrites the goldens.
# Usage: top_detail_tmux_test.sh <path-to-llmon-binary>
source "$(dirname "$0")/lib.sh"
itest_init "$@"
# shellcheck source=tests/integration/top_tmux_lib.sh
source "$(dirname "$0")/top_tmux_lib.sh"
SCEN="$REPO/tests/fake_nvml/scenarios/h100x8.json"

JOB_PID=""
trap 'rc=$?; tm kill-server >/dev/null 2>&1; [[ -n "$JOB_PID" ]] && kill -- -"$JOB_PID" 2>/dev/null; (exit $rc); itest_cleanup' EXIT

COLLECT=(--collector.disable-defaults --collector.gpu --collector.cpu --collector.meminfo --collector.loadavg
  --collector.netdev --collector.diskstats --nvml.library="$FAKE" --collector.gpu.events=false)
# start NAME COLS ROWS SCENARIO [llmon top flags...]
start() {
  local name="$1" cols="$2" rows="$3" scen="$4"
  shift 4
  local cmd
  cmd="$(printf '%q ' "$LLMON" top --top.interval=200ms "$@")"
  tm new-session -d -s "$name" -x "$cols" -y "$rows" \
    "export LLMON_FAKE_NVML_SCENARIO=$scen TERM=xterm-256color LANG=C.UTF-8
     $cmd 2>$SCRATCH/$name.log; echo exit=\$?; exec sleep 120" || fail "tmux new-session failed"
}
golden() {  # golden NAME FILE: the pane (clock masked) against tests/golden/FILE
  local g="$REPO/tests/golden/$2"
  pane "$1" | sed -E 's/[0-9]{2}:[0-9]{2}:[0-9]{2}$/hh:mm:ss/' | python3 -c "
import re, sys
t = sys.stdin.read()
if '${3:-}' in ('mask', 'maskdots'):
    t = re.sub('[\u2800-\u28ff]', '.', t)
    t = re.sub(r' *\.+', lambda m: '.' * len(m.group(0)), t)  # a chart's blank start too
if '${3:-}' == 'mask':
    t = re.sub(r'agent 127\.0\.0\.1:\d+', 'agent 127.0.0.1:PORT', t)
    # The GPU part: alerts (pending or firing) and host rates depend on timing.
    t = '\n'.join(t.split('\n')[:10]) + '\n'
sys.stdout.write(t)" >"$SCRATCH/$2"
  if [[ "${LLMON_UPDATE_GOLDEN:-}" == 1 ]]; then
    cp "$SCRATCH/$2" "$g"
    log "rewrote $g"
  fi
  diff -u "$g" "$SCRATCH/$2" >&2 || fail "$1: screen differs from $g"
}

log "fixture host: the detail pane of pid 4101 at 80x24, 120x40, 200x60"
start det 80 24 "$SCEN" "${COLLECT[@]}" --path.procfs="$PROC" --path.rootfs="$REPO/tests/fixtures/gpu_host/rootfs"
wait_pane det "'GPU-MEM' in t and '4101' in t"
keys det '<' '<' # GPU-MEM -> USER -> PID, ascending: 4101 first
wait_pane det "'PID▲' in t"
keys det Down Enter
wait_pane det "'PROCESS 4101' in t and 'CUDA_VISIBLE_DEVICES=0' in t and 'cgroup' in t"
sleep 2.5  # the memory chart fills
golden det top_tmux_detail_80x24.txt maskdots
tm resize-window -t det -x 120 -y 40
wait_pane det "len(ls) >= 40 and 'PROCESS 4101' in t and 'NCCL_IB_HCA=mlx5' in t"
golden det top_tmux_detail_120x40.txt maskdots
tm resize-window -t det -x 200 -y 60
wait_pane det "len(ls) >= 60 and 'PROCESS 4101' in t and max(len(l) for l in ls) <= 200"
golden det top_tmux_detail_200x60.txt maskdots
keys det Escape
wait_pane det "'PROCESS 4101' not in t"
keys det q
wait_pane det "'exit=0' in t"

log "processes of our own: tree, filter, detail environment, SIGTERM after confirmation"
# setsid: its own process group, killed at exit.
CUDA_VISIBLE_DEVICES=3 NCCL_DEBUG=WARN LOCAL_RANK=2 setsid bash -c 'sleep 300 & sleep 301 & wait' &
JOB_PID=$!
ITEST_PIDS+=("$JOB_PID")
for ((i = 0; i < 50; i++)); do
  mapfile -t KIDS < <(pgrep -P "$JOB_PID" | sort -n)
  [[ ${#KIDS[@]} -eq 2 ]] && break
  sleep 0.1
done
[[ ${#KIDS[@]} -eq 2 ]] || fail "the sleeps under $JOB_PID did not start"
python3 - "$SCEN" "$SCRATCH/own.json" "$JOB_PID" "${KIDS[0]}" "${KIDS[1]}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for dev, pid in zip(d["devices"], sys.argv[3:6]):
    dev["processes"] = dev["processes"][:1]
    dev["processes"][0]["pid"] = int(pid)
for dev in d["devices"][3:]:
    dev["processes"] = []
json.dump(d, open(sys.argv[2], "w"))
PY
start own 120 40 "$SCRATCH/own.json" "${COLLECT[@]}" --path.procfs=/proc
wait_pane own "'$JOB_PID' in t and '${KIDS[0]}' in t and '${KIDS[1]}' in t"
keys own t
wait_pane own "'└─ sleep' in t and '├─ sleep' in t"
pane own | python3 -c "
import sys; ls = sys.stdin.read().split('\n')
rows = [l for l in ls if ' $JOB_PID ' in l or ' ${KIDS[0]} ' in l or ' ${KIDS[1]} ' in l]
sys.exit(0 if len(rows) == 3 and ' $JOB_PID ' in rows[0] and 'bash' in rows[0] else 1)" ||
  { pane own >&2; fail "tree: the bash is not above its sleeps"; }
# The bash's parent (this test's shell) holds no GPU: a launcher row above it, no GPU column.
pane own | python3 -c "
import sys; ls = sys.stdin.read().split('\n')
i = next(n for n, l in enumerate(ls) if ' $JOB_PID ' in l)
sys.exit(0 if i > 0 and ' $$ ' in ls[i - 1] and ls[i - 1].split()[0] == '-' else 1)" ||
  { pane own >&2; fail "tree: this test's shell ($$) is not shown as the bash's launcher"; }
keys own t / s l e e p Enter
wait_pane own "'filter \"sleep\"' in t and ' 2/3 procs' in t and ' $JOB_PID ' not in t"
# The mouse: a click on the PID header sorts by it (ascending first), a
# click on a row selects it.
read -r X Y < <(at own "r' PID[ ▲▼]'") || fail "no PID header"
click own $((X + 2)) "$Y"
wait_pane own "'PID▲' in t"
read -r X Y < <(at own "r' ${KIDS[0]} '") || fail "no row of ${KIDS[0]}"
click own "$X" "$Y"
keys own Enter
wait_pane own "'PROCESS ${KIDS[0]}' in t and 'CUDA_VISIBLE_DEVICES=3' in t and 'LOCAL_RANK=2' in t and 'NCCL_DEBUG=WARN' in t"
keys own k
wait_pane own "'Signal to ${KIDS[0]}' in t and 'SIGTERM' in t"
keys own Escape
wait_pane own "'Signal to' not in t"
kill -0 "${KIDS[0]}" || fail "Esc in the menu sent a signal"
keys own k Enter
wait_pane own "'Send SIGTERM to' in t and 'y: send' in t"
keys own n  # no
wait_pane own "'Send SIGTERM' not in t"
sleep 0.5
kill -0 "${KIDS[0]}" || fail "answering n sent a signal"
keys own k Enter y
wait_pane own "'sent SIGTERM to ${KIDS[0]}' in t"
for ((i = 0; i < 50; i++)); do
  if [[ ! -e /proc/${KIDS[0]} ]] || grep -q '^State:.*Z' "/proc/${KIDS[0]}/status" 2>/dev/null; then break; fi
  sleep 0.1
done
[[ ! -e /proc/${KIDS[0]} ]] || grep -q '^State:.*Z' "/proc/${KIDS[0]}/status" || fail "sleep ${KIDS[0]} still alive"
kill -0 "${KIDS[1]}" || fail "the other sleep ${KIDS[1]} died too"
kill -0 "$JOB_PID" || fail "the parent bash $JOB_PID died"
keys own q
wait_pane own "'exit=0' in t"

log "agent mode: llmon top --url against llmon agent on the fake 8 GPUs"
export LLMON_FAKE_NVML_SCENARIO="$SCEN"
start_llmon "${COLLECT[@]}" --path.procfs="$PROC" --path.rootfs="$REPO/tests/fixtures/gpu_host/rootfs"
unset LLMON_FAKE_NVML_SCENARIO
sleep 5  # a few cycles in the store
start ag 120 40 "$SCEN" --url="$llmon_URL"
wait_pane ag "'agent 127.0.0.1:$llmon_PORT' in t and sum(1 for l in ls if l[:1].isdigit() and 'H100' in l) == 8 and '4101' in t"
sleep 1
wait_pane ag "'⣿' in t or '⣶' in t"  # the charts, from query_range
golden ag top_tmux_agent_120x40.txt mask
keys ag '['
wait_pane ag "'at -1m' in t"
keys ag ']'
wait_pane ag "'at -1m' not in t and '4101' in t"
keys ag Down Enter
wait_pane ag "'PROCESS' in t and 'gpu mem' in t"
keys ag Escape
wait_pane ag "'PROCESS' not in t"
keys ag q
wait_pane ag "'exit=0' in t"
log "ok"
