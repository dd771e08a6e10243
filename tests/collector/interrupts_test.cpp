#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::expect_family;
using testing::fixture_context;
using testing::TempFixture;
using testing::value_of;

TEST(InterruptsCollector, FixtureValues) {
  auto c = make_interrupts(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_interrupts_total", model::MetricType::kCounter, "Interrupt details.");
  EXPECT_EQ(
      value_of(
          snap, "node_interrupts_total",
          {{"cpu", "3"}, {"devices", "16-fasteoi ehci_hcd:usb1, i801_smbus"}, {"info", "IR-IO-APIC"}, {"type", "16"}}),
      29);
  EXPECT_EQ(value_of(snap, "node_interrupts_total",
                     {{"cpu", "0"}, {"devices", ""}, {"info", "Local timer interrupts"}, {"type", "LOC"}}),
            189323991);
  EXPECT_EQ(testing::series_count(snap, "node_interrupts_total"), 124u);  // 31 lines with CPU columns, 4 CPUs
}

TEST(InterruptsCollector, MissingOrMalformedFileFails) {
  TempFixture fx({});
  auto c = make_interrupts(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("couldn't get interrupts"), std::string::npos) << s.message();
  fx.write("proc/interrupts", "CPU0\n  0: 46x IO-APIC 2-edge timer\n");
  s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(fx.path("proc/interrupts") + ":2:"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace llmon::collector
