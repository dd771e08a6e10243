// file_sd_configs: target groups read from JSON or YAML files, as
// Prometheus 2.42's discovery/file does. parse_file_sd is pure; FileSd
// expands the globs and rereads files whose size or mtime changed (checked
// by the caller's clock, at most once per poll) and every refresh_interval.
//
// A file holds a list of {targets: [host:port, ...], labels: {name: value}};
// each group gets __meta_filepath (the file's path). A file that fails to
// parse keeps its previous groups (Prometheus keeps them too) and its error
// is reported; a file that vanishes drops its groups.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "scrape/scrape_config.h"

namespace llmon::scrape {

// `path` is recorded as __meta_filepath and in group sources ("path:0").
// Extensions .json (any case) select JSON; others YAML (JSON is YAML, so
// only the error wording differs).
Expected<std::vector<TargetGroup>> parse_file_sd(std::string_view text, std::string_view path);

class FileSd {
 public:
  explicit FileSd(std::vector<FileSdConfig> configs) : configs_(std::move(configs)) {}

  // Rereads what changed; true when the groups changed. `now_ms` drives the
  // refresh interval.
  bool refresh(int64_t now_ms);
  std::vector<TargetGroup> groups() const;
  // One line per file that failed to read or parse, for /api/v1/targets
  // and the log.
  std::vector<std::string> errors() const;

 private:
  struct File {
    int64_t mtime_ns = -1;
    int64_t size = -1;
    std::vector<TargetGroup> groups;
    std::string error;
  };
  std::vector<FileSdConfig> configs_;
  std::map<std::string, File> files_;
  int64_t last_full_ms_ = INT64_MIN;
};

}  // namespace llmon::scrape
