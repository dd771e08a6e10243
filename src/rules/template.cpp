// Template parsing/execution entry points and Prometheus's alert-template
// conventions (template.h).
#include "rules/template.h"

#include "rules/template_internal.h"

namespace llmon::rules {

Expected<Template> Template::parse(std::string name, std::string_view text) {
  auto trees = tmpl::parse_trees(name, text);
  if (!trees) return trees.status();
  Template t;
  t.name_ = std::move(name);
  t.trees_ = std::move(*trees);
  return t;
}

Expected<std::string> Template::execute(const tmpl::Value& data, const TemplateEnv& env) const {
  if (!trees_) return Status::error("template: " + name_ + ": not parsed");
  return tmpl::execute_tree(*trees_, name_, data, env);
}

Expected<Template> parse_alert_template(std::string_view alert_name, std::string_view text) {
  std::string name = "__alert_" + std::string(alert_name);
  std::string full(kAlertTemplateDefs);
  full += text;
  auto t = Template::parse(name, full);
  if (!t) return Status::error("error parsing template " + name + ": " + t.error());
  return t;
}

Expected<std::string> expand(const Template& t, const tmpl::Value& data, const TemplateEnv& env) {
  auto out = t.execute(data, env);
  if (!out) return Status::error("error executing template " + t.name() + ": " + out.error());
  return out;
}

std::string expand_alert_text(std::string_view alert_name, std::string_view text, const tmpl::Value& data,
                              const TemplateEnv& env) {
  auto t = parse_alert_template(alert_name, text);
  if (!t) return "<error expanding template: " + t.error() + ">";
  auto out = expand(*t, data, env);
  if (!out) return "<error expanding template: " + out.error() + ">";
  return *out;
}

}  // namespace llmon::rules
