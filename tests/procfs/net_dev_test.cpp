#include "procfs/net_dev.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

constexpr std::string_view kHeader =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls "
    "carrier compressed\n";

TEST(NetDev, ParsesKernelFormat) {
  std::string text(kHeader);
  text +=
      "    lo:  475593     482    0    0    0     0          0         0   475593     482    0    0    0     0       "
      "0          0\n"
      "  eth0:68210035552 520993275    0    7    1     2          3     38453 9315587528 43451486    4    5    6     "
      "7       8          9\n";
  auto r = parse_net_dev(text);
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].name, "lo");
  EXPECT_EQ((*r)[0].v[kRxBytes], 475593u);
  EXPECT_EQ((*r)[0].v[kTxPackets], 482u);
  const auto& eth0 = (*r)[1];
  EXPECT_EQ(eth0.name, "eth0");  // the counter touching the colon still parses
  EXPECT_EQ(eth0.v[kRxBytes], 68210035552u);
  EXPECT_EQ(eth0.v[kRxPackets], 520993275u);
  EXPECT_EQ(eth0.v[kRxDrop], 7u);
  EXPECT_EQ(eth0.v[kRxFifo], 1u);
  EXPECT_EQ(eth0.v[kRxFrame], 2u);
  EXPECT_EQ(eth0.v[kRxCompressed], 3u);
  EXPECT_EQ(eth0.v[kRxMulticast], 38453u);
  EXPECT_EQ(eth0.v[kTxBytes], 9315587528u);
  EXPECT_EQ(eth0.v[kTxErrs], 4u);
  EXPECT_EQ(eth0.v[kTxColls], 7u);
  EXPECT_EQ(eth0.v[kTxCarrier], 8u);
  EXPECT_EQ(eth0.v[kTxCompressed], 9u);
}

TEST(NetDev, MaxCounterAndExtraColumns) {
  std::string text(kHeader);
  text += "x: 18446744073709551615 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 99 100\n";
  auto r = parse_net_dev(text);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ((*r)[0].v[kRxBytes], 18446744073709551615u);
  EXPECT_EQ((*r)[0].v[kTxCompressed], 15u);
}

TEST(NetDev, HeaderOnlyAndEmptyAreEmpty) {
  auto r = parse_net_dev(kHeader);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
  r = parse_net_dev("");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
}

TEST(NetDev, TruncatedLineIsAnErrorNamingTheLine) {
  std::string text(kHeader);
  text += "  eth0: 1 2 3 4 5\n";
  auto r = parse_net_dev(text);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("net/dev:3"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("eth0"), std::string::npos) << r.error();
}

TEST(NetDev, MalformedLines) {
  for (const char* line : {"eth0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",       // no colon
                           "   : 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",        // no name
                           "eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 -16\n",      // negative
                           "eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 18446744073709551616\n",  // overflow
                           "eth0: 1 2 3 x 5 6 7 8 9 10 11 12 13 14 15 16\n"}) {
    std::string text(kHeader);
    text += line;
    EXPECT_FALSE(parse_net_dev(text)) << line;
  }
}

TEST(NetDev, BinaryGarbageDoesNotCrash) {
  std::string text(kHeader);
  for (int i = 0; i < 512; ++i) text += static_cast<char>((i * 131 + 7) % 256);
  auto r = parse_net_dev(text);
  EXPECT_FALSE(r);
  std::string nul("\0\0:\0\0\n", 6);
  EXPECT_FALSE(parse_net_dev(std::string(kHeader) + nul));
}

TEST(NetDev, ReusesOutput) {
  std::vector<NetDevLine> out(5);
  std::string text(kHeader);
  text += "a: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n";
  ASSERT_TRUE(parse_net_dev(text, out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].v[kTxCompressed], 16u);
}

}  // namespace
}  // namespace llmon::procfs
