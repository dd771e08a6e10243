// `llmon rules check` (check_command.h), after promtool 2.42's CheckRules,
// checkRules and checkDuplicates (cmd/promtool/main.go).
#include "rules/check_command.h"

#include <algorithm>
#include <map>

#include "rules/rule_file.h"

namespace llmon::rules {

namespace {

struct RuleKey {
  std::string metric;
  std::vector<std::pair<std::string, std::string>> labels;  // sorted by name
  bool operator<(const RuleKey& o) const {
    if (metric != o.metric) return metric < o.metric;
    return labels < o.labels;  // Prometheus's labels.Compare orders the same way
  }
  bool operator==(const RuleKey& o) const { return metric == o.metric && labels == o.labels; }
};

void print(std::FILE* f, const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), f);
}

}  // namespace

std::string duplicate_rules_lint(const std::vector<GroupSpec>& groups) {
  std::vector<RuleKey> keys;
  for (const auto& g : groups) {
    for (const auto& r : g.rules) {
      std::map<std::string, std::string> merged(g.labels.begin(), g.labels.end());
      for (const auto& [k, v] : r.labels) merged[k] = v;
      keys.push_back(RuleKey{r.name, {merged.begin(), merged.end()}});
    }
  }
  if (keys.size() < 2) return "";
  std::sort(keys.begin(), keys.end());
  std::vector<RuleKey> dups;
  for (size_t i = 1; i < keys.size(); ++i) {
    if (keys[i] == keys[i - 1] && (dups.empty() || !(dups.back() == keys[i]))) dups.push_back(keys[i]);
  }
  if (dups.empty()) return "";
  std::string msg = std::to_string(dups.size()) + " duplicate rule(s) found.\n";
  for (const auto& d : dups) {
    msg += "Metric: " + d.metric + "\nLabel(s):\n";
    for (const auto& [k, v] : d.labels) msg += "\t" + k + ": " + v + "\n";
  }
  msg += "Might cause inconsistency while recording expressions";
  return msg;
}

int rules_check(const std::vector<std::string>& files, std::FILE* out, std::FILE* err) {
  return rules_check(files, RulesCheckOptions{}, out, err);
}

int rules_check(const std::vector<std::string>& files, const RulesCheckOptions& options, std::FILE* out,
                std::FILE* err) {
  bool failed = false;
  bool has_errors = false;
  for (const std::string& f : files) {
    print(out, "Checking " + f + "\n");
    std::fflush(out);
    RuleFileResult r = read_rule_file(f);
    std::vector<std::string> errors = r.errors;
    bool lint_only = false;
    if (errors.empty() && options.lint_duplicates) {
      std::string lint = duplicate_rules_lint(r.groups);
      if (!lint.empty()) {
        errors.push_back("lint error " + lint);
        lint_only = true;
      }
    }
    if (!errors.empty()) {
      print(err, "  FAILED:\n");
      for (const auto& e : errors) print(err, e + "\n");
      std::fflush(err);
      failed = true;
      has_errors = has_errors || !lint_only;
    } else {
      print(out, "  SUCCESS: " + std::to_string(r.rule_count()) + " rules found\n");
    }
    print(out, "\n");
    std::fflush(out);
  }
  if (failed && has_errors) return 1;
  if (failed && options.lint_fatal) return 3;
  return 0;
}

}  // namespace llmon::rules
