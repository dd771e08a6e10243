// The PromQL lexer: query text -> tokens, following Prometheus 2.x's
// promql/parser/lex.go state machine (the one Debian's Prometheus 2.42, our
// differential oracle, runs): context-dependent lexing inside {...} (label
// names and matchers only) and [...] (durations and ':' only), keywords and
// aggregators case-insensitive, `# comments` dropped, and lexer errors in
// Prometheus's wording at Prometheus's positions.
// Internal to the parser (parser.cpp); pure, thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llmon::promql {

enum class Tok {
  kEof,
  kError,  // `error` holds the message; always the last token
  kIdentifier,
  kMetricIdentifier,  // an identifier containing ':'
  kNumber,
  kString,
  kDuration,
  kLeftParen,
  kRightParen,
  kLeftBrace,
  kRightBrace,
  kLeftBracket,
  kRightBracket,
  kComma,
  kAssign,  // '='
  kColon,
  // Operators.
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kPow,
  kEqlc,
  kNeq,
  kLte,
  kLss,
  kGte,
  kGtr,
  kEqlRegex,
  kNeqRegex,
  kAt,
  kAtan2,
  kLand,
  kLor,
  kLunless,
  // Aggregators.
  kSum,
  kAvg,
  kCount,
  kMin,
  kMax,
  kGroup,
  kStddev,
  kStdvar,
  kTopk,
  kBottomk,
  kCountValues,
  kQuantile,
  kLimitk,
  kLimitRatio,
  // Keywords.
  kBool,
  kBy,
  kGroupLeft,
  kGroupRight,
  kIgnoring,
  kOffset,
  kOn,
  kWithout,
  // @ preprocessors.
  kStart,
  kEnd,
};

bool is_operator(Tok t);
bool is_aggregator(Tok t);
bool is_keyword(Tok t);

struct Token {
  Tok kind = Tok::kEof;
  int pos = 0;            // byte offset of the first character
  std::string_view text;  // the token's characters (empty for kEof/kError)
  std::string error;      // kError only
  int end() const { return pos + static_cast<int>(text.size()); }
};

// Every token of `input`, ending with exactly one kEof or kError token.
std::vector<Token> lex(std::string_view input);

// How Prometheus names a token in "unexpected ..." errors: `end of input`,
// `identifier "foo"`, `number "1"`, `<op:+>`, `<aggr:sum>`, `<by>`, `"("`.
std::string describe(const Token& t);

}  // namespace llmon::promql
