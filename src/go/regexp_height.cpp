// regexp_nesting_error (regexp.h): Go 1.19's regexp/syntax refuses a
// parse tree taller than 1000 nodes (maxHeight, "expression nests too
// deeply"); RE2 has no such limit. GoHeightScan follows Go's parser far
// enough to find the tree's height without building it (docs/promql-compat.md
// lists what it does not model). Pure, linear, no recursion.
#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "go/regexp.h"

namespace llmon::go {

namespace {

constexpr int kGoMaxHeight = 1000;  // regexp/syntax maxHeight (Go 1.19: parse.go)
constexpr size_t kNoVerdict = std::string_view::npos;

// The kinds of Go parse-tree node that behave differently for the height.
enum class NodeKind : uint8_t {
  kLiteral,    // OpLiteral: merges with a neighbouring literal of the same case folding
  kClass,      // OpCharClass, OpAnyChar(NotNL): alternatives of these merge into one class
  kEmpty,      // OpEmptyMatch
  kLeaf,       // anchors and word boundaries
  kConcat,     // OpConcat: a concatenation inside a concatenation is flattened into it
  kAlternate,  // OpAlternate: likewise for alternations
  kWrapper,    // OpCapture, OpStar, OpPlus, OpQuest, OpRepeat: one level over their operand
};

struct Node {
  NodeKind kind = NodeKind::kLeaf;
  bool fold = false;   // kLiteral: case-insensitive
  bool multi = false;  // kLiteral: more than one rune
  int height = 1;
};

// A group being parsed: its current branch's items are GoHeightScan::items_
// from `first` on; the branches before the last '|' are summarised.
struct Group {
  bool capture = false;
  bool saved_fold = false;  // the case folding in force before the group
  size_t first = 0;
  int subs = 0;  // subexpressions of the alternation so far (nested alternations flattened)
  Node only;     // the branch, while there is one
  bool all_class = true;
  bool all_empty = true;
  int max_height = 0;  // of the subexpressions
};

bool is_word_byte(unsigned char c) {
  return std::isalnum(c) || c == '_';
}

// Follows Go 1.19's regexp/syntax parser (parse.go, flags syntax.Perl) over
// a pattern, keeping of each node only what its height depends on, and
// finds where Go builds the first node taller than maxHeight (it checks
// every node it builds, so that is where it stops with ErrNestingDepth).
// Modelled: literal runes merging into strings, nested concatenations and
// alternations flattened, alternations of single characters becoming one
// class, empty alternations collapsing, (?flags) scopes. Not modelled: the
// prefix factoring of alternations (abc|abd -> ab(?:c|d)), which can move a
// branch by a level, so a pattern a level or two from the limit through
// such an alternation may be judged differently. Gives no verdict at the
// first construct Go refuses (those are RE2's to report) or does not know.
// Iterative: the depth of the pattern costs heap, not stack.
class GoHeightScan {
 public:
  explicit GoHeightScan(std::string_view re) : re_(re) {}

  // The offset just past the construct that built the first node taller
  // than maxHeight, or kNoVerdict.
  size_t run() {
    groups_.assign(1, Group{});
    bool last_repeat = false;
    size_t i = 0;
    while (i < re_.size()) {
      bool repeat = false;
      const char c = re_[i];
      if (c == '(') {
        if (i + 1 < re_.size() && re_[i + 1] == '?') {
          if (!perl_flags(i)) return kNoVerdict;
        } else {
          open_group(true);
          ++i;
        }
      } else if (c == '|') {
        ++i;
        add_branch(groups_.back(), concat());
      } else if (c == ')') {
        ++i;
        if (groups_.size() < 2) return kNoVerdict;  // unexpected )
        close_group();
      } else if (c == '^' || c == '$') {
        push(Node{NodeKind::kLeaf});
        ++i;
      } else if (c == '.') {
        push(Node{NodeKind::kClass});
        ++i;
      } else if (c == '[') {
        if (!char_class(i)) return kNoVerdict;
      } else if (c == '*' || c == '+' || c == '?' || c == '{') {
        size_t end = i + 1;
        if (c == '{') {
          int min = 0, max = 0;
          if (!parse_repeat(i, end, min, max)) {
            push_literal(fold_);  // not a repetition: a literal '{'
            ++i;
            last_repeat = false;
            continue;
          }
          if (min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max)) return kNoVerdict;
        }
        if (end < re_.size() && re_[end] == '?') ++end;                // non-greedy
        if (last_repeat) return kNoVerdict;                            // invalid nested repetition operator
        if (items_.size() == groups_.back().first) return kNoVerdict;  // missing argument
        Node& top = items_.back();
        top = Node{NodeKind::kWrapper, false, false, top.height + 1};
        check(top);
        i = end;
        repeat = true;
      } else if (c == '\\') {
        if (!escape(i)) return kNoVerdict;
      } else {
        size_t len = rune_len(i);
        if (len == 0) return kNoVerdict;
        push_literal(fold_);
        i += len;
      }
      if (too_tall_) return i;
      last_repeat = repeat;
    }
    if (groups_.size() != 1) return kNoVerdict;  // missing )
    Group& root = groups_.back();
    add_branch(root, concat());
    if (!too_tall_) check(alternation(root));
    return too_tall_ ? re_.size() : kNoVerdict;
  }

 private:
  void check(const Node& n) {
    if (n.height > kGoMaxHeight) too_tall_ = true;
  }

  // Go's maybeConcat before every push: the two topmost items of the group,
  // both literals of the same case folding, become one.
  void merge_literals() {
    const size_t first = groups_.back().first;
    if (items_.size() < first + 2) return;
    Node& below = items_[items_.size() - 2];
    const Node& top = items_.back();
    if (below.kind == NodeKind::kLiteral && top.kind == NodeKind::kLiteral && below.fold == top.fold) {
      below.multi = true;
      items_.pop_back();
    }
  }

  void push(const Node& n) {
    merge_literals();
    items_.push_back(n);
    check(n);
  }
  void push_literal(bool fold) { push(Node{NodeKind::kLiteral, fold, false, 1}); }

  void open_group(bool capture) {
    merge_literals();
    Group g;
    g.capture = capture;
    g.saved_fold = fold_;
    g.first = items_.size();
    groups_.push_back(g);
  }

  // The current branch's items as one node (Go's concat()); they leave items_.
  Node concat() {
    merge_literals();
    const size_t first = groups_.back().first;
    const size_t n = items_.size() - first;
    Node r{NodeKind::kEmpty};
    if (n == 1) {
      r = items_.back();
    } else if (n > 1) {
      int h = 0;
      for (size_t k = first; k < items_.size(); ++k)
        h = std::max(h, items_[k].kind == NodeKind::kConcat ? items_[k].height - 1 : items_[k].height);
      r = Node{NodeKind::kConcat, false, false, h + 1};
    }
    items_.resize(first);
    check(r);
    return r;
  }

  static void add_branch(Group& g, const Node& b) {
    if (b.kind == NodeKind::kAlternate) {
      g.subs += 2;
      g.all_class = g.all_empty = false;
      g.max_height = std::max(g.max_height, b.height - 1);
      return;
    }
    if (g.subs == 0) g.only = b;
    ++g.subs;
    g.all_class = g.all_class && (b.kind == NodeKind::kClass || (b.kind == NodeKind::kLiteral && !b.multi));
    g.all_empty = g.all_empty && b.kind == NodeKind::kEmpty;
    g.max_height = std::max(g.max_height, b.height);
  }

  static Node alternation(const Group& g) {
    if (g.subs == 1) return g.only;
    if (g.all_class) return Node{NodeKind::kClass};
    if (g.all_empty) return Node{NodeKind::kEmpty};
    return Node{NodeKind::kAlternate, false, false, g.max_height + 1};
  }

  void close_group() {
    add_branch(groups_.back(), concat());
    if (too_tall_) return;
    Node r = alternation(groups_.back());
    check(r);
    const Group closed = groups_.back();
    groups_.pop_back();
    fold_ = closed.saved_fold;
    if (closed.capture) r = Node{NodeKind::kWrapper, false, false, r.height + 1};
    push(r);
  }

  // "(?P<name>", "(?flags)", "(?flags:" at re_[i]; advances i.
  bool perl_flags(size_t& i) {
    std::string_view t = re_.substr(i);
    if (t.size() > 4 && t[2] == 'P' && t[3] == '<') {
      size_t end = t.find('>');
      if (end == std::string_view::npos) return false;
      std::string_view name = t.substr(4, end - 4);
      if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return is_word_byte(c); })) return false;
      open_group(true);
      i += end + 1;
      return true;
    }
    bool fold = fold_, negated = false, saw_flag = false;
    for (size_t k = 2; k < t.size(); ++k) {
      switch (t[k]) {
        case 'i':
          fold = !negated;
          saw_flag = true;
          break;
        case 'm':
        case 's':
        case 'U':
          saw_flag = true;
          break;
        case '-':
          if (negated) return false;
          negated = true;
          saw_flag = false;
          break;
        case ':':
        case ')':
          if (negated && !saw_flag) return false;
          if (t[k] == ':') open_group(false);
          fold_ = fold;
          i += k + 1;
          return true;
        default:
          return false;
      }
    }
    return false;
  }

  // Bytes of the valid UTF-8 sequence at re_[i], 0 if there is none.
  size_t rune_len(size_t i) const {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(re_[k]); };
    const unsigned char c = b(i);
    if (c < 0x80) return 1;
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || c > 0xF4 || i + n > re_.size()) return 0;
    for (size_t k = 1; k < n; ++k)
      if ((b(i + k) & 0xC0) != 0x80) return 0;
    const unsigned char c1 = b(i + 1);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F))
      return 0;  // overlong, surrogate, beyond U+10FFFF
    return n;
  }

  // Go's parseRepeat: "{n}", "{n,}", "{n,m}" at re_[i]; false when it is not
  // one (the '{' is then a literal). min < 0: a number too large.
  bool parse_repeat(size_t i, size_t& end, int& min, int& max) const {
    size_t k = i + 1;
    auto number = [&](int& v) {
      if (k >= re_.size() || re_[k] < '0' || re_[k] > '9') return false;
      if (re_[k] == '0' && k + 1 < re_.size() && re_[k + 1] >= '0' && re_[k + 1] <= '9') return false;
      v = 0;
      for (; k < re_.size() && re_[k] >= '0' && re_[k] <= '9'; ++k)
        if (v >= 0) v = v >= 100000000 ? -1 : v * 10 + (re_[k] - '0');
      return true;
    };
    if (!number(min)) return false;
    if (k >= re_.size()) return false;
    if (re_[k] != ',') {
      max = min;
    } else {
      ++k;
      if (k >= re_.size()) return false;
      if (re_[k] == '}') {
        max = -1;
      } else {
        if (!number(max)) return false;
        if (max < 0) min = -1;
      }
    }
    if (k >= re_.size() || re_[k] != '}') return false;
    end = k + 1;
    return true;
  }

  // Go's parseEscape at re_[i] == '\\': one rune, its value in r; end is past it.
  bool escape_rune(size_t i, size_t& end, uint32_t& r) const {
    size_t k = i + 1;
    if (k >= re_.size()) return false;  // trailing backslash
    const unsigned char c = static_cast<unsigned char>(re_[k++]);
    const auto octal = [&](size_t at) { return at < re_.size() && re_[at] >= '0' && re_[at] <= '7'; };
    const auto hex = [&](size_t at) { return at < re_.size() && std::isxdigit(static_cast<unsigned char>(re_[at])); };
    const auto hex_value = [&](size_t at) {
      const unsigned char h = static_cast<unsigned char>(re_[at]);
      return static_cast<uint32_t>(std::isdigit(h) ? h - '0' : std::tolower(h) - 'a' + 10);
    };
    if (c >= '1' && c <= '7' && !octal(k)) return false;  // a backreference
    if (c >= '0' && c <= '7') {
      r = c - '0';
      for (int n = 1; n < 3 && octal(k); ++n) r = r * 8 + static_cast<uint32_t>(re_[k++] - '0');
    } else if (c == 'x') {
      if (k < re_.size() && re_[k] == '{') {
        ++k;
        r = 0;
        size_t digits = 0;
        for (; hex(k); ++k, ++digits) {
          r = r * 16 + hex_value(k);
          if (r > 0x10FFFF) return false;
        }
        if (digits == 0 || k >= re_.size() || re_[k] != '}') return false;
        ++k;
      } else {
        if (!hex(k) || !hex(k + 1)) return false;
        r = hex_value(k) * 16 + hex_value(k + 1);
        k += 2;
      }
    } else if (c < 0x80 && !std::isalnum(c)) {
      r = c;  // punctuation stands for itself
    } else {
      static constexpr std::string_view kNames = "afnrtv";
      static constexpr char kValues[] = {'\a', '\f', '\n', '\r', '\t', '\v'};
      size_t at = kNames.find(static_cast<char>(c));
      if (c >= 0x80 || at == std::string_view::npos) return false;  // not an escape Go knows
      r = static_cast<unsigned char>(kValues[at]);
    }
    end = k;
    return true;
  }

  // The rune of the valid UTF-8 sequence at re_[i] and its length (0: none).
  size_t decode(size_t i, uint32_t& r) const {
    const size_t n = rune_len(i);
    const unsigned char c = static_cast<unsigned char>(re_[i]);
    r = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; k < n; ++k) r = (r << 6) | (static_cast<unsigned char>(re_[i + k]) & 0x3F);
    return n;
  }

  // \pX, \p{Name}, \PX, \P{Name} at re_[i]; the name is not checked.
  bool unicode_class(size_t i, size_t& end) const {
    if (i + 2 >= re_.size()) return false;
    if (re_[i + 2] != '{') {
      size_t n = rune_len(i + 2);
      end = i + 2 + n;
      return n > 0;
    }
    size_t close = re_.find('}', i + 3);
    if (close == std::string_view::npos) return false;
    end = close + 1;
    return true;
  }

  bool escape(size_t& i) {
    if (i + 1 >= re_.size()) return false;
    const char c = re_[i + 1];
    size_t end = 0;
    switch (c) {
      case 'A':
      case 'b':
      case 'B':
      case 'z':
        push(Node{NodeKind::kLeaf});
        i += 2;
        return true;
      case 'C':
        return false;
      case 'Q': {
        size_t stop = re_.find("\\E", i + 2);
        size_t lit_end = stop == std::string_view::npos ? re_.size() : stop;
        for (size_t k = i + 2; k < lit_end;) {
          size_t n = rune_len(k);
          if (n == 0) return false;
          push_literal(fold_);
          k += n;
        }
        i = stop == std::string_view::npos ? re_.size() : stop + 2;
        return true;
      }
      case 'p':
      case 'P':
        if (!unicode_class(i, end)) return false;
        push(Node{NodeKind::kClass});
        i = end;
        return true;
      case 'd':
      case 'D':
      case 's':
      case 'S':
      case 'w':
      case 'W':
        push(Node{NodeKind::kClass});
        i += 2;
        return true;
      default: {
        uint32_t r = 0;
        if (!escape_rune(i, end, r)) return false;
        push_literal(fold_);
        i = end;
        return true;
      }
    }
  }

  // One rune of a class at re_[k] (escaped or not): its value, k advanced.
  bool class_char(size_t& k, uint32_t& r) const {
    if (k >= re_.size()) return false;
    if (re_[k] == '\\') {
      size_t end = 0;
      if (!escape_rune(k, end, r)) return false;
      k = end;
      return true;
    }
    size_t n = decode(k, r);
    k += n;
    return n > 0;
  }

  // "[...]" at re_[i] (Go's parseClass): a class, or a literal when it holds
  // one character ([a], [Aa]); advances i past the ']'.
  bool char_class(size_t& i) {
    static constexpr std::string_view kPosix[] = {"alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph",
                                                  "lower", "print", "punct", "space", "upper", "word",  "xdigit"};
    size_t k = i + 1;
    bool negated = k < re_.size() && re_[k] == '^';
    if (negated) ++k;
    bool first = true, single = !negated;
    std::vector<uint32_t> runes;  // distinct single runes, while `single`
    while (k >= re_.size() || re_[k] != ']' || first) {
      if (k >= re_.size()) return false;  // missing ]
      first = false;
      if (re_.substr(k, 2) == "[:") {
        size_t close = re_.find(":]", k + 2);
        if (close != std::string_view::npos) {
          std::string_view name = re_.substr(k + 2, close - k - 2);
          if (!name.empty() && name[0] == '^') name.remove_prefix(1);
          if (std::find(std::begin(kPosix), std::end(kPosix), name) == std::end(kPosix)) return false;
          single = false;
          k = close + 2;
          continue;
        }
      }
      if (re_[k] == '\\' && k + 1 < re_.size()) {
        const char e = re_[k + 1];
        size_t end = 0;
        if (e == 'p' || e == 'P') {
          if (!unicode_class(k, end)) return false;
          single = false;
          k = end;
          continue;
        }
        if (std::string_view("dDsSwW").find(e) != std::string_view::npos) {
          single = false;
          k += 2;
          continue;
        }
      }
      uint32_t lo = 0, hi = 0;
      if (!class_char(k, lo)) return false;
      hi = lo;
      if (k + 1 < re_.size() && re_[k] == '-' && re_[k + 1] != ']') {
        ++k;
        if (!class_char(k, hi) || hi < lo) return false;
        if (hi != lo) single = false;
      }
      if (single && std::find(runes.begin(), runes.end(), lo) == runes.end()) runes.push_back(lo);
    }
    i = k + 1;
    // Go turns a class of one rune, or of a letter and its other case, into a
    // literal. Under (?i) a letter's class holds both cases; k and s also
    // fold to non-ASCII runes, so they stay classes. (Non-ASCII letters are
    // taken as caseless: only whether the literal merges can differ.)
    const auto letter = [](uint32_t r) { return r < 0x80 && std::isalpha(static_cast<int>(r)); };
    const auto two_way = [&](uint32_t r) {
      return letter(r) && std::string_view("kKsS").find(static_cast<char>(r)) == std::string_view::npos;
    };
    if (single && runes.size() == 1 && !(fold_ && letter(runes[0]))) {
      push_literal(false);
    } else if (single && runes.size() == 1 && two_way(runes[0])) {
      push_literal(true);
    } else if (single && runes.size() == 2 && two_way(runes[0]) && (runes[0] ^ 0x20) == runes[1]) {
      push_literal(true);
    } else {
      push(Node{NodeKind::kClass});
    }
    return true;
  }

  std::string_view re_;
  std::vector<Node> items_;
  std::vector<Group> groups_;
  bool fold_ = false;
  bool too_tall_ = false;
};

}  // namespace

std::string regexp_nesting_error(std::string_view pattern) {
  const size_t at = GoHeightScan(pattern).run();
  if (at == kNoVerdict) return "";
  // Go stops there unless the pattern is wrong before that point. The scan
  // refuses what it knows Go refuses; RE2 judges the rest (names of Unicode
  // classes, products of repeat counts) on the prefix, which is never
  // compiled: a trailing backslash ends the parse if nothing else does.
  RE2::Options o;
  o.set_log_errors(false);
  RE2 prefix(std::string(pattern.substr(0, at)) + "\\", o);
  if (prefix.error_code() != RE2::ErrorTrailingBackslash) return "";
  return "error parsing regexp: expression nests too deeply: `" + std::string(pattern) + "`";
}

}  // namespace llmon::go
