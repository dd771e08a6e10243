// Internal entry points of the template engine (template.h): the parser
// (template_parser.cpp) and the executor (template_exec.cpp).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "rules/template.h"
#include "rules/template_ast.h"
#include "rules/template_funcs.h"

namespace llmon::rules::tmpl {

// Nesting limits that keep recursion off the end of the stack: control
// structures plus parentheses while parsing, walks and pipelines (across
// {{template}} calls) while executing.
constexpr int kMaxParseNesting = 400;
constexpr int kMaxExecNesting = 1500;

// parse.Parse: the main tree (named `name`) and the {{define}}d ones.
Expected<std::shared_ptr<const TreeSet>> parse_trees(const std::string& name, std::string_view text);

// Template.Execute of tree `name` in `set`.
Expected<std::string> execute_tree(const TreeSet& set, const std::string& name, const Value& data,
                                   const TemplateEnv& env);

// The function table's two halves (template_funcs.cpp, template_prom_funcs.cpp).
std::vector<Function> builtin_functions();
std::vector<Function> prometheus_functions();

}  // namespace llmon::rules::tmpl
