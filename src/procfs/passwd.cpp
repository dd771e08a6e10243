#include "procfs/passwd.h"

#include "base/strings.h"

namespace llmon::procfs {

UserNames parse_passwd(std::string_view text) {
  UserNames out;
  base::LineIterator it(text);
  std::string_view line;
  while (it.next(line)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#' || line[0] == '+' || line[0] == '-') continue;
    size_t c1 = line.find(':');
    if (c1 == 0 || c1 == std::string_view::npos) continue;
    size_t c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    size_t c3 = line.find(':', c2 + 1);
    if (c3 == std::string_view::npos) continue;  // no gid field: truncated line
    auto uid = base::parse_u64(line.substr(c2 + 1, c3 - c2 - 1));
    if (!uid || *uid > 0xFFFFFFFFu) continue;
    out.try_emplace(static_cast<uint32_t>(*uid), line.substr(0, c1));
  }
  return out;
}

}  // namespace llmon::procfs
