#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::expect_family;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(BondingCollector, FixtureValues) {
  auto c = make_bonding(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_bonding_slaves", model::MetricType::kGauge,
                "Number of configured slaves per bonding interface.");
  expect_family(snap, "node_bonding_active", model::MetricType::kGauge,
                "Number of active slaves per bonding interface.");
  EXPECT_EQ(value_of(snap, "node_bonding_slaves", {{"master", "bond0"}}), 2);
  EXPECT_EQ(value_of(snap, "node_bonding_active", {{"master", "bond0"}}), 1);  // eth1 down, ens3 up
}

TEST(BondingCollector, OlderKernelsSlavePrefixAndStatesReadEveryCycle) {
  TempFixture fx({});
  fx.write("sys/class/net/bonding_masters", "bond1\n");
  fx.write("sys/class/net/bond1/bonding/slaves", "eno1 eno2\n");
  fx.write("sys/class/net/bond1/slave_eno1/bonding_slave/mii_status", "up\n");
  fx.write("sys/class/net/bond1/lower_eno2/bonding_slave/mii_status", "up\n");
  auto c = make_bonding(fx.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_bonding_active", {{"master", "bond1"}}), 2);
  fx.write("sys/class/net/bond1/lower_eno2/bonding_slave/mii_status", "down\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_bonding_slaves", {{"master", "bond1"}}), 2);
  EXPECT_EQ(value_of(snap, "node_bonding_active", {{"master", "bond1"}}), 1);
}

TEST(BondingCollector, NoBondingOrAMissingSlaveIsNoData) {
  TempFixture fx({});
  auto c = make_bonding(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.is_no_data()) << s.message();
  fx.write("sys/class/net/bonding_masters", "bond0\n");
  fx.write("sys/class/net/bond0/bonding/slaves", "eth0\n");
  s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.is_no_data()) << s.message();
  EXPECT_NE(s.message().find("slave_eth0/bonding_slave/mii_status"), std::string::npos) << s.message();
  EXPECT_EQ(series_count(snap, "node_bonding_slaves"), 0u);
}

TEST(BondingCollector, NoMastersIsEmptySuccess) {
  TempFixture fx({});
  fx.write("sys/class/net/bonding_masters", "\n");  // module loaded, no bond configured
  auto c = make_bonding(fx.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(snap.series_count(), 0u);
}

}  // namespace
}  // namespace llmon::collector
