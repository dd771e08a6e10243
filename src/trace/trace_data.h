// What the analyses keep of one rank's trace: GPU kernels (events with a
// `stream` arg, HTA's definition) with the few args of memcpy/NCCL kernels,
// CPU operators, annotations, CUDA launch calls and correlations and counts,
// with names interned. TraceBuilder is the
// EventSink that fills it while the parser streams; it keeps no raw events,
// so memory grows with kernels and operators, not with the file. B/E pairs
// become spans; events without ts, with negative durations or unmatched E
// are skipped and counted with the offset of the first. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/event.h"

namespace llmon::trace {

struct Span {
  int64_t ts = 0;  // ns while building; trace units after finish() (TraceHeader::ns_per_unit)
  int64_t dur = 0;
  uint32_t name = 0;  // index into TraceData::names
  int32_t stream = -1;  // kernels: the stream's 32 bits (Kineto's are unsigned; see stream_number)
  int32_t device = -1;
  uint32_t args = 0;  // kernels: 1 + index into TraceData::kernel_args, 0 when none were given
  int64_t correlation = kAbsent;
  int64_t tid = 0;  // CPU spans: thread (pid and tid hashed together)
  int64_t end() const { return ts + dur; }
};

// The args of a kernel that the memory-bandwidth and collective analyses
// read; kept only for kernels that carry any of them.
struct KernelArgs {
  int64_t bytes = kAbsent;
  double memory_gbps = -1;  // Kineto's "memory bandwidth (GB/s)"; -1: absent
  int64_t in_nelems = kAbsent;
  int32_t collective = -1;     // names index of "Collective name"; -1: absent
  int32_t process_group = -1;  // names index of "Process Group Name"; -1: absent
};

// A kernel's stream as the trace wrote it: 0 .. 4294967295 (the alexnet
// sample has 4294967295, which is not "no stream").
inline int64_t stream_number(int32_t stream) {
  return static_cast<int64_t>(static_cast<uint32_t>(stream));
}

struct SkipCount {
  uint64_t count = 0;
  uint64_t first_offset = 0;
};

struct TraceData {
  TraceHeader header;
  std::vector<std::string> names;
  std::vector<Span> kernels;                                // GPU kernels, memcpy, memset (stream >= 0)
  std::vector<Span> cpu_ops;                                // cat cpu_op / Operator
  std::vector<Span> annotations;                            // cat user_annotation (ProfilerStep#N among them)
  std::unordered_map<int64_t, int64_t> launch_ts;           // correlation -> ts of the CPU runtime call
  std::vector<Span> launches;                               // kernel-launching runtime calls (launch_names.h)
  std::vector<KernelArgs> kernel_args;                      // Span::args - 1 indexes this
  // MTIA memory events without a stream (mtia_ccp_events named dma*/Memcpy*/
  // Memset*), their thread as the stream: select_kernels adds those inside a
  // ProfilerStep, as HTA's _fix_mtia_memory_kernels does.
  std::vector<Span> device_memory;
  std::map<std::string, uint64_t, std::less<>> categories;  // events per cat
  std::map<char, uint64_t> phases;                          // events per ph
  uint64_t events = 0;
  uint64_t flows = 0;
  uint64_t counters = 0;
  // Skipped events by reason ("negative duration", "no ts", ...).
  std::map<std::string, SkipCount> skipped;
};

class TraceBuilder : public EventSink {
 public:
  void on_event(const RawEvent& e) override;
  // Call once after the parse: unmatched B events are counted as skipped, and
  // times become the header's unit (µs truncated, as HTA, unless "ns").
  TraceData finish(TraceHeader header);

 private:
  uint32_t intern(std::string_view s);
  uint32_t kernel_args(const RawEvent& e);
  void skip(const char* why, uint64_t offset);
  void add_complete(const RawEvent& e, int64_t ts, int64_t dur, std::string_view name, std::string_view cat);

  struct Open {
    int64_t ts;
    std::string name;
    std::string cat;
    uint64_t offset;
  };
  TraceData d_;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids_;
  uint64_t phase_counts_[256] = {};
  std::string last_cat_;
  uint64_t* last_cat_count_ = nullptr;
  std::unordered_map<int64_t, std::vector<Open>> open_;  // B events per thread
};

}  // namespace llmon::trace
