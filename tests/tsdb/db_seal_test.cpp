// The Db's seal path (db.cpp persist_closed_chunks): closed chunks are
// re-encoded (docs/format/chunk.md, encoding 3) and a series' consecutive
// chunks grouped (docs/format/chunks.md "Groups") when persisted; every value
// reads back bit-exactly from the process that wrote them (each chunk at its
// own location inside a group) and after a reopen (a group is one chunk).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <set>
#include <string>
#include <vector>

#include "tsdb/chunk.h"
#include "tsdb/chunk_store.h"
#include "tsdb/db.h"
#include "tsdb/db_test_util.h"

namespace llmon::tsdb {
namespace {

using llmon::testing::cycle_value;
using llmon::testing::read_bytes;
using llmon::testing::read_metric;
using llmon::testing::ScratchDir;
using llmon::testing::series_labels;

constexpr int kSeries = 40;
constexpr int64_t kStep = 1000;
const std::string kMetric = "seal_m";

DbOptions options(const std::string& dir) {
  DbOptions o;
  o.path = dir;
  o.head.chunk_range_ms = 10'000;
  o.background = false;
  o.min_free_bytes = 0;
  o.retention_ms = 0;
  return o;
}

void append(Db& db, int64_t from, int64_t to) {
  for (int64_t c = from; c < to; ++c) {
    auto app = db.appender();
    for (int i = 0; i < kSeries; ++i)
      ASSERT_TRUE(app->append(0, series_labels(kMetric, i), c * kStep, cycle_value(i, c)));
    ASSERT_TRUE(app->commit().is_ok());
  }
}

// Cycles [0, to) of every series, bit-exactly (counters, decimals, binary32
// values, noise, staleness markers, NaN payloads, -0.0: db_test_util.h).
void expect_all(Db& db, int64_t to) {
  std::string err;
  auto got = read_metric(db, kMetric, 0, INT64_MAX, &err);
  ASSERT_EQ(err, "");
  ASSERT_EQ(got.size(), static_cast<size_t>(kSeries));
  for (const auto& [i, samples] : got) {
    ASSERT_EQ(samples.size(), static_cast<size_t>(to)) << "series " << i;
    for (int64_t c = 0; c < to; ++c) {
      ASSERT_EQ(samples[static_cast<size_t>(c)].t_ms, c * kStep);
      ASSERT_EQ(std::bit_cast<uint64_t>(samples[static_cast<size_t>(c)].v), std::bit_cast<uint64_t>(cycle_value(i, c)))
          << "series " << i << " cycle " << c;
    }
  }
}

// The encodings of the stored chunks (a group's parts counted one by one).
std::multiset<int> stored_encodings(const std::string& dir) {
  std::multiset<int> out;
  for (const auto& f : llmon::testing::files_in(dir + "/chunks")) {
    if (f.size() < 4 || f.substr(f.size() - 4) != ".idx") continue;
    auto dat = read_bytes(f.substr(0, f.size() - 4) + ".dat");
    for (const auto& r : llmon::testing::parse_idx(read_bytes(f))) {
      std::span<const uint8_t> chunk(dat.data() + r.offset, r.length);
      out.insert(chunk[0]);
      if (chunk[0] != static_cast<uint8_t>(Encoding::kGroup)) continue;
      auto dec = ChunkDecoder::open(chunk);
      EXPECT_TRUE(dec.has_value());
      EXPECT_EQ(dec->num_samples(), r.n);
    }
  }
  return out;
}

TEST(DbSeal, SealedAndGroupedChunksReadBackBitExactly) {
  ScratchDir dir;
  base::Logger log(base::LogLevel::kError);
  base::ManualClock clock(0);
  {
    auto db = Db::open(options(dir.path()), log, clock);
    ASSERT_TRUE(db.has_value()) << db.error();
    ASSERT_NO_FATAL_FAILURE(append(**db, 0, 15));
    ASSERT_TRUE((*db)->flush().is_ok());  // [0,10): one chunk per series
    ASSERT_NO_FATAL_FAILURE(append(**db, 15, 93));
    ASSERT_TRUE((*db)->flush(true).is_ok());  // [10,20) ... [90,93): one group per series
    DbStats s = (*db)->stats();
    EXPECT_EQ(s.chunks_persisted, kSeries * 10u);
    EXPECT_EQ(s.persisted_chunks, kSeries * 2u);
    EXPECT_EQ(s.head_chunks_in_memory, 0u);
    // Read by this process: every chunk from its own place, inside groups too.
    ASSERT_NO_FATAL_FAILURE(expect_all(**db, 93));
    ASSERT_TRUE((*db)->close().is_ok());
  }
  auto enc = stored_encodings(dir.path());
  EXPECT_EQ(enc.count(static_cast<int>(Encoding::kGroup)), static_cast<size_t>(kSeries));
  EXPECT_GT(enc.count(static_cast<int>(Encoding::kPacked)), 0u) << "no chunk was sealed";
  auto db = Db::open(options(dir.path()), log, clock);
  ASSERT_TRUE(db.has_value()) << db.error();
  EXPECT_EQ((*db)->stats().repairs, 0u);
  EXPECT_EQ((*db)->stats().replayed_samples, 0u);
  ASSERT_NO_FATAL_FAILURE(expect_all(**db, 93));
  // Appending goes on after the groups, and reads stay whole.
  ASSERT_NO_FATAL_FAILURE(append(**db, 93, 120));
  ASSERT_TRUE((*db)->flush(true).is_ok());
  ASSERT_NO_FATAL_FAILURE(expect_all(**db, 120));
}

// Sealing a chunk shrinks what is stored: the chunk segments of a ticks/100
// counter, a gauge in 4 KiB pages and a constant, 15 s apart with a
// jittered sample now and then, against the same chunks as the head holds them.
TEST(DbSeal, SealedSegmentsAreSmallerThanTheHeadChunks) {
  ScratchDir dir;
  base::Logger log(base::LogLevel::kError);
  base::ManualClock clock(0);
  DbOptions o = options(dir.path());
  o.head.chunk_range_ms = 2 * 3600 * 1000;
  auto db = Db::open(o, log, clock);
  ASSERT_TRUE(db.has_value());
  uint64_t head_bytes = 0;
  int64_t ticks = 1000, pages = 100000;
  for (int64_t c = 0; c < 480; ++c) {
    auto app = (*db)->appender();
    int64_t t = c * 15000 + (c % 97 == 13 ? 2 : 0);
    ticks += 95 + c % 11;
    pages += (c * 7919) % 41 - 20;
    ASSERT_TRUE(app->append(0, series_labels("m", 0), t, static_cast<double>(ticks) / 100));
    ASSERT_TRUE(app->append(0, series_labels("m", 1), t, static_cast<double>(pages * 4096)));
    ASSERT_TRUE(app->append(0, series_labels("m", 2), t, 1.0));
    ASSERT_TRUE(app->commit().is_ok());
  }
  head_bytes = (*db)->head().memory().chunk_bytes;
  ASSERT_TRUE((*db)->flush(true).is_ok());
  ASSERT_EQ((*db)->stats().chunk_segments, 1u);
  uint64_t dat = read_bytes(segment_data_path(dir.path() + "/chunks", 1)).size() - kSegmentHeaderSize;
  EXPECT_GT(dat, 0u);
  EXPECT_LT(dat * 2, head_bytes) << "sealed " << dat << " bytes, head chunks " << head_bytes;
}

}  // namespace
}  // namespace llmon::tsdb

namespace llmon::tsdb {
namespace {

// Reads through the query path's two ways, for windows starting and ending
// inside persisted groups (their parts skipped by seek()), closed head
// chunks and the open chunk: seek(mint) then next() sample by sample, and
// seek(mint) then append_until(maxt) (the bulk path the engine uses). Both
// give exactly the stored samples of [mint, maxt].
TEST(DbSeal, BulkAndSampleBySampleReadsAgree) {
  ScratchDir dir;
  base::Logger log(base::LogLevel::kError);
  base::ManualClock clock(0);
  {
    auto db = Db::open(options(dir.path()), log, clock);
    ASSERT_TRUE(db.has_value()) << db.error();
    ASSERT_NO_FATAL_FAILURE(append(**db, 0, 93));
    ASSERT_TRUE((*db)->flush(true).is_ok());
    ASSERT_TRUE((*db)->close().is_ok());
  }
  auto db = Db::open(options(dir.path()), log, clock);  // reopened: each series' history is one group
  ASSERT_TRUE(db.has_value()) << db.error();
  ASSERT_NO_FATAL_FAILURE(append(**db, 93, 131));
  ASSERT_TRUE((*db)->flush().is_ok());  // some closed chunks persisted, the open one in memory
  ASSERT_NO_FATAL_FAILURE(append(**db, 131, 137));
  const std::vector<std::pair<int64_t, int64_t>> windows = {
      {0, INT64_MAX},    {-5000, 3500},      {15'000, 15'000},   {15'001, 44'999},   {42'500, 95'000},
      {89'000, 136'000}, {120'500, 200'000}, {136'000, 136'000}, {137'000, 150'000}, {55'000, 54'000}};
  for (auto [mint, maxt] : windows) {
    if (mint > maxt) continue;
    auto q = (*db)->querier(mint, maxt);
    ASSERT_TRUE(q.has_value()) << q.error();
    auto set = (*q)->select(mint, maxt, {{model::Matcher::Type::kEq, "__name__", kMetric}});
    size_t series = 0;
    while (set->next()) {
      ++series;
      const auto& s = set->at();
      std::vector<model::Sample> one, bulk;
      auto a = s.iterator();
      for (bool ok = a->seek(mint); ok && a->at().t_ms <= maxt; ok = a->next()) one.push_back(a->at());
      ASSERT_TRUE(a->err().is_ok()) << a->err().message();
      auto b = s.iterator();
      if (b->seek(mint)) b->append_until(maxt, bulk);
      ASSERT_TRUE(b->err().is_ok()) << b->err().message();
      ASSERT_EQ(one.size(), bulk.size()) << s.labels().to_string() << " [" << mint << ", " << maxt << "]";
      int i = std::stoi(std::string(s.labels().get("i")));
      int64_t first = std::max<int64_t>(0, (mint + kStep - 1) / kStep), last = std::min<int64_t>(136, maxt / kStep);
      ASSERT_EQ(bulk.size(), static_cast<size_t>(std::max<int64_t>(0, last - first + 1)));
      for (size_t k = 0; k < bulk.size(); ++k) {
        int64_t c = first + static_cast<int64_t>(k);
        ASSERT_EQ(one[k].t_ms, bulk[k].t_ms);
        ASSERT_EQ(bulk[k].t_ms, c * kStep);
        ASSERT_EQ(std::bit_cast<uint64_t>(one[k].v), std::bit_cast<uint64_t>(bulk[k].v));
        ASSERT_EQ(std::bit_cast<uint64_t>(bulk[k].v), std::bit_cast<uint64_t>(cycle_value(i, c)))
            << "series " << i << " cycle " << c;
      }
    }
    ASSERT_TRUE(set->err().is_ok());
    EXPECT_EQ(series, maxt < 0 || mint > 136'000 ? 0u : static_cast<size_t>(kSeries)) << mint << " " << maxt;
  }
}

}  // namespace
}  // namespace llmon::tsdb
