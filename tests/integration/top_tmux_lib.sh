# shellcheck shell=bash
# The harness the `llmon top` tmux tests share (sourced after lib.sh's
# itest_init): the fixture host's /proc in $PROC (tests/fixtures/proc with
# the GPU host's processes over it), a tmux server of the test's own on
# $SOCK (`tm`), and the pane helpers. Each test sets its own EXIT trap, which
# must run `tm kill-server`.
require_cmd tmux || skip "tmux not installed (Debian package tmux)"
require_cmd python3 || skip "python3 not installed"

FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
[[ -f "$FAKE" ]] || fail "fake NVML not built next to $LLMON (expected $FAKE)"

# The host: the fixture's /proc files, the GPU host's processes.
PROC="$SCRATCH/proc"
mkdir -p "$PROC"
for e in "$REPO"/tests/fixtures/proc/*; do ln -s "$e" "$PROC/$(basename "$e")"; done
for e in "$REPO"/tests/fixtures/gpu_host/proc/*; do ln -sfn "$e" "$PROC/$(basename "$e")"; done

# A tmux server of our own (its socket in SCRATCH).
SOCK="$SCRATCH/tmux.sock"
export LC_ALL=C.UTF-8  # tmux reads and captures the panes as UTF-8
tm() { tmux -S "$SOCK" -f /dev/null "$@"; }

pane() { tm capture-pane -p -t "$1"; }
# wait_pane NAME PYTHON_CONDITION: until the condition on the pane text `t`
# (lines: `ls`) holds; 20 s at most.
wait_pane() {
  local i
  for ((i = 0; i < 100; i++)); do
    if pane "$1" | python3 -c "import sys; t = sys.stdin.read(); ls = t.split('\n'); sys.exit(0 if ($2) else 1)"; then
      return 0
    fi
    sleep 0.2
  done
  pane "$1" >&2
  fail "$1: screen condition not met within 20 s: $2"
}
keys() { tm send-keys -t "$1" "${@:2}"; }
# click NAME X Y: a left click (press and release) at column X, row Y of the
# pane, 0-based, written to the pane as xterm's SGR mouse mode (1006) reports it.
click() {
  local at="$(($2 + 1));$(($3 + 1))"
  tm send-keys -t "$1" -l $'\e'"[<0;${at}M"$'\e'"[<0;${at}m"
}
# at NAME PYTHON_EXPR: prints "X Y" of the first match of the regular
# expression PYTHON_EXPR (a Python string literal) in the pane.
at() {
  pane "$1" | python3 -c "
import re, sys
for y, l in enumerate(sys.stdin.read().split('\n')):
    m = re.search($2, l)
    if m:
        print(m.start(), y); sys.exit(0)
sys.exit(1)"
}
