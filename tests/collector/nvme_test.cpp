#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::expect_family;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(NvmeCollector, FixtureValues) {
  auto c = make_nvme(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_nvme_info", model::MetricType::kGauge,
                "Non-numeric data from /sys/class/nvme/<device>, value is always 1.");
  EXPECT_EQ(series_count(snap, "node_nvme_info"), 2u);
  EXPECT_EQ(value_of(snap, "node_nvme_info",
                     {{"device", "nvme0"},
                      {"firmware_revision", "5B2QGXA7"},
                      {"model", "Samsung SSD 980 PRO 1TB"},
                      {"serial", "S5GXNX0T123456A"},
                      {"state", "live"}}),
            1);
  EXPECT_EQ(value_of(snap, "node_nvme_info",
                     {{"device", "nvme1"},
                      {"firmware_revision", "GDC5602Q"},
                      {"model", "SAMSUNG MZQL23T8HCLS-00A07"},
                      {"serial", "S64HNE0T512345"},
                      {"state", "live"}}),
            1);
}

TEST(NvmeCollector, StateIsReadEveryCycle) {
  TempFixture fx({});
  for (auto [f, v] : {std::pair{"firmware_rev", "1.0\n"}, std::pair{"model", "M  \n"}, std::pair{"serial", "S\n"},
                      std::pair{"state", "live\n"}})
    fx.write(std::string("sys/class/nvme/nvme0/") + f, v);
  auto c = make_nvme(fx.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  fx.write("sys/class/nvme/nvme0/state", "resetting\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(
      value_of(
          snap, "node_nvme_info",
          {{"device", "nvme0"}, {"firmware_revision", "1.0"}, {"model", "M"}, {"serial", "S"}, {"state", "resetting"}}),
      1);
}

TEST(NvmeCollector, NoClassOrMissingAttributeIsNoData) {
  TempFixture fx({});
  auto c = make_nvme(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.is_no_data()) << s.message();
  fx.write("sys/class/nvme/nvme0/model", "M\n");  // no firmware_rev, serial, state
  s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.is_no_data()) << s.message();
  EXPECT_NE(s.message().find("nvme0/firmware_rev"), std::string::npos) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

}  // namespace
}  // namespace llmon::collector
