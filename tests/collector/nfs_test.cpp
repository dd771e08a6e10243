#include <gtest/gtest.h>

#include "collector/builtin.h"
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

TEST(NfsCollector, FixtureValues) {
  auto c = make_nfs(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_nfs_packets_total", MetricType::kCounter,
                "Total NFSd network packets (sent+received) by protocol type.");
  expect_family(snap, "node_nfs_connections_total", MetricType::kCounter, "Total number of NFSd TCP connections.");
  expect_family(snap, "node_nfs_rpcs_total", MetricType::kCounter, "Total number of RPCs performed.");
  expect_family(snap, "node_nfs_rpc_retransmissions_total", MetricType::kCounter,
                "Number of RPC transmissions performed.");
  expect_family(snap, "node_nfs_rpc_authentication_refreshes_total", MetricType::kCounter,
                "Number of RPC authentication refreshes performed.");
  expect_family(snap, "node_nfs_requests_total", MetricType::kCounter, "Number of NFS procedures invoked.");
  EXPECT_EQ(value_of(snap, "node_nfs_packets_total", {{"protocol", "tcp"}}), 0);
  EXPECT_EQ(value_of(snap, "node_nfs_rpcs_total", {}), 3212879);
  EXPECT_EQ(value_of(snap, "node_nfs_rpc_retransmissions_total", {}), 44);
  EXPECT_EQ(value_of(snap, "node_nfs_rpc_authentication_refreshes_total", {}), 3212933);
  // 18 + 22 + 59 procedures; the fixture has no proc2 line (zeros).
  EXPECT_EQ(series_count(snap, "node_nfs_requests_total"), 99u);
  EXPECT_EQ(value_of(snap, "node_nfs_requests_total", {{"proto", "2"}, {"method", "Null"}}), 0);
  EXPECT_EQ(value_of(snap, "node_nfs_requests_total", {{"proto", "3"}, {"method", "Read"}}), 602311);
  EXPECT_EQ(value_of(snap, "node_nfs_requests_total", {{"proto", "3"}, {"method", "Commit"}}), 18311);
  EXPECT_EQ(value_of(snap, "node_nfs_requests_total", {{"proto", "4"}, {"method", "Getattr"}}), 410982);
  EXPECT_EQ(value_of(snap, "node_nfs_requests_total", {{"proto", "4"}, {"method", "Sequence"}}), 96204);
  EXPECT_EQ(value_of(snap, "node_nfs_requests_total", {{"proto", "4"}, {"method", "Clone"}}), 0);
}

TEST(NfsCollector, MissingFileIsNoDataAndBadLineAnError) {
  TempFixture fx({});
  auto c = make_nfs(fx.context());
  model::Snapshot snap;
  Status missing = collect_once(*c, snap);
  EXPECT_TRUE(missing.is_no_data()) << missing.message();
  EXPECT_EQ(snap.series_count(), 0u);

  fx.write("proc/net/rpc/nfs", "net 0 0 0 0\nrpc 1 2\n");
  auto c2 = make_nfs(fx.context());
  Status s = collect_once(*c2, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_FALSE(s.is_no_data());
  EXPECT_EQ(s.message(), fx.path("proc/net/rpc/nfs") + ":2: rpc: expected 3 values, got 2");
  EXPECT_EQ(snap.series_count(), 0u);
}

}  // namespace
}  // namespace llmon::collector
