// Go string library functions (go_strings.h).
#include "go/strings.h"

#include <locale.h>
#include <wctype.h>

#include <cstdio>

#include "base/byte_escaper.h"
#include "go/strconv.h"

namespace llmon::go {

namespace {

// The C.UTF-8 locale for wide-character classes and case mapping; created
// once, never modified (nullptr when unavailable: ASCII only).
locale_t utf8_locale() {
  static const locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return loc;
}

bool ascii_letter(int32_t r) {
  return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z');
}

// strings.Map(f, s): invalid UTF-8 bytes become U+FFFD.
template <typename F>
std::string map_runes(std::string_view s, F f) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const Rune r = decode_rune(s, i);
    append_utf8(out, f(r.r));
    i += static_cast<size_t>(r.width);
  }
  return out;
}

bool is_ascii(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

// strings.Title's isSeparator.
bool is_separator(int32_t r) {
  if (r <= 0x7F) {
    if ((r >= '0' && r <= '9') || ascii_letter(r) || r == '_') return false;
    return true;
  }
  if (is_letter(r) || is_digit(r)) return false;
  return is_space(r);
}

}  // namespace

bool is_letter(int32_t r) {
  if (r < 0x80) return ascii_letter(r);
  const locale_t loc = utf8_locale();
  // glibc's "alpha" class also holds the decimal digits of other scripts,
  // so is_letter(r) || is_digit(r) matches Go's letter-or-digit test.
  return loc && iswalpha_l(static_cast<wint_t>(r), loc);
}

bool is_digit(int32_t r) {
  if (r < 0x80) return r >= '0' && r <= '9';
  return false;  // other scripts' digits: see is_letter
}

bool is_space(int32_t r) {
  switch (r) {
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case ' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return r >= 0x2000 && r <= 0x200A;
  }
}

int32_t to_upper(int32_t r) {
  if (r < 0x80) return (r >= 'a' && r <= 'z') ? r - 'a' + 'A' : r;
  const locale_t loc = utf8_locale();
  return loc ? static_cast<int32_t>(towupper_l(static_cast<wint_t>(r), loc)) : r;
}

int32_t to_lower(int32_t r) {
  if (r < 0x80) return (r >= 'A' && r <= 'Z') ? r - 'A' + 'a' : r;
  const locale_t loc = utf8_locale();
  return loc ? static_cast<int32_t>(towlower_l(static_cast<wint_t>(r), loc)) : r;
}

int32_t to_title(int32_t r) {
  // The title-case digraphs differ from upper case; everything else maps
  // to upper case.
  if (r >= 0x1C4 && r <= 0x1C6) return 0x1C5;
  if (r >= 0x1C7 && r <= 0x1C9) return 0x1C8;
  if (r >= 0x1CA && r <= 0x1CC) return 0x1CB;
  if (r >= 0x1F1 && r <= 0x1F3) return 0x1F2;
  return to_upper(r);
}

std::string title(std::string_view s) {
  int32_t prev = ' ';
  return map_runes(s, [&prev](int32_t r) {
    const int32_t out = is_separator(prev) ? to_title(r) : r;
    prev = r;
    return out;
  });
}

std::string upper(std::string_view s) {
  if (is_ascii(s)) {
    std::string out(s);
    for (auto& c : out)
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return out;
  }
  return map_runes(s, to_upper);
}

std::string lower(std::string_view s) {
  if (is_ascii(s)) {
    std::string out(s);
    for (auto& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
  }
  return map_runes(s, to_lower);
}

std::string html_escape(std::string_view s) {
  static constexpr base::ByteEscaper kHtml{{'\0', "\xEF\xBF\xBD"}, {'"', "&#34;"}, {'\'', "&#39;"},
                                           {'&', "&amp;"},         {'<', "&lt;"},  {'>', "&gt;"}};
  return kHtml(s);
}

std::string js_escape(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '\\':
          out += "\\\\";
          break;
        case '\'':
          out += "\\'";
          break;
        case '"':
          out += "\\\"";
          break;
        case '<':
          out += "\\u003C";
          break;
        case '>':
          out += "\\u003E";
          break;
        case '&':
          out += "\\u0026";
          break;
        case '=':
          out += "\\u003D";
          break;
        default:
          if (c < ' ') {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    const Rune r = decode_rune(s, i);
    if (is_print(r.r)) {
      out.append(s.substr(i, static_cast<size_t>(r.width)));
    } else {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(r.r));
      out += buf;
    }
    i += static_cast<size_t>(r.width);
  }
  return out;
}

std::string query_escape(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ascii_letter(c) || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~') {
      out += ch;
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

std::optional<std::pair<std::string, std::string>> split_host_port(std::string_view hostport) {
  const size_t i = hostport.rfind(':');
  if (i == std::string_view::npos) return std::nullopt;
  size_t j = 0, k = 0;
  std::string_view host;
  if (hostport[0] == '[') {
    const size_t end = hostport.find(']');
    if (end == std::string_view::npos) return std::nullopt;
    if (end + 1 == hostport.size()) return std::nullopt;
    if (end + 1 != i) return std::nullopt;
    host = hostport.substr(1, end - 1);
    j = 1;
    k = end + 1;
  } else {
    host = hostport.substr(0, i);
    if (host.find(':') != std::string_view::npos) return std::nullopt;
  }
  if (hostport.substr(j).find('[') != std::string_view::npos) return std::nullopt;
  if (hostport.substr(k).find(']') != std::string_view::npos) return std::nullopt;
  return std::make_pair(std::string(host), std::string(hostport.substr(i + 1)));
}

std::string join_host_port(std::string_view host, std::string_view port) {
  // Built with += : GCC 12's -Wrestrict misfires on const char* + std::string&&.
  std::string out;
  bool v6 = host.find(':') != std::string_view::npos;
  if (v6) out += '[';
  out += host;
  if (v6) out += ']';
  out += ':';
  out += port;
  return out;
}

namespace {

bool parse_ipv4(std::string_view s) {
  for (int part = 0; part < 4; ++part) {
    if (s.empty()) return false;
    if (part > 0) {
      if (s[0] != '.') return false;
      s.remove_prefix(1);
    }
    size_t c = 0;
    int n = 0;
    while (c < s.size() && s[c] >= '0' && s[c] <= '9' && n < 0xFFFFFF) n = n * 10 + (s[c++] - '0');
    if (c == 0 || n > 0xFF) return false;
    if (c > 1 && s[0] == '0') return false;
    s.remove_prefix(c);
  }
  return s.empty();
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool parse_ipv6(std::string_view s) {
  int ellipsis = -1;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return true;
  }
  int i = 0;
  while (i < 16) {
    size_t c = 0;
    int n = 0;
    while (c < s.size() && hex_digit(s[c]) >= 0 && n < 0xFFFFFF) n = n * 16 + hex_digit(s[c++]);
    if (c == 0 || n > 0xFFFF) return false;
    if (c < s.size() && s[c] == '.') {
      if (ellipsis < 0 && i != 12) return false;
      if (i + 4 > 16) return false;
      if (!parse_ipv4(s)) return false;
      s = {};
      i += 4;
      break;
    }
    i += 2;
    s.remove_prefix(c);
    if (s.empty()) break;
    if (s[0] != ':' || s.size() == 1) return false;
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) return false;
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return false;
  if (i < 16) return ellipsis >= 0;
  return ellipsis < 0;
}

}  // namespace

bool parse_ip(std::string_view s) {
  for (char c : s) {
    if (c == '.') return parse_ipv4(s);
    if (c == ':') return parse_ipv6(s);
  }
  return false;
}

}  // namespace llmon::go
