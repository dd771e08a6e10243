// Go's Regexp.Expand templates (regexp_expand.h).
#include "go/regexp_expand.h"

#include "go/strings.h"
#include "go/utf8.h"

namespace llmon::go {

namespace {

// The length of the longest run of letters, digits and '_' at the start of
// `s` (Go's extract(): unicode.IsLetter, unicode.IsDigit, '_').
size_t name_run(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const Rune r = decode_rune(s, i);
    if (!(r.r == '_' || is_letter(r.r) || is_digit(r.r))) break;
    i += static_cast<size_t>(r.width);
  }
  return i;
}

// Go's group number of a reference name: digits only, no leading zero,
// below 1e8; else -1 (a name).
int group_number(std::string_view name) {
  int num = 0;
  for (char c : name) {
    if (c < '0' || c > '9' || num >= 100000000) return -1;
    num = num * 10 + (c - '0');
  }
  if (name.size() > 1 && name[0] == '0') return -1;
  return num;
}

}  // namespace

RegexpTemplate::RegexpTemplate(std::string_view t, const std::map<std::string, int>& named_groups) {
  auto literal = [this](std::string_view s) {
    if (s.empty()) return;
    if (!segments_.empty() && segments_.back().group == -1) {
      segments_.back().text.append(s);
    } else {
      segments_.push_back({std::string(s), -1});
    }
  };
  while (!t.empty()) {
    const size_t dollar = t.find('$');
    if (dollar == std::string_view::npos) break;
    literal(t.substr(0, dollar));
    t.remove_prefix(dollar + 1);
    if (!t.empty() && t[0] == '$') {
      literal("$");
      t.remove_prefix(1);
      continue;
    }
    const bool brace = !t.empty() && t[0] == '{';
    const std::string_view rest = brace ? t.substr(1) : t;
    const size_t len = name_run(rest);
    if (len == 0 || (brace && (len >= rest.size() || rest[len] != '}'))) {
      literal("$");  // Malformed: the '$' is text; what follows is read again.
      continue;
    }
    const std::string_view name = rest.substr(0, len);
    int group = group_number(name);
    if (group < 0) {
      auto it = named_groups.find(std::string(name));
      group = it == named_groups.end() ? -2 : it->second;
    }
    segments_.push_back({std::string(), group});
    if (group > max_group_) max_group_ = group;
    t = rest.substr(len + (brace ? 1 : 0));
  }
  literal(t);
  if (max_group_ < 0) {
    for (const auto& s : segments_) literal_ += s.text;
  }
}

void RegexpTemplate::expand(const std::string_view* groups, int n, std::string& out) const {
  for (const auto& s : segments_) {
    if (s.group == -1) {
      out += s.text;
    } else if (s.group >= 0 && s.group < n && groups[s.group].data() != nullptr) {
      out.append(groups[s.group]);
    }
  }
}

}  // namespace llmon::go
