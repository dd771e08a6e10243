// exporter-toolkit's web config (v0.8 web/tls_config.go, handler.go); see web_config.h.
#include "websec/web_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <set>

#include "scrape/config_reader.h"

namespace llmon::websec {
namespace {

// Go 1.19's tls.CipherSuites(): the secure suites, the names the toolkit accepts.
constexpr std::array<std::string_view, 17> kGoCipherSuites = {
    "TLS_RSA_WITH_AES_128_CBC_SHA",
    "TLS_RSA_WITH_AES_256_CBC_SHA",
    "TLS_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
};

constexpr std::array<std::string_view, 4> kCurves = {"CurveP256", "CurveP384", "CurveP521", "X25519"};

// handler.go's extraHTTPHeaders: the names that may be set, and the values
// each takes (none listed: any value). Names and values are case-sensitive.
struct AllowedHeader {
  std::string_view name;
  std::vector<std::string_view> values;
};
const std::vector<AllowedHeader>& allowed_headers() {
  static const std::vector<AllowedHeader> k = {
      {"Strict-Transport-Security", {}},
      {"X-Content-Type-Options", {"nosniff"}},
      {"X-Frame-Options", {"deny", "sameorigin"}},
      {"X-XSS-Protection", {}},
      {"Content-Security-Policy", {}},
  };
  return k;
}

std::string join_dir(std::string_view file, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  size_t slash = file.rfind('/');
  if (slash == std::string_view::npos) return path;
  return std::string(file.substr(0, slash + 1)) + path;
}

class Reader : public scrape::ConfigReader {
 public:
  using ConfigReader::ConfigReader;

  Status read(std::string_view text, WebConfig& out) {
    YAML::Node root;
    if (Status s = load(text, root); !s) return s;
    if (!root || root.IsNull()) return Status::ok();
    if (!root.IsMap()) return fail(root, "expected a mapping at the top level");
    std::set<std::string> seen;
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      if (!seen.insert(key).second) return fail(kv.first, "field \"" + key + "\" given twice");
      Status s;
      if (key == "tls_server_config") {
        s = tls(kv.second, out.tls);
      } else if (key == "http_server_config") {
        s = http(kv.second, out);
      } else if (key == "basic_auth_users") {
        s = users(kv.second, out.users);
      } else {
        s = unknown(kv.first, "web config");
      }
      if (!s) return s;
    }
    return Status::ok();
  }

  Status unknown(const YAML::Node& key, std::string_view where) const override {
    return fail(key, std::string(where) + ": unknown field \"" + key.Scalar() + "\"");
  }

 private:
  Status tls(const YAML::Node& n, TlsServerConfig& t) {
    if (n.IsNull()) return Status::ok();
    if (!n.IsMap()) return fail(n, "tls_server_config: expected a mapping");
    std::string client_auth;
    std::set<std::string> seen;
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      const std::string field = "tls_server_config." + key;
      if (!seen.insert(key).second) return fail(kv.first, field + " given twice");
      Status s;
      std::string v;
      if (key == "cert_file") {
        s = scalar(kv.second, field, t.cert_file);
      } else if (key == "key_file") {
        s = scalar(kv.second, field, t.key_file);
      } else if (key == "client_ca_file") {
        s = scalar(kv.second, field, t.client_ca_file);
      } else if (key == "client_auth_type") {
        s = scalar(kv.second, field, client_auth);
      } else if (key == "min_version" || key == "max_version") {
        s = scalar(kv.second, field, v);
        int ver = tls_version_from_name(v);
        if (s && ver == 0) s = fail(kv.second, field + ": unknown TLS version: " + v);
        (key == "min_version" ? t.min_version : t.max_version) = ver;
      } else if (key == "cipher_suites") {
        s = strings(kv.second, field, t.cipher_suites);
        for (const std::string& c : t.cipher_suites)
          if (s && !known_cipher_suite(c)) s = fail(kv.second, field + ": unknown cipher: " + c);
      } else if (key == "curve_preferences") {
        s = strings(kv.second, field, t.curve_preferences);
        for (const std::string& c : t.curve_preferences)
          if (s && std::find(kCurves.begin(), kCurves.end(), c) == kCurves.end())
            s = fail(kv.second, field + ": unknown curve: " + c);
      } else if (key == "prefer_server_cipher_suites") {
        s = boolean(kv.second, field, t.prefer_server_cipher_suites);
      } else {
        s = unknown(kv.first, "tls_server_config");
      }
      if (!s) return s;
    }
    if (client_auth.empty() || client_auth == "NoClientCert") {
      t.client_auth = ClientAuth::kNoClientCert;
    } else if (client_auth == "RequestClientCert") {
      t.client_auth = ClientAuth::kRequestClientCert;
    } else if (client_auth == "RequireAnyClientCert" || client_auth == "RequireClientCert") {
      t.client_auth = ClientAuth::kRequireAnyClientCert;
    } else if (client_auth == "VerifyClientCertIfGiven") {
      t.client_auth = ClientAuth::kVerifyClientCertIfGiven;
    } else if (client_auth == "RequireAndVerifyClientCert") {
      t.client_auth = ClientAuth::kRequireAndVerifyClientCert;
    } else {
      return fail(n, "tls_server_config.client_auth_type: invalid ClientAuth: " + client_auth);
    }
    // The toolkit's checks, in its order (ConfigToTLSConfig).
    t.enabled = !t.cert_file.empty() || !t.key_file.empty() || !t.client_ca_file.empty() || !client_auth.empty();
    if (!t.enabled) return Status::ok();
    if (t.cert_file.empty()) return fail(n, "tls_server_config: missing cert_file");
    if (t.key_file.empty()) return fail(n, "tls_server_config: missing key_file");
    if (!t.client_ca_file.empty() && t.client_auth == ClientAuth::kNoClientCert)
      return fail(n, "tls_server_config: client CA's have been configured without a Client Auth Policy");
    t.cert_file = join_dir(file_name(), t.cert_file);
    t.key_file = join_dir(file_name(), t.key_file);
    t.client_ca_file = join_dir(file_name(), t.client_ca_file);
    return Status::ok();
  }

  Status http(const YAML::Node& n, WebConfig& out) {
    if (n.IsNull()) return Status::ok();
    if (!n.IsMap()) return fail(n, "http_server_config: expected a mapping");
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      Status s;
      if (key == "http2") {
        s = boolean(kv.second, "http_server_config.http2", out.http2);
      } else if (key == "headers") {
        s = map_of_strings(kv.second, "http_server_config.headers", out.headers);
        for (const auto& [name, value] : out.headers) {
          if (!s) break;
          auto it = std::find_if(allowed_headers().begin(), allowed_headers().end(),
                                 [&name](const AllowedHeader& h) { return h.name == name; });
          if (it == allowed_headers().end()) {
            s = fail(kv.second, "HTTP header \"" + name + "\" can not be configured");
          } else if (!it->values.empty() &&
                     std::find(it->values.begin(), it->values.end(), value) == it->values.end()) {
            std::string expected;
            for (std::string_view a : it->values) expected += (expected.empty() ? "\"" : " \"") + std::string(a) + "\"";
            s = fail(kv.second,
                     "invalid value for " + name + ". Expected one of: [" + expected + "], but got: \"" + value + "\"");
          }
        }
      } else {
        s = unknown(kv.first, "http_server_config");
      }
      if (!s) return s;
    }
    return Status::ok();
  }

  Status users(const YAML::Node& n, std::vector<std::pair<std::string, std::string>>& out) {
    if (Status s = map_of_strings(n, "basic_auth_users", out); !s) return s;
    for (const auto& [user, hash] : out)
      if (!valid_bcrypt_hash(hash))
        return fail(n, "basic_auth_users: the hash of user \"" + user + "\" is not a bcrypt hash ($2y$...)");
    return Status::ok();
  }
};

}  // namespace

int tls_version_from_name(std::string_view name) {
  if (name == "TLS10") return 0x0301;
  if (name == "TLS11") return 0x0302;
  if (name == "TLS12") return 0x0303;
  if (name == "TLS13") return 0x0304;
  return 0;
}

bool known_cipher_suite(std::string_view name) {
  return std::find(kGoCipherSuites.begin(), kGoCipherSuites.end(), name) != kGoCipherSuites.end();
}

bool tls13_cipher_suite(std::string_view name) {
  return name == "TLS_AES_128_GCM_SHA256" || name == "TLS_AES_256_GCM_SHA384" || name == "TLS_CHACHA20_POLY1305_SHA256";
}

bool valid_bcrypt_hash(std::string_view h) {
  // $2?$NN$ + 22 salt + 31 hash characters.
  if (h.size() != 60 || h[0] != '$' || h[1] != '2' || h[3] != '$' || h[6] != '$') return false;
  if (h[2] != 'a' && h[2] != 'b' && h[2] != 'x' && h[2] != 'y') return false;
  if (h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9') return false;
  int cost = (h[4] - '0') * 10 + (h[5] - '0');
  if (cost < 4 || cost > 31) return false;
  for (char c : h.substr(7)) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '/';
    if (!ok) return false;
  }
  return true;
}

Expected<WebConfig> parse_web_config(std::string_view text, std::string_view file) {
  WebConfig out;
  Reader r(file);
  if (Status s = r.read(text, out); !s) return s;
  return out;
}

}  // namespace llmon::websec
