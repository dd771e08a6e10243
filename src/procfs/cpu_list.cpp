#include "procfs/cpu_list.h"

#include <string>

#include "base/strings.h"

namespace llmon::procfs {
namespace {

// Highest CPU number accepted in a list; keeps a hostile range from allocating.
constexpr uint64_t kMaxCpu = 65535;

}  // namespace

Expected<std::vector<uint32_t>> parse_cpu_list(std::string_view text) {
  std::vector<uint32_t> out;
  for (std::string_view item : base::split(base::trim(text), ',')) {
    if (item.empty()) continue;
    size_t dash = item.find('-');
    auto first = base::parse_u64(item.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : base::parse_u64(item.substr(dash + 1));
    if (!first || !last || *last < *first || *last > kMaxCpu)
      return Status::error("invalid CPU list item \"" + std::string(item) + "\"");
    for (uint64_t c = *first; c <= *last; ++c) out.push_back(static_cast<uint32_t>(c));
  }
  return out;
}

}  // namespace llmon::procfs
