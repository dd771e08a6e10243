#include "tsdb/db.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <random>

#include "tsdb/temp_dir.h"
#include "tsdb/wal/record_log.h"

namespace llmon::tsdb {
namespace {

using llmon::testing::read_bytes;
using llmon::testing::TempDir;
using llmon::testing::write_bytes;
using model::Label;
using model::Labels;
using model::Sample;
namespace fs = std::filesystem;

constexpr int64_t kRange = 10'000;  // 10 s chunk range: boundaries come quickly in tests

Labels series_labels(int i) {
  auto l = Labels::make({{"__name__", "m"}, {"i", std::to_string(i)}});
  EXPECT_TRUE(l.has_value());
  return *l;
}

// The value series i has at time t (integers, with a NaN now and then).
double value_at(int i, int64_t t) {
  if ((t / 1000 + i) % 97 == 0) return std::bit_cast<double>(0x7ff8000000000123ull);
  return static_cast<double>(i * 1'000'000 + t / 1000);
}

DbOptions test_options(const std::string& dir) {
  DbOptions o;
  o.path = dir;
  o.head.chunk_range_ms = kRange;
  o.background = false;
  o.min_free_bytes = 0;
  o.fsync_interval_ms = 1000;
  o.retention_ms = 0;  // off unless a test sets it
  return o;
}

struct Fixture {
  base::Logger log{base::LogLevel::kError};
  base::ManualClock clock{1'000'000};
};

// Appends cycles [from, to) of n series, one commit per cycle (t = cycle * 1000).
void append_cycles(Db& db, int n, int64_t from, int64_t to) {
  for (int64_t c = from; c < to; ++c) {
    auto app = db.appender();
    for (int i = 0; i < n; ++i) ASSERT_TRUE(app->append(0, series_labels(i), c * 1000, value_at(i, c * 1000)));
    ASSERT_TRUE(app->commit().is_ok());
  }
}

std::vector<Sample> read_series(storage::Storage& st, int i, int64_t mint = 0, int64_t maxt = INT64_MAX) {
  auto q = st.querier(mint, maxt);
  EXPECT_TRUE(q.has_value());
  auto set = (*q)->select(mint, maxt, {{model::Matcher::Type::kEq, "i", std::to_string(i)}});
  std::vector<Sample> out;
  while (set->next()) {
    auto it = set->at().iterator();
    while (it->next()) out.push_back(it->at());
    EXPECT_TRUE(it->err().is_ok()) << it->err().message();
  }
  return out;
}

// Every cycle in [from, to) is there for series i, bit-exactly, and nothing else.
void expect_cycles(storage::Storage& st, int i, int64_t from, int64_t to) {
  auto got = read_series(st, i);
  ASSERT_EQ(got.size(), static_cast<size_t>(to - from)) << "series " << i;
  for (int64_t c = from; c < to; ++c) {
    const Sample& s = got[static_cast<size_t>(c - from)];
    ASSERT_EQ(s.t_ms, c * 1000);
    ASSERT_EQ(std::bit_cast<uint64_t>(s.v), std::bit_cast<uint64_t>(value_at(i, c * 1000))) << "t=" << s.t_ms;
  }
}

uint64_t dir_bytes(const std::string& dir) {
  uint64_t b = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) b += e.file_size();
  }
  return b;
}

TEST(Db, ReopenReplaysTheWal) {
  TempDir dir;
  Fixture f;
  {
    auto db = Db::open(test_options(dir.path()), f.log, f.clock);
    ASSERT_TRUE(db.has_value()) << db.error();
    append_cycles(**db, 20, 100, 105);  // within one chunk range: WAL only
    EXPECT_EQ((*db)->stats().persisted_chunks, 0u);
  }
  auto db = Db::open(test_options(dir.path()), f.log, f.clock);
  ASSERT_TRUE(db.has_value()) << db.error();
  for (int i = 0; i < 20; ++i) expect_cycles(**db, i, 100, 105);
  EXPECT_EQ((*db)->stats().replayed_samples, 100u);
  EXPECT_EQ((*db)->stats().repairs, 0u);
  // Appending continues; the series keep their refs (no duplicates).
  append_cycles(**db, 20, 105, 107);
  expect_cycles(**db, 3, 100, 107);
  EXPECT_EQ((*db)->stats().series, 20u);
}

TEST(Db, BoundariesPersistChunksAndShrinkTheWal) {
  TempDir dir;
  Fixture f;
  DbOptions o = test_options(dir.path());
  o.wal_segment_bytes = 4096;
  {
    auto db = Db::open(o, f.log, f.clock);
    ASSERT_TRUE(db.has_value()) << db.error();
    append_cycles(**db, 30, 0, 95);  // 9 boundaries crossed
    uint64_t wal_before = (*db)->stats().wal_bytes;
    ASSERT_TRUE((*db)->flush().is_ok());
    DbStats s = (*db)->stats();
    // Every series has 9 closed chunks [0,10 s) ... [80,90 s) persisted, by
    // one flush: as one group chunk (one index record) per series.
    EXPECT_EQ(s.chunks_persisted, 30u * 9);
    EXPECT_EQ(s.persisted_chunks, 30u);
    EXPECT_LT(s.wal_bytes, wal_before);
    EXPECT_GT(s.chunk_bytes, 0u);
    for (int i : {0, 17, 29}) expect_cycles(**db, i, 0, 95);
  }
  auto db = Db::open(o, f.log, f.clock);
  ASSERT_TRUE(db.has_value()) << db.error();
  DbStats s = (*db)->stats();
  EXPECT_EQ(s.recovered_chunks, 30u);
  EXPECT_EQ(s.repairs, 0u);
  for (int i = 0; i < 30; ++i) expect_cycles(**db, i, 0, 95);
  // Past the persisted data only the WAL's samples are replayed.
  EXPECT_LE(s.replayed_samples, 30u * 15);
}

TEST(Db, FlushAllEmptiesTheWalAndKeepsEverything) {
  TempDir dir;
  Fixture f;
  {
    auto db = Db::open(test_options(dir.path()), f.log, f.clock);
    ASSERT_TRUE(db.has_value());
    append_cycles(**db, 5, 0, 33);
    ASSERT_TRUE((*db)->flush(true).is_ok());
    EXPECT_EQ((*db)->stats().chunks_persisted, 5u * 4);  // [0,10) ... [30,33)
    EXPECT_EQ((*db)->stats().persisted_chunks, 5u);      // one group each
  }
  auto db = Db::open(test_options(dir.path()), f.log, f.clock);
  ASSERT_TRUE(db.has_value());
  EXPECT_EQ((*db)->stats().replayed_samples, 0u);
  for (int i = 0; i < 5; ++i) expect_cycles(**db, i, 0, 33);
}

TEST(Db, StalenessMarkersRoundTripBitExactly) {
  TempDir dir;
  Fixture f;
  auto lbl = series_labels(1);
  {
    auto db = Db::open(test_options(dir.path()), f.log, f.clock);
    ASSERT_TRUE(db.has_value());
    for (int64_t c = 0; c < 25; ++c) {
      auto app = (*db)->appender();
      double v = c == 12 ? model::stale_nan() : -0.0;
      ASSERT_TRUE(app->append(0, lbl, c * 1000, v));
      ASSERT_TRUE(app->commit().is_ok());
    }
    ASSERT_TRUE((*db)->flush().is_ok());  // [0,10) and [10,20) persisted, the rest in the WAL
  }
  auto db = Db::open(test_options(dir.path()), f.log, f.clock);
  ASSERT_TRUE(db.has_value());
  auto got = read_series(**db, 1);
  ASSERT_EQ(got.size(), 25u);
  for (int64_t c = 0; c < 25; ++c) {
    uint64_t want = c == 12 ? model::kStaleNaNBits : std::bit_cast<uint64_t>(-0.0);
    EXPECT_EQ(std::bit_cast<uint64_t>(got[static_cast<size_t>(c)].v), want) << c;
  }
}

TEST(Db, SecondOpenOfTheSameDirectoryIsRefused) {
  TempDir dir;
  Fixture f;
  auto a = Db::open(test_options(dir.path()), f.log, f.clock);
  ASSERT_TRUE(a.has_value());
  auto b = Db::open(test_options(dir.path()), f.log, f.clock);
  ASSERT_FALSE(b.has_value());
  EXPECT_NE(b.error().find("in use"), std::string::npos) << b.error();
}

TEST(Db, DiskFullRefusesCommitsAndRecovers) {
  TempDir dir;
  Fixture f;
  uint64_t free = 10ull << 30;
  DbOptions o = test_options(dir.path());
  o.min_free_bytes = 1 << 20;
  o.free_space = [&free](const std::string&) -> Expected<uint64_t> { return free; };
  auto db = Db::open(o, f.log, f.clock);
  ASSERT_TRUE(db.has_value());
  append_cycles(**db, 4, 0, 5);
  free = 1000;  // the disk fills up
  auto app = (*db)->appender();
  ASSERT_TRUE(app->append(0, series_labels(0), 5000, 1));
  Status st = app->commit();
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("disk almost full"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(dir.path()), std::string::npos) << st.message();
  EXPECT_FALSE((*db)->stats().writable);
  EXPECT_EQ((*db)->stats().commits_refused, 1u);
  // Persisting chunks is refused too; nothing is lost.
  append_cycles(**db, 0, 0, 0);
  free = 10ull << 30;  // space returns
  append_cycles(**db, 4, 5, 25);
  EXPECT_TRUE((*db)->stats().writable);
  for (int i = 0; i < 4; ++i) expect_cycles(**db, i, 0, 25);
  free = 1000;
  EXPECT_FALSE((*db)->flush().is_ok());
  free = 10ull << 30;
  EXPECT_TRUE((*db)->flush().is_ok());
  for (int i = 0; i < 4; ++i) expect_cycles(**db, i, 0, 25);
}

TEST(Db, TimeRetentionDeletesOldSegmentsAndSeries) {
  TempDir dir;
  Fixture f;
  DbOptions o = test_options(dir.path());
  o.chunks.segment_span_ms = 20'000;  // a segment per two boundaries
  {
    auto db = Db::open(o, f.log, f.clock);
    ASSERT_TRUE(db.has_value());
    for (int64_t c = 0; c < 60; c += 10) {  // a flush per boundary, as the agent's background thread does
      append_cycles(**db, 3, c, c + 10);
      ASSERT_TRUE((*db)->flush().is_ok());
    }
    // Series 9 only exists later.
    auto app = (*db)->appender();
    ASSERT_TRUE(app->append(0, series_labels(9), 70000, 1));
    ASSERT_TRUE(app->commit().is_ok());
    ASSERT_TRUE((*db)->flush(true).is_ok());
    EXPECT_GT((*db)->stats().chunk_segments, 2u);
  }
  o.retention_ms = 30'000;
  f.clock.set_ms(85'000);  // cutoff 55 s: series 0-2 keep the chunk [50,60), series 9 its 70 s
  auto db = Db::open(o, f.log, f.clock);
  ASSERT_TRUE(db.has_value());
  DbStats s = (*db)->stats();
  EXPECT_GT(s.retention_segments_removed, 0u);
  auto got = read_series(**db, 0);
  ASSERT_FALSE(got.empty());
  EXPECT_GE(got.front().t_ms, 50'000);  // whole chunks go: [50,60) is the oldest kept
  EXPECT_EQ(got.back().t_ms, 59'000);
  // Appends older than the cutoff are out of bounds.
  auto app = (*db)->appender();
  EXPECT_FALSE(app->append(0, series_labels(0), 10'000, 1).has_value());
  app.reset();  // an appender must not outlive its Db
  // Later, everything of series 0-2 expires; they are tombstoned and not restored.
  f.clock.set_ms(95'000);
  ASSERT_TRUE((*db)->apply_retention().is_ok());
  EXPECT_TRUE(read_series(**db, 0).empty());
  EXPECT_EQ((*db)->stats().retention_series_removed, 3u);
  (*db).reset();
  auto db2 = Db::open(o, f.log, f.clock);
  ASSERT_TRUE(db2.has_value());
  EXPECT_EQ((*db2)->stats().series, 1u);
  EXPECT_EQ(read_series(**db2, 9).size(), 1u);
}

TEST(Db, SizeRetentionDropsTheOldestSegmentsFirst) {
  TempDir dir;
  Fixture f;
  DbOptions o = test_options(dir.path());
  o.chunks.segment_span_ms = 10'000;
  auto db = Db::open(o, f.log, f.clock);
  ASSERT_TRUE(db.has_value());
  for (int64_t c = 0; c < 100; c += 10) {
    append_cycles(**db, 50, c, c + 10);
    ASSERT_TRUE((*db)->flush().is_ok());
  }
  ASSERT_TRUE((*db)->flush(true).is_ok());
  uint64_t total = dir_bytes(dir.path());
  (*db).reset();
  o.retention_bytes = total / 2;
  auto db2 = Db::open(o, f.log, f.clock);
  ASSERT_TRUE(db2.has_value());
  DbStats s = (*db2)->stats();
  EXPECT_LE(s.chunk_bytes + s.wal_bytes + s.series_log_bytes, o.retention_bytes);
  EXPECT_GT(s.retention_segments_removed, 0u);
  auto got = read_series(**db2, 7);
  ASSERT_FALSE(got.empty());
  EXPECT_GT(got.front().t_ms, 0);     // the oldest went
  EXPECT_EQ(got.back().t_ms, 99'000);  // the newest stayed
}

TEST(Db, CorruptWalBytesDropOnlyTheirPage) {
  TempDir dir;
  Fixture f;
  {
    auto db = Db::open(test_options(dir.path()), f.log, f.clock);
    ASSERT_TRUE(db.has_value());
    append_cycles(**db, 1000, 0, 9);  // 9 cycles x 1000 samples in the WAL (several pages)
  }
  auto segs = wal::list_segments(dir.path() + "/wal");
  ASSERT_TRUE(segs.has_value());
  ASSERT_FALSE(segs->empty());
  std::string path = wal::segment_path(dir.path() + "/wal", segs->back());
  auto orig = read_bytes(path);
  ASSERT_GT(orig.size(), wal::kPageSize);
  std::mt19937 rng(42);
  for (int iter = 0; iter < 20; ++iter) {
    auto bad = orig;
    size_t pos = rng() % bad.size();
    bad[pos] ^= static_cast<uint8_t>(1 + rng() % 255);
    write_bytes(path, bad);
    auto db = Db::open(test_options(dir.path()), f.log, f.clock);
    ASSERT_TRUE(db.has_value()) << db.error();
    DbStats s = (*db)->stats();
    EXPECT_GE(s.repairs, 1u) << "flip at " << pos;
    // Whatever was delivered is exact; cycles before the damaged page are all there.
    size_t damaged_page_start = pos / wal::kPageSize * wal::kPageSize;
    EXPECT_GT(s.replayed_samples, 0u);
    for (int i : {0, 999}) {
      for (const Sample& smp : read_series(**db, i)) {
        EXPECT_EQ(std::bit_cast<uint64_t>(smp.v), std::bit_cast<uint64_t>(value_at(i, smp.t_ms)));
      }
    }
    (void)damaged_page_start;
    (*db).reset();
    write_bytes(path, orig);
  }
}

}  // namespace
}  // namespace llmon::tsdb

namespace llmon::tsdb {
namespace {

TEST(Db, SeriesChurnRewritesTheSeriesLog) {
  TempDir dir;
  Fixture f;
  DbOptions o = test_options(dir.path());
  o.retention_ms = 20'000;
  f.clock.set_ms(0);
  auto db = Db::open(o, f.log, f.clock);
  ASSERT_TRUE(db.has_value());
  // 1 500 short-lived series (a process each), then 3 that live on.
  for (int i = 0; i < 1500; ++i) {
    auto app = (*db)->appender();
    ASSERT_TRUE(app->append(0, series_labels(10'000 + i), i * 10, 1));
    ASSERT_TRUE(app->commit().is_ok());
  }
  append_cycles(**db, 3, 40, 61);
  ASSERT_TRUE((*db)->flush().is_ok());
  uint64_t log_before = (*db)->stats().series_log_bytes;
  f.clock.set_ms(61'000);  // cutoff 41 s: the short-lived series go
  ASSERT_TRUE((*db)->apply_retention().is_ok());
  EXPECT_EQ((*db)->stats().retention_series_removed, 1500u);
  EXPECT_EQ((*db)->stats().series, 3u);
  EXPECT_LT((*db)->stats().series_log_bytes, log_before / 10);
  EXPECT_FALSE(fs::exists(dir.path() + "/series.old"));
  EXPECT_FALSE(fs::exists(dir.path() + "/series.new"));
  (*db).reset();
  auto db2 = Db::open(o, f.log, f.clock);
  ASSERT_TRUE(db2.has_value()) << db2.error();
  EXPECT_EQ((*db2)->stats().series, 3u);
  EXPECT_EQ((*db2)->stats().repairs, 0u);
  for (int i = 0; i < 3; ++i) expect_cycles(**db2, i, 40, 61);  // whole chunks: [40,50) ends after the cutoff
  // A new series never inherits an old ref (whose chunks may still be on disk).
  auto app = (*db2)->appender();
  ASSERT_TRUE(app->append(0, series_labels(77), 62'000, 5));
  ASSERT_TRUE(app->commit().is_ok());
  auto got = read_series(**db2, 77);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].t_ms, 62'000);
}

TEST(Db, InterruptedSeriesLogSwapIsFinishedAtOpen) {
  TempDir dir;
  Fixture f;
  {
    auto db = Db::open(test_options(dir.path()), f.log, f.clock);
    ASSERT_TRUE(db.has_value());
    append_cycles(**db, 4, 0, 3);
  }
  // Crash between the two renames: only series.old exists.
  fs::rename(dir.path() + "/series", dir.path() + "/series.old");
  auto db = Db::open(test_options(dir.path()), f.log, f.clock);
  ASSERT_TRUE(db.has_value()) << db.error();
  for (int i = 0; i < 4; ++i) expect_cycles(**db, i, 0, 3);
  EXPECT_FALSE(fs::exists(dir.path() + "/series.old"));
}

}  // namespace
}  // namespace llmon::tsdb
