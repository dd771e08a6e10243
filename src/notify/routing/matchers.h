// Alertmanager label matchers (pkg/labels in Alertmanager 0.25): `name="v"`,
// `name!="v"`, `name=~"re"`, `name!~"re"`, the list syntax `{a="b",c=~"d"}`
// (the "classic" parser: braces optional, values optionally quoted, OpenMetrics
// escapes), and the legacy `match:` / `match_re:` maps of the config file.
// Regular expressions are RE2, fully anchored as Alertmanager does (`^(?:re)$`).
// A missing label matches as the empty string. Values are immutable once
// built; matching is thread-safe. Pure functions, no I/O.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/metric.h"
#include "notify/alert.h"

namespace re2 {
class RE2;
}

namespace llmon::notify {

enum class MatchType { kEqual, kNotEqual, kRegexp, kNotRegexp };

std::string_view match_type_string(MatchType t);  // "=", "!=", "=~", "!~"

class Matcher {
 public:
  // Compiles regex types; errors name the matcher and what RE2 rejected.
  static Expected<Matcher> make(MatchType type, std::string name, std::string value);

  MatchType type() const { return type_; }
  const std::string& name() const { return name_; }
  const std::string& value() const { return value_; }
  bool is_regex() const { return type_ == MatchType::kRegexp || type_ == MatchType::kNotRegexp; }
  bool is_equal() const { return type_ == MatchType::kEqual || type_ == MatchType::kRegexp; }

  bool matches(std::string_view label_value) const;
  // Alertmanager's Matcher.String(): name, operator, value in double quotes
  // with `\`, newline and `"` escaped (OpenMetrics escaping).
  std::string to_string() const;

  friend bool operator==(const Matcher& a, const Matcher& b) {
    return a.type_ == b.type_ && a.name_ == b.name_ && a.value_ == b.value_;
  }

 private:
  MatchType type_ = MatchType::kEqual;
  std::string name_;
  std::string value_;
  std::shared_ptr<const re2::RE2> re_;  // set for the regex types
};

using Matchers = std::vector<Matcher>;

// All matchers match the label set (missing labels read as "").
bool matches_all(const Matchers& ms, const LabelPairs& labels);
// Alertmanager's Matchers.String(): `{a="b",c=~"d"}` (no spaces).
std::string matchers_to_string(const Matchers& ms);
// Alertmanager's sort order for matchers: by name, then value, then type.
void sort_matchers(Matchers& ms);

// One matcher in the classic syntax (`name op value`, whitespace allowed
// around each token, value optionally double-quoted). Errors say
// "bad matcher format" / "unescaped double quote" / "invalid regular
// expression" and quote the input.
Expected<Matcher> parse_matcher(std::string_view s);
// A comma-separated list, optionally in braces (`{a="b", c=~"d",}`); commas
// inside double quotes do not separate. Errors name the 1-based byte
// position of the failing matcher in `s` ("position 7: bad matcher ...").
// An empty list (``, `{}`) parses to no matchers.
Expected<Matchers> parse_matchers(std::string_view s);

// Prometheus label names: [a-zA-Z_][a-zA-Z0-9_]* (model.LabelName.IsValid).
using model::is_valid_label_name;

}  // namespace llmon::notify
