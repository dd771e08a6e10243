// Memory-copy bandwidth of one rank by kind (HTA's memory bandwidth time
// series and summary, hta/analyzers/trace_counters.py). The MEMORY kernels
// (kernel_type.h) are grouped by HTA's get_memory_kernel_type: "Memset",
// the first 11 characters of a "Memcpy..." name ("Memcpy HtoD", "Memcpy
// DtoH", "Memcpy DtoD", ...), else "Memcpy Unknown". Each operation adds its
// bandwidth (Kineto's "memory bandwidth (GB/s)" arg; else bytes / duration)
// to its kind's series from its start to its end (a duration of 0 counts as
// one unit, as HTA does); concurrent copies add up. The summary describes the
// series' points where the bandwidth is above 0 (at equal times, ends are
// applied before starts; |values| below 1e-9 GB/s are 0). Pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/kernel_type.h"
#include "trace/stats.h"
#include "trace/trace_data.h"

namespace llmon::trace {

struct MemoryKind {
  std::string kind;
  uint64_t ops = 0;
  uint64_t ops_with_bandwidth = 0;  // those with a bandwidth arg or bytes
  int64_t bytes = 0;                // summed "bytes" args
  int64_t dur = 0;                  // summed durations, trace units
  Summary gbps;                     // the time series' positive points
};

std::string memory_kind(std::string_view name);

// Kinds sorted by name; d gives the names, the args and the time unit.
std::vector<MemoryKind> memory_bandwidth(const TraceData& d, const std::vector<Span>& kernels,
                                         const std::vector<KernelType>& type_of);

}  // namespace llmon::trace
