#include "base/strings.h"

#include <cctype>

#include <charconv>

namespace llmon::base {

bool LineIterator::next(std::string_view& line) {
  if (rest_.empty()) return false;
  size_t nl = rest_.find('\n');
  if (nl == std::string_view::npos) {
    line = rest_;
    rest_ = {};
  } else {
    line = rest_.substr(0, nl);
    rest_.remove_prefix(nl + 1);
  }
  ++line_no_;
  return true;
}

void split_fields(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  size_t i = 0, n = line.size();
  while (i < n) {
    while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= n) break;
    size_t start = i;
    while (i < n && line[i] != ' ' && line[i] != '\t') ++i;
    out.push_back(line.substr(start, i - start));
  }
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  split_fields(line, out);
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, p - start));
    start = p + 1;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r' ||
                        s.back() == '\0'))
    s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

std::optional<uint64_t> parse_u64(std::string_view s) {
  uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> parse_i64(std::string_view s) {
  int64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  double v = 0;
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<bool> parse_bool_word(std::string_view s) {
  if (s == "true" || s == "1" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "0" || s == "no" || s == "off") return false;
  return std::nullopt;
}

std::string where(std::string_view file, int line, std::string_view message) {
  std::string out(file);
  out += ':';
  out += std::to_string(line);
  out += ": ";
  out += message;
  return out;
}

Expected<int64_t> parse_duration_ms(std::string_view s) {
  if (s.empty()) return Status::error("empty duration");
  if (s == "0") return int64_t{0};
  int64_t total = 0;
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (start == i) return Status::error("invalid duration \"" + std::string(s) + "\": expected a number");
    auto n = parse_i64(s.substr(start, i - start));
    size_t ustart = i;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    std::string_view unit = s.substr(ustart, i - ustart);
    int64_t mult = 0;
    if (unit == "ms") mult = 1;
    else if (unit == "s") mult = 1000;
    else if (unit == "m") mult = 60'000;
    else if (unit == "h") mult = 3'600'000;
    else if (unit == "d") mult = 86'400'000;
    else if (unit == "w") mult = 7 * 86'400'000LL;
    else if (unit == "y") mult = 365 * 86'400'000LL;
    else
      return Status::error("invalid duration \"" + std::string(s) + "\": unknown unit \"" + std::string(unit) +
                           "\" (use ms, s, m, h, d, w, y)");
    int64_t part = 0;
    if (!n || __builtin_mul_overflow(*n, mult, &part) || __builtin_add_overflow(total, part, &total))
      return Status::error("invalid duration \"" + std::string(s) + "\": out of range");
  }
  return total;
}

}  // namespace llmon::base
