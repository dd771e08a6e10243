// Go's regexp error text for a pattern RE2 rejected, shared by the PromQL
// parser (label matchers) and the alert templates (reReplaceAll, match):
// "error parsing regexp: <Go's ErrorCode text>: `<offending part>`".
// Takes RE2's error code as an int so this header needs no <re2/re2.h>.
#pragma once

#include <string>
#include <string_view>

namespace llmon::promql {

// re2_error_code: RE2::ErrorCode of the failed compile; arg: RE2::error_arg().
std::string go_regexp_error(int re2_error_code, std::string_view arg);

}  // namespace llmon::promql
