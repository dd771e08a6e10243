// trace_diff.h.
#include "trace/trace_diff.h"

#include <algorithm>
#include <map>

namespace llmon::trace {
namespace {

using Totals = std::map<std::string, std::pair<uint64_t, int64_t>>;  // name -> (count, ns)

Totals totals(const std::vector<DiffSideRank>& side, bool kernels, int64_t* all) {
  Totals t;
  *all = 0;
  for (const DiffSideRank& r : side)
    for (const NameTotal& n : kernels ? r.kernels : r.operators) {
      auto& x = t[n.name];
      x.first += n.count;
      x.second += n.sum * r.ns_per_unit;
      *all += n.sum * r.ns_per_unit;
    }
  return t;
}

double share(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

std::vector<DiffRow> rows(const std::vector<DiffSideRank>& a, const std::vector<DiffSideRank>& b, bool kernels,
                          size_t* names) {
  int64_t all_a = 0, all_b = 0;
  Totals ta = totals(a, kernels, &all_a), tb = totals(b, kernels, &all_b);
  std::map<std::string, DiffRow> by;
  for (const auto& [name, x] : ta) {
    DiffRow& r = by[name];
    r.name = name;
    r.count_a = x.first;
    r.a_ns = x.second;
  }
  for (const auto& [name, x] : tb) {
    DiffRow& r = by[name];
    r.name = name;
    r.count_b = x.first;
    r.b_ns = x.second;
  }
  std::vector<DiffRow> out;
  for (auto& [name, r] : by) {
    r.share_a = share(r.a_ns, all_a);
    r.share_b = share(r.b_ns, all_b);
    out.push_back(std::move(r));
  }
  std::stable_sort(out.begin(), out.end(), [](const DiffRow& x, const DiffRow& y) {
    int64_t dx = x.delta_ns() < 0 ? -x.delta_ns() : x.delta_ns(), dy = y.delta_ns() < 0 ? -y.delta_ns() : y.delta_ns();
    return dx > dy;
  });
  *names = out.size();
  return out;
}

}  // namespace

TraceDiff diff_traces(const std::vector<DiffSideRank>& a, const std::vector<DiffSideRank>& b, size_t top) {
  TraceDiff d;
  d.ranks_a = a.size();
  d.ranks_b = b.size();
  int64_t sa[4] = {}, sb[4] = {};
  for (const DiffSideRank& r : a) {
    sa[0] += r.kernel_time * r.ns_per_unit;
    sa[1] += r.idle * r.ns_per_unit;
    sa[2] += r.compute * r.ns_per_unit;
    sa[3] += r.non_compute * r.ns_per_unit;
  }
  for (const DiffSideRank& r : b) {
    sb[0] += r.kernel_time * r.ns_per_unit;
    sb[1] += r.idle * r.ns_per_unit;
    sb[2] += r.compute * r.ns_per_unit;
    sb[3] += r.non_compute * r.ns_per_unit;
  }
  const char* names[4] = {"kernel_time", "idle", "compute", "non_compute"};
  for (int i = 0; i < 4; ++i) {
    DiffRow r;
    r.name = names[i];
    r.a_ns = sa[i];
    r.b_ns = sb[i];
    r.share_a = share(sa[i], sa[0]);
    r.share_b = share(sb[i], sb[0]);
    d.temporal.push_back(r);
  }
  d.kernels = rows(a, b, true, &d.kernel_names);
  d.operators = rows(a, b, false, &d.operator_names);
  if (d.kernels.size() > top) d.kernels.resize(top);
  if (d.operators.size() > top) d.operators.resize(top);
  return d;
}

}  // namespace llmon::trace
