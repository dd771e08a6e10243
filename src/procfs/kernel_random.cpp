#include "procfs/kernel_random.h"

#include <string>

#include "base/strings.h"

namespace llmon::procfs {

Expected<uint64_t> parse_kernel_random_value(std::string_view text, std::string_view file) {
  std::string_view v = base::trim(text);
  auto n = base::parse_u64(v);
  if (!n) return Status::error(base::where(file, 1, "expected an unsigned integer, got \"" + std::string(v) + "\""));
  return *n;
}

}  // namespace llmon::procfs
