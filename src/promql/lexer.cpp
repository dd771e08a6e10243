// PromQL lexer (lexer.h), a transcription of the states of Prometheus 2.x's
// lex.go: lexStatements, lexInsideBraces, lexDuration, lexNumberOrDuration,
// lexString/lexEscape, lexRawString, lexKeywordOrIdentifier, comments.
// An error ends the token stream at the position Prometheus reports it.
#include "promql/lexer.h"

#include <optional>

#include "go/strconv.h"

namespace llmon::promql {

namespace {

struct Keyword {
  std::string_view word;
  Tok kind;
};
constexpr Keyword kKeywords[] = {
    {"and", Tok::kLand},
    {"or", Tok::kLor},
    {"unless", Tok::kLunless},
    {"atan2", Tok::kAtan2},
    {"sum", Tok::kSum},
    {"avg", Tok::kAvg},
    {"count", Tok::kCount},
    {"min", Tok::kMin},
    {"max", Tok::kMax},
    {"group", Tok::kGroup},
    {"stddev", Tok::kStddev},
    {"stdvar", Tok::kStdvar},
    {"topk", Tok::kTopk},
    {"bottomk", Tok::kBottomk},
    {"count_values", Tok::kCountValues},
    {"quantile", Tok::kQuantile},
    {"limitk", Tok::kLimitk},
    {"limit_ratio", Tok::kLimitRatio},
    {"offset", Tok::kOffset},
    {"by", Tok::kBy},
    {"without", Tok::kWithout},
    {"on", Tok::kOn},
    {"ignoring", Tok::kIgnoring},
    {"group_left", Tok::kGroupLeft},
    {"group_right", Tok::kGroupRight},
    {"bool", Tok::kBool},
    {"start", Tok::kStart},
    {"end", Tok::kEnd},
    {"inf", Tok::kNumber},
    {"nan", Tok::kNumber},
};

bool is_space(int32_t r) {
  return r == ' ' || r == '\t' || r == '\n' || r == '\r';
}
bool is_digit(int32_t r) {
  return r >= '0' && r <= '9';
}
bool is_alpha(int32_t r) {
  return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z');
}
bool is_alnum(int32_t r) {
  return is_alpha(r) || is_digit(r);
}

bool contains(std::string_view set, int32_t r) {
  return r >= 0 && r < 0x80 && set.find(static_cast<char>(r)) != std::string_view::npos;
}

std::optional<Tok> keyword(std::string_view word) {
  for (const Keyword& k : kKeywords) {
    if (k.word.size() != word.size()) continue;
    bool eq = true;
    for (size_t i = 0; i < word.size() && eq; ++i) {
      char c = word[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      eq = c == k.word[i];
    }
    if (eq) return k.kind;
  }
  return std::nullopt;
}

class Lexer {
 public:
  explicit Lexer(std::string_view in) : in_(in) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      Token t = next_token();
      out.push_back(std::move(t));
      if (out.back().kind == Tok::kEof || out.back().kind == Tok::kError) return out;
    }
  }

 private:
  int32_t next() {
    go::Rune r = go::decode_rune(in_, pos_);
    width_ = static_cast<size_t>(r.width);
    pos_ += width_;
    return r.r;
  }
  void backup() { pos_ -= width_; }
  int32_t peek() {
    int32_t r = next();
    backup();
    return r;
  }
  bool accept(std::string_view valid) {
    if (contains(valid, next())) return true;
    backup();
    return false;
  }
  void accept_run(std::string_view valid) {
    while (contains(valid, next())) {
    }
    backup();
  }
  Token emit(Tok kind) {
    Token t{kind, static_cast<int>(start_), in_.substr(start_, pos_ - start_), {}};
    start_ = pos_;
    return t;
  }
  Token error(std::string msg) { return Token{Tok::kError, static_cast<int>(start_), {}, std::move(msg)}; }
  void skip_spaces() {
    while (is_space(peek())) next();
    start_ = pos_;
  }
  bool at_comment() const { return in_.substr(pos_, 1) == "#"; }
  void skip_comment() {
    ++pos_;
    while (pos_ < in_.size() && in_[pos_] != '\n' && in_[pos_] != '\r') ++pos_;
    start_ = pos_;
  }

  Token next_token();
  Token inside_braces();
  Token duration();
  Token number_or_duration();
  Token keyword_or_identifier();
  Token quoted_string(int32_t quote);
  Token raw_string();
  bool scan_number();
  bool accept_remaining_duration();
  std::optional<std::string> escape(int32_t quote);

  std::string_view in_;
  size_t pos_ = 0;
  size_t start_ = 0;
  size_t width_ = 0;
  int paren_depth_ = 0;
  bool brace_open_ = false;
  bool bracket_open_ = false;
  bool got_colon_ = false;
  bool want_duration_ = false;  // just after '['
};

Token Lexer::next_token() {
  for (;;) {
    if (want_duration_) {
      want_duration_ = false;
      return duration();
    }
    if (brace_open_) return inside_braces();
    if (at_comment()) {
      skip_comment();
      continue;
    }
    int32_t r = next();
    if (r == go::kEof) {
      if (paren_depth_ != 0) return error("unclosed left parenthesis");
      if (bracket_open_) return error("unclosed left bracket");
      return emit(Tok::kEof);
    }
    if (is_space(r)) {
      skip_spaces();
      continue;
    }
    switch (r) {
      case ',':
        return emit(Tok::kComma);
      case '*':
        return emit(Tok::kMul);
      case '/':
        return emit(Tok::kDiv);
      case '%':
        return emit(Tok::kMod);
      case '+':
        return emit(Tok::kAdd);
      case '-':
        return emit(Tok::kSub);
      case '^':
        return emit(Tok::kPow);
      case '@':
        return emit(Tok::kAt);
      case '=': {
        int32_t t = peek();
        if (t == '=') {
          next();
          return emit(Tok::kEqlc);
        }
        if (t == '~') return error("unexpected character after '=': " + go::quote_rune(t));
        return emit(Tok::kAssign);
      }
      case '!': {
        int32_t t = next();
        if (t != '=') return error("unexpected character after '!': " + go::quote_rune(t));
        return emit(Tok::kNeq);
      }
      case '<':
        if (peek() == '=') {
          next();
          return emit(Tok::kLte);
        }
        return emit(Tok::kLss);
      case '>':
        if (peek() == '=') {
          next();
          return emit(Tok::kGte);
        }
        return emit(Tok::kGtr);
      case '"':
      case '\'':
        return quoted_string(r);
      case '`':
        return raw_string();
      case '(':
        ++paren_depth_;
        return emit(Tok::kLeftParen);
      case ')': {
        Token t = emit(Tok::kRightParen);
        if (--paren_depth_ < 0) return error("unexpected right parenthesis ')'");
        return t;
      }
      case '{':
        brace_open_ = true;
        return emit(Tok::kLeftBrace);
      case '[': {
        if (bracket_open_) return error("unexpected left bracket '['");
        got_colon_ = false;
        Token t = emit(Tok::kLeftBracket);
        skip_spaces();
        bracket_open_ = true;
        want_duration_ = true;
        return t;
      }
      case ']':
        if (!bracket_open_) return error("unexpected right bracket ']'");
        bracket_open_ = false;
        return emit(Tok::kRightBracket);
      default:
        break;
    }
    if (is_digit(r) || (r == '.' && is_digit(peek()))) {
      backup();
      return number_or_duration();
    }
    if (is_alpha(r) || r == ':') {
      if (!bracket_open_) {
        backup();
        return keyword_or_identifier();
      }
      // Inside [...] any letter lexes as the subquery colon (Prometheus 2.x).
      if (got_colon_) return error("unexpected colon " + go::quote_rune(r));
      got_colon_ = true;
      return emit(Tok::kColon);
    }
    return error("unexpected character: " + go::quote_rune(r));
  }
}

Token Lexer::inside_braces() {
  for (;;) {
    if (at_comment()) {
      skip_comment();
      continue;
    }
    int32_t r = next();
    if (r == go::kEof) return error("unexpected end of input inside braces");
    if (is_space(r)) {
      skip_spaces();
      continue;
    }
    if (is_alpha(r)) {
      while (is_alnum(next())) {
      }
      backup();
      return emit(Tok::kIdentifier);
    }
    switch (r) {
      case ',':
        return emit(Tok::kComma);
      case '"':
      case '\'':
        return quoted_string(r);
      case '`':
        return raw_string();
      case '=':
        if (next() == '~') return emit(Tok::kEqlRegex);
        backup();
        return emit(Tok::kAssign);
      case '!': {
        int32_t nr = next();
        if (nr == '~') return emit(Tok::kNeqRegex);
        if (nr == '=') return emit(Tok::kNeq);
        return error("unexpected character after '!' inside braces: " + go::quote_rune(nr));
      }
      case '{':
        return error("unexpected left brace '{'");
      case '}':
        brace_open_ = false;
        return emit(Tok::kRightBrace);
      default:
        return error("unexpected character inside braces: " + go::quote_rune(r));
    }
  }
}

bool Lexer::scan_number() {
  std::string_view digits = "0123456789";
  if (accept("0") && accept("xX")) digits = "0123456789abcdefABCDEF";
  accept_run(digits);
  if (accept(".")) accept_run(digits);
  if (accept("eE")) {
    accept("+-");
    accept_run("0123456789");
  }
  return !is_alnum(peek());
}

bool Lexer::accept_remaining_duration() {
  if (!accept("smhdwy")) return false;
  accept("s");  // "ms"; bad units are caught when the duration is parsed
  while (accept("0123456789")) {
    while (accept("0123456789")) {
    }
    if (!accept("smhdw")) return false;
    accept("s");
  }
  return !is_alnum(next());
}

Token Lexer::duration() {
  if (scan_number()) return error("missing unit character in duration");
  if (!accept_remaining_duration())
    return error("bad duration syntax: " + go::quote(in_.substr(start_, pos_ - start_)));
  backup();
  return emit(Tok::kDuration);
}

Token Lexer::number_or_duration() {
  if (scan_number()) return emit(Tok::kNumber);
  if (accept_remaining_duration()) {
    backup();
    return emit(Tok::kDuration);
  }
  return error("bad number or duration syntax: " + go::quote(in_.substr(start_, pos_ - start_)));
}

Token Lexer::keyword_or_identifier() {
  for (;;) {
    int32_t r = next();
    if (is_alnum(r) || r == ':') continue;
    backup();
    break;
  }
  std::string_view word = in_.substr(start_, pos_ - start_);
  if (auto k = keyword(word)) return emit(*k);
  return emit(word.find(':') == std::string_view::npos ? Tok::kIdentifier : Tok::kMetricIdentifier);
}

// lexEscape: the backslash has been read. nullopt, or the error message.
std::optional<std::string> Lexer::escape(int32_t quote) {
  int32_t ch = next();
  int n = 0;  // digits that follow
  uint32_t base = 16, max = 0x10FFFF;
  if (ch >= '0' && ch <= '7') {
    n = 3, base = 8, max = 255;
  } else if (ch == 'x' || ch == 'u' || ch == 'U') {
    n = ch == 'x' ? 2 : ch == 'u' ? 4 : 8;
    if (ch == 'x') max = 255;
    ch = next();
  } else if (ch == quote || (ch > 0 && ch < 0x80 &&
                             std::string_view("abfnrtv\\").find(static_cast<char>(ch)) != std::string_view::npos)) {
    return std::nullopt;
  } else if (ch == go::kEof) {
    return std::string("escape sequence not terminated");
  } else {
    return "unknown escape sequence " + go::format_rune_u(ch);
  }
  uint32_t x = 0;
  while (n > 0) {
    uint32_t d = 16;
    if (ch >= '0' && ch <= '9') d = static_cast<uint32_t>(ch - '0');
    if (ch >= 'a' && ch <= 'f') d = static_cast<uint32_t>(ch - 'a' + 10);
    if (ch >= 'A' && ch <= 'F') d = static_cast<uint32_t>(ch - 'A' + 10);
    if (d >= base) {
      if (ch == go::kEof) return std::string("escape sequence not terminated");
      return "illegal character " + go::format_rune_u(ch) + " in escape sequence";
    }
    x = x * base + d;
    if (--n > 0) ch = next();
  }
  if (x > max || (x >= 0xD800 && x < 0xE000)) return std::string("escape sequence is an invalid Unicode code point");
  return std::nullopt;
}

Token Lexer::quoted_string(int32_t quote) {
  for (;;) {
    int32_t r = next();
    if (r == '\\') {
      if (auto err = escape(quote)) return error(std::move(*err));
      continue;
    }
    if (r == go::kRuneError) return error("invalid UTF-8 rune");
    if (r == go::kEof || r == '\n') return error("unterminated quoted string");
    if (r == quote) return emit(Tok::kString);
  }
}

Token Lexer::raw_string() {
  for (;;) {
    int32_t r = next();
    if (r == go::kRuneError) return error("invalid UTF-8 rune");
    if (r == go::kEof) return error("unterminated raw string");
    if (r == '`') return emit(Tok::kString);
  }
}

}  // namespace

bool is_operator(Tok t) {
  return t >= Tok::kAdd && t <= Tok::kLunless;
}
bool is_aggregator(Tok t) {
  return t >= Tok::kSum && t <= Tok::kLimitRatio;
}
bool is_keyword(Tok t) {
  return t >= Tok::kBool && t <= Tok::kWithout;
}

std::vector<Token> lex(std::string_view input) {
  return Lexer(input).run();
}

std::string describe(const Token& t) {
  std::string text(t.text);
  switch (t.kind) {
    case Tok::kEof:
      return "end of input";
    case Tok::kError:
      return t.error;
    case Tok::kIdentifier:
      return "identifier " + go::quote(text);
    case Tok::kMetricIdentifier:
      return "metric identifier " + go::quote(text);
    case Tok::kNumber:
    case Tok::kString:
    case Tok::kDuration: {
      std::string_view what = t.kind == Tok::kNumber ? "number " : t.kind == Tok::kString ? "string " : "duration ";
      if (text.size() > 10) return std::string(what) + go::quote_truncated(text, 10) + "...";  // Go's %.10q...
      return std::string(what) + go::quote(text);
    }
    default:
      break;
  }
  if (is_keyword(t.kind)) return "<" + text + ">";
  if (is_operator(t.kind)) return "<op:" + text + ">";
  if (is_aggregator(t.kind)) return "<aggr:" + text + ">";
  return go::quote(text);
}

}  // namespace llmon::promql
