#include "procfs/vmstat.h"

#include <string>

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {

Status parse_vmstat(std::string_view text, std::vector<VmstatField>& out, std::string_view file) {
  out.clear();
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    FieldIter it(line);
    VmstatField f;
    std::string_view value;
    if (!it.next(f.name)) continue;
    if (!it.next(value))
      return Status::error(base::where(file, lines.line_no(), "field \"" + std::string(f.name) + "\" has no value"));
    auto v = parse_number(value);
    if (!v)
      return Status::error(base::where(file, lines.line_no(),
                                       "invalid value \"" + std::string(value) + "\" for " + std::string(f.name)));
    f.value = *v;
    out.push_back(f);
  }
  return Status::ok();
}

Expected<std::vector<VmstatField>> parse_vmstat(std::string_view text) {
  std::vector<VmstatField> out;
  Status s = parse_vmstat(text, out);
  if (!s) return s;
  return out;
}

}  // namespace llmon::procfs
