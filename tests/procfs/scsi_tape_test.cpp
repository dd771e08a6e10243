#include "procfs/scsi_tape.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(ScsiTape, OnlyStNumbersAreDevices) {
  EXPECT_TRUE(is_scsi_tape_device("st0"));
  EXPECT_TRUE(is_scsi_tape_device("st12"));
  for (auto n : {"nst0", "st0a", "st0l", "nst0m", "st", "sta"}) EXPECT_FALSE(is_scsi_tape_device(n)) << n;
}

TEST(ScsiTape, StatsAndValues) {
  EXPECT_EQ(tape_stats().size(), 10u);
  size_t ns = 0, gauges = 0;
  for (const auto& s : tape_stats()) {
    ns += s.nanoseconds;
    gauges += !s.counter;
  }
  EXPECT_EQ(ns, 3u);      // io_ns, read_ns, write_ns
  EXPECT_EQ(gauges, 1u);  // in_flight
  EXPECT_EQ(parse_tape_stat("9371862512033\n"), 9371862512033u);
  EXPECT_EQ(parse_tape_stat("0x10"), 16u);
  EXPECT_FALSE(parse_tape_stat("n/a\n"));
}

}  // namespace
}  // namespace llmon::procfs
