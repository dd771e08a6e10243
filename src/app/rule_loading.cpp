#include "app/rule_loading.h"

#include "app/embedded_file.h"

namespace llmon::app {

std::vector<std::string> split_list(std::string_view value) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= value.size()) {
    size_t j = value.find(',', i);
    if (j == std::string_view::npos) j = value.size();
    std::string_view item = value.substr(i, j - i);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    i = j + 1;
  }
  return out;
}

rules::RuleFilesResult load_rule_sources(const RuleSources& sources) {
  rules::RuleFilesResult all;
  if (sources.defaults) {
    for (const auto& f : default_rule_files()) {
      std::string name = std::string(kBuiltinRulePrefix) + std::string(f.name);
      rules::RuleFileResult r = rules::parse_rule_file(name, f.content);
      all.files.push_back(name);
      for (auto& e : r.errors) all.errors.push_back(std::move(e));
      for (auto& g : r.groups) all.groups.push_back(std::move(g));
    }
  }
  if (!sources.files.empty()) {
    rules::RuleFilesResult r = rules::load_rule_files(sources.files);
    for (auto& f : r.files) all.files.push_back(std::move(f));
    for (auto& e : r.errors) all.errors.push_back(std::move(e));
    for (auto& g : r.groups) all.groups.push_back(std::move(g));
  }
  if (!all.errors.empty()) all.groups.clear();
  return all;
}

}  // namespace llmon::app
