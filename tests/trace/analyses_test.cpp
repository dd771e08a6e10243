// The per-analysis functions of src/trace on small inputs built in the test
// (the fixtures cover them end to end): intervals, describe() with pandas'
// semantics, overlap, idle causes, launch pairing, queue ties, memory kinds,
// stragglers and diff. Expected values computed by hand.
#include <gtest/gtest.h>

#include "trace/analysis.h"
#include "trace/intervals.h"
#include "trace/stats.h"

namespace llmon::trace {
namespace {

Span kernel(int64_t ts, int64_t dur, uint32_t name, int32_t stream = 7, int64_t corr = kAbsent) {
  Span s;
  s.ts = ts;
  s.dur = dur;
  s.name = name;
  s.stream = stream;
  s.correlation = corr;
  return s;
}

TEST(TraceIntervals, MergeAndIntersect) {
  auto a = merge_intervals({{10, 20}, {0, 5}, {5, 8}, {15, 30}});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0], Interval(0, 8));
  EXPECT_EQ(a[1], Interval(10, 30));
  EXPECT_EQ(total_length(a), 28);
  auto b = merge_intervals({{6, 12}, {25, 40}});
  EXPECT_EQ(intersection_length(a, b), 2 + 2 + 5);
  EXPECT_EQ(intersection_length(a, {}), 0);
}

TEST(TraceStats, DescribeLikePandas) {
  Summary s = describe({4, 1, 3, 2});
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.std, 1.2909944487, 1e-9);  // sample standard deviation
  EXPECT_DOUBLE_EQ(s.p25, 1.75);
  EXPECT_DOUBLE_EQ(s.p50, 2.5);
  EXPECT_DOUBLE_EQ(s.p75, 3.25);
  EXPECT_EQ(describe({7}).std, 0);
  EXPECT_EQ(describe({}).count, 0u);
}

TEST(TraceOverlap, ShareOfCommunicationHiddenByCompute) {
  // names: 0 compute, 1 communication, 2 memory
  std::vector<KernelType> t{KernelType::kComputation, KernelType::kCommunication, KernelType::kMemory};
  std::vector<Span> k{kernel(0, 10, 0), kernel(5, 10, 1, 8), kernel(12, 10, 1, 9), kernel(14, 20, 2, 10)};
  CommCompOverlap o = comm_comp_overlap(k, t);
  EXPECT_EQ(o.comm, 17);       // [5, 22)
  EXPECT_EQ(o.overlapped, 5);  // [5, 10); memory does not count
  EXPECT_NEAR(o.pct, 100.0 * 5 / 17, 1e-9);
  EXPECT_EQ(comm_comp_overlap({kernel(0, 10, 0)}, t).pct, 0);
}

TEST(TraceIdle, CausesPerStream) {
  std::unordered_map<int64_t, int64_t> launch{{1, 0}, {2, 15}, {3, 5}};
  // stream 7: [0,10) then [20,30) launched at 15 > 10: host wait 10; then [35,40) launched
  // at 5: gap 5 < 30 kernel wait; then [100,110) without launch: other 60.
  std::vector<Span> k{kernel(20, 10, 0, 7, 2), kernel(0, 10, 0, 7, 1), kernel(35, 5, 0, 7, 3), kernel(100, 10, 0, 7)};
  auto idle = idle_time_breakdown(k, launch, 30);
  ASSERT_EQ(idle.size(), 1u);
  EXPECT_EQ(idle[0].kernels, 4u);
  EXPECT_EQ(idle[0].host_wait, 10);
  EXPECT_EQ(idle[0].kernel_wait, 5);
  EXPECT_EQ(idle[0].other, 60);
  EXPECT_EQ(idle[0].total(), 75);
}

TEST(TraceLaunches, PairsByCorrelationAndOutliers) {
  std::vector<Span> calls(2);
  calls[0] = kernel(0, 60, 9, -1, 1);  // a 60-unit launch call: runtime outlier
  calls[1] = kernel(100, 5, 9, -1, 2);
  LaunchIndex idx = index_launches(calls);
  std::vector<Span> k{kernel(50, 1, 0, 7, 1), kernel(300, 2, 0, 7, 2), kernel(400, 2, 0, 7, 3)};
  auto rows = launch_rows(k, idx);
  ASSERT_EQ(rows.size(), 2u);     // correlation 3 has no launch call
  EXPECT_EQ(rows[0].delay, -10);  // the kernel started before the call returned
  EXPECT_EQ(rows[1].delay, 195);
  LaunchStats s = launch_stats(rows, LaunchOptions{});
  EXPECT_EQ(s.runtime_outliers, 1u);
  EXPECT_EQ(s.delay_outliers, 1u);
  EXPECT_EQ(s.short_kernels, 1u);  // 2 < 5 <= 50
  ASSERT_EQ(s.worst.size(), 2u);
  EXPECT_EQ(s.worst[0].correlation, 2);
}

TEST(TraceQueue, LaunchCountsBeforeAKernelStartingAtTheSameTime) {
  std::vector<Span> calls{kernel(10, 1, 9, -1, 1), kernel(20, 1, 9, -1, 2)};
  LaunchIndex idx = index_launches(calls);
  // kernel 1 starts at 20, when call 2 is made: +1 first, so 1 2 1 0, never 0 then 2.
  std::vector<Span> k{kernel(20, 5, 0, 7, 1), kernel(30, 5, 0, 7, 2), kernel(40, 5, 0, 7, 77)};
  auto series = queue_length_series(k, idx);
  ASSERT_EQ(series.size(), 1u);
  const auto& s = series.at(7);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].length, 1);
  EXPECT_EQ(s[1].length, 2);
  EXPECT_EQ(s[2].length, 1);
  EXPECT_EQ(s[3].length, 0);
  EXPECT_EQ(time_at_or_above(s, 1), 20);
  auto q = queue_length_summary(series);
  EXPECT_EQ(q[0].max, 2);
  EXPECT_EQ(q[0].time_at_max, 0);  // 2 only at the instant 20
}

TEST(TraceQueue, AKernelBeforeItsLaunchGoesBelowZero) {
  std::vector<Span> calls{kernel(20, 1, 9, -1, 1)};
  LaunchIndex idx = index_launches(calls);
  auto q = queue_length_summary(queue_length_series({kernel(10, 5, 0, 7, 1)}, idx));
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].length.count, 2u);
  EXPECT_DOUBLE_EQ(q[0].length.min, -1);
  EXPECT_DOUBLE_EQ(q[0].length.mean, -0.5);
  EXPECT_EQ(q[0].max, 0);
}

TEST(TraceMemory, KindsAsHta) {
  EXPECT_EQ(memory_kind("Memcpy HtoD (Pinned -> Device)"), "Memcpy HtoD");
  EXPECT_EQ(memory_kind("Memcpy DtoD (Device -> Device)"), "Memcpy DtoD");
  EXPECT_EQ(memory_kind("Memset (Device)"), "Memset");
  EXPECT_EQ(memory_kind("dma_request"), "Memcpy Unknown");
}

TEST(TraceStragglers, MatchByKeyAndOccurrence) {
  std::vector<RankCollectives> r(3);
  for (int i = 0; i < 3; ++i) r[static_cast<size_t>(i)].rank = i;
  r[0].calls = {{"ag", 100, 1}, {"ag", 200, 1}};
  r[1].calls = {{"ag", 210, 1}, {"ag", 105, 1}};  // any order: occurrence is by start
  r[2].calls = {{"ag", 150, 1}};
  StragglerReport s = find_stragglers(r, 1);
  EXPECT_EQ(s.collectives, 2u);
  ASSERT_EQ(s.worst.size(), 1u);
  EXPECT_EQ(s.worst[0].occurrence, 0u);
  EXPECT_EQ(s.worst[0].last_rank, 2);
  EXPECT_EQ(s.worst[0].late_ns, 50);
  EXPECT_EQ(s.ranks[1].last, 1u);  // #1: 210 vs 200
  EXPECT_EQ(s.ranks[2].late_max_ns, 50);
  EXPECT_EQ(s.ranks[2].collectives, 1u);
}

TEST(TraceDiff, SortedByAbsoluteDeltaInNanoseconds) {
  DiffSideRank a, b;
  a.ns_per_unit = 1000;  // µs trace
  a.kernel_time = 100;
  a.idle = 40;
  a.compute = 50;
  a.non_compute = 10;
  a.kernels = {{"gemm", 2, 50}, {"nccl", 1, 10}};
  a.operators = {{"aten::mm", 2, 30}};
  b.ns_per_unit = 1;  // ns trace
  b.kernel_time = 80000;
  b.idle = 20000;
  b.compute = 50000;
  b.non_compute = 10000;
  b.kernels = {{"gemm", 2, 49000}, {"nccl", 1, 30000}, {"new", 1, 1000}};
  TraceDiff d = diff_traces({a}, {b}, 2);
  ASSERT_EQ(d.temporal.size(), 4u);
  EXPECT_EQ(d.temporal[0].name, "kernel_time");
  EXPECT_EQ(d.temporal[1].delta_ns(), -20000);
  EXPECT_DOUBLE_EQ(d.temporal[1].share_a, 0.4);
  EXPECT_DOUBLE_EQ(d.temporal[1].share_b, 0.25);
  EXPECT_EQ(d.kernel_names, 3u);
  ASSERT_EQ(d.kernels.size(), 2u);
  EXPECT_EQ(d.kernels[0].name, "nccl");  // +20000
  EXPECT_EQ(d.kernels[1].name, "gemm");  // -1000, ties with "new" (+1000): name order
  EXPECT_DOUBLE_EQ(d.kernels[0].share_b, 30000.0 / 80000);
  ASSERT_EQ(d.operators.size(), 1u);
  EXPECT_EQ(d.operators[0].b_ns, 0);
  EXPECT_EQ(d.operators[0].delta_ns(), -30000);
}

}  // namespace
}  // namespace llmon::trace
