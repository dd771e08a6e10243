// Byte flips and truncations in every file type of the store, at the Db
// level: the series log, WAL segments, chunk .idx and .dat files. For each
// damage the directory is restored from a pristine copy, damaged, and opened;
// then: Db::open succeeds, the damage is reported (stats().repairs at open;
// for chunk bytes at read, through head.corrupt_chunks) whenever it is
// detectable, and the samples read back are EXACTLY the undamaged ones — the
// loss predicted from the format (docs/format/wal.md, chunks.md): for the logs
// the records with a fragment on the damaged page at or after the damaged
// byte, for .idx the record hit, for .dat the chunk hit — nothing more, and
// never a wrong value. Complements the file-level tests (wal_log_test,
// chunk_store_test). Works under /dev/shm when it exists (hundreds of
// reopenings; fsyncs cost nothing there).
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "tsdb/db.h"
#include "tsdb/db_test_util.h"
#include "tsdb/temp_dir.h"
#include "tsdb/wal/record_log.h"
#include "tsdb/wal/records.h"

namespace llmon::tsdb {
namespace {

using llmon::testing::bits;
using llmon::testing::copy_tree;
using llmon::testing::cycle_value;
using llmon::testing::IdxRecord;
using llmon::testing::log_record_extents;
using llmon::testing::LogRecordExtent;
using llmon::testing::mix64;
using llmon::testing::read_bytes;
using llmon::testing::read_metric;
using llmon::testing::ScratchDir;
using llmon::testing::series_labels;
using llmon::testing::write_bytes;
using model::Sample;
namespace fs = std::filesystem;

using SeriesSamples = std::map<int, std::vector<Sample>>;

constexpr int64_t kT0 = 1'000'000'000;
int64_t t_of(int64_t c) {
  return kT0 + c * 1000;
}

DbOptions base_options(const std::string& dir) {
  DbOptions o;
  o.path = dir;
  o.background = false;
  o.min_free_bytes = 0;
  o.retention_ms = 0;
  o.fsync_interval_ms = 1000;
  return o;
}

// "" when got == want sample for sample (bit-exact values), else the first
// few differences.
std::string compare(const SeriesSamples& want, const SeriesSamples& got) {
  std::ostringstream out;
  int problems = 0;
  for (const auto& [i, g] : got) {
    if (g.empty()) continue;
    if (want.find(i) == want.end() || want.at(i).empty()) {
      out << "series " << i << " should be gone, has " << g.size() << " samples from t=" << g.front().t_ms << "\n";
      if (++problems >= 5) return out.str();
    }
  }
  for (const auto& [i, w] : want) {
    auto it = got.find(i);
    const std::vector<Sample> none;
    const auto& g = it == got.end() ? none : it->second;
    size_t n = std::min(w.size(), g.size());
    size_t k = 0;
    while (k < n && w[k].t_ms == g[k].t_ms && bits(w[k].v) == bits(g[k].v)) ++k;
    if (k == w.size() && k == g.size()) continue;
    out << "series " << i << ": want " << w.size() << " samples, got " << g.size();
    if (k < n) {
      out << "; first difference at #" << k << ": want t=" << w[k].t_ms << " bits=" << std::hex << bits(w[k].v)
          << ", got t=" << std::dec << g[k].t_ms << " bits=" << std::hex << bits(g[k].v) << std::dec;
    } else if (k < w.size()) {
      out << "; missing from t=" << w[k].t_ms;
    } else {
      out << "; extra from t=" << g[k].t_ms;
    }
    out << "\n";
    if (++problems >= 5) break;
  }
  return out.str();
}

struct Opened {
  bool ok = false;
  std::string error;
  DbStats at_open;     // stats right after open (repairs)
  DbStats after_read;  // after reading everything (head.corrupt_chunks)
  SeriesSamples got;
  std::string read_error;
  std::string log;
  bool commit_ok = false;  // the repaired store takes a new cycle
};

// Opens dir, reads `metric` back, commits one more sample, closes.
Opened open_and_read(const DbOptions& o, const std::string& metric) {
  Opened r;
  llmon::testing::CapturedLog log(base::LogLevel::kWarn);
  base::ManualClock clock(kT0);
  auto db = Db::open(o, log.logger(), clock);
  if (!db) {
    r.error = db.error();
    return r;
  }
  r.ok = true;
  r.at_open = (*db)->stats();
  r.got = read_metric(**db, metric, 0, INT64_MAX, &r.read_error);
  r.after_read = (*db)->stats();
  auto app = (*db)->appender();
  r.commit_ok =
      app->append(0, series_labels("after_repair", 0), t_of(1'000'000), 1).has_value() && app->commit().is_ok();
  (void)(*db)->close();
  r.log = log.text();
  return r;
}

void flip_byte(const std::string& path, uint64_t pos, uint8_t mask) {
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0) << path;
  uint8_t b = 0;
  ASSERT_EQ(::pread(fd, &b, 1, static_cast<off_t>(pos)), 1) << path << " at " << pos;
  b ^= mask;
  ASSERT_EQ(::pwrite(fd, &b, 1, static_cast<off_t>(pos)), 1);
  ::close(fd);
}

void truncate_file(const std::string& path, uint64_t len) {
  fs::resize_file(path, len);
}

// Positions to damage in a file of `size` bytes: all of [0, head) and the
// last `tail` bytes, `around` +-2 of each listed offset, and about `spread`
// more spread over the file (odd stride, so every byte column of a record is
// hit somewhere).
std::vector<uint64_t> positions(uint64_t size, uint64_t head, uint64_t tail, const std::vector<uint64_t>& around,
                                uint64_t spread) {
  std::set<uint64_t> s;
  for (uint64_t p = 0; p < std::min(head, size); ++p) s.insert(p);
  for (uint64_t p = size > tail ? size - tail : 0; p < size; ++p) s.insert(p);
  for (uint64_t a : around) {
    for (uint64_t p = a >= 2 ? a - 2 : 0; p <= a + 2; ++p) {
      if (p < size) s.insert(p);
    }
  }
  uint64_t stride = std::max<uint64_t>(1, size / std::max<uint64_t>(1, spread)) | 1;
  for (uint64_t p = stride / 2; p < size; p += stride) s.insert(p);
  return {s.begin(), s.end()};
}

enum class Repair { kNone, kSome, kAny };

// Checks one damaged copy: open succeeded, the repair count matches the
// expectation, what was read back is exactly `want`, and the store takes a
// new commit. Returns false (after reporting) when the case failed.
bool check_case(const std::string& what, const Opened& r, const SeriesSamples& want, Repair repair,
                bool expect_corrupt_read = false) {
  if (!r.ok) {
    ADD_FAILURE() << what << ": Db::open failed: " << r.error;
    return false;
  }
  bool ok = true;
  auto fail = [&](const std::string& why) {
    ADD_FAILURE() << what << ": " << why << "\n" << r.log;
    ok = false;
  };
  if (!r.read_error.empty()) fail("query error: " + r.read_error);
  if (repair == Repair::kSome && r.at_open.repairs == 0) fail("damage not reported at open (repairs 0)");
  if (repair == Repair::kNone && r.at_open.repairs != 0) {
    fail("repairs " + std::to_string(r.at_open.repairs) + " where none was expected");
  }
  if (expect_corrupt_read && r.after_read.head.corrupt_chunks == 0) fail("corrupt chunk read but not counted");
  if (std::string diff = compare(want, r.got); !diff.empty())
    fail("read back differs from the undamaged data:\n" + diff);
  if (!r.commit_ok) fail("the repaired store does not accept a new commit");
  return ok;
}

// Stop a loop after this many failed cases (the rest would repeat them).
constexpr int kMaxFailedCases = 5;

// ------------------------------------------------------------------- WAL

// Commit k of the WAL test holds, for each of 100 series, the samples at
// t_of(k * 100 + j) for j < wal_steps(k): 1 normally, 10 every ninth commit
// (records of ~12 KB) and 56 in commit 20 (~70 KB: FIRST, MIDDLE and LAST
// fragments, in a segment of its own). Series past 20 hold arbitrary doubles
// (8 bytes each).
constexpr int kWalSeries = 100;
int wal_steps(int64_t k) {
  if (k == 20) return 56;
  return k % 9 == 4 ? 10 : 1;
}
int64_t wal_cycle(int64_t k, int j) {
  return k * 100 + j;
}
double wal_value(int i, int64_t c) {
  if (i < 20) return cycle_value(i, c);
  return std::bit_cast<double>((mix64(static_cast<uint64_t>(i) << 32 | static_cast<uint64_t>(c)) >> 12) |
                               0x3ff0000000000000ull);
}

TEST(DbCorruption, WalFlipsAndTruncationsCostOnlyTheRecordsTheyTouch) {
  constexpr int64_t kCycles = 40;
  ScratchDir dir;
  const std::string pristine = dir.path() + "/pristine", work = dir.path() + "/work";
  auto opts = [](const std::string& d) {
    DbOptions o = base_options(d);
    o.head.chunk_range_ms = 24 * 3600 * 1000;  // no boundary: everything stays in the WAL
    o.wal_segment_bytes = 64 << 10;
    return o;
  };
  std::vector<model::Labels> labels;
  for (int i = 0; i < kWalSeries; ++i) labels.push_back(series_labels("walm", i));
  {
    base::Logger log(base::LogLevel::kError);
    base::ManualClock clock(kT0);
    auto db = Db::open(opts(pristine), log, clock);
    ASSERT_TRUE(db.has_value()) << db.error();
    for (int64_t c = 0; c < kCycles; ++c) {
      auto app = (*db)->appender();
      for (int i = 0; i < kWalSeries; ++i) {
        for (int j = 0; j < wal_steps(c); ++j) {
          int64_t cy = wal_cycle(c, j);
          ASSERT_TRUE(app->append(0, labels[static_cast<size_t>(i)], t_of(cy), wal_value(i, cy)).has_value());
        }
      }
      ASSERT_TRUE(app->commit().is_ok());
    }
  }
  // The WAL records, in segment order, are the commits in order.
  struct Rec {
    std::string file;
    LogRecordExtent ext;
    int64_t cycle;
  };
  std::vector<Rec> recs;
  std::vector<std::string> files;
  auto segs = wal::list_segments(pristine + "/wal");
  ASSERT_TRUE(segs.has_value());
  for (uint32_t s : *segs) {
    std::string rel = "/wal/" + fs::path(wal::segment_path(pristine + "/wal", s)).filename().string();
    files.push_back(rel);
    for (const auto& e : log_record_extents(read_bytes(pristine + rel))) {
      recs.push_back({rel, e, static_cast<int64_t>(recs.size())});
    }
  }
  ASSERT_EQ(recs.size(), static_cast<size_t>(kCycles)) << "one WAL record per commit expected";
  ASSERT_GE(recs[20].ext.last_page, recs[20].ext.first_page + 2) << "commit 20 should span three pages";
  ASSERT_GE(files.size(), 3u) << "the test wants several WAL segments";

  auto want_without = [&](const std::set<int64_t>& lost) {
    SeriesSamples want;
    for (int64_t c = 0; c < kCycles; ++c) {
      if (lost.count(c)) continue;
      for (int i = 0; i < kWalSeries; ++i) {
        for (int j = 0; j < wal_steps(c); ++j)
          want[i].push_back({t_of(wal_cycle(c, j)), wal_value(i, wal_cycle(c, j))});
      }
    }
    return want;
  };

  int cases = 0, failed = 0;
  for (const std::string& rel : files) {
    const auto orig = read_bytes(pristine + rel);
    // Around page starts, the records spanning pages and every fourth record start.
    std::vector<uint64_t> marks = {wal::kPageSize, 2 * wal::kPageSize};
    for (const auto& r : recs) {
      if (r.file == rel && (r.cycle % 4 == 0 || r.ext.last_page > r.ext.first_page)) marks.push_back(r.ext.start);
    }
    // Flips: lost = the records with a fragment on the damaged page ending after the flip.
    for (uint64_t pos : positions(orig.size(), 8, 4, marks, 30)) {
      copy_tree(pristine, work);
      flip_byte(work + rel, pos, static_cast<uint8_t>(1u << (pos % 8)));
      std::set<int64_t> lost;
      for (const auto& r : recs) {
        if (r.file == rel && llmon::testing::lost_to_flip_at(r.ext, pos)) lost.insert(r.cycle);
      }
      if (!check_case(rel + " flip at " + std::to_string(pos), open_and_read(opts(work), "walm"), want_without(lost),
                      Repair::kSome) &&
          ++failed >= kMaxFailedCases) {
        return;
      }
      ++cases;
    }
    // Truncations: lost = the records not wholly before the cut (and, in an
    // earlier segment, only those). Reported when a record is cut; a cut at
    // a record boundary looks like a log that ended there (the format keeps
    // no record count): never reported in the last segment, not required to
    // be in an earlier one.
    std::vector<uint64_t> lens = {0, 1, 6, 7, 8, orig.size() - 1};
    for (const auto& r : recs) {
      if (r.file != rel || (r.cycle % 3 != 0 && r.ext.last_page == r.ext.first_page)) continue;
      for (uint64_t d : {0, 1, 8}) {
        if (r.ext.end >= d) lens.push_back(r.ext.end - d);
      }
    }
    for (uint64_t p = wal::kPageSize; p < orig.size(); p += wal::kPageSize) lens.push_back(p);
    for (uint64_t len : std::set<uint64_t>(lens.begin(), lens.end())) {
      if (len >= orig.size()) continue;
      copy_tree(pristine, work);
      truncate_file(work + rel, len);
      std::set<int64_t> lost;
      bool cut = false;
      for (const auto& r : recs) {
        if (r.file != rel) continue;
        if (r.ext.end > len) lost.insert(r.cycle);
        if (r.ext.start < len && len < r.ext.end) cut = true;
      }
      const bool last_segment = rel == files.back();
      if (!check_case(rel + " truncated to " + std::to_string(len), open_and_read(opts(work), "walm"),
                      want_without(lost),
                      cut            ? Repair::kSome
                      : last_segment ? Repair::kNone
                                     : Repair::kAny) &&
          ++failed >= kMaxFailedCases) {
        return;
      }
      ++cases;
    }
  }
  std::printf("[ corrupt  ] WAL: %d damaged copies checked over %zu segments, %zu records\n", cases, files.size(),
              recs.size());
}

// ------------------------------------------------------------ series log

// Cycle c holds series 0..c, so commit c logs exactly series c, in a record
// of its own; a 1 200-byte label makes the log span several pages.
TEST(DbCorruption, SeriesLogFlipsAndTruncationsCostOnlyTheirSeries) {
  constexpr int64_t kCycles = 70;
  ScratchDir dir;
  const std::string pristine = dir.path() + "/pristine", work = dir.path() + "/work";
  auto opts = [](const std::string& d) {
    DbOptions o = base_options(d);
    o.head.chunk_range_ms = 3600 * 1000;
    return o;
  };
  {
    base::Logger log(base::LogLevel::kError);
    base::ManualClock clock(kT0);
    auto db = Db::open(opts(pristine), log, clock);
    ASSERT_TRUE(db.has_value()) << db.error();
    for (int64_t c = 0; c < kCycles; ++c) {
      auto app = (*db)->appender();
      for (int i = 0; i <= c; ++i)
        ASSERT_TRUE(app->append(0, series_labels("sl", i, 1200), t_of(c), cycle_value(i, c)));
      ASSERT_TRUE(app->commit().is_ok());
    }
  }
  auto segs = wal::list_segments(pristine + "/series");
  ASSERT_TRUE(segs.has_value());
  ASSERT_EQ(segs->size(), 1u);
  const std::string rel =
      "/series/" + fs::path(wal::segment_path(pristine + "/series", segs->front())).filename().string();
  const auto orig = read_bytes(pristine + rel);
  auto ext = log_record_extents(orig);
  ASSERT_EQ(ext.size(), static_cast<size_t>(kCycles));
  ASSERT_GE(orig.size(), 2 * wal::kPageSize);
  // Record j is series j alone.
  int64_t j = 0;
  auto rd = wal::read_log(
      pristine + "/series", 0,
      [&](std::string_view rec) -> Status {
        std::vector<wal::SeriesEntry> e;
        if (Status st = wal::decode_series(rec, e); !st) return st;
        EXPECT_EQ(e.size(), 1u);
        if (!e.empty()) {
          EXPECT_EQ(e[0].labels.get("i"), std::to_string(j));
        }
        ++j;
        return Status::ok();
      },
      [](const wal::Corruption& c) { ADD_FAILURE() << "pristine series log damaged: " << c.reason; });
  ASSERT_TRUE(rd.has_value()) << rd.error();
  ASSERT_EQ(j, kCycles);

  auto want_without = [&](const std::set<int>& lost) {
    SeriesSamples want;
    for (int i = 0; i < kCycles; ++i) {
      if (lost.count(i)) continue;
      for (int64_t c = i; c < kCycles; ++c) want[i].push_back({t_of(c), cycle_value(i, c)});
    }
    return want;
  };
  std::vector<uint64_t> marks = {wal::kPageSize, 2 * wal::kPageSize};
  for (const auto& e : ext) marks.push_back(e.start);
  int cases = 0, failed = 0;
  for (uint64_t pos : positions(orig.size(), 16, 8, marks, 60)) {
    copy_tree(pristine, work);
    flip_byte(work + rel, pos, static_cast<uint8_t>(0x80u >> (pos % 8)));
    std::set<int> lost;
    for (int i = 0; i < kCycles; ++i) {
      const auto& e = ext[static_cast<size_t>(i)];
      if (llmon::testing::lost_to_flip_at(e, pos)) lost.insert(i);
    }
    if (!check_case("series log flip at " + std::to_string(pos), open_and_read(opts(work), "sl"), want_without(lost),
                    Repair::kSome) &&
        ++failed >= kMaxFailedCases) {
      return;
    }
    ++cases;
  }
  std::vector<uint64_t> lens = {0, 3, 7, 8, orig.size() - 1};
  for (size_t k = 0; k < ext.size(); k += 7) {
    for (uint64_t d : {0, 1, 9}) lens.push_back(ext[k].end - d);
  }
  for (uint64_t len : std::set<uint64_t>(lens.begin(), lens.end())) {
    copy_tree(pristine, work);
    truncate_file(work + rel, len);
    std::set<int> lost;
    bool cut = false;
    for (int i = 0; i < kCycles; ++i) {
      const auto& e = ext[static_cast<size_t>(i)];
      if (e.end > len) lost.insert(i);
      if (e.start < len && len < e.end) cut = true;
    }
    // A cut at a record boundary is found too when the lost series have
    // data (chunks or WAL samples referencing refs past the last record).
    if (!check_case("series log truncated to " + std::to_string(len), open_and_read(opts(work), "sl"),
                    want_without(lost), cut || !lost.empty() ? Repair::kSome : Repair::kNone) &&
        ++failed >= kMaxFailedCases) {
      return;
    }
    ++cases;
  }
  std::printf("[ corrupt  ] series log: %d damaged copies checked (%zu bytes, %zu records)\n", cases, orig.size(),
              ext.size());
}

// Series whose log records were lost at the tail (a torn series log whose WAL
// made it to disk, or damage) must not hand their refs to the next new
// series: the WAL still holds samples under those refs, and the next
// recovery would replay them into the new series.
TEST(DbCorruption, SeriesLostFromTheLogTailDoNotLendTheirRefsToNewSeries) {
  ScratchDir dir;
  const std::string d = dir.path() + "/db";
  DbOptions o = base_options(d);
  o.head.chunk_range_ms = 3600 * 1000;
  base::Logger log(base::LogLevel::kError);
  base::ManualClock clock(kT0);
  {
    auto db = Db::open(o, log, clock);
    ASSERT_TRUE(db.has_value()) << db.error();
    for (int64_t c = 0; c < 10; ++c) {
      auto app = (*db)->appender();
      for (int i = 0; i <= c; ++i) ASSERT_TRUE(app->append(0, series_labels("old", i), t_of(c), cycle_value(i, c)));
      ASSERT_TRUE(app->commit().is_ok());
    }
  }
  // Cut the series log after the record of series 7: series 8 and 9 are lost
  // (their samples stay in the WAL).
  auto segs = wal::list_segments(d + "/series");
  ASSERT_TRUE(segs.has_value() && segs->size() == 1);
  const std::string path = wal::segment_path(d + "/series", segs->front());
  auto ext = log_record_extents(read_bytes(path));
  ASSERT_EQ(ext.size(), 10u);
  truncate_file(path, ext[7].end);
  {
    auto db = Db::open(o, log, clock);
    ASSERT_TRUE(db.has_value()) << db.error();
    EXPECT_EQ((*db)->stats().series, 8u);
    auto app = (*db)->appender();
    for (int i = 0; i < 2; ++i) ASSERT_TRUE(app->append(0, series_labels("new", i), t_of(100), 42));
    ASSERT_TRUE(app->commit().is_ok());
  }
  auto db = Db::open(o, log, clock);
  ASSERT_TRUE(db.has_value()) << db.error();
  std::string err;
  auto got = read_metric(**db, "new", 0, INT64_MAX, &err);
  EXPECT_EQ(err, "");
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(got[i].size(), 1u) << "new series " << i
                                 << " got the samples of a lost series (ref reused): first t=" << got[i].front().t_ms;
    EXPECT_EQ(got[i][0].t_ms, t_of(100));
  }
}

// ---------------------------------------------------------- chunk files

// 20 series, 75 cycles of 1 s, 10 s chunks, a flush per boundary and a final
// flush(true): everything is in chunk segments (several: small segments),
// the WAL is empty, so a lost chunk is lost data.
struct ChunkFixture {
  static constexpr int kSeries = 20;
  static constexpr int64_t kCycles = 75;
  std::string pristine, work;
  std::map<uint64_t, int> series_of_ref;
  struct Seg {
    std::string idx_rel, dat_rel;
    std::vector<IdxRecord> recs;
  };
  std::vector<Seg> segs;

  static DbOptions opts(const std::string& d) {
    DbOptions o = base_options(d);
    o.head.chunk_range_ms = 10'000;
    o.chunks.segment_bytes = 2000;
    return o;
  }

  void build(const std::string& root) {
    pristine = root + "/pristine";
    work = root + "/work";
    base::Logger log(base::LogLevel::kError);
    base::ManualClock clock(kT0);
    auto db = Db::open(opts(pristine), log, clock);
    ASSERT_TRUE(db.has_value()) << db.error();
    for (int64_t c = 0; c < kCycles; ++c) {
      auto app = (*db)->appender();
      for (int i = 0; i < kSeries; ++i) ASSERT_TRUE(app->append(0, series_labels("cm", i), t_of(c), cycle_value(i, c)));
      ASSERT_TRUE(app->commit().is_ok());
      if (c % 10 == 9) {
        ASSERT_TRUE((*db)->flush().is_ok());
      }
    }
    ASSERT_TRUE((*db)->flush(true).is_ok());
    ASSERT_TRUE((*db)->close().is_ok());
    (*db).reset();
    auto rd = wal::read_log(
        pristine + "/series", 0,
        [&](std::string_view rec) -> Status {
          std::vector<wal::SeriesEntry> e;
          if (Status st = wal::decode_series(rec, e); !st) return st;
          for (const auto& s : e) series_of_ref[s.ref] = std::atoi(std::string(s.labels.get("i")).c_str());
          return Status::ok();
        },
        [](const wal::Corruption& c) { ADD_FAILURE() << c.reason; });
    ASSERT_TRUE(rd.has_value());
    ASSERT_EQ(series_of_ref.size(), static_cast<size_t>(kSeries));
    for (const auto& f : llmon::testing::files_in(pristine + "/chunks")) {
      if (f.size() < 4 || f.substr(f.size() - 4) != ".idx") continue;
      Seg s;
      std::string name = fs::path(f).filename().string();
      s.idx_rel = "/chunks/" + name;
      s.dat_rel = "/chunks/" + name.substr(0, name.size() - 4) + ".dat";
      s.recs = llmon::testing::parse_idx(read_bytes(f));
      segs.push_back(s);
    }
    ASSERT_GE(segs.size(), 3u) << "the test wants several chunk segments";
    size_t chunks = 0, samples = 0;
    for (const auto& s : segs) {
      chunks += s.recs.size();
      for (const auto& r : s.recs) samples += r.n;
    }
    ASSERT_EQ(samples, static_cast<size_t>(kSeries * kCycles));
    // [0,10) ... [50,60) one per flush; [60,70) and [70,75), persisted by the
    // final flush together, one group chunk per series (chunks.md "Groups").
    ASSERT_EQ(chunks, static_cast<size_t>(kSeries) * 7);
  }

  // Everything, minus the samples of the listed chunks (segment, record).
  SeriesSamples want_without(const std::set<std::pair<size_t, size_t>>& lost) const {
    SeriesSamples want;
    for (int i = 0; i < kSeries; ++i) {
      for (int64_t c = 0; c < kCycles; ++c) {
        bool gone = false;
        for (const auto& [s, r] : lost) {
          const IdxRecord& rec = segs[s].recs[r];
          if (series_of_ref.at(rec.ref) == i && rec.min_t <= t_of(c) && t_of(c) <= rec.max_t) gone = true;
        }
        if (!gone) want[i].push_back({t_of(c), cycle_value(i, c)});
      }
    }
    return want;
  }
  std::set<std::pair<size_t, size_t>> whole_segment(size_t s) const {
    std::set<std::pair<size_t, size_t>> out;
    for (size_t r = 0; r < segs[s].recs.size(); ++r) out.insert({s, r});
    return out;
  }
};

TEST(DbCorruption, ChunkIndexFlipsAndTruncationsCostOnlyTheirChunks) {
  ScratchDir dir;
  ChunkFixture f;
  ASSERT_NO_FATAL_FAILURE(f.build(dir.path()));
  int cases = 0, failed = 0;
  for (size_t s = 0; s < f.segs.size(); ++s) {
    const std::string rel = f.segs[s].idx_rel;
    const auto orig = read_bytes(f.pristine + rel);
    const bool last = s + 1 == f.segs.size();
    const uint64_t rs = llmon::testing::idx_record_size(orig);
    // Every byte of the header and of the first, second and last record;
    // elsewhere each of the record's byte columns at least once.
    std::vector<uint64_t> poss;
    for (uint64_t p = 0; p < std::min<uint64_t>(orig.size(), 8 + 2 * rs); ++p) poss.push_back(p);
    for (uint64_t p = orig.size() - rs; p < orig.size(); ++p) poss.push_back(p);
    for (uint64_t col = 0; col < rs; ++col) poss.push_back(8 + ((col * 7) % f.segs[s].recs.size()) * rs + col);
    for (uint64_t pos : std::set<uint64_t>(poss.begin(), poss.end())) {
      copy_tree(f.pristine, f.work);
      flip_byte(f.work + rel, pos, 0x04);
      std::set<std::pair<size_t, size_t>> lost;
      Repair rep = Repair::kSome;
      if (pos < 5) {
        lost = f.whole_segment(s);  // magic/version: the segment is ignored
      } else if (pos < 8) {
        rep = Repair::kAny;  // reserved header bytes: not checked, nothing depends on them
      } else {
        lost.insert({s, (pos - 8) / rs});
      }
      if (!check_case(rel + " flip at " + std::to_string(pos), open_and_read(ChunkFixture::opts(f.work), "cm"),
                      f.want_without(lost), rep) &&
          ++failed >= kMaxFailedCases) {
        return;
      }
      ++cases;
    }
    std::set<uint64_t> lens = {0, 4, 7, 8, 9, orig.size() - 1};
    for (uint64_t k = 1; k < f.segs[s].recs.size(); k += 3) {
      for (uint64_t d : {uint64_t{0}, uint64_t{1}, rs / 2}) lens.insert(8 + k * rs - d);
    }
    for (uint64_t len : lens) {
      if (len >= orig.size()) continue;
      copy_tree(f.pristine, f.work);
      truncate_file(f.work + rel, len);
      std::set<std::pair<size_t, size_t>> lost;
      if (len < 8) {
        lost = f.whole_segment(s);
      } else {
        for (size_t r = (len - 8) / rs; r < f.segs[s].recs.size(); ++r) lost.insert({s, r});
      }
      // Reported in every case: a cut inside a record is a torn record, and
      // lost whole records leave .dat bytes no index record covers (the
      // active segment's are truncated, a sealed segment's reported).
      if (!check_case(rel + (last ? " (active segment)" : " (sealed segment)") + " truncated to " + std::to_string(len),
                      open_and_read(ChunkFixture::opts(f.work), "cm"), f.want_without(lost), Repair::kSome) &&
          ++failed >= kMaxFailedCases) {
        return;
      }
      ++cases;
    }
  }
  std::printf("[ corrupt  ] chunk .idx: %d damaged copies checked over %zu segments\n", cases, f.segs.size());
}

TEST(DbCorruption, ChunkDataFlipsAndTruncationsCostOnlyTheirChunks) {
  ScratchDir dir;
  ChunkFixture f;
  ASSERT_NO_FATAL_FAILURE(f.build(dir.path()));
  int cases = 0, failed = 0;
  for (size_t s = 0; s < f.segs.size(); ++s) {
    const std::string rel = f.segs[s].dat_rel;
    const auto orig = read_bytes(f.pristine + rel);
    const auto& recs = f.segs[s].recs;
    // The chunk holding each byte of the file.
    auto chunk_at = [&](uint64_t pos) -> std::optional<size_t> {
      for (size_t r = 0; r < recs.size(); ++r) {
        if (recs[r].offset <= pos && pos < uint64_t{recs[r].offset} + recs[r].length) return r;
      }
      return std::nullopt;
    };
    std::vector<uint64_t> poss;
    for (uint64_t p = 0; p < 8; ++p) poss.push_back(p);
    for (const auto& r : recs) {
      poss.push_back(r.offset);
      poss.push_back(r.offset + r.length / 2);
      poss.push_back(r.offset + r.length - 1);
    }
    for (uint64_t pos : std::set<uint64_t>(poss.begin(), poss.end())) {
      copy_tree(f.pristine, f.work);
      flip_byte(f.work + rel, pos, 0x20);
      std::set<std::pair<size_t, size_t>> lost;
      Repair rep = Repair::kNone;  // chunk bytes are checked when read, not at open
      bool corrupt_read = false;
      if (pos < 5) {
        lost = f.whole_segment(s);  // bad header: ignored at open
        rep = Repair::kSome;
      } else if (pos < 8) {
        // reserved header bytes: nothing lost
      } else {
        auto r = chunk_at(pos);
        ASSERT_TRUE(r.has_value()) << "byte " << pos << " of " << rel << " is in no chunk";
        lost.insert({s, *r});
        corrupt_read = true;
      }
      if (!check_case(rel + " flip at " + std::to_string(pos), open_and_read(ChunkFixture::opts(f.work), "cm"),
                      f.want_without(lost), rep, corrupt_read) &&
          ++failed >= kMaxFailedCases) {
        return;
      }
      ++cases;
    }
    std::set<uint64_t> lens = {0, 5, 7, 8, orig.size() - 1};
    for (size_t r = 0; r < recs.size(); r += 4) {
      lens.insert(recs[r].offset);
      lens.insert(recs[r].offset + 1);
    }
    for (uint64_t len : lens) {
      if (len >= orig.size()) continue;
      copy_tree(f.pristine, f.work);
      truncate_file(f.work + rel, len);
      std::set<std::pair<size_t, size_t>> lost;
      if (len < 8) {
        lost = f.whole_segment(s);
      } else {
        for (size_t r = 0; r < recs.size(); ++r) {
          if (uint64_t{recs[r].offset} + recs[r].length > len) lost.insert({s, r});
        }
      }
      if (!check_case(rel + " truncated to " + std::to_string(len), open_and_read(ChunkFixture::opts(f.work), "cm"),
                      f.want_without(lost), Repair::kSome) &&
          ++failed >= kMaxFailedCases) {
        return;
      }
      ++cases;
    }
  }
  std::printf("[ corrupt  ] chunk .dat: %d damaged copies checked over %zu segments\n", cases, f.segs.size());
}

// A kill while ChunkStore creates a segment (between creating the files and
// writing their 8-byte headers) leaves a header-less last segment: a torn
// tail. It must not prevent start-up, must be reported, and — holding
// nothing — must be dropped, not reported again at every later start.
TEST(DbCorruption, ChunkSegmentCreationCutShortIsATornTail) {
  struct Variant {
    const char* what;
    uint64_t dat_bytes;  // of the new segment's .dat
    int64_t idx_bytes;   // of its .idx (-1: absent)
  };
  for (const Variant& v : {Variant{"empty .dat, no .idx", 0, -1}, Variant{"empty .dat and .idx", 0, 0},
                           Variant{".dat header written, empty .idx", 8, 0}, Variant{"3-byte .dat", 3, -1}}) {
    SCOPED_TRACE(v.what);
    ScratchDir dir;
    ChunkFixture f;
    ASSERT_NO_FATAL_FAILURE(f.build(dir.path()));
    copy_tree(f.pristine, f.work);
    const uint32_t next = static_cast<uint32_t>(f.segs.size() + 1);
    const std::string dat = segment_data_path(f.work + "/chunks", next);
    const std::string idx = segment_index_path(f.work + "/chunks", next);
    std::vector<uint8_t> header = read_bytes(f.pristine + f.segs[0].dat_rel);
    header.resize(v.dat_bytes);
    write_bytes(dat, header);
    if (v.idx_bytes >= 0) write_bytes(idx, {});
    Opened r = open_and_read(ChunkFixture::opts(f.work), "cm");
    ASSERT_TRUE(check_case(std::string(v.what) + ", first open", r, f.want_without({}), Repair::kSome));
    // Later starts: nothing left to report.
    Opened again = open_and_read(ChunkFixture::opts(f.work), "cm");
    EXPECT_TRUE(check_case(std::string(v.what) + ", second open", again, f.want_without({}), Repair::kNone))
        << "the header-less segment is reported at every start";
  }
}

}  // namespace
}  // namespace llmon::tsdb
