#include "procfs/meminfo.h"

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {

Status parse_meminfo(std::string_view text, std::vector<MemInfoField>& out, std::string_view file) {
  out.clear();
  return for_each_named_value(text, file, [&](std::string_view name, double value, FieldIter& rest, int line_no) {
    MemInfoField f;
    // node_exporter drops the last character unconditionally (normally ':').
    f.raw_key = name.substr(0, name.size() - 1);
    f.value = value;
    std::string_view unit, extra;
    if (rest.next(unit)) {
      if (rest.next(extra))
        return Status::error(base::where(file, line_no, "invalid line: more than name, value and unit"));
      f.has_unit = true;
      f.value *= 1024;  // the kernel prints kB
    }
    out.push_back(f);
    return Status::ok();
  });
}

Expected<std::vector<MemInfoField>> parse_meminfo(std::string_view text) {
  return filled<std::vector<MemInfoField>>([&](auto& out) { return parse_meminfo(text, out); });
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
