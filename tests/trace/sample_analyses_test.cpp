// The analyses beyond the temporal breakdown on HTA's public sample traces,
// against the numbers HTA's own tests (tests/test_trace_analysis.py) expect
// on these very files (docs/trace.md#agreement-with-hta). The traces are not
// in this repository: LLMON_TRACE_SAMPLES names their folder (default: the
// shared data folder beside the clone); the tests skip when it is absent.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "trace/analysis.h"
#include "trace/load.h"
#include "trace/sample_path.h"

namespace llmon::trace {
namespace {

using testing::samples;

// Within 1 % of HTA's value (absolutely within 0.01 where HTA's is 0).
void near_hta(double hta, double got, const std::string& what) {
  EXPECT_LE(std::fabs(got - hta), std::max(0.01 * std::fabs(hta), 0.01))
      << what << ": HTA " << hta << ", llmon " << got;
}

TEST(TraceSampleAnalyses, MtiaQueueLengthAgreesWithHta) {
  std::string path = samples() + "/mtia_trace_single_rank/mtia_rank_0.json.gz";
  REQUIRE_SAMPLE(path);
  auto d = load_trace_file(path);
  ASSERT_TRUE(d) << d.error();
  bool filtered = false;
  std::vector<Span> kernels = select_kernels(*d, find_steps(*d), &filtered);
  auto series = queue_length_series(kernels, index_launches(d->launches));
  // test_get_mtia_queue_length_stats: streams [1, 102]; stream 102's describe().
  std::set<int64_t> streams;
  for (const auto& [s, pts] : series) streams.insert(s);
  EXPECT_EQ(streams, (std::set<int64_t>{1, 102}));
  auto summary = queue_length_summary(series);
  const StreamQueue* q = nullptr;
  for (const auto& x : summary)
    if (x.stream == 102) q = &x;
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->length.count, 6u);
  near_hta(0.5, q->length.mean, "mean");
  near_hta(0.547723, q->length.std, "std");
  near_hta(0.0, q->length.min, "min");
  near_hta(0.0, q->length.p25, "25%");
  near_hta(0.5, q->length.p50, "50%");
  near_hta(1.0, q->length.p75, "75%");
  near_hta(1.0, static_cast<double>(q->max), "max");
  // get_time_spent_blocked_on_full_queue(max_queue_length=1): 1060 µs (the last stream's, 102).
  near_hta(1060, static_cast<double>(time_at_or_above(series.at(102), 1)), "time at queue length >= 1");
}

TEST(TraceSampleAnalyses, MtiaIdleTimeAndLaunches) {
  std::string path = samples() + "/mtia_trace_single_rank/mtia_rank_0.json.gz";
  REQUIRE_SAMPLE(path);
  auto d = load_trace_file(path);
  ASSERT_TRUE(d) << d.error();
  RankReport r = analyze(*d);
  // test_get_mtia_idle_time_breakdown: streams {1, 102, 801} (801: the dma
  // events without a stream, on their thread); stream 1 host wait 417 937 µs,
  // ratio 0.07 (HTA rounds to 2 decimals). llmon: 408 779 µs, 2.2 % less
  // (docs/trace.md#agreement-with-hta).
  const StreamIdle* s1 = nullptr;
  std::set<int64_t> streams;
  for (const auto& s : r.idle_by_stream) {
    streams.insert(s.stream);
    if (s.stream == 1) s1 = &s;
  }
  EXPECT_EQ(streams, (std::set<int64_t>{1, 102, 801}));
  ASSERT_NE(s1, nullptr);
  EXPECT_NEAR(static_cast<double>(s1->host_wait), 417937, 0.025 * 417937);
  EXPECT_NEAR(static_cast<double>(s1->host_wait) / static_cast<double>(s1->total()), 0.07, 0.005);
  // test_get_mtia_kernel_launch_stats: correlation 423, cpu 435.2 and gpu
  // 124.768 (±2). HTA's launch delay (0 ± 2) is not reproduced: docs/trace.md.
  bool filtered = false;
  auto rows = launch_rows(select_kernels(*d, find_steps(*d), &filtered), index_launches(d->launches));
  const LaunchRow* row = nullptr;
  for (const auto& x : rows)
    if (x.correlation == 423) row = &x;
  ASSERT_NE(row, nullptr);
  EXPECT_NEAR(static_cast<double>(row->cpu_dur), 435.2, 2.0);
  EXPECT_NEAR(static_cast<double>(row->gpu_dur), 124.768, 2.0);
}

TEST(TraceSampleAnalyses, NegativeQueueLengthCheck) {
  std::string path = samples() + "/negative_queue_length_values_check/rank0.json.gz";
  REQUIRE_SAMPLE(path);
  auto d = load_trace_file(path);
  ASSERT_TRUE(d) << d.error();
  RankReport r = analyze(*d);
  // test_generate_trace_with_counters: 6 streams in the queue summary, no
  // negative queue length; 4 memory kinds, no negative bandwidth.
  EXPECT_EQ(r.queues.size(), 6u);
  for (const auto& q : r.queues) EXPECT_GE(q.length.min, 0) << "stream " << q.stream;
  std::set<std::string> kinds;
  for (const auto& m : r.memory) {
    kinds.insert(m.kind);
    EXPECT_GT(m.gbps.count, 0u) << m.kind;
    EXPECT_GT(m.gbps.min, 0) << m.kind;
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"Memcpy DtoD", "Memcpy DtoH", "Memcpy HtoD", "Memset"}));
}

}  // namespace
}  // namespace llmon::trace
