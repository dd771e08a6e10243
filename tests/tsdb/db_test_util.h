// Helpers shared by the store's durability tests (db_crash_test,
// db_corruption_test, db_concurrency_test): deterministic series and values,
// a thread-safe test clock, reading a whole metric back, a captured log, and
// small readers of the on-disk framing (docs/format/wal.md "Fragments",
// docs/format/chunks.md "Index file") used to predict exactly which records a
// damaged byte may cost. Test code only; not thread-safe unless stated.
#pragma once

#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "storage/storage.h"
#include "tsdb/temp_dir.h"

namespace llmon::testing {

inline uint64_t bits(double v) {
  return std::bit_cast<uint64_t>(v);
}

// splitmix64: a fixed, well-mixed function of its input.
inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The value series i has in cycle c: every value kind of the WAL/chunk codecs
// (integers, decimals, floats, arbitrary doubles, -0.0, NaNs with payloads)
// and now and then the staleness marker. Deterministic, so a reader can check
// any sample it gets.
inline double cycle_value(int i, int64_t c) {
  uint64_t h = mix64(static_cast<uint64_t>(i) * 1'000'003ull + static_cast<uint64_t>(c));
  if (h % 97 == 0) return std::bit_cast<double>(model::kStaleNaNBits);
  if (h % 89 == 0) return std::bit_cast<double>(0x7ff8000000000000ull | (h >> 40));  // NaN with a payload
  if (h % 83 == 0) return -0.0;
  switch (i % 5) {
    case 0:
      return static_cast<double>(i * 1000 + c);  // counter
    case 1:
      return static_cast<double>(static_cast<int64_t>(h % 100000)) / 100.0;  // 2-decimal gauge
    case 2:
      return static_cast<double>(static_cast<float>(c % 1000) * 0.37f);  // binary32 value
    case 3:
      return std::bit_cast<double>((h & 0x000fffffffffffffull) | 0x4010000000000000ull);  // any double
    default:
      return static_cast<double>(c % 7);  // 0, 1 and small integers
  }
}

// {__name__=<name>, i="<i>"} plus, when pad > 0, a label "pad" of that many
// characters (to make series records span pages).
inline model::Labels series_labels(const std::string& name, int i, size_t pad = 0) {
  std::vector<model::Label> l = {{"__name__", name}, {"i", std::to_string(i)}};
  if (pad > 0) {
    std::string p(pad, 'a');
    for (size_t k = 0; k < pad; ++k) p[k] = static_cast<char>('a' + (mix64(static_cast<uint64_t>(i) + k) % 26));
    l.push_back({"pad", std::move(p)});
  }
  auto made = model::Labels::make(std::move(l));
  EXPECT_TRUE(made.has_value());
  return *made;
}

// Every series of metric `name` with samples in [mint, maxt], by its "i"
// label. Iterator errors are returned in *err (the first one), not hidden.
inline std::map<int, std::vector<model::Sample>> read_metric(storage::Storage& st, const std::string& name,
                                                             int64_t mint, int64_t maxt, std::string* err) {
  std::map<int, std::vector<model::Sample>> out;
  auto q = st.querier(mint, maxt);
  if (!q) {
    if (err) *err = q.error();
    return out;
  }
  auto set = (*q)->select(mint, maxt, {{model::Matcher::Type::kEq, "__name__", name}});
  while (set->next()) {
    const storage::Series& s = set->at();
    int i = std::atoi(std::string(s.labels().get("i")).c_str());
    auto& v = out[i];
    auto it = s.iterator();
    while (it->next()) v.push_back(it->at());
    if (!it->err().is_ok() && err && err->empty()) *err = it->err().message();
  }
  if (!set->err().is_ok() && err && err->empty()) *err = set->err().message();
  return out;
}

// A Logger whose lines are kept in memory (open_memstream).
class CapturedLog {
 public:
  explicit CapturedLog(base::LogLevel level = base::LogLevel::kInfo)
      : f_(::open_memstream(&buf_, &len_)), log_(level, f_) {}
  ~CapturedLog() {
    if (f_) std::fclose(f_);
    std::free(buf_);
  }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;
  base::Logger& logger() { return log_; }
  std::string text() {
    std::fflush(f_);
    return std::string(buf_, len_);
  }
  // Lines written so far that contain `needle`.
  std::vector<std::string> lines_with(const std::string& needle) {
    std::vector<std::string> out;
    std::string t = text();
    size_t pos = 0;
    while (pos < t.size()) {
      size_t end = t.find('\n', pos);
      if (end == std::string::npos) end = t.size();
      std::string line = t.substr(pos, end - pos);
      if (line.find(needle) != std::string::npos) out.push_back(line);
      pos = end + 1;
    }
    return out;
  }

 private:
  char* buf_ = nullptr;
  size_t len_ = 0;
  FILE* f_;
  base::Logger log_;
};

// A temporary directory on /dev/shm when possible (temp_dir.h).
class ScratchDir : public TempDir {
 public:
  ScratchDir() : TempDir(/*prefer_shm=*/true) {}
};

// Replaces dst by a copy of src (whole trees; files only).
inline void copy_tree(const std::string& src, const std::string& dst) {
  std::error_code ec;
  std::filesystem::remove_all(dst, ec);
  std::filesystem::copy(src, dst, std::filesystem::copy_options::recursive, ec);
  ASSERT_FALSE(ec) << "copy " << src << " -> " << dst << ": " << ec.message();
}

inline std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file()) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Where the records of a well-formed log segment are, read from its framing
// (docs/format/wal.md "Fragments"): 32 KiB pages, 7-byte headers
// (type, length BE16, crc), type 0 or fewer than 7 bytes left = padding to
// the page end, FULL=1 FIRST=2 MIDDLE=3 LAST=4. Only for undamaged input.
struct LogRecordExtent {
  uint64_t start = 0;  // first byte of its first fragment
  uint64_t end = 0;    // one past its last fragment
  uint64_t first_page = 0, last_page = 0;
  std::vector<std::pair<uint64_t, uint64_t>> fragments;  // [begin, end) of each
};

// The reader checks fragment by fragment and, at the first bad one, drops the
// record being assembled and the rest of the page (docs/format/wal.md
// "Reading and resynchronisation"). So a changed byte at `pos` costs exactly
// the records with a fragment on pos's page that ends after pos: the one
// holding it (or being assembled across it) and those after it on that page.
inline bool lost_to_flip_at(const LogRecordExtent& r, uint64_t pos) {
  constexpr uint64_t kPage = 32 * 1024;
  for (const auto& [b, e] : r.fragments) {
    if (b / kPage == pos / kPage && e > pos) return true;
  }
  return false;
}

inline std::vector<LogRecordExtent> log_record_extents(const std::vector<uint8_t>& seg) {
  constexpr uint64_t kPage = 32 * 1024;
  std::vector<LogRecordExtent> out;
  LogRecordExtent cur;
  uint64_t pos = 0;
  while (pos < seg.size()) {
    uint64_t room = kPage - pos % kPage;
    if (room < 7 || seg[pos] == 0) {
      pos += room;
      continue;
    }
    EXPECT_LE(pos + 7, seg.size()) << "cut fragment header at " << pos;
    if (pos + 7 > seg.size()) break;
    uint8_t type = seg[pos];
    uint64_t len = static_cast<uint64_t>(seg[pos + 1]) << 8 | seg[pos + 2];
    uint64_t end = pos + 7 + len;
    if (type == 1 || type == 2) {
      cur = LogRecordExtent();
      cur.start = pos;
      cur.first_page = pos / kPage;
    }
    cur.fragments.emplace_back(pos, end);
    if (type == 1 || type == 4) {
      cur.end = end;
      cur.last_page = (end - 1) / kPage;
      out.push_back(cur);
    }
    pos = end;
  }
  return out;
}

// One record of a chunk index (docs/format/chunks.md "Index file"): 44 bytes
// in a version-1 .idx, 32 in a version-2 one (the header's byte 4).
struct IdxRecord {
  uint64_t ref = 0;
  int64_t min_t = 0, max_t = 0;
  uint32_t offset = 0, length = 0;
  uint16_t n = 0;
};

inline size_t idx_record_size(const std::vector<uint8_t>& idx) {
  return idx.size() > 4 && idx[4] == 1 ? 44 : 32;
}

inline std::vector<IdxRecord> parse_idx(const std::vector<uint8_t>& idx) {
  auto le = [&](size_t p, int n) {
    uint64_t v = 0;
    for (int k = n - 1; k >= 0; --k) v = v << 8 | idx[p + static_cast<size_t>(k)];
    return v;
  };
  const size_t size = idx_record_size(idx);
  std::vector<IdxRecord> out;
  for (size_t p = 8; p + size <= idx.size(); p += size) {
    IdxRecord r;
    if (size == 44) {
      r.ref = le(p, 8);
      r.min_t = static_cast<int64_t>(le(p + 8, 8));
      r.max_t = static_cast<int64_t>(le(p + 16, 8));
      r.offset = static_cast<uint32_t>(le(p + 24, 4));
      r.length = static_cast<uint32_t>(le(p + 28, 4));
      r.n = static_cast<uint16_t>(le(p + 32, 2));
    } else {
      r.ref = le(p, 5);
      r.min_t = static_cast<int64_t>(le(p + 5, 6) << 16) >> 16;
      r.max_t = r.min_t + static_cast<int64_t>(le(p + 11, 4));
      r.offset = static_cast<uint32_t>(le(p + 15, 4));
      r.length = static_cast<uint32_t>(le(p + 19, 3));
      r.n = static_cast<uint16_t>(le(p + 22, 2));
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace llmon::testing
