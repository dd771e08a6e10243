// Internal to notify_config*.cpp: yaml-cpp helpers that read one node into a
// plain value and report errors as "FILE:LINE:COL: path: what". Not a public
// interface; nothing here throws (callers wrap yaml-cpp calls in try/catch).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "notify/config/notify_config.h"

namespace llmon::notify::config_yaml {

struct Ctx {
  std::string file;
  std::vector<std::string>* warnings = nullptr;

  std::string at(const YAML::Node& n) const;  // "FILE:LINE:COL"
  Status error(const YAML::Node& n, const std::string& path, const std::string& msg) const;
  void warn(const YAML::Node& n, const std::string& path, const std::string& msg) const;
};

ConfigPos pos_of(const YAML::Node& n);

// Field sets for check_map: keys that are read, keys Alertmanager knows but
// llmon rejects (error "not supported by llmon"), and keys it ignores with a
// warning.
struct Fields {
  std::initializer_list<std::string_view> known;
  std::initializer_list<std::string_view> unsupported = {};
  std::initializer_list<std::string_view> ignored = {};
};

// `n` must be a mapping (or null); rejects duplicate and unknown keys, warns
// about ignored ones. Unsupported keys with an empty value (null, [] or {})
// are accepted.
Status check_map(const Ctx& c, const YAML::Node& n, const std::string& path, const Fields& f);

std::string join_path(const std::string& path, std::string_view key);
std::string index_path(const std::string& path, size_t i);

// Readers: absent or null leaves `out` unchanged and returns ok.
Status read_string(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key, std::string& out);
Status read_bool(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key, bool& out);
Status read_u64(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key, uint64_t& out);
Status read_duration(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key,
                     std::optional<int64_t>& out);
Status read_string_list(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key,
                        std::optional<std::vector<std::string>>& out);
Status read_string_map(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* key,
                       std::vector<std::pair<std::string, std::string>>& out);
// `match`, `match_re` and `matchers` style keys appended to `out`.
Status read_matchers(const Ctx& c, const YAML::Node& parent, const std::string& path, const char* match_key,
                     const char* match_re_key, const char* matchers_key, Matchers& out);

Status read_tls_config(const Ctx& c, const YAML::Node& n, const std::string& path, NotifierTlsConfig& out);
Status read_http_config(const Ctx& c, const YAML::Node& n, const std::string& path, NotifierHttpConfig& out);
Status read_receiver(const Ctx& c, const YAML::Node& n, const std::string& path, const GlobalConfig& global,
                     ReceiverConfig& out);
// net.SplitHostPort plus Alertmanager's "port cannot be empty".
Status split_smarthost(const std::string& s, std::string& host, std::string& port);

}  // namespace llmon::notify::config_yaml
