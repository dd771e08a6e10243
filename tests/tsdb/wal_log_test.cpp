// Tests of the record log framing (src/tsdb/wal/record_log.h) against
// docs/format/wal.md: layout rules checked on raw bytes with a CRC written
// here from the spec, round trips, reopen, rolling, every single-byte change,
// truncation at every length, and writes that fail with a real errno.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tsdb/temp_dir.h"
#include "tsdb/wal/record_log.h"

namespace llmon::tsdb::wal {
namespace {

namespace fs = std::filesystem;
constexpr uint64_t P = kPageSize;

using llmon::testing::TempDir;

std::string sub(const TempDir& d, const std::string& name) {
  return d.path() + "/" + name;
}

// CRC-32 (IEEE, reflected 0xEDB88320), bit by bit: an implementation written
// from the spec, independent of zlib.
uint32_t crc32_bitwise(const std::string& data) {
  uint32_t c = 0xffffffffu;
  for (unsigned char b : data) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
  }
  return ~c;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

struct ReadResult {
  std::vector<std::string> records;
  std::vector<Corruption> corruptions;
  ReadStats stats;
};

ReadResult read_all(const std::string& dir, uint32_t from = 0) {
  ReadResult r;
  auto st = read_log(
      dir, from,
      [&](std::string_view rec) {
        r.records.emplace_back(rec);
        return Status::ok();
      },
      [&](const Corruption& c) { r.corruptions.push_back(c); });
  EXPECT_TRUE(st.has_value()) << st.error();
  if (st) r.stats = *st;
  return r;
}

std::string pattern(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  std::mt19937 rng(seed);
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

std::unique_ptr<LogWriter> open_ok(const std::string& dir, LogOptions opt = {}, std::string* note = nullptr) {
  auto w = LogWriter::open(dir, opt, note);
  EXPECT_TRUE(w.has_value()) << w.error();
  return w ? std::move(*w) : nullptr;
}

// [start, end) of each record written by one writer session from offset 0,
// by the rules of docs/format/wal.md "Fragments" (a second implementation).
std::vector<std::pair<uint64_t, uint64_t>> layout(const std::vector<std::string>& records) {
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  uint64_t pos = 0;
  for (const auto& r : records) {
    size_t left = r.size();
    uint64_t start = 0;
    bool first = true;
    for (;;) {
      uint64_t room = P - pos % P;
      if (room < 7 || (room == 7 && left > 0)) {
        pos += room;
        continue;
      }
      if (first) start = pos;
      size_t n = std::min<uint64_t>(left, room - 7);
      pos += 7 + n;
      left -= n;
      first = false;
      if (left == 0) break;
    }
    spans.emplace_back(start, pos);
  }
  return spans;
}

// Compares record lists without printing binary payloads.
::testing::AssertionResult same_records(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    if (got[i] != want[i]) {
      return ::testing::AssertionFailure()
             << "record " << i << " differs (" << got[i].size() << " bytes read, " << want[i].size() << " expected)";
    }
  }
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << got.size() << " records read, " << want.size() << " expected";
  }
  return ::testing::AssertionSuccess();
}

uint8_t byte_at(const std::string& s, uint64_t off) {
  return static_cast<uint8_t>(s.at(off));
}

// The fragment header at `off`, checked field by field against the spec.
void expect_fragment(const std::string& file, uint64_t off, uint8_t type, const std::string& payload) {
  SCOPED_TRACE("fragment at " + std::to_string(off));
  ASSERT_GE(file.size(), off + 7 + payload.size());
  EXPECT_EQ(byte_at(file, off), type);
  EXPECT_EQ(byte_at(file, off + 1), payload.size() >> 8);
  EXPECT_EQ(byte_at(file, off + 2), payload.size() & 0xff);
  std::string covered = file.substr(off, 3) + payload;
  uint32_t crc = crc32_bitwise(covered);
  EXPECT_EQ(byte_at(file, off + 3), crc >> 24);
  EXPECT_EQ(byte_at(file, off + 4), (crc >> 16) & 0xff);
  EXPECT_EQ(byte_at(file, off + 5), (crc >> 8) & 0xff);
  EXPECT_EQ(byte_at(file, off + 6), crc & 0xff);
  EXPECT_EQ(file.substr(off + 7, payload.size()), payload);
}

TEST(WalLog, SegmentNamesAndListing) {
  TempDir d;
  EXPECT_EQ(segment_path("/x/wal", 1), "/x/wal/00000001");
  EXPECT_EQ(segment_path("/x/wal", 12345678), "/x/wal/12345678");
  for (const char* name : {"00000003", "00000001", "0000002", "000000004", "0000000a", "00000005.tmp", "checkpoint"}) {
    write_file(sub(d, name), "");
  }
  auto segs = list_segments(d.path());
  ASSERT_TRUE(segs.has_value()) << segs.error();
  EXPECT_EQ(*segs, (std::vector<uint32_t>{1, 3}));
  auto missing = list_segments(sub(d, "nope"));
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().find(sub(d, "nope")), std::string::npos) << missing.error();
}

TEST(WalLog, SingleFragmentBytes) {
  TempDir d;
  const std::string dir = sub(d, "wal");
  {
    auto w = open_ok(dir);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->current_segment(), 1u);
    ASSERT_TRUE(w->append("hello").is_ok());
    ASSERT_TRUE(w->append("").is_ok());
    EXPECT_EQ(w->bytes_written(), 12u + 7u);
    EXPECT_EQ(w->disk_bytes(), 19u);
    ASSERT_TRUE(w->sync().is_ok());
  }
  const std::string f = slurp(segment_path(dir, 1));
  ASSERT_EQ(f.size(), 19u);
  expect_fragment(f, 0, 1, "hello");
  expect_fragment(f, 12, 1, "");
  // "hello" framed by hand: crc32 of 01 00 05 'h' 'e' 'l' 'l' 'o'.
  EXPECT_EQ(f.substr(0, 3), std::string("\x01\x00\x05", 3));
  EXPECT_EQ(crc32_bitwise("123456789"), 0xCBF43926u);  // the CRC-32 check value
}

TEST(WalLog, DocExampleLayout) {
  TempDir d;
  const std::string r0(32733, 'a'), R = pattern(8, 1), S = pattern(40000, 2);
  {
    auto w = open_ok(d.path());
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->append(r0).is_ok());
    ASSERT_TRUE(w->append(R).is_ok());
    ASSERT_TRUE(w->append(S).is_ok());
  }
  const std::string f = slurp(segment_path(d.path(), 1));
  ASSERT_EQ(f.size(), 65536u + 7 + 7233);
  expect_fragment(f, 0, 1, r0);
  expect_fragment(f, 32740, 1, R);
  expect_fragment(f, 32755, 2, S.substr(0, 6));
  expect_fragment(f, 32768, 3, S.substr(6, 32761));
  expect_fragment(f, 65536, 4, S.substr(32767));
  EXPECT_EQ(f.substr(65536, 3), std::string("\x04\x1c\x41", 3));
  auto r = read_all(d.path());
  EXPECT_TRUE(same_records(r.records, (std::vector<std::string>{r0, R, S})));
  EXPECT_TRUE(r.corruptions.empty());
}

// A first record leaving exactly `left` bytes in page 0, then `next`.
class WalPageEnd : public ::testing::TestWithParam<size_t> {};

TEST_P(WalPageEnd, NextRecordPlacement) {
  const size_t left = GetParam();
  for (size_t next_size : {size_t{0}, size_t{1}, size_t{6}, size_t{100}, size_t{40000}}) {
    SCOPED_TRACE("left " + std::to_string(left) + ", next " + std::to_string(next_size));
    TempDir d;
    const std::string first = pattern(P - 7 - left, 3), next = pattern(next_size, 4), after = "after";
    {
      auto w = open_ok(d.path());
      ASSERT_TRUE(w);
      ASSERT_TRUE(w->append(first).is_ok());
      ASSERT_TRUE(w->append(next).is_ok());
      ASSERT_TRUE(w->append(after).is_ok());
    }
    const std::string f = slurp(segment_path(d.path(), 1));
    auto spans = layout({first, next, after});
    ASSERT_EQ(f.size(), spans.back().second);
    expect_fragment(f, 0, 1, first);
    const uint64_t at = P - left;
    if (left < 7 || (left == 7 && next_size > 0)) {
      EXPECT_EQ(f.substr(at, left), std::string(left, '\0')) << "zero padding";
      EXPECT_EQ(spans[1].first, P);
      expect_fragment(f, P, next_size + 7 <= P ? 1 : 2, next.substr(0, std::min<size_t>(next_size, P - 7)));
    } else {
      EXPECT_EQ(spans[1].first, at);
      const bool fits = next_size <= left - 7;
      expect_fragment(f, at, fits ? 1 : 2, next.substr(0, left - 7));
      if (!fits) {
        const std::string rest = next.substr(left - 7);
        expect_fragment(f, P, rest.size() <= P - 7 ? 4 : 3, rest.substr(0, P - 7));
      }
    }
    auto r = read_all(d.path());
    EXPECT_TRUE(same_records(r.records, (std::vector<std::string>{first, next, after})));
    EXPECT_TRUE(r.corruptions.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(WalByLeft, WalPageEnd, ::testing::Values(0, 1, 6, 7, 8, 9, 100));

TEST(WalLog, RoundTripSizes) {
  TempDir d;
  std::vector<std::string> recs;
  std::mt19937 rng(5);
  for (size_t n : {0, 1, 2, 6, 7, 8, 1000, 32760, 32761, 32762, 32768, 65522, 65536, 100000, 250000}) {
    recs.push_back(pattern(n, static_cast<uint32_t>(n)));
  }
  for (int i = 0; i < 3000; ++i) recs.push_back(pattern(rng() % 64, rng()));  // many small ones
  {
    auto w = open_ok(d.path());
    ASSERT_TRUE(w);
    for (const auto& r : recs) ASSERT_TRUE(w->append(r).is_ok());
    EXPECT_EQ(w->disk_bytes(), layout(recs).back().second);
  }
  auto r = read_all(d.path());
  EXPECT_TRUE(same_records(r.records, recs));
  EXPECT_TRUE(r.corruptions.empty());
  EXPECT_EQ(r.stats.records, recs.size());
  uint64_t bytes = 0;
  for (const auto& s : recs) bytes += s.size();
  EXPECT_EQ(r.stats.bytes, bytes);
}

TEST(WalLog, AppendAllIsOneBatch) {
  TempDir d;
  const std::vector<std::string> recs = {"a", "", pattern(50000, 6), "z"};
  const std::vector<std::string_view> views(recs.begin(), recs.end());
  {
    auto w = open_ok(d.path());
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->append_all(views).is_ok());
    ASSERT_TRUE(w->append_all({}).is_ok());
    EXPECT_EQ(w->bytes_written(), layout(recs).back().second);
  }
  EXPECT_TRUE(same_records(read_all(d.path()).records, recs));
}

TEST(WalLog, ReopenContinuesOnAFreshPage) {
  TempDir d;
  std::vector<std::string> recs;
  uint64_t size1 = 0;
  {
    auto w = open_ok(d.path());
    ASSERT_TRUE(w);
    for (int i = 0; i < 10; ++i) {
      recs.push_back(pattern(300 + i, i));
      ASSERT_TRUE(w->append(recs.back()).is_ok());
    }
    size1 = w->disk_bytes();
  }
  std::string note;
  {
    auto w = open_ok(d.path(), {}, &note);
    ASSERT_TRUE(w);
    EXPECT_EQ(note, "");
    EXPECT_EQ(w->current_segment(), 1u);
    EXPECT_EQ(w->bytes_written(), 0u);
    recs.push_back("second session");
    ASSERT_TRUE(w->append(recs.back()).is_ok());
    EXPECT_EQ(w->bytes_written(), P - size1 + 7 + 14);
  }
  const std::string f = slurp(segment_path(d.path(), 1));
  ASSERT_EQ(f.size(), P + 7 + 14);
  EXPECT_EQ(f.substr(size1, P - size1), std::string(P - size1, '\0'));
  expect_fragment(f, P, 1, "second session");
  auto r = read_all(d.path());
  EXPECT_TRUE(same_records(r.records, recs));
  EXPECT_TRUE(r.corruptions.empty());
}

TEST(WalLog, SegmentRollingAndRemoval) {
  TempDir d;
  LogOptions opt;
  opt.segment_bytes = 3 * P;
  std::vector<std::string> recs;
  {
    auto w = open_ok(d.path(), opt);
    ASSERT_TRUE(w);
    for (int i = 0; i < 60; ++i) {
      recs.push_back(pattern(1000 + 97 * i, i));
      ASSERT_TRUE(w->append(recs.back()).is_ok());
    }
    recs.push_back(pattern(5 * P, 99));  // larger than a segment: a segment of its own
    ASSERT_TRUE(w->append(recs.back()).is_ok());
    recs.push_back("after the big one");
    ASSERT_TRUE(w->append(recs.back()).is_ok());
    auto segs = list_segments(d.path());
    ASSERT_TRUE(segs.has_value());
    ASSERT_GE(segs->size(), 4u);
    EXPECT_EQ(segs->back(), w->current_segment());
    uint64_t total = 0;
    for (uint32_t s : *segs) {
      const uint64_t size = fs::file_size(segment_path(d.path(), s));
      total += size;
      if (s + 1 < segs->back()) {
        EXPECT_LE(size, opt.segment_bytes) << "segment " << s;
      }
    }
    EXPECT_GT(fs::file_size(segment_path(d.path(), segs->back() - 1)), opt.segment_bytes);
    EXPECT_EQ(w->disk_bytes(), total);
    EXPECT_TRUE(same_records(read_all(d.path()).records, recs));

    // roll() starts a new, empty segment; remove_before() drops whole older ones.
    auto next = w->roll();
    ASSERT_TRUE(next.has_value()) << next.error();
    EXPECT_EQ(*next, segs->back() + 1);
    EXPECT_EQ(fs::file_size(segment_path(d.path(), *next)), 0u);
    ASSERT_TRUE(w->append("in the new segment").is_ok());
    recs.push_back("in the new segment");
    ASSERT_TRUE(w->sync().is_ok());

    auto from_new = read_all(d.path(), *next);
    EXPECT_TRUE(same_records(from_new.records, std::vector<std::string>{"in the new segment"}));

    const uint32_t keep = (*segs)[2];
    ASSERT_TRUE(w->remove_before(keep).is_ok());
    auto left = list_segments(d.path());
    ASSERT_TRUE(left.has_value());
    EXPECT_EQ(left->front(), keep);
    uint64_t left_total = 0;
    for (uint32_t s : *left) left_total += fs::file_size(segment_path(d.path(), s));
    EXPECT_EQ(w->disk_bytes(), left_total);
    auto r = read_all(d.path());
    EXPECT_TRUE(r.corruptions.empty());
    ASSERT_LT(r.records.size(), recs.size());
    EXPECT_TRUE(std::equal(r.records.begin(), r.records.end(), recs.end() - r.records.size()));

    // Never the current segment, whatever the argument.
    ASSERT_TRUE(w->remove_before(w->current_segment() + 10).is_ok());
    left = list_segments(d.path());
    ASSERT_TRUE(left.has_value());
    EXPECT_EQ(*left, std::vector<uint32_t>{w->current_segment()});
    ASSERT_TRUE(w->sync().is_ok());
    EXPECT_TRUE(same_records(read_all(d.path()).records, std::vector<std::string>{"in the new segment"}));
  }
}

TEST(WalLog, OpenRollsWhenTheLastSegmentIsFull) {
  TempDir d;
  LogOptions opt;
  opt.segment_bytes = P;
  {
    auto w = open_ok(d.path(), opt);
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->append(pattern(P - 7, 1)).is_ok());
  }
  auto w = open_ok(d.path(), opt);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->current_segment(), 2u);
  ASSERT_TRUE(w->append("x").is_ok());
  EXPECT_EQ(fs::file_size(segment_path(d.path(), 2)), 8u);
}

TEST(WalLog, MissingSegmentIsReported) {
  TempDir d;
  {
    auto w = open_ok(d.path());
    ASSERT_TRUE(w);
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(w->append("r" + std::to_string(i)).is_ok());
      ASSERT_TRUE(w->roll().has_value());
    }
  }
  fs::remove(segment_path(d.path(), 2));
  auto r = read_all(d.path());
  EXPECT_TRUE(same_records(r.records, (std::vector<std::string>{"r0", "r2"})));
  ASSERT_EQ(r.corruptions.size(), 1u);
  EXPECT_EQ(r.corruptions[0].file, segment_path(d.path(), 2));
  EXPECT_EQ(r.corruptions[0].reason, "segment missing");
  EXPECT_EQ(r.stats.corruptions, 1u);
  // Starting after the gap is not a gap.
  EXPECT_TRUE(read_all(d.path(), 3).corruptions.empty());
}

TEST(WalLog, TornRecordInAnEarlierSegmentIsACorruption) {
  TempDir d;
  const std::string big = pattern(50000, 7);
  {
    auto w = open_ok(d.path());
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->append("a").is_ok());
    ASSERT_TRUE(w->append(big).is_ok());
    ASSERT_TRUE(w->roll().has_value());
    ASSERT_TRUE(w->append("b").is_ok());
  }
  fs::resize_file(segment_path(d.path(), 1), P + 100);  // cut inside big's LAST fragment
  auto r = read_all(d.path());
  EXPECT_TRUE(same_records(r.records, (std::vector<std::string>{"a", "b"})));
  ASSERT_EQ(r.corruptions.size(), 1u);
  EXPECT_EQ(r.corruptions[0].file, segment_path(d.path(), 1));
  EXPECT_EQ(r.corruptions[0].offset, 8u);  // big's FIRST fragment
  EXPECT_EQ(r.corruptions[0].skipped, P + 100 - 8);
  EXPECT_NE(r.corruptions[0].reason, "torn tail");
}

TEST(WalLog, OnRecordErrorStopsTheRead) {
  TempDir d;
  {
    auto w = open_ok(d.path());
    ASSERT_TRUE(w);
    for (const char* s : {"one", "two", "three"}) ASSERT_TRUE(w->append(s).is_ok());
  }
  std::vector<std::string> seen;
  auto st = read_log(
      d.path(), 0,
      [&](std::string_view rec) {
        seen.emplace_back(rec);
        return rec == "two" ? Status::error("bad record") : Status::ok();
      },
      [](const Corruption&) {});
  ASSERT_FALSE(st.has_value());
  EXPECT_NE(st.error().find("bad record"), std::string::npos) << st.error();
  EXPECT_NE(st.error().find(segment_path(d.path(), 1)), std::string::npos) << st.error();
  EXPECT_EQ(seen, (std::vector<std::string>{"one", "two"}));
}

TEST(WalLog, GarbageLastSegmentIsTruncatedAtOpen) {
  TempDir d;
  write_file(segment_path(d.path(), 1), pattern(1000, 8));
  std::string note;
  auto w = open_ok(d.path(), {}, &note);
  ASSERT_TRUE(w);
  EXPECT_NE(note.find(segment_path(d.path(), 1)), std::string::npos) << note;
  EXPECT_NE(note.find("1000 bytes"), std::string::npos) << note;
  EXPECT_EQ(fs::file_size(segment_path(d.path(), 1)), 0u);
  ASSERT_TRUE(w->append("fresh").is_ok());
  auto r = read_all(d.path());
  EXPECT_TRUE(same_records(r.records, std::vector<std::string>{"fresh"}));
  EXPECT_TRUE(r.corruptions.empty());
}

// The multi-page log of the exhaustive tests: FULL records, zero padding at a
// page end, a record split FIRST/MIDDLE/LAST over three pages, an empty record.
std::vector<std::string> damage_test_records() {
  std::vector<std::string> recs;
  std::mt19937 rng(11);
  for (int i = 0; i < 8; ++i) recs.push_back(pattern(rng() % 40, rng()));
  recs.push_back("");
  uint64_t end = layout(recs).back().second;
  recs.push_back(pattern(P - end - 7 - 3, 12));  // leaves 3 bytes of padding in page 0
  recs.push_back(pattern(200, 13));
  recs.push_back(pattern(2 * P, 14));  // FIRST in page 1, MIDDLE page 2, LAST page 3
  for (int i = 0; i < 6; ++i) recs.push_back(pattern(rng() % 300, rng()));
  return recs;
}

// Checks one damaged copy: a report, no altered record, every record whose
// fragments avoid `page` delivered, in order.
void check_damaged(const std::string& dir, const std::vector<std::string>& recs,
                   const std::vector<std::pair<uint64_t, uint64_t>>& spans, uint64_t page, const std::string& what) {
  // Records are matched as they arrive (no copies: this runs ~100 000 times).
  size_t next = 0, reports = 0;
  std::string problem;
  auto skip_to = [&](size_t end) {  // records [next, end) were not delivered
    for (; next < end && problem.empty(); ++next) {
      if (!(spans[next].first / P <= page && page <= (spans[next].second - 1) / P)) {
        problem = "record " + std::to_string(next) + " lost though it avoids page " + std::to_string(page);
      }
    }
  };
  auto st = read_log(
      dir, 0,
      [&](std::string_view rec) {
        size_t i = next;
        while (i < recs.size() && recs[i] != rec) ++i;
        if (i == recs.size() && problem.empty())
          problem = "delivered a record that is not an original, or out of order";
        skip_to(i);
        next = std::min(i + 1, recs.size());
        return Status::ok();
      },
      [&](const Corruption&) { ++reports; });
  ASSERT_TRUE(st.has_value()) << what << ": " << st.error();
  skip_to(recs.size());
  ASSERT_EQ(problem, "") << what;
  ASSERT_GT(reports, 0u) << what << ": not reported";
  EXPECT_EQ(st->corruptions, reports) << what;
}

// The damage tests share one log (damage_test_records()), split by page so
// that each test stays short and they can run in parallel.
class WalDamage : public ::testing::TestWithParam<uint64_t> {
 protected:
  void SetUp() override {
    recs_ = damage_test_records();
    spans_ = layout(recs_);
    auto w = open_ok(d_.path());
    ASSERT_TRUE(w);
    for (const auto& r : recs_) ASSERT_TRUE(w->append(r).is_ok());
    w.reset();
    file_ = segment_path(d_.path(), 1);
    orig_ = slurp(file_);
    ASSERT_EQ(orig_.size(), spans_.back().second);
    ASSERT_GT(orig_.size(), 3 * P);
    ASSERT_TRUE(same_records(read_all(d_.path()).records, recs_));
    fd_ = ::open(file_.c_str(), O_RDWR);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
  }
  void put(uint64_t off, uint8_t b) { ASSERT_EQ(::pwrite(fd_, &b, 1, static_cast<off_t>(off)), 1); }
  // Offsets of every fragment header.
  std::vector<uint64_t> headers() const {
    std::vector<uint64_t> out;
    for (const auto& [start, end] : spans_) {
      for (uint64_t h = start; h < end; h = (h / P + 1) * P) out.push_back(h);
    }
    return out;
  }

  TempDir d_;
  std::vector<std::string> recs_;
  std::vector<std::pair<uint64_t, uint64_t>> spans_;
  std::string file_, orig_;
  int fd_ = -1;
};

TEST_P(WalDamage, EveryByteFlipOnThePageIsDetected) {
  const uint64_t page = GetParam();
  for (uint64_t off = page * P; off < std::min(orig_.size(), (page + 1) * P); ++off) {
    // One change per position, rotating through the single bits and 0xff.
    const uint8_t x = off % 9 == 8 ? 0xff : static_cast<uint8_t>(1u << (off % 9));
    put(off, byte_at(orig_, off) ^ x);
    check_damaged(d_.path(), recs_, spans_, page, "xor " + std::to_string(x) + " at " + std::to_string(off));
    put(off, byte_at(orig_, off));
    if (HasFatalFailure()) return;
  }
}

TEST_P(WalDamage, TruncationAtEveryLengthInThePage) {
  const uint64_t page = GetParam();
  const uint64_t last = std::min<uint64_t>(orig_.size(), (page + 1) * P - 1);
  // Appending after the repair is checked near every fragment boundary and at
  // a stride elsewhere (the repair itself at every length).
  std::vector<uint64_t> boundaries = headers();
  for (const auto& [start, end] : spans_) boundaries.push_back(end);
  auto near_boundary = [&](uint64_t len) {
    return std::any_of(boundaries.begin(), boundaries.end(), [&](uint64_t b) { return len + 8 >= b && len <= b + 8; });
  };
  for (uint64_t len = page * P; len <= last; ++len) {
    SCOPED_TRACE("cut at " + std::to_string(len));
    // Rewritten in place (truncating to 0 and rewriting makes ext4 flush on close).
    ASSERT_EQ(::pwrite(fd_, orig_.data(), len, 0), static_cast<ssize_t>(len));
    ASSERT_EQ(::ftruncate(fd_, static_cast<off_t>(len)), 0);
    size_t whole = 0;  // records ending at or before the cut
    while (whole < recs_.size() && spans_[whole].second <= len) ++whole;
    const uint64_t good_end = whole ? spans_[whole - 1].second : 0;
    const std::vector<std::string> prefix(recs_.begin(), recs_.begin() + static_cast<long>(whole));

    // Reading: the whole records, then a torn tail unless the cut is clean
    // (at a record end, or inside the zero padding after it).
    auto r = read_all(d_.path());
    ASSERT_TRUE(same_records(r.records, prefix));
    if (orig_.substr(good_end, len - good_end).find_first_not_of('\0') == std::string::npos) {
      ASSERT_TRUE(r.corruptions.empty()) << r.corruptions[0].reason;
    } else {
      ASSERT_EQ(r.corruptions.size(), 1u);
      EXPECT_EQ(r.corruptions[0].reason, "torn tail");
      EXPECT_EQ(r.corruptions[0].offset + r.corruptions[0].skipped, len);
      EXPECT_GE(r.corruptions[0].offset, good_end);
    }
    // Opening repairs; appending then works and nothing is reported.
    std::string note;
    auto w = open_ok(d_.path(), {}, &note);
    ASSERT_TRUE(w);
    ASSERT_EQ(fs::file_size(file_), good_end);
    EXPECT_EQ(note.empty(), len == good_end) << note;
    if (len % 61 != 0 && !near_boundary(len)) continue;
    ASSERT_TRUE(w->append("new").is_ok());
    w.reset();
    auto again = read_all(d_.path());
    std::vector<std::string> want = prefix;
    want.push_back("new");
    ASSERT_TRUE(same_records(again.records, want));
    ASSERT_TRUE(again.corruptions.empty()) << again.corruptions[0].reason;
  }
}

INSTANTIATE_TEST_SUITE_P(WalByPage, WalDamage, ::testing::Values(0, 1, 2, 3));

// Every value of each fragment's type byte, and each single-bit change and
// 0xff of its length bytes: fragments that would still parse as another
// valid fragment but for the CRC over the header.
TEST_F(WalDamage, EveryTypeAndLengthValue) {
  for (uint64_t h : headers()) {
    for (int v = 0; v < 256; ++v) {
      if (v == byte_at(orig_, h)) continue;
      put(h, static_cast<uint8_t>(v));
      check_damaged(d_.path(), recs_, spans_, h / P, "type " + std::to_string(v) + " at " + std::to_string(h));
      if (HasFatalFailure()) return;
    }
    put(h, byte_at(orig_, h));
    for (uint64_t off = h + 1; off < h + 3; ++off) {
      for (int x : {1, 2, 4, 8, 16, 32, 64, 128, 255}) {
        put(off, byte_at(orig_, off) ^ static_cast<uint8_t>(x));
        check_damaged(d_.path(), recs_, spans_, h / P,
                      "length xor " + std::to_string(x) + " at " + std::to_string(off));
        if (HasFatalFailure()) return;
      }
      put(off, byte_at(orig_, off));
    }
  }
}

TEST(WalLog, DamageReportNamesTheStretch) {
  TempDir d;
  const auto recs = damage_test_records();
  const auto spans = layout(recs);
  {
    auto w = open_ok(d.path());
    ASSERT_TRUE(w);
    for (const auto& r : recs) ASSERT_TRUE(w->append(r).is_ok());
  }
  const std::string file = segment_path(d.path(), 1);
  std::string f = slurp(file);
  // Damage the MIDDLE fragment of the three-page record (page 2).
  const size_t big = recs.size() - 7;
  ASSERT_EQ(spans[big].first / P, 1u);
  f[2 * P + 100] ^= 0x20;
  write_file(file, f);
  auto r = read_all(d.path());
  ASSERT_EQ(r.corruptions.size(), 1u);
  const Corruption& c = r.corruptions[0];
  EXPECT_EQ(c.file, file);
  EXPECT_EQ(c.offset, spans[big].first);
  EXPECT_EQ(c.skipped, spans[big + 1].first - spans[big].first);  // up to the next record, on page 3
  EXPECT_EQ(c.reason, "crc mismatch at offset " + std::to_string(2 * P));
  std::vector<std::string> want = recs;
  want.erase(want.begin() + static_cast<long>(big));
  EXPECT_TRUE(same_records(r.records, want));
}

// Runs `body` in a forked child; its exit status is the step that failed (0: none).
int in_child(const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

TEST(WalLog, FailedWriteLeavesTheLogIntactAndTheWriterUsable) {
  TempDir d;
  const std::vector<std::string> before = {"first", pattern(5000, 21), "third"};
  const std::string big = pattern(3 * P, 22), after = "after the failure";
  uint64_t end_before = 0;
  {
    auto w = open_ok(d.path());
    ASSERT_TRUE(w);
    for (const auto& r : before) ASSERT_TRUE(w->append(r).is_ok());
    end_before = w->disk_bytes();
  }
  const std::string file = segment_path(d.path(), 1);
  std::string error;
  const int pipe_size = 4096;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  // The child appends under RLIMIT_FSIZE (EFBIG with SIGXFSZ ignored): the
  // write fails after part of the record went to the file.
  const int step = in_child([&]() -> int {
    ::close(fds[0]);
    ::signal(SIGXFSZ, SIG_IGN);
    auto w = LogWriter::open(d.path());
    if (!w) return 1;
    rlimit lim{};
    ::getrlimit(RLIMIT_FSIZE, &lim);
    rlimit small = lim;
    small.rlim_cur = P + 1000;  // the fresh page starts at P: 1000 bytes of big get written
    if (::setrlimit(RLIMIT_FSIZE, &small) != 0) return 2;
    Status s = (*w)->append(big);
    if (s) return 3;
    (void)!::write(fds[1], s.message().data(), std::min<size_t>(s.message().size(), pipe_size));
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0 || static_cast<uint64_t>(st.st_size) != end_before) return 4;
    if ((*w)->bytes_written() != 0 || (*w)->disk_bytes() != end_before) return 5;
    if ((*w)->append_all({"x", big}).is_ok()) return 6;  // still failing: no partial batch left
    if (::stat(file.c_str(), &st) != 0 || static_cast<uint64_t>(st.st_size) != end_before) return 7;
    if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) return 8;
    if (!(*w)->append(after).is_ok()) return 9;
    if (!(*w)->sync().is_ok()) return 10;
    return 0;
  });
  ::close(fds[1]);
  char buf[pipe_size];
  const ssize_t n = ::read(fds[0], buf, sizeof buf);
  ::close(fds[0]);
  if (n > 0) error.assign(buf, static_cast<size_t>(n));
  ASSERT_EQ(step, 0) << "child failed at step " << step;
  EXPECT_NE(error.find(file), std::string::npos) << error;
  EXPECT_NE(error.find(std::strerror(EFBIG)), std::string::npos) << error;

  auto r = read_all(d.path());
  std::vector<std::string> want = before;
  want.push_back(after);
  EXPECT_TRUE(same_records(r.records, want));
  EXPECT_TRUE(r.corruptions.empty());
  std::string note;
  auto w = open_ok(d.path(), {}, &note);
  EXPECT_EQ(note, "");
}

// ENOSPC from a real (tiny) tmpfs, when this process may mount one: a filler
// file takes the free space, an append fails, the filler goes, appending works.
TEST(WalLog, FullFilesystemLeavesTheLogIntact) {
  TempDir d;
  const std::string mnt = sub(d, "mnt");
  fs::create_directories(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=512k") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << "); EFBIG is tested instead";
  }
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{mnt};
  const std::string dir = mnt + "/wal", filler = mnt + "/filler";
  std::vector<std::string> written = {"one", pattern(40000, 31), "three"};
  auto w = open_ok(dir);
  ASSERT_TRUE(w);
  for (const auto& r : written) ASSERT_TRUE(w->append(r).is_ok());
  const uint64_t end = w->disk_bytes();
  {
    const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    const std::string block(4096, 'f');
    while (::write(fd, block.data(), block.size()) > 0) {
    }
    ::close(fd);
  }
  Status s = w->append(pattern(3 * P, 32));
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find(std::strerror(ENOSPC)), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(segment_path(dir, 1)), std::string::npos) << s.message();
  EXPECT_EQ(fs::file_size(segment_path(dir, 1)), end);
  EXPECT_EQ(w->disk_bytes(), end);
  auto r = read_all(dir);
  EXPECT_TRUE(same_records(r.records, written));
  EXPECT_TRUE(r.corruptions.empty());

  fs::remove(filler);
  written.push_back(pattern(3 * P, 33));
  ASSERT_TRUE(w->append(written.back()).is_ok());
  ASSERT_TRUE(w->sync().is_ok());
  w.reset();
  r = read_all(dir);
  EXPECT_TRUE(same_records(r.records, written));
  EXPECT_TRUE(r.corruptions.empty());
}

}  // namespace
}  // namespace llmon::tsdb::wal
