#include "tsdb/chunk_store.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tsdb/chunk.h"
#include "tsdb/temp_dir.h"

namespace llmon::tsdb {
namespace {

using llmon::testing::read_bytes;
using llmon::testing::TempDir;
using llmon::testing::write_bytes;

// A real chunk of n samples of series `ref` starting at t0, 1 s apart.
PendingChunk make_chunk(storage::SeriesRef ref, int64_t t0, int n) {
  ChunkEncoder enc;
  for (int i = 0; i < n; ++i) EXPECT_TRUE(enc.append(t0 + i * 1000, static_cast<double>(ref * 1000 + i)).is_ok());
  PendingChunk c;
  c.meta = {ref, t0, t0 + (n - 1) * 1000, static_cast<uint16_t>(n)};
  c.bytes = std::make_shared<std::vector<uint8_t>>(enc.bytes());
  return c;
}

ChunkStoreOptions opts(bool compact_index = true) {
  ChunkStoreOptions o;
  o.min_free_bytes = 0;
  o.compact_index = compact_index;
  return o;
}

size_t record_size(bool compact_index) {
  return compact_index ? kIndexRecordSizeV2 : kIndexRecordSizeV1;
}

std::vector<PendingChunk> batch_of(int series, int64_t t0, int n) {
  std::vector<PendingChunk> b;
  for (int s = 1; s <= series; ++s) b.push_back(make_chunk(static_cast<storage::SeriesRef>(s), t0, n));
  return b;
}

// Every recovered chunk decodes to what was written for it.
void expect_readable(const std::vector<PersistedChunk>& got, const std::vector<PendingChunk>& want) {
  for (const auto& g : got) {
    auto it = std::find_if(want.begin(), want.end(), [&](const PendingChunk& w) {
      return w.meta.ref == g.meta.ref && w.meta.min_t == g.meta.min_t;
    });
    ASSERT_NE(it, want.end()) << "unexpected chunk of series " << g.meta.ref;
    EXPECT_EQ(g.meta.max_t, it->meta.max_t);
    EXPECT_EQ(g.meta.num_samples, it->meta.num_samples);
    auto bytes = g.loc.segment->read(g.loc.offset, g.loc.length, g.loc.crc);
    ASSERT_TRUE(bytes.has_value()) << bytes.error();
    EXPECT_EQ(*bytes, *it->bytes);
  }
}

TEST(ChunkStore, WriteReopenRead) {
  TempDir dir;
  auto b1 = batch_of(5, 0, 100);
  auto b2 = batch_of(5, 100000, 50);
  {
    auto cs = ChunkStore::open(dir.path(), opts(), nullptr);
    ASSERT_TRUE(cs.has_value()) << cs.error();
    auto l1 = (*cs)->write(b1);
    ASSERT_TRUE(l1.has_value()) << l1.error();
    ASSERT_EQ(l1->size(), 5u);
    auto bytes = (*l1)[2].segment->read((*l1)[2].offset, (*l1)[2].length, (*l1)[2].crc);
    ASSERT_TRUE(bytes.has_value());
    EXPECT_EQ(*bytes, *b1[2].bytes);
    ASSERT_TRUE((*cs)->write(b2).has_value());
    EXPECT_EQ((*cs)->segments().size(), 1u);
  }
  ChunkStoreRecovery rec;
  auto cs = ChunkStore::open(dir.path(), opts(), &rec);
  ASSERT_TRUE(cs.has_value()) << cs.error();
  EXPECT_EQ(rec.chunks.size(), 10u);
  EXPECT_TRUE(rec.notes.empty());
  auto all = b1;
  all.insert(all.end(), b2.begin(), b2.end());
  expect_readable(rec.chunks, all);
  // Appending continues in the same segment after a reopen.
  ASSERT_TRUE((*cs)->write(batch_of(1, 200000, 10)).has_value());
  EXPECT_EQ((*cs)->segments().size(), 1u);
  EXPECT_EQ((*cs)->segments()[0].chunks, 11u);
}

// Both index layouts: version 2 (32-byte records, the default) and version 1 (44).
class ChunkStoreIndex : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(Versions, ChunkStoreIndex, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "v2" : "v1"; });

TEST_P(ChunkStoreIndex, EveryIndexByteFlipDropsOnlyThatRecord) {
  const bool compact = GetParam();
  TempDir dir;
  auto b = batch_of(3, 0, 20);
  {
    auto cs = ChunkStore::open(dir.path(), opts(compact), nullptr);
    ASSERT_TRUE(cs.has_value());
    ASSERT_TRUE((*cs)->write(b).has_value());
  }
  std::string idx = segment_index_path(dir.path(), 1);
  auto orig = read_bytes(idx);
  ASSERT_EQ(orig.size(), kSegmentHeaderSize + 3 * record_size(compact));
  EXPECT_EQ(orig[4], compact ? 2 : 1);  // the version byte
  for (size_t pos = kSegmentHeaderSize; pos < orig.size(); ++pos) {
    auto bad = orig;
    bad[pos] ^= 0x10;
    write_bytes(idx, bad);
    ChunkStoreRecovery rec;
    auto cs = ChunkStore::open(dir.path(), opts(compact), &rec);
    ASSERT_TRUE(cs.has_value()) << cs.error();
    EXPECT_EQ(rec.chunks.size(), 2u) << "flip at " << pos;
    EXPECT_EQ(rec.dropped_records, 1u);
    ASSERT_FALSE(rec.notes.empty());
    EXPECT_NE(rec.notes[0].find("00000001.idx"), std::string::npos) << rec.notes[0];
    expect_readable(rec.chunks, b);
  }
  // A flipped header ignores the segment but opens the store.
  auto bad = orig;
  bad[0] ^= 1;
  write_bytes(idx, bad);
  ChunkStoreRecovery rec;
  auto cs = ChunkStore::open(dir.path(), opts(compact), &rec);
  ASSERT_TRUE(cs.has_value());
  EXPECT_TRUE(rec.chunks.empty());
  EXPECT_FALSE(rec.notes.empty());
  // ... and the next write starts a new segment rather than overwrite it.
  ASSERT_TRUE((*cs)->write(batch_of(1, 0, 5)).has_value());
  EXPECT_TRUE(std::filesystem::exists(segment_data_path(dir.path(), 2)));
  EXPECT_EQ(read_bytes(idx), bad);
}

TEST_P(ChunkStoreIndex, TruncationAtEveryLengthKeepsWholeRecords) {
  const bool compact = GetParam();
  const size_t rsize = record_size(compact);
  TempDir dir;
  auto b = batch_of(3, 0, 20);
  {
    auto cs = ChunkStore::open(dir.path(), opts(compact), nullptr);
    ASSERT_TRUE((*cs)->write(b).has_value());
  }
  std::string idx = segment_index_path(dir.path(), 1), dat = segment_data_path(dir.path(), 1);
  auto oi = read_bytes(idx), od = read_bytes(dat);
  for (size_t len = kSegmentHeaderSize; len <= oi.size(); ++len) {
    write_bytes(idx, std::vector<uint8_t>(oi.begin(), oi.begin() + static_cast<ptrdiff_t>(len)));
    write_bytes(dat, od);
    ChunkStoreRecovery rec;
    auto cs = ChunkStore::open(dir.path(), opts(compact), &rec);
    ASSERT_TRUE(cs.has_value());
    size_t whole = (len - kSegmentHeaderSize) / rsize;
    EXPECT_EQ(rec.chunks.size(), whole) << len;
    expect_readable(rec.chunks, b);
    // Torn index tail and unindexed data are truncated.
    EXPECT_EQ(read_bytes(idx).size(), kSegmentHeaderSize + whole * rsize);
    uint64_t data_end = kSegmentHeaderSize;
    for (const auto& c : rec.chunks) data_end = std::max<uint64_t>(data_end, c.loc.offset + c.loc.length);
    EXPECT_EQ(read_bytes(dat).size(), data_end);
  }
  // Data truncated under its index: the records pointing past the end are dropped.
  write_bytes(idx, oi);
  write_bytes(dat, std::vector<uint8_t>(od.begin(), od.end() - 3));
  ChunkStoreRecovery rec;
  auto cs = ChunkStore::open(dir.path(), opts(compact), &rec);
  ASSERT_TRUE(cs.has_value());
  EXPECT_EQ(rec.chunks.size(), 2u);
  EXPECT_EQ(rec.dropped_records, 1u);
}

TEST(ChunkStore, DataByteFlipFailsTheCrcOfThatChunkOnly) {
  TempDir dir;
  auto b = batch_of(3, 0, 20);
  {
    auto cs = ChunkStore::open(dir.path(), opts(), nullptr);
    ASSERT_TRUE((*cs)->write(b).has_value());
  }
  std::string dat = segment_data_path(dir.path(), 1);
  auto d = read_bytes(dat);
  d[kSegmentHeaderSize + b[0].bytes->size() + 3] ^= 0x01;  // inside the second chunk
  write_bytes(dat, d);
  ChunkStoreRecovery rec;
  auto cs = ChunkStore::open(dir.path(), opts(), &rec);
  ASSERT_TRUE(cs.has_value());
  ASSERT_EQ(rec.chunks.size(), 3u);
  int bad = 0;
  for (const auto& c : rec.chunks) {
    auto r = c.loc.segment->read(c.loc.offset, c.loc.length, c.loc.crc);
    if (!r) {
      ++bad;
      EXPECT_EQ(c.meta.ref, 2u);
      EXPECT_NE(r.error().find("CRC"), std::string::npos) << r.error();
      EXPECT_NE(r.error().find("00000001.dat"), std::string::npos) << r.error();
    }
  }
  EXPECT_EQ(bad, 1);
}

TEST(ChunkStore, RefusesWritesThatWouldEatTheReserve) {
  TempDir dir;
  uint64_t free = 1 << 20;
  ChunkStoreOptions o;
  o.min_free_bytes = 1 << 20;
  o.free_space = [&free](const std::string&) -> Expected<uint64_t> { return free; };
  auto cs = ChunkStore::open(dir.path(), o, nullptr);
  ASSERT_TRUE(cs.has_value());
  auto r = (*cs)->write(batch_of(2, 0, 10));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().find("disk almost full"), std::string::npos) << r.error();
  EXPECT_TRUE((*cs)->segments().empty());
  free = 64 << 20;
  ASSERT_TRUE((*cs)->write(batch_of(2, 0, 10)).has_value());
}

TEST(ChunkStore, RollsBySizeAndSpanAndRemovesWholeSegments) {
  TempDir dir;
  ChunkStoreOptions o = opts();
  o.segment_bytes = 50;  // a batch here is ~30 bytes of chunk data
  o.segment_span_ms = 3600 * 1000;
  auto cs = ChunkStore::open(dir.path(), o, nullptr);
  ASSERT_TRUE(cs.has_value());
  std::vector<ChunkLocation> kept;
  for (int i = 0; i < 6; ++i) {
    auto l = (*cs)->write(batch_of(2, i * 60000, 30));
    ASSERT_TRUE(l.has_value()) << l.error();
    if (i == 0) kept = *l;
  }
  auto segs = (*cs)->segments();
  ASSERT_GT(segs.size(), 1u);
  for (const auto& s : segs) EXPECT_LE(s.chunks, 4u) << s.id;  // at most two batches each
  // Span: a batch two hours later starts a new segment even if small.
  size_t before = segs.size();
  ASSERT_TRUE((*cs)->write(batch_of(1, 3 * 3600 * 1000, 2)).has_value());
  EXPECT_EQ((*cs)->segments().size(), before + 1);
  EXPECT_FALSE((*cs)->remove_segment((*cs)->active_segment()).is_ok());
  ASSERT_TRUE((*cs)->remove_segment(segs[0].id).is_ok());
  EXPECT_FALSE(std::filesystem::exists(segment_data_path(dir.path(), segs[0].id)));
  // A reader holding the segment still reads it after the unlink.
  auto r = kept[0].segment->read(kept[0].offset, kept[0].length, kept[0].crc);
  EXPECT_TRUE(r.has_value()) << r.error();
  ChunkStoreRecovery rec;
  cs = ChunkStore::open(dir.path(), o, &rec);
  ASSERT_TRUE(cs.has_value());
  EXPECT_EQ((*cs)->segments().size(), before);
  EXPECT_TRUE(rec.notes.empty());
}

// A batch holding several consecutive chunks of a series: one record per
// series (a group chunk), while write() still gives each chunk its own place.
TEST(ChunkStore, GroupsConsecutiveChunksOfASeriesUnderOneRecord) {
  TempDir dir;
  std::vector<PendingChunk> b;
  for (storage::SeriesRef ref : {1, 2}) {
    for (int k = 0; k < 3; ++k) b.push_back(make_chunk(ref, k * 100000, 40 + k));
  }
  b.push_back(make_chunk(3, 0, 10));
  {
    auto cs = ChunkStore::open(dir.path(), opts(), nullptr);
    ASSERT_TRUE(cs.has_value());
    auto locs = (*cs)->write(b);
    ASSERT_TRUE(locs.has_value()) << locs.error();
    ASSERT_EQ(locs->size(), b.size());
    for (size_t i = 0; i < b.size(); ++i) {
      auto got = (*locs)[i].segment->read((*locs)[i].offset, (*locs)[i].length, (*locs)[i].crc);
      ASSERT_TRUE(got.has_value()) << got.error();
      EXPECT_EQ(*got, *b[i].bytes) << i;
    }
    EXPECT_EQ((*cs)->segments()[0].chunks, 3u);
  }
  EXPECT_EQ(read_bytes(segment_index_path(dir.path(), 1)).size(), kSegmentHeaderSize + 3 * kIndexRecordSizeV2);
  ChunkStoreRecovery rec;
  auto cs = ChunkStore::open(dir.path(), opts(), &rec);
  ASSERT_TRUE(cs.has_value());
  ASSERT_EQ(rec.chunks.size(), 3u);
  for (const auto& c : rec.chunks) {
    std::vector<model::Sample> want;
    for (const auto& p : b) {
      if (p.meta.ref != c.meta.ref) continue;
      auto s = decode_chunk(*p.bytes);
      want.insert(want.end(), s->begin(), s->end());
    }
    EXPECT_EQ(c.meta.num_samples, want.size());
    EXPECT_EQ(c.meta.min_t, want.front().t_ms);
    EXPECT_EQ(c.meta.max_t, want.back().t_ms);
    auto bytes = c.loc.segment->read(c.loc.offset, c.loc.length, c.loc.crc);
    ASSERT_TRUE(bytes.has_value());
    auto got = decode_chunk(*bytes);
    ASSERT_TRUE(got.has_value()) << got.error();
    ASSERT_EQ(got->size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ((*got)[i].t_ms, want[i].t_ms);
      EXPECT_EQ((*got)[i].v, want[i].v);
    }
    EXPECT_EQ((*bytes)[0], c.meta.ref == 3 ? 2 : 4);  // series 3's single chunk stays as it is
  }
}

TEST(ChunkStore, GroupsStopAtTheSampleLimitAndCanBeTurnedOff) {
  for (size_t limit : {size_t{0}, size_t{90}, size_t{8192}}) {
    SCOPED_TRACE(limit);
    TempDir dir;
    std::vector<PendingChunk> b;
    for (int k = 0; k < 4; ++k) b.push_back(make_chunk(1, k * 100000, 40));
    ChunkStoreOptions o = opts();
    o.group_max_samples = limit;
    auto cs = ChunkStore::open(dir.path(), o, nullptr);
    ASSERT_TRUE(cs.has_value());
    ASSERT_TRUE((*cs)->write(b).has_value());
    size_t want = limit == 0 ? 4 : limit == 90 ? 2 : 1;  // 40-sample chunks
    EXPECT_EQ((*cs)->segments()[0].chunks, want);
  }
}

// Records that do not fit the compact layout (a ref of 2^40, a span of 2^32 ms)
// go to a version-1 segment; a version-1 segment (an older store) is read and
// continued as it is.
TEST(ChunkStore, WideRecordsFallBackToVersionOneSegments) {
  TempDir dir;
  auto cs = ChunkStore::open(dir.path(), opts(), nullptr);
  ASSERT_TRUE(cs.has_value());
  std::vector<PendingChunk> all = batch_of(2, 0, 10);
  ASSERT_TRUE((*cs)->write(all).has_value());
  // A ref of 2^40 does not fit: a new segment, version 1.
  std::vector<PendingChunk> wide_ref = {make_chunk(uint64_t{1} << 40, 20000, 10)};
  ASSERT_TRUE((*cs)->write(wide_ref).has_value());
  ASSERT_EQ((*cs)->segments().size(), 2u);
  EXPECT_EQ(read_bytes(segment_index_path(dir.path(), 1))[4], 2);
  EXPECT_EQ(read_bytes(segment_index_path(dir.path(), 2))[4], 1);
  // A batch that fits version 2 continues the version-1 segment.
  auto normal = batch_of(1, 40000, 10);
  ASSERT_TRUE((*cs)->write(normal).has_value());
  EXPECT_EQ((*cs)->segments().size(), 2u);
  // A span of 2^32 ms, a min_t beyond 2^47 ms: version 1 as well (they also roll by span).
  PendingChunk span = make_chunk(5, 60000, 2);
  span.meta.max_t = span.meta.min_t + (int64_t{1} << 32);
  PendingChunk far = make_chunk(6, int64_t{1} << 47, 3);
  for (const auto& c : {span, far}) {
    ASSERT_TRUE((*cs)->write({c}).has_value());
    auto segs = (*cs)->segments();
    EXPECT_EQ(read_bytes(segment_index_path(dir.path(), segs.back().id))[4], 1);
  }
  for (const auto& v : {wide_ref, normal, std::vector<PendingChunk>{span, far}})
    all.insert(all.end(), v.begin(), v.end());
  cs->reset();
  ChunkStoreRecovery rec;
  cs = ChunkStore::open(dir.path(), opts(), &rec);
  ASSERT_TRUE(cs.has_value());
  EXPECT_TRUE(rec.notes.empty());
  ASSERT_EQ(rec.chunks.size(), all.size());
  expect_readable(rec.chunks, all);
}

}  // namespace
}  // namespace llmon::tsdb
