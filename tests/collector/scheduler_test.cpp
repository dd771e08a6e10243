#include "collector/scheduler.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

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

class AbsentHardware final : public Collector {
 public:
  Status collect(model::SnapshotBuilder&) override { return Status::no_data("/sys/class/infiniband is missing"); }
};

std::string logged(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, f)) out.append(buf, n);
  return out;
}

TEST(Scheduler, NoDataIsAFailureLoggedAtDebugOnly) {
  base::ManualClock clock(0);
  std::FILE* errors = std::tmpfile();
  std::vector<NamedCollector> v;
  v.push_back({"infiniband", std::make_unique<AbsentHardware>()});
  v.push_back({"bad", std::make_unique<CountingCollector>(true)});
  base::Logger log(base::LogLevel::kInfo, errors);
  Scheduler s(std::move(v), clock, log, 1000);
  auto snap = s.run_cycle(1000);
  EXPECT_EQ(snap->find_series("node_scrape_collector_success", {{"collector", "infiniband"}})->value, 0);
  std::string text = logged(errors);
  EXPECT_EQ(text.find("infiniband"), std::string::npos) << text;  // not at info or above
  EXPECT_NE(text.find("boom"), std::string::npos) << text;         // a real failure is an error line

  std::FILE* debug = std::tmpfile();
  std::vector<NamedCollector> w;
  w.push_back({"infiniband", std::make_unique<AbsentHardware>()});
  base::Logger dlog(base::LogLevel::kDebug, debug);
  Scheduler d(std::move(w), clock, dlog, 1000);
  d.run_cycle(1000);
  text = logged(debug);
  EXPECT_NE(text.find("collector returned no data"), std::string::npos) << text;
  EXPECT_NE(text.find("/sys/class/infiniband is missing"), std::string::npos) << text;
}

}  // namespace
}  // namespace llmon::collector
