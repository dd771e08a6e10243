// One Chrome-trace event as the streaming parser hands it over (docs/trace.md):
// the fields Kineto writes and the few `args` the analyses read. A view, not a
// value: its string_views point into the parser's buffer and stay valid only
// during the EventSink call that receives it. No allocation, no ownership.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmon::trace {

// Absent numbers are kAbsent; a number that does not fit int64 (Kineto's
// `Comms Id`) is also kAbsent, with RawEvent::overflowed set.
inline constexpr int64_t kAbsent = INT64_MIN;

struct RawEvent {
  char ph = 0;  // 'X', 'B', 'E', 'i', 'I', 'C', 's', 't', 'f', 'M', ... (0: no "ph")
  std::string_view name;
  std::string_view cat;
  // ts and dur in nanoseconds: Kineto writes microseconds (also in traces
  // with displayTimeUnit "ns", which only add three decimals); the parser
  // keeps them exact to 1 ns, truncating further decimals.
  int64_t ts = kAbsent;
  int64_t dur = kAbsent;
  int64_t pid = kAbsent;  // numeric pid/tid; string ones are in pid_text/tid_text
  int64_t tid = kAbsent;
  std::string_view pid_text;
  std::string_view tid_text;
  int64_t id = kAbsent;  // flow id (s/f)
  std::string_view bp;   // flow binding point ("e")
  // args
  int64_t stream = kAbsent;
  int64_t device = kAbsent;
  int64_t correlation = kAbsent;
  int64_t external_id = kAbsent;
  std::string_view collective;  // args "Collective name"
  std::string_view arg_name;    // args "name" (M events: process_name/thread_name value)
  std::string_view process_group;  // args "Process Group Name" (NCCL kernels)
  int64_t bytes = kAbsent;         // args "bytes" (memcpy, memset)
  int64_t in_nelems = kAbsent;     // args "In msg nelems" (NCCL kernels)
  double memory_gbps = -1;         // args "memory bandwidth (GB/s)"; -1: absent
  bool overflowed = false;      // some integer field exceeded int64 and was dropped
  uint64_t offset = 0;          // byte offset of the event's '{' in the (decompressed) JSON
};

// Top-level keys other than traceEvents. displayTimeUnit often follows
// traceEvents in the file, so consumers read the header after the events.
struct TraceHeader {
  std::string display_time_unit;  // "ms" (µs timestamps), "ns", or empty
  int64_t schema_version = kAbsent;
  std::string trace_name;
  // distributedInfo
  int64_t rank = kAbsent;
  int64_t world_size = kAbsent;
  std::string backend;
  // deviceProperties: one name per device
  std::vector<std::string> device_names;
  bool array_format = false;  // the file is a bare JSON array of events
  // The unit the analyses use, in ns: 1 for "ns" traces, else 1000 (µs,
  // truncated like HTA's int64 columns).
  int64_t ns_per_unit() const { return display_time_unit == "ns" ? 1 : 1000; }
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_event(const RawEvent& e) = 0;
};

}  // namespace llmon::trace
