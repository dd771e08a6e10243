#!/usr/bin/env bash
# `llmon top` in a real terminal: tmux runs it detached at fixed sizes
# against the fake 8-GPU NVML (tests/fake_nvml/scenarios/h100x8.json) and a
# fixture host (tests/fixtures/proc's host files with tests/fixtures/gpu_host's
# GPU processes), and `tmux capture-pane -p` reads the screen: the golden
# screen at 80x24 (clock masked; tests/golden/top_tmux_80x24.txt,
# LLMON_UPDATE_GOLDEN=1 rewrites it), sorting, filtering, resize to 120x40
# and 200x60, ASCII mode, quit with q and with SIGTERM (exit 0, the terminal
# settings as before).
# Usage: top_tmux_test.sh <path-to-llmon-binary>
source "$(dirname "$0")/lib.sh"
itest_init "$@"
# shellcheck source=tests/integration/top_tmux_lib.sh
source "$(dirname "$0")/top_tmux_lib.sh"
GOLDEN="$REPO/tests/golden/top_tmux_80x24.txt"

trap 'rc=$?; tm kill-server >/dev/null 2>&1; (exit $rc); itest_cleanup' EXIT

# start NAME COLS ROWS [llmon top flags...]: a session running llmon top; when
# it exits the pane says "exit=RC" and whether stty settings came back.
start() {
  local name="$1" cols="$2" rows="$3"
  shift 3
  local cmd
  cmd="$(printf '%q ' "$LLMON" top --collector.disable-defaults --collector.gpu --collector.cpu --collector.meminfo \
    --collector.loadavg --collector.netdev --collector.diskstats --nvml.library="$FAKE" --path.procfs="$PROC" \
    --path.rootfs="$REPO/tests/fixtures/gpu_host/rootfs" --collector.gpu.events=false --top.interval=200ms "$@")"
  tm new-session -d -s "$name" -x "$cols" -y "$rows" \
    "export LLMON_FAKE_NVML_SCENARIO=$REPO/tests/fake_nvml/scenarios/h100x8.json TERM=xterm-256color LANG=C.UTF-8
     before=\$(stty -g); $cmd 2>$SCRATCH/$name.log; rc=\$?; after=\$(stty -g)
     [ \"\$before\" = \"\$after\" ] && echo stty=restored || echo stty=changed; echo exit=\$rc; exec sleep 120" ||
    fail "tmux new-session failed"
}

# The process table as rows of {column: text}, cut at the header's columns.
cat >"$SCRATCH/table.py" <<'PY'
import re, sys
def table(text):
    ls = text.split("\n")
    h = next(i for i, l in enumerate(ls) if re.match(r"GPU +PID\S* +USER", l))
    hdr = ls[h]
    names = re.findall(r"\S+", hdr)
    starts = [m.start() for m in re.finditer(r"\S+", hdr)]
    # Right-aligned numeric columns end where their header ends.
    rows = []
    for l in ls[h + 1:]:
        if not re.match(r"\d+(/\d+)? +\d+ ", l):
            break
        toks = l.split()
        rows.append(dict(gpu=toks[0], pid=int(toks[1]), user=toks[2], gpumem=toks[3], sm=toks[4], cpu=toks[5]))
    return names, rows
def pct(s):
    return -1 if s == "-" else float(s.rstrip("%"))
PY
check_table() {  # check_table NAME PYTHON (names, rows; fails on False)
  pane "$1" | python3 -c "
import sys; sys.path.insert(0, '$SCRATCH'); from table import table, pct
names, rows = table(sys.stdin.read())
ok = ($2)
print(names, [(r['pid'], r['user'], r['sm']) for r in rows], file=sys.stderr)
sys.exit(0 if ok else 1)" || { pane "$1" >&2; fail "$1: table check failed: $2"; }
}

log "without a terminal: exit 2 and a message"
rc=0
"$LLMON" top </dev/null >"$SCRATCH/notty.out" 2>&1 || rc=$?
[[ $rc -eq 2 ]] && grep -q "needs a terminal" "$SCRATCH/notty.out" || fail "llmon top without a terminal: rc $rc, $(cat "$SCRATCH/notty.out")"

log "80x24: GPUs, processes, golden screen"
start s80 80 24
# 8 GPU rows and processes; the sparklines are full (16 samples) after ~4 s.
wait_pane s80 "'GPU-MEM' in t and sum(1 for l in ls if l[:1].isdigit() and 'H100' in l) == 8 and '4101' in t"
sleep 4.5
pane s80 | sed -E 's/[0-9]{2}:[0-9]{2}:[0-9]{2}$/hh:mm:ss/' >"$SCRATCH/s80.txt"
if [[ "${LLMON_UPDATE_GOLDEN:-}" == 1 ]]; then
  cp "$SCRATCH/s80.txt" "$GOLDEN"
  log "rewrote $GOLDEN"
fi
diff -u "$GOLDEN" "$SCRATCH/s80.txt" >&2 || fail "80x24 screen differs from $GOLDEN"
check_table s80 "len(rows) >= 8 and 'GPU-MEM▼' in names"

log "sorting: s (SM%), < < < (PID ascending), r (descending)"
keys s80 s
wait_pane s80 "'SM%▼' in t"
check_table s80 "all(pct(a['sm']) >= pct(b['sm']) for a, b in zip(rows, rows[1:])) and len(rows) >= 8"
keys s80 '<' '<' '<'
wait_pane s80 "'PID▲' in t"
check_table s80 "[r['pid'] for r in rows] == sorted(r['pid'] for r in rows) and rows[0]['pid'] == 4101"
keys s80 r
wait_pane s80 "'PID▼' in t"
check_table s80 "[r['pid'] for r in rows] == sorted((r['pid'] for r in rows), reverse=True)"

log "filtering: /bob, /research (namespace), Esc"
keys s80 / b o b Enter
wait_pane s80 "'filter \"bob\"' in t"
check_table s80 "len(rows) >= 1 and all(r['user'] == 'bob' for r in rows)"
keys s80 / C-u r e s e a r c h Enter
wait_pane s80 "'filter \"research\"' in t"
check_table s80 "len(rows) >= 1 and all(r['user'] == 'alice' and 4101 <= r['pid'] <= 4108 for r in rows)"
keys s80 Escape
wait_pane s80 "('filter ' + chr(34)) not in t and __import__('re').search(r' (\d+)/\1 procs', t)"

log "help overlay and selection"
keys s80 '?'
wait_pane s80 "'llmon top: keys' in t"
keys s80 x
wait_pane s80 "'llmon top: keys' not in t"

log "resize to 120x40 and 200x60"
tm resize-window -t s80 -x 120 -y 40
wait_pane s80 "len(ls) >= 40 and 'UTIL HISTORY' in t and 'MEM HISTORY' in t and 'sort PID' in ls[39]"
tm resize-window -t s80 -x 200 -y 60
wait_pane s80 "'PCIE' in t and 'sort PID' in ls[59] and max(len(l) for l in ls) <= 200"
tm resize-window -t s80 -x 80 -y 24
wait_pane s80 "'PCIE' not in t and 'sort PID' in ls[23]"

log "quit with q: exit 0, terminal restored"
keys s80 q
wait_pane s80 "'exit=0' in t and 'stty=restored' in t and 'llmon top' not in t"

log "ASCII mode"
start asc 80 24 --top.ascii --top.colors=none
wait_pane asc "'GPU-MEMv' in t and sum(1 for l in ls if l[:1].isdigit() and 'H100' in l) == 8"
pane asc | python3 -c "import sys; b = sys.stdin.buffer.read(); sys.exit(0 if max(b) < 0x80 else 1)" ||
  fail "ASCII mode screen has non-ASCII bytes: $(pane asc)"

log "SIGTERM: exit 0, terminal restored"
shell_pid="$(tm list-panes -t asc -F '#{pane_pid}')"
top_pid="$(pgrep -P "$shell_pid" -x llmon || true)"
[[ -n "$top_pid" ]] || fail "no llmon process under the pane's shell $shell_pid"
kill -TERM "$top_pid"
wait_pane asc "'exit=0' in t and 'stty=restored' in t"
log "ok"
