// The lexer of Go's text/template (text/template/parse/lex.go, Go 1.19):
// text, {{ }} actions with the {{- -}} trim markers, comments, numbers,
// strings, raw strings, character constants, fields, variables, keywords.
// Tokens are produced on demand; an error is returned as an item of type
// kError whose text is Go's message ("unclosed action"), after which the
// lexer only returns EOF. Positions are byte offsets into the input; lines
// count from 1. The input must outlive the lexer. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace llmon::rules::tmpl {

enum class ItemType : uint8_t {
  kError,
  kBool,
  kChar,
  kCharConstant,
  kComment,
  kComplex,
  kAssign,
  kDeclare,
  kEof,
  kField,
  kIdentifier,
  kLeftDelim,
  kLeftParen,
  kNumber,
  kPipe,
  kRawString,
  kRightDelim,
  kRightParen,
  kSpace,
  kString,
  kText,
  kVariable,
  kKeyword,  // keywords follow
  kBlock,
  kBreak,
  kContinue,
  kDot,
  kDefine,
  kElse,
  kEnd,
  kIf,
  kNil,
  kRange,
  kTemplate,
  kWith,
};

struct Item {
  ItemType type = ItemType::kEof;
  int pos = 0;
  std::string val;
  int line = 1;
};

// item.String(): "EOF", the error text, "<keyword>", %q of short values,
// %.10q... of long ones.
std::string item_string(const Item& item);

class Lexer {
 public:
  explicit Lexer(std::string_view input) : input_(input) {}
  Item next_item();

 private:
  enum class State : uint8_t {
    kText,
    kLeftDelim,
    kComment,
    kRightDelim,
    kInsideAction,
    kSpace,
    kIdentifier,
    kField,
    kVariable,
    kChar,
    kNumber,
    kQuote,
    kRawQuote,
    kPendingError,
    kDone,
  };

  static constexpr int32_t kEofRune = -1;

  int32_t next();
  int32_t peek();
  void backup();
  Item this_item(ItemType t);
  void ignore();
  bool accept(std::string_view valid);
  void accept_run(std::string_view valid);
  bool at_terminator();
  bool scan_number();
  std::pair<bool, bool> at_right_delim() const;  // (delim, trim)
  Item error(std::string msg);
  // Runs state functions until one emits an item.
  bool step(State& s, Item& out);
  bool lex_field_or_variable(ItemType typ, Item& out);

  std::string_view input_;
  size_t pos_ = 0;
  size_t start_ = 0;
  int last_width_ = 0;
  bool at_eof_ = false;
  int paren_depth_ = 0;
  int line_ = 1;
  int start_line_ = 1;
  bool inside_action_ = false;
  State pending_ = State::kText;  // the state to resume in
  std::string pending_error_;
};

}  // namespace llmon::rules::tmpl
