#include "remote/remote_config.h"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <set>

#include "base/hash.h"
#include "base/strings.h"
#include "model/metric.h"
#include "net/url.h"
#include "scrape/config_reader.h"

namespace llmon::remote {
namespace {

class Parser : public scrape::ConfigReader {
 public:
  using ConfigReader::ConfigReader;

  Status unknown(const YAML::Node& key, std::string_view where) const override {
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
                                                                       "send_exemplars",
                                                                       "send_native_histograms",
                                                                       "bearer_token",
                                                                       "bearer_token_file"};
    if (kKnownElsewhere.count(k))
      return fail(key, std::string(where) + ": \"" + k + "\" is not supported by llmon's remote_write");
    return scrape::ConfigReader::unknown(key, where);
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
      else if (key == "catch_up_factor")
        s = uint(kv.second, f, q.catch_up_factor);
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
    if (q.max_shards == 0) return fail(n, "queue_config.max_shards must be positive");
    if (q.min_shards > q.max_shards) return fail(n, "queue_config: min_shards is above max_shards");
    return Status::ok();
  }

  Status metadata(const YAML::Node& n, MetadataConfig& m) {
    if (!n.IsMap()) return fail(n, "metadata_config: expected a mapping");
    for (const auto& kv : n) {
      const std::string& key = kv.first.Scalar();
      Status s;
      if (key == "send")
        s = boolean(kv.second, "metadata_config.send", m.send);
      else if (key == "send_interval")
        s = duration(kv.second, "metadata_config.send_interval", m.send_interval_ms);
      else if (key == "max_samples_per_send")
        s = uint(kv.second, "metadata_config.max_samples_per_send", m.max_samples_per_send);
      else
        s = unknown(kv.first, "metadata_config");
      if (!s) return s;
    }
    if (m.send && m.send_interval_ms <= 0) return fail(n, "metadata_config.send_interval must be positive");
    if (m.max_samples_per_send == 0) return fail(n, "metadata_config.max_samples_per_send must be positive");
    return Status::ok();
  }

  Status entry(const YAML::Node& n, RemoteWriteConfig& c) {
    if (!n.IsMap()) return fail(n, "remote_write: expected a mapping");
    c.origin = file_name() + ":" + std::to_string(n.Mark().line + 1);
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
        s = metadata(v, c.metadata);
      } else if (key == "protobuf_message") {
        std::string m;
        s = scalar(v, "protobuf_message", m);
        if (s && m == "prometheus.WriteRequest")
          c.protocol = Protocol::kV1;
        else if (s && m == "io.prometheus.write.v2.Request")
          c.protocol = Protocol::kV2;
        else if (s)
          s = fail(v, "protobuf_message: \"" + m +
                          "\" is not one of prometheus.WriteRequest, io.prometheus.write.v2.Request");
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
    if (Status st = load(text, root); !st) return st;
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
