#include "remote/wal_reader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tsdb/temp_dir.h"
#include "tsdb/wal/record_log.h"
#include "tsdb/wal/records.h"

namespace llmon::remote {
namespace {

namespace wal = tsdb::wal;
using llmon::testing::TempDir;

std::string samples_record(storage::SeriesRef ref, int64_t t, double v) {
  std::string out;
  wal::encode_samples({{ref, t, v}}, out);
  return out;
}

// A store's directory written by hand: series log with refs 1 and 2, WAL
// segment 1 with three records, segment 2 with one.
void write_store(const std::string& dir) {
  auto series = wal::LogWriter::open(dir + "/series");
  ASSERT_TRUE(series);
  std::string rec;
  wal::encode_series({{1, *model::Labels::make({{"__name__", "a"}})}, {2, *model::Labels::make({{"__name__", "b"}})}},
                     rec);
  ASSERT_TRUE((*series)->append(rec).is_ok());
  auto w = wal::LogWriter::open(dir + "/wal");
  ASSERT_TRUE(w);
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE((*w)->append(samples_record(1, i * 1000, i)).is_ok());
  ASSERT_TRUE((*w)->roll());
  ASSERT_TRUE((*w)->append(samples_record(2, 4000, 4)).is_ok());
}

TEST(WalReader, ReadsAcrossSegmentsAndResolvesLabels) {
  TempDir dir;
  write_store(dir.path());
  WalReader r(dir.path());
  std::vector<wal::SampleEntry> out;
  auto res = r.read({}, 100, out);
  ASSERT_TRUE(res) << res.error();
  ASSERT_EQ(out.size(), 4u);
  EXPECT_TRUE(res->caught_up);
  EXPECT_EQ(res->next.segment, 2u);
  EXPECT_EQ(res->corruptions, 0u);
  ASSERT_NE(r.labels(2), nullptr);
  EXPECT_EQ(r.labels(2)->get("__name__"), "b");
  EXPECT_EQ(r.labels(99), nullptr);
  // Nothing new: the same position again, nothing read.
  out.clear();
  auto again = r.read(res->next, 100, out);
  ASSERT_TRUE(again);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(again->next, res->next);
}

TEST(WalReader, DamagedRecordsAreCountedNotSkippedSilently) {
  TempDir dir;
  write_store(dir.path());
  {
    // Flip a payload byte of segment 1's second record (the third, on the
    // same page, is lost with it: the reader resynchronises at the next page).
    auto segs = wal::list_segments(dir.path() + "/wal");
    ASSERT_TRUE(segs);
    std::vector<uint64_t> starts;
    ASSERT_TRUE(wal::read_segment_from(
                    dir.path() + "/wal", 1, 0, false,
                    [&](std::string_view, uint64_t start, uint64_t) {
                      starts.push_back(start);
                      return Status::ok();
                    },
                    [](const wal::Corruption&) {})
                    .is_ok());
    ASSERT_EQ(starts.size(), 3u);
    std::fstream f(wal::segment_path(dir.path() + "/wal", 1), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(starts[1] + wal::kFragmentHeaderSize + 1));
    f.put('\x55');
  }
  WalReader r(dir.path());
  std::vector<wal::SampleEntry> out;
  auto res = r.read({}, 100, out);
  ASSERT_TRUE(res) << res.error();
  ASSERT_EQ(out.size(), 2u);  // record 1 of segment 1 and segment 2's
  EXPECT_EQ(out[0].t_ms, 1000);
  EXPECT_EQ(out[1].t_ms, 4000);
  EXPECT_EQ(res->corruptions, 1u);
  EXPECT_NE(res->corruption_detail.find("crc mismatch"), std::string::npos) << res->corruption_detail;
}

TEST(WalReader, ReportsSegmentsRemovedBeforeTheyWereRead) {
  TempDir dir;
  write_store(dir.path());
  ASSERT_EQ(::unlink(wal::segment_path(dir.path() + "/wal", 1).c_str()), 0);
  WalReader r(dir.path());
  std::vector<wal::SampleEntry> out;
  auto res = r.read({1, 0, 0, 500}, 100, out);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->lost_first, 1u);
  EXPECT_EQ(res->lost_end, 2u);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(res->next.max_sent_ms, 500);
}

TEST(WalReader, PositionPastTheEndOfItsSegmentRereadsTheSegment) {
  TempDir dir;
  write_store(dir.path());
  WalReader r(dir.path());
  std::vector<wal::SampleEntry> out;
  auto res = r.read({2, 1 << 20, 0, 0}, 100, out);
  ASSERT_TRUE(res);
  EXPECT_TRUE(res->rewound);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].t_ms, 4000);
}

}  // namespace
}  // namespace llmon::remote
