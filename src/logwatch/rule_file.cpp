#include "logwatch/rule_file.h"

#include <fnmatch.h>
#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "base/strings.h"
#include "go/strconv.h"
#include "model/metric.h"

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

// Labels a metric series may not take from a rule: the agent's own and the
// histogram's bucket bound.
bool reserved_metric_label(std::string_view l) {
  return l == "source" || l == "job" || l == "instance" || l == "le" || l.rfind("__", 0) == 0;
}

std::string at(const std::string& origin) {
  return origin.empty() ? std::string("another rule") : origin;
}

// The label names of a metric's series (without source), sorted.
std::vector<std::string> series_labels(const LogRule& r, const LogMetric& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : r.labels) out.push_back(k);
  out.insert(out.end(), m.labels.begin(), m.labels.end());
  std::sort(out.begin(), out.end());
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
  return s + "}";
}

// One metric name: one type, one label set, one bucket list, in every rule;
// no histogram's _bucket/_sum/_count is another metric's name.
Status check_metrics(const std::vector<const LogRule*>& rules) {
  struct Seen {
    const LogRule* rule;
    const LogMetric* metric;
    std::vector<std::string> labels;
  };
  std::map<std::string, Seen> seen;
  for (const LogRule* r : rules) {
    for (const LogMetric& m : r->metrics) {
      std::vector<std::string> labels = series_labels(*r, m);
      auto [it, fresh] = seen.try_emplace(m.name, Seen{r, &m, labels});
      if (fresh) continue;
      const Seen& old = it->second;
      const std::string where = m.origin + ": metric " + m.name + " (rule " + r->name + ")";
      if (old.metric->kind != m.kind)
        return Status::error(where + " is a " + std::string(metric_kind_name(m.kind)) + " but a " +
                             std::string(metric_kind_name(old.metric->kind)) + " at " + at(old.metric->origin));
      if (old.labels != labels)
        return Status::error(where + " has labels " + join(labels) + " but " + join(old.labels) + " at " +
                             at(old.metric->origin));
      if (old.metric->buckets != m.buckets)
        return Status::error(where + " has other buckets than at " + at(old.metric->origin));
    }
  }
  for (const auto& [name, s] : seen) {
    if (s.metric->kind != MetricKind::kHistogram) continue;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      auto it = seen.find(name + suffix);
      if (it != seen.end())
        return Status::error(it->second.metric->origin + ": metric " + it->first + " is a series of histogram " + name +
                             " at " + at(s.metric->origin));
    }
  }
  return Status::ok();
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

  Status number(const YAML::Node& n, const std::string& field, double& out) const {
    auto v = n.IsScalar() ? go::parse_float(n.Scalar()) : Expected<double>(Status::error("not a scalar"));
    if (!v || !std::isfinite(*v)) return fail(n, field + ": expected a finite number");
    out = *v;
    return Status::ok();
  }

  // The fields of one metrics entry; groups are checked by rule().
  Status metric(const YAML::Node& n, LogMetric& m, bool& has_type) const {
    if (!n.IsMap()) return fail(n, "metrics: an entry must be a mapping");
    const YAML::Mark mark = n.Mark();
    m.origin = name_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
    bool has_buckets = false, has_scale = false;
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      const YAML::Node& v = kv.second;
      Status s;
      if (key == "name") {
        s = scalar(v, "metrics.name", m.name);
        if (s && !model::is_valid_metric_name(m.name))
          s = fail(v, "metrics.name \"" + m.name + "\": not a Prometheus metric name");
        else if (s && m.name.rfind("llmon_", 0) == 0)
          s = fail(v, "metrics.name \"" + m.name + "\": llmon_ names are the agent's own");
      } else if (key == "type") {
        std::string text;
        s = scalar(v, "metrics.type", text);
        has_type = true;
        if (text == "counter")
          m.kind = MetricKind::kCounter;
        else if (text == "gauge")
          m.kind = MetricKind::kGauge;
        else if (text == "histogram")
          m.kind = MetricKind::kHistogram;
        else if (s)
          s = fail(v, "metrics.type \"" + text + "\": expected counter, gauge or histogram");
      } else if (key == "value") {
        s = scalar(v, "metrics.value", m.value);
        if (s && !valid_name(m.value)) s = fail(v, "metrics.value: not a group name");
      } else if (key == "scale") {
        has_scale = true;
        s = number(v, "metrics.scale", m.scale);
        if (s && m.scale == 0) s = fail(v, "metrics.scale: must not be 0");
      } else if (key == "cumulative") {
        s = boolean(v, "metrics.cumulative", m.cumulative);
      } else if (key == "labels") {
        s = names(v, "metrics.labels", m.labels);
      } else if (key == "buckets") {
        has_buckets = true;
        if (!v.IsSequence() || v.size() == 0) s = fail(v, "metrics.buckets: expected a list of numbers");
        for (const auto& b : v) {
          if (!s) break;
          double x = 0;
          s = number(b, "metrics.buckets", x);
          if (s && !m.buckets.empty() && x <= m.buckets.back()) s = fail(b, "metrics.buckets: must ascend");
          if (s) m.buckets.push_back(x);
        }
      } else if (key == "help") {
        s = scalar(v, "metrics.help", m.help);
      } else {
        s = fail(kv.first, "metrics: unknown field \"" + key + "\"");
      }
      if (!s) return s;
    }
    if (m.name.empty()) return fail(n, "metrics: an entry needs a name");
    if (!has_type) return fail(n, "metric " + m.name + ": needs a type (counter, gauge or histogram)");
    if (m.value.empty() && m.kind != MetricKind::kCounter)
      return fail(n, "metric " + m.name + ": a " + std::string(metric_kind_name(m.kind)) + " needs a value group");
    if (has_buckets && m.kind != MetricKind::kHistogram)
      return fail(n, "metric " + m.name + ": buckets are for histograms");
    if (m.cumulative && (m.kind != MetricKind::kCounter || m.value.empty()))
      return fail(n, "metric " + m.name + ": cumulative is for counters with a value group");
    if (has_scale && m.value.empty()) return fail(n, "metric " + m.name + ": scale needs a value group");
    if (m.kind == MetricKind::kHistogram && !has_buckets) m.buckets = default_buckets();
    return Status::ok();
  }

  // A rule's metrics against its pattern's groups and labels.
  Status check_rule_metrics(const YAML::Node& node, const LogRule& r, const std::set<std::string>& groups) const {
    if (!r.metrics.empty()) {
      for (const auto& [k, v] : r.labels)
        if (reserved_metric_label(k))
          return fail(node, "rule " + r.name + ": label \"" + k + "\" is reserved for the metrics' series");
    }
    std::set<std::string> names;
    for (size_t i = 0; i < r.metrics.size(); ++i) {
      const LogMetric& m = r.metrics[i];
      const YAML::Node& mn = metric_nodes_[i];
      if (!names.insert(m.name).second) return fail(mn, "rule " + r.name + ": metric " + m.name + " is given twice");
      if (!m.value.empty() && !groups.count(m.value))
        return fail(mn, "metric " + m.name + ": value \"" + m.value + "\" is not a named group of the pattern");
      std::set<std::string> seen;
      for (const std::string& l : m.labels) {
        if (!groups.count(l))
          return fail(mn, "metric " + m.name + ": label \"" + l + "\" is not a named group of the pattern");
        if (reserved_metric_label(l)) return fail(mn, "metric " + m.name + ": label \"" + l + "\" is reserved");
        if (r.labels.count(l))
          return fail(mn, "metric " + m.name + ": label \"" + l + "\" is also one of the rule's labels");
        if (!seen.insert(l).second) return fail(mn, "metric " + m.name + ": label \"" + l + "\" is given twice");
      }
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
      } else if (key == "event") {
        s = boolean(v, "event", r.event);
      } else if (key == "metrics") {
        if (!v.IsSequence()) s = fail(v, "metrics: expected a list");
        metric_nodes_.clear();
        for (const auto& item : v) {
          if (!s) break;
          LogMetric m;
          bool has_type = false;
          s = metric(item, m, has_type);
          if (s) {
            r.metrics.push_back(std::move(m));
            metric_nodes_.push_back(item);
          }
        }
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
    if (!r.event && r.multiline.enabled) return fail(n, "rule " + r.name + ": multiline needs event: true");
    if (!r.event && (r.dedup_ms > 0 || !r.dedup_by.empty()))
      return fail(n, "rule " + r.name + ": dedup and dedup_by need event: true");
    if (!r.metrics.empty()) {
      Status s = check_rule_metrics(n, r, groups);
      if (!s) return s;
    }
    for (LogMetric& m : r.metrics)
      if (m.help.empty()) m.help = "Taken from log lines by the rule " + r.name + ".";
    return Status::ok();
  }

 private:
  const std::string& name_;
  mutable std::vector<YAML::Node> metric_nodes_;  // the rule's metrics entries, for messages
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
  std::vector<const LogRule*> all;
  for (const LogRule& r : out) all.push_back(&r);
  Status s = check_metrics(all);
  if (!s) return s;
  return out;
}

Status merge_log_rules(std::vector<LogRule>& into, std::vector<LogRule> more) {
  std::vector<const LogRule*> all;
  for (const LogRule& r : into) all.push_back(&r);
  for (const LogRule& r : more) all.push_back(&r);
  Status checked = check_metrics(all);
  if (!checked) return checked;
  for (LogRule& r : more) {
    for (const LogRule& old : into)
      if (old.name == r.name)
        return Status::error(r.origin + ": rule " + r.name + " is already defined at " + old.origin);
    into.push_back(std::move(r));
  }
  return Status::ok();
}

std::string_view metric_kind_name(MetricKind k) {
  switch (k) {
    case MetricKind::kCounter:
      return "counter";
    case MetricKind::kGauge:
      return "gauge";
    case MetricKind::kHistogram:
      return "histogram";
  }
  return "counter";
}

const std::vector<double>& default_buckets() {
  static const std::vector<double> kBuckets = {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10};
  return kBuckets;
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
