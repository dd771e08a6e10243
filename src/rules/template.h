// Alert annotation and label templates: a self-contained engine for the
// Go text/template language as Prometheus 2.42 (built with Go 1.19) runs it
// in template/template.go's Expander: text, {{pipelines}}, {{- -}} trim
// markers, comments, if/else if/else, range (with else, break, continue),
// with, define/template/block, variables, parenthesised pipelines, literals,
// the builtins and Prometheus's functions (template_funcs.h), with
// missingkey=zero. Output and error texts match Prometheus byte for byte
// (checked against promtool by tests/rules/template_promtool_diff_test.cpp).
// Known differences: a pointer nested in a slice or map (printing
// `{{ query "x" }}`) prints as &{...}, not as Go's random address; methods of
// *time.Time (`(toTime $value).Unix`) are not callable; Unicode case mapping
// and letter classes come from glibc's C.UTF-8 tables rather than Go's; the
// nesting (400 while parsing, 1500 while executing) and {{template}}
// recursion (1000) limits are lower than Go's and the output/step budgets
// are ours, with errors in our own words.
//
// Parse once, execute many times: a Template is immutable and may be
// executed concurrently. Execution is bounded (output size, steps, nesting)
// so a hostile template cannot hang or exhaust the agent. PromQL queries go
// through a caller-supplied callback; this module knows nothing of the
// engine. Errors are values; nothing throws out of this interface.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "rules/template_value.h"

namespace llmon::rules {

// Runs a PromQL instant query at the alert's evaluation time; the error
// message becomes the template error ("error calling query: <message>").
using TemplateQueryFunc = std::function<Expected<std::vector<tmpl::Sample>>(std::string_view query)>;

struct TemplateEnv {
  TemplateQueryFunc query;  // empty: `query` fails as in Prometheus with no engine
  // --web.external-url for the externalURL and pathPrefix functions; unset,
  // they fail as Prometheus does with a nil URL (promtool's case).
  std::optional<std::string> external_url;
  size_t max_output_bytes = size_t{1} << 20;
  int64_t max_steps = 1'000'000;  // nodes and commands evaluated
};

namespace tmpl {
struct TreeSet;
}

class Template {
 public:
  // Parses text as the template `name`. The error is Go's:
  // `template: NAME:LINE: unexpected "}" in operand`.
  static Expected<Template> parse(std::string name, std::string_view text);
  // Executes with `data` as dot. The error is Go's:
  // `template: NAME:1:3: executing "NAME" at <.Foo>: can't evaluate ...`.
  Expected<std::string> execute(const tmpl::Value& data, const TemplateEnv& env) const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::shared_ptr<const tmpl::TreeSet> trees_;
};

// The variable definitions Prometheus prepends to alert templates
// (rules/alerting.go): $labels, $externalLabels, $externalURL, $value.
constexpr std::string_view kAlertTemplateDefs =
    "{{$labels := .Labels}}{{$externalLabels := .ExternalLabels}}{{$externalURL := .ExternalURL}}"
    "{{$value := .Value}}";

// Parses an annotation or label template of alerting rule `alert_name` as
// Prometheus does: named "__alert_<name>", with kAlertTemplateDefs first.
Expected<Template> parse_alert_template(std::string_view alert_name, std::string_view text);

// Prometheus's Expander.Expand of a parsed template: the error wrapped as
// "error executing template NAME: ..." (parse errors, from
// parse_alert_template, read "error parsing template NAME: ...").
Expected<std::string> expand(const Template& t, const tmpl::Value& data, const TemplateEnv& env);

// What Prometheus puts into an annotation or label: the expansion, or
// "<error expanding template: ERROR>" when parsing or executing failed.
std::string expand_alert_text(std::string_view alert_name, std::string_view text, const tmpl::Value& data,
                              const TemplateEnv& env);

}  // namespace llmon::rules
