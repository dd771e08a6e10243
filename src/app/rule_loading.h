// Which rule groups the agent evaluates: the built-in pack (embedded_file.h,
// named "<builtin>/gpu.yml" ...) unless --rules.defaults=false, then every
// file --rules.file names (comma-separated paths, globs or directories).
// All-or-nothing: any error in any file and the result has no groups, so the
// caller keeps the rules it runs (a broken reload never stops alerting).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rules/rule_file.h"

namespace llmon::app {

struct RuleSources {
  bool defaults = true;
  std::vector<std::string> files;  // as --rules.file lists them
};

// Prefix of the embedded files' names in GroupSpec::file, the API and logs.
inline constexpr std::string_view kBuiltinRulePrefix = "<builtin>/";

// Splits a comma-separated flag value, trimming blanks, dropping empties.
std::vector<std::string> split_list(std::string_view value);

rules::RuleFilesResult load_rule_sources(const RuleSources& sources);

}  // namespace llmon::app
