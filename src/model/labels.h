// A series identity: Label pairs and Labels, the sorted, validated set that
// names a series everywhere (store, PromQL, rules, API). Pure values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::model {

struct Label {
  std::string name;
  std::string value;
  bool operator==(const Label&) const = default;
};

// A series identity: label pairs sorted by name, names unique and non-empty,
// no empty values (an empty value means "label absent", as in Prometheus).
// Immutable once built; hash() is stable across runs (FNV-1a 64 over the
// pairs with separators), usable for sharding and on-disk hashes.
class Labels {
 public:
  Labels() = default;
  // Sorts; drops pairs with empty values; errors on an empty or duplicate name.
  static Expected<Labels> make(std::vector<Label> pairs);

  const std::vector<Label>& pairs() const { return pairs_; }
  size_t size() const { return pairs_.size(); }
  bool empty() const { return pairs_.empty(); }
  // The value of `name`, or "" when absent.
  std::string_view get(std::string_view name) const;
  uint64_t hash() const { return hash_; }
  // `{a="1", b="2"}` in Prometheus text form (values escaped); for messages.
  std::string to_string() const;

  bool operator==(const Labels& o) const { return hash_ == o.hash_ && pairs_ == o.pairs_; }
  // Orders lexicographically by (name, value) pairs, as Prometheus does.
  bool operator<(const Labels& o) const;

 private:
  std::vector<Label> pairs_;
  uint64_t hash_ = 0xcbf29ce484222325ull;  // FNV-1a offset basis: equals make({})
};

}  // namespace llmon::model
