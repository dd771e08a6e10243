#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector/options.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using model::MetricType;
using testing::collect_once;
using testing::expect_family;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(IpvsCollector, FixtureValues) {
  auto c = make_ipvs(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_ipvs_connections_total", MetricType::kCounter, "The total number of connections made.");
  expect_family(snap, "node_ipvs_incoming_bytes_total", MetricType::kCounter, "The total amount of incoming data.");
  expect_family(snap, "node_ipvs_backend_weight", MetricType::kGauge,
                "The current backend weight by local and remote address.");
  expect_family(snap, "node_ipvs_backend_connections_active", MetricType::kGauge,
                "The current active connections by local and remote address.");
  EXPECT_EQ(value_of(snap, "node_ipvs_connections_total", {}), 0x2A1F3C0);
  EXPECT_EQ(value_of(snap, "node_ipvs_incoming_bytes_total", {}), 0x4B3C71D09F2E);
  EXPECT_EQ(series_count(snap, "node_ipvs_backend_connections_inactive"), 11u);
  EXPECT_EQ(value_of(snap, "node_ipvs_backend_connections_inactive",
                     {{"local_address", "10.42.0.100"},
                      {"local_port", "80"},
                      {"remote_address", "10.42.16.23"},
                      {"remote_port", "8080"},
                      {"proto", "TCP"},
                      {"local_mark", ""}}),
            1904);
  EXPECT_EQ(value_of(snap, "node_ipvs_backend_weight",
                     {{"local_address", ""},
                      {"local_port", "0"},
                      {"remote_address", "10.42.16.49"},
                      {"remote_port", "0"},
                      {"proto", "FWM"},
                      {"local_mark", "00000010"}}),
            10);
}

TEST(IpvsCollector, FewerLabelsSumTheBackends) {
  auto ctx = fixture_context();
  ctx.set_option(flag::kCollectorIpvsBackendLabels, "proto,,local_port");
  auto c = make_ipvs(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_ipvs_backend_connections_active"), 4u);
  EXPECT_EQ(snap.find("node_ipvs_backend_weight")->label_names, (std::vector<std::string>{"local_port", "proto"}));
  // 443/TCP: three IPv4 and two IPv6 real servers.
  EXPECT_EQ(value_of(snap, "node_ipvs_backend_connections_active", {{"local_port", "443"}, {"proto", "TCP"}}),
            1842 + 1795 + 12 + 96 + 101);
}

TEST(IpvsCollector, UnknownLabelsMissingModuleAndBadFile) {
  auto ctx = fixture_context();
  ctx.set_option(flag::kCollectorIpvsBackendLabels, "proto,zone,pod");
  model::Snapshot snap;
  Status bad = collect_once(*make_ipvs(ctx), snap);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message(), "unknown IPVS backend labels: \"pod, zone\"");

  TempFixture fx({});
  auto c = make_ipvs(fx.context());
  Status missing = collect_once(*c, snap);
  EXPECT_TRUE(missing.is_no_data()) << missing.message();

  fx.write("proc/net/ip_vs_stats", "h\nh\n 1 2 3 4 5\n");
  fx.write("proc/net/ip_vs", "TCP  0A2A0064:01BB wlc\n  -> 0A2A1017 Route 1 1 1\n");
  Status s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), fx.path("proc/net/ip_vs") + ":2: unexpected IP:Port \"0A2A1017\"");
}

}  // namespace
}  // namespace llmon::collector
