#include "logwatch/rule_file.h"

#include <fnmatch.h>
#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <set>

#include "base/strings.h"

namespace llmon::logwatch {

namespace {

bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

class Parser {
 public:
  explicit Parser(const std::string& name) : name_(name) {}

  Status fail(const YAML::Node& n, const std::string& msg) const {
    const YAML::Mark m = n.Mark();
    if (m.is_null()) return Status::error(name_ + ": " + msg);
    return Status::error(name_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": " + msg);
  }

  Status scalar(const YAML::Node& n, const std::string& field, std::string& out) const {
    if (!n.IsScalar()) return fail(n, field + ": expected a string");
    out = n.Scalar();
    return Status::ok();
  }

  Status boolean(const YAML::Node& n, const std::string& field, bool& out) const {
    auto b = n.IsScalar() ? base::parse_bool_word(n.Scalar()) : std::nullopt;
    if (!b) return fail(n, field + ": expected true or false");
    out = *b;
    return Status::ok();
  }

  Status duration(const YAML::Node& n, const std::string& field, int64_t& out) const {
    if (!n.IsScalar()) return fail(n, field + ": expected a duration");
    auto d = base::parse_duration_ms(n.Scalar());
    if (!d) return fail(n, field + ": " + d.error());
    out = *d;
    return Status::ok();
  }

  Status names(const YAML::Node& n, const std::string& field, std::vector<std::string>& out) const {
    if (!n.IsSequence()) return fail(n, field + ": expected a list of group names");
    for (const auto& item : n) {
      if (!item.IsScalar() || !valid_name(item.Scalar())) return fail(item, field + ": not a label name");
      out.push_back(item.Scalar());
    }
    return Status::ok();
  }

  Status multiline(const YAML::Node& n, Multiline& m) const {
    if (!n.IsMap()) return fail(n, "multiline: expected a mapping");
    m.enabled = true;
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      const YAML::Node& v = kv.second;
      Status s;
      if (key == "continue") {
        s = scalar(v, "multiline.continue", m.continue_regex);
        RE2 re(m.continue_regex, RE2::Quiet);
        if (s && !re.ok()) s = fail(v, "multiline.continue: " + re.error());
      } else if (key == "include_end") {
        s = boolean(v, "multiline.include_end", m.include_end);
      } else if (key == "max_lines") {
        auto i = v.IsScalar() ? base::parse_i64(v.Scalar()) : std::nullopt;
        if (!i || *i < 1)
          s = fail(v, "multiline.max_lines: expected a positive integer");
        else
          m.max_lines = static_cast<size_t>(*i);
      } else if (key == "timeout") {
        s = duration(v, "multiline.timeout", m.timeout_ms);
      } else {
        s = fail(kv.first, "multiline: unknown field \"" + key + "\"");
      }
      if (!s) return s;
    }
    return Status::ok();
  }

  Status rule(const YAML::Node& n, LogRule& r) const {
    if (!n.IsMap()) return fail(n, "a rule must be a mapping");
    r.origin = name_ + ":" + std::to_string(n.Mark().line + 1);
    bool has_regex = false, has_literal = false;
    YAML::Node pattern_node;
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      const YAML::Node& v = kv.second;
      Status s;
      if (key == "name") {
        s = scalar(v, "name", r.name);
        if (s && !valid_name(r.name)) s = fail(v, "name \"" + r.name + "\": letters, digits and _ only");
      } else if (key == "regex") {
        has_regex = true;
        pattern_node = v;
        s = scalar(v, "regex", r.pattern);
      } else if (key == "literal") {
        has_literal = true;
        pattern_node = v;
        r.literal = true;
        s = scalar(v, "literal", r.pattern);
      } else if (key == "case_insensitive") {
        s = boolean(v, "case_insensitive", r.case_insensitive);
      } else if (key == "severity") {
        std::string text;
        s = scalar(v, "severity", text);
        if (s && !parse_severity(text, r.severity))
          s = fail(v, "severity \"" + text + "\": expected info, warning, error or critical");
      } else if (key == "source") {
        std::string text;
        s = scalar(v, "source", text);
        if (text == "files")
          r.source = SourceKind::kFiles;
        else if (text == "kmsg")
          r.source = SourceKind::kKmsg;
        else if (text == "any")
          r.source = SourceKind::kAny;
        else if (!text.empty())
          r.source = SourceKind::kGlob, r.source_glob = text;
        else
          s = fail(v, "source: expected files, kmsg, any or a glob");
      } else if (key == "labels") {
        if (!v.IsMap()) s = fail(v, "labels: expected a mapping");
        for (const auto& l : v) {
          if (!s) break;
          if (!valid_name(l.first.Scalar()))
            s = fail(l.first, "labels: \"" + l.first.Scalar() + "\" is not a label name");
          else if (!l.second.IsScalar())
            s = fail(l.second, "labels: expected a string value");
          else
            r.labels[l.first.Scalar()] = l.second.Scalar();
        }
      } else if (key == "counter_labels") {
        s = names(v, "counter_labels", r.counter_labels);
      } else if (key == "dedup") {
        s = duration(v, "dedup", r.dedup_ms);
      } else if (key == "dedup_by") {
        s = names(v, "dedup_by", r.dedup_by);
      } else if (key == "multiline") {
        s = multiline(v, r.multiline);
      } else {
        s = fail(kv.first, "unknown field \"" + key + "\"");
      }
      if (!s) return s;
    }
    if (r.name.empty()) return fail(n, "a rule needs a name");
    if (has_regex == has_literal) return fail(n, "rule " + r.name + ": give exactly one of regex and literal");
    RE2::Options o;
    o.set_log_errors(false);
    o.set_literal(r.literal);
    o.set_case_sensitive(!r.case_insensitive);
    RE2 re(r.pattern, o);
    if (!re.ok()) return fail(pattern_node, "rule " + r.name + ": " + re.error());
    std::set<std::string> groups;
    for (const auto& [idx, group] : re.CapturingGroupNames()) groups.insert(group);
    for (const auto* list : {&r.counter_labels, &r.dedup_by})
      for (const std::string& g : *list)
        if (!groups.count(g)) return fail(n, "rule " + r.name + ": \"" + g + "\" is not a named group of its pattern");
    // Counter labels join rule, source and severity on llmon_log_matches_total,
    // which the agent stores with job and instance.
    for (const std::string& g : r.counter_labels) {
      if (g == "rule" || g == "source" || g == "severity" || g == "job" || g == "instance" || g.rfind("__", 0) == 0 ||
          std::isdigit(static_cast<unsigned char>(g[0])))
        return fail(n, "rule " + r.name + ": counter label \"" + g + "\" is reserved or not a label name");
    }
    return Status::ok();
  }

 private:
  const std::string& name_;
};

}  // namespace

Expected<std::vector<LogRule>> parse_log_rules(std::string_view yaml, const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return Status::error(name + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": " +
                         e.msg);
  }
  Parser p(name);
  std::vector<LogRule> out;
  if (root.IsNull()) return out;
  if (!root.IsMap()) return p.fail(root, "expected a mapping with \"rules\"");
  for (const auto& kv : root) {
    if (kv.first.Scalar() != "rules") return p.fail(kv.first, "unknown field \"" + kv.first.Scalar() + "\"");
    if (!kv.second.IsSequence() && !kv.second.IsNull()) return p.fail(kv.second, "rules: expected a list");
    std::set<std::string> seen;
    for (const auto& item : kv.second) {
      LogRule r;
      Status s = p.rule(item, r);
      if (!s) return s;
      if (!seen.insert(r.name).second) return p.fail(item, "rule " + r.name + " is defined twice");
      out.push_back(std::move(r));
    }
  }
  return out;
}

Status merge_log_rules(std::vector<LogRule>& into, std::vector<LogRule> more) {
  for (LogRule& r : more) {
    for (const LogRule& old : into)
      if (old.name == r.name)
        return Status::error(r.origin + ": rule " + r.name + " is already defined at " + old.origin);
    into.push_back(std::move(r));
  }
  return Status::ok();
}

bool source_selected(const LogRule& rule, std::string_view source, bool is_kmsg) {
  switch (rule.source) {
    case SourceKind::kAny:
      return true;
    case SourceKind::kKmsg:
      return is_kmsg;
    case SourceKind::kFiles:
      return !is_kmsg;
    case SourceKind::kGlob:
      return !is_kmsg && ::fnmatch(rule.source_glob.c_str(), std::string(source).c_str(), 0) == 0;
  }
  return false;
}

}  // namespace llmon::logwatch
