// See label_functions.h. Semantics: Prometheus 2.42 promql/functions.go
// (funcLabelReplace, funcLabelJoin), Go's regexp.Regexp.Expand, and
// model/labels matchers.
#include "promql/label_functions.h"

#include <re2/re2.h>

#include <string>
#include <utility>

namespace llmon::promql {

namespace {

RE2::Options regex_options() {
  RE2::Options o;  // UTF-8, Perl-like syntax, leftmost-first: as Go's regexp.
  o.set_log_errors(false);
  return o;
}

std::shared_ptr<const RE2> compile_anchored(std::string_view regex) {
  std::string pattern = "^(?:";
  pattern.append(regex);
  pattern += ")$";
  return std::make_shared<const RE2>(pattern, regex_options());
}

// The length of the longest run of Unicode letters, decimal digits and '_'
// at the start of `s` (Go's extract() name rule: unicode.IsLetter,
// unicode.IsDigit, '_').
size_t name_run(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) break;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return i;
    i++;
  }
  if (i == s.size()) return i;
  // Non-ASCII: let RE2 classify the rest (Unicode tables).
  static const RE2 kNameRe("[\\pL\\p{Nd}_]+", regex_options());
  re2::StringPiece m;
  if (kNameRe.Match(s, i, s.size(), RE2::ANCHOR_START, &m, 1)) return i + m.size();
  return i;
}

// Go's Regexp.Expand template syntax, parsed once: after a '$', "$" is a
// literal '$'; otherwise a name or {name} (name as in name_run, non-empty,
// braces closed) refers to a group: a number (no leading zero, < 1e8) by
// index, anything else by name. Anything else: the '$' is literal.
template <typename Segment>
std::vector<Segment> parse_template(std::string_view t) {
  std::vector<Segment> out;
  auto literal = [&out](std::string_view s) {
    if (s.empty()) return;
    if (!out.empty() && out.back().kind == Segment::Kind::kLiteral) {
      out.back().text.append(s);
    } else {
      out.push_back({Segment::Kind::kLiteral, std::string(s), -1});
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
    std::string_view rest = brace ? t.substr(1) : t;
    const size_t len = name_run(rest);
    if (len == 0 || (brace && (len >= rest.size() || rest[len] != '}'))) {
      literal("$");  // Malformed: the '$' is kept as text.
      continue;
    }
    const std::string_view name = rest.substr(0, len);
    int num = 0;
    for (char c : name) {
      if (c < '0' || c > '9' || num >= 100000000) {
        num = -1;
        break;
      }
      num = num * 10 + (c - '0');
    }
    if (name[0] == '0' && name.size() > 1) num = -1;  // No leading zeros.
    if (num >= 0) {
      out.push_back({Segment::Kind::kIndex, std::string(), num});
    } else {
      out.push_back({Segment::Kind::kName, std::string(name), -1});
    }
    t = rest.substr(len + (brace ? 1 : 0));
  }
  literal(t);
  return out;
}

// Rebuilds `in` with dst set to `value` (removed when value is empty).
model::Labels with_label(const model::Labels& in, std::string_view dst, std::string value) {
  std::vector<model::Label> pairs;
  pairs.reserve(in.size() + 1);
  for (const auto& l : in.pairs()) {
    if (l.name != dst) pairs.push_back(l);
  }
  if (!value.empty()) pairs.push_back({std::string(dst), std::move(value)});
  auto out = model::Labels::make(std::move(pairs));
  // Cannot fail: names come from a valid label set plus a checked dst.
  return out ? std::move(*out) : in;
}

bool is_literal_regex(std::string_view re) {
  return re.find_first_of("\\.+*?()|[]{}^$") == std::string_view::npos;
}

}  // namespace

Expected<LabelReplacer> LabelReplacer::make(std::string_view dst, std::string_view replacement, std::string_view src,
                                            std::string_view regex) {
  auto re = compile_anchored(regex);
  if (!re->ok()) {
    return Status::error("invalid regular expression in label_replace(): " + std::string(regex));
  }
  if (!is_valid_label_name(dst)) {
    return Status::error("invalid destination label name in label_replace(): " + std::string(dst));
  }
  LabelReplacer r;
  r.re_ = std::move(re);
  r.dst_ = dst;
  r.src_ = src;
  r.template_ = parse_template<Segment>(replacement);
  return r;
}

model::Labels LabelReplacer::apply(const model::Labels& in) const {
  const std::string_view value = in.get(src_);
  const int ngroups = 1 + re_->NumberOfCapturingGroups();
  std::vector<re2::StringPiece> groups(static_cast<size_t>(ngroups));
  if (!re_->Match(value, 0, value.size(), RE2::UNANCHORED, groups.data(), ngroups)) return in;

  std::string out;
  const auto& names = re_->NamedCapturingGroups();
  for (const auto& seg : template_) {
    switch (seg.kind) {
      case Segment::Kind::kLiteral:
        out += seg.text;
        break;
      case Segment::Kind::kIndex:
        if (seg.index < ngroups && groups[seg.index].data() != nullptr)
          out.append(groups[seg.index].data(), groups[seg.index].size());
        break;
      case Segment::Kind::kName:
        if (auto it = names.find(seg.text);
            it != names.end() && it->second < ngroups && groups[it->second].data() != nullptr) {
          out.append(groups[it->second].data(), groups[it->second].size());
        }
        break;
    }
  }
  return with_label(in, dst_, std::move(out));
}

Expected<model::Labels> label_replace(const model::Labels& in, std::string_view dst, std::string_view replacement,
                                      std::string_view src, std::string_view regex) {
  auto r = LabelReplacer::make(dst, replacement, src, regex);
  if (!r) return r.status();
  return r->apply(in);
}

Expected<model::Labels> label_join(const model::Labels& in, std::string_view dst, std::string_view sep,
                                   const std::vector<std::string>& srcs) {
  for (const auto& s : srcs) {
    if (!is_valid_label_name(s)) return Status::error("invalid source label name in label_join(): " + s);
  }
  if (!is_valid_label_name(dst)) {
    return Status::error("invalid destination label name in label_join(): " + std::string(dst));
  }
  std::string joined;
  for (size_t i = 0; i < srcs.size(); i++) {
    if (i > 0) joined.append(sep);
    joined.append(in.get(srcs[i]));
  }
  return with_label(in, dst, std::move(joined));
}

Expected<LabelMatcher> LabelMatcher::make(const model::Matcher& m) {
  LabelMatcher out;
  out.m_ = m;
  if (m.type == model::Matcher::Type::kRe || m.type == model::Matcher::Type::kNre) {
    auto re = compile_anchored(m.value);
    if (!re->ok()) {
      const char* op = m.type == model::Matcher::Type::kRe ? "=~" : "!~";
      return Status::error("invalid regular expression in matcher " + m.name + op + "\"" + m.value +
                           "\": " + re->error());
    }
    out.re_ = std::move(re);
    if (m.value == ".*") {
      out.fast_ = Fast::kDotStar;
    } else if (m.value == ".+") {
      out.fast_ = Fast::kDotPlus;
    } else if (is_literal_regex(m.value)) {
      out.fast_ = Fast::kLiteral;
    }
  }
  return out;
}

bool LabelMatcher::matches(std::string_view value) const {
  switch (m_.type) {
    case model::Matcher::Type::kEq:
      return value == m_.value;
    case model::Matcher::Type::kNeq:
      return value != m_.value;
    case model::Matcher::Type::kRe:
    case model::Matcher::Type::kNre: {
      bool hit;
      switch (fast_) {
        case Fast::kLiteral:
          hit = value == m_.value;
          break;
        case Fast::kDotStar:  // `.` does not match a newline (2.42).
          hit = value.find('\n') == std::string_view::npos;
          break;
        case Fast::kDotPlus:
          hit = !value.empty() && value.find('\n') == std::string_view::npos;
          break;
        default:
          hit = RE2::FullMatch(value, *re_);
          break;
      }
      return m_.type == model::Matcher::Type::kRe ? hit : !hit;
    }
  }
  return false;
}

}  // namespace llmon::promql
