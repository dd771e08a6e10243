#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using model::MetricType;
using testing::collect_once;
using testing::expect_family;
using testing::families_with_prefix;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

constexpr std::string_view kScratch = "filer01.example.com:/vol/scratch";
constexpr std::string_view kHome = "nfs.example.com:/export/home";

// Values as node_exporter 1.5 reports them on the fixture tree (proc/self ->
// 2210: an NFSv3 mount over tcp, mounted twice, and an NFSv4.2 one).
TEST(MountstatsCollector, FixtureValues) {
  auto c = make_mountstats(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(families_with_prefix(snap, "node_mountstats_nfs_"), 53u);
  expect_family(snap, "node_mountstats_nfs_age_seconds_total", MetricType::kCounter,
                "The age of the NFS mount in seconds.");
  expect_family(snap, "node_mountstats_nfs_transport_idle_time_seconds", MetricType::kGauge,
                "Duration since the NFS mount last saw any RPC traffic, in seconds.");
  expect_family(snap, "node_mountstats_nfs_transport_maximum_rpc_slots", MetricType::kGauge,
                "Maximum number of simultaneously active RPC requests ever used.");
  expect_family(snap, "node_mountstats_nfs_operations_queue_time_seconds_total", MetricType::kCounter,
                "Duration all requests spent queued for transmission for a given operation before they were sent, "
                "in seconds.");
  expect_family(snap, "node_mountstats_nfs_event_vfs_setattr_total", MetricType::kCounter,
                "Number of times directory entries have been read with getdents().");  // 1.5's help, as it is
  // /mnt/scratch is a second mount of /scratch's export: skipped, as 1.5 does.
  EXPECT_EQ(series_count(snap, "node_mountstats_nfs_age_seconds_total"), 2u);
  const std::initializer_list<std::pair<std::string_view, std::string_view>> scratch = {
      {"export", kScratch}, {"protocol", "tcp"}, {"mountaddr", "10.20.0.15"}};
  const std::initializer_list<std::pair<std::string_view, std::string_view>> home = {
      {"export", kHome}, {"protocol", "tcp"}, {"mountaddr", "10.20.0.10"}};
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_age_seconds_total", scratch), 1209600);
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_age_seconds_total", home), 2592314);
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_read_bytes_total", scratch), 1043928117);
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_direct_write_bytes_total", scratch), 16777216);
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_total_read_bytes_total", home), 48219431936.0);
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_transport_bind_total", scratch), 1);
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_transport_pending_queue_total", scratch), 3912345);
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_transport_maximum_rpc_slots", home), 128);
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_event_pnfs_read_total", home), 0);
  EXPECT_EQ(series_count(snap, "node_mountstats_nfs_operations_requests_total"), 22u + 69u);  // NFSv3 + NFSv4.2 ops
  EXPECT_EQ(
      value_of(snap, "node_mountstats_nfs_operations_requests_total", {{"export", kScratch}, {"operation", "GETATTR"}}),
      510148);
  EXPECT_DOUBLE_EQ(value_of(snap, "node_mountstats_nfs_operations_queue_time_seconds_total",
                            {{"export", kScratch}, {"operation", "GETATTR"}}),
                   16.708);
  EXPECT_EQ(snap.find("node_mountstats_nfs_operations_errors_total"), nullptr);  // not in 1.5
}

constexpr char kV3[] =
    "device a:/x mounted on /x with fstype nfs statvers=1.1\n"
    "\tage:\t60\n"
    "\txprt:\tudp 832 1 2 3 4 5 6 7 8 9\n"
    "\tper-op statistics\n"
    "\t        READ: 3 3 0 300 400 9007199254740993 5000 6000\n"
    "\n";

TEST(MountstatsCollector, MountaddrAndDuplicates) {
  TempFixture fx({});
  fx.write("proc/self/mountstats",
           std::string("device sysfs mounted on /sys with fstype sysfs\n") + kV3 +
               "device a:/x mounted on /y with fstype nfs statvers=1.1\n"  // same export, no mountinfo entry
               "\txprt:\tudp 832 1 2 3 4 5 6 7 8 9\n\tper-op statistics\n\n" +
               kV3);
  fx.write("proc/self/mountinfo",
           "22 28 0:21 / /sys rw - sysfs sysfs rw\n"
           "94 28 0:47 / /x rw - nfs a:/x rw,vers=3,proto=udp,addr=10.0.0.1\n");
  auto c = make_mountstats(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  // /x (addr from mountinfo's second line), /y (no third mountinfo line: ""); the third, again a:/x with no
  // mountinfo line, duplicates /y's export, protocol and address and is skipped.
  EXPECT_EQ(series_count(snap, "node_mountstats_nfs_age_seconds_total"), 2u);
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_age_seconds_total",
                     {{"export", "a:/x"}, {"protocol", "udp"}, {"mountaddr", "10.0.0.1"}}),
            60);
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_age_seconds_total",
                     {{"export", "a:/x"}, {"protocol", "udp"}, {"mountaddr", ""}}),
            0);
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_transport_sends_total", {{"mountaddr", "10.0.0.1"}}), 2);
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_transport_connect_total", {{"mountaddr", "10.0.0.1"}}), 0);  // udp
  EXPECT_EQ(value_of(snap, "node_mountstats_nfs_transport_maximum_rpc_slots", {{"mountaddr", "10.0.0.1"}}), 7);
  // Milliseconds as seconds, modulo 2^53 first as 1.5 does.
  EXPECT_DOUBLE_EQ(value_of(snap, "node_mountstats_nfs_operations_queue_time_seconds_total",
                            {{"mountaddr", "10.0.0.1"}, {"operation", "READ"}}),
                   0.001);
  EXPECT_DOUBLE_EQ(value_of(snap, "node_mountstats_nfs_operations_response_time_seconds_total",
                            {{"mountaddr", "10.0.0.1"}, {"operation", "READ"}}),
                   5);
}

TEST(MountstatsCollector, NoNfsMountsIsSuccessWithoutSeries) {
  TempFixture fx({});
  fx.write("proc/self/mountstats", "device sysfs mounted on /sys with fstype sysfs\n");
  fx.write("proc/self/mountinfo", "22 28 0:21 / /sys rw - sysfs sysfs rw\n");
  auto c = make_mountstats(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  EXPECT_TRUE(s) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
  // Read every cycle: an NFS mount appears.
  fx.write("proc/self/mountstats", kV3);
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(series_count(snap, "node_mountstats_nfs_age_seconds_total"), 1u);
}

TEST(MountstatsCollector, MissingOrMalformedFilesFailNamingThem) {
  TempFixture fx({});
  auto c = make_mountstats(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_FALSE(s.is_no_data());
  EXPECT_NE(s.message().find("failed to parse mountstats"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(fx.path("proc/self/mountstats")), std::string::npos) << s.message();

  fx.write("proc/self/mountstats", std::string(kV3) +
                                       "device a:/x mounted on /z with fstype nfs statvers=1.1\n"
                                       "\tbytes:\t1 2\n");
  fx.write("proc/self/mountinfo", "22 28 0:21 / /sys rw - sysfs sysfs rw\n");
  s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(fx.path("proc/self/mountstats") + ":8: "), std::string::npos) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);

  fx.write("proc/self/mountstats", kV3);
  fx.write("proc/self/mountinfo", "22 28 0:21 / /sys rw - sysfs sysfs rw\ngarbage\n");
  s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("failed to parse mountinfo"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(fx.path("proc/self/mountinfo") + ":2: "), std::string::npos) << s.message();
}

}  // namespace
}  // namespace llmon::collector
