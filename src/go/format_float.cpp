// strconv.FormatFloat as Go's fmt uses it for floats (strconv.h): the
// shortest form for %v, C's correctly rounded digits for %e/%f/%g with a
// precision (glibc and Go agree on them), and Go's own %x and %b forms.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "go/strconv.h"

namespace llmon::go {

namespace {

constexpr char kLowerHex[] = "0123456789abcdefx";
constexpr char kUpperHex[] = "0123456789ABCDEFX";

// A float64's sign, biased exponent (1 for denormals) and 53-bit mantissa
// with the implicit bit, as strconv's FormatFloat splits it.
struct Parts {
  bool neg;
  int exp;
  uint64_t mant;
};
Parts split(double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  Parts p{(bits >> 63) != 0, static_cast<int>((bits >> 52) & 0x7FF), bits & ((uint64_t{1} << 52) - 1)};
  if (p.exp == 0)
    ++p.exp;
  else
    p.mant |= uint64_t{1} << 52;
  return p;
}

// strconv's fmtX: -0x1.yyyyp±dd, the mantissa normalized (also for
// denormals), the shortest digits for prec < 0.
std::string format_hex_float(double v, char fmt, int prec) {
  const Parts parts = split(v);
  const bool neg = parts.neg;
  int exp = parts.exp - 1023;
  uint64_t mant = parts.mant;
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

std::string format_float(double v, char fmt, int prec) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if ((fmt == 'g' || fmt == 'G') && prec < 0) {
    std::string s = format_float(v);
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
      const Parts p = split(v);
      const int exp = p.exp - 1023 - 52;
      std::snprintf(buf, sizeof buf, "%s%llup%s%d", p.neg ? "-" : "", static_cast<unsigned long long>(p.mant),
                    exp >= 0 ? "+" : "", exp);
      return buf;
    }
    default:
      return std::string("%") + fmt;  // not const char* + string&& (GCC 12 -Wrestrict)
  }
}

}  // namespace llmon::go
