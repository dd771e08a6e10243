#include "scrape/scrape_config.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <set>

#include "base/strings.h"
#include "model/metric.h"

namespace llmon::scrape {
namespace {

// Keys Prometheus knows that llmon does not take: named so the refusal says
// why, rather than "unknown".
constexpr std::string_view kOtherSd[] = {
    "azure_sd_configs",       "consul_sd_configs",   "digitalocean_sd_configs", "docker_sd_configs",
    "dockerswarm_sd_configs", "dns_sd_configs",      "ec2_sd_configs",          "eureka_sd_configs",
    "gce_sd_configs",         "hetzner_sd_configs",  "http_sd_configs",         "ionos_sd_configs",
    "kubernetes_sd_configs",  "kuma_sd_configs",     "lightsail_sd_configs",    "linode_sd_configs",
    "marathon_sd_configs",    "nerve_sd_configs",    "nomad_sd_configs",        "openstack_sd_configs",
    "ovhcloud_sd_configs",    "puppetdb_sd_configs", "scaleway_sd_configs",     "serverset_sd_configs",
    "triton_sd_configs",      "uyuni_sd_configs",    "vultr_sd_configs"};

class Parser {
 public:
  explicit Parser(std::string_view file) : file_(file) {}

  Status fail(const YAML::Node& n, std::string_view msg) const {
    const YAML::Mark m = n.Mark();
    std::string out(file_);
    if (!m.is_null()) out += ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
    out += ": ";
    out += ctx_;
    out += msg;
    return Status::error(out);
  }

  Status scalar(const YAML::Node& n, std::string_view field, std::string& out) const {
    if (n.IsNull()) {
      out.clear();
      return Status::ok();
    }
    if (!n.IsScalar()) return fail(n, std::string(field) + ": expected a string");
    out = n.Scalar();
    return Status::ok();
  }

  Status boolean(const YAML::Node& n, std::string_view field, bool& out) const {
    // YAML 1.1 booleans as Go's yaml.v2 reads them.
    auto b = n.IsScalar() ? base::parse_bool_word(n.Scalar()) : std::nullopt;
    if (!b) return fail(n, std::string(field) + ": expected true or false");
    out = *b;
    return Status::ok();
  }

  Status duration(const YAML::Node& n, std::string_view field, int64_t& out) const {
    if (!n.IsScalar()) return fail(n, std::string(field) + ": expected a duration such as 15s");
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

  Status strings(const YAML::Node& n, std::string_view field, std::vector<std::string>& out) const {
    out.clear();
    if (n.IsNull()) return Status::ok();
    if (!n.IsSequence()) return fail(n, std::string(field) + ": expected a list of strings");
    for (const auto& item : n) {
      if (!item.IsScalar()) return fail(item, std::string(field) + ": expected a string");
      out.push_back(item.Scalar());
    }
    return Status::ok();
  }

  Status label_map(const YAML::Node& n, std::string_view field, std::vector<model::Label>& out) const {
    out.clear();
    if (n.IsNull()) return Status::ok();
    if (!n.IsMap()) return fail(n, std::string(field) + ": expected a mapping of label names to values");
    for (const auto& kv : n) {
      const std::string& name = kv.first.Scalar();
      if (!model::is_valid_label_name(name))
        return fail(kv.first, std::string(field) + ": \"" + name + "\" is not a valid label name");
      std::string value;
      if (Status s = scalar(kv.second, std::string(field) + "." + name, value); !s) return s;
      out.push_back({name, value});
    }
    return Status::ok();
  }

  Status unknown(const YAML::Node& key, std::string_view where) const {
    const std::string& k = key.Scalar();
    for (std::string_view sd : kOtherSd)
      if (k == sd)
        return fail(key, "\"" + k +
                             "\" is not supported: llmon discovers targets from static_configs, "
                             "file_sd_configs and --scrape.discover");
    if (k == "oauth2" || k == "proxy_url" || k == "no_proxy" || k == "proxy_from_environment" ||
        k == "proxy_connect_header")
      return fail(key, "\"" + k + "\" is not supported by llmon's scraper");
    return fail(key, std::string(where) + ": unknown field \"" + k + "\"");
  }

  Status relabel(const YAML::Node& n, std::string_view field, std::vector<RelabelConfig>& out) {
    out.clear();
    if (n.IsNull()) return Status::ok();
    if (!n.IsSequence()) return fail(n, std::string(field) + ": expected a list of relabel rules");
    size_t idx = 0;
    for (const auto& item : n) {
      const std::string where = std::string(field) + "[" + std::to_string(idx++) + "]";
      if (!item.IsMap()) return fail(item, where + ": expected a mapping");
      RelabelConfig rc;
      for (const auto& kv : item) {
        const std::string& key = kv.first.Scalar();
        const YAML::Node& v = kv.second;
        Status s;
        if (key == "source_labels") {
          s = strings(v, where + ".source_labels", rc.source_labels);
          for (const auto& l : rc.source_labels)
            if (s && !model::is_valid_label_name(l))
              s = fail(v, where + ".source_labels: \"" + l + "\" is not a valid label name");
        } else if (key == "separator") {
          s = scalar(v, where + ".separator", rc.separator);
        } else if (key == "regex") {
          s = scalar(v, where + ".regex", rc.regex);
        } else if (key == "modulus") {
          s = uint(v, where + ".modulus", rc.modulus);
        } else if (key == "target_label") {
          s = scalar(v, where + ".target_label", rc.target_label);
        } else if (key == "replacement") {
          s = scalar(v, where + ".replacement", rc.replacement);
        } else if (key == "action") {
          std::string a;
          s = scalar(v, where + ".action", a);
          auto action = parse_relabel_action(a);
          if (s && !action) s = fail(v, where + ".action: unknown relabel action \"" + a + "\"");
          if (s) rc.action = *action;
        } else {
          s = unknown(kv.first, where);
        }
        if (!s) return s;
      }
      auto compiled = Relabeler::compile({rc});
      if (!compiled) {
        std::string msg = compiled.error();
        if (msg.rfind("rule 1: ", 0) == 0) msg.erase(0, 8);
        return fail(item, where + ": " + msg);
      }
      out.push_back(std::move(rc));
    }
    return Status::ok();
  }

  Status static_configs(const YAML::Node& n, std::vector<TargetGroup>& out) {
    if (n.IsNull()) return Status::ok();
    if (!n.IsSequence()) return fail(n, "static_configs: expected a list");
    size_t idx = 0;
    for (const auto& item : n) {
      const std::string where = "static_configs[" + std::to_string(idx) + "]";
      if (!item.IsMap()) return fail(item, where + ": expected a mapping");
      TargetGroup g;
      g.source = std::to_string(idx++);
      for (const auto& kv : item) {
        const std::string& key = kv.first.Scalar();
        Status s;
        if (key == "targets") {
          s = strings(kv.second, where + ".targets", g.targets);
          for (const auto& t : g.targets)
            if (s && (t.find('/') != std::string::npos || t.empty()))
              s = fail(kv.second, where + ".targets: \"" + t + "\" is not a valid hostname");
        } else if (key == "labels") {
          s = label_map(kv.second, where + ".labels", g.labels);
        } else {
          s = unknown(kv.first, where);
        }
        if (!s) return s;
      }
      out.push_back(std::move(g));
    }
    return Status::ok();
  }

  Status file_sd_configs(const YAML::Node& n, std::vector<FileSdConfig>& out) {
    if (n.IsNull()) return Status::ok();
    if (!n.IsSequence()) return fail(n, "file_sd_configs: expected a list");
    size_t idx = 0;
    for (const auto& item : n) {
      const std::string where = "file_sd_configs[" + std::to_string(idx++) + "]";
      if (!item.IsMap()) return fail(item, where + ": expected a mapping");
      FileSdConfig c;
      for (const auto& kv : item) {
        const std::string& key = kv.first.Scalar();
        Status s;
        if (key == "files") {
          s = strings(kv.second, where + ".files", c.files);
          for (const auto& f : c.files) {
            if (!s) break;
            // Prometheus: ^[^*]*(\*[^/]*)?\.(json|yml|yaml|JSON|YML|YAML)$
            const size_t star = f.find('*');
            const bool star_ok = star == std::string::npos ||
                                 (f.find('*', star + 1) == std::string::npos && f.find('/', star) == std::string::npos);
            const size_t dot = f.rfind('.');
            const std::string ext = dot == std::string::npos ? "" : f.substr(dot + 1);
            const bool ext_ok =
                ext == "json" || ext == "yml" || ext == "yaml" || ext == "JSON" || ext == "YML" || ext == "YAML";
            if (!star_ok || !ext_ok)
              s = fail(kv.second, where + ".files: path name \"" + f + "\" is not valid for file discovery");
          }
        } else if (key == "refresh_interval") {
          s = duration(kv.second, where + ".refresh_interval", c.refresh_interval_ms);
        } else {
          s = unknown(kv.first, where);
        }
        if (!s) return s;
      }
      if (c.files.empty())
        return fail(item, where + ": file service discovery config must contain at least one path name");
      out.push_back(std::move(c));
    }
    return Status::ok();
  }

  Status basic_auth(const YAML::Node& n, BasicAuth& out) {
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

  Status authorization(const YAML::Node& n, Authorization& out) {
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

  Status tls_config(const YAML::Node& n, TlsConfig& out) {
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

  Status job(const YAML::Node& n, const GlobalConfig& global, ScrapeConfig& c) {
    if (!n.IsMap()) return fail(n, "expected a mapping");
    c.origin = file_ + ":" + std::to_string(n.Mark().line + 1);
    bool has_interval = false, has_timeout = false;
    std::string bearer_token, bearer_token_file;
    YAML::Node timeout_node;
    for (const auto& kv : n) {
      const std::string& key = kv.first.Scalar();
      const YAML::Node& v = kv.second;
      Status s;
      if (key == "job_name") {
        s = scalar(v, "job_name", c.job_name);
        if (s) ctx_ += "(job \"" + c.job_name + "\") ";
      } else if (key == "scrape_interval") {
        has_interval = true;
        s = duration(v, "scrape_interval", c.scrape_interval_ms);
      } else if (key == "scrape_timeout") {
        has_timeout = true;
        timeout_node = v;
        s = duration(v, "scrape_timeout", c.scrape_timeout_ms);
      } else if (key == "metrics_path") {
        s = scalar(v, "metrics_path", c.metrics_path);
      } else if (key == "scheme") {
        s = scalar(v, "scheme", c.scheme);
        if (s && c.scheme != "http" && c.scheme != "https")
          s = fail(v, "scheme: \"" + c.scheme + "\": expected http or https");
      } else if (key == "params") {
        if (!v.IsMap()) s = fail(v, "params: expected a mapping of names to lists of values");
        for (const auto& p : v) {
          if (!s) break;
          std::vector<std::string> values;
          s = strings(p.second, "params." + p.first.Scalar(), values);
          c.params.emplace_back(p.first.Scalar(), std::move(values));
        }
      } else if (key == "honor_labels") {
        s = boolean(v, "honor_labels", c.honor_labels);
      } else if (key == "honor_timestamps") {
        s = boolean(v, "honor_timestamps", c.honor_timestamps);
      } else if (key == "basic_auth") {
        c.basic_auth.emplace();
        s = basic_auth(v, *c.basic_auth);
      } else if (key == "authorization") {
        c.authorization.emplace();
        s = authorization(v, *c.authorization);
      } else if (key == "bearer_token") {
        s = scalar(v, "bearer_token", bearer_token);
      } else if (key == "bearer_token_file") {
        s = scalar(v, "bearer_token_file", bearer_token_file);
      } else if (key == "tls_config") {
        s = tls_config(v, c.tls);
      } else if (key == "static_configs") {
        s = static_configs(v, c.static_configs);
      } else if (key == "file_sd_configs") {
        s = file_sd_configs(v, c.file_sd_configs);
      } else if (key == "relabel_configs") {
        s = relabel(v, "relabel_configs", c.relabel_configs);
      } else if (key == "metric_relabel_configs") {
        s = relabel(v, "metric_relabel_configs", c.metric_relabel_configs);
      } else if (key == "sample_limit") {
        s = uint(v, key, c.sample_limit);
      } else if (key == "target_limit") {
        s = uint(v, key, c.target_limit);
      } else if (key == "label_limit") {
        s = uint(v, key, c.label_limit);
      } else if (key == "label_name_length_limit") {
        s = uint(v, key, c.label_name_length_limit);
      } else if (key == "label_value_length_limit") {
        s = uint(v, key, c.label_value_length_limit);
      } else if (key == "body_size_limit") {
        auto b = v.IsScalar() ? parse_base2_bytes(v.Scalar()) : Expected<uint64_t>(Status::error("expected a size"));
        if (!b)
          s = fail(v, "body_size_limit: " + b.error());
        else
          c.body_size_limit = *b;
      } else if (key == "follow_redirects") {
        bool follow = true;
        s = boolean(v, key, follow);
        if (s && follow)
          s = fail(v, "follow_redirects: true is not supported (llmon's client does not follow redirects)");
      } else if (key == "enable_http2") {
        bool ignored = false;
        s = boolean(v, key, ignored);
      } else {
        s = unknown(kv.first, "scrape config");
      }
      if (!s) return s;
    }
    if (c.job_name.empty()) return fail(n, "job_name is empty");
    if (!has_interval) c.scrape_interval_ms = global.scrape_interval_ms;
    if (!has_timeout) {
      c.scrape_timeout_ms = std::min(global.scrape_timeout_ms, c.scrape_interval_ms);
    } else if (c.scrape_timeout_ms > c.scrape_interval_ms) {
      return fail(timeout_node,
                  "scrape timeout greater than scrape interval for scrape config with job name \"" + c.job_name + "\"");
    }
    if (c.scrape_interval_ms <= 0) return fail(n, "scrape_interval must be greater than 0");
    const int auth_kinds = (c.basic_auth ? 1 : 0) + (c.authorization ? 1 : 0) +
                           ((!bearer_token.empty() || !bearer_token_file.empty()) ? 1 : 0);
    if (auth_kinds > 1)
      return fail(n, "at most one of basic_auth, authorization and bearer_token(_file) must be configured");
    if (!bearer_token.empty() && !bearer_token_file.empty())
      return fail(n, "at most one of bearer_token & bearer_token_file must be configured");
    if (!bearer_token.empty() || !bearer_token_file.empty())
      c.authorization = Authorization{"Bearer", bearer_token, bearer_token_file};
    return Status::ok();
  }

  Expected<ScrapeFile> file(std::string_view text) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      std::string out(file_);
      if (!e.mark.is_null()) out += ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
      return Status::error(out + ": " + e.msg);
    }
    ScrapeFile f;
    if (root.IsNull()) return f;
    if (!root.IsMap()) return fail(root, "expected a mapping with global and scrape_configs");
    // global first: the jobs' defaults come from it wherever it is written.
    if (YAML::Node g = root["global"]) {
      if (!g.IsMap() && !g.IsNull()) return fail(g, "global: expected a mapping");
      bool has_timeout = false;
      for (const auto& kv : g) {
        const std::string& key = kv.first.Scalar();
        Status s;
        if (key == "scrape_interval") {
          s = duration(kv.second, "global.scrape_interval", f.global.scrape_interval_ms);
        } else if (key == "scrape_timeout") {
          has_timeout = true;
          s = duration(kv.second, "global.scrape_timeout", f.global.scrape_timeout_ms);
        } else if (key == "external_labels") {
          s = label_map(kv.second, "global.external_labels", f.global.external_labels);
        } else if (key == "evaluation_interval") {
          s = fail(kv.first,
                   "global.evaluation_interval: not read from the scrape config; llmon's rules take "
                   "--rules.evaluation-interval");
        } else {
          s = unknown(kv.first, "global");
        }
        if (!s) return s;
      }
      if (f.global.scrape_interval_ms <= 0) return fail(g, "global.scrape_interval must be greater than 0");
      if (!has_timeout) f.global.scrape_timeout_ms = std::min<int64_t>(10'000, f.global.scrape_interval_ms);
      if (f.global.scrape_timeout_ms > f.global.scrape_interval_ms)
        return fail(g, "global scrape timeout greater than scrape interval");
    }
    std::set<std::string> jobs;
    for (const auto& kv : root) {
      const std::string& key = kv.first.Scalar();
      if (key == "global") continue;
      if (key == "rule_files" || key == "alerting" || key == "remote_write" || key == "remote_read" ||
          key == "storage" || key == "tracing" || key == "scrape_config_files")
        return fail(kv.first, "\"" + key +
                                  "\" is not read from the scrape config (only global and scrape_configs are); "
                                  "see llmon help for the flag that sets it");
      if (key != "scrape_configs") return unknown(kv.first, "top level");
      const YAML::Node& list = kv.second;
      if (list.IsNull()) continue;
      if (!list.IsSequence()) return fail(list, "scrape_configs: expected a list");
      size_t idx = 0;
      for (const auto& item : list) {
        ctx_ = "scrape_configs[" + std::to_string(idx++) + "] ";
        ScrapeConfig c;
        if (Status s = job(item, f.global, c); !s) return s;
        if (!jobs.insert(c.job_name).second)
          return fail(item, "found multiple scrape configs with job name \"" + c.job_name + "\"");
        f.scrape_configs.push_back(std::move(c));
        ctx_.clear();
      }
    }
    return f;
  }

 private:
  std::string file_;
  std::string ctx_;  // "scrape_configs[1] (job \"x\") " while in a job
};

}  // namespace

Expected<ScrapeFile> parse_scrape_config(std::string_view yaml, std::string_view file) {
  Parser p(file);
  return p.file(yaml);
}

Expected<uint64_t> parse_base2_bytes(std::string_view s) {
  std::string_view t = base::trim(s);
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0) return Status::error("\"" + std::string(s) + "\": expected a size such as 10MB");
  auto n = base::parse_i64(t.substr(0, i));
  if (!n) return Status::error("\"" + std::string(s) + "\": size out of range");
  std::string unit(t.substr(i));
  if (unit.size() > 2 && unit[1] == 'i') unit.erase(1, 1);  // KiB -> KB
  static constexpr std::pair<std::string_view, int> kUnits[] = {{"", 0},   {"B", 0},  {"KB", 1}, {"MB", 2},
                                                                {"GB", 3}, {"TB", 4}, {"PB", 5}, {"EB", 6}};
  for (const auto& [name, shift] : kUnits) {
    if (unit != name) continue;
    const uint64_t v = static_cast<uint64_t>(*n);
    if (shift > 0 && v > (UINT64_MAX >> (10 * shift)))
      return Status::error("\"" + std::string(s) + "\": size out of range");
    return v << (10 * shift);
  }
  return Status::error("\"" + std::string(s) + "\": unknown unit \"" + std::string(t.substr(i)) +
                       "\" (B, KB, MB, GB, TB, PB, EB)");
}

}  // namespace llmon::scrape
