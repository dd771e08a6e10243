// Go strconv parsing (go_parse.h). Follows strconv/atof.go, atoi.go and
// quote.go of Go 1.19.
#include "rules/go_parse.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "promql/go_strconv.h"

namespace llmon::rules::go {

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
  return Status::error("strconv." + std::string(fn) + ": parsing " + promql::go::quote(s) + ": invalid syntax");
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
    return Status::error("strconv.ParseFloat: parsing " + promql::go::quote(s) + ": value out of range");
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

Rune decode_rune(std::string_view s, size_t i) {
  auto r = promql::go::decode_rune(s, i);
  return Rune{r.r, r.width};
}

void append_rune(std::string& out, int32_t r) {
  promql::go::append_utf8(out, r);
}

namespace {

int hex_val(char c) {
  if (is_digit(c)) return c - '0';
  if (lower(c) >= 'a' && lower(c) <= 'f') return lower(c) - 'a' + 10;
  return -1;
}

bool valid_rune(int64_t r) {
  return r >= 0 && r <= 0x10FFFF && !(r >= 0xD800 && r <= 0xDFFF);
}

}  // namespace

bool unquote_char(std::string_view s, size_t& i, char quote, std::string& out, int32_t* rune) {
  if (i >= s.size()) return false;
  const char c = s[i];
  if (c == quote && (quote == '\'' || quote == '"')) return false;
  if (static_cast<unsigned char>(c) >= 0x80) {
    Rune r = decode_rune(s, i);
    append_rune(out, r.r);
    if (rune) *rune = r.r;
    i += static_cast<size_t>(r.width);
    return true;
  }
  if (c != '\\') {
    out += c;
    if (rune) *rune = static_cast<unsigned char>(c);
    ++i;
    return true;
  }
  if (i + 1 >= s.size()) return false;
  const char e = s[i + 1];
  i += 2;
  int32_t value = 0;
  switch (e) {
    case 'a':
      value = '\a';
      break;
    case 'b':
      value = '\b';
      break;
    case 'f':
      value = '\f';
      break;
    case 'n':
      value = '\n';
      break;
    case 'r':
      value = '\r';
      break;
    case 't':
      value = '\t';
      break;
    case 'v':
      value = '\v';
      break;
    case 'x':
    case 'u':
    case 'U': {
      const size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
      if (i + n > s.size()) return false;
      int64_t v = 0;
      for (size_t k = 0; k < n; ++k) {
        const int d = hex_val(s[i + k]);
        if (d < 0) return false;
        v = v * 16 + d;
      }
      i += n;
      if (e == 'x') {  // a single byte
        out += static_cast<char>(v);
        if (rune) *rune = static_cast<int32_t>(v);
        return true;
      }
      if (!valid_rune(v)) return false;
      append_rune(out, static_cast<int32_t>(v));
      if (rune) *rune = static_cast<int32_t>(v);
      return true;
    }
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7': {
      int v = e - '0';
      if (i + 2 > s.size()) return false;
      for (int k = 0; k < 2; ++k) {
        const char d = s[i + static_cast<size_t>(k)];
        if (d < '0' || d > '7') return false;
        v = v * 8 + (d - '0');
      }
      if (v > 255) return false;
      i += 2;
      out += static_cast<char>(v);
      if (rune) *rune = v;
      return true;
    }
    case '\\':
      value = '\\';
      break;
    case '\'':
    case '"':
      if (e != quote) return false;
      value = e;
      break;
    default:
      return false;
  }
  out += static_cast<char>(value);
  if (rune) *rune = value;
  return true;
}

Expected<std::string> unquote(std::string_view s) {
  const Status invalid = Status::error("invalid syntax");
  if (s.size() < 2) return invalid;
  const char quote = s[0];
  if (quote != s.back()) return invalid;
  s = s.substr(1, s.size() - 2);
  if (quote == '`') {
    if (s.find('`') != std::string_view::npos) return invalid;
    std::string out;
    for (char c : s)
      if (c != '\r') out += c;
    return out;
  }
  if (quote != '"' && quote != '\'') return invalid;
  if (s.find('\n') != std::string_view::npos) return invalid;
  std::string out;
  size_t i = 0;
  int runes = 0;
  while (i < s.size()) {
    if (!unquote_char(s, i, quote, out)) return invalid;
    ++runes;
    if (quote == '\'' && runes > 1) return invalid;
  }
  if (quote == '\'' && runes != 1) return invalid;
  return out;
}

}  // namespace llmon::rules::go
