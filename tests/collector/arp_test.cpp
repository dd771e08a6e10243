#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector/options.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(ArpCollector, FixtureValues) {
  auto c = make_arp(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(series_count(snap, "node_arp_entries"), 3u);
  EXPECT_EQ(value_of(snap, "node_arp_entries", {{"device", "eth0"}}), 3);
  EXPECT_EQ(value_of(snap, "node_arp_entries", {{"device", "ens3"}}), 1);
  EXPECT_EQ(value_of(snap, "node_arp_entries", {{"device", "docker0"}}), 2);
  const model::Family* f = snap.find("node_arp_entries");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kGauge);
  EXPECT_EQ(f->help, "ARP entries by device");
}

TEST(ArpCollector, DeviceFilters) {
  auto ctx = fixture_context();
  ctx.set_option(flag::kCollectorArpDeviceExclude, "^docker");
  auto c = make_arp(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_arp_entries"), 2u);
  auto ctx2 = fixture_context();
  ctx2.set_option(flag::kCollectorArpDeviceInclude, "^eth");
  auto c2 = make_arp(ctx2);
  ASSERT_TRUE(collect_once(*c2, snap));
  EXPECT_EQ(series_count(snap, "node_arp_entries"), 1u);
  EXPECT_EQ(value_of(snap, "node_arp_entries", {{"device", "eth0"}}), 3);
}

TEST(ArpCollector, MissingOrMalformedFileFails) {
  TempFixture t({});
  auto c = make_arp(t.context());
  model::Snapshot snap;
  EXPECT_FALSE(collect_once(*c, snap));
  t.write("proc/net/arp", "IP address HW type Flags HW address Mask Device\n\n");
  auto c2 = make_arp(t.context());
  Status s = collect_once(*c2, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("arp:2: unexpected ARP table format"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace llmon::collector
