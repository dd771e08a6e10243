// A regexp option compiled as the field-selecting collectors (vmstat,
// netstat) search it: ECMAScript, matched with std::regex_search like Go's
// MatchString.
#pragma once

#include <regex>
#include <string>

#include "collector/collector.h"

namespace llmon::collector {

// Compiles ctx's value of f into out. Returns "" on success, else the error
// naming the flag (the flag table validates regexps; this guards direct
// construction).
inline std::string compile_option_regex(const CollectorContext& ctx, base::RegexFlag f, std::regex& out) {
  const std::string& pattern = ctx.option(f);
  try {
    out = std::regex(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    return "invalid --" + std::string(f.name) + " \"" + pattern + "\": " + e.what();
  }
  return {};
}

}  // namespace llmon::collector
