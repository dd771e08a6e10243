#!/usr/bin/env bash
# llmon's own client commands against an agent behind --web.config.file
# (docs/security.md, "Client commands"): TLS with a CA made by openssl at run
# time, basic auth with read and admin roles, --http.config.file in
# Prometheus's HTTP client format. llmon query must give the answer curl
# gets with the same credentials; a missing CA, a wrong password, a reader on
# an admin route and a bad config file fail with a message that says which.
# Usage: client_tls_test.sh LLMON_BINARY (ctest passes it)
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd openssl || skip "openssl not installed"
require_cmd curl || skip "curl not installed"
cd "$SCRATCH" || fail "no scratch dir"

sslq() { openssl "$@" >/dev/null 2>&1 || fail "openssl $1 failed"; }
sslq req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -subj /CN=itest-ca -days 1
sslq req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj /CN=localhost \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1"
sslq x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 1 -copy_extensions copy
bcrypt() { python3 -W ignore -c "import crypt,sys;print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1<<10)))" "$1"; }
cat >web.yml <<YML
tls_server_config:
  cert_file: srv.pem
  key_file: srv.key
basic_auth_users:
  admin: '$(bcrypt adminpw)'
  reader: '$(bcrypt readpw)'
YML
printf 'readpw\n' >reader.pw
printf 'adminpw\n' >admin.pw
printf 'nope\n' >wrong.pw
client_yml() {  # NAME USER PASSWORD_FILE [CA]
  { printf 'basic_auth:\n  username: %s\n  password_file: %s\n' "$2" "$SCRATCH/$3"
    [[ -n "${4:-}" ]] && printf 'tls_config:\n  ca_file: %s\n  server_name: localhost\n' "$4"; } >"$1.yml"
}
client_yml reader reader reader.pw "$SCRATCH/ca.pem"
client_yml admin admin admin.pw "$SCRATCH/ca.pem"
client_yml wrong reader wrong.pw "$SCRATCH/ca.pem"
client_yml noca reader reader.pw
printf 'basic_auth:\n  username: reader\n  password_file: %s\ntls_config:\n  ca_file: %s\n  insecure_skip_verify: true\nbearer_token: x\n' \
  "$SCRATCH/reader.pw" "$SCRATCH/ca.pem" >twoauth.yml
printf 'tls_config:\n  ca_file: ca.pem\n  cert_fil: x\n' >typo.yml
mkdir sub && cp ca.pem sub/ && printf 'tls_config:\n  ca_file: ca.pem\n' >sub/anon.yml  # relative to the file
cp sub/anon.yml anon.yml

printf 'route:\n  receiver: blackhole\nreceivers:\n  - name: blackhole\n' >notify.yml  # silences need the pipeline
PORT="$(free_port)"
"$LLMON" agent --web.listen-address="127.0.0.1:$PORT" --web.config.file="$SCRATCH/web.yml" --web.admin-users=admin \
  --notify.config="$SCRATCH/notify.yml" --storage.path="$SCRATCH/data" --logwatch.kmsg-path= --collect.interval=1s >agent.log 2>&1 &
ITEST_PIDS+=("$!")
U="https://127.0.0.1:$PORT"
wait_for "the agent over TLS" 30 curl -sf --cacert ca.pem -u reader:readpw -o /dev/null "https://localhost:$PORT/-/ready"
wait_for "a stored sample" 30 sh -c "curl -sf --cacert ca.pem -u reader:readpw 'https://localhost:$PORT/api/v1/query?query=up' | grep -q '\"result\":\[{'"

log "llmon query: the answer curl gets with the same credentials"
"$LLMON" query --url="$U" --http.config.file=reader.yml --json --time=2000000000 'vector(42) + 0.5' >q.json 2>q.err ||
  fail "llmon query over https: $(cat q.err)"
curl -sf --cacert ca.pem -u reader:readpw --resolve "localhost:$PORT:127.0.0.1" \
  "https://localhost:$PORT/api/v1/query?query=vector(42)%20%2B%200.5&time=2000000000" >curl.json || fail "curl query"
python3 - q.json curl.json <<'PY' || fail "llmon query and curl disagree: $(cat q.json) / $(cat curl.json)"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ra, rb = a["data"]["result"], b["data"]["result"]
assert ra == rb and ra[0]["value"] == [2000000000, "42.5"], (ra, rb)
PY
"$LLMON" query --url="$U" --http.config.file=reader.yml 'up' >up.txt 2>&1 || fail "llmon query up: $(cat up.txt)"
grep -q 'job="llmon"' up.txt || fail "up not shown: $(cat up.txt)"

log "the other client commands through the same file"
"$LLMON" health --url="$U" --http.config.file=reader.yml --json >health.json 2>health.err ||
  [[ $? -eq 1 ]] || fail "llmon health over https: $(cat health.err)"
python3 -c "import json,sys; json.load(open('health.json'))" || fail "llmon health: not JSON: $(head -c 300 health.json)"
"$LLMON" events --url="$U" --http.config.file=reader.yml >events.txt 2>&1 || fail "llmon events: $(cat events.txt)"
"$LLMON" alerts --url="$U" --http.config.file=reader.yml >alerts.txt 2>&1 || fail "llmon alerts: $(cat alerts.txt)"
"$LLMON" diagnose --url="$U" --http.config.file=reader.yml --window=1m >diag.txt 2>&1 ||
  [[ $? -eq 1 ]] || fail "llmon diagnose: $(cat diag.txt)"

log "roles: a reader may not add a silence, an admin may"
rc=0
"$LLMON" alerts --url="$U" --http.config.file=reader.yml silence add --duration=1h --comment=itest alertname=Itest >sil.out 2>&1 || rc=$?
[[ $rc -ne 0 ]] && grep -q "403" sil.out || fail "a reader added a silence (rc $rc): $(cat sil.out)"
"$LLMON" alerts --url="$U" --http.config.file=admin.yml silence add --duration=1h --comment=itest alertname=Itest >sil.out 2>&1 ||
  fail "an admin could not add a silence: $(cat sil.out)"
"$LLMON" alerts --url="$U" --http.config.file=reader.yml silence list >sil.list 2>&1 || fail "silence list: $(cat sil.list)"
grep -q "Itest" sil.list || fail "the admin's silence is not listed: $(cat sil.list)"

log "failures say which"
expect_fail() {  # WHAT PATTERN CMD...
  local what="$1" pat="$2" rc=0
  shift 2
  "$@" >fail.out 2>&1 || rc=$?
  [[ $rc -ne 0 ]] || fail "$what: succeeded: $(cat fail.out)"
  grep -qiE -e "$pat" fail.out || fail "$what: the message does not say '$pat': $(cat fail.out)"
}
expect_fail "no CA" "certificate" "$LLMON" query --url="$U" --http.config.file=noca.yml up
expect_fail "wrong password" "401" "$LLMON" query --url="$U" --http.config.file=wrong.yml up
expect_fail "no credentials" "401" "$LLMON" query --url="$U" --http.config.file=anon.yml up
expect_fail "no credentials, CA relative to the file" "401" "$LLMON" query --url="$U" --http.config.file=sub/anon.yml up
expect_fail "two kinds of auth" "twoauth.yml:1:1: .*at most one of basic_auth" "$LLMON" query --url="$U" --http.config.file=twoauth.yml up
expect_fail "a misspelt key" "typo.yml:3:3: .*cert_fil" "$LLMON" query --url="$U" --http.config.file=typo.yml up
expect_fail "a missing file" "--http.config.file nothere.yml" "$LLMON" query --url="$U" --http.config.file=nothere.yml up
expect_fail "plain http to a TLS agent" "HTTPS server|400" "$LLMON" query --url="http://127.0.0.1:$PORT" --http.config.file=reader.yml up
expect_fail "user info in the URL" "http.config.file" "$LLMON" query --url="https://reader:readpw@127.0.0.1:$PORT" up

log "ok"
