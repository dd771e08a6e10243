#include "procfs/mountinfo.h"

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {

std::string_view mount_option(std::string_view options, std::string_view key, bool* found) {
  std::string_view value;
  bool seen = false;
  size_t start = 0;
  while (start <= options.size()) {
    size_t comma = options.find(',', start);
    std::string_view opt =
        options.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    size_t eq = opt.find('=');
    if (opt.substr(0, eq) == key) {
      seen = true;
      if (eq == std::string_view::npos) {
        value = {};
      } else {
        std::string_view rest = opt.substr(eq + 1);
        value = rest.substr(0, rest.find('='));
      }
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (found != nullptr) *found = seen;
  return value;
}

Expected<std::vector<MountInfo>> parse_mountinfo(std::string_view text, std::string_view file) {
  std::vector<MountInfo> out;
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::vector<std::string_view> f = base::split(line, ' ');
    const size_t n = f.size();
    if (n < 10)
      return Status::error(base::where(file, lines.line_no(),
                                       "couldn't find enough fields in mount string (" + std::to_string(n) +
                                           ", expected at least 10): \"" + std::string(line) + "\""));
    if (f[n - 4] != "-")
      return Status::error(base::where(
          file, lines.line_no(), "couldn't find separator \"-\" in expected field: \"" + std::string(f[n - 4]) + "\""));
    auto id = parse_decimal_int(f[0]);
    auto parent = parse_decimal_int(f[1]);
    if (!id)
      return Status::error(
          base::where(file, lines.line_no(), "failed to parse mount ID \"" + std::string(f[0]) + "\""));
    if (!parent)
      return Status::error(
          base::where(file, lines.line_no(), "failed to parse parent ID \"" + std::string(f[1]) + "\""));
    MountInfo m;
    m.mount_id = *id;
    m.parent_id = *parent;
    m.major_minor = f[2];
    m.root = f[3];
    m.mount_point = f[4];
    m.options = f[5];
    if (!f[6].empty())
      for (size_t i = 6; i < n - 4; ++i) m.optional_fields.emplace_back(f[i]);
    m.fs_type = f[n - 3];
    m.source = f[n - 2];
    m.super_options = f[n - 1];
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace llmon::procfs
