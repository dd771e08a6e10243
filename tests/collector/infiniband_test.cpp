#include <gtest/gtest.h>

#include <cmath>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "no_data_check.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::expect_family;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(InfinibandCollector, FixtureValues) {
  auto c = make_infiniband(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_infiniband_info", model::MetricType::kGauge,
                "Non-numeric data from /sys/class/infiniband/<device>, value is always 1.");
  EXPECT_EQ(value_of(snap, "node_infiniband_info",
                     {{"board_id", "MT_0000000223"},
                      {"device", "mlx5_0"},
                      {"firmware_version", "20.31.1014"},
                      {"hca_type", "MT4123"}}),
            1);
  EXPECT_EQ(series_count(snap, "node_infiniband_info"), 2u);
  expect_family(snap, "node_infiniband_state_id", model::MetricType::kGauge,
                "State of the InfiniBand port (0: no change, 1: down, 2: init, 3: armed, 4: active, 5: act defer)");
  EXPECT_EQ(value_of(snap, "node_infiniband_state_id", {{"device", "mlx5_0"}, {"port", "1"}}), 4);
  EXPECT_EQ(value_of(snap, "node_infiniband_state_id", {{"device", "mlx5_0"}, {"port", "2"}}), 1);
  EXPECT_EQ(value_of(snap, "node_infiniband_physical_state_id", {{"device", "mlx5_0"}, {"port", "2"}}), 3);
  EXPECT_EQ(value_of(snap, "node_infiniband_rate_bytes_per_second", {{"device", "mlx5_0"}, {"port", "1"}}), 25e9);
  expect_family(snap, "node_infiniband_port_data_received_bytes_total", model::MetricType::kCounter,
                "Number of data octets received on all links");
  EXPECT_EQ(value_of(snap, "node_infiniband_port_data_received_bytes_total", {{"device", "mlx5_0"}, {"port", "1"}}),
            4.0 * 2903618253791);
  EXPECT_EQ(value_of(snap, "node_infiniband_port_transmit_wait_total", {{"device", "mlx5_0"}, {"port", "1"}}),
            18374522);
  // counters_ext (mlx4, pre-4.5 kernels): the legacy 64-bit families, data times 4.
  EXPECT_EQ(value_of(snap, "node_infiniband_legacy_data_received_bytes_total", {{"device", "mlx4_0"}, {"port", "1"}}),
            4.0 * 36420958283);
  EXPECT_EQ(series_count(snap, "node_infiniband_legacy_packets_received_total"), 1u);
  // mlx4 has no multicast_rcv_packets in counters/: no series, as procfs' nil pointer.
  EXPECT_EQ(series_count(snap, "node_infiniband_multicast_packets_received_total"), 2u);
  // hw_counters/ is not read by node_exporter 1.5.
  EXPECT_EQ(snap.find("node_infiniband_rp_cnp_handled_total"), nullptr);
}

TEST(InfinibandCollector, NoInfinibandClassIsNoData) {
  testing::expect_no_data_without_files(make_infiniband);
}

TEST(InfinibandCollector, MissingAttributeIsNoDataAsNodeExporter) {
  TempFixture fx({"sys/class/infiniband"});  // copied through the symlinks
  fx.remove("sys/class/infiniband/mlx4_0/board_id");
  auto c = make_infiniband(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.is_no_data()) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

TEST(InfinibandCollector, BadCounterFailsNamingTheFileAndNoPmaIsSkipped) {
  TempFixture fx({"sys/class/infiniband"});  // copied through the symlinks
  const std::string port = "sys/class/infiniband/mlx4_0/ports/1/";
  fx.write(port + "counters/symbol_error", "N/A (no PMA)\n");
  fx.write(port + "counters/link_downed", "0x10\n");
  auto c = make_infiniband(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(value_of(snap, "node_infiniband_link_downed_total", {{"device", "mlx4_0"}, {"port", "1"}}), 16);
  EXPECT_EQ(series_count(snap, "node_infiniband_symbol_error_total"), 2u);  // mlx5_0's two ports only

  fx.write(port + "counters/link_downed", "bogus\n");
  s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_FALSE(s.is_no_data());
  EXPECT_NE(s.message().find("counters/link_downed"), std::string::npos) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

TEST(InfinibandCollector, CountersAreReadEveryCycleAndVanishedPortsGo) {
  TempFixture fx({"sys/class/infiniband"});  // copied through the symlinks
  auto c = make_infiniband(fx.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  fx.write("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", "18400000\n");  // in place
  fx.write("sys/class/infiniband/mlx5_0/ports/1/state", "1: DOWN\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_infiniband_port_transmit_wait_total", {{"device", "mlx5_0"}, {"port", "1"}}),
            18400000);
  EXPECT_EQ(value_of(snap, "node_infiniband_state_id", {{"device", "mlx5_0"}, {"port", "1"}}), 1);
  fx.remove("sys/class/infiniband/mlx5_0/ports/2");
  ASSERT_TRUE(collect_once(*c, snap, 3000));
  EXPECT_EQ(series_count(snap, "node_infiniband_state_id"), 2u);  // mlx4_0/1 and mlx5_0/1
  EXPECT_TRUE(std::isnan(value_of(snap, "node_infiniband_state_id", {{"device", "mlx5_0"}, {"port", "2"}})));
}

TEST(InfinibandCollector, BadStateFails) {
  TempFixture fx({"sys/class/infiniband"});  // copied through the symlinks
  fx.write("sys/class/infiniband/mlx5_0/ports/2/state", "DOWN\n");
  auto c = make_infiniband(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("ports/2/state"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace llmon::collector
