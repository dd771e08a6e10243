// selinux on temporary trees (the repository's fixture tree has no selinuxfs:
// node_exporter reads the host's real /sys for it, so the differential test
// cannot cover an enabled host).
#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::expect_family;
using testing::TempFixture;
using testing::value_of;

TEST(SelinuxCollector, DisabledHostHasOnlyEnabledZero) {
  TempFixture fx({});
  auto c = make_selinux(fx.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_selinux_enabled", {}), 0);
  expect_family(snap, "node_selinux_enabled", model::MetricType::kGauge, "SELinux is enabled, 1 is true, 0 is false");
  EXPECT_EQ(snap.series_count(), 1u);
}

TEST(SelinuxCollector, EnforcingHostInPermissiveMode) {
  TempFixture fx({});
  fx.write("sys/fs/selinux/enforce", "0");
  fx.write("rootfs/etc/selinux/config", "# comment\nSELINUX=enforcing\nSELINUXTYPE=targeted\n");
  auto ctx = fx.context();
  ctx.fs.root = fx.path("rootfs");  // --path.rootfs
  auto c = make_selinux(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_selinux_enabled", {}), 1);
  EXPECT_EQ(value_of(snap, "node_selinux_config_mode", {}), 1);
  EXPECT_EQ(value_of(snap, "node_selinux_current_mode", {}), 0);
  expect_family(snap, "node_selinux_config_mode", model::MetricType::kGauge, "Configured SELinux enforcement mode");
  expect_family(snap, "node_selinux_current_mode", model::MetricType::kGauge, "Current SELinux enforcement mode");
  // setenforce 1, and the config file removed: read again each cycle.
  fx.write("sys/fs/selinux/enforce", "1");
  fx.remove("rootfs/etc/selinux/config");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_selinux_current_mode", {}), 1);
  EXPECT_EQ(value_of(snap, "node_selinux_config_mode", {}), -1);
}

}  // namespace
}  // namespace llmon::collector
