// Go's regexp error text for a pattern RE2 rejected, shared by the PromQL
// parser (label matchers) and the alert templates (reReplaceAll, match):
// "error parsing regexp: <Go's ErrorCode text>: `<offending part>`".
// Takes RE2's error code as an int so this header needs no <re2/re2.h>.
#pragma once

#include <string>
#include <string_view>

namespace llmon::go {

// re2_error_code: RE2::ErrorCode of the failed compile; arg: RE2::error_arg().
// RE2::ErrorPatternTooLarge reads as Go 1.19's size-limit error
// ("regexp/syntax: internal error"), whose argument is the whole pattern.
std::string regexp_error(int re2_error_code, std::string_view arg);

// Go's regexp/syntax (1.19, as in Prometheus 2.42) refuses a pattern whose
// parse tree would be more than 1000 nodes tall; RE2 has no such limit.
// Returns Go's error for `pattern` (the whole pattern as Go compiles it,
// e.g. "^(?:" + value + ")$") when Go stops on that limit before any other
// error -- "error parsing regexp: expression nests too deeply: `<pattern>`"
// -- else "". Linear in the pattern's length, no recursion.
std::string regexp_nesting_error(std::string_view pattern);

}  // namespace llmon::go
