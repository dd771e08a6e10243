// The YAML document tree built from yaml-cpp's parser events
// (rule_file_yaml.h), with the input checks Go's yaml reader makes. The
// decoder is in rule_file_yaml_decode.cpp. Go's behaviour referenced here is
// gopkg.in/yaml.v3's (and v2's), as Prometheus 2.42 uses them.
#include "rules/rule_file_yaml.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>

namespace llmon::rules::yaml {

namespace {

// Go's yaml reader accepts #x9 #xA #xD [#x20-#x7E] #x85 [#xA0-#xD7FF]
// [#xE000-#xFFFD] [#x10000-#x10FFFF] in valid UTF-8 (yaml_parser_update_buffer).
struct ReaderError {
  size_t offset;
  std::string message;
};

std::optional<ReaderError> check_reader(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int width = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (width == 0) return ReaderError{i, "invalid leading UTF-8 octet"};
    if (i + width > s.size()) return ReaderError{i, "incomplete UTF-8 octet sequence"};
    uint32_t v = width == 1 ? c : width == 2 ? (c & 0x1F) : width == 3 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k < width; ++k) {
      unsigned char t = static_cast<unsigned char>(s[i + k]);
      if ((t & 0xC0) != 0x80) return ReaderError{i, "invalid trailing UTF-8 octet"};
      v = (v << 6) | (t & 0x3F);
    }
    if (!(width == 1 || (width == 2 && v >= 0x80) || (width == 3 && v >= 0x800) || (width == 4 && v >= 0x10000))) {
      return ReaderError{i, "invalid length of a UTF-8 sequence"};
    }
    if ((v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF) return ReaderError{i, "invalid Unicode character"};
    bool allowed = v == 0x09 || v == 0x0A || v == 0x0D || (v >= 0x20 && v <= 0x7E) || v == 0x85 ||
                   (v >= 0xA0 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD) || (v >= 0x10000 && v <= 0x10FFFF);
    if (!allowed) return ReaderError{i, "control characters are not allowed"};
    i += width;
  }
  return std::nullopt;
}

// Line (1-based) and character column (1-based) of a byte offset.
std::pair<int, int> line_col_of(std::string_view text, size_t offset) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  int col = 1;
  for (size_t i = line_start; i < offset && i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++col;
  }
  return {line, col};
}

std::string short_tag(const std::string& tag) {
  static constexpr std::string_view kPrefix = "tag:yaml.org,2002:";
  if (tag.compare(0, kPrefix.size(), kPrefix) == 0) return "!!" + tag.substr(kPrefix.size());
  return tag;
}

// Builds the tree from yaml-cpp's events. Anchors are registered when their
// node is complete, so an alias inside its own anchor is an error, not a cycle.
class Builder : public YAML::EventHandler {
 public:
  Builder(std::string_view text, size_t bom) : text_(text), bom_(bom) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto n = make(Node::Kind::kNull, mark);
    size_t at = static_cast<size_t>(mark.pos) + bom_;
    for (std::string_view word : {"~", "null", "Null", "NULL"}) {
      if (text_.substr(at, word.size()) == word) {
        size_t end = at + word.size();
        if (end == text_.size() || std::string_view(" \t\r\n,]}#").find(text_[end]) != std::string_view::npos) {
          n->value = std::string(word);
        }
        break;
      }
    }
    add(std::move(n), anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      throw YAML::ParserException(mark, "anchor value contains itself");
    }
    auto n = make(Node::Kind::kAlias, mark);
    n->items.push_back(it->second);
    add(std::move(n), 0);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (tag == "!") check_closed_quote(mark);
    auto n = make(Node::Kind::kScalar, mark);
    n->quoted = tag == "!";
    if (tag != "!" && tag != "?") n->tag = short_tag(tag);
    n->value = value;
    if (n->tag == "!!null") n->kind = Node::Kind::kNull;
    add(std::move(n), anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(Node::Kind::kSequence, mark, tag, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(Node::Kind::kMapping, mark, tag, anchor);
  }
  void OnMapEnd() override { close(); }

  NodePtr root() const { return root_; }

 private:
  // yaml-cpp accepts a quoted scalar that runs to the end of the input when
  // a line break follows its opening quote; Go's yaml does not.
  void check_closed_quote(const YAML::Mark& mark) {
    size_t i = static_cast<size_t>(std::max(mark.pos, 0)) + bom_;
    if (i >= text_.size() || (text_[i] != '"' && text_[i] != '\'')) return;
    const char q = text_[i];
    for (++i; i < text_.size(); ++i) {
      if (q == '"' && text_[i] == '\\') {
        ++i;
      } else if (text_[i] == q) {
        if (q == '\'' && i + 1 < text_.size() && text_[i + 1] == '\'') {
          ++i;
          continue;
        }
        return;
      }
    }
    throw YAML::ParserException(mark, "illegal EOF in scalar");
  }

  std::shared_ptr<Node> make(Node::Kind kind, const YAML::Mark& mark) {
    auto n = std::make_shared<Node>();
    n->kind = kind;
    size_t at = static_cast<size_t>(std::max(mark.pos, 0)) + bom_;
    n->line = mark.line + 1;
    // yaml-cpp counts columns in bytes; Go's yaml in characters.
    n->column = column_of(at, mark.column);
    return n;
  }
  int column_of(size_t at, int byte_column) {
    if (at > text_.size()) at = text_.size();
    size_t line_start = at >= static_cast<size_t>(byte_column) ? at - static_cast<size_t>(byte_column) : 0;
    if (line_start == cursor_line_start_ && at >= cursor_at_) {
      for (size_t i = cursor_at_; i < at; ++i) {
        if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++cursor_col_;
      }
    } else {
      cursor_col_ = 1;
      for (size_t i = line_start; i < at; ++i) {
        if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++cursor_col_;
      }
    }
    cursor_line_start_ = line_start;
    cursor_at_ = at;
    return cursor_col_;
  }
  void open(Node::Kind kind, const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor) {
    auto n = make(kind, mark);
    if (tag != "?" && tag != "!") n->tag = short_tag(tag);
    stack_.push_back({n, anchor});
  }
  void close() {
    auto [n, anchor] = stack_.back();
    stack_.pop_back();
    add(std::move(n), anchor);
  }
  void add(std::shared_ptr<Node> n, YAML::anchor_t anchor) {
    if (anchor != 0) anchors_[anchor] = n;
    if (stack_.empty()) {
      root_ = std::move(n);
    } else {
      stack_.back().first->items.push_back(std::move(n));
    }
  }

  std::string_view text_;
  size_t bom_;
  std::vector<std::pair<std::shared_ptr<Node>, YAML::anchor_t>> stack_;
  std::map<YAML::anchor_t, NodePtr> anchors_;
  NodePtr root_;
  size_t cursor_line_start_ = std::string_view::npos;
  size_t cursor_at_ = 0;
  int cursor_col_ = 1;
};

}  // namespace

Expected<NodePtr> parse(std::string_view text) {
  if (auto err = check_reader(text)) {
    auto [line, col] = line_col_of(text, err->offset);
    return Status::error("yaml: line " + std::to_string(line) + ":" + std::to_string(col) + ": " + err->message);
  }
  size_t bom = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  std::istringstream in{std::string(text)};
  Builder builder(text, bom);
  try {
    YAML::Parser parser(in);
    parser.HandleNextDocument(builder);
  } catch (const YAML::Exception& e) {
    size_t at = e.mark.pos >= 0 ? static_cast<size_t>(e.mark.pos) + bom : 0;
    int line = e.mark.line + 1;
    int col = 1;
    if (e.mark.is_null()) {
      line = 1;
    } else {
      col = line_col_of(text, at).second;
    }
    return Status::error("yaml: line " + std::to_string(line) + ":" + std::to_string(col) + ": " + e.msg);
  } catch (const std::exception& e) {
    return Status::error(std::string("yaml: ") + e.what());
  }
  return builder.root();
}

std::string line_col(const Node& n) {
  return "line " + std::to_string(n.line) + ":" + std::to_string(n.column);
}

}  // namespace llmon::rules::yaml
