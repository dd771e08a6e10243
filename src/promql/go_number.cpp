// Go number parsing and printing as PromQL uses it (go_strconv.h).
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "promql/go_strconv.h"

namespace llmon::promql::go {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// strconv.ParseInt(s, 0, 64) for the unsigned, underscore-free texts the
// lexer produces.
bool parse_int_base0(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  int base = 10;
  size_t i = 0;
  if (s.size() >= 2 && s[0] == '0' && lower(s[1]) == 'x') {
    base = 16;
    i = 2;
  } else if (s.size() >= 2 && s[0] == '0' && lower(s[1]) == 'o') {
    base = 8;
    i = 2;
  } else if (s.size() >= 2 && s[0] == '0' && lower(s[1]) == 'b') {
    base = 2;
    i = 2;
  } else if (s[0] == '0') {
    base = 8;
    i = 1;
  }
  if (i == 2 && i == s.size()) return false;  // a bare "0x", "0o", "0b"
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    char c = lower(s[i]);
    int d = is_digit(c) ? c - '0' : (c >= 'a' && c <= 'z') ? c - 'a' + 10 : 99;
    if (d >= base) return false;
    if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - static_cast<uint64_t>(d)) /
                static_cast<uint64_t>(base))
      return false;  // out of range
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  out = static_cast<int64_t>(v);
  return true;
}

// Go's decimal float syntax: digits [. digits] [e [+-] digits], at least one
// mantissa digit. (Hex floats need a 'p' exponent, which the lexer never
// produces, so they are always invalid here.)
bool is_decimal_float(std::string_view s) {
  size_t i = 0, mant = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++mant;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++mant;
  }
  if (mant == 0) return false;
  if (i < s.size() && lower(s[i]) == 'e') {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++exp;
    if (exp == 0) return false;
  }
  return i == s.size();
}

Status float_error(std::string_view s, std::string_view what) {
  return Status::error("strconv.ParseFloat: parsing " + quote(s) + ": " + std::string(what));
}

}  // namespace

Expected<double> parse_number(std::string_view s) {
  int64_t n = 0;
  if (parse_int_base0(s, n)) return static_cast<double>(n);
  std::string_view body = s;
  bool neg = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (iequals(body, "inf") || iequals(body, "infinity"))
    return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  if (iequals(body, "nan")) return std::numeric_limits<double>::quiet_NaN();
  if (!is_decimal_float(body)) return float_error(s, "invalid syntax");
  double v = 0;
  auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ec == std::errc::result_out_of_range) {
    // Overflow is an error in Go; underflow rounds to zero or a subnormal.
    std::string copy(body);
    errno = 0;
    v = std::strtod(copy.c_str(), nullptr);
    if (std::isinf(v)) return float_error(s, "value out of range");
  } else if (ec != std::errc() || ptr != body.data() + body.size()) {
    return float_error(s, "invalid syntax");
  }
  return neg ? -v : v;
}

std::string format_float(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Shortest round-trip digits, as "d.ddde±XX".
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  bool neg = false;
  if (!sci.empty() && sci[0] == '-') {
    neg = true;
    sci.remove_prefix(1);
  }
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.') digits += c;
  int exp = std::atoi(std::string(sci.substr(e + 1)).c_str());
  std::string out = neg ? "-" : "";
  if (exp < -4 || exp >= 6) {  // %e, at least two exponent digits
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1);
    }
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += ebuf;
    return out;
  }
  int dp = exp + 1;  // digits before the decimal point
  int nd = static_cast<int>(digits.size());
  if (dp <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-dp), '0');
    out += digits;
  } else if (dp >= nd) {
    out += digits;
    out.append(static_cast<size_t>(dp - nd), '0');
  } else {
    out.append(digits, 0, static_cast<size_t>(dp));
    out += '.';
    out.append(digits, static_cast<size_t>(dp));
  }
  return out;
}

std::string format_float_fixed(double v, int prec) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (prec < 0) prec = 6;
  // At most 309 integer digits, a sign, a point and `prec` decimals.
  std::string out(static_cast<size_t>(prec) + 330, '\0');
  auto r = std::to_chars(out.data(), out.data() + out.size(), v, std::chars_format::fixed, prec);
  out.resize(static_cast<size_t>(r.ptr - out.data()));
  return out;
}

}  // namespace llmon::promql::go
