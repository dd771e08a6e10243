// CUDA-stream queue lengths of one rank (HTA's queue_length time series and
// summary, hta/analyzers/trace_counters.py): the number of operations
// enqueued on a stream and not yet started. It goes up by one when a launch
// call (launch_names.h) starts and down by one when its kernel starts on the
// stream. Only launches with a kernel of the same correlation and kernels
// with a launch count (HTA's fix for the negative values of traces where
// kernels lack a launch: sample negative_queue_length_values_check). At equal
// times the launch counts first, so the length never goes negative. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "trace/launch_names.h"
#include "trace/stats.h"
#include "trace/trace_data.h"

namespace llmon::trace {

struct QueuePoint {
  int64_t ts = 0;
  int64_t length = 0;  // from ts until the next point
};

struct StreamQueue {
  int64_t stream = -1;  // stream_number
  Summary length;       // over the points of the series (HTA's describe())
  int64_t max = 0;
  int64_t time_at_max = 0;  // trace units the queue spent at its maximum
};

// Per stream, one point per launch and per kernel start, in time order.
std::map<int64_t, std::vector<QueuePoint>> queue_length_series(const std::vector<Span>& kernels,
                                                               const LaunchIndex& launches);

// Time from each point with length >= n to the next point (HTA's
// get_time_spent_blocked_on_full_queue with max_queue_length n).
int64_t time_at_or_above(const std::vector<QueuePoint>& series, int64_t n);

std::vector<StreamQueue> queue_length_summary(const std::map<int64_t, std::vector<QueuePoint>>& series);

}  // namespace llmon::trace
