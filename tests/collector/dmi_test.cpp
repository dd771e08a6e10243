#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "no_data_check.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::expect_family;
using testing::fixture_context;
using testing::TempFixture;

TEST(DmiCollector, FixtureLabels) {
  auto c = make_dmi(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_dmi_info", model::MetricType::kGauge,
                "A metric with a constant '1' value labeled by bios_date, bios_release, bios_vendor, bios_version, "
                "board_asset_tag, board_name, board_serial, board_vendor, board_version, chassis_asset_tag, "
                "chassis_serial, chassis_vendor, chassis_version, product_family, product_name, product_serial, "
                "product_sku, product_uuid, product_version, system_vendor if provided by DMI.");
  const model::Family* f = snap.find("node_dmi_info");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->series.size(), 1u);
  EXPECT_EQ(f->label_names.size(), 20u);  // chassis_type, modalias, uevent are not labels
  const model::Series* series =
      snap.find_series("node_dmi_info", {{"bios_date", "03/14/2023"},
                                         {"bios_release", "5.27"},
                                         {"bios_vendor", "American Megatrends International, LLC."},
                                         {"bios_version", "2.1"},
                                         {"board_asset_tag", "Base Board Asset Tag"},
                                         {"board_name", "X13DEG-OAD"},
                                         {"board_serial", "OM23AS012345"},
                                         {"board_vendor", "Supermicro"},
                                         {"board_version", "1.01"},
                                         {"chassis_asset_tag", "Default string"},
                                         {"chassis_serial", "C8170LM27A40123"},
                                         {"chassis_vendor", "Supermicro"},
                                         {"chassis_version", "0123456789"},
                                         {"product_family", "Family"},
                                         {"product_name", "SYS-821GE-TNHR"},
                                         {"product_serial", "S123456X3A01234"},
                                         {"product_sku", "To be filled by O.E.M."},
                                         {"product_uuid", "e0a4b1c2-3d4e-11ee-8000-3cecef123456"},
                                         {"product_version", "0123456789"},
                                         {"system_vendor", "Supermicro"}});
  ASSERT_NE(series, nullptr);
  EXPECT_EQ(series->value, 1);
}

TEST(DmiCollector, OnlyPresentRegularFilesAreLabelsAndTheyAreReadOnce) {
  TempFixture fx({});
  fx.write("sys/class/dmi/id/sys_vendor", "Super\xff\xfemicro  \n");
  fx.write("sys/class/dmi/id/uevent", "MODALIAS=dmi:svnSupermicro:\n");
  fx.write("sys/class/dmi/id/product_name/x", "a directory, not an attribute\n");
  auto c = make_dmi(fx.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  const model::Family* f = snap.find("node_dmi_info");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->label_names, std::vector<std::string>{"system_vendor"});
  EXPECT_NE(snap.find_series("node_dmi_info", {{"system_vendor", "Super\xef\xbf\xbdmicro"}}), nullptr);
  fx.write("sys/class/dmi/id/sys_vendor", "Other\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_NE(snap.find_series("node_dmi_info", {{"system_vendor", "Super\xef\xbf\xbdmicro"}}), nullptr);
}

TEST(DmiCollector, NoDmiIsNoData) {
  testing::expect_no_data_without_files(make_dmi);
}

}  // namespace
}  // namespace llmon::collector
