// Rule file parsing and validation (rule_file.h): the decode follows
// Prometheus 2.42's model/rulefmt (RuleGroups -> RuleGroup -> RuleNode with
// yaml.v3 KnownFields), the checks its RuleGroups.Validate and
// RuleNode.Validate, in the same order and words.
#include "rules/rule_file.h"

#include <algorithm>
#include <climits>

#include "go/strconv.h"
#include "promql/parser.h"
#include "rules/rule_file_yaml.h"
#include "rules/template.h"

namespace llmon::rules {

namespace {

using yaml::Decoder;
using yaml::MapEntry;
using yaml::Node;

// A yaml.Node field of rulefmt.RuleNode (record, alert, expr): Go keeps the
// node, so its Value is the scalar's text (also a null's: `expr: null` is the
// PromQL `null`); collections have none.
struct NodeField {
  std::string value;
  const Node* key = nullptr;
  const Node* node = nullptr;  // null when the key is absent
};

struct RawRule {
  const Node* node = nullptr;
  NodeField record, alert, expr;
  int64_t for_ms = 0;
  int64_t keep_firing_for_ms = 0;
  std::vector<MapEntry> labels;
  std::vector<MapEntry> annotations;
  std::shared_ptr<const promql::Expr> parsed;  // set by validation
};

struct RawGroup {
  const Node* node = nullptr;
  const Node* name_key = nullptr;
  std::string name;
  int64_t interval_ms = 0;
  int64_t limit = 0;
  std::optional<int64_t> query_offset_ms;
  std::vector<MapEntry> labels;
  std::vector<RawRule> rules;
};

void node_field(const Node& key, const Node& value, NodeField& out) {
  const Node& n = Decoder::deref(value);
  out.key = &key;
  out.node = &value;
  out.value = (n.kind == Node::Kind::kScalar || n.kind == Node::Kind::kNull) ? n.value : "";
}

void decode_rule(Decoder& dec, const Node& item, std::vector<RawRule>& out) {
  RawRule r;
  r.node = &Decoder::deref(item);
  static const std::vector<std::string_view> kFields = {"record",          "alert",  "expr",       "for",
                                                        "keep_firing_for", "labels", "annotations"};
  dec.structure(item, "rulefmt.RuleNode", kFields, [&](size_t f, const Node& k, const Node& v) {
    switch (f) {
      case 0:
        node_field(k, v, r.record);
        break;
      case 1:
        node_field(k, v, r.alert);
        break;
      case 2:
        node_field(k, v, r.expr);
        break;
      case 3:
        dec.duration(v, r.for_ms);
        break;
      case 4:
        dec.duration(v, r.keep_firing_for_ms);
        break;
      case 5:
        dec.string_map(v, "map[string]string", r.labels);
        break;
      case 6:
        dec.string_map(v, "map[string]string", r.annotations);
        break;
    }
  });
  out.push_back(std::move(r));
}

void decode_group(Decoder& dec, const Node& item, std::vector<RawGroup>& out) {
  RawGroup g;
  g.node = &Decoder::deref(item);
  static const std::vector<std::string_view> kFields = {"name", "interval", "limit", "rules", "labels", "query_offset"};
  dec.structure(item, "rulefmt.RuleGroup", kFields, [&](size_t f, const Node& k, const Node& v) {
    switch (f) {
      case 0:
        g.name_key = &k;
        dec.str(v, g.name);
        break;
      case 1:
        dec.duration(v, g.interval_ms);
        break;
      case 2:
        dec.integer(v, g.limit);
        break;
      case 3:
        dec.sequence(v, "[]rulefmt.RuleNode", true, [&](const Node& r) { decode_rule(dec, r, g.rules); });
        break;
      case 4:
        dec.string_map(v, "map[string]string", g.labels);
        break;
      case 5: {
        int64_t ms = 0;
        if (dec.duration(v, ms)) g.query_offset_ms = ms;
        break;
      }
    }
  });
  out.push_back(std::move(g));
}

std::string pos_of(const Node& n) {
  return std::to_string(n.line) + ":" + std::to_string(n.column);
}

StringPairs to_pairs(const std::vector<MapEntry>& entries) {
  StringPairs out;
  out.reserve(entries.size());
  for (const auto& e : entries) out.emplace_back(e.key, e.value);
  return out;
}

class Validator {
 public:
  Validator(std::string_view file, std::vector<std::string>& errors) : file_(file), errors_(errors) {}

  void group(RawGroup& g, std::vector<std::string>& seen) {
    if (g.name.empty()) add(pos_of(*g.node) + ": Groupname must not be empty");
    bool repeated = false;
    for (const auto& s : seen) repeated = repeated || s == g.name;
    if (repeated) add(pos_of(*g.node) + ": groupname: \"" + g.name + "\" is repeated in the same file");
    seen.push_back(g.name);
    for (const auto& l : g.labels) {
      if (!is_valid_label_name(l.key) || l.key == "__name__") {
        add(pos_of(*l.key_node) + ": group " + go::quote(g.name) + ": invalid label name: " + l.key);
      }
    }
    for (size_t i = 0; i < g.rules.size(); ++i) rule(g, i + 1, g.rules[i]);
  }

 private:
  void add(std::string msg) { errors_.push_back(std::string(file_) + ": " + msg); }

  void rule(const RawGroup& g, size_t index, RawRule& r) {
    const std::string& name = r.alert.value.empty() ? r.record.value : r.alert.value;
    std::string ctx = "group " + go::quote(g.name) + ", rule " + std::to_string(index) + ", " +
                      go::quote(name) + ": ";
    // Where promtool prints 0:0 (a key that is absent), we point at the rule.
    auto at = [&](const NodeField& f) { return pos_of(f.node ? *f.node : *r.node) + ": "; };
    auto err = [&](const std::string& where, const std::string& msg) { add(where + ctx + msg); };

    const bool is_record = !r.record.value.empty();
    const bool is_alert = !r.alert.value.empty();
    if (is_record && is_alert) err(at(r.record) + at(r.alert), "only one of 'record' and 'alert' must be set");
    if (!is_record && !is_alert) err(at(r.record), "one of 'record' or 'alert' must be set");

    if (r.expr.value.empty()) {
      err(at(r.expr), "field 'expr' must be set in rule");
    } else {
      promql::ParseResult p = promql::parse(r.expr.value);
      if (p.ok()) {
        r.parsed = std::shared_ptr<const promql::Expr>(std::move(p.expr));
      } else {
        err(at(r.expr), "could not parse expression: " + p.error.to_string(r.expr.value));
      }
    }
    if (is_record) {
      if (!r.annotations.empty()) err(at(r.record), "invalid field 'annotations' in recording rule");
      if (r.for_ms != 0) err(at(r.record), "invalid field 'for' in recording rule");
      if (r.keep_firing_for_ms != 0) err(at(r.record), "invalid field 'keep_firing_for' in recording rule");
      if (!is_valid_metric_name(r.record.value)) {
        err(at(r.record), "invalid recording rule name: " + r.record.value);
      }
    }
    for (const auto& l : r.labels) {
      if (!is_valid_label_name(l.key) || l.key == "__name__") {
        err(pos_of(*l.key_node) + ": ", "invalid label name: " + l.key);
      }
    }
    for (const auto& a : r.annotations) {
      if (!is_valid_label_name(a.key)) err(pos_of(*a.key_node) + ": ", "invalid annotation name: " + a.key);
    }
    if (!is_alert) return;
    // Templates: Prometheus parses them as "__alert_<name>" with its
    // variable definitions prepended; the error is Go's parse error.
    const std::string prefix = "error parsing template __alert_" + r.alert.value + ": ";
    auto check = [&](const MapEntry& e, std::string_view what) {
      auto t = parse_alert_template(r.alert.value, e.value);
      if (t) return;
      std::string msg = t.error();
      if (msg.compare(0, prefix.size(), prefix) == 0) msg.erase(0, prefix.size());
      err(pos_of(*e.value_node) + ": ", std::string(what) + " " + go::quote(e.key) + ": " + msg);
    };
    for (const auto& l : r.labels) check(l, "label");
    for (const auto& a : r.annotations) check(a, "annotation");
  }

  std::string_view file_;
  std::vector<std::string>& errors_;
};

GroupSpec to_spec(std::string_view file, const RawGroup& g) {
  GroupSpec spec;
  spec.name = g.name;
  spec.file = std::string(file);
  spec.interval_ms = g.interval_ms;
  spec.limit = static_cast<int>(std::clamp<int64_t>(g.limit, INT_MIN, INT_MAX));
  spec.query_offset_ms = g.query_offset_ms;
  spec.labels = to_pairs(g.labels);
  const Node& gpos = g.name_key ? *g.name_key : *g.node;
  spec.pos = SourcePos{std::string(file), gpos.line, gpos.column};
  for (const RawRule& r : g.rules) {
    RuleSpec rs;
    const bool alert = !r.alert.value.empty();
    rs.kind = alert ? RuleSpec::Kind::kAlerting : RuleSpec::Kind::kRecording;
    rs.name = alert ? r.alert.value : r.record.value;
    rs.expr = r.expr.value;
    rs.parsed = r.parsed;
    rs.for_ms = r.for_ms;
    rs.keep_firing_for_ms = r.keep_firing_for_ms;
    rs.labels = to_pairs(r.labels);
    rs.annotations = to_pairs(r.annotations);
    const Node* key = alert ? r.alert.key : r.record.key;
    const Node& rpos = key ? *key : *r.node;
    rs.pos = SourcePos{std::string(file), rpos.line, rpos.column};
    spec.rules.push_back(std::move(rs));
  }
  return spec;
}

}  // namespace

size_t RuleFileResult::rule_count() const {
  size_t n = 0;
  for (const auto& g : groups) n += g.rules.size();
  return n;
}

RuleFileResult parse_rule_file(std::string_view file, std::string_view content) {
  RuleFileResult result;
  const std::string prefix = std::string(file) + ": ";
  auto root = yaml::parse(content);
  if (!root) {
    result.errors.push_back(prefix + root.error());
    return result;
  }
  Decoder dec(yaml::Dialect::kV3);
  std::vector<RawGroup> groups;
  if (*root) {
    dec.structure(**root, "rulefmt.RuleGroups", {"groups"}, [&](size_t, const Node&, const Node& v) {
      dec.sequence(v, "[]rulefmt.RuleGroup", true, [&](const Node& g) { decode_group(dec, g, groups); });
    });
  }
  if (!dec.ok()) {
    if (!dec.type_errors().empty()) {
      std::string msg = prefix + "yaml: unmarshal errors:";
      for (const auto& e : dec.type_errors()) msg += "\n  " + e;
      result.errors.push_back(std::move(msg));
    }
    for (const auto& e : dec.fatal_errors()) result.errors.push_back(prefix + e);
    return result;
  }
  Validator v(file, result.errors);
  std::vector<std::string> seen;
  for (RawGroup& g : groups) v.group(g, seen);
  if (!result.errors.empty()) return result;
  for (const RawGroup& g : groups) result.groups.push_back(to_spec(file, g));
  return result;
}

}  // namespace llmon::rules
