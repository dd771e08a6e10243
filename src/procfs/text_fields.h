// FieldIter: walks the whitespace-separated fields of one line without
// allocating (the procfs parsers' replacement for Go's strings.Fields), and
// parse_number, Go's ParseFloat for kernel counters.
// Pure value type over a string_view; the text must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/strings.h"

namespace llmon::procfs {

// A decimal number as Go's strconv.ParseFloat reads it. Integers below 2^53
// (nearly every kernel counter) take a faster integer path that yields the
// same double.
inline std::optional<double> parse_number(std::string_view s) {
  if (auto u = base::parse_u64(s); u && *u < (uint64_t{1} << 53)) return static_cast<double>(*u);
  return base::parse_double(s);
}

class FieldIter {
 public:
  explicit FieldIter(std::string_view line) : rest_(line) {}
  // Sets field to the next field; false when none is left.
  bool next(std::string_view& field) {
    size_t i = 0, n = rest_.size();
    while (i < n && is_space(rest_[i])) ++i;
    if (i == n) {
      rest_ = {};
      return false;
    }
    size_t start = i;
    while (i < n && !is_space(rest_[i])) ++i;
    field = rest_.substr(start, i - start);
    rest_.remove_prefix(i);
    return true;
  }
  // Counts the fields left without consuming them.
  size_t remaining() const {
    FieldIter copy = *this;
    std::string_view f;
    size_t n = 0;
    while (copy.next(f)) ++n;
    return n;
  }

  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

 private:
  std::string_view rest_;
};

}  // namespace llmon::procfs
