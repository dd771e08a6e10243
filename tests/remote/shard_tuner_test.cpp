#include "remote/shard_tuner.h"

#include <gtest/gtest.h>

namespace llmon::remote {
namespace {

TEST(ShardTuner, DesiredShardsIsPrometheusRule) {
  // 10 ms per sample sent by one shard, 1000 samples/s coming in: 10 shards
  // keep up; 100 s behind adds 5 % of the 100 000 pending samples per second.
  EXPECT_DOUBLE_EQ(ShardTuner::desired_shards(0.01, 1000, 0), 10);
  EXPECT_DOUBLE_EQ(ShardTuner::desired_shards(0.01, 1000, 100), 0.01 * (1000 + 0.05 * 100000));
  EXPECT_DOUBLE_EQ(ShardTuner::desired_shards(0.01, 1000, -5), 10);
}

TEST(ShardTuner, ReshardsOutsideTheDeadBandWithinMinAndMax) {
  ShardTuner t({1, 8, 10});
  EXPECT_EQ(t.update(0, 0), 1u);  // the first call starts the interval
  // 10 s: 1000 samples/s read over 10 s of data time (11 scrapes of 1000 at
  // 0 s, 1 s, ... 10 s: the first one is not counted), each request of 2000
  // samples took 1 s, and 60 s behind.
  t.observe_read(5000, 0, 4000, 1000);
  t.observe_read(6000, 5000, 10000, 1000);
  for (int i = 0; i < 5; ++i) t.observe_sent(2000, 1.0);
  EXPECT_EQ(t.update(5, 60), 1u);  // not 10 s yet
  const uint64_t n = t.update(10, 60);
  // out rate 1000/s, 0.5 s sending per s: 0.5 ms per sample;
  // desired = 0.0005 * (1000 + 0.05 * 60000) = 2
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(t.desired(), 2u);
  EXPECT_DOUBLE_EQ(t.in_rate(), 1000);
  EXPECT_DOUBLE_EQ(t.catch_up_rate(20), 20000);
  EXPECT_DOUBLE_EQ(t.catch_up_rate(0), 0);
  // Far behind: clamped to max_shards.
  t.observe_read(11000, 10000, 20000, 1000);
  for (int i = 0; i < 5; ++i) t.observe_sent(2000, 1.0);
  EXPECT_EQ(t.update(20, 1e6), 8u);
}

TEST(ShardTuner, KeepsItsCountWithin30Percent) {
  ShardTuner t({1, 50, 10});
  t.update(0, 0);
  t.observe_read(11000, 0, 10000, 1000);
  for (int i = 0; i < 10; ++i) t.observe_sent(1000, 1.0);  // 1 ms/sample, 1000/s in: 1 shard
  EXPECT_EQ(t.update(10, 0), 1u);
  EXPECT_EQ(t.desired(), 1u);
}

TEST(ShardTuner, MinShardsIsTheFloor) {
  ShardTuner t({3, 5, 10});
  EXPECT_EQ(t.shards(), 3u);
  t.update(0, 0);
  t.observe_read(100, 0, 10000, 10);
  t.observe_sent(100, 0.001);
  EXPECT_EQ(t.update(10, 0), 3u);
}

TEST(ShardTuner, IngestRateDoesNotCountTheWindowsFirstInstant) {
  ShardTuner t({1, 10, 10});
  t.update(0, 0);
  // Two reads out of order: the older one brings the window's first instant.
  t.observe_read(300, 2000, 4000, 100);  // 100 each at 2 s, 3 s, 4 s
  t.observe_read(200, 0, 1000, 100);     // 100 each at 0 s, 1 s
  t.observe_sent(500, 0.1);
  t.update(10, 0);
  EXPECT_DOUBLE_EQ(t.in_rate(), 100);  // 400 samples after t=0 over 4 s
}

TEST(ShardTuner, NothingMeasuredKeepsTheCountAndNoCatchUpCap) {
  ShardTuner t({1, 10, 10});
  t.update(0, 0);
  EXPECT_EQ(t.update(100, 1000), 1u);
  EXPECT_DOUBLE_EQ(t.catch_up_rate(20), 0);
}

}  // namespace
}  // namespace llmon::remote
