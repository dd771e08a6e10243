#include "procfs/mounts.h"

#include "base/strings.h"

namespace llmon::procfs {
namespace {

std::string unescape_mount_point(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && s.substr(i, 4) == "\\040") {
      out += ' ';
      i += 3;
    } else if (s[i] == '\\' && s.substr(i, 4) == "\\011") {
      out += '\t';
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

bool MountEntry::read_only() const {
  for (std::string_view opt : base::split(options, ','))
    if (opt == "ro") return true;
  return false;
}

Expected<std::vector<MountEntry>> parse_mounts(std::string_view text) {
  std::vector<MountEntry> out;
  base::LineIterator lines(text);
  std::string_view line;
  std::vector<std::string_view> f;
  while (lines.next(line)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    base::split_fields(line, f);
    if (f.empty()) continue;
    if (f.size() < 4)
      return Status::error(base::where("mounts", lines.line_no(),
                                       "malformed mount point information: expected at least 4 fields, got " +
                                           std::to_string(f.size())));
    out.push_back(MountEntry{std::string(f[0]), unescape_mount_point(f[1]), std::string(f[2]), std::string(f[3])});
  }
  return out;
}

}  // namespace llmon::procfs
