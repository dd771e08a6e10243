// analysis.h; the definitions follow HTA's breakdown_analysis.py as quoted in
// docs/trace.md.
#include "trace/analysis.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "trace/intervals.h"
#include "trace/kernel_type.h"

namespace llmon::trace {
namespace {

double pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / whole : 0;
}

std::vector<NameStat> top_by_name(const std::vector<std::pair<uint32_t, int64_t>>& items,
                                  const std::vector<std::string>& names, const AnalyzeOptions& opts, uint64_t* distinct,
                                  const std::vector<std::string>* groups, std::vector<NameTotal>* totals) {
  std::unordered_map<uint32_t, NameStat> by;
  int64_t total = 0;
  for (const auto& [name, dur] : items) {
    NameStat& s = by[name];
    if (s.count == 0) {
      s.min = dur;
      s.max = dur;
    }
    ++s.count;
    s.sum += dur;
    s.max = std::max(s.max, dur);
    s.min = std::min(s.min, dur);
    total += dur;
  }
  std::vector<std::pair<uint32_t, NameStat>> rows(by.begin(), by.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.sum != b.second.sum ? a.second.sum > b.second.sum : a.first < b.first;
  });
  *distinct = rows.size();
  totals->clear();
  totals->reserve(rows.size());
  for (const auto& [name, s] : rows) totals->push_back(NameTotal{names[name], s.count, s.sum});
  std::vector<NameStat> out;
  for (auto& [name, s] : rows) {
    if (out.size() >= opts.top_n) break;
    s.name = names[name];
    if (groups) s.group = (*groups)[name];
    s.mean = static_cast<double>(s.sum) / static_cast<double>(s.count);
    s.share = total > 0 ? static_cast<double>(s.sum) / static_cast<double>(total) : 0;
    s.flagged = s.share >= opts.flag_share;
    out.push_back(std::move(s));
  }
  return out;
}

// Self time of each CPU operator: its duration less its direct children's,
// nesting found per thread from the intervals.
std::vector<std::pair<uint32_t, int64_t>> self_times(std::vector<Span> ops) {
  std::sort(ops.begin(), ops.end(), [](const Span& a, const Span& b) {
    if (a.tid != b.tid) return a.tid < b.tid;
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.dur > b.dur;
  });
  std::vector<int64_t> self(ops.size());
  std::vector<size_t> stack;
  for (size_t i = 0; i < ops.size(); ++i) {
    self[i] = ops[i].dur;
    if (i > 0 && ops[i].tid != ops[i - 1].tid) stack.clear();
    while (!stack.empty() && ops[stack.back()].end() <= ops[i].ts) stack.pop_back();
    if (!stack.empty()) self[stack.back()] -= std::min(ops[i].dur, ops[stack.back()].end() - ops[i].ts);
    stack.push_back(i);
  }
  std::vector<std::pair<uint32_t, int64_t>> out;
  out.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) out.emplace_back(ops[i].name, std::max<int64_t>(0, self[i]));
  return out;
}

// Per group index (an enum's value): count, sum, share; largest first.
std::vector<GroupStat> groups_of(const std::vector<std::pair<int, int64_t>>& items, int n,
                                 std::string_view (*name_of)(int)) {
  std::vector<GroupStat> by(static_cast<size_t>(n));
  int64_t total = 0;
  for (const auto& [g, dur] : items) {
    ++by[static_cast<size_t>(g)].count;
    by[static_cast<size_t>(g)].sum += dur;
    total += dur;
  }
  std::vector<GroupStat> out;
  for (int g = 0; g < n; ++g) {
    GroupStat& s = by[static_cast<size_t>(g)];
    if (s.count == 0) continue;
    s.name = name_of(g);
    s.share = total > 0 ? static_cast<double>(s.sum) / static_cast<double>(total) : 0;
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(),
            [](const GroupStat& a, const GroupStat& b) { return a.sum != b.sum ? a.sum > b.sum : a.name < b.name; });
  return out;
}

std::string_view type_name(int t) {
  return kernel_type_name(static_cast<KernelType>(t));
}
std::string_view class_name(int c) {
  return kernel_class_name(static_cast<KernelClass>(c));
}

// The COMMUNICATION kernels as find_stragglers matches them: keyed by
// "Process Group Name/Collective name" when given, else by kernel name.
std::vector<CollectiveCall> collective_calls(const TraceData& d, const std::vector<Span>& kernels,
                                             const std::vector<KernelType>& kt, int64_t npu) {
  std::vector<CollectiveCall> out;
  for (const Span& k : kernels) {
    if (kt[k.name] != KernelType::kCommunication) continue;
    CollectiveCall c;
    const KernelArgs* a = k.args > 0 ? &d.kernel_args[k.args - 1] : nullptr;
    if (a && a->collective >= 0)
      c.key = (a->process_group >= 0 ? d.names[static_cast<size_t>(a->process_group)] + "/" : std::string()) +
              d.names[static_cast<size_t>(a->collective)];
    else
      c.key = d.names[k.name];
    c.ts_ns = k.ts * npu;
    c.dur_ns = k.dur * npu;
    auto launch = k.correlation == kAbsent ? d.launch_ts.end() : d.launch_ts.find(k.correlation);
    if (launch != d.launch_ts.end()) c.launch_ns = launch->second * npu;
    if (a && a->in_nelems != kAbsent) c.in_nelems = a->in_nelems;
    out.push_back(std::move(c));
  }

  return out;
}

}  // namespace

int64_t union_length(std::vector<std::pair<int64_t, int64_t>> iv) {
  if (iv.empty()) return 0;
  std::sort(iv.begin(), iv.end());
  int64_t total = 0, cs = iv[0].first, ce = iv[0].second;
  for (size_t i = 1; i < iv.size(); ++i) {
    if (iv[i].first > ce) {
      total += ce - cs;
      cs = iv[i].first;
      ce = iv[i].second;
    } else {
      ce = std::max(ce, iv[i].second);
    }
  }
  return total + (ce - cs);
}

Temporal temporal_breakdown(const std::vector<Span>& kernels, const std::vector<bool>& is_compute) {
  Temporal t;
  if (kernels.empty()) return t;
  std::vector<std::pair<int64_t, int64_t>> all, comp;
  all.reserve(kernels.size());
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const Span& k : kernels) {
    all.emplace_back(k.ts, k.end());
    if (is_compute[k.name]) comp.emplace_back(k.ts, k.end());
    first = std::min(first, k.ts);
    last = std::max(last, k.end());
  }
  t.kernel_time = last - first;
  t.idle = t.kernel_time - union_length(std::move(all));
  t.compute = union_length(std::move(comp));
  t.non_compute = t.kernel_time - t.compute - t.idle;
  t.idle_pct = pct(t.idle, t.kernel_time);
  t.compute_pct = pct(t.compute, t.kernel_time);
  t.non_compute_pct = pct(t.non_compute, t.kernel_time);
  return t;
}

std::vector<Step> find_steps(const TraceData& d) {
  std::vector<Step> steps;
  constexpr std::string_view kPrefix = "ProfilerStep#";
  for (const Span& a : d.annotations) {
    std::string_view n = d.names[a.name];
    if (!n.starts_with(kPrefix)) continue;
    Step s;
    n.remove_prefix(kPrefix.size());
    std::from_chars(n.data(), n.data() + n.size(), s.number);
    s.ts = a.ts;
    s.dur = a.dur;
    steps.push_back(s);
  }
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.ts < b.ts; });
  return steps;
}

std::vector<Span> select_kernels(const TraceData& d, const std::vector<Step>& steps, bool* filtered) {
  *filtered = steps.size() >= 2;
  std::vector<Span> out;
  if (!*filtered) {
    out = d.kernels;
  } else {
    int64_t cutoff = steps.back().ts;
    for (const Span& k : d.kernels) {
      auto it = d.launch_ts.find(k.correlation);
      if (k.correlation != kAbsent && it != d.launch_ts.end() && it->second < cutoff) out.push_back(k);
    }
  }
  for (const Span& m : d.device_memory)
    for (const Step& s : steps)
      if (m.ts >= s.ts && m.ts <= s.ts + s.dur) {
        out.push_back(m);
        break;
      }
  return out;
}

RankReport analyze(const TraceData& d, const AnalyzeOptions& opts) {
  RankReport r;
  r.rank = d.header.rank != kAbsent ? d.header.rank : 0;
  r.ns_per_unit = d.header.ns_per_unit();
  r.kernels_total = d.kernels.size();
  r.steps = find_steps(d);
  std::vector<Span> kernels = select_kernels(d, r.steps, &r.step_filter);
  r.kernels_used = kernels.size();

  // Classify each kernel name once.
  std::vector<bool> is_compute(d.names.size(), false), done(d.names.size(), false);
  std::vector<int> type_of(d.names.size(), 0), class_of(d.names.size(), 0);
  std::vector<KernelType> kt(d.names.size(), KernelType::kOther);
  std::vector<std::string> group_of(d.names.size());
  for (const Span& k : kernels) {
    if (done[k.name]) continue;
    done[k.name] = true;
    KernelType t = kernel_type(d.names[k.name]);
    KernelClass c = kernel_class(d.names[k.name]);
    is_compute[k.name] = t == KernelType::kComputation;
    type_of[k.name] = static_cast<int>(t);
    kt[k.name] = t;
    class_of[k.name] = static_cast<int>(c);
    group_of[k.name] = std::string(kernel_type_name(t)) + "/" + std::string(kernel_class_name(c));
  }
  r.temporal = temporal_breakdown(kernels, is_compute);

  std::vector<std::pair<int, int64_t>> types, classes;
  std::vector<std::pair<uint32_t, int64_t>> by_name;
  types.reserve(kernels.size());
  classes.reserve(kernels.size());
  by_name.reserve(kernels.size());
  for (const Span& k : kernels) {
    types.emplace_back(type_of[k.name], k.dur);
    classes.emplace_back(class_of[k.name], k.dur);
    by_name.emplace_back(k.name, k.dur);
  }
  r.by_type = groups_of(types, static_cast<int>(KernelType::kOther) + 1, type_name);
  r.by_class = groups_of(classes, static_cast<int>(KernelClass::kOther) + 1, class_name);
  r.top_kernels = top_by_name(by_name, d.names, opts, &r.kernel_names, &group_of, &r.kernel_totals);
  r.top_operators = top_by_name(self_times(d.cpu_ops), d.names, opts, &r.operator_names, nullptr, &r.operator_totals);

  const int64_t npu = r.ns_per_unit;
  auto units = [npu](int64_t us) { return us * 1000 / npu; };
  r.overlap = comm_comp_overlap(kernels, kt);
  r.idle_by_stream = idle_time_breakdown(kernels, d.launch_ts, units(opts.kernel_wait_us));
  LaunchIndex launches = index_launches(d.launches);
  LaunchOptions lo;
  lo.runtime_cutoff = units(opts.runtime_cutoff_us);
  lo.launch_delay_cutoff = units(opts.launch_delay_cutoff_us);
  r.launches = launch_stats(launch_rows(kernels, launches), lo);
  for (const LaunchRow& w : r.launches.worst) r.launches.worst_names.push_back(d.names[w.kernel]);
  r.queues = queue_length_summary(queue_length_series(kernels, launches));
  r.memory = memory_bandwidth(d, kernels, kt);
  r.collectives = collective_calls(d, kernels, kt, npu);

  // GPU busy time inside each step: the merged kernel intervals clipped to it.
  if (!r.steps.empty()) {
    std::vector<std::pair<int64_t, int64_t>> iv;
    iv.reserve(kernels.size());
    for (const Span& k : kernels) iv.emplace_back(k.ts, k.end());
    auto busy = merge_intervals(std::move(iv));
    for (Step& s : r.steps) {
      int64_t lo = s.ts, hi = s.ts + s.dur;
      auto it = std::lower_bound(busy.begin(), busy.end(), lo,
                                 [](const std::pair<int64_t, int64_t>& x, int64_t v) { return x.second <= v; });
      for (; it != busy.end() && it->first < hi; ++it) s.gpu_busy += std::min(it->second, hi) - std::max(it->first, lo);
    }
  }
  return r;
}

RankCollectives collectives_of(const RankReport& r) {
  return RankCollectives{r.rank, r.collectives};
}

DiffSideRank diff_side_of(const RankReport& r) {
  DiffSideRank s;
  s.ns_per_unit = r.ns_per_unit;
  s.kernel_time = r.temporal.kernel_time;
  s.idle = r.temporal.idle;
  s.compute = r.temporal.compute;
  s.non_compute = r.temporal.non_compute;
  s.kernels = r.kernel_totals;
  s.operators = r.operator_totals;
  return s;
}

}  // namespace llmon::trace
