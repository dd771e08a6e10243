#include "storage/storage.h"

#include <algorithm>
#include <bit>

namespace llmon::storage {

void SeriesIterator::append_until(int64_t maxt_ms, std::vector<Sample>& out) {
  do {
    Sample s = at();
    if (s.t_ms > maxt_ms) return;
    out.push_back(s);
  } while (next());
}

namespace {

uint64_t fnv1a(uint64_t h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

Expected<Labels> Labels::make(std::vector<Label> pairs) {
  std::erase_if(pairs, [](const Label& l) { return l.value.empty(); });
  std::sort(pairs.begin(), pairs.end(), [](const Label& a, const Label& b) { return a.name < b.name; });
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].name.empty()) return Status::error("labels: empty label name");
    if (i > 0 && pairs[i].name == pairs[i - 1].name)
      return Status::error("labels: duplicate label name \"" + pairs[i].name + "\"");
    // 0xff never occurs in UTF-8, so it separates fields unambiguously.
    h = fnv1a(fnv1a(h, pairs[i].name), "\xff");
    h = fnv1a(fnv1a(h, pairs[i].value), "\xff");
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

}  // namespace llmon::storage
