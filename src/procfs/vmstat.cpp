#include "procfs/vmstat.h"

#include <string>

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {

Status parse_vmstat(std::string_view text, std::vector<VmstatField>& out, std::string_view file) {
  out.clear();
  return for_each_named_value(text, file, [&](std::string_view name, double value, FieldIter&, int) {
    out.push_back(VmstatField{name, value});
    return Status::ok();
  });
}

Expected<std::vector<VmstatField>> parse_vmstat(std::string_view text) {
  return filled<std::vector<VmstatField>>([&](auto& out) { return parse_vmstat(text, out); });
}

}  // namespace llmon::procfs
