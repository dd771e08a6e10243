// Go's regexp error text for RE2's error codes (regexp.h).
#include "go/regexp.h"

#include <re2/re2.h>

namespace llmon::go {

namespace {

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

}  // namespace

std::string regexp_error(int re2_error_code, std::string_view arg) {
  return "error parsing regexp: " + std::string(go_error_text(static_cast<RE2::ErrorCode>(re2_error_code))) + ": `" +
         std::string(arg) + "`";
}

}  // namespace llmon::go
