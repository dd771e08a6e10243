// The PromQL abstract syntax tree, as produced by parser.h and consumed by the
// printer and the engine. Mirrors Prometheus's promql/parser/ast.go: the same
// node kinds, the same fields, the same value types, so semantics and error
// messages can follow Prometheus one to one.
//
// Ownership: an Expr owns its children (unique_ptr); trees are move-only.
// Positions are byte offsets into the query text ([start, end)), used in
// error messages ("1:5: parse error: ...").
// Times and durations are int64 milliseconds throughout.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "storage/storage.h"

namespace llmon::promql {

// The type of an expression's result. kNone only for invalid trees.
enum class ValueType { kNone, kScalar, kVector, kMatrix, kString };
// "scalar", "instant vector", "range vector", "string" (Prometheus's
// DocumentedType, used in type errors); "none" for kNone.
std::string_view documented_type(ValueType t);
// "scalar", "vector", "matrix", "string": the API's resultType.
std::string_view api_type(ValueType t);

struct PosRange {
  int start = 0;  // byte offset of the first character
  int end = 0;    // byte offset one past the last character
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// Binary operators, in no particular order (precedence lives in the parser).
enum class BinOp {
  kAdd, kSub, kMul, kDiv, kMod, kPow, kAtan2,   // arithmetic
  kEql, kNeq, kGtr, kLss, kGte, kLte,           // comparison
  kAnd, kOr, kUnless,                            // set operators (vector/vector only)
};
std::string_view binop_text(BinOp op);  // "+", "==", "and", "atan2", ...
bool is_comparison(BinOp op);
bool is_set_operator(BinOp op);

enum class AggOp {
  kSum, kAvg, kMin, kMax, kCount, kGroup, kStddev, kStdvar,
  kTopk, kBottomk, kQuantile, kCountValues, kLimitk, kLimitRatio,
};
std::string_view aggop_text(AggOp op);  // "sum", "count_values", "limit_ratio", ...
// True for the aggregations that take a parameter (topk, bottomk, quantile,
// count_values, limitk, limit_ratio).
bool aggop_has_param(AggOp op);

// `@` modifier of a selector or subquery.
enum class AtKind { kNone, kTimestamp, kStart, kEnd };
struct AtModifier {
  AtKind kind = AtKind::kNone;
  int64_t t_ms = 0;  // only for kTimestamp
};

struct NumberLiteral {
  double value = 0;
};

struct StringLiteral {
  std::string value;  // unescaped
};

// foo{a="b"} offset 5m @ 123
// `matchers` holds every matcher of the selector, including the `__name__`
// equality matcher synthesised from a leading metric name (as Prometheus's
// parser does); `name` is that leading name ("" when the selector has none).
struct VectorSelector {
  std::string name;
  std::vector<model::Matcher> matchers;
  int64_t offset_ms = 0;  // may be negative
  AtModifier at;
};

// foo[5m]: `selector` is always an Expr holding a VectorSelector; offset and
// @ are stored on that VectorSelector (as Prometheus does).
struct MatrixSelector {
  ExprPtr selector;
  int64_t range_ms = 0;
};

// expr[range:step] offset x @ t. step_ms == 0 means "the default evaluation
// interval" (the engine's option).
struct SubqueryExpr {
  ExprPtr expr;
  int64_t range_ms = 0;
  int64_t step_ms = 0;
  int64_t offset_ms = 0;
  AtModifier at;
};

struct ParenExpr {
  ExprPtr expr;
};

// -x or +x. The parser folds unary minus on number literals into the literal
// (as Prometheus does) except when that would change the printed form.
struct UnaryExpr {
  bool negate = true;  // false for unary '+'
  ExprPtr expr;
};

// on(...)/ignoring(...) and group_left/group_right(...) of a binary expr.
struct VectorMatching {
  enum class Card { kOneToOne, kManyToOne, kOneToMany, kManyToMany };
  Card card = Card::kOneToOne;
  bool on = false;                    // true: `on(labels)`; false: `ignoring(labels)` (or none)
  std::vector<std::string> labels;    // the on/ignoring list
  std::vector<std::string> include;   // the group_left/group_right list
};

struct BinaryExpr {
  BinOp op = BinOp::kAdd;
  ExprPtr lhs;
  ExprPtr rhs;
  bool return_bool = false;  // the `bool` modifier
  // Present only when both sides are instant vectors. Set operators get
  // kManyToMany; the others kOneToOne unless group_left/right was given.
  std::optional<VectorMatching> matching;
};

struct AggregateExpr {
  AggOp op = AggOp::kSum;
  ExprPtr expr;
  ExprPtr param;                      // null unless aggop_has_param(op)
  std::vector<std::string> grouping;  // by/without labels, in the order written
  bool without = false;
  bool has_grouping = false;          // `by ()` was written (printer fidelity)
};

struct FunctionInfo;  // function_table.h

struct Call {
  const FunctionInfo* func = nullptr;  // never null in a parsed tree
  std::vector<ExprPtr> args;
};

using ExprNode = std::variant<NumberLiteral, StringLiteral, VectorSelector, MatrixSelector, SubqueryExpr, ParenExpr,
                              UnaryExpr, BinaryExpr, AggregateExpr, Call>;

struct Expr {
  ExprNode node;
  PosRange pos;
};

// The result type of `e` (a number literal is a scalar, a matrix selector or
// subquery a range vector, a call its function's return type, a binary
// expression a vector if either side is one, ...).
ValueType type_of(const Expr& e);

// Deep copy (the engine rewrites trees, e.g. to pre-evaluate step-invariant
// parts).
ExprPtr clone(const Expr& e);

}  // namespace llmon::promql
