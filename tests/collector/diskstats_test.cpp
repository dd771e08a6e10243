#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "collector/builtin.h"
#include "collector/options.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::series_count;
using testing::value_of;

TEST(DiskstatsCollector, FixtureValues) {
  auto c = make_diskstats(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  // Partitions and loop devices are excluded by default.
  EXPECT_EQ(series_count(snap, "node_disk_reads_completed_total"), 6u);
  // node_exporter 1.5's default exclude has "ram", not "z?ram": zram devices are kept.
  EXPECT_EQ(value_of(snap, "node_disk_written_bytes_total", {{"device", "zram0"}}), 8192.0 * 512);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_disk_reads_completed_total", {{"device", "sda1"}})));
  EXPECT_TRUE(std::isnan(value_of(snap, "node_disk_reads_completed_total", {{"device", "loop0"}})));
  EXPECT_TRUE(std::isnan(value_of(snap, "node_disk_reads_completed_total", {{"device", "nvme0n1p1"}})));

  EXPECT_EQ(value_of(snap, "node_disk_reads_completed_total", {{"device", "sda"}}), 25354637);
  EXPECT_EQ(value_of(snap, "node_disk_reads_merged_total", {{"device", "sda"}}), 34367663);
  EXPECT_EQ(value_of(snap, "node_disk_read_bytes_total", {{"device", "sda"}}), 1003346126.0 * 512);
  EXPECT_EQ(value_of(snap, "node_disk_written_bytes_total", {{"device", "sda"}}), 505697032.0 * 512);
  // Milliseconds times 0.001, exactly as node_exporter computes (not /1000).
  EXPECT_EQ(value_of(snap, "node_disk_read_time_seconds_total", {{"device", "nvme0n1"}}), 21650 * 0.001);
  EXPECT_EQ(value_of(snap, "node_disk_io_time_seconds_total", {{"device", "sda"}}), 9653880 * 0.001);
  EXPECT_EQ(value_of(snap, "node_disk_io_time_weighted_seconds_total", {{"device", "sda"}}), 82621804 * 0.001);
  EXPECT_EQ(value_of(snap, "node_disk_write_time_seconds_total", {{"device", "sda"}}), 63877960 * 0.001);
  EXPECT_EQ(value_of(snap, "node_disk_io_now", {{"device", "sda"}}), 0);
  EXPECT_EQ(snap.find("node_disk_io_now")->type, model::MetricType::kGauge);
  EXPECT_EQ(value_of(snap, "node_disk_writes_completed_total", {{"device", "nvme0n1"}}), 1078320);
  EXPECT_EQ(value_of(snap, "node_disk_writes_merged_total", {{"device", "nvme0n1"}}), 43950);

  // Discard fields from 4.18 kernels (18 fields), flush fields from 5.5 (20).
  EXPECT_TRUE(std::isnan(value_of(snap, "node_disk_discards_completed_total", {{"device", "sdb"}})));
  EXPECT_EQ(value_of(snap, "node_disk_discards_completed_total", {{"device", "dm-0"}}), 142);
  EXPECT_EQ(value_of(snap, "node_disk_discarded_sectors_total", {{"device", "dm-0"}}), 4920);  // sectors, not bytes
  EXPECT_EQ(value_of(snap, "node_disk_discard_time_seconds_total", {{"device", "dm-0"}}), 12 * 0.001);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_disk_flush_requests_total", {{"device", "dm-0"}})));
  EXPECT_EQ(value_of(snap, "node_disk_flush_requests_total", {{"device", "nvme0n1"}}), 4230);
  EXPECT_EQ(value_of(snap, "node_disk_flush_requests_time_seconds_total", {{"device", "nvme0n1"}}), 7723 * 0.001);
  EXPECT_EQ(series_count(snap, "node_disk_discards_merged_total"), 5u);
  EXPECT_EQ(series_count(snap, "node_disk_flush_requests_total"), 4u);
}

TEST(DiskstatsCollector, InfoFromUdev) {
  auto c = make_diskstats(fixture_context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  const model::Family* info = snap.find("node_disk_info");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->label_names, (std::vector<std::string>{"device", "major", "minor", "model", "path", "revision",
                                                          "serial", "wwn"}));
  // serial is ID_SERIAL_SHORT (node_exporter 1.5 ignores SCSI_IDENT_SERIAL).
  EXPECT_EQ(value_of(snap, "node_disk_info",
                     {{"device", "sda"},
                      {"major", "8"},
                      {"minor", "0"},
                      {"model", "WDC_WD40EFRX-68N32N0"},
                      {"path", "pci-0000:00:1f.2-ata-1"},
                      {"revision", "82.00A82"},
                      {"serial", "WD-WCC7K1234567"},
                      {"wwn", "0x50014ee2b0b1c2d3"}}),
            1);
  // No udev entry: empty labels, not an error.
  EXPECT_EQ(value_of(snap, "node_disk_info",
                     {{"device", "sdb"}, {"major", "8"}, {"minor", "16"}, {"model", ""}, {"serial", ""}}),
            1);
  EXPECT_EQ(value_of(snap, "node_disk_filesystem_info",
                     {{"device", "dm-0"}, {"type", "ext4"}, {"usage", "filesystem"}, {"version", "1.0"}}),
            1);
  EXPECT_EQ(series_count(snap, "node_disk_filesystem_info"), 1u);
  EXPECT_EQ(value_of(snap, "node_disk_device_mapper_info",
                     {{"device", "dm-0"}, {"name", "vg0-root"}, {"vg_name", "vg0"}, {"lv_name", "root"},
                      {"lv_layer", ""}}),
            1);
  EXPECT_EQ(value_of(snap, "node_disk_ata_rotation_rate_rpm", {{"device", "sda"}}), 5400);
  EXPECT_EQ(value_of(snap, "node_disk_ata_write_cache", {{"device", "sda"}}), 1);
  EXPECT_EQ(value_of(snap, "node_disk_ata_write_cache_enabled", {{"device", "sda"}}), 1);
  EXPECT_EQ(series_count(snap, "node_disk_ata_write_cache"), 1u);  // nvme0n1 has no ID_ATA
}

TEST(DiskstatsCollector, WithoutUdevAndWithInclude) {
  auto ctx = fixture_context();
  ctx.set_option(flag::kPathUdevData, "/nonexistent/udev/data");
  ctx.set_option(flag::kCollectorDiskstatsDeviceInclude, "^sd");
  auto c = make_diskstats(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  // With only device-include given, the default exclude is dropped: partitions come back.
  EXPECT_EQ(series_count(snap, "node_disk_info"), 4u);
  EXPECT_EQ(value_of(snap, "node_disk_info", {{"device", "sda1"}, {"model", ""}, {"major", "8"}, {"minor", "1"}}),
            1);
  EXPECT_EQ(series_count(snap, "node_disk_ata_write_cache"), 0u);
}

TEST(DiskstatsCollector, BrokenFileFails) {
  auto dir = std::filesystem::temp_directory_path() / ("llmon_diskstats_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "diskstats") << "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 16 sdb 1 2 3 x 5 6 7 8 9 10 11\n";
  auto ctx = fixture_context();
  ctx.fs.proc_root = dir.string();
  auto c = make_diskstats(ctx);
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("diskstats:2"), std::string::npos) << s.message();
  std::filesystem::remove_all(dir);
}

TEST(DiskstatsCollector, UdevEntriesAreCachedAndRecheckedEvery60s) {
  testing::TempFixture tf({"proc/diskstats", "udev/data"});
  auto ctx = tf.context();
  ctx.set_option(flag::kPathUdevData, tf.path("udev/data"));
  base::ManualClock clock(1'000'000);
  ctx.clock = &clock;
  auto c = make_diskstats(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_disk_info", {{"device", "sdb"}, {"model", ""}}), 1);  // no entry for 8:16
  EXPECT_EQ(value_of(snap, "node_disk_info", {{"device", "sda"}, {"model", "WDC_WD40EFRX-68N32N0"}}), 1);

  // An entry appears for sdb and sda's changes: the cached answers hold for 60 s.
  tf.write("udev/data/b8:16", "E:ID_MODEL=NEWDISK\nE:ID_FS_TYPE=xfs\n");
  tf.write("udev/data/b8:0", "E:ID_MODEL=CHANGED\n");
  clock.advance_ms(59'000);
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_disk_info", {{"device", "sdb"}, {"model", ""}}), 1);
  EXPECT_EQ(value_of(snap, "node_disk_info", {{"device", "sda"}, {"model", "WDC_WD40EFRX-68N32N0"}}), 1);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_disk_filesystem_info", {{"device", "sdb"}})));
  clock.advance_ms(1'000);
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_disk_info", {{"device", "sdb"}, {"model", "NEWDISK"}}), 1);
  EXPECT_EQ(value_of(snap, "node_disk_filesystem_info", {{"device", "sdb"}, {"type", "xfs"}}), 1);
  EXPECT_EQ(value_of(snap, "node_disk_info", {{"device", "sda"}, {"model", "CHANGED"}}), 1);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_disk_ata_write_cache", {{"device", "sda"}})));

  // The entry goes away: remembered as absent at the next re-check.
  tf.remove("udev/data/b8:16");
  clock.advance_ms(60'000);
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_disk_info", {{"device", "sdb"}, {"model", ""}}), 1);

  // sdb comes back as another major:minor: looked up at once.
  tf.write("udev/data/b8:32", "E:ID_MODEL=REPLACED\n");
  tf.write("proc/diskstats", "   8      32 sdb 1 2 3 4 5 6 7 8 0 9 10\n");
  clock.advance_ms(1'000);
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_disk_info", {{"device", "sdb"}, {"major", "8"}, {"minor", "32"}, {"model", "REPLACED"}}),
            1);
  EXPECT_EQ(series_count(snap, "node_disk_info"), 1u);

  // A wall clock stepped back re-checks too.
  tf.write("udev/data/b8:32", "E:ID_MODEL=AGAIN\n");
  clock.set_ms(0);
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_disk_info", {{"device", "sdb"}, {"model", "AGAIN"}}), 1);
}

}  // namespace
}  // namespace llmon::collector
