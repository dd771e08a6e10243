#include "procfs/meminfo_numa.h"

#include <string>

#include "base/strings.h"
#include "procfs/meminfo.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {

Status parse_node_meminfo(std::string_view text, std::string_view file, std::vector<NodeMemInfoField>& out) {
  out.clear();
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    FieldIter it(line);
    std::string_view f[6];
    size_t n = 0;
    while (n < 6 && it.next(f[n])) ++n;
    if (n == 0) continue;
    if (n < 4) return Status::error(base::where(file, lines.line_no(), "expected \"Node N Key: value [kB]\""));
    auto v = parse_number(f[3]);
    if (!v) return Status::error(base::where(file, lines.line_no(), "invalid value \"" + std::string(f[3]) + "\""));
    NodeMemInfoField field{f[1], f[2], *v};
    if (n == 5 && f[4] == "kB")
      field.value *= 1024;
    else if (n != 4)
      return Status::error(
          base::where(file, lines.line_no(), "invalid line: expected at most a \"kB\" unit after the value"));
    while (!field.key.empty() && field.key.back() == ':') field.key.remove_suffix(1);
    out.push_back(field);
  }
  return Status::ok();
}

Status parse_node_numastat(std::string_view text, std::string_view file, std::vector<NumaStatField>& out) {
  out.clear();
  return for_each_named_value(text, file, [&](std::string_view name, double v, FieldIter& rest, size_t line_no) {
    std::string_view extra;
    if (rest.next(extra)) return Status::error(base::where(file, line_no, "expected 2 fields: name and value"));
    out.push_back({name, v});
    return Status::ok();
  });
}

std::string node_meminfo_key(std::string_view key) {
  return meminfo_key(key, false);
}

}  // namespace llmon::procfs
