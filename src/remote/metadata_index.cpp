#include "remote/metadata_index.h"

#include <algorithm>
#include <array>

namespace llmon::remote {

int metric_type_number(std::string_view type) {
  static constexpr std::array<std::pair<std::string_view, int>, 7> kTypes = {{{"counter", 1},
                                                                              {"gauge", 2},
                                                                              {"histogram", 3},
                                                                              {"gaugehistogram", 4},
                                                                              {"summary", 5},
                                                                              {"info", 6},
                                                                              {"stateset", 7}}};
  for (const auto& [name, n] : kTypes)
    if (name == type) return n;
  return 0;
}

MetadataIndex::MetadataIndex(std::vector<WriteMetadata> entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const WriteMetadata& a, const WriteMetadata& b) { return a.family < b.family; });
  for (auto& e : entries)
    if (!e.family.empty() && (entries_.empty() || entries_.back().family != e.family)) entries_.push_back(std::move(e));
  for (size_t i = 0; i < entries_.size(); ++i) by_name_.emplace(entries_[i].family, i);
}

const WriteMetadata* MetadataIndex::find(std::string_view metric_name) const {
  if (auto it = by_name_.find(metric_name); it != by_name_.end()) return &entries_[it->second];
  for (std::string_view suffix : {"_bucket", "_sum", "_count", "_total", "_created", "_info"}) {
    if (metric_name.size() > suffix.size() && metric_name.ends_with(suffix)) {
      auto it = by_name_.find(metric_name.substr(0, metric_name.size() - suffix.size()));
      if (it != by_name_.end()) return &entries_[it->second];
    }
  }
  return nullptr;
}

}  // namespace llmon::remote
