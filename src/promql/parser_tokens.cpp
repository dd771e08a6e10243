// Token classes and operator tables of the PromQL grammar, for parser.cpp
// (declared in parser_internal.h).
#include "promql/lexer.h"
#include "promql/parser_internal.h"

namespace llmon::promql::internal {

int precedence(Tok t) {
  switch (t) {
    case Tok::kLor:
      return 1;
    case Tok::kLand:
    case Tok::kLunless:
      return 2;
    case Tok::kEqlc:
    case Tok::kNeq:
    case Tok::kLte:
    case Tok::kLss:
    case Tok::kGte:
    case Tok::kGtr:
      return 3;
    case Tok::kAdd:
    case Tok::kSub:
      return 4;
    case Tok::kMul:
    case Tok::kDiv:
    case Tok::kMod:
    case Tok::kAtan2:
      return 5;
    case Tok::kPow:
      return 6;
    default:
      return -1;
  }
}

BinOp to_binop(Tok t) {
  switch (t) {
    case Tok::kAdd:
      return BinOp::kAdd;
    case Tok::kSub:
      return BinOp::kSub;
    case Tok::kMul:
      return BinOp::kMul;
    case Tok::kDiv:
      return BinOp::kDiv;
    case Tok::kMod:
      return BinOp::kMod;
    case Tok::kPow:
      return BinOp::kPow;
    case Tok::kAtan2:
      return BinOp::kAtan2;
    case Tok::kEqlc:
      return BinOp::kEql;
    case Tok::kNeq:
      return BinOp::kNeq;
    case Tok::kGtr:
      return BinOp::kGtr;
    case Tok::kLss:
      return BinOp::kLss;
    case Tok::kGte:
      return BinOp::kGte;
    case Tok::kLte:
      return BinOp::kLte;
    case Tok::kLand:
      return BinOp::kAnd;
    case Tok::kLor:
      return BinOp::kOr;
    default:
      return BinOp::kUnless;
  }
}

AggOp to_aggop(Tok t) {
  switch (t) {
    case Tok::kSum:
      return AggOp::kSum;
    case Tok::kAvg:
      return AggOp::kAvg;
    case Tok::kCount:
      return AggOp::kCount;
    case Tok::kMin:
      return AggOp::kMin;
    case Tok::kMax:
      return AggOp::kMax;
    case Tok::kGroup:
      return AggOp::kGroup;
    case Tok::kStddev:
      return AggOp::kStddev;
    case Tok::kStdvar:
      return AggOp::kStdvar;
    case Tok::kTopk:
      return AggOp::kTopk;
    case Tok::kBottomk:
      return AggOp::kBottomk;
    case Tok::kCountValues:
      return AggOp::kCountValues;
    case Tok::kQuantile:
      return AggOp::kQuantile;
    case Tok::kLimitk:
      return AggOp::kLimitk;
    default:
      return AggOp::kLimitRatio;
  }
}

// Tokens the grammar accepts as a metric name (metric_identifier).
bool is_metric_name_token(Tok t) {
  switch (t) {
    case Tok::kIdentifier:
    case Tok::kMetricIdentifier:
    case Tok::kBy:
    case Tok::kWithout:
    case Tok::kOffset:
    case Tok::kLand:
    case Tok::kLor:
    case Tok::kLunless:
    case Tok::kStart:
    case Tok::kEnd:
      return true;
    default:
      return is_aggregator(t);
  }
}

// Tokens the grammar accepts as a label in by/without/on/ignoring/group_x
// lists (maybe_label): identifiers and every keyword except `without`.
bool is_maybe_label_token(Tok t) {
  switch (t) {
    case Tok::kIdentifier:
    case Tok::kMetricIdentifier:
    case Tok::kBool:
    case Tok::kBy:
    case Tok::kGroupLeft:
    case Tok::kGroupRight:
    case Tok::kIgnoring:
    case Tok::kOffset:
    case Tok::kOn:
    case Tok::kLand:
    case Tok::kLor:
    case Tok::kLunless:
    case Tok::kAtan2:
    case Tok::kStart:
    case Tok::kEnd:
      return true;
    default:
      return is_aggregator(t);
  }
}

}  // namespace llmon::promql::internal
