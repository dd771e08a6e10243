// thermal_zone collector on the shared fixture tree and on per-test trees
// with broken zones and cooling devices.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "collector/builtin.h"
#include "support/test_paths.h"

namespace llmon::collector {
namespace {

namespace fs = std::filesystem;

class ThermalTree {
 public:
  ThermalTree() {
    char tmpl[] = "/tmp/llmon-thermal-test-XXXXXX";
    root_ = ::mkdtemp(tmpl);
  }
  ~ThermalTree() { fs::remove_all(root_); }
  void file(const std::string& rel, const std::string& content) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << content;
  }
  std::string path() const { return root_.string(); }

 private:
  fs::path root_;
};

std::unique_ptr<Collector> thermal_at(const std::string& sys_root) {
  CollectorContext ctx;
  ctx.fs.sys_root = sys_root;
  return make_thermal_zone(ctx);
}

Status collect_into(Collector& c, model::Snapshot& snap, int64_t ts = 1000) {
  model::SnapshotBuilder b(snap, ts);
  Status s = c.collect(b);
  b.finish();
  return s;
}

TEST(ThermalZoneCollector, FixtureTree) {
  auto c = thermal_at(testing::fixture("sys"));
  model::Snapshot s;
  Status st = collect_into(*c, s);
  ASSERT_TRUE(st) << st.message();
  const auto* z0 = s.find_series("node_thermal_zone_temp", {{"type", "acpitz"}, {"zone", "0"}});
  ASSERT_NE(z0, nullptr);
  EXPECT_DOUBLE_EQ(z0->value, 27.8);
  const auto* z1 = s.find_series("node_thermal_zone_temp", {{"type", "x86_pkg_temp"}, {"zone", "1"}});
  ASSERT_NE(z1, nullptr);
  EXPECT_DOUBLE_EQ(z1->value, 46);
  EXPECT_EQ(s.find("node_thermal_zone_temp")->label_names, (std::vector<std::string>{"type", "zone"}));

  const auto* clamp = s.find_series("node_cooling_device_cur_state", {{"name", "2"}, {"type", "intel_powerclamp"}});
  ASSERT_NE(clamp, nullptr);
  EXPECT_EQ(clamp->value, -1);
  const auto* tcc = s.find_series("node_cooling_device_max_state", {{"name", "3"}, {"type", "TCC Offset"}});
  ASSERT_NE(tcc, nullptr);
  EXPECT_EQ(tcc->value, 63);
  EXPECT_EQ(s.find("node_cooling_device_cur_state")->series.size(), 4u);
  EXPECT_EQ(s.find("node_cooling_device_max_state")->series.size(), 4u);
}

TEST(ThermalZoneCollector, BrokenEntriesAreSkippedAndReported) {
  ThermalTree t;
  t.file("class/thermal/thermal_zone0/type", "acpitz\n");
  t.file("class/thermal/thermal_zone0/policy", "step_wise\n");
  t.file("class/thermal/thermal_zone0/temp", "27800\n");
  t.file("class/thermal/thermal_zone1/type", "pch\n");  // no policy file
  t.file("class/thermal/thermal_zone1/temp", "1000\n");
  t.file("class/thermal/thermal_zone2/type", "bad\n");
  t.file("class/thermal/thermal_zone2/policy", "step_wise\n");
  t.file("class/thermal/thermal_zone2/temp", "\n");  // truncated
  t.file("class/thermal/cooling_device0/type", "Fan\n");
  t.file("class/thermal/cooling_device0/cur_state", "1\n");  // no max_state
  t.file("class/thermal/cooling_device1/type", "Processor\n");
  t.file("class/thermal/cooling_device1/cur_state", "2\n");
  t.file("class/thermal/cooling_device1/max_state", "10\n");
  t.file("class/thermal/thermal_zoneX/type", "not a zone\n");  // glob thermal_zone[0-9]* skips it
  auto c = thermal_at(t.path());
  model::Snapshot s;
  Status st = collect_into(*c, s);
  EXPECT_FALSE(st);  // node_exporter fails the collector too
  EXPECT_EQ(s.find("node_thermal_zone_temp")->series.size(), 1u);
  EXPECT_NE(s.find_series("node_thermal_zone_temp", {{"zone", "0"}}), nullptr);
  EXPECT_EQ(s.find("node_cooling_device_cur_state")->series.size(), 1u);
  const auto* cd1 = s.find_series("node_cooling_device_max_state", {{"name", "1"}, {"type", "Processor"}});
  ASSERT_NE(cd1, nullptr);
  EXPECT_EQ(cd1->value, 10);
}

TEST(ThermalZoneCollector, FollowsChangesAndEmptyClass) {
  ThermalTree t;
  auto c = thermal_at(t.path());
  model::Snapshot s;
  EXPECT_TRUE(collect_into(*c, s, 1000));  // no class/thermal at all: nothing, no failure
  EXPECT_EQ(s.series_count(), 0u);

  t.file("class/thermal/thermal_zone0/type", "acpitz\n");
  t.file("class/thermal/thermal_zone0/policy", "step_wise\n");
  t.file("class/thermal/thermal_zone0/temp", "30000\n");
  ASSERT_TRUE(collect_into(*c, s, 2000));
  ASSERT_NE(s.find_series("node_thermal_zone_temp", {{"zone", "0"}}), nullptr);
  EXPECT_DOUBLE_EQ(s.find_series("node_thermal_zone_temp", {{"zone", "0"}})->value, 30);

  t.file("class/thermal/thermal_zone0/temp", "31500\n");
  ASSERT_TRUE(collect_into(*c, s, 3000));
  EXPECT_DOUBLE_EQ(s.find_series("node_thermal_zone_temp", {{"zone", "0"}})->value, 31.5);
}

}  // namespace
}  // namespace llmon::collector
