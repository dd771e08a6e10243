#!/usr/bin/env bash
# --web.config.file end to end (docs/security.md): a CA, server and client
# certificates made with openssl at run time; curl and Python's ssl check TLS,
# basic auth (401), roles (403), client certificates and certificate reload.
# Usage: web_tls_test.sh LLMON_BINARY (ctest passes it)
set -euo pipefail
LLMON="${1:-build/llmon}"; [ -d "$LLMON" ] && LLMON="$LLMON/llmon"
D=$(mktemp -d)
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; cat "$D/agent.log" 2>/dev/null | tail -5; exit 1; }
cd "$D"
sslq() { openssl "$@" >/dev/null 2>&1; }
sslq req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -subj /CN=itest-ca -days 1
mkcert() {  # name CN
  sslq req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1"
  sslq x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "$1.pem" -days 1 -copy_extensions copy
}
mkcert srv localhost; mkcert client itest-client; mkcert srv2 localhost
hash() { python3 -W ignore -c "import crypt,sys;print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1<<10)))" "$1"; }
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
cat > web.yml <<YML
tls_server_config:
  cert_file: srv.pem
  key_file: srv.key
  client_auth_type: VerifyClientCertIfGiven
  client_ca_file: ca.pem
basic_auth_users:
  admin: '$(hash adminpw)'
  reader: '$(hash readpw)'
YML
if command -v promtool >/dev/null; then promtool check web-config web.yml >/dev/null || fail "promtool refuses web.yml"; fi
"$LLMON" agent --web.listen-address=127.0.0.1:$PORT --web.config.file="$D/web.yml" --web.admin-users=admin \
  --storage.enabled=false >agent.log 2>&1 &
PID=$!
U=https://localhost:$PORT
for _ in $(seq 50); do curl -s --cacert ca.pem -o /dev/null "$U/-/healthy" && break; sleep 0.1; done
code() { curl -s -o /dev/null -w '%{http_code}' --cacert ca.pem "$@"; }
[ "$(code -u reader:readpw "$U/metrics")" = 200 ] || fail "reader over TLS"
[ "$(code "$U/metrics")" = 401 ] || fail "no credentials not 401"
[ "$(code -u reader:wrong "$U/metrics")" = 401 ] || fail "wrong password not 401"
curl -s --cacert ca.pem -D - -o /dev/null "$U/metrics" | grep -qi '^www-authenticate: basic' || fail "no WWW-Authenticate"
[ "$(code -u reader:readpw -X DELETE "$U/api/v2/silence/x")" = 403 ] || fail "reader on admin route not 403"
[ "$(code -u admin:adminpw -X POST "$U/-/reload")" != 403 ] || fail "admin refused"
[ "$(code --cert client.pem --key client.key -u reader:readpw "$U/metrics")" = 200 ] || fail "client cert"
curl -s "http://127.0.0.1:$PORT/metrics" | grep -q "HTTP request to an HTTPS server" || fail "plain HTTP served"
python3 - "$PORT" "$D" <<'PY' || fail "python ssl client"
import base64, ssl, sys, urllib.request
port, d = sys.argv[1], sys.argv[2]
ctx = ssl.create_default_context(cafile=d + "/ca.pem")
ctx.load_cert_chain(d + "/client.pem", d + "/client.key")
req = urllib.request.Request(f"https://localhost:{port}/-/healthy",
                             headers={"Authorization": "Basic " + base64.b64encode(b"reader:readpw").decode()})
assert urllib.request.urlopen(req, context=ctx).status == 200
PY
# Client certificates required: none -> the handshake is refused.
sed -i 's/VerifyClientCertIfGiven/RequireAndVerifyClientCert/' web.yml
sleep 0.2
if curl -s --cacert ca.pem -u reader:readpw -o /dev/null "$U/metrics"; then fail "missing client cert accepted"; fi
[ "$(code --cert client.pem --key client.key -u reader:readpw "$U/metrics")" = 200 ] || fail "client cert when required"
# Certificate replaced: the new one is served without a restart.
old=$(openssl s_client -connect 127.0.0.1:$PORT -cert client.pem -key client.key </dev/null 2>/dev/null | openssl x509 -noout -serial)
cp srv2.pem srv.pem; cp srv2.key srv.key
new=$(openssl s_client -connect 127.0.0.1:$PORT -cert client.pem -key client.key </dev/null 2>/dev/null | openssl x509 -noout -serial)
[ -n "$new" ] && [ "$old" != "$new" ] || fail "certificate not reloaded ($old / $new)"
[ "$(openssl x509 -noout -serial -in srv2.pem)" = "$new" ] || fail "served serial is not srv2's"
echo "web_tls_test: ok"
