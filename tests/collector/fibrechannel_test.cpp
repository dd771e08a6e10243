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

TEST(FibrechannelCollector, FixtureValues) {
  auto c = make_fibrechannel(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_fibrechannel_info", model::MetricType::kGauge,
                "Non-numeric data from /sys/class/fc_host/<host>, value is always 1.");
  EXPECT_NE(snap.find_series("node_fibrechannel_info", {{"dev_loss_tmo", "30"},
                                                        {"fabric_name", "100000051e0a3b2c"},
                                                        {"fc_host", "host1"},
                                                        {"port_id", "010a00"},
                                                        {"port_name", "21000024ff7ab4c2"},
                                                        {"port_state", "Online"},
                                                        {"port_type", "NPort (fabric via point-to-point)"},
                                                        {"speed", "16 Gbit"},
                                                        {"supported_classes", "Class 3"},
                                                        {"supported_speeds", "4 Gbit, 8 Gbit, 16 Gbit"},
                                                        {"symbolic_name", "QLE2692 FW:v9.06.02 DVR:v10.02.08.200-k"}}),
            nullptr);
  expect_family(snap, "node_fibrechannel_rx_words_total", model::MetricType::kCounter,
                "Number of words received by host port");
  EXPECT_EQ(value_of(snap, "node_fibrechannel_rx_words_total", {{"fc_host", "host1"}}), 0x1b79c2a640);
  EXPECT_EQ(value_of(snap, "node_fibrechannel_fcp_packet_aborts_total", {{"fc_host", "host1"}}), 17);
  // qla2xxx reports all ones for counters it does not keep: left out.
  EXPECT_EQ(series_count(snap, "node_fibrechannel_dumped_frames_total"), 0u);
  EXPECT_EQ(series_count(snap, "node_fibrechannel_nos_total"), 0u);
}

TEST(FibrechannelCollector, NoClassOrNoStatisticsIsNoData) {
  TempFixture fx({});
  auto c = make_fibrechannel(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.is_no_data()) << s.message();
  for (const char* f : {"speed", "port_state", "port_type", "node_name", "port_id", "port_name", "fabric_name",
                        "dev_loss_tmo", "symbolic_name", "supported_classes", "supported_speeds"})
    fx.write(std::string("sys/class/fc_host/host0/") + f, "x\n");
  s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.is_no_data()) << s.message();
  fx.write("sys/class/fc_host/host0/statistics/tx_frames", "0x5\n");
  ASSERT_TRUE(collect_once(*c, snap, 3000));
  EXPECT_EQ(value_of(snap, "node_fibrechannel_tx_frames_total", {{"fc_host", "host0"}}), 5);
  // An absent counter file reads as 0, as procfs' zero value.
  EXPECT_EQ(value_of(snap, "node_fibrechannel_rx_frames_total", {{"fc_host", "host0"}}), 0);
}

TEST(FibrechannelCollector, MissingAttributeOrBadCounterFails) {
  TempFixture fx({"sys/class/fc_host"});  // copied through the symlink
  fx.remove("sys/class/fc_host/host1/speed");
  auto c = make_fibrechannel(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_FALSE(s.is_no_data());
  EXPECT_NE(s.message().find("host1/speed"), std::string::npos) << s.message();
  fx.write("sys/class/fc_host/host1/speed", "16 Gbit\n");
  fx.write("sys/class/fc_host/host1/statistics/rx_frames", "bogus\n");
  s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("statistics/rx_frames"), std::string::npos) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

}  // namespace
}  // namespace llmon::collector
