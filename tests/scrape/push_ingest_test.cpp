// Pushed groups into the store (scrape/push_ingest.h).
#include "scrape/push_ingest.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "model/sample.h"
#include "tsdb/head.h"

namespace llmon::scrape {
namespace {

using Type = model::Matcher::Type;

struct Found {
  std::string labels;
  std::vector<model::Sample> samples;
};

std::vector<Found> select(storage::Storage& st, std::vector<model::Matcher> ms) {
  auto q = st.querier(0, INT64_MAX);
  auto set = (*q)->select(0, INT64_MAX, ms);
  std::vector<Found> out;
  while (set->next()) {
    Found f;
    f.labels = set->at().labels().to_string();
    auto it = set->at().iterator();
    while (it->next()) f.samples.push_back(it->at());
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Found> by_name(storage::Storage& st, const std::string& name) {
  return select(st, {{Type::kEq, "__name__", name}});
}

class PushIngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("push_ingest_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  base::ManualClock clock_{1'700'000'000'000};
  base::Logger log_{base::LogLevel::kError, std::tmpfile()};
  tsdb::Head head_;
};

TEST_F(PushIngestTest, StoresPushedSeriesWithTheirOwnJobAndNoReportSeries) {
  PushIngest p(head_, clock_, log_, {});
  auto r = p.handle("PUT", "/metrics/job/train/instance/host1",
                    "# TYPE loss gauge\nloss 1.5\n# TYPE step_seconds histogram\n"
                    "step_seconds_bucket{le=\"1\"} 2\nstep_seconds_bucket{le=\"+Inf\"} 3\n"
                    "step_seconds_sum 2.5\nstep_seconds_count 3\n",
                    "text/plain; version=0.0.4");
  ASSERT_EQ(r.status, 200) << r.body;
  // A group without an instance: instance="" on the page, no instance label stored.
  ASSERT_EQ(p.handle("PUT", "/metrics/job/batch", "done 1\n", "").status, 200);
  p.append_once(clock_.now_ms());

  auto loss = by_name(head_, "loss");
  ASSERT_EQ(loss.size(), 1u);
  EXPECT_EQ(loss[0].labels, "{__name__=\"loss\", instance=\"host1\", job=\"train\"}");
  EXPECT_EQ(loss[0].samples.at(0).v, 1.5);
  EXPECT_EQ(loss[0].samples.at(0).t_ms, clock_.now_ms());
  auto done = by_name(head_, "done");
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].labels, "{__name__=\"done\", job=\"batch\"}");
  EXPECT_EQ(by_name(head_, "step_seconds_bucket").size(), 2u);
  EXPECT_EQ(by_name(head_, "step_seconds_count").at(0).samples.at(0).v, 3);
  auto pushed = by_name(head_, "push_time_seconds");
  ASSERT_EQ(pushed.size(), 2u);
  EXPECT_EQ(pushed[0].samples.at(0).v, 1'700'000'000);
  EXPECT_TRUE(by_name(head_, "up").empty());
  EXPECT_TRUE(by_name(head_, "scrape_duration_seconds").empty());
  const auto st = p.stats();
  EXPECT_EQ(st.groups, 2u);
  EXPECT_EQ(st.requests_by_code.at(200), 2u);
  EXPECT_EQ(st.appends, 1u);
}

TEST_F(PushIngestTest, DeletedGroupsGoStaleAndEachAppendRepeatsTheValues) {
  PushIngest p(head_, clock_, log_, {});
  ASSERT_EQ(p.handle("PUT", "/metrics/job/short", "x 7\n", "").status, 200);
  ASSERT_EQ(p.handle("PUT", "/metrics/job/long", "y 8\n", "").status, 200);
  const int64_t t0 = clock_.now_ms();
  p.append_once(t0);
  p.append_once(t0 + 1000);
  EXPECT_EQ(p.handle("DELETE", "/metrics/job/short", "", "").status, 202);
  p.append_once(t0 + 2000);
  auto x = by_name(head_, "x");
  ASSERT_EQ(x.size(), 1u);
  ASSERT_EQ(x[0].samples.size(), 3u);
  EXPECT_EQ(x[0].samples[1].v, 7);
  EXPECT_TRUE(model::is_stale(x[0].samples[2].v));
  EXPECT_EQ(x[0].samples[2].t_ms, t0 + 2000);
  auto y = by_name(head_, "y");
  ASSERT_EQ(y.at(0).samples.size(), 3u);
  EXPECT_EQ(y[0].samples[2].v, 8);
}

TEST_F(PushIngestTest, RefusedPushesAreCountedAndChangeNothingStored) {
  PushIngest p(head_, clock_, log_, {});
  auto r = p.handle("PUT", "/metrics/job/j", "x 1 1700000000000\n", "");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(p.handle("POST", "/metrics/job/j", "not a metric line {\n", "").status, 400);
  EXPECT_EQ(p.handle("GET", "/metrics/job/j", "", "").status, 405);
  p.append_once(clock_.now_ms());
  EXPECT_TRUE(by_name(head_, "x").empty());
  ASSERT_EQ(by_name(head_, "push_failure_time_seconds").size(), 1u);
  EXPECT_EQ(p.stats().requests_by_code.at(400), 2u);
  EXPECT_EQ(p.stats().requests_by_code.at(405), 1u);
}

TEST_F(PushIngestTest, GroupsSurviveARestartThroughThePersistenceFile) {
  const std::string file = (dir_ / "push-groups.json").string();
  {
    PushIngest p(head_, clock_, log_, {1000, 250, file});
    p.start();
    ASSERT_EQ(p.handle("PUT", "/metrics/job/train", "loss 0.5\n", "").status, 200);
    p.stop();
  }
  ASSERT_TRUE(std::filesystem::exists(file));
  tsdb::Head fresh;
  PushIngest q(fresh, clock_, log_, {1000, 250, file});
  q.start();
  EXPECT_EQ(q.stats().groups, 1u);
  q.stop();
  auto loss = by_name(fresh, "loss");
  ASSERT_EQ(loss.size(), 1u);
  EXPECT_EQ(loss[0].samples.back().v, 0.5);
}

TEST_F(PushIngestTest, AnUnreadableFileIsMovedAsideNotOverwritten) {
  const std::string file = (dir_ / "push-groups.json").string();
  std::ofstream(file) << "{ not json";
  PushIngest p(head_, clock_, log_, {1000, 250, file});
  p.start();
  EXPECT_EQ(p.stats().groups, 0u);
  EXPECT_TRUE(std::filesystem::exists(file + ".corrupt"));
  ASSERT_EQ(p.handle("PUT", "/metrics/job/j", "x 1\n", "").status, 200);
  p.stop();
  std::ifstream aside(file + ".corrupt");
  std::string kept((std::istreambuf_iterator<char>(aside)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "{ not json");
  EXPECT_TRUE(std::filesystem::exists(file));  // the new groups saved
}

TEST_F(PushIngestTest, TheThreadStoresAPushSoonAfterIt) {
  base::SystemClock clock;
  PushIngest p(head_, clock, log_, {60'000, 10, ""});  // ticks far apart: only the push wakes it
  p.start();
  ASSERT_EQ(p.handle("PUT", "/metrics/job/j", "x 3\n", "").status, 200);
  bool seen = false;
  for (int i = 0; i < 500 && !seen; ++i) {
    seen = !by_name(head_, "x").empty();
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  p.stop();
  EXPECT_TRUE(seen) << "the push was not stored within 5 s";
}

}  // namespace
}  // namespace llmon::scrape
