// `llmon rules check FILE...`: promtool 2.42's `check rules` — each file is
// parsed and validated (rule_file.h) and reported as promtool reports it:
// "Checking FILE" then "  SUCCESS: N rules found" on `out`, or "  FAILED:"
// and every error on `err`, then an empty line; the duplicate-rule lint
// (same name and labels) fails a file with promtool's "lint error ..." text
// but only changes the exit status with lint_fatal. Exit status: 0, 1 when a
// file has errors, 3 when only lint findings and lint_fatal.
// Each argument is one file, as for promtool (no directory expansion).
// Thread-safe (no shared state); writes only to the given streams.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "rules/rule_types.h"

namespace llmon::rules {

struct RulesCheckOptions {
  bool lint_duplicates = true;  // promtool --lint=duplicate-rules (its default); false: --lint=none
  bool lint_fatal = false;      // promtool --lint-fatal
};

int rules_check(const std::vector<std::string>& files, std::FILE* out, std::FILE* err);
int rules_check(const std::vector<std::string>& files, const RulesCheckOptions& options, std::FILE* out,
                std::FILE* err);

// promtool's duplicate-rule lint over a file's groups: empty when none, else
// "N duplicate rule(s) found.\nMetric: ...\nLabel(s):\n\tname: value\n...Might
// cause inconsistency while recording expressions". A rule's labels here are
// its group's labels overlaid by its own (2.42 has no group labels).
std::string duplicate_rules_lint(const std::vector<GroupSpec>& groups);

}  // namespace llmon::rules
