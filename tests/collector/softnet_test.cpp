#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(SoftnetCollector, FixtureValues) {
  auto c = make_softnet(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(series_count(snap, "node_softnet_processed_total"), 4u);
  EXPECT_EQ(value_of(snap, "node_softnet_processed_total", {{"cpu", "0"}}), 0x1a2f3c4d);
  EXPECT_EQ(value_of(snap, "node_softnet_dropped_total", {{"cpu", "1"}}), 2);
  EXPECT_EQ(value_of(snap, "node_softnet_times_squeezed_total", {{"cpu", "3"}}), 0x51);
  const model::Family* f = snap.find("node_softnet_times_squeezed_total");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kCounter);
  EXPECT_EQ(f->help, "Number of times processing packets ran out of quota");
}

TEST(SoftnetCollector, CpuLabelIsTheLinePosition) {
  // As node_exporter 1.5: the kernel's cpu index column (13th) is not used.
  TempFixture t({});
  t.write("proc/net/softnet_stat",
          "00000010 00000001 00000002 0 0 0 0 0 0 0 0 0 00000000 0 0\n"
          "00000020 00000001 00000002 0 0 0 0 0 0 0 0 0 00000003 0 0\n");
  auto c = make_softnet(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_softnet_processed_total", {{"cpu", "1"}}), 32);
  EXPECT_EQ(series_count(snap, "node_softnet_processed_total"), 2u);
}

TEST(SoftnetCollector, MissingOrMalformedFileFails) {
  TempFixture t({});
  auto c = make_softnet(t.context());
  model::Snapshot snap;
  EXPECT_FALSE(collect_once(*c, snap));
  t.write("proc/net/softnet_stat", "0 0 0\n");
  auto c2 = make_softnet(t.context());
  Status s = collect_once(*c2, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("softnet_stat:1:"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace llmon::collector
