// DeviceFilter: node_exporter's include/exclude regexp pair for device names
// (collector/device_filter.go). A name is ignored when it matches the exclude
// pattern or fails to match a non-empty include pattern; both search anywhere
// in the name (Go's MatchString). Decisions are cached per name so the
// per-cycle path runs no regex for names seen before. One owner, not thread-safe.
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/status.h"

namespace llmon::collector {

class DeviceFilter {
 public:
  DeviceFilter() = default;
  // Empty patterns are "not set". An invalid pattern is reported by status()
  // and the filter then ignores nothing (flags are validated before this).
  DeviceFilter(const std::string& exclude, const std::string& include);

  bool ignored(std::string_view name);
  const Status& status() const { return status_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  static constexpr size_t kMaxCached = 4096;  // bounds memory with churning names (veths)

  bool has_exclude_ = false, has_include_ = false;
  std::regex exclude_, include_;
  Status status_;
  std::unordered_map<std::string, bool, Hash, std::equal_to<>> cache_;
};

}  // namespace llmon::collector
