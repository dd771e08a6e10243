#!/usr/bin/env bash
# --web.config.file against promtool: `llmon check web-config` and Debian's
# `promtool check web-config` (Prometheus 2.42's exporter-toolkit) must accept
# and refuse the same files: valid TLS and basic auth set-ups and one mistake
# each (missing files, a key that is not the certificate's, unknown keys and
# names, bad hashes, versions, client CA rules, headers). Certificates made
# with openssl at run time.
# Usage: web_config_promtool_diff_test.sh LLMON_BINARY (ctest passes it)
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd promtool || skip "promtool not installed"
require_cmd openssl || skip "openssl not installed"
cd "$SCRATCH" || fail "no scratch dir"
sslq() { openssl "$@" >/dev/null 2>&1 || fail "openssl $1"; }
sslq req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -subj /CN=ca -days 1
sslq req -x509 -newkey rsa:2048 -nodes -keyout srv.key -out srv.pem -subj /CN=localhost -days 1
sslq req -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.pem -subj /CN=other -days 1
HASH='$2y$10$cmtDVaNf8cSPfcd3kVg3/.9D5OW.gYc6W7OfXnqERUKH6qxBz9zNu'
tls='tls_server_config:\n  cert_file: srv.pem\n  key_file: srv.key\n'
n=0
case_() {  # NAME CONTENT (printf format)
  n=$((n + 1))
  printf -- "$2" >"$(printf '%02d' "$n")-$1.yml"
}
case_ empty '{}\n'
case_ tls "$tls"
case_ tls-no-key 'tls_server_config:\n  cert_file: srv.pem\n'
case_ tls-no-cert 'tls_server_config:\n  key_file: srv.key\n'
case_ tls-missing-file 'tls_server_config:\n  cert_file: nothere.pem\n  key_file: srv.key\n'
case_ tls-key-mismatch 'tls_server_config:\n  cert_file: srv.pem\n  key_file: other.key\n'
case_ client-verify "${tls}  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.pem\n"
case_ client-verify-no-ca "${tls}  client_auth_type: RequireAndVerifyClientCert\n"
case_ client-ca-no-type "${tls}  client_ca_file: ca.pem\n"
case_ client-type-unknown "${tls}  client_auth_type: Sometimes\n  client_ca_file: ca.pem\n"
case_ client-request "${tls}  client_auth_type: RequestClientCert\n"
case_ client-ca-missing "${tls}  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: none.pem\n"
case_ min-tls13 "${tls}  min_version: TLS13\n"
case_ min-bad "${tls}  min_version: TLS14\n"
case_ max-below-min "${tls}  min_version: TLS13\n  max_version: TLS12\n"
case_ ciphers "${tls}  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384]\n"
case_ cipher-unknown "${tls}  cipher_suites: [TLS_NOPE]\n"
case_ curves "${tls}  curve_preferences: [X25519, CurveP256]\n"
case_ curve-unknown "${tls}  curve_preferences: [P999]\n"
case_ prefer-server "${tls}  prefer_server_cipher_suites: true\n"
case_ tls-unknown-key "${tls}  cert_fil: srv.pem\n"
case_ users "basic_auth_users:\n  alice: '$HASH'\n"
case_ users-bad-hash 'basic_auth_users:\n  alice: secret\n'
case_ users-and-tls "${tls}basic_auth_users:\n  alice: '$HASH'\n"
case_ headers 'http_server_config:\n  headers:\n    X-Frame-Options: deny\n    Strict-Transport-Security: max-age=31536000\n'
case_ header-forbidden 'http_server_config:\n  headers:\n    Authorization: x\n'
case_ http2-off 'http_server_config:\n  http2: false\n'
case_ unknown-top 'tls_config:\n  cert_file: srv.pem\n'
case_ not-yaml 'tls_server_config: [\n'
case_ not-a-map '- a\n'

disagree=0
for f in [0-9]*.yml; do
  p=0 l=0
  promtool check web-config "$f" >/dev/null 2>"$f.promtool" || p=1
  "$LLMON" check web-config "$f" >/dev/null 2>"$f.llmon" || l=1
  if [[ $p != "$l" ]]; then
    disagree=$((disagree + 1))
    log "DIFFERENT $f: promtool $([[ $p == 0 ]] && echo accepts || echo "refuses: $(cat "$f.promtool")"); llmon $([[ $l == 0 ]] && echo accepts || echo "refuses: $(cat "$f.llmon")")"
  else
    log "same $f: $([[ $p == 0 ]] && echo accepted || echo "refused (llmon: $(cut -c1-120 "$f.llmon"))")"
  fi
done
[[ $disagree -eq 0 ]] || fail "$disagree of $n files judged differently"
log "ok: $n files, the same verdicts"
