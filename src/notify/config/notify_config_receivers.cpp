// Receivers of the notification config: email_configs, webhook_configs and
// llmon's exec_configs, with Alertmanager 0.25's defaults and checks
// (config/notifiers.go and the defaulting in config.go).
#include <algorithm>
#include <cctype>
#include <set>

#include "notify/config/notify_config_yaml.h"

namespace llmon::notify::config_yaml {

namespace {

// textproto.CanonicalMIMEHeaderKey for header names made of token characters.
std::string canonical_header(std::string_view h) {
  std::string out(h);
  for (char ch : out)
    if (ch == ' ' || ch == ':' || static_cast<unsigned char>(ch) >= 0x80) return out;  // left as is, like Go
  bool upper = true;
  for (char& ch : out) {
    if (upper && ch >= 'a' && ch <= 'z')
      ch = static_cast<char>(ch - 'a' + 'A');
    else if (!upper && ch >= 'A' && ch <= 'Z')
      ch = static_cast<char>(ch - 'A' + 'a');
    upper = ch == '-';
  }
  return out;
}

// url.Parse enough to reproduce Alertmanager's parseURL checks.
Status check_url(const std::string& s) {
  size_t colon = s.find(':');
  std::string scheme;
  if (colon != std::string::npos && colon > 0) {
    bool ok = std::isalpha(static_cast<unsigned char>(s[0]));
    for (size_t i = 1; i < colon && ok; ++i) {
      char ch = s[i];
      ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == '+' || ch == '-' || ch == '.';
    }
    if (ok) scheme = s.substr(0, colon);
  }
  for (char& ch : scheme) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (unsigned char ch : s)
    if (ch < 0x20 || ch == 0x7F) return Status::error("parse \"" + s + "\": net/url: invalid control character in URL");
  if (scheme != "http" && scheme != "https") return Status::error("unsupported scheme \"" + scheme + "\" for URL");
  std::string_view rest = std::string_view(s).substr(colon + 1);
  if (rest.substr(0, 2) != "//") return Status::error("missing host for URL");
  rest.remove_prefix(2);
  size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (authority.empty()) return Status::error("missing host for URL");
  return Status::ok();
}

Status read_email(const Ctx& c, const YAML::Node& n, const std::string& path, const GlobalConfig& g,
                  EmailNotifierConfig& e) {
  if (auto s = check_map(c, n, path,
                         {.known = {"send_resolved", "to", "from", "hello", "smarthost", "auth_username",
                                    "auth_password", "auth_password_file", "auth_secret", "auth_identity", "headers",
                                    "html", "text", "require_tls", "tls_config"}});
      !s)
    return s;
  if (n.IsNull()) return c.error(n, path, "missing to address in email config");
  for (auto [key, field] :
       {std::pair{"to", &e.to}, std::pair{"from", &e.from}, std::pair{"hello", &e.hello},
        std::pair{"smarthost", &e.smarthost}, std::pair{"auth_username", &e.auth_username},
        std::pair{"auth_password", &e.auth_password}, std::pair{"auth_password_file", &e.auth_password_file},
        std::pair{"auth_secret", &e.auth_secret}, std::pair{"auth_identity", &e.auth_identity}})
    if (auto s = read_string(c, n, path, key, *field); !s) return s;
  if (auto s = read_bool(c, n, path, "send_resolved", e.send_resolved); !s) return s;
  bool require_tls_set = n["require_tls"].IsDefined() && !n["require_tls"].IsNull();
  if (auto s = read_bool(c, n, path, "require_tls", e.require_tls); !s) return s;
  if (auto s = read_tls_config(c, n["tls_config"], join_path(path, "tls_config"), e.tls_config); !s) return s;
  std::vector<std::pair<std::string, std::string>> headers;
  if (auto s = read_string_map(c, n, path, "headers", headers); !s) return s;
  for (const char* k : {"html", "text"})
    if (n[k].IsDefined() && !n[k].IsNull())
      c.warn(n[k], join_path(path, k), "ignored: llmon renders its own email body (templates are not supported)");
  if (!e.smarthost.empty()) {
    if (auto s = split_smarthost(e.smarthost, e.smarthost_host, e.smarthost_port); !s)
      return c.error(n["smarthost"], join_path(path, "smarthost"), s.message());
  }
  if (e.to.empty()) return c.error(n, path, "missing to address in email config");
  std::set<std::string> seen;
  for (auto& [k, v] : headers) {
    std::string canon = canonical_header(k);
    if (!seen.insert(canon).second)
      return c.error(n["headers"], join_path(path, "headers"), "duplicate header \"" + canon + "\" in email config");
    e.headers.emplace_back(std::move(canon), std::move(v));
  }
  std::sort(e.headers.begin(), e.headers.end());
  // Defaults from `global` (config.go).
  if (e.smarthost.empty()) {
    if (g.smtp_smarthost.empty()) return c.error(n, path, "no global SMTP smarthost set");
    e.smarthost = g.smtp_smarthost;
    if (auto s = split_smarthost(e.smarthost, e.smarthost_host, e.smarthost_port); !s)
      return c.error(n, path, s.message());
  }
  if (e.from.empty()) {
    if (g.smtp_from.empty()) return c.error(n, path, "no global SMTP from set");
    e.from = g.smtp_from;
  }
  if (e.hello.empty()) e.hello = g.smtp_hello;
  if (e.auth_username.empty()) e.auth_username = g.smtp_auth_username;
  if (e.auth_password.empty() && e.auth_password_file.empty()) {
    e.auth_password = g.smtp_auth_password;
    e.auth_password_file = g.smtp_auth_password_file;
  }
  if (e.auth_secret.empty()) e.auth_secret = g.smtp_auth_secret;
  if (e.auth_identity.empty()) e.auth_identity = g.smtp_auth_identity;
  if (!require_tls_set) e.require_tls = g.smtp_require_tls;
  return Status::ok();
}

Status read_webhook(const Ctx& c, const YAML::Node& n, const std::string& path, const GlobalConfig& g,
                    WebhookNotifierConfig& w) {
  if (auto s = check_map(c, n, path, {.known = {"send_resolved", "http_config", "url", "max_alerts"}}); !s) return s;
  if (auto s = read_bool(c, n, path, "send_resolved", w.send_resolved); !s) return s;
  if (auto s = read_string(c, n, path, "url", w.url); !s) return s;
  if (auto s = read_u64(c, n, path, "max_alerts", w.max_alerts); !s) return s;
  if (n["http_config"].IsDefined() && !n["http_config"].IsNull()) {
    if (auto s = read_http_config(c, n["http_config"], join_path(path, "http_config"), w.http_config); !s) return s;
  } else {
    w.http_config = g.http_config;
  }
  if (w.url.empty()) return c.error(n, path, "missing URL in webhook config");
  if (auto s = check_url(w.url); !s) return c.error(n["url"], join_path(path, "url"), s.message());
  return Status::ok();
}

Status read_exec(const Ctx& c, const YAML::Node& n, const std::string& path, ExecNotifierConfig& x) {
  if (auto s = check_map(c, n, path, {.known = {"send_resolved", "command", "timeout", "max_concurrent"}}); !s)
    return s;
  if (auto s = read_bool(c, n, path, "send_resolved", x.send_resolved); !s) return s;
  std::optional<std::vector<std::string>> cmd;
  if (auto s = read_string_list(c, n, path, "command", cmd); !s) return s;
  if (!cmd || cmd->empty() || (*cmd)[0].empty())
    return c.error(n["command"].IsDefined() ? n["command"] : n, join_path(path, "command"),
                   "missing command (a list: program and arguments) in exec config");
  x.command = std::move(*cmd);
  std::optional<int64_t> timeout;
  if (auto s = read_duration(c, n, path, "timeout", timeout); !s) return s;
  if (timeout) {
    if (*timeout <= 0) return c.error(n["timeout"], join_path(path, "timeout"), "timeout must be greater than zero");
    x.timeout_ms = *timeout;
  }
  uint64_t mc = static_cast<uint64_t>(x.max_concurrent);
  if (auto s = read_u64(c, n, path, "max_concurrent", mc); !s) return s;
  if (mc < 1 || mc > 1024)
    return c.error(n["max_concurrent"], join_path(path, "max_concurrent"), "max_concurrent must be between 1 and 1024");
  x.max_concurrent = static_cast<int>(mc);
  return Status::ok();
}

Status read_trace_capture(const Ctx& c, const YAML::Node& n, const std::string& path, TraceCaptureNotifierConfig& x) {
  if (auto s = check_map(c, n, path,
                         {.known = {"send_resolved", "pid_label", "gpu_label", "job_label", "match_all", "duration",
                                    "iterations", "timeout"}});
      !s)
    return s;
  if (auto s = read_bool(c, n, path, "send_resolved", x.send_resolved); !s) return s;
  if (auto s = read_bool(c, n, path, "match_all", x.match_all); !s) return s;
  for (auto [key, field] : {std::pair{"pid_label", &x.pid_label}, std::pair{"gpu_label", &x.gpu_label},
                            std::pair{"job_label", &x.job_label}})
    if (auto s = read_string(c, n, path, key, *field); !s) return s;
  for (auto [key, field] : {std::pair{"duration", &x.duration_ms}, std::pair{"timeout", &x.timeout_ms}}) {
    std::optional<int64_t> d;
    if (auto s = read_duration(c, n, path, key, d); !s) return s;
    if (!d) continue;
    if (*d <= 0) return c.error(n[key], join_path(path, key), std::string(key) + " must be greater than zero");
    *field = *d;
  }
  uint64_t it = 0;
  if (auto s = read_u64(c, n, path, "iterations", it); !s) return s;
  if (it > 100000) return c.error(n["iterations"], join_path(path, "iterations"), "iterations must be at most 100000");
  x.iterations = static_cast<int64_t>(it);
  return Status::ok();
}

template <typename T, typename F>
Status read_list(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key, std::vector<T>& out,
                 F&& read_one) {
  YAML::Node v = parent[key];
  if (!v.IsDefined() || v.IsNull()) return Status::ok();
  const std::string p = join_path(path, key);
  if (!v.IsSequence()) return c.error(v, p, "expected a list");
  for (size_t i = 0; i < v.size(); ++i) {
    T item;
    if (auto s = read_one(v[i], index_path(p, i), item); !s) return s;
    out.push_back(std::move(item));
  }
  return Status::ok();
}

}  // namespace

Status read_receiver(const Ctx& c, const YAML::Node& n, const std::string& path, const GlobalConfig& g,
                     ReceiverConfig& r) {
  if (auto s =
          check_map(c, n, path,
                    {.known = {"name", "email_configs", "webhook_configs", "exec_configs", "trace_capture_configs"},
                     .unsupported = {"discord_configs", "pagerduty_configs", "slack_configs", "opsgenie_configs",
                                     "wechat_configs", "pushover_configs", "victorops_configs", "sns_configs",
                                     "telegram_configs", "webex_configs"}});
      !s)
    return s;
  r.pos = pos_of(n);
  if (auto s = read_string(c, n, path, "name", r.name); !s) return s;
  if (auto s = read_list(c, n, path, "email_configs", r.email_configs,
                         [&](const YAML::Node& e, const std::string& p, EmailNotifierConfig& out) {
                           return read_email(c, e, p, g, out);
                         });
      !s)
    return s;
  if (auto s = read_list(c, n, path, "webhook_configs", r.webhook_configs,
                         [&](const YAML::Node& e, const std::string& p, WebhookNotifierConfig& out) {
                           return read_webhook(c, e, p, g, out);
                         });
      !s)
    return s;
  if (auto s = read_list(
          c, n, path, "exec_configs", r.exec_configs,
          [&](const YAML::Node& e, const std::string& p, ExecNotifierConfig& out) { return read_exec(c, e, p, out); });
      !s)
    return s;
  if (auto s = read_list(c, n, path, "trace_capture_configs", r.trace_capture_configs,
                         [&](const YAML::Node& e, const std::string& p, TraceCaptureNotifierConfig& out) {
                           return read_trace_capture(c, e, p, out);
                         });
      !s)
    return s;
  if (r.name.empty()) return c.error(n, path, "missing name in receiver");
  return Status::ok();
}

}  // namespace llmon::notify::config_yaml
