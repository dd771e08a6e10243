#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "collector/builtin.h"
#include "collector_test_util.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::series_count;
using testing::value_of;

TEST(NetclassCollector, FixtureValues) {
  auto c = make_netclass(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  // Interfaces are the non-regular entries of class/net: bonding_masters is not one.
  EXPECT_EQ(series_count(snap, "node_network_up"), 4u);
  EXPECT_EQ(value_of(snap, "node_network_up", {{"device", "eth0"}}), 1);
  EXPECT_EQ(value_of(snap, "node_network_up", {{"device", "eth1"}}), 0);
  EXPECT_EQ(value_of(snap, "node_network_up", {{"device", "lo"}}), 0);  // operstate "unknown"
  EXPECT_EQ(value_of(snap, "node_network_info",
                     {{"device", "eth0"},
                      {"address", "52:54:00:12:34:56"},
                      {"broadcast", "ff:ff:ff:ff:ff:ff"},
                      {"duplex", "full"},
                      {"ifalias", "uplink to core-sw1"},
                      {"operstate", "up"}}),
            1);
  EXPECT_EQ(value_of(snap, "node_network_info", {{"device", "eth1"}, {"duplex", ""}, {"operstate", "down"}}), 1);
  const model::Family* info = snap.find("node_network_info");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->label_names,
            (std::vector<std::string>{"address", "broadcast", "device", "duplex", "ifalias", "operstate"}));

  EXPECT_EQ(value_of(snap, "node_network_speed_bytes", {{"device", "eth0"}}), 125000000);
  EXPECT_EQ(value_of(snap, "node_network_speed_bytes", {{"device", "ens3"}}), -125000);  // speed -1
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_speed_bytes", {{"device", "eth1"}})));  // no speed file
  EXPECT_EQ(series_count(snap, "node_network_speed_bytes"), 2u);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_carrier", {{"device", "eth1"}})));  // unreadable when down
  EXPECT_EQ(value_of(snap, "node_network_carrier", {{"device", "eth0"}}), 1);
  EXPECT_EQ(value_of(snap, "node_network_mtu_bytes", {{"device", "eth1"}}), 9000);
  EXPECT_EQ(value_of(snap, "node_network_flags", {{"device", "eth0"}}), 4099);  // 0x1003
  EXPECT_EQ(value_of(snap, "node_network_device_id", {{"device", "eth0"}}), 32);  // 0x20
  EXPECT_EQ(value_of(snap, "node_network_iface_id", {{"device", "eth0"}}), 2);
  EXPECT_EQ(value_of(snap, "node_network_iface_link", {{"device", "eth0"}}), 2);
  EXPECT_EQ(value_of(snap, "node_network_iface_link_mode", {{"device", "eth0"}}), 0);
  EXPECT_EQ(value_of(snap, "node_network_protocol_type", {{"device", "lo"}}), 772);
  EXPECT_EQ(value_of(snap, "node_network_transmit_queue_length", {{"device", "lo"}}), 1000);
  EXPECT_EQ(value_of(snap, "node_network_carrier_changes_total", {{"device", "eth0"}}), 3);
  EXPECT_EQ(value_of(snap, "node_network_carrier_up_changes_total", {{"device", "eth0"}}), 2);
  EXPECT_EQ(value_of(snap, "node_network_carrier_down_changes_total", {{"device", "eth0"}}), 1);
  EXPECT_EQ(value_of(snap, "node_network_name_assign_type", {{"device", "eth0"}}), 4);
  EXPECT_EQ(value_of(snap, "node_network_net_dev_group", {{"device", "eth0"}}), 0);
  EXPECT_EQ(value_of(snap, "node_network_address_assign_type", {{"device", "eth0"}}), 0);
  EXPECT_EQ(value_of(snap, "node_network_dormant", {{"device", "eth0"}}), 0);
  EXPECT_EQ(snap.find("node_network_carrier_changes_total")->type, model::MetricType::kCounter);
  EXPECT_EQ(snap.find("node_network_mtu_bytes")->help, "Network device property: mtu_bytes");

  // A second cycle recycles the interface records and gives the same page.
  model::Snapshot again;
  ASSERT_TRUE(collect_once(*c, again));
  EXPECT_EQ(again.series_count(), snap.series_count());
  EXPECT_EQ(value_of(again, "node_network_speed_bytes", {{"device", "eth0"}}), 125000000);
}

TEST(NetclassCollector, IgnoredDevicesAndInvalidSpeed) {
  auto ctx = fixture_context();
  ctx.options["collector.netclass.ignored-devices"] = "^lo$";
  ctx.options["collector.netclass.ignore-invalid-speed"] = "true";
  auto c = make_netclass(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_network_up"), 3u);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_up", {{"device", "lo"}})));
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_speed_bytes", {{"device", "ens3"}})));
  EXPECT_EQ(series_count(snap, "node_network_speed_bytes"), 1u);
}

TEST(NetclassCollector, InvalidContentAndMissingDirectory) {
  auto dir = std::filesystem::temp_directory_path() / ("llmon_netclass_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto ctx = fixture_context();
  ctx.fs.sys_root = dir.string();
  auto c = make_netclass(ctx);
  model::Snapshot snap;
  EXPECT_FALSE(collect_once(*c, snap));  // no class/net at all

  std::filesystem::create_directories(dir / "class/net/x0");
  std::ofstream(dir / "class/net/x0/speed") << "abc\n";
  std::ofstream(dir / "class/net/x0/mtu") << std::string("\x01\xfe\x00", 3);
  std::ofstream(dir / "class/net/x0/operstate") << "up\n";
  std::ofstream(dir / "class/net/x0/ifalias") << std::string(300, 'a');
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  // Unparsable integers read as 0, like node_exporter 1.5.
  EXPECT_EQ(value_of(snap, "node_network_speed_bytes", {{"device", "x0"}}), 0);
  EXPECT_EQ(value_of(snap, "node_network_mtu_bytes", {{"device", "x0"}}), 0);
  EXPECT_EQ(value_of(snap, "node_network_up", {{"device", "x0"}}), 1);
  // Attributes are read up to 128 bytes, as procfs' SysReadFile does.
  EXPECT_EQ(value_of(snap, "node_network_info", {{"device", "x0"}, {"ifalias", std::string(128, 'a')}}), 1);
  EXPECT_EQ(series_count(snap, "node_network_carrier"), 0u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace llmon::collector
