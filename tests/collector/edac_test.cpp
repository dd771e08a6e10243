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

TEST(EdacCollector, FixtureValues) {
  auto c = make_edac(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_edac_correctable_errors_total", model::MetricType::kCounter,
                "Total correctable memory errors.");
  expect_family(snap, "node_edac_uncorrectable_errors_total", model::MetricType::kCounter,
                "Total uncorrectable memory errors.");
  expect_family(snap, "node_edac_csrow_correctable_errors_total", model::MetricType::kCounter,
                "Total correctable memory errors for this csrow.");
  expect_family(snap, "node_edac_csrow_uncorrectable_errors_total", model::MetricType::kCounter,
                "Total uncorrectable memory errors for this csrow.");
  EXPECT_EQ(value_of(snap, "node_edac_correctable_errors_total", {{"controller", "0"}}), 3);
  EXPECT_EQ(value_of(snap, "node_edac_uncorrectable_errors_total", {{"controller", "1"}}), 1);
  EXPECT_EQ(value_of(snap, "node_edac_csrow_correctable_errors_total", {{"controller", "0"}, {"csrow", "2"}}), 3);
  EXPECT_EQ(value_of(snap, "node_edac_csrow_uncorrectable_errors_total", {{"controller", "1"}, {"csrow", "unknown"}}),
            1);
  // mc0 has 4 csrows plus "unknown"; mc1 (dimm directories only) just "unknown".
  EXPECT_EQ(series_count(snap, "node_edac_csrow_correctable_errors_total"), 6u);
}

TEST(EdacCollector, NoEdacIsAnEmptySuccess) {
  TempFixture fx({});
  auto c = make_edac(fx.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(snap.series_count(), 0u);
}

TEST(EdacCollector, MissingCounterFailsAfterTheSeriesBeforeIt) {
  TempFixture fx({});
  const std::string mc = "sys/devices/system/edac/mc/mc0/";
  fx.write(mc + "ce_count", "5\n");
  fx.write(mc + "ce_noinfo_count", "0\n");
  fx.write(mc + "ue_count", "0\n");  // no ue_noinfo_count
  auto c = make_edac(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("couldn't get ue_noinfo_count for controller 0"), std::string::npos) << s.message();
  EXPECT_EQ(value_of(snap, "node_edac_correctable_errors_total", {{"controller", "0"}}), 5);
  fx.write(mc + "ue_noinfo_count", "0\n");
  fx.write(mc + "csrow0/ce_count", "7\n");
  fx.write(mc + "csrow0/ue_count", "1\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_edac_csrow_correctable_errors_total", {{"controller", "0"}, {"csrow", "0"}}), 7);
}

}  // namespace
}  // namespace llmon::collector
