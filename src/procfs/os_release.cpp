#include "procfs/os_release.h"

#include "base/strings.h"
#include "base/utf8.h"

namespace llmon::procfs {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view trim_space(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Parses one non-blank, non-comment line into key and value; returns an error
// message ("" on success).
std::string parse_line(std::string_view ln, std::string_view& key, std::string& value) {
  size_t eq = ln.find('=');
  if (eq == std::string_view::npos) return "missing =";
  key = trim_space(ln.substr(0, eq));
  std::string_view v = trim_space(ln.substr(eq + 1));
  if (base::starts_with(key, "export ")) key.remove_prefix(7);
  if (key.empty()) return "empty key";
  const char k0 = key[0];
  if (k0 < 'A' || (k0 > 'Z' && k0 < 'a' && k0 != '_') || k0 > 'z')
    return std::string("key must start with [A-Za-z_] but found '") + k0 + "'";

  enum class Mode { kNormal, kDouble, kSingle, kEscape } mode = Mode::kNormal;
  value.clear();
  size_t last_sig = 0;  // length up to the last significant char (for trailing comments)
  for (char ch : v) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if (u < 32) {
      static constexpr char kHex[] = "0123456789abcdef";
      return std::string("0x") + kHex[u >> 4] + kHex[u & 15] + " is an invalid value character";
    }
    if (u > 127) {  // part of a multi-byte character: passed through
      if (mode == Mode::kEscape) return "multibyte characters disallowed in escape sequences";
      value += ch;
      last_sig = value.size();
      continue;
    }
    switch (mode) {
      case Mode::kNormal:
        if (ch == '"') {
          mode = Mode::kDouble;
        } else if (ch == '\'') {
          mode = Mode::kSingle;
        } else if (ch == '#') {
          value.resize(last_sig);
          return "";
        } else {
          value += ch;
          if (ch != ' ' && ch != '\t') last_sig = value.size();
        }
        break;
      case Mode::kDouble:
        if (ch == '"') {
          mode = Mode::kNormal;
        } else if (ch == '\\') {
          mode = Mode::kEscape;
        } else {
          value += ch;
          last_sig = value.size();
        }
        break;
      case Mode::kEscape:
        switch (ch) {
          case '"':
            value += '"';
            break;
          case '\\':
            value += '\\';
            break;
          case 'n':
            value += '\n';
            break;
          case 't':
            value += '\t';
            break;
          default:
            return std::string("invalid escape sequence: ") + ch;
        }
        last_sig = value.size();
        mode = Mode::kDouble;
        break;
      case Mode::kSingle:
        if (ch == '\'') {
          mode = Mode::kNormal;
        } else {
          value += ch;
          last_sig = value.size();
        }
        break;
    }
  }
  switch (mode) {
    case Mode::kNormal:
      return "";
    case Mode::kDouble:
      return "unmatched \"";
    case Mode::kSingle:
      return "unmatched '";
    case Mode::kEscape:
      return "incomplete escape sequence";
  }
  return "";
}

}  // namespace

Expected<OsRelease> parse_os_release(std::string_view text, std::string_view file) {
  OsRelease r;
  struct Field {
    std::string_view key;
    std::string OsRelease::*member;
  };
  static constexpr Field kFields[] = {
      {"NAME", &OsRelease::name},
      {"ID", &OsRelease::id},
      {"ID_LIKE", &OsRelease::id_like},
      {"PRETTY_NAME", &OsRelease::pretty_name},
      {"VARIANT", &OsRelease::variant},
      {"VARIANT_ID", &OsRelease::variant_id},
      {"VERSION", &OsRelease::version},
      {"VERSION_ID", &OsRelease::version_id},
      {"VERSION_CODENAME", &OsRelease::version_codename},
      {"BUILD_ID", &OsRelease::build_id},
      {"IMAGE_ID", &OsRelease::image_id},
      {"IMAGE_VERSION", &OsRelease::image_version},
  };
  base::LineIterator it(text);
  std::string_view line;
  std::string value;
  while (it.next(line)) {
    std::string_view ln = trim_space(line);
    if (ln.empty() || ln.front() == '#') continue;
    std::string_view key;
    std::string err = parse_line(ln, key, value);
    if (!err.empty()) return Status::error(base::where(file, it.line_no(), err));
    for (const auto& f : kFields) {
      if (f.key == key) {
        r.*(f.member) = base::to_valid_utf8(value);
        break;
      }
    }
  }
  return r;
}

double os_version_number(std::string_view v) {
  size_t i = 0;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i;
  if (i == 0) return 0;
  if (i < v.size() && v[i] == '.') {
    ++i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i;
  }
  std::string_view num = v.substr(0, i);
  if (num.back() == '.') num.remove_suffix(1);  // "12." parses as 12 in Go too
  return base::parse_double(num).value_or(0);
}

}  // namespace llmon::procfs
