#include <gtest/gtest.h>

#include <cmath>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using model::MetricType;
using testing::collect_once;
using testing::expect_family;
using testing::fixture_context;
using testing::TempFixture;
using testing::value_of;

constexpr char kStatTail[] =
    " 1 1 1 0 -1 4194560 1 1 0 0 5 6 0 0 20 0 1 0 100 1000 10 1 1 1 1 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";

TEST(ProcessesCollector, FixtureValues) {
  auto c = make_processes(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(value_of(snap, "node_processes_pids", {}), 7);
  EXPECT_EQ(value_of(snap, "node_processes_threads", {}), 12);  // the num_threads fields
  EXPECT_EQ(value_of(snap, "node_processes_max_threads", {}), 1030236);
  EXPECT_EQ(value_of(snap, "node_processes_max_processes", {}), 4194304);
  EXPECT_EQ(value_of(snap, "node_processes_state", {{"state", "S"}}), 4);
  EXPECT_EQ(value_of(snap, "node_processes_state", {{"state", "Z"}}), 1);
  EXPECT_EQ(value_of(snap, "node_processes_threads_state", {{"thread_state", "S"}}), 7);
  EXPECT_EQ(value_of(snap, "node_processes_threads_state", {{"thread_state", "D"}}), 1);
  EXPECT_EQ(value_of(snap, "node_processes_threads_state", {{"thread_state", "R"}}), 2);
  expect_family(snap, "node_processes_threads", MetricType::kGauge, "Allocated threads in system");
  expect_family(snap, "node_processes_max_threads", MetricType::kGauge, "Limit of threads in the system");
  expect_family(snap, "node_processes_state", MetricType::kGauge, "Number of processes in each state.");
  expect_family(snap, "node_processes_threads_state", MetricType::kGauge, "Number of threads in each state.");
  expect_family(snap, "node_processes_pids", MetricType::kGauge, "Number of PIDs");
  expect_family(snap, "node_processes_max_processes", MetricType::kGauge, "Number of max PIDs limit");
}

TEST(ProcessesCollector, VanishedProcessesAreSkippedAndStatesRecount) {
  TempFixture fx({"proc/sys/kernel"});
  fx.write("proc/7/stat", std::string("7 (a b) R") + kStatTail);
  fx.write("proc/8/stat", std::string("8 (c)) D") + kStatTail);
  std::filesystem::create_directories(fx.path("proc/9"));  // exited: no stat
  auto c = make_processes(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(value_of(snap, "node_processes_pids", {}), 2);
  EXPECT_EQ(value_of(snap, "node_processes_state", {{"state", "D"}}), 1);
  EXPECT_EQ(testing::series_count(snap, "node_processes_threads_state"), 0u);  // no task directories
  fx.remove("proc/8");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_processes_pids", {}), 1);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_processes_state", {{"state", "D"}})));
}

TEST(ProcessesCollector, MalformedStatOrMissingLimitFails) {
  TempFixture fx({"proc/sys/kernel"});
  fx.write("proc/7/stat", "7 (short) R 1 1\n");
  auto c = make_processes(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("error reading stat for pid 7"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(fx.path("proc/7/stat")), std::string::npos) << s.message();
  fx.write("proc/7/stat", std::string("7 (ok) S") + kStatTail);
  fx.write("proc/sys/kernel/pid_max", "lots\n");
  s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("unable to retrieve limit number of maximum pids"), std::string::npos) << s.message();
  EXPECT_EQ(value_of(snap, "node_processes_state", {{"state", "S"}}), 1);  // written before pid_max is read
  EXPECT_EQ(snap.find("node_processes_pids"), nullptr);
}

}  // namespace
}  // namespace llmon::collector
