#include "ingest/target_labels.h"

#include <algorithm>
#include <string>

namespace llmon::ingest {
namespace {

bool has_label(const std::vector<model::Label>& pairs, std::string_view name) {
  return std::any_of(pairs.begin(), pairs.end(),
                     [&](const model::Label& l) { return l.name == name && !l.value.empty(); });
}

}  // namespace

void apply_target_labels(std::vector<model::Label>& pairs, const std::vector<model::Label>& target, bool honor_labels) {
  if (honor_labels) {
    // Present means present here, even with an empty value: Prometheus
    // checks lset.Has, so a page's instance="" (the Pushgateway's) keeps the
    // target's instance off and then drops out as empty.
    auto present = [&](std::string_view name) {
      return std::any_of(pairs.begin(), pairs.end(), [&](const model::Label& l) { return l.name == name; });
    };
    for (const model::Label& t : target) {
      if (t.value.empty() || present(t.name)) continue;
      std::erase_if(pairs, [&](const model::Label& l) { return l.name == t.name; });
      pairs.push_back(t);
    }
    return;
  }
  std::vector<model::Label> conflicts;
  for (const model::Label& t : target) {
    if (t.value.empty()) continue;
    for (const model::Label& l : pairs)
      if (l.name == t.name && !l.value.empty()) conflicts.push_back(l);
  }
  const std::vector<model::Label> exposed = conflicts.empty() ? std::vector<model::Label>() : pairs;
  std::erase_if(pairs, [&](const model::Label& l) {
    return std::any_of(target.begin(), target.end(),
                       [&](const model::Label& t) { return t.name == l.name && !t.value.empty(); });
  });
  for (const model::Label& t : target)
    if (!t.value.empty()) pairs.push_back(t);
  std::stable_sort(conflicts.begin(), conflicts.end(),
                   [](const model::Label& a, const model::Label& b) { return a.name.size() < b.name.size(); });
  for (size_t i = 0; i < conflicts.size(); ++i) {
    std::string name = conflicts[i].name;
    for (;;) {
      name = "exported_" + name;
      bool taken = has_label(exposed, name) || has_label(target, name);
      for (size_t j = 0; j < i && !taken; ++j) taken = conflicts[j].name == name;
      if (!taken) break;
    }
    conflicts[i].name = std::move(name);
  }
  for (auto& c : conflicts) pairs.push_back(std::move(c));
}

}  // namespace llmon::ingest
