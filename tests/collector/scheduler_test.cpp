#include "collector/scheduler.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace llmon::collector {
namespace {

class CountingCollector final : public Collector {
 public:
  explicit CountingCollector(bool fail) : fail_(fail) {}
  Status collect(model::SnapshotBuilder& out) override {
    ++calls_;
    out.family("test_calls_total", "Calls.", model::MetricType::kCounter).add(calls_);
    if (fail_) return Status::error("boom");
    return Status::ok();
  }

 private:
  bool fail_;
  int calls_ = 0;
};

struct Recorder : SampleSink {
  std::vector<int64_t> ts;
  void append(const model::SnapshotPtr& s) override { ts.push_back(s->timestamp_ms); }
};

std::vector<NamedCollector> two(bool second_fails) {
  std::vector<NamedCollector> v;
  v.push_back({"good", std::make_unique<CountingCollector>(false)});
  v.push_back({"bad", std::make_unique<CountingCollector>(second_fails)});
  return v;
}

TEST(Scheduler, NextTickIsAligned) {
  EXPECT_EQ(Scheduler::next_tick(1500, 1000), 2000);
  EXPECT_EQ(Scheduler::next_tick(2000, 1000), 3000);
  EXPECT_EQ(Scheduler::next_tick(14'999, 5000), 15'000);
}

TEST(Scheduler, ReportsSuccessPerCollectorAndOneTimestamp) {
  base::ManualClock clock(0);
  base::Logger log(base::LogLevel::kError, std::tmpfile());
  Scheduler s(two(true), clock, log, 1000);
  Recorder rec;
  s.add_sink(&rec);
  auto snap = s.run_cycle(5000);
  EXPECT_EQ(snap->timestamp_ms, 5000);
  ASSERT_NE(snap->find_series("node_scrape_collector_success", {{"collector", "good"}}), nullptr);
  EXPECT_EQ(snap->find_series("node_scrape_collector_success", {{"collector", "good"}})->value, 1);
  EXPECT_EQ(snap->find_series("node_scrape_collector_success", {{"collector", "bad"}})->value, 0);
  EXPECT_NE(snap->find_series("node_scrape_collector_duration_seconds", {{"collector", "bad"}}), nullptr);
  // Both collectors wrote the same family: it is exposed once with both series.
  EXPECT_EQ(snap->find("test_calls_total")->series.size(), 1u);
  EXPECT_EQ(s.latest(), snap);
  s.run_cycle(6000);
  EXPECT_EQ(rec.ts, (std::vector<int64_t>{5000, 6000}));
}

TEST(Scheduler, PublishedSnapshotIsNotRecycledWhileHeld) {
  base::ManualClock clock(0);
  base::Logger log(base::LogLevel::kError, std::tmpfile());
  Scheduler s(two(false), clock, log, 1000);
  auto held = s.run_cycle(1000);
  s.run_cycle(2000);
  s.run_cycle(3000);  // would recycle cycle 1's buffer if nobody held it
  EXPECT_EQ(held->timestamp_ms, 1000);
  auto v = held->find("test_calls_total");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->series[0].value, 1);
}

TEST(Scheduler, RecyclesBuffersWhileAReaderHoldsTheLatest) {
  // The /metrics page cache keeps the snapshot it rendered; recycling must
  // still find a free buffer instead of allocating every other cycle.
  base::ManualClock clock(0);
  base::Logger log(base::LogLevel::kError, std::tmpfile());
  Scheduler s(two(false), clock, log, 1000);
  model::SnapshotPtr held;
  for (int i = 1; i <= 20; ++i) {
    auto snap = s.run_cycle(i * 1000);
    held = snap;  // a reader keeps the latest until the next cycle
    EXPECT_EQ(snap->find("test_calls_total")->series[0].value, i);
  }
  EXPECT_LE(s.buffers_allocated(), 3u);
}

}  // namespace
}  // namespace llmon::collector
