// MIME encoders; see email_mime.h. Specs: RFC 2045 (base64,
// quoted-printable), RFC 2047 (encoded-words), RFC 5322 (folding, dates,
// addresses).
#include "notify/email/email_mime.h"

#include <cctype>
#include <cstdio>
#include <ctime>

#include "base/utf8.h"

namespace llmon::notify {

namespace {

constexpr char kHex[] = "0123456789ABCDEF";
constexpr size_t kFoldColumns = 78;
// 48 base64 chars + "=?UTF-8?B??=" = 60 (RFC 2047 allows 75): with "Subject: " the
// first line stays within 78 columns too.
constexpr size_t kMaxWordBytes = 36;

bool is_atext(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9')) return true;
  return std::string_view("!#$%&'*+-/=?^_`{|}~").find(c) != std::string_view::npos;
}

bool valid_local_part(std::string_view s) {
  if (s.empty() || s.size() > 64 || s.front() == '.' || s.back() == '.') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      if (s[i + 1] == '.') return false;
    } else if (!is_atext(s[i])) {
      return false;
    }
  }
  return true;
}

bool valid_domain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  if (s.front() == '[') {
    if (s.size() < 3 || s.back() != ']') return false;
    for (char c : s.substr(1, s.size() - 2))
      if (!(std::isxdigit(static_cast<unsigned char>(c)) || c == '.' || c == ':' ||
            std::string_view("IPv6").find(c) != std::string_view::npos))
        return false;
    return true;
  }
  size_t label_len = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      if (label_len == 0) return false;
      label_len = 0;
      continue;
    }
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || (c == '-' && label_len > 0);
    if (!ok || ++label_len > 63) return false;
  }
  return label_len > 0;
}

std::string_view trim_ws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool needs_encoding(std::string_view v) {
  if (v.find("=?") != std::string_view::npos) return true;
  size_t word = 0;
  for (char c : v) {
    if (static_cast<unsigned char>(c) >= 0x80) return true;
    word = c == ' ' ? 0 : word + 1;
    if (word > kFoldColumns - 2) return true;
  }
  return false;
}

}  // namespace

std::string base64_body(std::string_view bytes) {
  std::string b = base64_encode(bytes);
  std::string out;
  for (size_t i = 0; i < b.size(); i += 76) {
    out.append(b, i, 76);
    out += "\r\n";
  }
  return out;
}

std::string quoted_printable_encode(std::string_view text) {
  std::string out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    bool has_break = nl != std::string_view::npos;
    std::string_view line = text.substr(pos, has_break ? nl - pos : std::string_view::npos);
    if (has_break && !line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!has_break && line.empty()) break;
    size_t col = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(line[i]);
      bool last = i + 1 == line.size();
      bool literal = (c >= 33 && c <= 126 && c != '=') || ((c == ' ' || c == '\t') && !last);
      std::string tok;
      if (literal) {
        tok = static_cast<char>(c);
      } else {
        tok = {'=', kHex[c >> 4], kHex[c & 15]};
      }
      // Keep room for the soft-break '=' unless this is the line's last token.
      size_t limit = last ? 76 : 75;
      if (col + tok.size() > limit) {
        out += "=\r\n";
        col = 0;
      }
      out += tok;
      col += tok.size();
    }
    if (!has_break) break;
    out += "\r\n";
    pos = nl + 1;
  }
  return out;
}

std::string header_text(std::string_view s) {
  std::string v = base::to_valid_utf8(s);
  std::string out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(v[i]);
    if (c < 0x20 || c == 0x7f) {
      out += ' ';
    } else if (c == 0xc2 && i + 1 < v.size() && static_cast<unsigned char>(v[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(v[i + 1]) <= 0x9f) {
      out += ' ';  // C1 control (U+0080..U+009F)
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string encode_words(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t end = i;
    while (end < text.size()) {
      size_t n = base::utf8_sequence_length(text, end);
      if (n == 0) n = 1;  // callers pass valid UTF-8; never split mid-byte anyway
      if (end + n - i > kMaxWordBytes) break;
      end += n;
    }
    if (!out.empty()) out += ' ';
    out += "=?UTF-8?B?" + base64_encode(text.substr(i, end - i)) + "?=";
    i = end;
  }
  return out;
}

std::string header_line(std::string_view name, std::string_view value, bool structured) {
  std::string v = header_text(value);
  if (!structured && needs_encoding(v)) v = encode_words(v);
  std::string out;
  std::string line = std::string(name) + ":";
  size_t pos = 0;
  while (pos <= v.size()) {
    size_t sp = v.find(' ', pos);
    std::string_view word = std::string_view(v).substr(pos, sp == std::string::npos ? std::string::npos : sp - pos);
    if (!word.empty() && line.size() + 1 + word.size() > kFoldColumns && line.size() > name.size() + 1) {
      out += line + "\r\n";
      line.clear();
    }
    line += ' ';
    line += word;
    if (sp == std::string::npos) break;
    pos = sp + 1;
  }
  return out + line + "\r\n";
}

std::string rfc5322_date(int64_t unix_ms) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  time_t t = static_cast<time_t>(unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday], tm.tm_mday,
                kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

Expected<MailAddress> parse_mail_address(std::string_view s) {
  std::string_view in = trim_ws(s);
  MailAddress a;
  std::string_view addr = in;
  if (size_t lt = in.rfind('<'); lt != std::string_view::npos) {
    if (in.back() != '>') return Status::error("address \"" + header_text(in) + "\": text after '>'");
    addr = in.substr(lt + 1, in.size() - lt - 2);
    std::string_view name = trim_ws(in.substr(0, lt));
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
      name = name.substr(1, name.size() - 2);
      for (size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '\\' && i + 1 < name.size()) ++i;
        a.display_name += name[i];
      }
    } else {
      a.display_name = std::string(name);
    }
    for (char c : a.display_name)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        return Status::error("address \"" + header_text(in) + "\": control character in the display name");
  }
  size_t at = addr.rfind('@');
  if (at == std::string_view::npos) return Status::error("address \"" + header_text(in) + "\": missing '@'");
  if (!valid_local_part(addr.substr(0, at)))
    return Status::error("address \"" + header_text(in) + "\": invalid local part");
  if (!valid_domain(addr.substr(at + 1))) return Status::error("address \"" + header_text(in) + "\": invalid domain");
  a.address = std::string(addr);
  return a;
}

Expected<std::vector<MailAddress>> parse_address_list(std::string_view s) {
  std::vector<MailAddress> out;
  bool quoted = false, angle = false;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    char c = i < s.size() ? s[i] : ',';
    if (quoted) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        quoted = false;
      if (i < s.size()) continue;
      return Status::error("address list \"" + header_text(s) + "\": unterminated quote");
    }
    if (c == '"')
      quoted = true;
    else if (c == '<')
      angle = true;
    else if (c == '>')
      angle = false;
    else if (c == ',' && !angle) {
      auto a = parse_mail_address(s.substr(start, i - start));
      if (!a) return a.status();
      out.push_back(std::move(*a));
      start = i + 1;
    }
  }
  return out;
}

std::string format_mail_address(const MailAddress& a) {
  if (a.display_name.empty()) return a.address;
  std::string name = header_text(a.display_name);
  bool ascii = true, plain = true;
  for (char c : name) {
    if (static_cast<unsigned char>(c) >= 0x80) ascii = false;
    if (!is_atext(c) && c != ' ') plain = false;
  }
  if (!ascii || name.find("=?") != std::string::npos) return encode_words(name) + " <" + a.address + ">";
  if (plain) return name + " <" + a.address + ">";
  std::string q = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\" <" + a.address + ">";
}

}  // namespace llmon::notify
