// overlap.h: |U(comm) ∩ U(comp)| / |U(comm)|, which is what HTA's running-sum
// over the merged intervals (comm +-1, comp +-2, status 3) measures.
#include "trace/overlap.h"

#include "trace/intervals.h"

namespace llmon::trace {

CommCompOverlap comm_comp_overlap(const std::vector<Span>& kernels, const std::vector<KernelType>& type_of) {
  std::vector<Interval> comm, comp;
  for (const Span& k : kernels) {
    KernelType t = type_of[k.name];
    if (t == KernelType::kCommunication)
      comm.emplace_back(k.ts, k.end());
    else if (t == KernelType::kComputation)
      comp.emplace_back(k.ts, k.end());
  }
  CommCompOverlap o;
  auto mc = merge_intervals(std::move(comm));
  o.comm = total_length(mc);
  o.overlapped = intersection_length(mc, merge_intervals(std::move(comp)));
  o.pct = o.comm > 0 ? 100.0 * static_cast<double>(o.overlapped) / static_cast<double>(o.comm) : 0;
  return o;
}

}  // namespace llmon::trace
