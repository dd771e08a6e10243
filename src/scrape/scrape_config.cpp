#include "scrape/scrape_config.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <set>

#include "base/strings.h"
#include "model/metric.h"
#include "scrape/config_reader.h"
#include "scrape/http_client_config.h"

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

class Parser : public ConfigReader {
 public:
  using ConfigReader::ConfigReader;

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

  Status unknown(const YAML::Node& key, std::string_view where) const override {
    const std::string& k = key.Scalar();
    for (std::string_view sd : kOtherSd)
      if (k == sd)
        return fail(key, "\"" + k +
                             "\" is not supported: llmon discovers targets from static_configs, "
                             "file_sd_configs and --scrape.discover");
    if (k == "oauth2" || k == "proxy_url" || k == "no_proxy" || k == "proxy_from_environment" ||
        k == "proxy_connect_header")
      return fail(key, "\"" + k + "\" is not supported by llmon's scraper");
    return ConfigReader::unknown(key, where);
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

  Status job(const YAML::Node& n, const GlobalConfig& global, ScrapeConfig& c) {
    if (!n.IsMap()) return fail(n, "expected a mapping");
    c.origin = file_name() + ":" + std::to_string(n.Mark().line + 1);
    bool has_interval = false, has_timeout = false;
    HttpClientKeys http_keys;
    HttpClientConfig http;
    YAML::Node timeout_node;
    for (const auto& kv : n) {
      const std::string& key = kv.first.Scalar();
      const YAML::Node& v = kv.second;
      Status s;
      bool http_key = false;
      if (s = http_keys.read(*this, key, v, http, http_key); http_key || !s) {
        // basic_auth, authorization, bearer_token(_file), tls_config, follow_redirects, enable_http2
      } else if (key == "job_name") {
        s = scalar(v, "job_name", c.job_name);
        if (s) context() += "(job \"" + c.job_name + "\") ";
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
    if (Status s = http_keys.finish(*this, n, http); !s) return s;
    c.basic_auth = std::move(http.basic_auth);
    c.authorization = std::move(http.authorization);
    c.tls = std::move(http.tls);
    return Status::ok();
  }

  Expected<ScrapeFile> file(std::string_view text) {
    YAML::Node root;
    if (Status st = load(text, root); !st) return st;
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
        context() = "scrape_configs[" + std::to_string(idx++) + "] ";
        ScrapeConfig c;
        if (Status s = job(item, f.global, c); !s) return s;
        if (!jobs.insert(c.job_name).second)
          return fail(item, "found multiple scrape configs with job name \"" + c.job_name + "\"");
        f.scrape_configs.push_back(std::move(c));
        context().clear();
      }
    }
    return f;
  }
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
