// strconv.FormatFloat as Go's fmt uses it for floats (go_fmt.h): the
// shortest form for %v, C's correctly rounded digits for %e/%f/%g with a
// precision (glibc and Go agree on them), and Go's own %x and %b forms.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "promql/go_strconv.h"
#include "rules/go_fmt.h"

namespace llmon::rules::go {

namespace {

constexpr char kLowerHex[] = "0123456789abcdefx";
constexpr char kUpperHex[] = "0123456789ABCDEFX";

// strconv's fmtX: -0x1.yyyyp±dd, the mantissa normalized (also for
// denormals), the shortest digits for prec < 0.
std::string format_hex_float(double v, char fmt, int prec) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  const bool neg = bits >> 63;
  int exp = static_cast<int>((bits >> 52) & 0x7FF);
  uint64_t mant = bits & ((uint64_t{1} << 52) - 1);
  if (exp == 0) {
    ++exp;
  } else {
    mant |= uint64_t{1} << 52;
  }
  exp -= 1023;
  if (mant == 0) exp = 0;
  mant <<= 60 - 52;
  while (mant != 0 && (mant & (uint64_t{1} << 60)) == 0) {
    mant <<= 1;
    --exp;
  }
  if (prec >= 0 && prec < 15) {
    const auto shift = static_cast<unsigned>(prec * 4);
    const uint64_t extra = (mant << shift) & ((uint64_t{1} << 60) - 1);
    mant >>= 60 - shift;
    if ((extra | (mant & 1)) > (uint64_t{1} << 59)) ++mant;
    mant <<= 60 - shift;
    if (mant & (uint64_t{1} << 61)) {
      mant >>= 1;
      ++exp;
    }
  }
  const char* hex = fmt == 'X' ? kUpperHex : kLowerHex;
  std::string out;
  if (neg) out += '-';
  out += '0';
  out += fmt;
  out += static_cast<char>('0' + ((mant >> 60) & 1));
  mant <<= 4;
  if (prec < 0 && mant != 0) {
    out += '.';
    while (mant != 0) {
      out += hex[(mant >> 60) & 15];
      mant <<= 4;
    }
  } else if (prec > 0) {
    out += '.';
    for (int i = 0; i < prec; ++i) {
      out += hex[(mant >> 60) & 15];
      mant <<= 4;
    }
  }
  out += fmt == 'X' ? 'P' : 'p';
  out += exp < 0 ? '-' : '+';
  if (exp < 0) exp = -exp;
  std::string digits = std::to_string(exp);
  if (digits.size() < 2) digits.insert(0, 1, '0');
  return out + digits;
}

}  // namespace

std::string format_float(double v, char fmt, int prec) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if ((fmt == 'g' || fmt == 'G') && prec < 0) {
    std::string s = promql::go::format_float(v);
    if (fmt == 'G')
      for (auto& c : s)
        if (c == 'e') c = 'E';
    return s;
  }
  if ((fmt == 'e' || fmt == 'E' || fmt == 'f') && prec < 0) {
    // The shortest digits that round-trip, as strconv does for prec -1;
    // to_chars writes the exponent with at least two digits, as Go does.
    char sbuf[400];
    auto r = std::to_chars(sbuf, sbuf + sizeof sbuf, v,
                           fmt == 'f' ? std::chars_format::fixed : std::chars_format::scientific);
    std::string s(sbuf, r.ptr);
    if (fmt == 'E')
      for (auto& c : s)
        if (c == 'e') c = 'E';
    return s;
  }
  char spec[16];
  char buf[512];
  switch (fmt) {
    case 'e':
    case 'E':
    case 'f':
    case 'g':
    case 'G': {
      if (prec < 0) prec = 17;  // only %v (above) asks for the shortest form
      std::snprintf(spec, sizeof spec, "%%.%d%c", prec, fmt);
      const int n = std::snprintf(nullptr, 0, spec, v);
      std::string out(static_cast<size_t>(n) + 1, '\0');
      std::snprintf(out.data(), out.size(), spec, v);
      out.pop_back();
      return out;
    }
    case 'x':
    case 'X':
      return format_hex_float(v, fmt, prec);
    case 'b': {  // strconv's fmtB: mantissa "p" binary exponent
      uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      const bool neg = bits >> 63;
      int exp = static_cast<int>((bits >> 52) & 0x7FF);
      uint64_t mant = bits & ((uint64_t{1} << 52) - 1);
      if (exp == 0) {
        ++exp;
      } else {
        mant |= uint64_t{1} << 52;
      }
      exp += -1023 - 52;
      std::snprintf(buf, sizeof buf, "%s%llup%s%d", neg ? "-" : "", static_cast<unsigned long long>(mant),
                    exp >= 0 ? "+" : "", exp);
      return buf;
    }
    default:
      return std::string("%") + fmt;  // not const char* + string&& (GCC 12 -Wrestrict)
  }
}

}  // namespace llmon::rules::go
