#include "health/xid_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llmon::health {
namespace {

TEST(XidCatalog, OrderedByCodeWithNamesAndMeanings) {
  auto cat = xid_catalog();
  ASSERT_GT(cat.size(), 20u);
  EXPECT_TRUE(
      std::is_sorted(cat.begin(), cat.end(), [](const XidInfo& a, const XidInfo& b) { return a.code < b.code; }));
  for (const XidInfo& e : cat) {
    EXPECT_FALSE(e.name.empty()) << e.code;
    EXPECT_FALSE(e.meaning.empty()) << e.code;
    EXPECT_TRUE(e.known);
    EXPECT_EQ(lookup_xid(e.code).name, e.name);
  }
}

TEST(XidCatalog, ClassesFromTheCatalogue) {
  EXPECT_EQ(lookup_xid(13).action, Action::kRestartApp);
  EXPECT_TRUE(lookup_xid(13).repeat_means_hardware);
  EXPECT_EQ(lookup_xid(31).action, Action::kRestartApp);
  EXPECT_EQ(lookup_xid(43).action, Action::kRestartApp);
  EXPECT_FALSE(lookup_xid(43).repeat_means_hardware);
  EXPECT_EQ(lookup_xid(48).action, Action::kResetGpu);
  EXPECT_EQ(lookup_xid(61).action, Action::kReboot);
  EXPECT_EQ(lookup_xid(62).action, Action::kResetGpu);
  EXPECT_TRUE(lookup_xid(63).defer_to_row_remap);
  EXPECT_EQ(lookup_xid(64).action, Action::kInspectHardware);
  EXPECT_EQ(lookup_xid(79).action, Action::kReboot);
  EXPECT_EQ(lookup_xid(79).name, "fallen_off_bus");
  EXPECT_EQ(lookup_xid(92).action, Action::kNone);
  EXPECT_EQ(lookup_xid(94).action, Action::kRestartApp);
  EXPECT_EQ(lookup_xid(95).action, Action::kResetGpu);
  EXPECT_EQ(lookup_xid(121).action, Action::kInspectHardware);
  EXPECT_EQ(lookup_xid(143).action, Action::kInspectHardware);
  for (uint32_t x = 144; x <= 150; ++x) EXPECT_EQ(lookup_xid(x).name, "nvlink5_error");
  EXPECT_EQ(lookup_xid(154).action, Action::kNone);
}

TEST(XidCatalog, UnknownCodesGetTheDocumentedDefault) {
  for (uint32_t code : {0u, 1u, 999u, 100000u}) {
    XidInfo u = lookup_xid(code);
    EXPECT_FALSE(u.known);
    EXPECT_EQ(u.code, code);
    EXPECT_EQ(u.name, "unknown");
    EXPECT_EQ(u.action, Action::kRestartApp);
    EXPECT_FALSE(u.repeat_means_hardware);
  }
}

TEST(XidCatalog, RebootClassAndActionNames) {
  EXPECT_TRUE(is_reboot_class(lookup_xid(79)));
  EXPECT_TRUE(is_reboot_class(lookup_xid(48)));
  EXPECT_FALSE(is_reboot_class(lookup_xid(13)));
  EXPECT_FALSE(is_reboot_class(lookup_xid(64)));
  for (Action a : {Action::kNone, Action::kRestartApp, Action::kDrainP2p, Action::kResetGpu, Action::kDrainAndReset,
                   Action::kActionNeeded, Action::kReboot, Action::kInspectHardware})
    EXPECT_EQ(parse_action(action_name(a)), a);
  EXPECT_EQ(action_name(Action::kInspectHardware), "inspect_hardware");
  EXPECT_FALSE(parse_action("rma"));
  EXPECT_LT(Action::kRestartApp, Action::kResetGpu);
  EXPECT_LT(Action::kReboot, Action::kInspectHardware);
}

}  // namespace
}  // namespace llmon::health
