#include "tsdb/bitstream.h"

#include <gtest/gtest.h>

#include <random>

namespace llmon::tsdb {
namespace {

TEST(BitStream, PacksMostSignificantBitFirst) {
  BitWriter w;
  w.write_bit(true);
  w.write_bits(0b01, 2);
  w.write_bits(0x1f, 5);
  w.write_bits(0xabc, 12);
  ASSERT_EQ(w.bytes().size(), 3u);
  EXPECT_EQ(w.bytes()[0], 0b10111111);
  EXPECT_EQ(w.bytes()[1], 0xab);
  EXPECT_EQ(w.bytes()[2], 0xc0);  // zero-padded
  EXPECT_EQ(w.bit_offset(), 4);
}

TEST(BitStream, RoundTripsRandomWidths) {
  std::mt19937_64 rng(42);
  std::vector<std::pair<uint64_t, int>> items;
  BitWriter w;
  for (int i = 0; i < 5000; ++i) {
    int n = static_cast<int>(rng() % 65);
    uint64_t v = n == 64 ? rng() : (rng() & ((uint64_t{1} << n) - 1));
    items.emplace_back(v, n);
    w.write_bits(v, n);
  }
  BitReader r(w.bytes());
  for (auto [v, n] : items) ASSERT_EQ(r.read_bits(n), v) << n;
  EXPECT_FALSE(r.failed());
}

TEST(BitStream, ReadPastEndFailsWithoutReading) {
  const uint8_t data[] = {0xff};
  BitReader r(std::span<const uint8_t>(data, 1));
  EXPECT_EQ(r.read_bits(6), 0x3fu);
  EXPECT_FALSE(r.failed());
  EXPECT_EQ(r.read_bits(3), 0u);
  EXPECT_TRUE(r.failed());
  EXPECT_FALSE(r.read_bit());
  BitReader empty(std::span<const uint8_t>{});
  EXPECT_FALSE(empty.read_bit());
  EXPECT_TRUE(empty.failed());
}

}  // namespace
}  // namespace llmon::tsdb
