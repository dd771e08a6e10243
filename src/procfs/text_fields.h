// FieldIter: walks the whitespace-separated fields of one line without
// allocating (the procfs parsers' replacement for Go's strings.Fields), and
// parse_number, Go's ParseFloat for kernel counters, parse_decimal_int, its ParseInt.
// Pure value type over a string_view; the text must outlive it.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

#include "base/status.h"
#include "base/strings.h"

namespace llmon::procfs {

// A decimal number as Go's strconv.ParseFloat reads it. Integers below 2^53
// (nearly every kernel counter) take a faster integer path that yields the
// same double.
inline std::optional<double> parse_number(std::string_view s) {
  if (auto u = base::parse_u64(s); u && *u < (uint64_t{1} << 53)) return static_cast<double>(*u);
  return base::parse_double(s);
}

// strconv.ParseUint(s, 16, bits): hex digits of either case, no "0x"
// prefix, no sign; nullopt when empty, malformed or wider than bits.
inline std::optional<uint64_t> parse_hex(std::string_view s, int bits = 64) {
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0 || v >> 60 != 0) return std::nullopt;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  if (bits < 64 && v >> bits != 0) return std::nullopt;
  return v;
}

// strconv.ParseInt(s, 10, 64) (and Atoi): optional sign, decimal digits only;
// nullopt when empty, malformed or out of range.
inline std::optional<int64_t> parse_decimal_int(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
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

// The "name value [...]" lines of files like /proc/meminfo and /proc/vmstat:
// calls fn(name, value, rest, line_no) -> Status for each non-blank line, rest
// holding the fields after the value. A name without a value, or a value
// that is not a number, is an error naming `file` and the line.
template <typename Fn>
Status for_each_named_value(std::string_view text, std::string_view file, Fn&& fn) {
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    FieldIter it(line);
    std::string_view name, value;
    if (!it.next(name)) continue;  // blank lines occur on some old kernels
    if (!it.next(value))
      return Status::error(base::where(file, lines.line_no(), "field \"" + std::string(name) + "\" has no value"));
    auto v = parse_number(value);
    if (!v)
      return Status::error(
          base::where(file, lines.line_no(), "invalid value \"" + std::string(value) + "\" for " + std::string(name)));
    if (Status s = fn(name, *v, it, lines.line_no()); !s) return s;
  }
  return Status::ok();
}

}  // namespace llmon::procfs
