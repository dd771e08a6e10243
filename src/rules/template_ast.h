// Parse trees of Go's text/template (text/template/parse/node.go): the node
// kinds, their byte positions in the template text, and their String()
// forms, which Go's execution errors quote ("at <humanize $value>").
// A TreeSet holds the main tree and the {{define}}d ones; trees are
// immutable after parsing and may be executed concurrently.
#pragma once

#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace llmon::rules::tmpl {

enum class NodeType : uint8_t {
  kText,
  kAction,
  kBool,
  kChain,
  kCommand,
  kDot,
  kElse,
  kEnd,
  kField,
  kIdentifier,
  kIf,
  kList,
  kNil,
  kNumber,
  kPipe,
  kRange,
  kString,
  kTemplate,
  kVariable,
  kWith,
  kComment,
  kBreak,
  kContinue,
};

struct Node {
  Node(NodeType t, int p) : type(t), pos(p) {}
  virtual ~Node() = default;
  virtual void write_to(std::string& sb) const = 0;
  std::string str() const {
    std::string s;
    write_to(s);
    return s;
  }
  NodeType type;
  int pos;  // byte offset in the template text
};
using NodePtr = std::unique_ptr<Node>;

struct ListNode : Node {
  explicit ListNode(int p) : Node(NodeType::kList, p) {}
  void write_to(std::string& sb) const override;
  std::vector<NodePtr> nodes;
};

struct TextNode : Node {
  TextNode(int p, std::string t) : Node(NodeType::kText, p), text(std::move(t)) {}
  void write_to(std::string& sb) const override { sb += text; }
  std::string text;
};

struct VariableNode : Node {
  VariableNode(int p, const std::string& ident);  // "$x.a.b" split at dots
  void write_to(std::string& sb) const override;
  std::vector<std::string> ident;
};

struct CommandNode;
struct PipeNode : Node {
  PipeNode(int p, int l) : Node(NodeType::kPipe, p), line(l) {}
  void write_to(std::string& sb) const override;
  int line;
  bool is_assign = false;
  std::vector<std::unique_ptr<VariableNode>> decl;
  std::vector<std::unique_ptr<CommandNode>> cmds;
};

struct ActionNode : Node {
  ActionNode(int p, int l, std::unique_ptr<PipeNode> pp) : Node(NodeType::kAction, p), line(l), pipe(std::move(pp)) {}
  void write_to(std::string& sb) const override;
  int line;
  std::unique_ptr<PipeNode> pipe;
};

struct CommandNode : Node {
  explicit CommandNode(int p) : Node(NodeType::kCommand, p) {}
  void write_to(std::string& sb) const override;
  std::vector<NodePtr> args;
};

struct IdentifierNode : Node {
  IdentifierNode(int p, std::string i) : Node(NodeType::kIdentifier, p), ident(std::move(i)) {}
  void write_to(std::string& sb) const override { sb += ident; }
  std::string ident;
};

struct DotNode : Node {
  explicit DotNode(int p) : Node(NodeType::kDot, p) {}
  void write_to(std::string& sb) const override { sb += '.'; }
};

struct NilNode : Node {
  explicit NilNode(int p) : Node(NodeType::kNil, p) {}
  void write_to(std::string& sb) const override { sb += "nil"; }
};

struct FieldNode : Node {
  FieldNode(int p, const std::string& ident);  // ".a.b"
  void write_to(std::string& sb) const override;
  std::vector<std::string> ident;
};

struct ChainNode : Node {
  ChainNode(int p, NodePtr n) : Node(NodeType::kChain, p), node(std::move(n)) {}
  void write_to(std::string& sb) const override;
  NodePtr node;
  std::vector<std::string> field;
};

struct BoolNode : Node {
  BoolNode(int p, bool v) : Node(NodeType::kBool, p), value(v) {}
  void write_to(std::string& sb) const override { sb += value ? "true" : "false"; }
  bool value;
};

struct NumberNode : Node {
  NumberNode(int p, std::string t) : Node(NodeType::kNumber, p), text(std::move(t)) {}
  void write_to(std::string& sb) const override { sb += text; }
  bool is_int = false, is_uint = false, is_float = false, is_complex = false;
  int64_t int64 = 0;
  uint64_t uint64 = 0;
  double float64 = 0;
  std::complex<double> complex128;
  std::string text;
};

struct StringNode : Node {
  StringNode(int p, std::string q, std::string t)
      : Node(NodeType::kString, p), quoted(std::move(q)), text(std::move(t)) {}
  void write_to(std::string& sb) const override { sb += quoted; }
  std::string quoted;
  std::string text;
};

struct EndNode : Node {
  explicit EndNode(int p) : Node(NodeType::kEnd, p) {}
  void write_to(std::string& sb) const override { sb += "{{end}}"; }
};

struct ElseNode : Node {
  ElseNode(int p, int l) : Node(NodeType::kElse, p), line(l) {}
  void write_to(std::string& sb) const override { sb += "{{else}}"; }
  int line;
};

// if, range, with.
struct BranchNode : Node {
  BranchNode(NodeType t, int p, int l, std::unique_ptr<PipeNode> pp, std::unique_ptr<ListNode> li,
             std::unique_ptr<ListNode> el)
      : Node(t, p), line(l), pipe(std::move(pp)), list(std::move(li)), else_list(std::move(el)) {}
  void write_to(std::string& sb) const override;
  int line;
  std::unique_ptr<PipeNode> pipe;
  std::unique_ptr<ListNode> list;
  std::unique_ptr<ListNode> else_list;  // null when absent
};

struct TemplateNode : Node {
  TemplateNode(int p, int l, std::string n, std::unique_ptr<PipeNode> pp)
      : Node(NodeType::kTemplate, p), line(l), name(std::move(n)), pipe(std::move(pp)) {}
  void write_to(std::string& sb) const override;
  int line;
  std::string name;
  std::unique_ptr<PipeNode> pipe;  // null when absent
};

struct BreakNode : Node {
  BreakNode(int p, int l) : Node(NodeType::kBreak, p), line(l) {}
  void write_to(std::string& sb) const override { sb += "{{break}}"; }
  int line;
};

struct ContinueNode : Node {
  ContinueNode(int p, int l) : Node(NodeType::kContinue, p), line(l) {}
  void write_to(std::string& sb) const override { sb += "{{continue}}"; }
  int line;
};

// parse.IsEmptyTree.
bool is_empty_tree(const Node* n);

struct Tree {
  std::string name;
  std::string parse_name;  // the top-level template's name, for errors
  std::unique_ptr<ListNode> root;
};

struct TreeSet {
  std::string text;  // the parsed text (node positions refer to it)
  std::map<std::string, std::shared_ptr<const Tree>> trees;
};

}  // namespace llmon::rules::tmpl
