#include "procfs/meminfo.h"

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {

Status parse_meminfo(std::string_view text, std::vector<MemInfoField>& out, std::string_view file) {
  out.clear();
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    FieldIter it(line);
    std::string_view name, value, unit, extra;
    if (!it.next(name)) continue;  // blank lines occur on some old kernels
    if (!it.next(value))
      return Status::error(base::where(file, lines.line_no(), "field \"" + std::string(name) + "\" has no value"));
    auto v = parse_number(value);
    if (!v)
      return Status::error(
          base::where(file, lines.line_no(), "invalid value \"" + std::string(value) + "\" for " + std::string(name)));
    MemInfoField f;
    // node_exporter drops the last character unconditionally (normally ':').
    f.raw_key = name.substr(0, name.size() - 1);
    f.value = *v;
    if (it.next(unit)) {
      if (it.next(extra))
        return Status::error(base::where(file, lines.line_no(), "invalid line: more than name, value and unit"));
      f.has_unit = true;
      f.value *= 1024;  // the kernel prints kB
    }
    out.push_back(f);
  }
  return Status::ok();
}

Expected<std::vector<MemInfoField>> parse_meminfo(std::string_view text) {
  std::vector<MemInfoField> out;
  Status s = parse_meminfo(text, out);
  if (!s) return s;
  return out;
}

std::string meminfo_key(std::string_view key, bool has_unit) {
  std::string out;
  size_t open = key.find('(');
  size_t close = key.rfind(')');
  if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
    out.append(key.substr(0, open));
    out += '_';
    out.append(key.substr(open + 1, close - open - 1));
    out.append(key.substr(close + 1));
  } else {
    out.assign(key);
  }
  if (has_unit) out += "_bytes";
  return out;
}

}  // namespace llmon::procfs
