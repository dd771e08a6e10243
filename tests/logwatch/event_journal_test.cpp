#include "logwatch/event_journal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/clock.h"
#include "logwatch/event_json.h"
#include "tsdb/temp_dir.h"

namespace llmon::logwatch {
namespace {

Event ev(uint64_t id, int64_t t, const std::string& rule, Severity sev = Severity::kError) {
  Event e;
  e.id = id;
  e.time_ms = e.first_ms = t;
  e.rule = rule;
  e.source = "/var/log/train.log";
  e.severity = sev;
  e.labels = {{"size", "2.00 GiB"}};
  e.lines = {"line one", "  line two"};
  return e;
}

TEST(EventJson, RoundTripsAndReplacesInvalidUtf8) {
  Event e = ev(7, 1700000000123, "cuda_oom");
  e.repeat = 3;
  e.first_ms = 1700000000000;
  auto back = decode_event(encode_event(e));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->id, 7u);
  EXPECT_EQ(back->first_ms, 1700000000000);
  EXPECT_EQ(back->repeat, 3u);
  EXPECT_EQ(back->lines, e.lines);
  EXPECT_EQ(back->labels, e.labels);
  e.lines = {std::string("bin\xff\xfe garbage \xe2\x82\xac")};
  back = decode_event(encode_event(e));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->lines[0], "bin\xef\xbf\xbd garbage \xe2\x82\xac");
  EXPECT_NE(encode_event(e, true).find("\"time\":\"2023-11-14T22:13:20.123Z\""), std::string::npos);
  EXPECT_FALSE(decode_event("{\"id\":1}"));
  EXPECT_FALSE(decode_event("not json"));
}

class JournalTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  base::ManualClock clock_{1'700'000'000'000};
  JournalOptions opts() {
    JournalOptions o;
    o.dir = dir_.path() + "/events";
    return o;
  }
};

TEST_F(JournalTest, CommitsAreRecoveredWithTheirPositions) {
  {
    auto j = EventJournal::open(opts(), clock_);
    ASSERT_TRUE(j) << j.error();
    EXPECT_EQ((*j)->positions(), "");
    ASSERT_TRUE((*j)->commit({ev(1, 10, "a"), ev(2, 20, "b")}, "{\"pos\":1}"));
    ASSERT_TRUE((*j)->commit({}, "{\"pos\":2}"));
  }
  auto j = EventJournal::open(opts(), clock_);
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)->positions(), "{\"pos\":2}");
  EXPECT_EQ((*j)->last_commit(), 2u);
  EXPECT_EQ((*j)->max_event_id(), 2u);
  auto all = (*j)->query({});
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, 2u);  // newest first
}

TEST_F(JournalTest, ATornCommitIsCutAwayAtOpen) {
  {
    auto j = EventJournal::open(opts(), clock_);
    ASSERT_TRUE((*j)->commit({ev(1, 10, "a")}, "P1"));
  }
  // A crash in the middle of the next commit: its events without their commit line.
  std::string seg;
  for (const auto& e : std::filesystem::directory_iterator(opts().dir)) seg = e.path();
  {
    std::ofstream f(seg, std::ios::app);
    f << encode_event(ev(2, 20, "b")) << "\n{\"commit\":2,\"max_";
  }
  auto j = EventJournal::open(opts(), clock_);
  ASSERT_TRUE(j) << j.error();
  EXPECT_EQ((*j)->positions(), "P1");
  EXPECT_GT((*j)->stats().torn_bytes_cut, 0u);
  auto all = (*j)->query({});
  ASSERT_EQ(all->size(), 1u);  // event 2 will be read again from the positions P1 cover
  ASSERT_TRUE((*j)->commit({ev(2, 20, "b")}, "P2"));
  EXPECT_EQ((*j)->query({})->size(), 2u);
}

TEST_F(JournalTest, UpdatesFoldByIdAndFiltersApply) {
  auto j = EventJournal::open(opts(), clock_);
  Event burst = ev(1, 100, "xid", Severity::kCritical);
  ASSERT_TRUE((*j)->commit({burst, ev(2, 150, "oom", Severity::kWarning)}, "P"));
  burst.repeat = 40;
  burst.time_ms = 900;
  ASSERT_TRUE((*j)->commit({burst}, "P"));
  auto all = (*j)->query({});
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].repeat, 40u);
  EventQuery q;
  q.rule = "oom";
  EXPECT_EQ((*j)->query(q)->size(), 1u);
  q = {};
  q.min_severity = Severity::kCritical;
  EXPECT_EQ((*j)->query(q)->size(), 1u);
  q = {};
  q.start_ms = 500;  // the burst lasts until 900
  EXPECT_EQ((*j)->query(q)->size(), 1u);
  q = {};
  q.source = "/var/log/*.log";
  EXPECT_EQ((*j)->query(q)->size(), 2u);
  q.limit = 1;
  EXPECT_EQ((*j)->query(q)->size(), 1u);
}

TEST_F(JournalTest, SegmentsRollAndTheOldestGoOverTheSizeLimit) {
  JournalOptions o = opts();
  o.segment_bytes = 2000;
  o.max_bytes = 8000;
  auto j = EventJournal::open(o, clock_);
  for (uint64_t i = 1; i <= 200; ++i) ASSERT_TRUE((*j)->commit({ev(i, static_cast<int64_t>(i), "a")}, "P"));
  EXPECT_GT((*j)->stats().removed_segments, 0u);
  uint64_t total = 0;
  for (const auto& e : std::filesystem::directory_iterator(o.dir)) total += std::filesystem::file_size(e.path());
  EXPECT_LE(total, o.max_bytes + o.segment_bytes);
  EventQuery q;
  q.limit = 1000;
  auto kept = (*j)->query(q);
  ASSERT_FALSE(kept->empty());
  EXPECT_EQ(kept->front().id, 200u);  // the newest are kept
  auto again = EventJournal::open(o, clock_);
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)->max_event_id(), 200u);
}

TEST_F(JournalTest, OldSegmentsGoAfterTheRetention) {
  JournalOptions o = opts();
  o.segment_bytes = 500;
  o.retention_ms = 3600 * 1000;
  auto j = EventJournal::open(o, clock_);
  for (uint64_t i = 1; i <= 20; ++i) ASSERT_TRUE((*j)->commit({ev(i, 1, "a")}, "P"));
  // Files written now are "old" once the clock is past the retention.
  clock_.advance_ms(2 * 3600 * 1000 + static_cast<int64_t>(::time(nullptr)) * 1000 - 1'700'000'000'000);
  ASSERT_TRUE((*j)->commit({ev(21, 2, "a")}, "P"));
  for (int i = 0; i < 10; ++i) ASSERT_TRUE((*j)->commit({ev(22 + i, 2, "a")}, "P"));
  EXPECT_GT((*j)->stats().removed_segments, 0u);
}

TEST_F(JournalTest, AnUnreadableDirectoryIsAnErrorNamingIt) {
  JournalOptions o;
  o.dir = "/proc/llmon-no-such/events";
  auto j = EventJournal::open(o, clock_);
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().find("/proc/llmon-no-such/events"), std::string::npos);
  EXPECT_FALSE(query_events("/proc/llmon-no-such", {}));
}

}  // namespace
}  // namespace llmon::logwatch
