// Label-matcher regular expressions at parse time: Prometheus compiles
// "^(?:" + value + ")$" with Go's regexp (RE2 syntax) and reports its error
// text; we compile the same pattern with RE2 and translate the error codes
// to Go's messages. Go 1.19's parser (the Go Prometheus 2.42 is built with)
// also refuses parse trees taller than 1000 nodes ("expression nests too
// deeply", regexp/syntax maxHeight), which RE2 does not: go_regexp_height.cpp
// follows Go's parser far enough to tell (docs/promql-compat.md).
#include <re2/re2.h>

#include "promql/go_regexp.h"
#include "promql/parser_internal.h"

namespace llmon::promql::internal {

namespace {

std::string anchored(std::string_view value) {
  return "^(?:" + std::string(value) + ")$";
}

std::string_view go_error_text(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadEscape:
      return "invalid escape sequence";
    case RE2::ErrorBadCharClass:
      return "invalid character class";
    case RE2::ErrorBadCharRange:
      return "invalid character class range";
    case RE2::ErrorMissingBracket:
      return "missing closing ]";
    case RE2::ErrorMissingParen:
      return "missing closing )";
    case RE2::ErrorUnexpectedParen:
      return "unexpected )";
    case RE2::ErrorTrailingBackslash:
      return "trailing backslash at end of expression";
    case RE2::ErrorRepeatArgument:
      return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize:
      return "invalid repeat count";
    case RE2::ErrorRepeatOp:
      return "invalid nested repetition operator";
    case RE2::ErrorBadPerlOp:
      return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture:
      return "invalid named capture";
    case RE2::ErrorPatternTooLarge:
      // Go 1.19 (Prometheus 2.42) reports its size limits so; "expression
      // too large" (ErrLarge) came with Go 1.20.
      return "regexp/syntax: internal error";
    default:
      return "regexp/syntax: internal error";
  }
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
  if (std::string deep = go_regexp_nesting_error(pattern); !deep.empty()) return deep;
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
  if (re.error_code() == RE2::ErrorPatternTooLarge) return go_regexp_error(re.error_code(), pattern);
  return go_regexp_error(re.error_code(), re.error_arg());
}

bool matches_empty(const storage::Matcher& m) {
  using T = storage::Matcher::Type;
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

bool is_legacy_label_name(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

}  // namespace llmon::promql::internal

namespace llmon::promql {

std::string go_regexp_error(int re2_error_code, std::string_view arg) {
  return "error parsing regexp: " + std::string(internal::go_error_text(static_cast<RE2::ErrorCode>(re2_error_code))) +
         ": `" + std::string(arg) + "`";
}

}  // namespace llmon::promql
