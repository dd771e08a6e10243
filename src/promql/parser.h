// PromQL parser and printer: text <-> ast.h.
//
// parse() accepts Prometheus 3.x's grammar for float queries (see
// docs/promql-compat.md for what is rejected): literals (decimal, hex, octal,
// exponent, Inf, NaN; strings in "", '' and ``), durations (`1h30m`, `1.5`
// seconds are not durations), selectors with the four matchers, offset (also
// negative), @ with start()/end(), subqueries, unary and binary operators with
// Prometheus precedence and associativity (`^` right-associative, the rest
// left), `bool`, on/ignoring, group_left/group_right, set operators,
// aggregations with by/without before or after the arguments, function calls
// type-checked against function_table.h, and `#` comments.
//
// Errors are returned, never thrown, as a ParseError carrying the 0-based
// byte position and a message in Prometheus's wording where it has one
// ("unexpected <op:+>", "expected type instant vector in aggregation
// expression, got range vector", ...). to_string() renders it as Prometheus
// does: "1:5: parse error: unexpected ..." (line:column, 1-based).
//
// format() prints an AST back as canonical PromQL (Prometheus's String()):
// parse(format(parse(q))) yields a tree equal to parse(q), and format is a
// fixed point after one round. Pure functions, no I/O, thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "promql/ast.h"

namespace llmon::promql {

struct ParseError {
  int pos = 0;  // byte offset into the query
  std::string message;
  // "L:C: parse error: message" for `query`.
  std::string to_string(std::string_view query) const;
};

struct ParseResult {
  ExprPtr expr;     // set on success
  ParseError error; // meaningful when !expr
  bool ok() const { return expr != nullptr; }
};

ParseResult parse(std::string_view query);

// Parses one selector, e.g. a `match[]` parameter of /api/v1/series:
// `up`, `{job="x"}`, `foo{a=~"b.*"}`. Anything else is an error. Like
// Prometheus's ParseMetricSelector it runs no type checks: `{}` parses, and
// the caller rejects selectors without a non-empty matcher.
ParseResult parse_selector(std::string_view text);

// Prometheus duration syntax ("5m", "1h30m", "2d", "1y", "500ms"); units
// y w d h m s ms, each at most once and in that order. Errors name the text.
Expected<int64_t> parse_duration_ms(std::string_view text);
// Shortest Prometheus form: 90000 -> "1m30s", 0 -> "0s", negative -> "-5m".
std::string format_duration_ms(int64_t ms);

// Canonical text of an expression (Prometheus's String()).
std::string format(const Expr& e);
// Prometheus's /api/v1/format_query prettifier is not required to match
// byte for byte; pretty() indents nested calls/aggregations when the one-line
// form is longer than 100 columns, else returns format().
std::string pretty(const Expr& e);

}  // namespace llmon::promql
