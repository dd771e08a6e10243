// Go encoding/json compatible output; see json.h.
#include "go/json.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "base/civil_time.h"
#include "base/utf8.h"

namespace llmon::go::json {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_u_escape(std::string& out, unsigned code) {
  out += "\\u";
  out += kHex[(code >> 12) & 0xF];
  out += kHex[(code >> 8) & 0xF];
  out += kHex[(code >> 4) & 0xF];
  out += kHex[code & 0xF];
}

std::string date_time_seconds(const base::CivilTime& c) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02u:%02u:%02u", static_cast<long long>(c.year), c.month, c.day,
                c.hour, c.minute, c.second);
  return buf;
}

}  // namespace

void append_quoted(std::string& out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '<':
        case '>':
        case '&':
          append_u_escape(out, c);
          break;
        default:
          if (c < 0x20)
            append_u_escape(out, c);
          else
            out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const size_t n = base::utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    // U+2028 and U+2029 are E2 80 A8 / E2 80 A9.
    if (n == 3 && c == 0xE2 && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xA8) {
      append_u_escape(out, 0x2028 | (static_cast<unsigned char>(s[i + 2]) & 1));
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  out += '"';
}

std::string quoted(std::string_view s) {
  std::string out;
  append_quoted(out, s);
  return out;
}

void append_string_map(std::string& out, const std::vector<std::pair<std::string, std::string>>& pairs) {
  // Usually already sorted and unique; a map makes both true regardless.
  std::map<std::string_view, std::string_view> sorted;
  for (const auto& [k, v] : pairs) sorted[k] = v;
  out += '{';
  bool first = true;
  for (const auto& [k, v] : sorted) {
    if (!first) out += ',';
    first = false;
    append_quoted(out, k);
    out += ':';
    append_quoted(out, v);
  }
  out += '}';
}

std::string go_time(int64_t unix_ms) {
  const base::CivilTime c = base::civil_from_unix_ms(unix_ms);
  std::string out = date_time_seconds(c);
  if (c.millis != 0) {
    char frac[16];
    std::snprintf(frac, sizeof frac, ".%03u", c.millis);
    std::string f(frac);
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  out += 'Z';
  return out;
}

std::string strfmt_millis(int64_t unix_ms) {
  const base::CivilTime c = base::civil_from_unix_ms(unix_ms);
  char frac[16];
  std::snprintf(frac, sizeof frac, ".%03uZ", c.millis);
  return date_time_seconds(c) + frac;
}

}  // namespace llmon::go::json
