#include "procfs/bcache.h"

#include <gtest/gtest.h>

#include <string>

namespace llmon::procfs {
namespace {

uint64_t value(std::string_view text) {
  auto v = bcache_dehumanize(text, "f");
  EXPECT_TRUE(v) << text << ": " << v.error();
  return v ? *v : 0;
}

TEST(Bcache, DehumanizeAsProcfs) {
  // Values checked against node_exporter 1.5 on the same file contents.
  EXPECT_EQ(value("0"), 0u);
  EXPECT_EQ(value("87"), 87u);
  EXPECT_EQ(value("0.1k"), 100u);        // 0 + 1/10.24 KiB
  EXPECT_EQ(value("1.5M"), 1560576u);    // 1.48828125 MiB
  EXPECT_EQ(value("1.50M"), 6168576u);   // 1 + 50/10.24: bch_hprint's ".50" is not ".5"
  EXPECT_EQ(value("1.5.7M"), 1560576u);  // a second fraction is ignored
  EXPECT_EQ(value("12.3G"), 13199474688u);
  EXPECT_EQ(value("1.5E"), 1715871458028158976u);
  EXPECT_EQ(value("1.5"), 1u);  // a plain Go float, truncated
  EXPECT_EQ(value("1e3"), 1000u);
  EXPECT_EQ(value("1_000"), 1000u);  // Go's ParseFloat takes underscores
  EXPECT_EQ(value("+5"), 5u);
  EXPECT_EQ(value("1.5X"), 0u);  // an unknown unit multiplies by 0
  EXPECT_EQ(value("1.5m"), 0u);
  EXPECT_EQ(value("-5"), 18446744073709551611u);                // Go's uint64(-5.0) on amd64
  EXPECT_EQ(value("18446744073709551615"), uint64_t{1} << 63);  // 2^64 as a float: 1<<63
  EXPECT_EQ(value("1.5Y"), uint64_t{1} << 63);
}

TEST(Bcache, DehumanizeErrors) {
  for (std::string_view bad : {"", "0x10", " 12", "12 ", "1.k", ".5k", "abc", "5\r"}) {
    auto v = bcache_dehumanize(bad, "/sys/fs/bcache/x/tree_depth");
    ASSERT_FALSE(v) << bad;
    EXPECT_NE(v.error().find("/sys/fs/bcache/x/tree_depth"), std::string::npos) << v.error();
  }
}

TEST(Bcache, DehumanizeSigned) {
  EXPECT_EQ(*bcache_dehumanize_signed("-1.1k", "f"), -1124);
  EXPECT_EQ(*bcache_dehumanize_signed("-251.6k", "f"), -257624);
  EXPECT_EQ(*bcache_dehumanize_signed("-212.4M", "f"), -222707712);
  EXPECT_EQ(*bcache_dehumanize_signed("2.6k", "f"), 2648);
  EXPECT_FALSE(bcache_dehumanize_signed("-", "f"));
}

TEST(Bcache, ValueFileDropsItsLastByte) {
  EXPECT_EQ(*parse_bcache_value("1.5G\n", "f"), 1598029824u);
  EXPECT_EQ(*parse_bcache_value("12", "f"), 1u);  // no newline: procfs drops the '2'
  auto empty = parse_bcache_value("", "/sys/fs/bcache/x/congested");
  ASSERT_FALSE(empty);  // node_exporter 1.5 panics here
  EXPECT_NE(empty.error().find("/sys/fs/bcache/x/congested: empty file"), std::string::npos) << empty.error();
  EXPECT_FALSE(parse_bcache_value("12\n\n", "f"));
}

TEST(Bcache, WritebackRateDebug) {
  BcacheWritebackRateDebug w;
  ASSERT_TRUE(
      parse_bcache_writeback_rate_debug("rate:\t\t1.7M/sec\n"
                                        "dirty:\t\t20.3G\n"
                                        "target:\t\t20.4G\n"
                                        "proportional:\t-1.1k\n"
                                        "integral:\t-251.6k\n"
                                        "change:\t\t2.6k/sec\n"
                                        "next io:\t-150773ms\n",
                                        "f", w));
  EXPECT_EQ(w.rate, 1765376u);
  EXPECT_EQ(w.dirty, 21789409280u);
  EXPECT_EQ(w.target, 21894266880u);
  EXPECT_EQ(w.proportional, -1124);
  EXPECT_EQ(w.integral, -257624);
  EXPECT_EQ(w.change, 2648);
  EXPECT_EQ(w.next_io_ms, -150773);
  // Other and indented lines are ignored; the last field counts.
  ASSERT_TRUE(parse_bcache_writeback_rate_debug("garbage\n  rate: 5/sec\nrate: 1 2/sec\r\n", "f", w));
  EXPECT_EQ(w.rate, 2u);
  ASSERT_TRUE(parse_bcache_writeback_rate_debug("", "f", w));
  EXPECT_EQ(w.rate, 0u);
}

TEST(Bcache, WritebackRateDebugErrorsNameFileAndLine) {
  BcacheWritebackRateDebug w;
  for (std::string_view bad :
       {"rate: abc/sec\n", "rate:\n", "proportional: 1.5k/sec\n", "integral: 1.0k extra\n", "next io: abcms\n"}) {
    std::string text = "dirty:\t\t1.5G\n" + std::string(bad);
    Status s = parse_bcache_writeback_rate_debug(text, "/b/writeback_rate_debug", w);
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.message().find("/b/writeback_rate_debug:2"), std::string::npos) << s.message();
  }
}

TEST(Bcache, PriorityStats) {
  BcachePriorityStats p;
  ASSERT_TRUE(
      parse_bcache_priority_stats("Unused:\t\t13%\nClean:\t\t71%\nDirty:\t\t14%\nMetadata:\t1%\n"
                                  "Average:\t1175\nSectors per Q:\t7864320\nQuantiles:\t[23 71 142]\n",
                                  "f", p));
  EXPECT_EQ(p.unused_percent, 13u);
  EXPECT_EQ(p.metadata_percent, 1u);
  ASSERT_TRUE(parse_bcache_priority_stats("Unused: 5% 7%\nMetadata: 2\n", "f", p));
  EXPECT_EQ(p.unused_percent, 7u);
  EXPECT_EQ(p.metadata_percent, 2u);
  for (std::string_view bad : {"Unused: abc%\n", "Unused:\n", "Metadata: 1.5%\n", "Metadata: -1%\n"}) {
    Status s = parse_bcache_priority_stats("Clean: 1%\n" + std::string(bad), "/c/priority_stats", p);
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.message().find("/c/priority_stats:2"), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace llmon::procfs
