// label_replace, label_join and the selector label matcher, on one label set
// / one label value at a time, with Prometheus 2.42's semantics
// (promql/functions.go funcLabelReplace / funcLabelJoin, model/labels
// FastRegexMatcher). Regular expressions are RE2 (Go's regexp has the same
// syntax and leftmost-first submatch semantics), anchored as
// ^(?:regex)$. Merging series that end up with equal label sets, and the
// metric name handling, are the engine's.
//
// 2.42 vs 3.x: 3.x anchors as ^(?s:regex)$ (`.` also matches a newline) and
// accepts any UTF-8 label name; 2.42 (followed here) does neither.
// Known gap: Go's regexp reads invalid UTF-8 in a value as U+FFFD per byte,
// RE2 does not match such bytes with `.`.
//
// LabelReplacer and LabelMatcher are immutable after make(); copies share the
// compiled expression; safe to use from several threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/metric.h"
#include "storage/storage.h"

namespace re2 {
class RE2;
}

namespace llmon::promql {

// [a-zA-Z_][a-zA-Z0-9_]* (Prometheus 2.42's model.LabelNameRE).
using model::is_valid_label_name;

// label_replace(v, dst, replacement, src, regex), compiled once for all
// series. Errors, checked in Prometheus's order:
//   "invalid regular expression in label_replace(): <regex>"
//   "invalid destination label name in label_replace(): <dst>"
class LabelReplacer {
 public:
  static Expected<LabelReplacer> make(std::string_view dst, std::string_view replacement, std::string_view src,
                                      std::string_view regex);
  // When the regex matches the value of `src` ("" if absent), `dst` is set to
  // the replacement with $1 / ${1} / $name / ${name} expanded as Go's
  // Regexp.Expand does ($$ is a '$'; a name is the longest run of letters,
  // digits and '_', so "$1x" is group "1x"; unknown or unmatched groups
  // expand to ""; a '$' not followed by a name stays literal). An empty
  // result removes `dst`. No match: the labels are returned unchanged.
  model::Labels apply(const model::Labels& in) const;

 private:
  struct Segment {
    enum class Kind { kLiteral, kIndex, kName } kind;
    std::string text;  // literal text, or the group name
    int index = -1;    // group number for kIndex
  };
  std::shared_ptr<const re2::RE2> re_;
  std::string dst_;
  std::string src_;
  std::vector<Segment> template_;
};

// One-shot form of LabelReplacer (compiles the regex on every call).
Expected<model::Labels> label_replace(const model::Labels& in, std::string_view dst, std::string_view replacement,
                                      std::string_view src, std::string_view regex);

// label_join(v, dst, sep, src...): dst = the values of srcs ("" for absent
// ones) joined by sep; an empty result removes dst. Errors, in Prometheus's
// order: "invalid source label name in label_join(): <src>", then
// "invalid destination label name in label_join(): <dst>".
Expected<model::Labels> label_join(const model::Labels& in, std::string_view dst, std::string_view sep,
                                   const std::vector<std::string>& srcs);

// A selector matcher (=, !=, =~, !~) compiled for repeated use. The value of
// an absent label is "" (Labels::get), so `{a=~"x|"}` and `{a!="x"}` also
// select series without `a`. Regex matchers are fully anchored. Literal
// regexes (no metacharacter) and .* / .+ are matched without RE2.
// Error: "invalid regular expression in matcher <name>=~\"<regex>\": <RE2's
// reason>" (!~ likewise).
class LabelMatcher {
 public:
  static Expected<LabelMatcher> make(const model::Matcher& m);
  bool matches(std::string_view value) const;
  const model::Matcher& matcher() const { return m_; }

 private:
  enum class Fast { kNone, kLiteral, kDotStar, kDotPlus };
  model::Matcher m_;
  std::shared_ptr<const re2::RE2> re_;
  Fast fast_ = Fast::kNone;
};

}  // namespace llmon::promql
