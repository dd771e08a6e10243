#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "collector/builtin.h"
#include "collector/netclass.h"
#include "collector/options.h"
#include "collector_test_util.h"
#include "procfs/net_class.h"
#include "temp_fixture.h"

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
  EXPECT_EQ(series_count(snap, "node_network_up"), 5u);
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
  EXPECT_EQ(value_of(snap, "node_network_speed_bytes", {{"device", "bond0"}}), 1250000000);   // 10000 Mb/s
  EXPECT_EQ(series_count(snap, "node_network_speed_bytes"), 3u);
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
  ctx.set_option(flag::kCollectorNetclassIgnoredDevices, "^lo$");
  ctx.set_option(flag::kCollectorNetclassIgnoreInvalidSpeed, "true");
  auto c = make_netclass(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_network_up"), 4u);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_up", {{"device", "lo"}})));
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_speed_bytes", {{"device", "ens3"}})));
  EXPECT_EQ(series_count(snap, "node_network_speed_bytes"), 2u);
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

size_t open_fds() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

// How many of the attribute files netclass reads exist under class/net/<iface>.
size_t attribute_files(const std::string& class_net, std::initializer_list<const char*> ifaces) {
  size_t n = 0;
  for (const char* i : ifaces)
    for (std::string_view f : procfs::net_class_attribute_files())
      n += std::filesystem::exists(class_net + "/" + i + "/" + std::string(f));
  return n;
}

// Every family and series of a snapshot, one line each (for comparing pages).
std::string dump(const model::Snapshot& snap) {
  std::ostringstream o;
  for (const auto& f : snap.families)
    for (const auto& s : f.series) {
      o << f.name;
      for (const auto& v : s.label_values) o << " " << v;
      o << " = " << s.value << "\n";
    }
  return o.str();
}

TEST(NetclassCollector, KeepsOneDescriptorPerAttributeAndRereadsIt) {
  testing::TempFixture tf({"sys/class/net"});
  auto ctx = tf.context();
  const size_t before = open_fds();
  auto c = make_netclass(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  const size_t kept = open_fds() - before;
  // One per readable attribute file, plus the class/net directory.
  EXPECT_EQ(kept, attribute_files(tf.path("sys/class/net"), {"bond0", "ens3", "eth0", "eth1", "lo"}) + 1);
  EXPECT_EQ(value_of(snap, "node_network_mtu_bytes", {{"device", "eth0"}}), 1500);

  tf.write("sys/class/net/eth0/mtu", "1400\n");  // in place, as sysfs regenerates it
  tf.write("sys/class/net/eth0/operstate", "down\n");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(open_fds() - before, kept);  // nothing opened again
  EXPECT_EQ(value_of(snap, "node_network_mtu_bytes", {{"device", "eth0"}}), 1400);
  EXPECT_EQ(value_of(snap, "node_network_up", {{"device", "eth0"}}), 0);
  c.reset();
  EXPECT_EQ(open_fds(), before);  // all closed with the collector
}

TEST(NetclassCollector, DescriptorBudgetFallsBackToOpenReadClose) {
  auto ctx = fixture_context();
  const size_t before = open_fds();
  auto small = make_netclass_with(ctx, 5);
  auto none = make_netclass_with(ctx, 0);
  auto full = make_netclass(ctx);
  const size_t full_fds = attribute_files(ctx.fs.sys("class/net"), {"bond0", "ens3", "eth0", "eth1", "lo"}) + 1;
  model::Snapshot a, b, c;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(collect_once(*small, a));
    ASSERT_TRUE(collect_once(*none, b));
    ASSERT_TRUE(collect_once(*full, c));
  }
  EXPECT_EQ(open_fds() - before, (5 + 1) + (0 + 1) + full_fds);
  EXPECT_EQ(dump(a), dump(c));
  EXPECT_EQ(dump(b), dump(c));
  EXPECT_GT(series_count(c, "node_network_mtu_bytes"), 0u);
  EXPECT_LE(default_netclass_fd_budget(), 4096u);
  EXPECT_GT(default_netclass_fd_budget(), 0u);
}

TEST(NetclassCollector, InterfacesComeAndGoBetweenCycles) {
  testing::TempFixture tf({"sys/class/net"});
  auto ctx = tf.context();
  const size_t before = open_fds();
  auto c = make_netclass(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_network_up"), 5u);
  const size_t eth1_files = attribute_files(tf.path("sys/class/net"), {"eth1"});

  // eth1 vanishes: no series, its descriptors are closed.
  const size_t with_eth1 = open_fds();
  tf.remove("sys/class/net/eth1");
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_network_up"), 4u);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_mtu_bytes", {{"device", "eth1"}})));
  EXPECT_EQ(with_eth1 - open_fds(), eth1_files);

  // eth2 appears.
  std::filesystem::copy(tf.path("sys/class/net/eth0"), tf.path("sys/class/net/eth2"),
                        std::filesystem::copy_options::recursive);
  tf.write("sys/class/net/eth2/mtu", "9001\n");
  tf.write("sys/class/net/eth2/ifindex", "7\n");
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_network_up"), 5u);
  EXPECT_EQ(value_of(snap, "node_network_mtu_bytes", {{"device", "eth2"}}), 9001);
  EXPECT_EQ(value_of(snap, "node_network_iface_id", {{"device", "eth2"}}), 7);
  EXPECT_EQ(value_of(snap, "node_network_mtu_bytes", {{"device", "eth0"}}), 1500);

  // eth1 comes back, re-created with other values.
  std::filesystem::copy(testing::fixture("sys/class/net/eth1"), tf.path("sys/class/net/eth1"),
                        std::filesystem::copy_options::recursive);
  tf.write("sys/class/net/eth1/mtu", "1280\n");
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_network_up"), 6u);
  EXPECT_EQ(value_of(snap, "node_network_mtu_bytes", {{"device", "eth1"}}), 1280);

  // eth0 is replaced by a new directory between two cycles (a new inode).
  std::filesystem::rename(tf.path("sys/class/net/eth0"), tf.path("sys/class/net/old-eth0"));
  std::filesystem::copy(tf.path("sys/class/net/old-eth0"), tf.path("sys/class/net/eth0"),
                        std::filesystem::copy_options::recursive);
  tf.remove("sys/class/net/old-eth0");
  tf.write("sys/class/net/eth0/mtu", "1000\n");
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_network_mtu_bytes", {{"device", "eth0"}}), 1000);
  EXPECT_EQ(series_count(snap, "node_network_up"), 6u);

  // Everything gone.
  tf.remove("sys/class/net");
  std::filesystem::create_directories(tf.path("sys/class/net"));
  c.reset();
  EXPECT_EQ(open_fds(), before);
}

TEST(NetclassCollector, RefusedAttributesAreRememberedAndRetriedOnLinkChange) {
  testing::TempFixture tf({"sys/class/net"});
  auto ctx = tf.context();
  base::ManualClock clock(1'000'000);
  ctx.clock = &clock;
  auto c = make_netclass(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  // The fixture's eth1 is down: no speed, duplex or carrier file.
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_speed_bytes", {{"device", "eth1"}})));

  // The files appear while the link state stays the same: not looked for again.
  tf.write("sys/class/net/eth1/speed", "100\n");
  tf.write("sys/class/net/eth1/carrier", "0\n");
  clock.advance_ms(1000);
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_speed_bytes", {{"device", "eth1"}})));
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_carrier", {{"device", "eth1"}})));

  // Admin up (flags): everything refused is tried again, carrier included.
  tf.write("sys/class/net/eth1/flags", "0x1003\n");
  clock.advance_ms(1000);
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_network_speed_bytes", {{"device", "eth1"}}), 12500000);
  EXPECT_EQ(value_of(snap, "node_network_carrier", {{"device", "eth1"}}), 0);

  // Still refused (no duplex file yet); it appears, the state does not change:
  // picked up by the periodic retry, after 60 s.
  tf.write("sys/class/net/eth1/duplex", "full\n");
  clock.advance_ms(1000);
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_network_info", {{"device", "eth1"}, {"duplex", ""}}), 1);
  clock.advance_ms(60'000);
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_network_info", {{"device", "eth1"}, {"duplex", "full"}}), 1);

  // operstate alone also triggers the retry (ens3 without dormant at first).
  tf.remove("sys/class/net/ens3/dormant");
  auto c2 = make_netclass(ctx);
  ASSERT_TRUE(collect_once(*c2, snap));
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_dormant", {{"device", "ens3"}})));
  tf.write("sys/class/net/ens3/dormant", "0\n");
  ASSERT_TRUE(collect_once(*c2, snap));
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_dormant", {{"device", "ens3"}})));
  tf.write("sys/class/net/ens3/operstate", "dormant\n");
  ASSERT_TRUE(collect_once(*c2, snap));
  EXPECT_EQ(value_of(snap, "node_network_dormant", {{"device", "ens3"}}), 0);
}

}  // namespace
}  // namespace llmon::collector
