// Prometheus's HTTP client block (prometheus/common's HTTPClientConfig) on
// its own: the file promtool's `--http.config.file` reads, which llmon's
// own client commands (`llmon query`, `alerts`, `top --url`, ...) take
// under the same flag to reach an agent behind --web.config.file; and the
// one place a config's auth and TLS become net::http::ClientOptions (the
// scraper's fetcher uses it too).
//
// Keys: basic_auth {username, password, password_file}, authorization
// {type, credentials, credentials_file}, bearer_token, bearer_token_file,
// tls_config {ca_file, cert_file, key_file, server_name,
// insecure_skip_verify}, follow_redirects (false only: llmon's client does
// not follow redirects), enable_http2 (accepted; the client speaks
// HTTP/1.1). oauth2 and the proxy keys are refused by name, any other key
// as unknown, with FILE:LINE:COLUMN; at most one of basic_auth,
// authorization and bearer_token(_file), as Prometheus checks.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "net/http_request.h"
#include "scrape/scrape_config.h"

namespace YAML {
class Node;
}

namespace llmon::scrape {

struct HttpClientConfig {
  std::optional<BasicAuth> basic_auth;
  std::optional<Authorization> authorization;  // bearer_token(_file) too, as type Bearer
  TlsConfig tls;
};

// `file` names the file in errors. An empty document is the empty config.
Expected<HttpClientConfig> parse_http_client_config(std::string_view text, std::string_view file);

class ConfigReader;

// The HTTP client keys inside a larger block (a scrape job): read() takes
// `key` when it is one of them (`taken`), finish() checks the mutual
// exclusions once the block is read and turns bearer_token(_file) into an
// Authorization.
class HttpClientKeys {
 public:
  Status read(const ConfigReader& r, const std::string& key, const YAML::Node& v, HttpClientConfig& c, bool& taken);
  Status finish(const ConfigReader& r, const YAML::Node& block, HttpClientConfig& c) const;

 private:
  std::string bearer_token_, bearer_token_file_;
};

// Sets the TLS files and the Authorization of `o` (basic auth, or the
// header "TYPE CREDENTIALS" with the type as written), reading the secret
// files now (trimmed, so a rotated file is picked up by the next call; a
// missing one: "unable to read F: why").
Status apply_http_client_config(const HttpClientConfig& c, net::http::ClientOptions& o);

}  // namespace llmon::scrape
