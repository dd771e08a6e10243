#include "procfs/fs.h"

namespace llmon::procfs {

std::string Fs::join(std::string_view a, std::string_view b) {
  std::string out(a);
  while (!out.empty() && out.back() == '/') out.pop_back();
  while (!b.empty() && b.front() == '/') b.remove_prefix(1);
  out += '/';
  out += b;
  return out;
}

std::string Fs::rooted(std::string_view abs_path) const {
  if (root.empty() || root == "/") return std::string(abs_path);
  return join(root, abs_path);
}

std::string Fs::strip_root(std::string_view path) const {
  if (root.empty() || root == "/") return std::string(path);
  std::string_view r(root);
  while (!r.empty() && r.back() == '/') r.remove_suffix(1);
  if (path.substr(0, r.size()) == r && (path.size() == r.size() || path[r.size()] == '/')) {
    std::string_view rest = path.substr(r.size());
    return rest.empty() ? std::string("/") : std::string(rest);
  }
  return std::string(path);
}

}  // namespace llmon::procfs
