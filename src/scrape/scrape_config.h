// The scrape configuration file (--scrape.config): Prometheus 2.42's
// `global` and `scrape_configs` sections, so users paste what they have.
// Pure: parse_scrape_config reads YAML text and never touches files (the
// credential and CA files it names are read when a scrape uses them).
//
// Accepted, with Prometheus's defaults and checks:
//   global: scrape_interval (1m), scrape_timeout (10s), external_labels
//     (recorded; llmon stores them on nothing, as Prometheus stores them
//     on nothing: they label remote_write and alerts).
//   scrape_configs[]: job_name (required, unique), scrape_interval,
//     scrape_timeout (must not exceed the interval; unset it is the
//     global one, cut to the interval), metrics_path (/metrics), scheme
//     (http, https), params, honor_labels (false), honor_timestamps (true),
//     basic_auth {username, password, password_file}, authorization
//     {type (Bearer), credentials, credentials_file}, bearer_token,
//     bearer_token_file, tls_config {ca_file, cert_file, key_file,
//     server_name, insecure_skip_verify}, static_configs [{targets,
//     labels}], file_sd_configs [{files, refresh_interval (5m)}],
//     relabel_configs, metric_relabel_configs (every action of relabel.h),
//     sample_limit, target_limit, label_limit, label_name_length_limit,
//     label_value_length_limit, body_size_limit ("10MB": KB/MB/... are
//     powers of 1024, as Prometheus's units.Base2Bytes), follow_redirects
//     (false only: llmon's client does not follow them), enable_http2
//     (accepted, HTTP/1.1 is used).
// Anything else (other sections such as rule_files or alerting, other
// service discoveries, oauth2, proxies) is refused with FILE:LINE:COLUMN
// and the key, never ignored. Errors read
//   "scrape.yml:12:5: scrape_configs[1] (job \"vllm\"): unknown field \"proxy_url\"".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/labels.h"
#include "scrape/relabel.h"

namespace llmon::scrape {

struct BasicAuth {
  std::string username;
  std::string password;
  std::string password_file;
};

struct Authorization {
  std::string type = "Bearer";
  std::string credentials;
  std::string credentials_file;
};

struct TlsConfig {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  std::string server_name;
  bool insecure_skip_verify = false;
};

// A group of targets with common labels: a static_configs entry or one
// entry of a file_sd file. `source` names where it came from, for
// /api/v1/targets and messages.
struct TargetGroup {
  std::vector<std::string> targets;  // host:port
  std::vector<model::Label> labels;
  std::string source;
};

struct FileSdConfig {
  std::vector<std::string> files;  // paths or globs (a '*' in the last element only)
  int64_t refresh_interval_ms = 5 * 60 * 1000;
};

struct ScrapeConfig {
  std::string job_name;
  int64_t scrape_interval_ms = 0;
  int64_t scrape_timeout_ms = 0;
  std::string metrics_path = "/metrics";
  std::string scheme = "http";
  std::vector<std::pair<std::string, std::vector<std::string>>> params;  // file order
  bool honor_labels = false;
  bool honor_timestamps = true;
  std::optional<BasicAuth> basic_auth;
  std::optional<Authorization> authorization;  // bearer_token(_file) become one
  TlsConfig tls;
  std::vector<TargetGroup> static_configs;
  std::vector<FileSdConfig> file_sd_configs;
  std::vector<RelabelConfig> relabel_configs;
  std::vector<RelabelConfig> metric_relabel_configs;
  uint64_t sample_limit = 0;  // 0: none (all limits)
  uint64_t target_limit = 0;
  uint64_t label_limit = 0;
  uint64_t label_name_length_limit = 0;
  uint64_t label_value_length_limit = 0;
  uint64_t body_size_limit = 0;  // bytes
  std::string origin;            // "FILE:LINE" of the entry
};

struct GlobalConfig {
  int64_t scrape_interval_ms = 60'000;
  int64_t scrape_timeout_ms = 10'000;
  std::vector<model::Label> external_labels;
};

struct ScrapeFile {
  GlobalConfig global;
  std::vector<ScrapeConfig> scrape_configs;
};

// Parses and validates the file's text; `file` names it in errors. Relabel
// rules are checked by compiling them (Relabeler::compile).
Expected<ScrapeFile> parse_scrape_config(std::string_view yaml, std::string_view file);

// "10MB" -> 10485760, as Prometheus's units.Base2Bytes (B KB MB GB TB PB EB,
// also KiB..., integer prefix); "0" -> 0.
Expected<uint64_t> parse_base2_bytes(std::string_view s);

}  // namespace llmon::scrape
