// yaml-cpp readers for the notification config (see notify_config_yaml.h).
#include "notify/config/notify_config_yaml.h"

#include <set>

#include "base/strings.h"

namespace llmon::notify::config_yaml {

ConfigPos pos_of(const YAML::Node& n) {
  ConfigPos p;
  if (!n.IsDefined()) return p;
  auto m = n.Mark();
  if (m.line >= 0) {
    p.line = m.line + 1;
    p.column = m.column + 1;
  }
  return p;
}

std::string Ctx::at(const YAML::Node& n) const {
  ConfigPos p = pos_of(n);
  if (p.line == 0) return file;
  return file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
}

Status Ctx::error(const YAML::Node& n, const std::string& path, const std::string& msg) const {
  return Status::error(at(n) + ": " + (path.empty() ? msg : path + ": " + msg));
}

void Ctx::warn(const YAML::Node& n, const std::string& path, const std::string& msg) const {
  if (warnings) warnings->push_back(at(n) + ": " + (path.empty() ? msg : path + ": " + msg));
}

std::string join_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string index_path(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

namespace {

bool contains(std::initializer_list<std::string_view> l, std::string_view s) {
  for (auto x : l)
    if (x == s) return true;
  return false;
}

bool is_empty_value(const YAML::Node& v) {
  return v.IsNull() || ((v.IsSequence() || v.IsMap()) && v.size() == 0);
}

std::string kind_name(const YAML::Node& n) {
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a mapping";
  if (n.IsScalar()) return "the scalar \"" + n.Scalar() + "\"";
  return "null";
}

bool plain(const YAML::Node& n) {
  return n.Tag() != "!";
}

}  // namespace

Status check_map(const Ctx& c, const YAML::Node& n, const std::string& path, const Fields& f) {
  if (n.IsNull() || !n.IsDefined()) return Status::ok();
  if (!n.IsMap()) return c.error(n, path, "expected a mapping, got " + kind_name(n));
  std::map<std::string, int> seen;
  for (auto it = n.begin(); it != n.end(); ++it) {
    const YAML::Node k = it->first;  // a copy: `it->first` lives in a temporary proxy
    if (!k.IsScalar()) return c.error(k, path, "mapping keys must be strings");
    const std::string key = k.Scalar();
    auto [pos, inserted] = seen.emplace(key, pos_of(k).line);
    if (!inserted)
      return c.error(k, path, "field \"" + key + "\" already set (first at line " + std::to_string(pos->second) + ")");
    if (contains(f.known, key)) continue;
    if (contains(f.ignored, key)) {
      c.warn(k, join_path(path, key), "ignored (not used by llmon)");
      continue;
    }
    if (contains(f.unsupported, key)) {
      if (is_empty_value(it->second)) continue;
      return c.error(k, join_path(path, key), "not supported by llmon");
    }
    std::string known;
    for (auto x : f.known) known += (known.empty() ? "" : ", ") + std::string(x);
    return c.error(k, path, "unknown field \"" + key + "\" (known: " + known + ")");
  }
  return Status::ok();
}

Status read_string(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key, std::string& out) {
  YAML::Node v = parent[key];
  if (!v.IsDefined() || v.IsNull()) return Status::ok();
  if (!v.IsScalar()) return c.error(v, join_path(path, key), "expected a string, got " + kind_name(v));
  out = v.Scalar();
  return Status::ok();
}

Status read_bool(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key, bool& out) {
  YAML::Node v = parent[key];
  if (!v.IsDefined() || v.IsNull()) return Status::ok();
  static constexpr std::string_view kTrue[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static constexpr std::string_view kFalse[] = {"n",     "N",     "no",  "No",  "NO", "false",
                                                "False", "FALSE", "off", "Off", "OFF"};
  if (v.IsScalar() && plain(v)) {
    for (auto t : kTrue)
      if (v.Scalar() == t) {
        out = true;
        return Status::ok();
      }
    for (auto t : kFalse)
      if (v.Scalar() == t) {
        out = false;
        return Status::ok();
      }
  }
  return c.error(v, join_path(path, key), "expected true or false, got " + kind_name(v));
}

Status read_u64(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key, uint64_t& out) {
  YAML::Node v = parent[key];
  if (!v.IsDefined() || v.IsNull()) return Status::ok();
  std::optional<uint64_t> x;
  if (v.IsScalar() && plain(v)) x = base::parse_u64(v.Scalar());
  if (!x) return c.error(v, join_path(path, key), "expected a non-negative integer, got " + kind_name(v));
  out = *x;
  return Status::ok();
}

Status read_duration(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key,
                     std::optional<int64_t>& out) {
  YAML::Node v = parent[key];
  if (!v.IsDefined() || v.IsNull()) return Status::ok();
  if (!v.IsScalar()) return c.error(v, join_path(path, key), "expected a duration, got " + kind_name(v));
  auto d = parse_am_duration_ms(v.Scalar());
  if (!d) return c.error(v, join_path(path, key), d.error());
  out = *d;
  return Status::ok();
}

Status read_string_list(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key,
                        std::optional<std::vector<std::string>>& out) {
  YAML::Node v = parent[key];
  if (!v.IsDefined() || v.IsNull()) return Status::ok();
  if (!v.IsSequence()) return c.error(v, join_path(path, key), "expected a list of strings, got " + kind_name(v));
  std::vector<std::string> items;
  for (size_t i = 0; i < v.size(); ++i) {
    YAML::Node e = v[i];
    if (e.IsNull()) {
      items.emplace_back();
      continue;
    }
    if (!e.IsScalar()) return c.error(e, index_path(join_path(path, key), i), "expected a string, got " + kind_name(e));
    items.push_back(e.Scalar());
  }
  out = std::move(items);
  return Status::ok();
}

Status read_string_map(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key,
                       std::vector<std::pair<std::string, std::string>>& out) {
  YAML::Node v = parent[key];
  if (!v.IsDefined() || v.IsNull()) return Status::ok();
  const std::string p = join_path(path, key);
  if (!v.IsMap()) return c.error(v, p, "expected a mapping of strings, got " + kind_name(v));
  std::set<std::string> seen;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!it->first.IsScalar()) return c.error(it->first, p, "mapping keys must be strings");
    const std::string k = it->first.Scalar();
    if (!seen.insert(k).second) return c.error(it->first, p, "field \"" + k + "\" already set");
    std::string val;
    if (!it->second.IsNull()) {
      if (!it->second.IsScalar())
        return c.error(it->second, join_path(p, k), "expected a string, got " + kind_name(it->second));
      val = it->second.Scalar();
    }
    out.emplace_back(k, std::move(val));
  }
  return Status::ok();
}

Status read_matchers(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* match_key,
                     const char* match_re_key, const char* matchers_key, Matchers& out) {
  std::vector<std::pair<std::string, std::string>> eq, re;
  if (auto s = read_string_map(c, parent, path, match_key, eq); !s) return s;
  if (auto s = read_string_map(c, parent, path, match_re_key, re); !s) return s;
  for (const auto& [k, v] : eq) {
    if (!is_valid_label_name(k))
      return c.error(parent[match_key], join_path(path, match_key), "invalid label name \"" + k + "\"");
    auto m = Matcher::make(MatchType::kEqual, k, v);
    if (!m) return c.error(parent[match_key], join_path(path, match_key), m.error());
    out.push_back(std::move(*m));
  }
  for (const auto& [k, v] : re) {
    const YAML::Node n = parent[match_re_key][k];
    if (!is_valid_label_name(k))
      return c.error(parent[match_re_key], join_path(path, match_re_key), "invalid label name \"" + k + "\"");
    // Alertmanager builds these from the compiled regexp's String(), i.e. the
    // anchored form, which is what route keys (and group keys) then show.
    auto m = Matcher::make(MatchType::kRegexp, k, "^(?:" + v + ")$");
    if (!m) return c.error(n, join_path(join_path(path, match_re_key), k), m.error());
    out.push_back(std::move(*m));
  }
  std::optional<std::vector<std::string>> lines;
  if (auto s = read_string_list(c, parent, path, matchers_key, lines); !s) return s;
  if (lines) {
    const YAML::Node list = parent[matchers_key];
    for (size_t i = 0; i < lines->size(); ++i) {
      auto ms = parse_matchers((*lines)[i]);
      if (!ms) return c.error(list[i], index_path(join_path(path, matchers_key), i), ms.error());
      for (auto& m : *ms) out.push_back(std::move(m));
    }
  }
  sort_matchers(out);
  return Status::ok();
}

Status read_tls_config(const Ctx& c, const YAML::Node& n, const std::string& path, NotifierTlsConfig& out) {
  if (!n.IsDefined() || n.IsNull()) return Status::ok();
  if (auto s = check_map(c, n, path,
                         {.known = {"ca_file", "cert_file", "key_file", "server_name", "insecure_skip_verify"},
                          .ignored = {"min_version", "max_version"}});
      !s)
    return s;
  for (auto [key, field] : {std::pair{"ca_file", &out.ca_file}, std::pair{"cert_file", &out.cert_file},
                            std::pair{"key_file", &out.key_file}, std::pair{"server_name", &out.server_name}})
    if (auto s = read_string(c, n, path, key, *field); !s) return s;
  if (auto s = read_bool(c, n, path, "insecure_skip_verify", out.insecure_skip_verify); !s) return s;
  if (out.cert_file.empty() != out.key_file.empty())
    return c.error(n, path,
                   out.cert_file.empty()
                       ? "client key file \"" + out.key_file + "\" specified without client cert file"
                       : "client cert file \"" + out.cert_file + "\" specified without client key file");
  return Status::ok();
}

Status read_http_config(const Ctx& c, const YAML::Node& n, const std::string& path, NotifierHttpConfig& out) {
  if (!n.IsDefined() || n.IsNull()) return Status::ok();
  if (auto s = check_map(
          c, n, path,
          {.known = {"basic_auth", "bearer_token", "bearer_token_file", "authorization", "tls_config",
                     "follow_redirects"},
           .unsupported = {"oauth2", "proxy_url", "no_proxy", "proxy_from_environment", "proxy_connect_header"},
           .ignored = {"enable_http2"}});
      !s)
    return s;
  if (auto s = read_string(c, n, path, "bearer_token", out.bearer_token); !s) return s;
  if (auto s = read_string(c, n, path, "bearer_token_file", out.bearer_token_file); !s) return s;
  if (auto s = read_bool(c, n, path, "follow_redirects", out.follow_redirects); !s) return s;
  if (auto s = read_tls_config(c, n["tls_config"], join_path(path, "tls_config"), out.tls_config); !s) return s;
  if (YAML::Node ba = n["basic_auth"]; ba.IsDefined() && !ba.IsNull()) {
    const std::string p = join_path(path, "basic_auth");
    if (auto s = check_map(c, ba, p, {.known = {"username", "password", "password_file"}}); !s) return s;
    NotifierBasicAuth b;
    if (auto s = read_string(c, ba, p, "username", b.username); !s) return s;
    if (auto s = read_string(c, ba, p, "password", b.password); !s) return s;
    if (auto s = read_string(c, ba, p, "password_file", b.password_file); !s) return s;
    if (!b.password.empty() && !b.password_file.empty())
      return c.error(ba, p, "at most one of basic_auth password & password_file must be configured");
    out.basic_auth = std::move(b);
  }
  bool has_authorization = false;
  if (YAML::Node az = n["authorization"]; az.IsDefined() && !az.IsNull()) {
    const std::string p = join_path(path, "authorization");
    if (auto s = check_map(c, az, p, {.known = {"type", "credentials", "credentials_file"}}); !s) return s;
    std::string type = "Bearer", cred, cred_file;
    if (auto s = read_string(c, az, p, "type", type); !s) return s;
    if (auto s = read_string(c, az, p, "credentials", cred); !s) return s;
    if (auto s = read_string(c, az, p, "credentials_file", cred_file); !s) return s;
    if (type.empty()) type = "Bearer";
    if (base::trim(type) != "Bearer" && type != "bearer")
      return c.error(az, join_path(p, "type"), "only the Bearer authorization type is supported by llmon");
    if (!cred.empty() && !cred_file.empty())
      return c.error(az, p, "at most one of authorization credentials & credentials_file must be configured");
    if (!out.bearer_token.empty() || !out.bearer_token_file.empty())
      return c.error(n, path, "at most one of basic_auth, oauth2, bearer_token & bearer_token_file must be configured");
    has_authorization = true;
    out.bearer_token = cred;
    out.bearer_token_file = cred_file;
  }
  if (!out.bearer_token.empty() && !out.bearer_token_file.empty())
    return c.error(n, path, "at most one of bearer_token & bearer_token_file must be configured");
  if (out.basic_auth && (!out.bearer_token.empty() || !out.bearer_token_file.empty() || has_authorization))
    return c.error(n, path, "at most one of basic_auth, oauth2, bearer_token & bearer_token_file must be configured");
  return Status::ok();
}

Status split_smarthost(const std::string& s, std::string& host, std::string& port) {
  // net.SplitHostPort
  auto missing_port = [&] { return Status::error("address " + s + ": missing port in address"); };
  size_t colon = s.rfind(':');
  if (colon == std::string::npos) return missing_port();
  if (!s.empty() && s[0] == '[') {
    size_t end = s.find(']');
    if (end == std::string::npos) return Status::error("address " + s + ": missing ']' in address");
    if (end + 1 == s.size()) return missing_port();
    if (end + 1 != colon) return Status::error("address " + s + ": too many colons in address");
    host = s.substr(1, end - 1);
  } else {
    host = s.substr(0, colon);
    if (host.find(':') != std::string::npos) return Status::error("address " + s + ": too many colons in address");
    if (host.find('[') != std::string::npos || host.find(']') != std::string::npos)
      return Status::error("address " + s + ": unexpected '[' or ']' in address");
  }
  port = s.substr(colon + 1);
  if (port.find('[') != std::string::npos || port.find(']') != std::string::npos)
    return Status::error("address " + s + ": unexpected '[' or ']' in address");
  if (port.empty()) return Status::error("address \"" + s + "\": port cannot be empty");
  return Status::ok();
}

}  // namespace llmon::notify::config_yaml
