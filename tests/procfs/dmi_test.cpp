#include "procfs/dmi.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(Dmi, FilesToLabels) {
  const auto attrs = dmi_attributes();
  ASSERT_EQ(attrs.size(), 20u);
  EXPECT_EQ(attrs[dmi_attribute_index("sys_vendor")].label, "system_vendor");
  EXPECT_EQ(attrs[dmi_attribute_index("product_uuid")].label, "product_uuid");
  for (auto skipped : {"chassis_type", "modalias", "uevent", "power"})
    EXPECT_EQ(dmi_attribute_index(skipped), attrs.size()) << skipped;
  for (size_t i = 1; i < attrs.size(); ++i) EXPECT_LT(attrs[i - 1].label, attrs[i].label);  // label order
}

TEST(Dmi, ValuesAreTrimmedAndValidUtf8) {
  EXPECT_EQ(dmi_value("1.01   \n"), "1.01");
  EXPECT_EQ(dmi_value(" To be filled by O.E.M.\n"), "To be filled by O.E.M.");
  EXPECT_EQ(dmi_value("Super\xff\xfemicro\n"), "Super\xef\xbf\xbdmicro");
  EXPECT_EQ(dmi_value("\n"), "");
}

}  // namespace
}  // namespace llmon::procfs
