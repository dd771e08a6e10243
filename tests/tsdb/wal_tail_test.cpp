// read_segment_from(): the tailing read remote_write's queues use.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tsdb/temp_dir.h"
#include "tsdb/wal/record_log.h"

namespace llmon::tsdb::wal {
namespace {

using llmon::testing::TempDir;

struct Got {
  std::vector<std::string> records;
  std::vector<uint64_t> ends;
  std::vector<Corruption> damage;
};

Got read_from(const std::string& dir, uint32_t seg, uint64_t from, bool last = true) {
  Got g;
  Status s = read_segment_from(
      dir, seg, from, last,
      [&](std::string_view r, uint64_t start, uint64_t end) {
        EXPECT_GE(start, from);
        g.records.emplace_back(r);
        g.ends.push_back(end);
        return Status::ok();
      },
      [&](const Corruption& c) { g.damage.push_back(c); });
  EXPECT_TRUE(s.is_ok()) << s.message();
  return g;
}

TEST(WalTail, ResumesAtEveryRecordEndWithoutFalseDamage) {
  TempDir dir;
  auto w = LogWriter::open(dir.path());
  ASSERT_TRUE(w);
  // Small records and page-spanning ones, so that some ends fall inside a
  // page after a record's LAST fragment.
  std::vector<std::string> recs;
  for (int i = 0; i < 40; ++i)
    recs.push_back(std::string(i % 7 == 3 ? 40000 : 100 + i * 37, static_cast<char>('a' + i % 26)));
  for (const auto& r : recs) ASSERT_TRUE((*w)->append(r).is_ok());
  Got all = read_from(dir.path(), 1, 0);
  ASSERT_EQ(all.records, recs);
  EXPECT_TRUE(all.damage.empty());
  for (size_t i = 0; i < recs.size(); ++i) {
    Got rest = read_from(dir.path(), 1, all.ends[i]);
    EXPECT_EQ(rest.records, std::vector<std::string>(recs.begin() + static_cast<ptrdiff_t>(i) + 1, recs.end()))
        << "from the end of record " << i;
    EXPECT_TRUE(rest.damage.empty()) << "from the end of record " << i << ": " << rest.damage[0].reason;
  }
}

TEST(WalTail, StopsWhenTheCallbackSaysSo) {
  TempDir dir;
  auto w = LogWriter::open(dir.path());
  ASSERT_TRUE(w);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*w)->append(std::string(10, 'x')).is_ok());
  int n = 0;
  Status s = read_segment_from(
      dir.path(), 1, 0, true,
      [&](std::string_view, uint64_t, uint64_t) { return ++n == 2 ? Status::error("enough") : Status::ok(); },
      [](const Corruption&) {});
  EXPECT_FALSE(s.is_ok());
  EXPECT_EQ(n, 2);
}

}  // namespace
}  // namespace llmon::tsdb::wal
