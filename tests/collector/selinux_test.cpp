#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using model::MetricType;
using testing::collect_once;
using testing::expect_family;
using testing::TempFixture;
using testing::value_of;

TEST(SelinuxCollector, AbsentIsEnabledZeroOnly) {
  // As node_exporter 1.5 on a host without selinuxfs: success, one series.
  TempFixture fx({});
  auto c = make_selinux(fx.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  expect_family(snap, "node_selinux_enabled", MetricType::kGauge, "SELinux is enabled, 1 is true, 0 is false");
  EXPECT_EQ(value_of(snap, "node_selinux_enabled", {}), 0);
  EXPECT_EQ(snap.series_count(), 1u);
}

TEST(SelinuxCollector, EnforcingHost) {
  TempFixture fx({});
  fx.write("sys/fs/selinux/enforce", "0");
  fx.write("proc/thread-self/attr/current", std::string("system_u:system_r:unconfined_service_t:s0\0", 42));
  auto ctx = fx.context();
  ctx.fs.root = fx.path("rootfs");
  fx.write("rootfs/etc/selinux/config", "SELINUX=enforcing\nSELINUXTYPE=targeted\n");
  auto c = make_selinux(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_selinux_enabled", {}), 1);
  expect_family(snap, "node_selinux_config_mode", MetricType::kGauge, "Configured SELinux enforcement mode");
  expect_family(snap, "node_selinux_current_mode", MetricType::kGauge, "Current SELinux enforcement mode");
  EXPECT_EQ(value_of(snap, "node_selinux_config_mode", {}), 1);
  EXPECT_EQ(value_of(snap, "node_selinux_current_mode", {}), 0);  // setenforce 0

  fx.write("proc/thread-self/attr/current", std::string("kernel\0", 7));
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_selinux_enabled", {}), 0);
  EXPECT_EQ(snap.series_count(), 1u);
}

}  // namespace
}  // namespace llmon::collector
