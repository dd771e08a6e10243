#include "model/labels.h"

#include <algorithm>

#include "base/hash.h"

namespace llmon::model {

Expected<Labels> Labels::make(std::vector<Label> pairs) {
  std::erase_if(pairs, [](const Label& l) { return l.value.empty(); });
  std::sort(pairs.begin(), pairs.end(), [](const Label& a, const Label& b) { return a.name < b.name; });
  uint64_t h = base::kFnv1aOffset;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].name.empty()) return Status::error("labels: empty label name");
    if (i > 0 && pairs[i].name == pairs[i - 1].name)
      return Status::error("labels: duplicate label name \"" + pairs[i].name + "\"");
    h = base::fnv1a_field(base::fnv1a_field(h, pairs[i].name), pairs[i].value);
  }
  Labels out;
  out.pairs_ = std::move(pairs);
  out.hash_ = h;
  return out;
}

std::string_view Labels::get(std::string_view name) const {
  auto it = std::lower_bound(pairs_.begin(), pairs_.end(), name,
                             [](const Label& l, std::string_view n) { return l.name < n; });
  return it != pairs_.end() && it->name == name ? std::string_view(it->value) : std::string_view();
}

std::string Labels::to_string() const {
  std::string out = "{";
  for (size_t i = 0; i < pairs_.size(); ++i) {
    if (i) out += ", ";
    out += pairs_[i].name;
    out += "=\"";
    for (char c : pairs_[i].value) {
      if (c == '\\' || c == '"') {
        out += '\\';
        out += c;
      } else if (c == '\n') {
        out += "\\n";
      } else {
        out += c;
      }
    }
    out += '"';
  }
  return out + "}";
}

bool Labels::operator<(const Labels& o) const {
  size_t n = std::min(pairs_.size(), o.pairs_.size());
  for (size_t i = 0; i < n; ++i) {
    if (pairs_[i].name != o.pairs_[i].name) return pairs_[i].name < o.pairs_[i].name;
    if (pairs_[i].value != o.pairs_[i].value) return pairs_[i].value < o.pairs_[i].value;
  }
  return pairs_.size() < o.pairs_.size();
}

}  // namespace llmon::model
