// Go strconv number parsing (strconv.h). Follows strconv/atof.go and atoi.go
// of Go 1.19.
#include <charconv>
#include <cmath>
#include <limits>

#include "go/strconv.h"

namespace llmon::go {

namespace {

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// strconv.underscoreOK.
bool underscore_ok(std::string_view s) {
  char saw = '^';
  size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  bool hex = false;
  if (s.size() >= 2 && s[0] == '0' && (lower(s[1]) == 'b' || lower(s[1]) == 'o' || lower(s[1]) == 'x')) {
    i = 2;
    saw = '0';
    hex = lower(s[1]) == 'x';
  }
  for (; i < s.size(); ++i) {
    if (is_digit(s[i]) || (hex && lower(s[i]) >= 'a' && lower(s[i]) <= 'f')) {
      saw = '0';
      continue;
    }
    if (s[i] == '_') {
      if (saw != '0') return false;
      saw = '_';
      continue;
    }
    if (saw == '_') return false;
    saw = '!';
  }
  return saw != '_';
}

size_t common_prefix_ignore_case(std::string_view s, std::string_view prefix) {
  size_t n = 0;
  while (n < s.size() && n < prefix.size() && lower(s[n]) == prefix[n]) ++n;
  return n;
}

// strconv.special: inf, infinity, nan with an optional sign (not for nan).
bool special(std::string_view s, double& f) {
  if (s.empty()) return false;
  double sign = 1;
  size_t nsign = 0;
  std::string_view rest = s;
  if (s[0] == '+' || s[0] == '-') {
    sign = s[0] == '-' ? -1 : 1;
    nsign = 1;
    rest.remove_prefix(1);
  } else if (lower(s[0]) == 'n') {
    if (common_prefix_ignore_case(s, "nan") == 3 && s.size() == 3) {
      f = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    return false;
  } else if (lower(s[0]) != 'i') {
    return false;
  }
  size_t n = common_prefix_ignore_case(rest, "infinity");
  if (n > 3 && n < 8) n = 3;
  if ((n == 3 || n == 8) && nsign + n == s.size()) {
    f = sign * std::numeric_limits<double>::infinity();
    return true;
  }
  return false;
}

Status syntax_error(std::string_view fn, std::string_view s) {
  return Status::error("strconv." + std::string(fn) + ": parsing " + go::quote(s) + ": invalid syntax");
}

}  // namespace

Expected<double> parse_float(std::string_view s) {
  double special_value = 0;
  if (special(s, special_value)) return special_value;
  // readFloat: [sign] (digits [. digits] | 0x hexdigits [. hexdigits]) [exp].
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    neg = s[i] == '-';
    ++i;
  }
  bool hex = false;
  if (i + 2 < s.size() && s[i] == '0' && lower(s[i + 1]) == 'x') {
    hex = true;
    i += 2;
  }
  const char exp_char = hex ? 'p' : 'e';
  std::string mant;  // digits and '.', underscores removed
  bool saw_dot = false, saw_digits = false, underscores = false, nonzero = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '_') {
      underscores = true;
      continue;
    }
    if (c == '.') {
      if (saw_dot) break;
      saw_dot = true;
      mant += c;
      continue;
    }
    const bool digit = is_digit(c) || (hex && lower(c) >= 'a' && lower(c) <= 'f');
    if (!digit) break;
    saw_digits = true;
    if (c != '0') nonzero = true;
    mant += c;
  }
  if (!saw_digits) return syntax_error("ParseFloat", s);
  std::string exp_text;
  if (i < s.size() && lower(s[i]) == exp_char) {
    ++i;
    if (i >= s.size()) return syntax_error("ParseFloat", s);
    if (s[i] == '+' || s[i] == '-') exp_text += s[i++];
    if (i >= s.size() || !is_digit(s[i])) return syntax_error("ParseFloat", s);
    for (; i < s.size() && (is_digit(s[i]) || s[i] == '_'); ++i) {
      if (s[i] == '_') {
        underscores = true;
        continue;
      }
      exp_text += s[i];
    }
  } else if (hex) {
    return syntax_error("ParseFloat", s);
  }
  if (i != s.size()) return syntax_error("ParseFloat", s);
  if (underscores && !underscore_ok(s)) return syntax_error("ParseFloat", s);
  if (!nonzero) return neg ? -0.0 : 0.0;
  std::string text = mant;
  if (!exp_text.empty()) text += (hex ? "p" : "e") + exp_text;
  double v = 0;
  auto res = std::from_chars(text.data(), text.data() + text.size(), v,
                             hex ? std::chars_format::hex : std::chars_format::general);
  if (res.ec == std::errc::result_out_of_range) {
    // Overflow or underflow: decide by the magnitude of the leading digit.
    long long e = 0;
    for (char c : exp_text)
      if (is_digit(c) && e < 100000000) e = e * 10 + (c - '0');
    if (!exp_text.empty() && exp_text[0] == '-') e = -e;
    // Place of the first nonzero digit relative to the point.
    const size_t nz = mant.find_first_not_of("0.");
    size_t dot = mant.find('.');
    if (dot == std::string::npos) dot = mant.size();
    const long long place =
        nz < dot ? static_cast<long long>(dot - nz) - 1 : static_cast<long long>(dot) - static_cast<long long>(nz);
    const long long mag = hex ? place * 4 + e : place + e;
    if (mag <= 0) return neg ? -0.0 : 0.0;
    return Status::error("strconv.ParseFloat: parsing " + go::quote(s) + ": value out of range");
  }
  if (res.ec != std::errc() || res.ptr != text.data() + text.size()) return syntax_error("ParseFloat", s);
  return neg ? -v : v;
}

std::optional<uint64_t> parse_uint(std::string_view s) {
  if (s.empty()) return std::nullopt;
  const std::string_view s0 = s;
  int base = 10;
  if (s[0] == '0') {
    if (s.size() >= 3 && lower(s[1]) == 'b') {
      base = 2;
      s.remove_prefix(2);
    } else if (s.size() >= 3 && lower(s[1]) == 'o') {
      base = 8;
      s.remove_prefix(2);
    } else if (s.size() >= 3 && lower(s[1]) == 'x') {
      base = 16;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
  }
  bool underscores = false;
  uint64_t n = 0;
  for (char c : s) {
    int d;
    if (c == '_') {
      underscores = true;
      continue;
    } else if (is_digit(c)) {
      d = c - '0';
    } else if (lower(c) >= 'a' && lower(c) <= 'z') {
      d = lower(c) - 'a' + 10;
    } else {
      return std::nullopt;
    }
    if (d >= base) return std::nullopt;
    if (n > (std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base))
      return std::nullopt;
    n = n * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  if (underscores && !underscore_ok(s0)) return std::nullopt;
  return n;
}

std::optional<int64_t> parse_int(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  auto u = parse_uint(s);
  if (!u) return std::nullopt;
  const uint64_t cutoff = uint64_t{1} << 63;
  if (!neg && *u >= cutoff) return std::nullopt;
  if (neg && *u > cutoff) return std::nullopt;
  return neg ? static_cast<int64_t>(0 - *u) : static_cast<int64_t>(*u);
}

Expected<double> parse_number(std::string_view s) {
  if (auto n = parse_int(s)) return static_cast<double>(*n);
  return parse_float(s);
}

}  // namespace llmon::go
