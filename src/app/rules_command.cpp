// `llmon rules check FILE...` (promtool check rules) and `llmon rules test
// FILE...` (promtool test rules): the same output and exit codes as promtool
// 2.42, so CI pipelines can switch tools. `llmon rules check` without files
// checks the built-in pack compiled into this binary.
#include <string>
#include <vector>

#include "app/commands.h"
#include "app/embedded_file.h"
#include "app/rule_loading.h"
#include "rules/check_command.h"
#include "rules/rule_file.h"
#include "rules/unit_test_runner.h"

namespace llmon::app {

namespace {

// The built-in pack: every group parses and validates (what the agent loads).
int check_defaults(std::FILE* out, std::FILE* err) {
  int rc = 0;
  for (const auto& f : default_rule_files()) {
    std::string name = std::string(kBuiltinRulePrefix) + std::string(f.name);
    rules::RuleFileResult r = rules::parse_rule_file(name, f.content);
    std::fprintf(out, "Checking %s\n", name.c_str());
    if (r.ok()) {
      std::fprintf(out, "  SUCCESS: %zu rules found\n\n", r.rule_count());
    } else {
      rc = 1;
      std::fprintf(err, "  FAILED:\n");
      for (const auto& e : r.errors) std::fprintf(err, "%s\n", e.c_str());
      std::fprintf(err, "\n");
    }
  }
  return rc;
}

}  // namespace

int run_rules(const config::Settings& s, std::FILE* out, std::FILE* err) {
  const auto& pos = s.positional;
  if (pos.empty() || (pos[0] != "check" && pos[0] != "test")) {
    std::fprintf(err, "usage: llmon rules check [FILE...] | llmon rules test FILE...\n");
    return 2;
  }
  std::vector<std::string> files(pos.begin() + 1, pos.end());
  if (pos[0] == "check") {
    if (files.empty()) return check_defaults(out, err);
    return rules::rules_check(files, out, err);
  }
  if (files.empty()) {
    std::fprintf(err, "llmon rules test: no test files given\n");
    return 2;
  }
  return rules::rules_test(files, out, err);
}

}  // namespace llmon::app
