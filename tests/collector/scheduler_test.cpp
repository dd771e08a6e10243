#include "collector/scheduler.h"

#include <gtest/gtest.h>

#include <cmath>
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

// The value of the series of `name` (any part) with x=`x`; NaN when absent.
double load1_with_x(const model::Snapshot& snap, std::string_view x) {
  for (const auto& f : snap.families)
    if (f.name == "node_load1")
      for (const auto& s : f.series)
        if (s.label_values[0] == x) return s.value;
  return std::nan("");
}

size_t testing_series_of(const model::Snapshot& snap, std::string_view name) {
  size_t n = 0;
  for (const auto& f : snap.families)
    if (f.name == name) n += f.series.size();
  return n;
}

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
  // Both collectors wrote the same family with the same (empty) label set:
  // exposed once, the first collector's series kept.
  EXPECT_EQ(testing_series_of(*snap, "test_calls_total"), 1u);
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
  EXPECT_EQ(s.no_data_collectors(), std::vector<std::string>{"infiniband"}) << "not \"bad\"";

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

// Emits node_load1 (and a labelled series), as a *.prom file re-using a built-in name would.
class Emits final : public Collector {
 public:
  Emits(double v, std::string help, model::MetricType type = model::MetricType::kGauge)
      : v_(v), help_(std::move(help)), type_(type) {}
  Status collect(model::SnapshotBuilder& out) override {
    auto f = out.family("node_load1", help_, type_, {"x"});
    f.add({""}, v_);
    f.add({std::to_string(static_cast<int>(v_))}, v_);
    return Status::ok();
  }

 private:
  double v_;
  std::string help_;
  model::MetricType type_;
};

TEST(Scheduler, SeriesTwoCollectorsExposeAreKeptOnceBuiltinsFirst) {
  base::ManualClock clock(0);
  std::FILE* log_file = std::tmpfile();
  base::Logger log(base::LogLevel::kInfo, log_file);
  std::vector<NamedCollector> v;
  v.push_back({"textfile", std::make_unique<Emits>(42, "mine")});  // runs first, still loses
  v.push_back({"loadavg", std::make_unique<Emits>(0.9, "1m load average.")});
  v.push_back({"other", std::make_unique<Emits>(7, "typed otherwise", model::MetricType::kCounter)});
  Scheduler s(std::move(v), clock, log, 1000);
  auto snap = s.run_cycle(1000);
  // loadavg's {x=""} and {x="0"}, and the file's {x="42"}; the file's {x=""} lost to loadavg's.
  EXPECT_EQ(testing_series_of(*snap, "node_load1"), 3u);
  EXPECT_EQ(load1_with_x(*snap, ""), 0.9);
  // Distinct label sets of the losing part stay: x="42" from the file.
  EXPECT_EQ(load1_with_x(*snap, "42"), 42);
  EXPECT_TRUE(std::isnan(load1_with_x(*snap, "7")));  // a counter part: dropped whole
  // The winner heads the exposed family (its HELP/TYPE).
  const model::Family* first = nullptr;
  for (uint32_t idx : snap->order)
    if (snap->families[idx].name == "node_load1") {
      first = &snap->families[idx];
      break;
    }
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->help, "1m load average.");
  s.run_cycle(2000);  // the same duplicates: no second warning
  std::string text = logged(log_file);
  EXPECT_NE(text.find("series dropped"), std::string::npos) << text;
  EXPECT_NE(text.find("families=node_load1"), std::string::npos) << text;
  EXPECT_EQ(text.find("series dropped"), text.rfind("series dropped")) << text;
}

}  // namespace
}  // namespace llmon::collector
