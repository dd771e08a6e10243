#include "scrape/http_client_config.h"

#include <yaml-cpp/yaml.h>

#include "base/file_reader.h"
#include "base/strings.h"
#include "scrape/config_reader.h"

namespace llmon::scrape {
namespace {

class HttpConfigReader : public ConfigReader {
 public:
  using ConfigReader::ConfigReader;

  Status unknown(const YAML::Node& key, std::string_view where) const override {
    const std::string& k = key.Scalar();
    if (k == "oauth2" || k == "proxy_url" || k == "no_proxy" || k == "proxy_from_environment" ||
        k == "proxy_connect_header")
      return fail(key, "\"" + k + "\" is not supported by llmon's HTTP client");
    return ConfigReader::unknown(key, where);
  }

  Expected<HttpClientConfig> file(std::string_view text) {
    YAML::Node root;
    if (Status st = load(text, root); !st) return st;
    HttpClientConfig c;
    if (root.IsNull()) return c;
    if (!root.IsMap()) return fail(root, "expected a mapping (basic_auth, authorization, tls_config, ...)");
    HttpClientKeys keys;
    for (const auto& kv : root) {
      bool taken = false;
      if (Status s = keys.read(*this, kv.first.Scalar(), kv.second, c, taken); !s) return s;
      if (!taken) return unknown(kv.first, "HTTP client config");
    }
    if (Status s = keys.finish(*this, root, c); !s) return s;
    return c;
  }
};

// An inline secret, or the trimmed content of its file.
Expected<std::string> read_secret(const std::string& inline_value, const std::string& file) {
  if (file.empty()) return inline_value;
  auto text = base::read_file(file);
  if (!text) return Status::error("unable to read " + file + ": " + text.error());
  return std::string(base::trim(*text));
}

}  // namespace

Status HttpClientKeys::read(const ConfigReader& r, const std::string& key, const YAML::Node& v, HttpClientConfig& c,
                            bool& taken) {
  taken = true;
  if (key == "basic_auth") {
    c.basic_auth.emplace();
    return r.basic_auth(v, *c.basic_auth);
  }
  if (key == "authorization") {
    c.authorization.emplace();
    return r.authorization(v, *c.authorization);
  }
  if (key == "bearer_token") return r.scalar(v, key, bearer_token_);
  if (key == "bearer_token_file") return r.scalar(v, key, bearer_token_file_);
  if (key == "tls_config") return r.tls_config(v, c.tls);
  if (key == "follow_redirects") {
    bool follow = true;
    Status s = r.boolean(v, key, follow);
    if (s && follow)
      return r.fail(v, "follow_redirects: true is not supported (llmon's client does not follow redirects)");
    return s;
  }
  if (key == "enable_http2") {
    bool ignored = false;
    return r.boolean(v, key, ignored);
  }
  taken = false;
  return Status::ok();
}

Status HttpClientKeys::finish(const ConfigReader& r, const YAML::Node& block, HttpClientConfig& c) const {
  const bool bearer = !bearer_token_.empty() || !bearer_token_file_.empty();
  if ((c.basic_auth ? 1 : 0) + (c.authorization ? 1 : 0) + (bearer ? 1 : 0) > 1)
    return r.fail(block, "at most one of basic_auth, authorization and bearer_token(_file) must be configured");
  if (!bearer_token_.empty() && !bearer_token_file_.empty())
    return r.fail(block, "at most one of bearer_token & bearer_token_file must be configured");
  if (bearer) c.authorization = Authorization{"Bearer", bearer_token_, bearer_token_file_};
  return Status::ok();
}

Expected<HttpClientConfig> parse_http_client_config(std::string_view text, std::string_view file) {
  return HttpConfigReader(file).file(text);
}

Status apply_http_client_config(const HttpClientConfig& c, net::http::ClientOptions& o) {
  o.tls_ca_file = c.tls.ca_file;
  o.tls_cert_file = c.tls.cert_file;
  o.tls_key_file = c.tls.key_file;
  o.tls_server_name = c.tls.server_name;
  o.tls_insecure_skip_verify = c.tls.insecure_skip_verify;
  if (c.basic_auth) {
    auto pw = read_secret(c.basic_auth->password, c.basic_auth->password_file);
    if (!pw) return pw.status();
    o.basic_auth_username = c.basic_auth->username;
    o.basic_auth_password = *pw;
  } else if (c.authorization) {
    auto cred = read_secret(c.authorization->credentials, c.authorization->credentials_file);
    if (!cred) return cred.status();
    o.headers.push_back({"Authorization", c.authorization->type + " " + *cred});  // the type as written
  }
  return Status::ok();
}

}  // namespace llmon::scrape
