// The one list of built-in collectors. Adding a collector: write
// collector/<name>.cpp with make_<name>(), declare it in builtin.h, add a line here.
#include "collector/builtin.h"
#include "collector/registry.h"

namespace llmon::collector {
namespace {

constexpr CollectorInfo kCollectors[] = {
    {"loadavg", true, "Exposes load average.", make_loadavg},
};

}  // namespace

std::span<const CollectorInfo> builtin_collectors() { return kCollectors; }

const CollectorInfo* find_collector(std::string_view name) {
  for (const auto& c : kCollectors)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace llmon::collector
