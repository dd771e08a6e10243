// The --web.config.file format of Prometheus's exporter-toolkit (v0.8, the
// one Debian 12's Prometheus 2.42 and node_exporter 1.5 read; docs/security.md):
// tls_server_config, http_server_config and basic_auth_users. The parser is
// pure (text in, struct out): keys the toolkit does not know are refused
// with FILE:LINE:COLUMN, as `promtool check web-config` refuses them; the
// certificate files are read by tls_server.h, not here. Relative file names
// are resolved against the config file's directory, as the toolkit does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace llmon::websec {

enum class ClientAuth {
  kNoClientCert,
  kRequestClientCert,
  kRequireAnyClientCert,
  kVerifyClientCertIfGiven,
  kRequireAndVerifyClientCert,
};

struct TlsServerConfig {
  bool enabled = false;  // the block is present with any field set
  std::string cert_file;
  std::string key_file;
  ClientAuth client_auth = ClientAuth::kNoClientCert;
  std::string client_ca_file;
  std::vector<std::string> cipher_suites;      // Go / IANA names, as written
  std::vector<std::string> curve_preferences;  // CurveP256, CurveP384, CurveP521, X25519
  int min_version = 0x0303;                    // TLS 1.2 (wire value), the toolkit's default
  int max_version = 0x0304;                    // TLS 1.3
  bool prefer_server_cipher_suites = true;
};

struct WebConfig {
  TlsServerConfig tls;
  bool http2 = true;                                         // accepted; llmon speaks HTTP/1.1 only
  std::vector<std::pair<std::string, std::string>> headers;  // http_server_config.headers, file order
  std::vector<std::pair<std::string, std::string>> users;    // user -> bcrypt hash, file order
};

// Parses the file's text. `file` names it in errors and gives the directory
// relative certificate paths are resolved against.
Expected<WebConfig> parse_web_config(std::string_view text, std::string_view file);

// The TLS version names min_version/max_version take: "TLS10".."TLS13" ->
// 0x0301..0x0304; 0 when unknown.
int tls_version_from_name(std::string_view name);

// Go's crypto/tls CipherSuites() names (the ones the toolkit accepts).
bool known_cipher_suite(std::string_view name);
bool tls13_cipher_suite(std::string_view name);  // TLS_AES_128_GCM_SHA256 etc. (not configurable in Go)

// A bcrypt hash the toolkit accepts ($2a$/$2b$/$2x$/$2y$, cost 4..31, 60 bytes).
bool valid_bcrypt_hash(std::string_view hash);

}  // namespace llmon::websec
