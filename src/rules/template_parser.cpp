// The text/template parser (template_internal.h), following parse/parse.go
// of Go 1.19 step for step, including its three-token look-ahead, so that
// errors carry Go's line numbers and wording. Errors unwind the recursive
// descent as a ParseError exception, which never leaves this file.
#include <string>
#include <vector>

#include "go/strconv.h"
#include "go/strconv.h"
#include "rules/humanize.h"
#include "rules/template_funcs.h"
#include "rules/template_internal.h"
#include "rules/template_lexer.h"

namespace llmon::rules::tmpl {

namespace {

struct ParseError {
  std::string message;
};

// float64(int64(f)) == f and float64(uint64(f)) == f on amd64.
bool is_int64(double f) {
  return static_cast<double>(go_float_to_int64(f)) == f;
}
bool is_uint64(double f) {
  return f >= 0 && f < 18446744073709551616.0 && static_cast<double>(static_cast<uint64_t>(f)) == f;
}

class Parser {
 public:
  Parser(std::string name, std::string parse_name, Lexer* lex, TreeSet* set, int* nesting)
      : lex_(lex), set_(set), nesting_(nesting) {
    tree_ = std::make_shared<Tree>();
    tree_->name = std::move(name);
    tree_->parse_name = std::move(parse_name);
    vars_ = {"$"};
  }

  // Tree.Parse: the whole input.
  void parse_top() {
    parse();
    add();
  }

 private:
  using ListPtr = std::unique_ptr<ListNode>;

  Item next() {
    if (peek_count_ > 0) {
      --peek_count_;
    } else {
      token_[0] = lex_->next_item();
    }
    return token_[peek_count_];
  }
  void backup() { ++peek_count_; }
  void backup2(Item t1) {
    token_[1] = std::move(t1);
    peek_count_ = 2;
  }
  void backup3(Item t2, Item t1) {
    token_[1] = std::move(t1);
    token_[2] = std::move(t2);
    peek_count_ = 3;
  }
  Item peek() {
    if (peek_count_ > 0) return token_[peek_count_ - 1];
    peek_count_ = 1;
    token_[0] = lex_->next_item();
    return token_[0];
  }
  Item next_non_space() {
    Item t;
    do {
      t = next();
    } while (t.type == ItemType::kSpace);
    return t;
  }
  Item peek_non_space() {
    Item t = next_non_space();
    backup();
    return t;
  }

  [[noreturn]] void errorf(const std::string& msg) {
    throw ParseError{"template: " + tree_->parse_name + ":" + std::to_string(token_[0].line) + ": " + msg};
  }

  Item expect(ItemType expected, std::string_view context) {
    Item t = next_non_space();
    if (t.type != expected) unexpected(t, context);
    return t;
  }

  Item expect_one_of(ItemType e1, ItemType e2, std::string_view context) {
    Item t = next_non_space();
    if (t.type != e1 && t.type != e2) unexpected(t, context);
    return t;
  }

  [[noreturn]] void unexpected(const Item& token, std::string_view context) {
    if (token.type == ItemType::kError) {
      std::string extra;
      if (action_line_ != 0 && action_line_ != token.line) {
        extra = " in action started at " + tree_->parse_name + ":" + std::to_string(action_line_);
        if (token.val.size() >= 7 && token.val.compare(token.val.size() - 7, 7, " action") == 0)
          extra = extra.substr(std::string_view(" in action").size());
      }
      errorf(item_string(token) + extra);
    }
    errorf("unexpected " + item_string(token) + " in " + std::string(context));
  }

  void add() {
    auto it = set_->trees.find(tree_->name);
    if (it == set_->trees.end() || is_empty_tree(it->second->root.get())) {
      set_->trees[tree_->name] = tree_;
      return;
    }
    if (!is_empty_tree(tree_->root.get()))
      errorf("template: multiple definition of template " + go::quote(tree_->name));
  }

  struct NestingGuard {
    NestingGuard(Parser* p) : p_(p) {
      if (++*p_->nesting_ > kMaxParseNesting) p_->errorf("max expression depth exceeded");
    }
    ~NestingGuard() { --*p_->nesting_; }
    Parser* p_;
  };

  void parse() {
    tree_->root = std::make_unique<ListNode>(peek().pos);
    while (peek().type != ItemType::kEof) {
      if (peek().type == ItemType::kLeftDelim) {
        Item delim = next();
        if (next_non_space().type == ItemType::kDefine) {
          Parser def("definition", tree_->parse_name, lex_, set_, nesting_);
          def.parse_definition();
          continue;
        }
        backup2(std::move(delim));
      }
      NodePtr n = text_or_action();
      if (n->type == NodeType::kEnd || n->type == NodeType::kElse) errorf("unexpected " + n->str());
      tree_->root->nodes.push_back(std::move(n));
    }
  }

  void parse_definition() {
    const std::string_view context = "define clause";
    Item name = expect_one_of(ItemType::kString, ItemType::kRawString, context);
    auto unq = go::unquote(name.val);
    if (!unq) errorf(unq.error());
    tree_->name = *unq;
    expect(ItemType::kRightDelim, context);
    auto [list, end] = item_list();
    if (end->type != NodeType::kEnd) errorf("unexpected " + end->str() + " in " + std::string(context));
    tree_->root = std::move(list);
    add();
  }

  std::pair<ListPtr, NodePtr> item_list() {
    auto list = std::make_unique<ListNode>(peek_non_space().pos);
    while (peek_non_space().type != ItemType::kEof) {
      NodePtr n = text_or_action();
      if (n->type == NodeType::kEnd || n->type == NodeType::kElse) return {std::move(list), std::move(n)};
      list->nodes.push_back(std::move(n));
    }
    errorf("unexpected EOF");
  }

  NodePtr text_or_action() {
    Item token = next_non_space();
    switch (token.type) {
      case ItemType::kText:
        return std::make_unique<TextNode>(token.pos, token.val);
      case ItemType::kLeftDelim: {
        action_line_ = token.line;
        NodePtr n = action();
        action_line_ = 0;
        return n;
      }
      default:
        unexpected(token, "input");
    }
  }

  NodePtr action() {
    Item token = next_non_space();
    switch (token.type) {
      case ItemType::kBlock:
        return block_control();
      case ItemType::kBreak:
        return break_control(token.pos, token.line, true);
      case ItemType::kContinue:
        return break_control(token.pos, token.line, false);
      case ItemType::kElse:
        return else_control();
      case ItemType::kEnd:
        return end_control();
      case ItemType::kIf:
        return if_control();
      case ItemType::kRange:
        return range_control();
      case ItemType::kTemplate:
        return template_control();
      case ItemType::kWith:
        return with_control();
      default:
        break;
    }
    backup();
    Item t = peek();
    const int pos = t.pos, line = t.line;
    return std::make_unique<ActionNode>(pos, line, pipeline("command", ItemType::kRightDelim));
  }

  NodePtr break_control(int pos, int line, bool is_break) {
    const std::string what = is_break ? "{{break}}" : "{{continue}}";
    Item token = next_non_space();
    if (token.type != ItemType::kRightDelim) unexpected(token, what);
    if (range_depth_ == 0) errorf(what + " outside {{range}}");
    if (is_break) return std::make_unique<BreakNode>(pos, line);
    return std::make_unique<ContinueNode>(pos, line);
  }

  std::unique_ptr<PipeNode> pipeline(const std::string& context, ItemType end) {
    Item token = peek_non_space();
    auto pipe = std::make_unique<PipeNode>(token.pos, token.line);
  decls:
    Item v = peek_non_space();
    if (v.type == ItemType::kVariable) {
      next();
      Item token_after_variable = peek();
      Item nx = peek_non_space();
      if (nx.type == ItemType::kAssign || nx.type == ItemType::kDeclare) {
        pipe->is_assign = nx.type == ItemType::kAssign;
        next_non_space();
        pipe->decl.push_back(std::make_unique<VariableNode>(v.pos, v.val));
        vars_.push_back(v.val);
      } else if (nx.type == ItemType::kChar && nx.val == ",") {
        next_non_space();
        pipe->decl.push_back(std::make_unique<VariableNode>(v.pos, v.val));
        vars_.push_back(v.val);
        if (context == "range" && pipe->decl.size() < 2) {
          const ItemType t = peek_non_space().type;
          if (t == ItemType::kVariable || t == ItemType::kRightDelim || t == ItemType::kRightParen) goto decls;
          errorf("range can only initialize variables");
        }
        errorf("too many declarations in " + context);
      } else if (token_after_variable.type == ItemType::kSpace) {
        backup3(std::move(v), std::move(token_after_variable));
      } else {
        backup2(std::move(v));
      }
    }
    for (;;) {
      Item t = next_non_space();
      if (t.type == end) {
        check_pipeline(*pipe, context);
        return pipe;
      }
      switch (t.type) {
        case ItemType::kBool:
        case ItemType::kCharConstant:
        case ItemType::kComplex:
        case ItemType::kDot:
        case ItemType::kField:
        case ItemType::kIdentifier:
        case ItemType::kNumber:
        case ItemType::kNil:
        case ItemType::kRawString:
        case ItemType::kString:
        case ItemType::kVariable:
        case ItemType::kLeftParen:
          backup();
          pipe->cmds.push_back(command());
          break;
        default:
          unexpected(t, context);
      }
    }
  }

  void check_pipeline(const PipeNode& pipe, const std::string& context) {
    if (pipe.cmds.empty()) errorf("missing value for " + context);
    for (size_t i = 1; i < pipe.cmds.size(); ++i) {
      switch (pipe.cmds[i]->args[0]->type) {
        case NodeType::kBool:
        case NodeType::kDot:
        case NodeType::kNil:
        case NodeType::kNumber:
        case NodeType::kString:
          errorf("non executable command in pipeline stage " + std::to_string(i + 1));
        default:
          break;
      }
    }
  }

  struct Control {
    int pos = 0, line = 0;
    std::unique_ptr<PipeNode> pipe;
    ListPtr list, else_list;
  };

  Control parse_control(bool allow_else_if, const std::string& context) {
    NestingGuard guard(this);
    const size_t nvars = vars_.size();
    Control c;
    c.pipe = pipeline(context, ItemType::kRightDelim);
    if (context == "range") ++range_depth_;
    auto [list, nx] = item_list();
    if (context == "range") --range_depth_;
    c.list = std::move(list);
    if (nx->type == NodeType::kElse) {
      bool done = false;
      if (allow_else_if && peek().type == ItemType::kIf) {
        next();
        c.else_list = std::make_unique<ListNode>(nx->pos);
        c.else_list->nodes.push_back(if_control());
        done = true;
      }
      if (!done) {
        auto [else_list, nx2] = item_list();
        if (nx2->type != NodeType::kEnd) errorf("expected end; found " + nx2->str());
        c.else_list = std::move(else_list);
      }
    }
    vars_.resize(nvars);
    c.pos = c.pipe->pos;
    c.line = c.pipe->line;
    return c;
  }

  NodePtr branch(NodeType type, Control c) {
    return std::make_unique<BranchNode>(type, c.pos, c.line, std::move(c.pipe), std::move(c.list),
                                        std::move(c.else_list));
  }
  NodePtr if_control() { return branch(NodeType::kIf, parse_control(true, "if")); }
  NodePtr range_control() { return branch(NodeType::kRange, parse_control(false, "range")); }
  NodePtr with_control() { return branch(NodeType::kWith, parse_control(false, "with")); }

  NodePtr end_control() { return std::make_unique<EndNode>(expect(ItemType::kRightDelim, "end").pos); }

  NodePtr else_control() {
    Item p = peek_non_space();
    if (p.type == ItemType::kIf) return std::make_unique<ElseNode>(p.pos, p.line);
    Item token = expect(ItemType::kRightDelim, "else");
    return std::make_unique<ElseNode>(token.pos, token.line);
  }

  NodePtr block_control() {
    const std::string context = "block clause";
    Item token = next_non_space();
    std::string name = parse_template_name(token, context);
    auto pipe = pipeline(context, ItemType::kRightDelim);
    Parser block(name, tree_->parse_name, lex_, set_, nesting_);
    auto [list, end] = block.item_list();
    if (end->type != NodeType::kEnd) errorf("unexpected " + end->str() + " in " + context);
    block.tree_->root = std::move(list);
    block.add();
    return std::make_unique<TemplateNode>(token.pos, token.line, name, std::move(pipe));
  }

  NodePtr template_control() {
    const std::string context = "template clause";
    Item token = next_non_space();
    std::string name = parse_template_name(token, context);
    std::unique_ptr<PipeNode> pipe;
    if (next_non_space().type != ItemType::kRightDelim) {
      backup();
      pipe = pipeline(context, ItemType::kRightDelim);
    }
    return std::make_unique<TemplateNode>(token.pos, token.line, name, std::move(pipe));
  }

  std::string parse_template_name(const Item& token, const std::string& context) {
    if (token.type == ItemType::kString || token.type == ItemType::kRawString) {
      auto s = go::unquote(token.val);
      if (!s) errorf(s.error());
      return *s;
    }
    unexpected(token, context);
  }

  std::unique_ptr<CommandNode> command() {
    auto cmd = std::make_unique<CommandNode>(peek_non_space().pos);
    for (;;) {
      peek_non_space();
      NodePtr operand = this->operand();
      if (operand) cmd->args.push_back(std::move(operand));
      Item token = next();
      if (token.type == ItemType::kSpace) continue;
      if (token.type == ItemType::kRightDelim || token.type == ItemType::kRightParen) {
        backup();
      } else if (token.type != ItemType::kPipe) {
        unexpected(token, "operand");
      }
      break;
    }
    if (cmd->args.empty()) errorf("empty command");
    return cmd;
  }

  NodePtr operand() {
    NodePtr node = term();
    if (!node) return nullptr;
    if (peek().type == ItemType::kField) {
      auto chain = std::make_unique<ChainNode>(peek().pos, nullptr);
      std::vector<std::string> fields;
      while (peek().type == ItemType::kField) fields.push_back(next().val.substr(1));
      switch (node->type) {
        case NodeType::kField:
        case NodeType::kVariable: {
          std::string s = node->str();
          for (const auto& f : fields) s += "." + f;
          if (node->type == NodeType::kField) return std::make_unique<FieldNode>(chain->pos, s);
          return std::make_unique<VariableNode>(chain->pos, s);
        }
        case NodeType::kBool:
        case NodeType::kString:
        case NodeType::kNumber:
        case NodeType::kNil:
        case NodeType::kDot:
          errorf("unexpected . after term " + go::quote(node->str()));
        default:
          chain->node = std::move(node);
          chain->field = std::move(fields);
          return chain;
      }
    }
    return node;
  }

  NodePtr term() {
    Item token = next_non_space();
    switch (token.type) {
      case ItemType::kIdentifier:
        if (!find_function(token.val)) errorf("function " + go::quote(token.val) + " not defined");
        return std::make_unique<IdentifierNode>(token.pos, token.val);
      case ItemType::kDot:
        return std::make_unique<DotNode>(token.pos);
      case ItemType::kNil:
        return std::make_unique<NilNode>(token.pos);
      case ItemType::kVariable:
        return use_var(token.pos, token.val);
      case ItemType::kField:
        return std::make_unique<FieldNode>(token.pos, token.val);
      case ItemType::kBool:
        return std::make_unique<BoolNode>(token.pos, token.val == "true");
      case ItemType::kCharConstant:
      case ItemType::kComplex:
      case ItemType::kNumber:
        return new_number(token.pos, token.val, token.type);
      case ItemType::kLeftParen: {
        NestingGuard guard(this);
        return pipeline("parenthesized pipeline", ItemType::kRightParen);
      }
      case ItemType::kString:
      case ItemType::kRawString: {
        auto s = go::unquote(token.val);
        if (!s) errorf(s.error());
        return std::make_unique<StringNode>(token.pos, token.val, *s);
      }
      default:
        break;
    }
    backup();
    return nullptr;
  }

  NodePtr use_var(int pos, const std::string& name) {
    auto v = std::make_unique<VariableNode>(pos, name);
    for (const auto& n : vars_)
      if (n == v->ident[0]) return v;
    errorf("undefined variable " + go::quote(v->ident[0]));
  }

  // parse.newNumber.
  NodePtr new_number(int pos, const std::string& text, ItemType typ) {
    auto n = std::make_unique<NumberNode>(pos, text);
    if (typ == ItemType::kCharConstant) {
      std::string out;
      size_t i = 1;
      int32_t r = 0;
      if (!go::unquote_char(text, i, text[0], out, &r)) errorf("invalid syntax");
      if (text.substr(i) != "'") errorf("malformed character constant: " + text);
      n->int64 = r;
      n->is_int = true;
      n->uint64 = static_cast<uint64_t>(r);
      n->is_uint = true;
      n->float64 = r;
      n->is_float = true;
      return n;
    }
    if (typ == ItemType::kComplex) {
      // "a+bi": split at the sign that starts the imaginary part.
      size_t split = std::string::npos;
      for (size_t i = text.size() - 1; i > 0; --i) {
        const char c = text[i];
        const char prev = static_cast<char>(text[i - 1] | 0x20);
        if ((c == '+' || c == '-') && prev != 'e' && prev != 'p') {
          split = i;
          break;
        }
      }
      if (split == std::string::npos) errorf("expected integer");
      auto re = go::parse_float(text.substr(0, split));
      auto im = go::parse_float(text.substr(split, text.size() - split - 1));
      if (!re || !im) errorf("expected integer");
      n->is_complex = true;
      n->complex128 = {*re, *im};
      simplify_complex(*n);
      return n;
    }
    if (!text.empty() && text.back() == 'i') {
      auto f = go::parse_float(std::string_view(text).substr(0, text.size() - 1));
      if (f) {
        n->is_complex = true;
        n->complex128 = {0, *f};
        simplify_complex(*n);
        return n;
      }
    }
    auto u = go::parse_uint(text);
    if (u) {
      n->is_uint = true;
      n->uint64 = *u;
    }
    auto i = go::parse_int(text);
    if (i) {
      n->is_int = true;
      n->int64 = *i;
      if (*i == 0) {
        n->is_uint = true;
        n->uint64 = u ? *u : 0;
      }
    }
    if (n->is_int) {
      n->is_float = true;
      n->float64 = static_cast<double>(n->int64);
    } else if (n->is_uint) {
      n->is_float = true;
      n->float64 = static_cast<double>(n->uint64);
    } else {
      auto f = go::parse_float(text);
      if (f) {
        if (text.find_first_of(".eEpP") == std::string::npos) errorf("integer overflow: " + go::quote(text));
        n->is_float = true;
        n->float64 = *f;
        if (!n->is_int && is_int64(*f)) {
          n->is_int = true;
          n->int64 = go_float_to_int64(*f);
        }
        if (!n->is_uint && is_uint64(*f)) {
          n->is_uint = true;
          n->uint64 = static_cast<uint64_t>(*f);
        }
      }
    }
    if (!n->is_int && !n->is_uint && !n->is_float) errorf("illegal number syntax: " + go::quote(text));
    return n;
  }

  static void simplify_complex(NumberNode& n) {
    n.is_float = n.complex128.imag() == 0;
    if (n.is_float) {
      n.float64 = n.complex128.real();
      const double f = n.float64;
      n.is_int = is_int64(f);
      if (n.is_int) n.int64 = go_float_to_int64(f);
      n.is_uint = is_uint64(f);
      if (n.is_uint) n.uint64 = static_cast<uint64_t>(f);
    }
  }

  Lexer* lex_;
  TreeSet* set_;
  int* nesting_;
  std::shared_ptr<Tree> tree_;
  Item token_[3];
  int peek_count_ = 0;
  std::vector<std::string> vars_;
  int action_line_ = 0;
  int range_depth_ = 0;
};

}  // namespace

Expected<std::shared_ptr<const TreeSet>> parse_trees(const std::string& name, std::string_view text) {
  auto set = std::make_shared<TreeSet>();
  set->text = std::string(text);
  Lexer lex(set->text);
  int nesting = 0;
  try {
    Parser p(name, name, &lex, set.get(), &nesting);
    p.parse_top();
  } catch (const ParseError& e) {
    return Status::error(e.message);
  }
  return std::shared_ptr<const TreeSet>(std::move(set));
}

}  // namespace llmon::rules::tmpl
