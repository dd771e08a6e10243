// memory_bandwidth.h.
#include "trace/memory_bandwidth.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace llmon::trace {

std::string memory_kind(std::string_view name) {
  if (name.starts_with("Memset")) return "Memset";
  if (!name.starts_with("Memcpy")) return "Memcpy Unknown";
  return std::string(name.substr(0, 11));
}

std::vector<MemoryKind> memory_bandwidth(const TraceData& d, const std::vector<Span>& kernels,
                                         const std::vector<KernelType>& type_of) {
  struct Step {
    int64_t ts;
    double gbps;
  };
  std::map<std::string, MemoryKind> kinds;
  std::map<std::string, std::vector<Step>> steps;
  const double ns_per_unit = static_cast<double>(d.header.ns_per_unit());
  for (const Span& k : kernels) {
    if (type_of[k.name] != KernelType::kMemory) continue;
    std::string kind = memory_kind(d.names[k.name]);
    MemoryKind& m = kinds[kind];
    m.kind = kind;
    ++m.ops;
    m.dur += k.dur;
    int64_t dur = std::max<int64_t>(k.dur, 1);
    double gbps = -1;
    if (k.args > 0) {
      const KernelArgs& a = d.kernel_args[k.args - 1];
      if (a.bytes != kAbsent) m.bytes += a.bytes;
      if (a.memory_gbps >= 0)
        gbps = a.memory_gbps;
      else if (a.bytes != kAbsent)
        gbps = static_cast<double>(a.bytes) / (static_cast<double>(dur) * ns_per_unit);  // bytes/ns = GB/s
    }
    if (gbps < 0) continue;
    ++m.ops_with_bandwidth;
    steps[kind].push_back(Step{k.ts, gbps});
    steps[kind].push_back(Step{k.ts + dur, -gbps});
  }
  for (auto& [kind, v] : steps) {
    std::stable_sort(v.begin(), v.end(), [](const Step& a, const Step& b) {
      return a.ts != b.ts ? a.ts < b.ts : (a.gbps < 0) > (b.gbps < 0);
    });
    std::vector<double> pts;
    long double bw = 0;
    for (const Step& s : v) {
      bw += s.gbps;
      if (std::fabs(static_cast<double>(bw)) < 1e-9) bw = 0;
      if (bw > 0) pts.push_back(static_cast<double>(bw));
    }
    kinds[kind].gbps = describe(std::move(pts));
  }
  std::vector<MemoryKind> out;
  for (auto& [kind, m] : kinds) out.push_back(std::move(m));
  return out;
}

}  // namespace llmon::trace
