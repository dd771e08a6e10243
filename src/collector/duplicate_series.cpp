#include "collector/duplicate_series.h"

#include <algorithm>
#include <set>
#include <utility>

namespace llmon::collector {
namespace {

// The series' label set as one comparable string: name=value pairs sorted
// by name (parts of one family may list their label names in other orders).
std::string label_key(const model::Family& f, const model::Series& s) {
  std::vector<std::pair<std::string_view, std::string_view>> pairs;
  pairs.reserve(f.label_names.size());
  for (size_t i = 0; i < f.label_names.size() && i < s.label_values.size(); ++i)
    if (!s.label_values[i].empty()) pairs.emplace_back(f.label_names[i], s.label_values[i]);  // "" = no label
  std::sort(pairs.begin(), pairs.end());
  std::string key;
  for (const auto& [n, v] : pairs) {
    key.append(n);
    key += '\x01';
    key.append(v);
    key += '\x02';
  }
  return key;
}

bool in_span(const model::Snapshot& snap, uint32_t family, std::string_view collector) {
  for (const auto& span : snap.collectors)
    if (span.name == collector && family >= span.first_family && family < span.end_family) return true;
  return false;
}

}  // namespace

void drop_duplicate_series(model::Snapshot& snap, std::string_view textfile, std::vector<std::string>& dropped) {
  dropped.clear();
  const std::vector<uint32_t>& order = snap.order;
  for (size_t i = 0; i + 1 < order.size();) {
    size_t j = i + 1;
    while (j < order.size() && snap.families[order[j]].name == snap.families[order[i]].name) ++j;
    if (j - i > 1) {
      // Parts of one name: built-ins first (their emission order), then the textfile's.
      std::vector<uint32_t> parts(order.begin() + static_cast<std::ptrdiff_t>(i),
                                  order.begin() + static_cast<std::ptrdiff_t>(j));
      std::stable_partition(parts.begin(), parts.end(), [&](uint32_t idx) { return !in_span(snap, idx, textfile); });
      // Exposed in this order: the winner's HELP and TYPE head the family.
      std::copy(parts.begin(), parts.end(), snap.order.begin() + static_cast<std::ptrdiff_t>(i));
      const model::MetricType type = snap.families[parts[0]].type;
      std::set<std::string> seen;
      bool lost = false;
      for (size_t p = 0; p < parts.size(); ++p) {
        model::Family& f = snap.families[parts[p]];
        if (p > 0 && f.type != type && !f.series.empty()) {
          f.series.clear();
          lost = true;
          continue;
        }
        auto keep = std::remove_if(f.series.begin(), f.series.end(),
                                   [&](const model::Series& s) { return !seen.insert(label_key(f, s)).second; });
        if (keep != f.series.end()) {
          f.series.erase(keep, f.series.end());
          lost = true;
        }
      }
      if (lost) dropped.push_back(snap.families[order[i]].name);
    }
    i = j;
  }
}

}  // namespace llmon::collector
