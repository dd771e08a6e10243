#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::TempFixture;
using testing::value_of;

TEST(EntropyCollector, FixtureValues) {
  auto c = make_entropy(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(value_of(snap, "node_entropy_available_bits", {}), 256);
  EXPECT_EQ(value_of(snap, "node_entropy_pool_size_bits", {}), 256);
  const model::Family* f = snap.find("node_entropy_available_bits");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kGauge);
  EXPECT_EQ(f->help, "Bits of available entropy.");
  EXPECT_EQ(snap.find("node_entropy_pool_size_bits")->help, "Bits of entropy pool.");
}

TEST(EntropyCollector, ValuesAreReadEveryCycle) {
  TempFixture fx({"proc/sys/kernel/random"});
  auto c = make_entropy(fx.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  fx.write("proc/sys/kernel/random/entropy_avail", "3794\n");
  fx.write("proc/sys/kernel/random/poolsize", "4096\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_entropy_available_bits", {}), 3794);
  EXPECT_EQ(value_of(snap, "node_entropy_pool_size_bits", {}), 4096);
}

TEST(EntropyCollector, MissingFilesFailTheCollector) {
  TempFixture fx({});
  auto c = make_entropy(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("couldn't get entropy_avail"), std::string::npos) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

TEST(EntropyCollector, MalformedPoolSizeKeepsTheAvailableBits) {
  TempFixture fx({"proc/sys/kernel/random"});
  fx.write("proc/sys/kernel/random/poolsize", "big\n");
  auto c = make_entropy(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(fx.path("proc/sys/kernel/random/poolsize") + ":1:"), std::string::npos) << s.message();
  EXPECT_EQ(value_of(snap, "node_entropy_available_bits", {}), 256);
  EXPECT_EQ(snap.find("node_entropy_pool_size_bits"), nullptr);
}

}  // namespace
}  // namespace llmon::collector
