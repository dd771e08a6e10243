// Label-matcher regular expressions at parse time: Prometheus compiles
// "^(?:" + value + ")$" with Go's regexp (RE2 syntax) and reports its error
// text; we compile the same pattern with RE2 and translate the error codes
// to Go's messages. Go 1.19's parser (the Go Prometheus 2.42 is built with)
// also refuses parse trees taller than 1000 nodes ("expression nests too
// deeply", regexp/syntax maxHeight), which RE2 does not: go_regexp_height.cpp
// follows Go's parser far enough to tell (docs/promql-compat.md).
#include <re2/re2.h>

#include "go/regexp.h"
#include "promql/parser_internal.h"

namespace llmon::promql::internal {

namespace {

std::string anchored(std::string_view value) {
  return "^(?:" + std::string(value) + ")$";
}

RE2::Options options() {
  RE2::Options o;
  o.set_log_errors(false);
  return o;
}

}  // namespace

std::string regex_error(std::string_view value) {
  const std::string pattern = anchored(value);
  // Go's nesting limit, which RE2 lacks; Go meets it while parsing, so before
  // any error later in the pattern.
  if (std::string deep = go::regexp_nesting_error(pattern); !deep.empty()) return deep;
  // RE2 accepts \C (any byte); Go's regexp does not.
  for (size_t i = 0; i + 1 < value.size(); ++i) {
    if (value[i] != '\\') continue;
    if (value[i + 1] == 'C') return "error parsing regexp: invalid escape sequence: `\\C`";
    ++i;
  }
  RE2 re(pattern, options());
  if (re.ok()) return "";
  // Too large for RE2's program budget: Go names the whole pattern with its
  // size-limit error (RE2 gives no argument).
  if (re.error_code() == RE2::ErrorPatternTooLarge) return go::regexp_error(re.error_code(), pattern);
  return go::regexp_error(re.error_code(), re.error_arg());
}

bool matches_empty(const model::Matcher& m) {
  using T = model::Matcher::Type;
  switch (m.type) {
    case T::kEq:
      return m.value.empty();
    case T::kNeq:
      return !m.value.empty();
    case T::kRe:
    case T::kNre: {
      RE2 re(anchored(m.value), options());
      bool match = re.ok() && RE2::FullMatch("", re);
      return m.type == T::kRe ? match : !match;
    }
  }
  return false;
}

}  // namespace llmon::promql::internal
