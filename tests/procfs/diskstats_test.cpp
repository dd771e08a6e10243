#include "procfs/diskstats.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(Diskstats, ParsesAllKernelLineLengths) {
  auto r = parse_diskstats(
      "   8       0 sda 25354637 34367663 1003346126 18492372 28444756 11134226 505697032 63877960 0 9653880 "
      "82621804 0 0 0 0 0 0\n"
      "   8      16 sdb 326552 841 9657779 84 41822 2895 1972905 5007 0 60730 67070\n"
      " 253       0 dm-0 2315784 0 174082474 5052160 3163434 0 71218488 27566280 0 3519288 32618440 142 0 4920 12\n"
      " 259       0 nvme0n1 47114 4 4643973 21650 1078320 43950 39451633 1011053 0 222766 1032546 2416 0 2162724 "
      "418 4230 7723\n");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->size(), 4u);
  const auto& sda = (*r)[0];
  EXPECT_EQ(sda.major, 8u);
  EXPECT_EQ(sda.minor, 0u);
  EXPECT_EQ(sda.name, "sda");
  EXPECT_EQ(sda.count, 17u);
  EXPECT_EQ(sda.v[kReadSectors], 1003346126u);
  EXPECT_EQ(sda.v[kWeightedIOTicksMs], 82621804u);
  EXPECT_EQ((*r)[1].count, 11u);
  EXPECT_EQ((*r)[1].minor, 16u);
  EXPECT_EQ((*r)[2].count, 15u);
  EXPECT_EQ((*r)[2].v[kDiscardSectors], 4920u);
  EXPECT_EQ((*r)[2].v[kDiscardTicksMs], 12u);
  const auto& nvme = (*r)[3];
  EXPECT_EQ(nvme.major, 259u);
  EXPECT_EQ(nvme.count, 17u);
  EXPECT_EQ(nvme.v[kFlushIOs], 4230u);
  EXPECT_EQ(nvme.v[kFlushTicksMs], 7723u);
}

TEST(Diskstats, ShortLinesAreSkippedLongOnesCapped) {
  auto r = parse_diskstats(
      "8 32 sdc 1 2 3\n"
      "8 33\n"
      "\n"
      "8 48 sdd 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19\n"
      "8 64 sde 1 2 3 4 5 6 7 8 9 10 11 12");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].name, "sdd");
  EXPECT_EQ((*r)[0].count, 17u);
  EXPECT_EQ((*r)[0].v[kFlushTicksMs], 17u);
  EXPECT_EQ((*r)[1].name, "sde");
  EXPECT_EQ((*r)[1].count, 12u);
  EXPECT_EQ((*r)[1].v[kDiscardIOs], 12u);
  EXPECT_EQ((*r)[1].v[kDiscardMerges], 0u);
}

TEST(Diskstats, EmptyIsEmpty) {
  auto r = parse_diskstats("");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
}

TEST(Diskstats, NonNumbersAreErrorsNamingTheLine) {
  for (const char* text : {"8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 1 sdb 1 2 x 4 5 6 7 8 9 10 11\n",
                           "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\nx 1 sdb 1 2 3 4 5 6 7 8 9 10 11\n",
                           "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 4294967296 sdb 1 2 3 4 5 6 7 8 9 10 11\n",
                           "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 1 sdb 1 2 3 4 5 6 7 8 9 10 -11\n"}) {
    auto r = parse_diskstats(text);
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.error().find("diskstats:2"), std::string::npos) << r.error();
  }
}

TEST(Diskstats, BinaryGarbageDoesNotCrash) {
  std::string text;
  for (int i = 0; i < 1024; ++i) text += static_cast<char>((i * 37 + 11) % 256);
  (void)parse_diskstats(text);  // either outcome is fine; it must return
  std::string nul("8 0 sda\0 1 2 3 4 5 6 7 8 9 10 11\n", 34);
  auto r = parse_diskstats(nul);
  if (r) {
    for (const auto& l : *r) EXPECT_LE(l.count, 17u);
  }
}

}  // namespace
}  // namespace llmon::procfs
