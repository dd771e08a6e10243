// Go string unquoting (strconv.h): one strconv.UnquoteChar, under
// strconv.Unquote (text/template) and Prometheus's strutil.Unquote (PromQL).
// Follows strconv/quote.go of Go 1.19 and util/strutil/quote.go.
#include "go/strconv.h"

namespace llmon::go {

namespace {

int hex_val(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool unquote_char(std::string_view s, size_t& i, char quote, std::string& out, int32_t* rune, InvalidUtf8 invalid) {
  if (i >= s.size()) return false;
  const char c = s[i];
  if (c == quote && (quote == '\'' || quote == '"')) return false;
  if (static_cast<unsigned char>(c) >= 0x80) {
    Rune r = decode_rune(s, i);
    if (invalid == InvalidUtf8::kKeep)
      out.append(s.substr(i, static_cast<size_t>(r.width)));
    else
      append_utf8(out, r.r);
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
      append_utf8(out, static_cast<int32_t>(v));
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

Expected<std::string> unquote_prometheus(std::string_view s) {
  const Status bad = Status::error("invalid syntax");
  if (s.size() < 2 || s.front() != s.back()) return bad;
  const char q = s.front();
  std::string_view body = s.substr(1, s.size() - 2);
  if (q == '`') {
    if (body.find('`') != std::string_view::npos) return bad;
    return std::string(body);
  }
  if (q != '"' && q != '\'') return bad;
  if (body.find('\n') != std::string_view::npos) return bad;
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size();)
    if (!unquote_char(body, i, q, out, nullptr, InvalidUtf8::kKeep)) return bad;
  return out;
}

}  // namespace llmon::go
