// One Matcher pattern as an RE2, shared by the Matcher engines
// (matcher.cpp, matcher_hyperscan.cpp): the options every engine compiles it
// with (Latin-1 bytes, the pattern's flags) and the named-group extraction
// whose result match() reports. Internal to src/logwatch/.
#pragma once

#include <re2/re2.h>

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "logwatch/matcher.h"

namespace llmon::logwatch {

RE2::Options pattern_re2_options(const Pattern& p);

// The pattern compiled; an error names it (1-based index and text).
Expected<std::unique_ptr<RE2>> compile_pattern(const Pattern& p, size_t index);

// The pattern's text for an RE2::Set (its flags inline, literals quoted).
std::string pattern_set_text(const Pattern& p);

// Runs re on line. False when it does not match; else m.groups holds the
// named groups that took part.
bool match_groups(const RE2& re, std::string_view line, Match& m);

}  // namespace llmon::logwatch
