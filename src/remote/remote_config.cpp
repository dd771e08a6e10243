#include "remote/remote_config.h"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <set>

#include "base/hash.h"
#include "base/strings.h"
#include "model/metric.h"
#include "net/url.h"

namespace llmon::remote {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view file) : file_(file) {}

  Status fail(const YAML::Node& n, std::string_view msg) const {
    const YAML::Mark m = n.Mark();
    std::string out(file_);
    if (!m.is_null()) out += ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
    out += ": ";
    out += msg;
    return Status::error(out);
  }
  Status scalar(const YAML::Node& n, std::string_view field, std::string& out) const {
    if (n.IsNull()) return out.clear(), Status::ok();
    if (!n.IsScalar()) return fail(n, std::string(field) + ": expected a string");
    out = n.Scalar();
    return Status::ok();
  }
  Status boolean(const YAML::Node& n, std::string_view field, bool& out) const {
    auto b = n.IsScalar() ? base::parse_bool_word(n.Scalar()) : std::nullopt;
    if (!b) return fail(n, std::string(field) + ": expected true or false");
    out = *b;
    return Status::ok();
  }
  Status duration(const YAML::Node& n, std::string_view field, int64_t& out) const {
    if (!n.IsScalar()) return fail(n, std::string(field) + ": expected a duration such as 5s");
    auto d = base::parse_duration_ms(n.Scalar());
    if (!d) return fail(n, std::string(field) + ": " + d.error());
    out = *d;
    return Status::ok();
  }
  Status uint(const YAML::Node& n, std::string_view field, uint64_t& out) const {
    auto i = n.IsScalar() ? base::parse_i64(n.Scalar()) : std::nullopt;
    if (!i || *i < 0) return fail(n, std::string(field) + ": expected a non-negative integer");
    out = static_cast<uint64_t>(*i);
    return Status::ok();
  }
  Status map_of_strings(const YAML::Node& n, std::string_view field,
                        std::vector<std::pair<std::string, std::string>>& out) const {
    out.clear();
    if (n.IsNull()) return Status::ok();
    if (!n.IsMap()) return fail(n, std::string(field) + ": expected a mapping");
    for (const auto& kv : n) {
      std::string v;
      if (Status s = scalar(kv.second, std::string(field) + "." + kv.first.Scalar(), v); !s) return s;
      out.emplace_back(kv.first.Scalar(), v);
    }
    return Status::ok();
  }
  Status unknown(const YAML::Node& key, std::string_view where) const {
    const std::string& k = key.Scalar();
    static const std::set<std::string, std::less<>> kKnownElsewhere = {"oauth2",
                                                                       "sigv4",
                                                                       "azuread",
                                                                       "proxy_url",
                                                                       "no_proxy",
                                                                       "proxy_from_environment",
                                                                       "proxy_connect_header",
                                                                       "follow_redirects",
                                                                       "enable_http2",
                                                                       "protobuf_message",
                                                                       "send_exemplars",
                                                                       "send_native_histograms",
                                                                       "bearer_token",
                                                                       "bearer_token_file"};
    if (kKnownElsewhere.count(k))
      return fail(key, std::string(where) + ": \"" + k + "\" is not supported by llmon's remote_write");
    return fail(key, std::string(where) + ": unknown field \"" + k + "\"");
  }

  Status relabel(const YAML::Node& n, std::string_view where, std::vector<scrape::RelabelConfig>& out) {
    out.clear();
    if (n.IsNull()) return Status::ok();
    if (!n.IsSequence()) return fail(n, std::string(where) + ": expected a list of relabel rules");
    size_t idx = 0;
    for (const auto& item : n) {
      const std::string w = std::string(where) + "[" + std::to_string(idx++) + "]";
      if (!item.IsMap()) return fail(item, w + ": expected a mapping");
      scrape::RelabelConfig rc;
      for (const auto& kv : item) {
        const std::string& key = kv.first.Scalar();
        const YAML::Node& v = kv.second;
        Status s;
        if (key == "source_labels") {
          rc.source_labels.clear();
          rc.set_source_labels = true;
          if (!v.IsNull() && !v.IsSequence()) s = fail(v, w + ".source_labels: expected a list of label names");
          if (s && v.IsSequence())
            for (const auto& l : v) {
              if (!l.IsScalar() || !model::is_valid_label_name(l.Scalar())) {
                s = fail(l, w + ".source_labels: expected label names");
                break;
              }
              rc.source_labels.push_back(l.Scalar());
            }
        } else if (key == "separator") {
          s = scalar(v, w + ".separator", rc.separator);
        } else if (key == "regex") {
          rc.set_regex = true;
          s = scalar(v, w + ".regex", rc.regex);
        } else if (key == "modulus") {
          s = uint(v, w + ".modulus", rc.modulus);
        } else if (key == "target_label") {
          s = scalar(v, w + ".target_label", rc.target_label);
        } else if (key == "replacement") {
          s = scalar(v, w + ".replacement", rc.replacement);
        } else if (key == "action") {
          std::string a;
          s = scalar(v, w + ".action", a);
          auto action = scrape::parse_relabel_action(a);
          if (s && !action) s = fail(v, w + ".action: " + scrape::unknown_relabel_action_message(a));
          if (s) rc.action = *action;
        } else {
          s = unknown(kv.first, w);
        }
        if (!s) return s;
      }
      auto compiled = scrape::Relabeler::compile({rc});
      if (!compiled) {
        std::string msg = compiled.error();
        if (msg.rfind("rule 1: ", 0) == 0) msg.erase(0, 8);
        return fail(item, w + ": " + msg);
      }
      out.push_back(std::move(rc));
    }
    return Status::ok();
  }

  Status queue(const YAML::Node& n, QueueConfig& q) {
    if (!n.IsMap()) return fail(n, "queue_config: expected a mapping");
    for (const auto& kv : n) {
      const std::string& key = kv.first.Scalar();
      const std::string f = "queue_config." + key;
      Status s;
      if (key == "capacity")
        s = uint(kv.second, f, q.capacity);
      else if (key == "max_shards")
        s = uint(kv.second, f, q.max_shards);
      else if (key == "min_shards")
        s = uint(kv.second, f, q.min_shards);
      else if (key == "max_samples_per_send")
        s = uint(kv.second, f, q.max_samples_per_send);
      else if (key == "batch_send_deadline")
        s = duration(kv.second, f, q.batch_send_deadline_ms);
      else if (key == "min_backoff")
        s = duration(kv.second, f, q.min_backoff_ms);
      else if (key == "max_backoff")
        s = duration(kv.second, f, q.max_backoff_ms);
      else if (key == "retry_on_http_429")
        s = boolean(kv.second, f, q.retry_on_http_429);
      else if (key == "sample_age_limit")
        s = fail(kv.first, "queue_config.sample_age_limit is not supported: llmon sends every stored sample");
      else
        s = unknown(kv.first, "queue_config");
      if (!s) return s;
    }
    if (q.max_samples_per_send == 0) return fail(n, "queue_config.max_samples_per_send must be positive");
    if (q.min_backoff_ms > q.max_backoff_ms) return fail(n, "queue_config: min_backoff is above max_backoff");
    if (q.min_shards > q.max_shards) return fail(n, "queue_config: min_shards is above max_shards");
    return Status::ok();
  }

  Status basic_auth(const YAML::Node& n, scrape::BasicAuth& out) {
    if (!n.IsMap()) return fail(n, "basic_auth: expected a mapping");
    for (const auto& kv : n) {
      const std::string& key = kv.first.Scalar();
      Status s;
      if (key == "username")
        s = scalar(kv.second, "basic_auth.username", out.username);
      else if (key == "password")
        s = scalar(kv.second, "basic_auth.password", out.password);
      else if (key == "password_file")
        s = scalar(kv.second, "basic_auth.password_file", out.password_file);
      else
        s = unknown(kv.first, "basic_auth");
      if (!s) return s;
    }
    if (!out.password.empty() && !out.password_file.empty())
      return fail(n, "at most one of basic_auth password & password_file must be configured");
    return Status::ok();
  }

  Status authorization(const YAML::Node& n, scrape::Authorization& out) {
    if (!n.IsMap()) return fail(n, "authorization: expected a mapping");
    for (const auto& kv : n) {
      const std::string& key = kv.first.Scalar();
      Status s;
      if (key == "type")
        s = scalar(kv.second, "authorization.type", out.type);
      else if (key == "credentials")
        s = scalar(kv.second, "authorization.credentials", out.credentials);
      else if (key == "credentials_file")
        s = scalar(kv.second, "authorization.credentials_file", out.credentials_file);
      else
        s = unknown(kv.first, "authorization");
      if (!s) return s;
    }
    if (out.type.empty()) out.type = "Bearer";
    if (base::iequals(out.type, "basic"))
      return fail(n, "authorization type cannot be set to \"basic\", use \"basic_auth\" instead");
    if (!out.credentials.empty() && !out.credentials_file.empty())
      return fail(n, "at most one of authorization credentials & credentials_file must be configured");
    return Status::ok();
  }

  Status tls_config(const YAML::Node& n, scrape::TlsConfig& out) {
    if (!n.IsMap()) return fail(n, "tls_config: expected a mapping");
    for (const auto& kv : n) {
      const std::string& key = kv.first.Scalar();
      Status s;
      if (key == "ca_file")
        s = scalar(kv.second, "tls_config.ca_file", out.ca_file);
      else if (key == "cert_file")
        s = scalar(kv.second, "tls_config.cert_file", out.cert_file);
      else if (key == "key_file")
        s = scalar(kv.second, "tls_config.key_file", out.key_file);
      else if (key == "server_name")
        s = scalar(kv.second, "tls_config.server_name", out.server_name);
      else if (key == "insecure_skip_verify")
        s = boolean(kv.second, "tls_config.insecure_skip_verify", out.insecure_skip_verify);
      else
        s = unknown(kv.first, "tls_config");
      if (!s) return s;
    }
    if (out.cert_file.empty() != out.key_file.empty())
      return fail(n, out.cert_file.empty() ? "client key file specified without client cert file"
                                           : "client cert file specified without client key file");
    return Status::ok();
  }

  Status entry(const YAML::Node& n, RemoteWriteConfig& c) {
    if (!n.IsMap()) return fail(n, "remote_write: expected a mapping");
    c.origin = file_ + ":" + std::to_string(n.Mark().line + 1);
    for (const auto& kv : n) {
      const std::string& key = kv.first.Scalar();
      const YAML::Node& v = kv.second;
      Status s;
      if (key == "url") {
        s = scalar(v, "url", c.url);
        if (s) {
          auto u = net::http::parse_url(c.url);
          if (!u) s = fail(v, "url: " + u.error());
        }
      } else if (key == "name") {
        s = scalar(v, "name", c.name);
      } else if (key == "remote_timeout") {
        s = duration(v, "remote_timeout", c.remote_timeout_ms);
      } else if (key == "headers") {
        s = map_of_strings(v, "headers", c.headers);
        for (const auto& [h, _] : c.headers)
          if (s &&
              (base::iequals(h, "content-type") || base::iequals(h, "content-encoding") ||
               base::iequals(h, "x-prometheus-remote-write-version") || base::iequals(h, "user-agent") ||
               base::iequals(h, "authorization") || base::iequals(h, "host") || base::iequals(h, "content-length")))
            s = fail(v, "headers: \"" + h + "\" is a protected header");
      } else if (key == "basic_auth") {
        c.basic_auth.emplace();
        s = basic_auth(v, *c.basic_auth);
      } else if (key == "authorization") {
        c.authorization.emplace();
        s = authorization(v, *c.authorization);
      } else if (key == "tls_config") {
        s = tls_config(v, c.tls);
      } else if (key == "write_relabel_configs") {
        s = relabel(v, "write_relabel_configs", c.write_relabel_configs);
      } else if (key == "queue_config") {
        s = queue(v, c.queue);
      } else if (key == "metadata_config") {
        if (!v.IsMap()) s = fail(v, "metadata_config: expected a mapping");
        for (const auto& m : v) {
          if (!s) break;
          if (m.first.Scalar() == "send")
            s = boolean(m.second, "metadata_config.send", c.send_metadata);
          else if (m.first.Scalar() == "send_interval" || m.first.Scalar() == "max_samples_per_send")
            continue;
          else
            s = unknown(m.first, "metadata_config");
        }
      } else {
        s = unknown(kv.first, "remote_write");
      }
      if (!s) return s;
    }
    if (c.url.empty()) return fail(n, "remote_write: url is required");
    if (c.basic_auth && c.authorization) return fail(n, "at most one of basic_auth, authorization must be configured");
    return Status::ok();
  }

  Expected<RemoteWriteFile> file(std::string_view text) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      std::string msg = file_;
      if (!e.mark.is_null()) msg += ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
      return Status::error(msg + ": " + e.msg);
    }
    RemoteWriteFile out;
    if (root.IsNull()) return out;
    if (!root.IsMap()) return fail(root, "expected a mapping with remote_write");
    std::set<std::string> names;
    for (const auto& kv : root) {
      const std::string& key = kv.first.Scalar();
      if (key == "global") {
        if (!kv.second.IsMap()) return fail(kv.second, "global: expected a mapping");
        for (const auto& g : kv.second) {
          if (g.first.Scalar() != "external_labels") {
            // The rest of a Prometheus file's global section is the scraper's.
            if (g.first.Scalar() == "scrape_interval" || g.first.Scalar() == "scrape_timeout" ||
                g.first.Scalar() == "evaluation_interval")
              continue;
            return unknown(g.first, "global");
          }
          std::vector<std::pair<std::string, std::string>> ext;
          if (Status s = map_of_strings(g.second, "global.external_labels", ext); !s) return s;
          for (auto& [n, v] : ext) {
            if (!model::is_valid_label_name(n))
              return fail(g.second, "global.external_labels: \"" + n + "\" is not a valid label name");
            out.external_labels.push_back({n, v});
          }
        }
      } else if (key == "remote_write") {
        const YAML::Node& list = kv.second;
        if (list.IsNull()) continue;
        if (!list.IsSequence()) return fail(list, "remote_write: expected a list");
        for (const auto& item : list) {
          RemoteWriteConfig c;
          if (Status s = entry(item, c); !s) return s;
          const std::string id = queue_hash(c);
          if (!names.insert(id).second)
            return fail(item, "remote_write: duplicate remote write configs are not allowed (same url and name)");
          out.remote_write.push_back(std::move(c));
        }
      } else {
        return unknown(kv.first, "top level");
      }
    }
    return out;
  }

 private:
  std::string file_;
};

}  // namespace

Expected<RemoteWriteFile> parse_remote_write_config(std::string_view yaml, std::string_view file) {
  Parser p(file);
  return p.file(yaml);
}

std::string queue_hash(const RemoteWriteConfig& c) {
  uint64_t h = base::fnv1a_field(base::kFnv1aOffset, c.url);
  h = base::fnv1a_field(h, c.name);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace llmon::remote
