// Internals shared by the PromQL parser's files (parser.cpp, parser_check.cpp,
// parser_tokens.cpp, matcher_regex.cpp); not part of the promql API. ParseFailure is thrown
// inside the parser only and caught by parse()/parse_selector(): exceptions
// never leave the parser.
#pragma once

#include <string>
#include <string_view>

#include "promql/ast.h"
#include "promql/lexer.h"

namespace llmon::promql::internal {

struct ParseFailure {
  int pos = 0;
  std::string message;
};

// Prometheus's checkAST: the type checks run after a syntactically valid
// parse, in Prometheus's order; throws ParseFailure at the first error.
// Also normalises BinaryExpr::matching (kManyToMany for set operators,
// dropped unless both sides are instant vectors), as Prometheus does.
void check_ast(Expr& e, std::string_view query);

// The compile error of a =~/!~ matcher value (anchored as Prometheus does),
// in Go's regexp wording ("error parsing regexp: missing closing ): `...`"),
// or "" when it compiles.
std::string regex_error(std::string_view value);
// labels.Matcher.Matches("").
bool matches_empty(const model::Matcher& m);

// Grammar tables (parser_tokens.cpp). Binary operator precedence, higher
// binds tighter (or 1, and/unless 2, comparisons 3, + - 4, * / % atan2 5,
// ^ 6), -1 for tokens that are not binary operators.
int precedence(Tok t);
BinOp to_binop(Tok t);  // t must be a binary operator
AggOp to_aggop(Tok t);  // t must be an aggregator
// Tokens the grammar accepts as a metric name (metric_identifier).
bool is_metric_name_token(Tok t);
// Tokens accepted as labels in by/without/on/ignoring/group_x lists
// (maybe_label): identifiers and every keyword except `without`.
bool is_maybe_label_token(Tok t);

}  // namespace llmon::promql::internal
