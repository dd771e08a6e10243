#include "health/health_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace llmon::health {
namespace {

TEST(HealthJson, SchemaAsDocumented) {
  HealthSnapshot s;
  s.time_ms = 1000;
  s.boot_id = "b";
  GpuHealth h;
  h.gpu = {"0", "GPU-0", "00000000:18:00.0"};
  h.state = HealthState::kUnhealthy;
  h.action = Action::kReboot;
  h.xid_counts = {{79, 2}};
  Evidence x;
  x.time_ms = 900;
  x.kind = "xid";
  x.state = HealthState::kUnhealthy;
  x.action = Action::kReboot;
  x.detail = "Xid 79";
  x.xid = 79;
  x.count = 2;
  x.sources = "nvml,kernel";
  x.kernel_line = "NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus.";
  Evidence c;
  c.time_ms = 950;
  c.kind = "recovery_action";
  c.state = HealthState::kUnhealthy;
  c.action = Action::kReboot;
  c.detail = "NVML recovery action 2 (reboot)";
  h.evidence = {x, c};
  s.gpus.push_back(h);
  GpuHealth healthy;
  healthy.gpu = {"1", "GPU-1", "00000000:2A:00.0"};
  s.gpus.push_back(healthy);

  auto j = nlohmann::json::parse(health_json(s));
  EXPECT_EQ(j["time_ms"], 1000);
  EXPECT_EQ(j["boot_id"], "b");
  ASSERT_EQ(j["gpus"].size(), 2u);
  const auto& g0 = j["gpus"][0];
  EXPECT_EQ(g0["gpu"], "0");
  EXPECT_EQ(g0["UUID"], "GPU-0");
  EXPECT_EQ(g0["pci_bus_id"], "00000000:18:00.0");
  EXPECT_EQ(g0["state"], "unhealthy");
  EXPECT_EQ(g0["action"], "reboot");
  EXPECT_EQ(g0["xid_errors"]["79"], 2);
  ASSERT_EQ(g0["evidence"].size(), 2u);
  EXPECT_EQ(g0["evidence"][0]["xid"], 79);
  EXPECT_EQ(g0["evidence"][0]["count"], 2);
  EXPECT_EQ(g0["evidence"][0]["sources"], "nvml,kernel");
  EXPECT_FALSE(g0["evidence"][0].contains("nvml_line"));
  EXPECT_FALSE(g0["evidence"][1].contains("xid"));
  EXPECT_EQ(g0["evidence"][1]["kind"], "recovery_action");
  EXPECT_EQ(j["gpus"][1]["state"], "healthy");
  EXPECT_EQ(j["gpus"][1]["action"], "none");
  EXPECT_TRUE(j["gpus"][1]["evidence"].empty());
}

}  // namespace
}  // namespace llmon::health
