// The head's series index: Labels <-> SeriesRef, postings (sorted SeriesRef
// lists) per label pair, label name/value listings and matcher evaluation.
// In memory only; the on-disk block index (next session) will be written from
// it. Not thread-safe: the Head guards it with its lock.
//
// Matchers follow Prometheus: a series without label `n` has `n` = "", so a
// matcher that matches the empty string also selects series lacking the label
// (`{n=""}`, `{n!="x"}`, `{n=~"x|"}`). Re/Nre use RE2 (Go's regexp
// syntax, e.g. `(?i)`), fully anchored as ^(?:re)$ like PromQL.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "storage/storage.h"

namespace llmon::tsdb {

using model::Labels;
using model::Matcher;
using storage::SeriesRef;
using Postings = std::vector<SeriesRef>;  // sorted ascending, unique

class Index {
 public:
  // The ref of `labels`, or 0 if absent.
  SeriesRef find(const Labels& labels) const;
  // Adds a series; `ref` must be greater than every ref added before (refs are
  // handed out in increasing order, so postings stay sorted by appending).
  void add(SeriesRef ref, Labels labels);
  // Removes series (any order; unknown refs are ignored).
  void remove(const std::vector<SeriesRef>& refs);

  // The labels of `ref`, or nullptr.
  const Labels* labels(SeriesRef ref) const;
  size_t num_series() const { return by_ref_.size(); }
  const Postings& all() const { return all_; }
  // Postings of name=value (empty if none).
  const Postings& postings(std::string_view name, std::string_view value) const;

  // Sorted unique names; sorted values of `name`.
  std::vector<std::string> label_names() const;
  std::vector<std::string> label_values(std::string_view name) const;

  // Series matching all matchers (sorted by ref). Errors: empty list, empty
  // matcher name, invalid regex.
  Expected<Postings> select(const std::vector<Matcher>& matchers) const;

  // Approximate heap bytes (labels, hash map, postings), for memory accounting.
  size_t bytes() const { return bytes_; }

 private:
  struct Less {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a < b; }
  };
  using ValueMap = std::map<std::string, Postings, Less>;

  Expected<Postings> select_one(const Matcher& m) const;

  std::unordered_map<SeriesRef, Labels> by_ref_;
  // Keyed by Labels::hash(); several refs on a hash collision.
  std::unordered_map<uint64_t, std::vector<SeriesRef>> by_hash_;
  std::map<std::string, ValueMap, Less> postings_;
  Postings all_;
  size_t bytes_ = 0;
};

// Set operations on sorted postings.
Postings intersect(const Postings& a, const Postings& b);
Postings merge(const std::vector<const Postings*>& lists);
Postings subtract(const Postings& a, const Postings& b);

}  // namespace llmon::tsdb
