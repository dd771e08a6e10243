// TraceBuilder (trace_data.h).
#include "trace/trace_data.h"

#include <functional>

#include "trace/launch_names.h"

namespace llmon::trace {
namespace {

int64_t thread_key(const RawEvent& e) {
  uint64_t pid = e.pid != kAbsent ? static_cast<uint64_t>(e.pid) : std::hash<std::string_view>{}(e.pid_text);
  uint64_t tid = e.tid != kAbsent ? static_cast<uint64_t>(e.tid) : std::hash<std::string_view>{}(e.tid_text);
  return static_cast<int64_t>(pid * 1000003u ^ tid);
}

bool is_cpu_op(std::string_view cat) {
  return cat == "cpu_op" || cat == "Operator";
}
bool is_launch(std::string_view cat) {
  return cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime" || cat == "mtia_runtime" ||
         cat == "privateuse1_runtime" || cat == "xpu_runtime";
}
// HTA's MemoryKernelGroupingPattern (^(hip)?Memcpy|^(hip)?Memset|^dma).
bool is_memory_name(std::string_view n) {
  if (n.starts_with("hip")) n.remove_prefix(3);
  return n.starts_with("Memcpy") || n.starts_with("Memset") || n.starts_with("dma");
}
int32_t small(int64_t v) {
  return v == kAbsent || v < INT32_MIN || v > INT32_MAX ? -1 : static_cast<int32_t>(v);
}

}  // namespace

uint32_t TraceBuilder::intern(std::string_view s) {
  auto it = ids_.find(s);
  if (it != ids_.end()) return it->second;
  auto id = static_cast<uint32_t>(d_.names.size());
  d_.names.emplace_back(s);
  ids_.emplace(std::string(s), id);
  return id;
}

uint32_t TraceBuilder::kernel_args(const RawEvent& e) {
  if (e.bytes == kAbsent && e.memory_gbps < 0 && e.in_nelems == kAbsent && e.collective.empty() &&
      e.process_group.empty())
    return 0;
  KernelArgs a;
  a.bytes = e.bytes;
  a.memory_gbps = e.memory_gbps;
  a.in_nelems = e.in_nelems;
  if (!e.collective.empty()) a.collective = static_cast<int32_t>(intern(e.collective));
  if (!e.process_group.empty()) a.process_group = static_cast<int32_t>(intern(e.process_group));
  d_.kernel_args.push_back(a);
  return static_cast<uint32_t>(d_.kernel_args.size());
}

void TraceBuilder::skip(const char* why, uint64_t offset) {
  SkipCount& s = d_.skipped[why];
  if (s.count++ == 0) s.first_offset = offset;
}

void TraceBuilder::add_complete(const RawEvent& e, int64_t ts, int64_t dur, std::string_view name,
                                std::string_view cat) {
  if (dur < 0) return skip("negative duration", e.offset);
  Span s;
  s.ts = ts;
  s.dur = dur;
  if (e.stream != kAbsent && e.stream != -1) {
    s.name = intern(name);
    s.stream = e.stream >= 0 && e.stream <= UINT32_MAX ? static_cast<int32_t>(static_cast<uint32_t>(e.stream))
                                                       : small(e.stream);
    s.device = small(e.device);
    s.correlation = e.correlation;
    s.args = kernel_args(e);
    d_.kernels.push_back(s);
    return;
  }
  if (cat == "mtia_ccp_events" && is_memory_name(name) && e.tid != kAbsent) {
    s.name = intern(name);
    s.stream = small(e.tid);
    s.correlation = e.correlation;
    d_.device_memory.push_back(s);
  } else if (is_cpu_op(cat)) {
    s.name = intern(name);
    s.tid = thread_key(e);
    d_.cpu_ops.push_back(s);
  } else if (cat == "user_annotation") {
    s.name = intern(name);
    s.tid = thread_key(e);
    d_.annotations.push_back(s);
  } else if (cat.empty() && e.pid_text == "CPU functions") {
    // The legacy autograd profiler's export_chrome_trace (PyTorch without
    // Kineto, e.g. Debian's 1.13): no categories; record_function ranges
    // such as ProfilerStep#N are operators there, kept as annotations here.
    s.name = intern(name);
    s.tid = thread_key(e);
    (name.starts_with("ProfilerStep#") ? d_.annotations : d_.cpu_ops).push_back(s);
  } else if (is_launch(cat) && e.correlation != kAbsent) {
    d_.launch_ts.emplace(e.correlation, ts);
    if (is_launch_call(name)) {
      s.name = intern(name);
      s.correlation = e.correlation;
      s.tid = thread_key(e);
      d_.launches.push_back(s);
    }
  }
}

void TraceBuilder::on_event(const RawEvent& e) {
  ++d_.events;
  ++phase_counts_[static_cast<unsigned char>(e.ph)];
  if (!e.cat.empty()) {
    if (!last_cat_count_ || e.cat != last_cat_) {
      auto it = d_.categories.find(e.cat);
      if (it == d_.categories.end()) it = d_.categories.emplace(std::string(e.cat), 0).first;
      last_cat_.assign(e.cat);
      last_cat_count_ = &it->second;
    }
    ++*last_cat_count_;
  }
  switch (e.ph) {
    case 'X':
      if (e.ts == kAbsent) return skip("complete event without ts", e.offset);
      if (e.dur == kAbsent) return skip("complete event without dur", e.offset);
      add_complete(e, e.ts, e.dur, e.name, e.cat);
      return;
    case 'B':
      if (e.ts == kAbsent) return skip("begin event without ts", e.offset);
      open_[thread_key(e)].push_back(Open{e.ts, std::string(e.name), std::string(e.cat), e.offset});
      return;
    case 'E': {
      auto it = open_.find(thread_key(e));
      if (it == open_.end() || it->second.empty()) return skip("end event without a begin", e.offset);
      Open o = std::move(it->second.back());
      it->second.pop_back();
      if (e.ts == kAbsent) return skip("end event without ts", e.offset);
      RawEvent c = e;
      c.offset = o.offset;
      add_complete(c, o.ts, e.ts - o.ts, o.name, o.cat);
      return;
    }
    case 's':
    case 't':
    case 'f':
      ++d_.flows;
      return;
    case 'C':
      ++d_.counters;
      return;
    case 0:
      return skip("event without ph", e.offset);
    default:
      return;  // i, M and the rest: counted only
  }
}

TraceData TraceBuilder::finish(TraceHeader header) {
  for (auto& [tid, stack] : open_)
    for (const Open& o : stack) skip("begin event without an end", o.offset);
  open_.clear();
  for (int c = 0; c < 256; ++c)
    if (phase_counts_[c]) d_.phases[static_cast<char>(c)] = phase_counts_[c];
  d_.header = std::move(header);
  int64_t k = d_.header.ns_per_unit();
  if (k != 1) {
    for (auto* v : {&d_.kernels, &d_.cpu_ops, &d_.annotations, &d_.launches, &d_.device_memory})
      for (Span& s : *v) {
        s.ts /= k;
        s.dur /= k;
      }
    for (auto& [c, ts] : d_.launch_ts) ts /= k;
  }
  return std::move(d_);
}

}  // namespace llmon::trace
