// text/template lexer (template_lexer.h), following parse/lex.go of Go 1.19.
#include "rules/template_lexer.h"

#include <clocale>
#include <cwctype>

#include "go/strconv.h"
#include "go/strconv.h"
#include "go/strings.h"

namespace llmon::rules::tmpl {

namespace {

constexpr std::string_view kLeftDelim = "{{";
constexpr std::string_view kRightDelim = "}}";
constexpr std::string_view kLeftComment = "/*";
constexpr std::string_view kRightComment = "*/";
constexpr std::string_view kSpaceChars = " \t\r\n";
constexpr size_t kTrimMarkerLen = 2;

bool is_space(int32_t r) {
  return r == ' ' || r == '\t' || r == '\r' || r == '\n';
}

bool is_alnum(int32_t r) {
  return r == '_' || go::is_letter(r) || go::is_digit(r);
}

bool has_left_trim_marker(std::string_view s) {
  return s.size() >= 2 && s[0] == '-' && is_space(static_cast<unsigned char>(s[1]));
}

bool has_right_trim_marker(std::string_view s) {
  return s.size() >= 2 && is_space(static_cast<unsigned char>(s[0])) && s[1] == '-';
}

size_t right_trim_length(std::string_view s) {
  const size_t keep = s.find_last_not_of(kSpaceChars);
  return keep == std::string_view::npos ? s.size() : s.size() - keep - 1;
}

size_t left_trim_length(std::string_view s) {
  const size_t skip = s.find_first_not_of(kSpaceChars);
  return skip == std::string_view::npos ? s.size() : skip;
}

ItemType keyword(std::string_view w) {
  if (w == ".") return ItemType::kDot;
  if (w == "block") return ItemType::kBlock;
  if (w == "break") return ItemType::kBreak;
  if (w == "continue") return ItemType::kContinue;
  if (w == "define") return ItemType::kDefine;
  if (w == "else") return ItemType::kElse;
  if (w == "end") return ItemType::kEnd;
  if (w == "if") return ItemType::kIf;
  if (w == "range") return ItemType::kRange;
  if (w == "nil") return ItemType::kNil;
  if (w == "template") return ItemType::kTemplate;
  if (w == "with") return ItemType::kWith;
  return ItemType::kError;  // not a keyword
}

size_t count_newlines(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

std::string item_string(const Item& item) {
  if (item.type == ItemType::kEof) return "EOF";
  if (item.type == ItemType::kError) return item.val;
  if (item.type > ItemType::kKeyword) return "<" + item.val + ">";
  size_t runes = 0;
  for (size_t i = 0; i < item.val.size(); ++runes) i += static_cast<size_t>(go::decode_rune(item.val, i).width);
  if (runes > 10) return go::quote_truncated(item.val, 10) + "...";
  return go::quote(item.val);
}

int32_t Lexer::next() {
  if (pos_ >= input_.size()) {
    at_eof_ = true;
    last_width_ = 0;
    return kEofRune;
  }
  const go::Rune r = go::decode_rune(input_, pos_);
  pos_ += static_cast<size_t>(r.width);
  last_width_ = r.width;
  if (r.r == '\n') ++line_;
  return r.r;
}

int32_t Lexer::peek() {
  const int32_t r = next();
  backup();
  return r;
}

void Lexer::backup() {
  if (!at_eof_ && pos_ > 0) {
    // Step back one rune (the last one decoded; the decoder never lets a
    // rune straddle the previous one, so its width is known).
    pos_ -= static_cast<size_t>(last_width_);
    if (input_[pos_] == '\n') --line_;
  }
  at_eof_ = false;
}

Item Lexer::this_item(ItemType t) {
  Item i{t, static_cast<int>(start_), std::string(input_.substr(start_, pos_ - start_)), start_line_};
  start_ = pos_;
  start_line_ = line_;
  return i;
}

void Lexer::ignore() {
  line_ += static_cast<int>(count_newlines(input_.substr(start_, pos_ - start_)));
  start_ = pos_;
  start_line_ = line_;
}

bool Lexer::accept(std::string_view valid) {
  const int32_t r = next();
  if (r >= 0 && r < 0x80 && valid.find(static_cast<char>(r)) != std::string_view::npos) return true;
  backup();
  return false;
}

void Lexer::accept_run(std::string_view valid) {
  for (;;) {
    const int32_t r = next();
    if (!(r >= 0 && r < 0x80 && valid.find(static_cast<char>(r)) != std::string_view::npos)) break;
  }
  backup();
}

bool Lexer::at_terminator() {
  const int32_t r = peek();
  if (is_space(r)) return true;
  switch (r) {
    case kEofRune:
    case '.':
    case ',':
    case '|':
    case ':':
    case ')':
    case '(':
      return true;
    default:
      break;
  }
  // Go 1.19: does r start the right delimiter?
  return r == static_cast<unsigned char>(kRightDelim[0]);
}

std::pair<bool, bool> Lexer::at_right_delim() const {
  const std::string_view rest = input_.substr(pos_);
  if (has_right_trim_marker(rest) && rest.substr(kTrimMarkerLen).substr(0, kRightDelim.size()) == kRightDelim)
    return {true, true};
  if (rest.substr(0, kRightDelim.size()) == kRightDelim) return {true, false};
  return {false, false};
}

Item Lexer::error(std::string msg) {
  Item i{ItemType::kError, static_cast<int>(start_), std::move(msg), start_line_};
  start_ = 0;
  pos_ = 0;
  input_ = input_.substr(0, 0);
  pending_ = State::kDone;
  return i;
}

bool Lexer::scan_number() {
  accept("+-");
  std::string_view digits = "0123456789_";
  if (accept("0")) {
    if (accept("xX")) {
      digits = "0123456789abcdefABCDEF_";
    } else if (accept("oO")) {
      digits = "01234567_";
    } else if (accept("bB")) {
      digits = "01_";
    }
  }
  accept_run(digits);
  if (accept(".")) accept_run(digits);
  if (digits.size() == 10 + 1 && accept("eE")) {
    accept("+-");
    accept_run("0123456789_");
  }
  if (digits.size() == 16 + 6 + 1 && accept("pP")) {
    accept("+-");
    accept_run("0123456789_");
  }
  accept("i");
  if (is_alnum(peek())) {
    next();
    return false;
  }
  return true;
}

bool Lexer::lex_field_or_variable(ItemType typ, Item& out) {
  if (at_terminator()) {
    out = this_item(typ == ItemType::kVariable ? ItemType::kVariable : ItemType::kDot);
    return true;
  }
  int32_t r = 0;
  for (;;) {
    r = next();
    if (!is_alnum(r)) {
      backup();
      break;
    }
  }
  if (!at_terminator()) {
    out = error("bad character " + go::format_rune_u(r));
    return true;
  }
  out = this_item(typ);
  return true;
}

Item Lexer::next_item() {
  Item out{ItemType::kEof, static_cast<int>(pos_), "EOF", start_line_};
  if (pending_ == State::kDone) return out;
  State s =
      pending_ == State::kPendingError ? State::kPendingError : (inside_action_ ? State::kInsideAction : State::kText);
  while (!step(s, out)) {
  }
  if (pending_ != State::kDone && pending_ != State::kPendingError) pending_ = State::kText;
  return out;
}

// One state function; true when it emitted `out`.
bool Lexer::step(State& s, Item& out) {
  switch (s) {
    case State::kPendingError:
      out = error(pending_error_);
      return true;
    case State::kDone:
      out = Item{ItemType::kEof, static_cast<int>(pos_), "EOF", start_line_};
      return true;
    case State::kText: {
      const size_t x = input_.substr(pos_).find(kLeftDelim);
      if (x != std::string_view::npos) {
        if (x > 0) {
          pos_ += x;
          size_t trim = 0;
          const size_t delim_end = pos_ + kLeftDelim.size();
          if (has_left_trim_marker(input_.substr(delim_end)))
            trim = right_trim_length(input_.substr(start_, pos_ - start_));
          pos_ -= trim;
          line_ += static_cast<int>(count_newlines(input_.substr(start_, pos_ - start_)));
          Item i = this_item(ItemType::kText);
          pos_ += trim;
          ignore();
          if (!i.val.empty()) {
            out = std::move(i);
            return true;
          }
        }
        s = State::kLeftDelim;
        return false;
      }
      pos_ = input_.size();
      if (pos_ > start_) {
        line_ += static_cast<int>(count_newlines(input_.substr(start_, pos_ - start_)));
        out = this_item(ItemType::kText);
        return true;
      }
      out = this_item(ItemType::kEof);
      pending_ = State::kDone;
      return true;
    }
    case State::kLeftDelim: {
      pos_ += kLeftDelim.size();
      const bool trim = has_left_trim_marker(input_.substr(pos_));
      const size_t after = trim ? kTrimMarkerLen : 0;
      if (input_.substr(pos_ + after).substr(0, kLeftComment.size()) == kLeftComment) {
        pos_ += after;
        ignore();
        s = State::kComment;
        return false;
      }
      Item i = this_item(ItemType::kLeftDelim);
      inside_action_ = true;
      pos_ += after;
      ignore();
      paren_depth_ = 0;
      out = std::move(i);
      return true;
    }
    case State::kComment: {
      pos_ += kLeftComment.size();
      const size_t x = input_.substr(pos_).find(kRightComment);
      if (x == std::string_view::npos) {
        out = error("unclosed comment");
        return true;
      }
      pos_ += x + kRightComment.size();
      auto [delim, trim] = at_right_delim();
      if (!delim) {
        out = error("comment ends before closing delimiter");
        return true;
      }
      line_ += static_cast<int>(count_newlines(input_.substr(start_, pos_ - start_)));
      this_item(ItemType::kComment);  // comments are not emitted (no ParseComments mode)
      if (trim) pos_ += kTrimMarkerLen;
      pos_ += kRightDelim.size();
      if (trim) pos_ += left_trim_length(input_.substr(pos_));
      ignore();
      s = State::kText;
      return false;
    }
    case State::kRightDelim: {
      auto [delim, trim] = at_right_delim();
      (void)delim;
      if (trim) {
        pos_ += kTrimMarkerLen;
        ignore();
      }
      pos_ += kRightDelim.size();
      Item i = this_item(ItemType::kRightDelim);
      if (trim) {
        pos_ += left_trim_length(input_.substr(pos_));
        ignore();
      }
      inside_action_ = false;
      out = std::move(i);
      return true;
    }
    case State::kInsideAction: {
      auto [delim, trim] = at_right_delim();
      (void)trim;
      if (delim) {
        if (paren_depth_ == 0) {
          s = State::kRightDelim;
          return false;
        }
        out = error("unclosed left paren");
        return true;
      }
      const int32_t r = next();
      if (r == kEofRune) {
        out = error("unclosed action");
        return true;
      }
      if (is_space(r)) {
        backup();
        s = State::kSpace;
        return false;
      }
      switch (r) {
        case '=':
          out = this_item(ItemType::kAssign);
          return true;
        case ':':
          if (next() != '=') {
            out = error("expected :=");
            return true;
          }
          out = this_item(ItemType::kDeclare);
          return true;
        case '|':
          out = this_item(ItemType::kPipe);
          return true;
        case '"':
          s = State::kQuote;
          return false;
        case '`':
          s = State::kRawQuote;
          return false;
        case '$':
          s = State::kVariable;
          return false;
        case '\'':
          s = State::kChar;
          return false;
        case '(':
          out = this_item(ItemType::kLeftParen);
          ++paren_depth_;
          return true;
        case ')':
          out = this_item(ItemType::kRightParen);
          --paren_depth_;
          if (paren_depth_ < 0) {
            // Go 1.19 emits the paren, then the error.
            pending_error_ = "unexpected right paren U+0029 ')'";
            pending_ = State::kPendingError;
          }
          return true;
        default:
          break;
      }
      if (r == '.') {
        if (pos_ < input_.size()) {
          const char c = input_[pos_];
          if (c < '0' || c > '9') {
            s = State::kField;
            return false;
          }
        }
        backup();
        s = State::kNumber;
        return false;
      }
      if (r == '+' || r == '-' || (r >= '0' && r <= '9')) {
        backup();
        s = State::kNumber;
        return false;
      }
      if (is_alnum(r)) {
        backup();
        s = State::kIdentifier;
        return false;
      }
      if (r < 0x80 && r >= 0x20 && r != 0x7F) {
        out = this_item(ItemType::kChar);
        return true;
      }
      out = error("unrecognized character in action: " + go::format_rune_u(r));
      return true;
    }
    case State::kSpace: {
      int num_spaces = 0;
      for (;;) {
        const int32_t r = peek();
        if (!is_space(r)) break;
        next();
        ++num_spaces;
      }
      if (has_right_trim_marker(input_.substr(pos_ - 1)) &&
          input_.substr(pos_ - 1 + kTrimMarkerLen).substr(0, kRightDelim.size()) == kRightDelim) {
        // Step back before the last space (a one-byte rune).
        --pos_;
        if (input_[pos_] == '\n') --line_;
        if (num_spaces == 1) {
          s = State::kRightDelim;
          return false;
        }
      }
      out = this_item(ItemType::kSpace);
      return true;
    }
    case State::kIdentifier: {
      int32_t r = 0;
      for (;;) {
        r = next();
        if (!is_alnum(r)) break;
      }
      backup();
      const std::string_view word = input_.substr(start_, pos_ - start_);
      if (!at_terminator()) {
        out = error("bad character " + go::format_rune_u(r));
        return true;
      }
      const ItemType kw = keyword(word);
      if (kw != ItemType::kError) {
        out = this_item(kw);
      } else if (word[0] == '.') {
        out = this_item(ItemType::kField);
      } else if (word == "true" || word == "false") {
        out = this_item(ItemType::kBool);
      } else {
        out = this_item(ItemType::kIdentifier);
      }
      return true;
    }
    case State::kField:
      return lex_field_or_variable(ItemType::kField, out);
    case State::kVariable:
      if (at_terminator()) {
        out = this_item(ItemType::kVariable);
        return true;
      }
      return lex_field_or_variable(ItemType::kVariable, out);
    case State::kChar:
      for (;;) {
        int32_t r = next();
        if (r == '\\') {
          r = next();
          if (r != kEofRune && r != '\n') continue;
          out = error("unterminated character constant");
          return true;
        }
        if (r == kEofRune || r == '\n') {
          out = error("unterminated character constant");
          return true;
        }
        if (r == '\'') break;
      }
      out = this_item(ItemType::kCharConstant);
      return true;
    case State::kNumber: {
      if (!scan_number()) {
        out = error("bad number syntax: " + go::quote(input_.substr(start_, pos_ - start_)));
        return true;
      }
      const int32_t sign = peek();
      if (sign == '+' || sign == '-') {
        if (!scan_number() || input_[pos_ - 1] != 'i') {
          out = error("bad number syntax: " + go::quote(input_.substr(start_, pos_ - start_)));
          return true;
        }
        out = this_item(ItemType::kComplex);
        return true;
      }
      out = this_item(ItemType::kNumber);
      return true;
    }
    case State::kQuote:
      for (;;) {
        int32_t r = next();
        if (r == '\\') {
          r = next();
          if (r != kEofRune && r != '\n') continue;
          out = error("unterminated quoted string");
          return true;
        }
        if (r == kEofRune || r == '\n') {
          out = error("unterminated quoted string");
          return true;
        }
        if (r == '"') break;
      }
      out = this_item(ItemType::kString);
      return true;
    case State::kRawQuote:
      for (;;) {
        const int32_t r = next();
        if (r == kEofRune) {
          out = error("unterminated raw quoted string");
          return true;
        }
        if (r == '`') break;
      }
      out = this_item(ItemType::kRawString);
      return true;
  }
  return true;
}

}  // namespace llmon::rules::tmpl
