// PromQL printer (parser.h): format() is Prometheus's Expr.String()
// (promql/parser/printer.go) -- no parentheses beyond the ParenExpr nodes,
// matchers sorted as strings with the metric name in front, `@` before
// `offset`, numbers as Go's %v, strings as strconv.Quote, durations as
// model.Duration. pretty() follows Prometheus's prettier.go: a node whose
// one-line form exceeds 100 columns is split, children indented by two
// spaces.
#include <algorithm>

#include "go/strconv.h"
#include "model/metric.h"
#include "promql/function_table.h"
#include "promql/parser.h"
#include "promql/parser_internal.h"

namespace llmon::promql {

namespace {

constexpr size_t kMaxLineColumns = 100;

void append_label_list(std::string& out, const std::vector<std::string>& labels) {
  out += '(';
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ", ";
    if (model::is_valid_label_name(labels[i])) {
      out += labels[i];
    } else {
      go::append_quoted(out, labels[i]);
    }
  }
  out += ')';
}

std::string_view matcher_op(model::Matcher::Type t) {
  switch (t) {
    case model::Matcher::Type::kEq:
      return "=";
    case model::Matcher::Type::kNeq:
      return "!=";
    case model::Matcher::Type::kRe:
      return "=~";
    case model::Matcher::Type::kNre:
      return "!~";
  }
  return "=";
}

void append_at_offset(std::string& out, const AtModifier& at, int64_t offset_ms) {
  switch (at.kind) {
    case AtKind::kTimestamp:
      out += " @ ";
      out += go::format_float_fixed(static_cast<double>(at.t_ms) / 1000.0, 3);
      break;
    case AtKind::kStart:
      out += " @ start()";
      break;
    case AtKind::kEnd:
      out += " @ end()";
      break;
    case AtKind::kNone:
      break;
  }
  if (offset_ms != 0) out += " offset " + format_duration_ms(offset_ms);  // negative: "-5m"
}

void append_selector(std::string& out, const VectorSelector& vs, bool modifiers) {
  std::vector<std::string> parts;
  for (const auto& m : vs.matchers) {
    if (m.name == "__name__" && m.type == model::Matcher::Type::kEq && m.value == vs.name && !m.value.empty()) continue;
    std::string s;
    if (model::is_valid_label_name(m.name)) {
      s = m.name;
    } else {
      go::append_quoted(s, m.name);
    }
    s += matcher_op(m.type);
    go::append_quoted(s, m.value);
    parts.push_back(std::move(s));
  }
  out += vs.name;
  if (!parts.empty()) {
    std::sort(parts.begin(), parts.end());
    out += '{';
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) out += ',';
      out += parts[i];
    }
    out += '}';
  }
  if (modifiers) append_at_offset(out, vs.at, vs.offset_ms);
}

// `op by (a) ` / `op without (a) ` / `op`, as Prometheus's getAggOpStr.
std::string aggregate_head(const AggregateExpr& a) {
  std::string out(aggop_text(a.op));
  if (a.without || !a.grouping.empty()) {
    out += a.without ? " without " : " by ";
    append_label_list(out, a.grouping);
    out += ' ';
  }
  return out;
}

// ` bool on (a) group_left (b)`, as Prometheus's returnBool + getMatchingStr.
std::string binary_modifiers(const BinaryExpr& b) {
  std::string out = b.return_bool ? " bool" : "";
  if (!b.matching) return out;
  const VectorMatching& vm = *b.matching;
  bool grouped = vm.card == VectorMatching::Card::kManyToOne || vm.card == VectorMatching::Card::kOneToMany;
  if (!vm.labels.empty() || vm.on || grouped) {
    out += vm.on ? " on " : " ignoring ";
    append_label_list(out, vm.labels);
  }
  if (grouped) {
    out += vm.card == VectorMatching::Card::kManyToOne ? " group_left " : " group_right ";
    append_label_list(out, vm.include);
  }
  return out;
}

std::string subquery_suffix(const SubqueryExpr& s) {
  std::string out = "[";
  out += format_duration_ms(s.range_ms);
  out += ':';
  if (s.step_ms != 0) out += format_duration_ms(s.step_ms);
  out += ']';
  append_at_offset(out, s.at, s.offset_ms);
  return out;
}

struct Printer {
  std::string& out;

  void print(const Expr& e) {
    std::visit([&](const auto& n) { node(n); }, e.node);
  }
  void node(const NumberLiteral& n) { out += go::format_float(n.value); }
  void node(const StringLiteral& s) { go::append_quoted(out, s.value); }
  void node(const VectorSelector& vs) { append_selector(out, vs, true); }
  void node(const MatrixSelector& m) {
    const auto& vs = std::get<VectorSelector>(m.selector->node);
    append_selector(out, vs, false);
    out += '[';
    out += format_duration_ms(m.range_ms);
    out += ']';
    append_at_offset(out, vs.at, vs.offset_ms);
  }
  void node(const SubqueryExpr& s) {
    print(*s.expr);
    out += subquery_suffix(s);
  }
  void node(const ParenExpr& p) {
    out += '(';
    print(*p.expr);
    out += ')';
  }
  void node(const UnaryExpr& u) {
    out += u.negate ? '-' : '+';
    print(*u.expr);
  }
  void node(const BinaryExpr& b) {
    print(*b.lhs);
    out += ' ';
    out += binop_text(b.op);
    out += binary_modifiers(b);
    out += ' ';
    print(*b.rhs);
  }
  void node(const AggregateExpr& a) {
    out += aggregate_head(a);
    out += '(';
    if (a.param) {
      print(*a.param);
      out += ", ";
    }
    print(*a.expr);
    out += ')';
  }
  void node(const Call& c) {
    out += c.func ? c.func->name : "?";
    out += '(';
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (i > 0) out += ", ";
      print(*c.args[i]);
    }
    out += ')';
  }
};

std::string indent(int level) {
  return std::string(static_cast<size_t>(level) * 2, ' ');
}

std::string pretty_at(const Expr& e, int level) {
  std::string one = format(e);
  if (one.size() <= kMaxLineColumns) return indent(level) + one;
  if (const auto* a = std::get_if<AggregateExpr>(&e.node)) {
    std::string s = indent(level) + aggregate_head(*a) + "(\n";
    if (a->param) s += pretty_at(*a->param, level + 1) + ",\n";
    return s + pretty_at(*a->expr, level + 1) + "\n" + indent(level) + ")";
  }
  if (const auto* b = std::get_if<BinaryExpr>(&e.node)) {
    return pretty_at(*b->lhs, level + 1) + "\n" + indent(level) + std::string(binop_text(b->op)) +
           binary_modifiers(*b) + "\n" + pretty_at(*b->rhs, level + 1);
  }
  if (const auto* c = std::get_if<Call>(&e.node)) {
    std::string s = indent(level) + std::string(c->func ? c->func->name : "?") + "(\n";
    for (size_t i = 0; i < c->args.size(); ++i)
      s += pretty_at(*c->args[i], level + 1) + (i + 1 < c->args.size() ? ",\n" : "");
    return s + "\n" + indent(level) + ")";
  }
  if (const auto* p = std::get_if<ParenExpr>(&e.node))
    return indent(level) + "(\n" + pretty_at(*p->expr, level + 1) + "\n" + indent(level) + ")";
  if (const auto* s = std::get_if<SubqueryExpr>(&e.node)) return pretty_at(*s->expr, level) + subquery_suffix(*s);
  if (const auto* u = std::get_if<UnaryExpr>(&e.node)) {
    std::string child = pretty_at(*u->expr, level);
    child.erase(0, child.find_first_not_of(" \n"));
    return indent(level) + (u->negate ? "-" : "+") + child;
  }
  return indent(level) + one;
}

}  // namespace

std::string format(const Expr& e) {
  std::string out;
  Printer{out}.print(e);
  return out;
}

std::string pretty(const Expr& e) {
  return pretty_at(e, 0);
}

}  // namespace llmon::promql
