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

TEST(NfsdCollector, FixtureValues) {
  auto c = make_nfsd(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_nfsd_reply_cache_nocache_total", MetricType::kCounter,
                "Total number of NFSd Reply Cache non-idempotent operations (rename/delete/…).");
  expect_family(snap, "node_nfsd_server_threads", MetricType::kGauge,
                "Total number of NFSd kernel threads that are running.");
  expect_family(snap, "node_nfsd_read_ahead_cache_size_blocks", MetricType::kGauge,
                "How large the read ahead cache is in blocks.");
  expect_family(snap, "node_nfsd_file_handles_stale_total", MetricType::kCounter,
                "Total number of NFSd stale file handles");
  expect_family(snap, "node_nfsd_requests_total", MetricType::kCounter,
                "Total number NFSd Requests by method and protocol.");
  EXPECT_EQ(value_of(snap, "node_nfsd_reply_cache_misses_total", {}), 1144893);
  EXPECT_EQ(value_of(snap, "node_nfsd_disk_bytes_read_total", {}), 118723604480.0);
  EXPECT_EQ(value_of(snap, "node_nfsd_server_threads", {}), 8);
  EXPECT_EQ(value_of(snap, "node_nfsd_read_ahead_cache_size_blocks", {}), 32);
  EXPECT_EQ(value_of(snap, "node_nfsd_packets_total", {{"proto", "tcp"}}), 9137004);
  EXPECT_EQ(value_of(snap, "node_nfsd_connections_total", {}), 402);
  EXPECT_EQ(value_of(snap, "node_nfsd_rpc_errors_total", {{"error", "fmt"}}), 1);
  EXPECT_EQ(value_of(snap, "node_nfsd_rpc_errors_total", {{"error", "auth"}}), 2);
  EXPECT_EQ(value_of(snap, "node_nfsd_rpc_errors_total", {{"error", "cInt"}}), 0);
  EXPECT_EQ(value_of(snap, "node_nfsd_server_rpcs_total", {}), 9136961);
  // 17 + 21 procedures (no Null) and 33 NFSv4 operations.
  EXPECT_EQ(series_count(snap, "node_nfsd_requests_total"), 71u);
  EXPECT_EQ(value_of(snap, "node_nfsd_requests_total", {{"proto", "3"}, {"method", "Read"}}), 2114310);
  EXPECT_EQ(snap.find_series("node_nfsd_requests_total", {{"proto", "3"}, {"method", "Null"}}), nullptr);
  EXPECT_EQ(value_of(snap, "node_nfsd_requests_total", {{"proto", "4"}, {"method", "PutFH"}}), 4101337);
  // procfs 0.8 reads Write from operation 36 (SETCLIENTID_CONFIRM), as 1.5 reports it.
  EXPECT_EQ(value_of(snap, "node_nfsd_requests_total", {{"proto", "4"}, {"method", "Write"}}), 18);
}

TEST(NfsdCollector, MissingFileIsNoDataAndBadLineAnError) {
  TempFixture fx({});
  auto c = make_nfsd(fx.context());
  model::Snapshot snap;
  Status missing = collect_once(*c, snap);
  EXPECT_TRUE(missing.is_no_data()) << missing.message();

  fx.write("proc/net/rpc/nfsd", "rc 0 1 2\nth 8\n");
  auto c2 = make_nfsd(fx.context());
  Status s = collect_once(*c2, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_FALSE(s.is_no_data());
  EXPECT_EQ(s.message(), fx.path("proc/net/rpc/nfsd") + ":2: th: expected 2 values, got 1");
  EXPECT_EQ(snap.series_count(), 0u);
}

}  // namespace
}  // namespace llmon::collector
