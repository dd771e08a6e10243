// Alertmanager's classic matcher parser (pkg/labels/parse.go, 0.25) and
// Matcher/Matchers behaviour (pkg/labels/matcher.go), rewritten.
#include "notify/routing/matchers.h"

#include <re2/re2.h>

#include <algorithm>

#include "base/utf8.h"
#include "go/strconv.h"

namespace llmon::notify {

namespace {

bool is_go_space(char c) {  // Go regexp's \s: [\t\n\f\r ]
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9');
}

// Go's `for _, r := range s` writes U+FFFD for each invalid byte; the classic
// parser re-encodes tokens that way before parsing them.
std::string go_runes_reencode(std::string_view s) {
  if (base::is_valid_utf8(s)) return std::string(s);
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const go::Rune r = go::decode_rune(s, i);
    go::append_utf8(out, r.r);
    i += static_cast<size_t>(r.width);
  }
  return out;
}

}  // namespace

std::string_view match_type_string(MatchType t) {
  switch (t) {
    case MatchType::kEqual:
      return "=";
    case MatchType::kNotEqual:
      return "!=";
    case MatchType::kRegexp:
      return "=~";
    case MatchType::kNotRegexp:
      return "!~";
  }
  return "=";
}

Expected<Matcher> Matcher::make(MatchType type, std::string name, std::string value) {
  Matcher m;
  m.type_ = type;
  m.name_ = std::move(name);
  m.value_ = std::move(value);
  if (m.is_regex()) {
    RE2::Options opts;
    opts.set_log_errors(false);
    auto re = std::make_shared<const re2::RE2>("^(?:" + m.value_ + ")$", opts);
    if (!re->ok())
      return Status::error("invalid regular expression " + go::quote(m.value_) + " in matcher " + m.name_ +
                           std::string(match_type_string(type)) + ": " + re->error());
    m.re_ = std::move(re);
  }
  return m;
}

bool Matcher::matches(std::string_view v) const {
  switch (type_) {
    case MatchType::kEqual:
      return v == value_;
    case MatchType::kNotEqual:
      return v != value_;
    case MatchType::kRegexp:
      return RE2::FullMatch(v, *re_);
    case MatchType::kNotRegexp:
      return !RE2::FullMatch(v, *re_);
  }
  return false;
}

std::string Matcher::to_string() const {
  std::string out = name_;
  out += match_type_string(type_);
  out += '"';
  for (char c : value_) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '"')
      out += "\\\"";
    else
      out += c;
  }
  out += '"';
  return out;
}

bool matches_all(const Matchers& ms, const LabelPairs& labels) {
  for (const auto& m : ms) {
    std::string_view v;
    for (const auto& [k, val] : labels)
      if (k == m.name()) {
        v = val;
        break;
      }
    if (!m.matches(v)) return false;
  }
  return true;
}

std::string matchers_to_string(const Matchers& ms) {
  std::string out = "{";
  for (size_t i = 0; i < ms.size(); ++i) {
    if (i > 0) out += ',';
    out += ms[i].to_string();
  }
  out += '}';
  return out;
}

void sort_matchers(Matchers& ms) {
  std::stable_sort(ms.begin(), ms.end(), [](const Matcher& a, const Matcher& b) {
    if (a.name() != b.name()) return a.name() < b.name();
    if (a.value() != b.value()) return a.value() < b.value();
    return static_cast<int>(a.type()) < static_cast<int>(b.type());
  });
}

Expected<Matcher> parse_matcher(std::string_view s) {
  auto bad = [&] { return Status::error("bad matcher format: " + std::string(s)); };
  size_t i = 0;
  while (i < s.size() && is_go_space(s[i])) ++i;
  // Alertmanager's classic syntax also allows ':' in names.
  size_t name_start = i;
  if (i >= s.size() || !(is_name_start(s[i]) || s[i] == ':')) return bad();
  while (i < s.size() && (is_name_char(s[i]) || s[i] == ':')) ++i;
  std::string name(s.substr(name_start, i - name_start));
  while (i < s.size() && is_go_space(s[i])) ++i;
  MatchType type;
  std::string_view rest = s.substr(i);
  if (rest.substr(0, 2) == "=~") {
    type = MatchType::kRegexp;
    i += 2;
  } else if (rest.substr(0, 1) == "=") {
    type = MatchType::kEqual;
    i += 1;
  } else if (rest.substr(0, 2) == "!=") {
    type = MatchType::kNotEqual;
    i += 2;
  } else if (rest.substr(0, 2) == "!~") {
    type = MatchType::kNotRegexp;
    i += 2;
  } else {
    return bad();
  }
  while (i < s.size() && is_go_space(s[i])) ++i;
  size_t end = s.size();
  while (end > i && is_go_space(s[end - 1])) --end;
  const std::string_view raw_full = s.substr(i, end - i);
  std::string_view raw = raw_full;

  bool expect_trailing_quote = false;
  if (!raw.empty() && raw[0] == '"') {
    raw.remove_prefix(1);
    expect_trailing_quote = true;
  }
  if (!base::is_valid_utf8(raw)) return Status::error("matcher value not valid UTF-8: " + std::string(raw_full));
  auto unescaped_quote = [&] {
    return Status::error("matcher value contains unescaped double quote: " + std::string(raw_full));
  };
  std::string value;
  bool escaped = false;
  for (size_t k = 0; k < raw.size(); ++k) {
    char c = raw[k];
    if (escaped) {
      escaped = false;
      if (c == 'n') {
        value += '\n';
      } else if (c == '"' || c == '\\') {
        value += c;
      } else {  // a spurious escape: the backslash is literal
        value += '\\';
        value += c;
      }
      continue;
    }
    if (c == '\\') {
      if (k + 1 < raw.size()) {
        escaped = true;
        continue;
      }
      value += '\\';  // a backslash as the last byte is literal
    } else if (c == '"') {
      if (!expect_trailing_quote || k + 1 < raw.size()) return unescaped_quote();
      expect_trailing_quote = false;
    } else {
      value += c;
    }
  }
  if (expect_trailing_quote) return unescaped_quote();
  return Matcher::make(type, std::move(name), std::move(value));
}

Expected<Matchers> parse_matchers(std::string_view input) {
  std::string_view s = input;
  size_t base_offset = 0;
  if (!s.empty() && s.front() == '{') {
    s.remove_prefix(1);
    base_offset = 1;
  }
  if (!s.empty() && s.back() == '}') s.remove_suffix(1);

  struct Token {
    size_t pos;  // byte offset in input
    std::string_view text;
  };
  std::vector<Token> tokens;
  bool inside_quotes = false;
  bool escaped = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ',' && !inside_quotes) {
      tokens.push_back({base_offset + start, s.substr(start, i - start)});
      start = i + 1;
      continue;
    }
    if (c == '"') {
      if (!escaped)
        inside_quotes = !inside_quotes;
      else
        escaped = false;
    } else if (c == '\\') {
      escaped = !escaped;
    } else {
      escaped = false;
    }
  }
  {
    std::string_view last = s.substr(start);
    size_t lead = 0;
    while (lead < last.size() && (is_go_space(last[lead]) || last[lead] == '\v')) ++lead;
    size_t end = last.size();
    while (end > lead && (is_go_space(last[end - 1]) || last[end - 1] == '\v')) --end;
    if (end > lead) tokens.push_back({base_offset + start + lead, last.substr(lead, end - lead)});
  }

  Matchers out;
  for (const auto& t : tokens) {
    auto m = parse_matcher(go_runes_reencode(t.text));
    if (!m) return Status::error("position " + std::to_string(t.pos + 1) + ": " + m.error());
    out.push_back(std::move(*m));
  }
  return out;
}

}  // namespace llmon::notify
