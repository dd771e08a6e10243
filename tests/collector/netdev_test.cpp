#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "collector/builtin.h"
#include "collector/options.h"
#include "collector_test_util.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::series_count;
using testing::value_of;

TEST(NetdevCollector, FixtureValues) {
  auto c = make_netdev(fixture_context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap)) << collect_once(*c, snap).message();
  EXPECT_EQ(value_of(snap, "node_network_receive_bytes_total", {{"device", "eth0"}}), 68210035552.0);
  EXPECT_EQ(value_of(snap, "node_network_receive_packets_total", {{"device", "eth0"}}), 520993275.0);
  EXPECT_EQ(value_of(snap, "node_network_receive_drop_total", {{"device", "eth0"}}), 7);
  EXPECT_EQ(value_of(snap, "node_network_receive_fifo_total", {{"device", "eth0"}}), 1);
  EXPECT_EQ(value_of(snap, "node_network_receive_frame_total", {{"device", "eth0"}}), 2);
  EXPECT_EQ(value_of(snap, "node_network_receive_compressed_total", {{"device", "eth0"}}), 3);
  EXPECT_EQ(value_of(snap, "node_network_receive_multicast_total", {{"device", "eth0"}}), 38453);
  EXPECT_EQ(value_of(snap, "node_network_transmit_errs_total", {{"device", "eth0"}}), 4);
  EXPECT_EQ(value_of(snap, "node_network_transmit_drop_total", {{"device", "eth0"}}), 5);
  EXPECT_EQ(value_of(snap, "node_network_transmit_fifo_total", {{"device", "eth0"}}), 6);
  EXPECT_EQ(value_of(snap, "node_network_transmit_colls_total", {{"device", "eth0"}}), 7);
  EXPECT_EQ(value_of(snap, "node_network_transmit_carrier_total", {{"device", "eth0"}}), 8);
  EXPECT_EQ(value_of(snap, "node_network_transmit_compressed_total", {{"device", "eth0"}}), 9);
  EXPECT_EQ(value_of(snap, "node_network_receive_errs_total", {{"device", "ens3"}}), 1);
  EXPECT_EQ(value_of(snap, "node_network_receive_bytes_total", {{"device", "docker0"}}), 18446744073709551615.0);
  EXPECT_EQ(value_of(snap, "node_network_receive_bytes_total", {{"device", "lo"}}), 475593);
  EXPECT_EQ(series_count(snap, "node_network_transmit_bytes_total"), 5u);
  const model::Family* f = snap.find("node_network_receive_bytes_total");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kCounter);
  EXPECT_EQ(f->help, "Network device statistic receive_bytes.");
  ASSERT_EQ(f->label_names, std::vector<std::string>{"device"});
  // Series come sorted by device, like client_golang's output.
  std::vector<std::string> devices;
  for (const auto& s : f->series) devices.push_back(s.label_values[0]);
  EXPECT_EQ(devices, (std::vector<std::string>{"docker0", "ens3", "eth0", "eth1", "lo"}));
  // No nohandler: /proc/net/dev has no such column.
  EXPECT_EQ(snap.find("node_network_receive_nohandler_total"), nullptr);
}

TEST(NetdevCollector, ExcludeAndInclude) {
  auto ctx = fixture_context();
  ctx.set_option(flag::kCollectorNetdevDeviceExclude, "^(lo|docker.*)$");
  auto c = make_netdev(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_network_receive_bytes_total"), 3u);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_network_receive_bytes_total", {{"device", "lo"}})));
  ASSERT_TRUE(collect_once(*c, snap));  // cached decisions give the same answer
  EXPECT_EQ(series_count(snap, "node_network_receive_bytes_total"), 3u);

  ctx.set_option(flag::kCollectorNetdevDeviceExclude, "");
  ctx.set_option(flag::kCollectorNetdevDeviceInclude, "^eth");
  c = make_netdev(ctx);
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_network_receive_bytes_total"), 2u);
  EXPECT_FALSE(std::isnan(value_of(snap, "node_network_receive_bytes_total", {{"device", "eth1"}})));
}

TEST(NetdevCollector, BrokenAndMissingFilesFail) {
  auto dir = std::filesystem::temp_directory_path() / ("llmon_netdev_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "net");
  auto ctx = fixture_context();
  ctx.fs.proc_root = dir.string();
  auto c = make_netdev(ctx);
  model::Snapshot snap;
  EXPECT_FALSE(collect_once(*c, snap));  // missing
  std::ofstream(dir / "net" / "dev") << "h1\nh2\n  eth0: 1 2 3\n";
  Status s = collect_once(*c, snap);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("net/dev"), std::string::npos) << s.message();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace llmon::collector
