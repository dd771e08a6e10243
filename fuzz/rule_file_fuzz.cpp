// Fuzz target: the Prometheus rule file parser and validator
// (rules/rule_file.h: YAML through yaml-cpp, every expr through the PromQL
// parser, alert templates through the template parser). Checked besides "no
// crash, no sanitizer report": an accepted file yields groups with names and
// rules with an expression and a record or alert name; a refused one yields
// errors, each naming the file; the same bytes give the same verdict twice.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "rules/rule_file.h"

using namespace llmon;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  rules::RuleFileResult r = rules::parse_rule_file("fuzz.yml", in);
  if (r.ok()) {
    for (const auto& g : r.groups) {
      if (g.name.empty() || g.file != "fuzz.yml") std::abort();
      for (const auto& rule : g.rules)
        if (rule.expr.empty() || rule.name.empty() || !rule.parsed) std::abort();
    }
  } else {
    if (!r.groups.empty()) std::abort();
    for (const auto& e : r.errors)
      if (e.rfind("fuzz.yml", 0) != 0) std::abort();
  }
  rules::RuleFileResult again = rules::parse_rule_file("fuzz.yml", in);
  if (again.errors != r.errors || again.rule_count() != r.rule_count()) std::abort();
  return 0;
}
