#include "procfs/loadavg.h"

#include "base/strings.h"

namespace llmon::procfs {

Expected<LoadAvg> parse_loadavg(std::string_view text) {
  auto f = base::split_fields(base::trim(text));
  if (f.size() < 3) return Status::error("loadavg: expected at least 3 fields, got " + std::to_string(f.size()));
  LoadAvg out;
  double* dst[] = {&out.load1, &out.load5, &out.load15};
  for (int i = 0; i < 3; ++i) {
    auto v = base::parse_double(f[i]);
    if (!v) return Status::error("loadavg: field " + std::to_string(i + 1) + " is not a number: \"" + std::string(f[i]) + "\"");
    *dst[i] = *v;
  }
  return out;
}

}  // namespace llmon::procfs
