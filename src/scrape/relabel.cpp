// Prometheus 2.42 relabelling (relabel.h): compile() validates as
// Config.UnmarshalYAML does, process() applies the rules to a label vector
// kept sorted by name.
#include "scrape/relabel.h"

#include <openssl/evp.h>
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <utility>

#include "go/regexp.h"
#include "go/regexp_expand.h"
#include "go/strconv.h"
#include "go/strings.h"
#include "model/metric.h"

namespace llmon::scrape {

namespace {

using LabelVec = std::vector<model::Label>;

RE2::Options regex_options() {
  RE2::Options o;  // UTF-8, Perl-like syntax, leftmost-first: as Go's regexp.
  o.set_log_errors(false);
  return o;
}

// Go's error for a pattern it would refuse, or "" (RE2 then compiles it).
std::string go_regex_error(std::string_view regex, const std::string& pattern, const RE2& re) {
  // Go meets its nesting limit while parsing, before any later error.
  if (std::string deep = go::regexp_nesting_error(pattern); !deep.empty()) return deep;
  // RE2 accepts \C (any byte); Go's regexp does not.
  for (size_t i = 0; i + 1 < regex.size(); ++i) {
    if (regex[i] != '\\') continue;
    if (regex[i + 1] == 'C') return "error parsing regexp: invalid escape sequence: `\\C`";
    ++i;
  }
  if (re.ok()) return "";
  if (re.error_code() == RE2::ErrorPatternTooLarge) return go::regexp_error(re.error_code(), pattern);
  return go::regexp_error(re.error_code(), re.error_arg());
}

bool is_one_of(RelabelAction a, std::initializer_list<RelabelAction> set) {
  return std::find(set.begin(), set.end(), a) != set.end();
}

// The label vector, sorted by name, values non-empty.
LabelVec::iterator lower(LabelVec& ls, std::string_view name) {
  return std::lower_bound(ls.begin(), ls.end(), name,
                          [](const model::Label& l, std::string_view n) { return l.name < n; });
}

std::string_view get(const LabelVec& ls, std::string_view name) {
  auto it = std::lower_bound(ls.begin(), ls.end(), name,
                             [](const model::Label& l, std::string_view n) { return l.name < n; });
  return it != ls.end() && it->name == name ? std::string_view(it->value) : std::string_view();
}

void del(LabelVec& ls, std::string_view name) {
  auto it = lower(ls, name);
  if (it != ls.end() && it->name == name) ls.erase(it);
}

// Prometheus's Builder.Set: an empty value deletes.
void set(LabelVec& ls, std::string_view name, std::string value) {
  if (value.empty()) return del(ls, name);
  auto it = lower(ls, name);
  if (it != ls.end() && it->name == name) {
    it->value = std::move(value);
  } else {
    ls.insert(it, model::Label{std::string(name), std::move(value)});
  }
}

std::string hashmod(std::string_view val, uint64_t modulus) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  EVP_Digest(val.data(), val.size(), md.data(), &len, EVP_md5(), nullptr);
  uint64_t v = 0;
  for (unsigned int i = 8; i < 16 && i < len; ++i) v = (v << 8) | md[i];
  return std::to_string(v % modulus);
}

}  // namespace

struct Relabeler::Rule {
  Rule(const RelabelConfig& c, const std::string& pattern)
      : action(c.action),
        source_labels(c.source_labels),
        separator(c.separator),
        re(pattern, regex_options()),
        modulus(c.modulus),
        target_label(c.target_label) {}

  RelabelAction action;
  std::vector<std::string> source_labels;
  std::string separator;
  RE2 re;
  uint64_t modulus;
  std::string target_label;
  go::RegexpTemplate target;       // replace: target_label as a template
  go::RegexpTemplate replacement;  // replace, labelmap
  int nsubmatch = 0;               // submatches the templates need

  void source_value(const LabelVec& ls, std::string& out) const {
    out.clear();
    for (size_t i = 0; i < source_labels.size(); ++i) {
      if (i > 0) out += separator;
      out.append(get(ls, source_labels[i]));
    }
  }
  bool matches(std::string_view s) const { return re.Match(s, 0, s.size(), RE2::UNANCHORED, nullptr, 0); }
  // Matches `s`, filling groups[0..nsubmatch) (pieces: RE2's scratch).
  bool match_expand(std::string_view s, std::string_view* groups, re2::StringPiece* pieces) const {
    if (!re.Match(s, 0, s.size(), RE2::UNANCHORED, pieces, nsubmatch)) return false;
    for (int i = 0; i < nsubmatch; ++i) groups[i] = std::string_view(pieces[i].data(), pieces[i].size());
    return true;
  }
  void expand(const go::RegexpTemplate& t, const std::string_view* groups, std::string& out) const {
    out.clear();
    if (t.is_literal()) {
      out = t.literal();
    } else {
      t.expand(groups, nsubmatch, out);
    }
  }
  // Applies the rule; false: the set is dropped.
  bool apply(LabelVec& ls, std::string& val) const;
};

bool Relabeler::Rule::apply(LabelVec& ls, std::string& val) const {
  source_value(ls, val);
  // Submatches for the templates (RE2 refuses more than the regex has).
  constexpr int kInline = 16;
  std::array<re2::StringPiece, kInline> inline_pieces;
  std::array<std::string_view, kInline> inline_groups;
  std::vector<re2::StringPiece> more_pieces;
  std::vector<std::string_view> more_groups;
  re2::StringPiece* pieces = inline_pieces.data();
  std::string_view* groups = inline_groups.data();
  if (nsubmatch > kInline) {
    more_pieces.resize(static_cast<size_t>(nsubmatch));
    more_groups.resize(static_cast<size_t>(nsubmatch));
    pieces = more_pieces.data();
    groups = more_groups.data();
  }

  switch (action) {
    case RelabelAction::kDrop:
      return !matches(val);
    case RelabelAction::kKeep:
      return matches(val);
    case RelabelAction::kDropEqual:
      return get(ls, target_label) != val;
    case RelabelAction::kKeepEqual:
      return get(ls, target_label) == val;
    case RelabelAction::kReplace: {
      if (!match_expand(val, groups, pieces)) return true;
      std::string name;
      expand(target, groups, name);
      if (!model::is_valid_label_name(name)) {
        del(ls, target_label);  // as written: 2.42 deletes that (a no-op)
        return true;
      }
      std::string res;
      expand(replacement, groups, res);
      if (res.empty()) {
        del(ls, target_label);  // as written, not the expanded name (2.42)
        return true;
      }
      set(ls, name, std::move(res));
      return true;
    }
    case RelabelAction::kLowercase:
      set(ls, target_label, go::lower(val));
      return true;
    case RelabelAction::kUppercase:
      set(ls, target_label, go::upper(val));
      return true;
    case RelabelAction::kHashMod:
      set(ls, target_label, hashmod(val, modulus));
      return true;
    case RelabelAction::kLabelMap: {
      // Over the names before this rule; copies applied in name order.
      std::vector<std::pair<std::string, std::string>> copies;
      for (const auto& l : ls) {
        if (!match_expand(l.name, groups, pieces)) continue;
        std::string name;
        expand(replacement, groups, name);
        copies.emplace_back(std::move(name), l.value);
      }
      for (auto& [name, value] : copies) set(ls, name, std::move(value));
      return true;
    }
    case RelabelAction::kLabelDrop:
      std::erase_if(ls, [this](const model::Label& l) { return matches(l.name); });
      return true;
    case RelabelAction::kLabelKeep:
      std::erase_if(ls, [this](const model::Label& l) { return !matches(l.name); });
      return true;
  }
  return true;
}

Relabeler::Relabeler() = default;
Relabeler::~Relabeler() = default;
Relabeler::Relabeler(Relabeler&&) noexcept = default;
Relabeler& Relabeler::operator=(Relabeler&&) noexcept = default;

namespace {

// 2.42's checks after the fields were read, in its order; "" when valid.
// `target_re` is Prometheus's relabelTarget pattern.
std::string validate(const RelabelConfig& c, const RE2& target_re) {
  using A = RelabelAction;
  const RelabelConfig defaults;
  const std::string action(relabel_action_name(c.action));
  auto template_ok = [&target_re](const std::string& s) { return RE2::FullMatch(s, target_re); };
  if (c.action == A::kHashMod && c.modulus == 0) {
    return "relabel configuration for hashmod requires non-zero modulus";
  }
  if (is_one_of(c.action, {A::kReplace, A::kHashMod, A::kLowercase, A::kUppercase, A::kKeepEqual, A::kDropEqual}) &&
      c.target_label.empty()) {
    return "relabel configuration for " + action + " action requires 'target_label' value";
  }
  if (is_one_of(c.action, {A::kReplace, A::kLowercase, A::kUppercase, A::kKeepEqual, A::kDropEqual}) &&
      !template_ok(c.target_label)) {
    return go::quote(c.target_label) + " is invalid 'target_label' for " + action + " action";
  }
  if (is_one_of(c.action, {A::kLowercase, A::kUppercase, A::kKeepEqual, A::kDropEqual}) &&
      c.replacement != defaults.replacement) {
    return "'replacement' can not be set for " + action + " action";
  }
  if (c.action == A::kLabelMap && !template_ok(c.replacement)) {
    return go::quote(c.replacement) + " is invalid 'replacement' for " + action + " action";
  }
  if (c.action == A::kHashMod && !model::is_valid_label_name(c.target_label)) {
    return go::quote(c.target_label) + " is invalid 'target_label' for " + action + " action";
  }
  if (is_one_of(c.action, {A::kKeepEqual, A::kDropEqual}) &&
      (c.set_regex || c.modulus != defaults.modulus || c.separator != defaults.separator ||
       c.replacement != defaults.replacement)) {
    return action + " action requires only 'source_labels' and `target_label`, and no other fields";
  }
  if (is_one_of(c.action, {A::kLabelDrop, A::kLabelKeep}) &&
      (c.set_source_labels || c.target_label != defaults.target_label || c.modulus != defaults.modulus ||
       c.separator != defaults.separator || c.replacement != defaults.replacement)) {
    return action + " action requires only 'regex', and no other fields";
  }
  return "";
}

}  // namespace

Expected<Relabeler> Relabeler::compile(const std::vector<RelabelConfig>& rules) {
  const RE2 target_re(R"(^(?:(?:[a-zA-Z_]|\$(?:\{\w+\}|\w+))+\w*)+$)", regex_options());
  Relabeler out;
  out.rules_.reserve(rules.size());
  for (size_t i = 0; i < rules.size(); ++i) {
    const RelabelConfig& c = rules[i];
    const std::string where = "rule " + std::to_string(i + 1) + ": ";
    const std::string pattern = "^(?:" + c.regex + ")$";
    auto rule = std::make_unique<Rule>(c, pattern);
    if (std::string err = go_regex_error(c.regex, pattern, rule->re); !err.empty()) {
      return Status::error(where + err);
    }
    if (std::string err = validate(c, target_re); !err.empty()) return Status::error(where + err);
    const auto& names = rule->re.NamedCapturingGroups();
    int max_group = -1;
    if (c.action == RelabelAction::kReplace) {
      rule->target = go::RegexpTemplate(c.target_label, names);
      max_group = rule->target.max_group();
    }
    if (c.action == RelabelAction::kReplace || c.action == RelabelAction::kLabelMap) {
      rule->replacement = go::RegexpTemplate(c.replacement, names);
      max_group = std::max(max_group, rule->replacement.max_group());
    }
    rule->nsubmatch = std::min(max_group + 1, 1 + rule->re.NumberOfCapturingGroups());
    out.rules_.push_back(std::move(rule));
  }
  return out;
}

bool Relabeler::process(std::vector<model::Label>& labels) const {
  std::erase_if(labels, [](const model::Label& l) { return l.value.empty(); });
  std::sort(labels.begin(), labels.end(), [](const model::Label& a, const model::Label& b) { return a.name < b.name; });
  std::string val;
  for (const auto& rule : rules_) {
    if (!rule->apply(labels, val)) return false;
  }
  return true;
}

bool Relabeler::empty() const {
  return rules_.empty();
}
size_t Relabeler::size() const {
  return rules_.size();
}

}  // namespace llmon::scrape
