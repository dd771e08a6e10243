#!/usr/bin/env bash
# Log event forwarding end to end (docs/logwatch-forward.md): the agent
# follows a log file and forwards its events
#  * as RFC 5424 syslog over TCP (RFC 6587 octet counting) to Debian's real
#    rsyslogd (imtcp on a free loopback port, omfile with a template that
#    writes the parsed fields), including a restart of rsyslogd while events
#    arrive (the forwarder retries and reconnects; nothing dropped);
#  * to a Loki push receiver written here from the published API (Grafana
#    Loki is not packaged in Debian): one agent pushing JSON, one pushing
#    snappy-compressed protobuf, decoded here.
# Usage: logwatch_forward_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"
require_cmd curl || skip "curl not installed"
RSYSLOGD="$(command -v rsyslogd || echo /usr/sbin/rsyslogd)"
[[ -x "$RSYSLOGD" ]] || skip "rsyslogd not installed (Debian package rsyslog)"

mkdir -p "$SCRATCH/logs" "$SCRATCH/rs" "$SCRATCH/loki"
: >"$SCRATCH/logs/rank0.log"
RS_PORT="$(free_port)"
cat >"$SCRATCH/rs/rsyslog.conf" <<EOF
global(workDirectory="$SCRATCH/rs")
module(load="imtcp")
template(name="fields" type="string" string="%pri%|%hostname%|%app-name%|%msgid%|%structured-data%|%msg%\\n")
input(type="imtcp" port="$RS_PORT" address="127.0.0.1")
*.* action(type="omfile" file="$SCRATCH/rs/out.log" template="fields")
EOF
start_rsyslog() {
  "$RSYSLOGD" -n -f "$SCRATCH/rs/rsyslog.conf" -i "$SCRATCH/rs/pid" >>"$SCRATCH/rs/rsyslogd.log" 2>&1 &
  RS_PID=$!
  ITEST_PIDS+=("$RS_PID")
  local i
  for ((i = 0; i < 50; i++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$RS_PORT") 2>/dev/null && return 0
    sleep 0.1
  done
  fail "rsyslogd did not listen on $RS_PORT: $(cat "$SCRATCH/rs/rsyslogd.log")"
}
start_rsyslog

# The Loki receiver: POST /loki/api/v1/push, JSON or snappy protobuf; each
# entry is written as "format|labels|timestamp_ns|line" to pushes.txt.
cat >"$SCRATCH/loki.py" <<'EOF'
import http.server, json, sys
out = open(sys.argv[2], "a", buffering=1)

def unsnappy(b):
    n, shift, i = 0, 0, 0
    while True:
        c = b[i]; i += 1; n |= (c & 0x7f) << shift; shift += 7
        if c < 0x80: break
    o = bytearray()
    while i < len(b):
        tag = b[i]; i += 1; t = tag & 3
        if t == 0:
            ln = tag >> 2
            if ln >= 60:
                k = ln - 59; ln = int.from_bytes(b[i:i + k], "little"); i += k
            ln += 1; o += b[i:i + ln]; i += ln
        else:
            if t == 1:
                ln = ((tag >> 2) & 7) + 4; off = ((tag >> 5) << 8) | b[i]; i += 1
            elif t == 2:
                ln = (tag >> 2) + 1; off = int.from_bytes(b[i:i + 2], "little"); i += 2
            else:
                ln = (tag >> 2) + 1; off = int.from_bytes(b[i:i + 4], "little"); i += 4
            for _ in range(ln): o.append(o[-off])
    assert len(o) == n, (len(o), n)
    return bytes(o)

def fields(b):  # protobuf: (field number, wire type, value)
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            ln, i = varint(b, i); v = b[i:i + ln]; i += ln
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, v

def varint(b, i):
    n, shift = 0, 0
    while True:
        c = b[i]; i += 1; n |= (c & 0x7f) << shift; shift += 7
        if c < 0x80: return n, i

class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"ready")
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        ct = self.headers.get("Content-Type", "")
        if self.path != "/loki/api/v1/push":
            self.send_response(404); self.end_headers(); return
        if ct == "application/json":
            for s in json.loads(body)["streams"]:
                labels = ",".join("%s=%s" % kv for kv in sorted(s["stream"].items()))
                for ts, line in s["values"]:
                    out.write("json|%s|%s|%s\n" % (labels, ts, line.split("\t")[0]))
        elif ct == "application/x-protobuf":
            for f, _, stream in fields(unsnappy(body)):
                assert f == 1
                labels, entries = "", []
                for g, _, v in fields(stream):
                    if g == 1: labels = v.decode()
                    if g == 2:
                        ts, line = 0, ""
                        for h, _, x in fields(v):
                            if h == 1:
                                secs = nanos = 0
                                for k, _, y in fields(x):
                                    if k == 1: secs = y
                                    if k == 2: nanos = y
                                ts = secs * 10**9 + nanos
                            if h == 2: line = x.decode()
                        entries.append((ts, line))
                for ts, line in entries:
                    out.write("protobuf|%s|%d|%s\n" % (labels, ts, line.split("\t")[0]))
        else:
            self.send_response(415); self.end_headers(); return
        self.send_response(204); self.end_headers()
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
start_server loki / python3 "$SCRATCH/loki.py" @PORT@ "$SCRATCH/loki/pushes.txt"

COMMON=(--collector.disable-defaults --logwatch.kmsg-path= --logwatch.path="$SCRATCH/logs/*.log" --rules.defaults=false)
start_llmon "${COMMON[@]}" --logwatch.forward.syslog="tcp://127.0.0.1:$RS_PORT" \
  --logwatch.forward.loki="$loki_URL/loki/api/v1/push" --logwatch.forward.loki-format=json \
  --logwatch.forward.loki-labels=cluster=c1
A_URL="$llmon_URL"
A_PID="$llmon_PID"
# A second agent on the same file pushes protobuf (its own store).
start_server llmon2 /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/llmon2-data" \
  "${COMMON[@]}" --logwatch.forward.loki="$loki_URL/loki/api/v1/push"

lines_in() { [[ "$(grep -c "$2" "$1" 2>/dev/null)" -ge "$3" ]]; }

printf 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n' >>"$SCRATCH/logs/rank0.log"
printf 'OSError: [Errno 28] No space left on device: "/data/ckpt/step_9.pt"\n' >>"$SCRATCH/logs/rank0.log"
wait_for "two events at rsyslogd" 20 lines_in "$SCRATCH/rs/out.log" '|llmon|' 2
wait_for "JSON pushes" 20 lines_in "$SCRATCH/loki/pushes.txt" '^json|' 2
wait_for "protobuf pushes" 20 lines_in "$SCRATCH/loki/pushes.txt" '^protobuf|' 2

python3 - "$SCRATCH/rs/out.log" "$SCRATCH/logs/rank0.log" <<'EOF' || fail "rsyslog fields: $(cat "$SCRATCH/rs/out.log")"
import sys
rows = [l.rstrip("\n").split("|", 5) for l in open(sys.argv[1]) if "|llmon|" in l]
oom = [r for r in rows if r[3] == "cuda_oom"][0]
assert oom[0] == "130", oom  # local0 (16) * 8 + critical (2)
assert 'rule="cuda_oom"' in oom[4] and 'severity="critical"' in oom[4] and 'size="2.00 GiB"' in oom[4], oom
assert ('source="%s"' % sys.argv[2]) in oom[4], oom
assert oom[5] == "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", oom
full = [r for r in rows if r[3] == "no_space"][0]
assert full[0] == "131" and full[5].startswith("OSError: [Errno 28] No space left on device"), full
EOF
python3 - "$SCRATCH/loki/pushes.txt" <<'EOF' || fail "Loki pushes: $(cat "$SCRATCH/loki/pushes.txt")"
import sys, time
rows = [l.rstrip("\n").split("|", 3) for l in open(sys.argv[1])]
for fmt in ("json", "protobuf"):
    got = {r[3]: r for r in rows if r[0] == fmt}
    oom = got["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"]
    if fmt == "json":
        labels = dict(kv.split("=", 1) for kv in oom[1].split(","))
        assert labels["rule"] == "cuda_oom" and labels["severity"] == "critical" and labels["job"] == "llmon", labels
        assert labels["cluster"] == "c1", labels
    else:
        assert 'rule="cuda_oom"' in oom[1] and 'job="llmon"' in oom[1] and "cluster" not in oom[1], oom[1]
    assert abs(int(oom[2]) / 1e9 - time.time()) < 120, oom[2]
EOF

# rsyslogd goes away while events arrive, and comes back on the same port.
kill "$RS_PID"
wait "$RS_PID" 2>/dev/null || true
for i in 1 2 3; do printf 'NCCL error: unhandled system error (run with NCCL_DEBUG=INFO) %d\n' "$i" >>"$SCRATCH/logs/rank0.log"; done
errors() { curl -s "$A_URL/metrics" | awk '/^llmon_log_forward_errors_total\{forwarder="syslog"\}/ {print $2}'; }
wait_for "a failed delivery counted" 20 bash -c "[[ \"\$(curl -s '$A_URL/metrics' | awk '/^llmon_log_forward_errors_total\\{forwarder=\"syslog\"\\}/ {print \$2}')\" != 0 ]]"
start_rsyslog
# The three lines are one event (the pack's nccl_error folds repeats within its dedup window): its
# update with repeat 3 is what rsyslogd must get.
wait_for "the event sent while rsyslogd was down" 40 lines_in "$SCRATCH/rs/out.log" 'repeat="3".*NCCL error: unhandled' 1
fetch "$A_URL/metrics" "$SCRATCH/metrics"
grep -q '^llmon_log_forward_dropped_total{forwarder="syslog"} 0$' "$SCRATCH/metrics" || fail "syslog drops: $(grep forward "$SCRATCH/metrics")"
grep -q '^llmon_log_forward_sent_total{forwarder="loki"} [1-9]' "$SCRATCH/metrics" || fail "loki sent: $(grep forward "$SCRATCH/metrics")"
[[ "$(errors)" -ge 1 ]] || fail "no syslog errors counted"
stop_pid "$A_PID"
log "forwarding: rsyslogd fields, a restart of rsyslogd without loss, Loki JSON and protobuf"
