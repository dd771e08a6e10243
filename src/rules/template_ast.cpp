// String forms of text/template parse nodes (template_ast.h), as node.go.
#include "rules/template_ast.h"

#include <cctype>

#include "go/strconv.h"

namespace llmon::rules::tmpl {

namespace {

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t dot = s.find('.', start);
    out.push_back(s.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}

}  // namespace

void ListNode::write_to(std::string& sb) const {
  for (const auto& n : nodes) n->write_to(sb);
}

VariableNode::VariableNode(int p, const std::string& i) : Node(NodeType::kVariable, p), ident(split_dots(i)) {}

void VariableNode::write_to(std::string& sb) const {
  for (size_t i = 0; i < ident.size(); ++i) {
    if (i > 0) sb += '.';
    sb += ident[i];
  }
}

void PipeNode::write_to(std::string& sb) const {
  if (!decl.empty()) {
    for (size_t i = 0; i < decl.size(); ++i) {
      if (i > 0) sb += ", ";
      decl[i]->write_to(sb);
    }
    sb += is_assign ? " = " : " := ";
  }
  for (size_t i = 0; i < cmds.size(); ++i) {
    if (i > 0) sb += " | ";
    cmds[i]->write_to(sb);
  }
}

void ActionNode::write_to(std::string& sb) const {
  sb += "{{";
  pipe->write_to(sb);
  sb += "}}";
}

void CommandNode::write_to(std::string& sb) const {
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) sb += ' ';
    if (args[i]->type == NodeType::kPipe) {
      sb += '(';
      args[i]->write_to(sb);
      sb += ')';
      continue;
    }
    args[i]->write_to(sb);
  }
}

FieldNode::FieldNode(int p, const std::string& i) : Node(NodeType::kField, p), ident(split_dots(i.substr(1))) {}

void FieldNode::write_to(std::string& sb) const {
  for (const auto& id : ident) {
    sb += '.';
    sb += id;
  }
}

void ChainNode::write_to(std::string& sb) const {
  if (node->type == NodeType::kPipe) {
    sb += '(';
    node->write_to(sb);
    sb += ')';
  } else {
    node->write_to(sb);
  }
  for (const auto& f : field) {
    sb += '.';
    sb += f;
  }
}

void BranchNode::write_to(std::string& sb) const {
  const char* name = type == NodeType::kIf ? "if" : type == NodeType::kRange ? "range" : "with";
  sb += "{{";
  sb += name;
  sb += ' ';
  pipe->write_to(sb);
  sb += "}}";
  list->write_to(sb);
  if (else_list) {
    sb += "{{else}}";
    else_list->write_to(sb);
  }
  sb += "{{end}}";
}

void TemplateNode::write_to(std::string& sb) const {
  sb += "{{template ";
  sb += go::quote(name);
  if (pipe) {
    sb += ' ';
    pipe->write_to(sb);
  }
  sb += "}}";
}

bool is_empty_tree(const Node* n) {
  if (!n) return true;
  switch (n->type) {
    case NodeType::kComment:
      return true;
    case NodeType::kList:
      for (const auto& c : static_cast<const ListNode*>(n)->nodes)
        if (!is_empty_tree(c.get())) return false;
      return true;
    case NodeType::kText: {
      // bytes.TrimSpace: ASCII white space (and Unicode spaces; ASCII suffices here).
      for (char c : static_cast<const TextNode*>(n)->text)
        if (!std::isspace(static_cast<unsigned char>(c))) return false;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace llmon::rules::tmpl
