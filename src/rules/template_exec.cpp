// The text/template executor (template_internal.h), following exec.go of
// Go 1.19: the same evaluation order and the same s.at(node) updates, so
// errors name the node Go names ("at <...>") with Go's line:column. Errors
// unwind as an ExecError exception, which never leaves this file.
#include <optional>
#include <string>
#include <vector>

#include "go/strconv.h"
#include "rules/go_fmt.h"
#include "rules/template_funcs.h"
#include "rules/template_internal.h"

namespace llmon::rules::tmpl {

namespace {

constexpr int kMaxTemplateDepth = 1000;

struct ExecError {
  std::string message;
};

enum class Flow : uint8_t { kNormal, kBreak, kContinue };

struct Budget {
  const TemplateEnv* env = nullptr;
  std::string* out = nullptr;
  int64_t steps = 0;
  int nesting = 0;
};

bool can_be_nil(ArgType t) {
  return t != ArgType::kString && t != ArgType::kFloat64;
}

Value zero_of(ArgType t) {
  switch (t) {
    case ArgType::kQueryResult:
      return Value::query_result(nullptr);
    case ArgType::kSample:
      return Value::sample(nullptr);
    default:
      return Value();
  }
}

bool assignable(const Value& v, ArgType t) {
  switch (t) {
    case ArgType::kValue:
    case ArgType::kAny:
      return true;
    case ArgType::kString:
      return v.kind() == Kind::kString && !v.is_html();
    case ArgType::kFloat64:
      return v.kind() == Kind::kFloat;
    case ArgType::kQueryResult:
      return v.kind() == Kind::kQueryResult;
    case ArgType::kSample:
      return v.kind() == Kind::kSample;
  }
  return false;
}

// The struct a non-nil *template.sample points to.
Value sample_struct(const Sample& s) {
  return Value::structure({{"Labels", Value::string_map(s.labels)}, {"Value", Value::number(s.value)}});
}

class State {
 public:
  State(const TreeSet& set, const Tree* tmpl, Budget* budget, CallEnv* call_env, int depth)
      : set_(set), tmpl_(tmpl), budget_(budget), call_env_(call_env), depth_(depth) {}

  void push(std::string name, Value v) { vars_.emplace_back(std::move(name), std::move(v)); }

  Flow walk(const Value& dot, const Node* node) {
    Nesting guard(this);
    step();
    at(node);
    switch (node->type) {
      case NodeType::kAction: {
        const auto* a = static_cast<const ActionNode*>(node);
        Value val = eval_pipeline(dot, a->pipe.get());
        if (a->pipe->decl.empty()) print_value(node, val);
        return Flow::kNormal;
      }
      case NodeType::kComment:
        return Flow::kNormal;
      case NodeType::kIf:
      case NodeType::kWith:
        return walk_if_or_with(dot, static_cast<const BranchNode*>(node));
      case NodeType::kList:
        for (const auto& n : static_cast<const ListNode*>(node)->nodes) {
          const Flow f = walk(dot, n.get());
          if (f != Flow::kNormal) return f;
        }
        return Flow::kNormal;
      case NodeType::kRange:
        walk_range(dot, static_cast<const BranchNode*>(node));
        return Flow::kNormal;
      case NodeType::kTemplate:
        walk_template(dot, static_cast<const TemplateNode*>(node));
        return Flow::kNormal;
      case NodeType::kText:
        write(static_cast<const TextNode*>(node)->text);
        return Flow::kNormal;
      case NodeType::kBreak:
        return Flow::kBreak;
      case NodeType::kContinue:
        return Flow::kContinue;
      default:
        errorf("unknown node: " + node->str());
    }
  }

 private:
  struct Nesting {
    explicit Nesting(State* s) : s_(s) {
      if (++s_->budget_->nesting > kMaxExecNesting)
        s_->errorf("exceeded maximum template depth (" + std::to_string(kMaxExecNesting) + ")");
    }
    ~Nesting() { --s_->budget_->nesting; }
    State* s_;
  };

  void at(const Node* n) { node_ = n; }

  void step() {
    if (++budget_->steps > budget_->env->max_steps)
      throw ExecError{"template: " + tmpl_->name + ": execution exceeded " + std::to_string(budget_->env->max_steps) +
                      " steps"};
  }

  void write(std::string_view s) {
    if (budget_->out->size() + s.size() > budget_->env->max_output_bytes)
      throw ExecError{"template: " + tmpl_->name + ": output exceeds " +
                      std::to_string(budget_->env->max_output_bytes) + " bytes"};
    budget_->out->append(s);
  }

  // state.errorf with ErrorContext.
  [[noreturn]] void errorf(const std::string& msg) const {
    if (!node_) throw ExecError{"template: " + tmpl_->name + ": " + msg};
    const auto pos = static_cast<size_t>(node_->pos);
    const std::string_view text = std::string_view(set_.text).substr(0, pos);
    const size_t nl = text.rfind('\n');
    const size_t col = nl == std::string_view::npos ? pos : pos - (nl + 1);
    size_t line = 1;
    for (char c : text) line += c == '\n';
    throw ExecError{"template: " + tmpl_->parse_name + ":" + std::to_string(line) + ":" + std::to_string(col) +
                    ": executing " + go::quote(tmpl_->name) + " at <" + node_->str() + ">: " + msg};
  }

  static std::string sprint1(const Value& v) { return gofmt::sprintf("%v", {v}); }

  Value var_value(const std::string& name) const {
    for (size_t i = vars_.size(); i-- > 0;)
      if (vars_[i].first == name) return vars_[i].second;
    errorf("undefined variable: " + name);
  }

  void set_var(const std::string& name, const Value& v) {
    for (size_t i = vars_.size(); i-- > 0;) {
      if (vars_[i].first == name) {
        vars_[i].second = v;
        return;
      }
    }
    errorf("undefined variable: " + name);
  }

  Flow walk_if_or_with(const Value& dot, const BranchNode* n) {
    const size_t mark = vars_.size();
    Value val = eval_pipeline(dot, n->pipe.get());
    Flow f = Flow::kNormal;
    if (is_true(val.unwrapped())) {
      f = walk(n->type == NodeType::kWith ? val : dot, n->list.get());
    } else if (n->else_list) {
      f = walk(dot, n->else_list.get());
    }
    vars_.resize(mark);
    return f;
  }

  void walk_range(const Value& dot, const BranchNode* r) {
    at(r);
    const size_t mark0 = vars_.size();
    Value val = eval_pipeline(dot, r->pipe.get()).unwrapped();
    const size_t mark = vars_.size();
    const size_t ndecl = r->pipe->decl.size();
    // One iteration; false to stop ({{break}}).
    auto one = [&](const Value& index, const Value& elem) {
      if (ndecl > 0) vars_[vars_.size() - 1].second = elem;
      if (ndecl > 1) vars_[vars_.size() - 2].second = index;
      const Flow f = walk(elem, r->list.get());
      vars_.resize(mark);
      return f != Flow::kBreak;
    };
    bool iterated = false;
    switch (val.kind()) {
      case Kind::kList: {
        const auto list = val;  // keep the data alive
        const auto& elems = list.as_list();
        iterated = !elems.empty();
        for (size_t i = 0; i < elems.size(); ++i)
          if (!one(Value::integer(static_cast<int64_t>(i)), elems[i])) break;
        break;
      }
      case Kind::kQueryResult: {
        const auto result = val.as_query_result();
        if (result && !result->empty()) {
          iterated = true;
          const QueryResult snapshot = *result;  // a template cannot resize it while ranging
          for (size_t i = 0; i < snapshot.size(); ++i)
            if (!one(Value::integer(static_cast<int64_t>(i)), Value::sample(snapshot[i]))) break;
        }
        break;
      }
      case Kind::kMap: {
        const auto map = val;
        iterated = !map.as_map().entries.empty();
        for (const auto& [k, v] : map.as_map().entries)
          if (!one(Value::string(k), v)) break;
        break;
      }
      case Kind::kInvalid:
        break;
      case Kind::kSample:
        if (!val.as_sample()) errorf("range can't iterate over <nil>");
        errorf("range can't iterate over " + sprint1(sample_struct(*val.as_sample())));
      default:
        errorf("range can't iterate over " + sprint1(val));
    }
    if (!iterated && r->else_list) walk(dot, r->else_list.get());
    vars_.resize(mark0);
  }

  void walk_template(const Value& dot, const TemplateNode* t) {
    at(t);
    auto it = set_.trees.find(t->name);
    if (it == set_.trees.end()) errorf("template " + go::quote(t->name) + " not defined");
    if (depth_ >= kMaxTemplateDepth)
      errorf("exceeded maximum template depth (" + std::to_string(kMaxTemplateDepth) + ")");
    Value new_dot = eval_pipeline(dot, t->pipe.get());
    State sub(set_, it->second.get(), budget_, call_env_, depth_ + 1);
    sub.push("$", new_dot);
    sub.walk(new_dot, it->second->root.get());
  }

  Value eval_pipeline(const Value& dot, const PipeNode* pipe) {
    if (!pipe) return Value();
    Nesting guard(this);
    at(pipe);
    Value value;
    bool has_final = false;
    for (const auto& cmd : pipe->cmds) {
      value = eval_command(dot, cmd.get(), has_final ? &value : nullptr);
      has_final = true;
      value = value.unwrapped();  // dig an interface{} down to its content
    }
    for (const auto& v : pipe->decl) {
      if (pipe->is_assign) {
        set_var(v->ident[0], value);
      } else {
        push(v->ident[0], value);
      }
    }
    return value;
  }

  void not_a_function(const std::vector<NodePtr>& args, const Value* final) const {
    if (args.size() > 1 || final) errorf("can't give argument to non-function " + args[0]->str());
  }

  Value eval_command(const Value& dot, const CommandNode* cmd, const Value* final) {
    step();
    const Node* first = cmd->args[0].get();
    switch (first->type) {
      case NodeType::kField:
        return eval_field_node(dot, static_cast<const FieldNode*>(first), cmd->args, final);
      case NodeType::kChain:
        return eval_chain_node(dot, static_cast<const ChainNode*>(first), cmd->args, final);
      case NodeType::kIdentifier:
        return eval_function(dot, static_cast<const IdentifierNode*>(first), cmd, cmd->args, final);
      case NodeType::kPipe:
        not_a_function(cmd->args, final);
        return eval_pipeline(dot, static_cast<const PipeNode*>(first));
      case NodeType::kVariable:
        return eval_variable_node(static_cast<const VariableNode*>(first), cmd->args, final);
      default:
        break;
    }
    at(first);
    not_a_function(cmd->args, final);
    switch (first->type) {
      case NodeType::kBool:
        return Value::boolean(static_cast<const BoolNode*>(first)->value);
      case NodeType::kDot:
        return dot;
      case NodeType::kNil:
        errorf("nil is not a command");
      case NodeType::kNumber:
        return ideal_constant(static_cast<const NumberNode*>(first));
      case NodeType::kString:
        return Value::string(static_cast<const StringNode*>(first)->text);
      default:
        errorf("can't evaluate command " + go::quote(first->str()));
    }
  }

  Value ideal_constant(const NumberNode* c) {
    at(c);
    const std::string& t = c->text;
    const bool hex_int =
        t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && t.find_first_of("pP") == std::string::npos;
    const bool rune_int = !t.empty() && t[0] == '\'';
    if (c->is_complex) return Value::complex(c->complex128);
    if (c->is_float && !hex_int && !rune_int && t.find_first_of(".eEpP") != std::string::npos)
      return Value::number(c->float64);
    if (c->is_int) return Value::integer(c->int64);
    if (c->is_uint) errorf(t + " overflows int");
    return Value();
  }

  Value eval_field_node(const Value& dot, const FieldNode* field, const std::vector<NodePtr>& args,
                        const Value* final) {
    at(field);
    return eval_field_chain(dot, field->ident, 0, args, final);
  }

  Value eval_chain_node(const Value& dot, const ChainNode* chain, const std::vector<NodePtr>& args,
                        const Value* final) {
    at(chain);
    if (chain->field.empty()) errorf("internal error: no fields in evalChainNode");
    if (chain->node->type == NodeType::kNil) errorf("indirection through explicit nil in " + chain->str());
    Value pipe = eval_arg(dot, std::nullopt, chain->node.get());
    return eval_field_chain(pipe, chain->field, 0, args, final);
  }

  Value eval_variable_node(const VariableNode* v, const std::vector<NodePtr>& args, const Value* final) {
    at(v);
    Value value = var_value(v->ident[0]);
    if (v->ident.size() == 1) {
      not_a_function(args, final);
      return value;
    }
    return eval_field_chain(value, v->ident, 1, args, final);
  }

  // The receiver's fields ident[from..]; only the last gets the arguments.
  Value eval_field_chain(Value receiver, const std::vector<std::string>& ident, size_t from,
                         const std::vector<NodePtr>& args, const Value* final) {
    static const std::vector<NodePtr> kNoArgs;
    const size_t n = ident.size();
    for (size_t i = from; i + 1 < n; ++i) receiver = eval_field(ident[i], kNoArgs, nullptr, receiver);
    return eval_field(ident[n - 1], args, final, receiver);
  }

  Value eval_field(const std::string& name, const std::vector<NodePtr>& args, const Value* final,
                   const Value& receiver) {
    if (!receiver.valid() && !receiver.iface()) return Value();  // missingkey=zero
    const std::string typ = receiver.static_type_name();
    if (receiver.is_nil_interface()) errorf("nil pointer evaluating " + typ + "." + name);
    const Value r = receiver.unwrapped();
    const bool has_args = args.size() > 1 || final;
    switch (r.kind()) {
      case Kind::kStruct:
        for (const auto& [fname, fval] : r.as_struct().fields) {
          if (fname != name) continue;
          if (has_args) errorf(name + " has arguments but cannot be invoked as function");
          return fval;
        }
        break;
      case Kind::kSample:
        if (name != "Labels" && name != "Value") break;
        if (!r.as_sample()) errorf("nil pointer evaluating " + typ + "." + name);
        if (has_args) errorf(name + " has arguments but cannot be invoked as function");
        return name == "Labels" ? Value::string_map(r.as_sample()->labels) : Value::number(r.as_sample()->value);
      case Kind::kTime:
        if (name != "wall" && name != "ext" && name != "loc") break;
        if (!r.as_time()) errorf("nil pointer evaluating " + typ + "." + name);
        errorf(name + " is an unexported field of struct type " + typ);
      case Kind::kMap: {
        if (has_args) errorf(name + " is not a method but has arguments");
        const MapData& m = r.as_map();
        auto it = m.entries.find(name);
        if (it != m.entries.end()) return it->second;
        return m.string_elems ? Value::string("") : Value::nil_interface();
      }
      default:
        break;
    }
    errorf("can't evaluate field " + name + " in type " + typ);
  }

  Value eval_function(const Value& dot, const IdentifierNode* node, const Node* cmd, const std::vector<NodePtr>& args,
                      const Value* final) {
    at(node);
    const Function* fn = find_function(node->ident);
    if (!fn) errorf(go::quote(node->ident) + " is not a defined function");
    return eval_call(dot, *fn, cmd, args, final);
  }

  Value eval_call(const Value& dot, const Function& fn, const Node* node, const std::vector<NodePtr>& all_args,
                  const Value* final) {
    const std::string name(fn.name);
    const size_t nargs = all_args.empty() ? 0 : all_args.size() - 1;
    auto arg = [&](size_t i) { return all_args[i + 1].get(); };
    const size_t num_in = nargs + (final ? 1 : 0);
    size_t num_fixed = nargs;
    if (fn.variadic) {
      num_fixed = fn.params.size() - 1;
      if (num_in < num_fixed)
        errorf("wrong number of args for " + name + ": want at least " + std::to_string(fn.params.size() - 1) +
               " got " + std::to_string(nargs));
    } else if (num_in != fn.params.size()) {
      errorf("wrong number of args for " + name + ": want " + std::to_string(fn.params.size()) + " got " +
             std::to_string(num_in));
    }
    if (fn.builtin && (name == "and" || name == "or")) {
      const ArgType t = fn.params[0];
      Value v;
      for (size_t i = 0; i < nargs; ++i) {
        v = eval_arg(dot, t, arg(i));
        if (is_true(v.unwrapped()) == (name == "or")) return v;
      }
      if (final) v = validate_type(*final, t);
      return v;
    }
    std::vector<Value> argv;
    argv.reserve(num_in);
    size_t i = 0;
    for (; i < num_fixed && i < nargs; ++i) argv.push_back(eval_arg(dot, fn.params[i], arg(i)));
    if (fn.variadic)
      for (; i < nargs; ++i) argv.push_back(eval_arg(dot, fn.params.back(), arg(i)));
    if (final) {
      ArgType t = fn.params.back();
      if (fn.variadic && num_in - 1 < num_fixed) t = fn.params[num_in - 1];
      argv.push_back(validate_type(*final, t));
    }
    Expected<Value> result = fn.call(*call_env_, argv);
    if (!result) {
      at(node);
      errorf("error calling " + name + ": " + result.error());
    }
    return std::move(*result);
  }

  Value validate_type(const Value& value, std::optional<ArgType> typ) {
    if (!typ) return value;
    if (!value.valid() && !value.iface()) {
      if (can_be_nil(*typ)) return zero_of(*typ);
      errorf("invalid value; expected " + std::string(arg_type_name(*typ)));
    }
    if (*typ == ArgType::kValue) return value;
    if (*typ == ArgType::kAny) return value.unwrapped();
    Value v = value;
    if (!v.iface() && assignable(v, *typ)) return v;
    if (v.iface() && v.valid()) {
      v = v.unwrapped();
      if (assignable(v, *typ)) return v;
    }
    errorf("wrong type for value; expected " + std::string(arg_type_name(*typ)) + "; got " + v.static_type_name());
  }

  Value eval_arg(const Value& dot, std::optional<ArgType> typ, const Node* n) {
    static const std::vector<NodePtr> kNoArgs;
    at(n);
    switch (n->type) {
      case NodeType::kDot:
        return validate_type(dot, typ);
      case NodeType::kNil:
        if (typ && can_be_nil(*typ)) return zero_of(*typ);
        errorf("cannot assign nil to " + std::string(typ ? arg_type_name(*typ) : "<nil>"));
      case NodeType::kField: {
        // Go passes the field itself as the argument list (no arguments).
        const auto* f = static_cast<const FieldNode*>(n);
        at(f);
        Value v = eval_field_chain(dot, f->ident, 0, kNoArgs, nullptr);
        return validate_type(v, typ);
      }
      case NodeType::kVariable:
        return validate_type(eval_variable_node(static_cast<const VariableNode*>(n), kNoArgs, nullptr), typ);
      case NodeType::kPipe:
        return validate_type(eval_pipeline(dot, static_cast<const PipeNode*>(n)), typ);
      case NodeType::kIdentifier:
        return validate_type(eval_function(dot, static_cast<const IdentifierNode*>(n), n, kNoArgs, nullptr), typ);
      case NodeType::kChain:
        return validate_type(eval_chain_node(dot, static_cast<const ChainNode*>(n), kNoArgs, nullptr), typ);
      default:
        break;
    }
    if (!typ) errorf("can't handle " + n->str() + " for arg of type <nil>");
    switch (*typ) {
      case ArgType::kString:
        if (n->type == NodeType::kString) return Value::string(static_cast<const StringNode*>(n)->text);
        errorf("expected string; found " + n->str());
      case ArgType::kFloat64:
        if (n->type == NodeType::kNumber && static_cast<const NumberNode*>(n)->is_float)
          return Value::number(static_cast<const NumberNode*>(n)->float64);
        errorf("expected float; found " + n->str());
      case ArgType::kAny:
      case ArgType::kValue:
        return eval_empty_interface(dot, n);
      default:
        errorf("can't handle " + n->str() + " for arg of type " + std::string(arg_type_name(*typ)));
    }
  }

  Value eval_empty_interface(const Value& dot, const Node* n) {
    at(n);
    switch (n->type) {
      case NodeType::kBool:
        return Value::boolean(static_cast<const BoolNode*>(n)->value);
      case NodeType::kDot:
        return dot;
      case NodeType::kNumber:
        return ideal_constant(static_cast<const NumberNode*>(n));
      case NodeType::kString:
        return Value::string(static_cast<const StringNode*>(n)->text);
      default:
        errorf("can't handle assignment of " + n->str() + " to empty interface argument");
    }
  }

  void print_value(const Node* n, const Value& v) {
    at(n);
    if (!v.valid()) {
      write("<no value>");
      return;
    }
    if (v.kind() == Kind::kSample && v.as_sample()) {
      write(gofmt::sprint({sample_struct(*v.as_sample())}));
      return;
    }
    write(gofmt::sprint({v}));
  }

  const TreeSet& set_;
  const Tree* tmpl_;
  Budget* budget_;
  CallEnv* call_env_;
  int depth_;
  const Node* node_ = nullptr;
  std::vector<std::pair<std::string, Value>> vars_;
};

}  // namespace

Expected<std::string> execute_tree(const TreeSet& set, const std::string& name, const Value& data,
                                   const TemplateEnv& env) {
  auto it = set.trees.find(name);
  if (it == set.trees.end() || !it->second->root)
    return Status::error("template: " + name + ": " + go::quote(name) + " is an incomplete or empty template");
  std::string out;
  Budget budget;
  budget.env = &env;
  budget.out = &out;
  CallEnv call_env;
  call_env.env = &env;
  try {
    State s(set, it->second.get(), &budget, &call_env, 0);
    s.push("$", data);
    s.walk(data, it->second->root.get());
  } catch (const ExecError& e) {
    return Status::error(e.message);
  }
  return out;
}

}  // namespace llmon::rules::tmpl
