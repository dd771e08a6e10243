#include "collector/device_filter.h"

namespace llmon::collector {

DeviceFilter::DeviceFilter(const std::string& exclude, const std::string& include) {
  try {
    if (!exclude.empty()) {
      exclude_ = std::regex(exclude, std::regex::ECMAScript | std::regex::optimize);
      has_exclude_ = true;
    }
    if (!include.empty()) {
      include_ = std::regex(include, std::regex::ECMAScript | std::regex::optimize);
      has_include_ = true;
    }
  } catch (const std::regex_error& e) {
    has_exclude_ = has_include_ = false;
    status_ = Status::error(std::string("invalid device regexp: ") + e.what());
  }
}

bool DeviceFilter::ignored(std::string_view name) {
  if (!has_exclude_ && !has_include_) return false;
  if (auto it = cache_.find(name); it != cache_.end()) return it->second;
  bool ignore = (has_exclude_ && std::regex_search(name.begin(), name.end(), exclude_)) ||
                (has_include_ && !std::regex_search(name.begin(), name.end(), include_));
  if (cache_.size() >= kMaxCached) cache_.clear();
  cache_.emplace(std::string(name), ignore);
  return ignore;
}

}  // namespace llmon::collector
