#include "collector/cpu_dirs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::TempFixture;

TEST(CpuDirs, ListsCpuEntriesSortedLikeGlob) {
  TempFixture t;
  const std::string cpu = "sys/devices/system/cpu/";
  t.write(cpu + "cpu10/topology/core_id", "0\n");
  t.write(cpu + "cpufreq/policy0/x", "");  // not cpu[0-9]*
  t.write(cpu + "cpuidle/x", "");
  CpuDirs d(t.path(cpu.substr(0, cpu.size() - 1)));
  EXPECT_TRUE(d.refresh());
  EXPECT_EQ(d.names(), (std::vector<std::string>{"cpu0", "cpu1", "cpu10", "cpu2", "cpu3"}));
}

TEST(CpuDirs, RelistsOnlyWhenPresentOrOnlineChange) {
  TempFixture t;
  const std::string cpu = "sys/devices/system/cpu/";
  CpuDirs d(t.path("sys/devices/system/cpu"));
  ASSERT_TRUE(d.refresh());
  EXPECT_EQ(d.names().size(), 4u);
  EXPECT_FALSE(d.refresh());
  t.write(cpu + "cpu4/online", "1\n");
  EXPECT_FALSE(d.refresh());  // the lists did not change: not listed again
  EXPECT_EQ(d.names().size(), 4u);
  t.write(cpu + "present", "0-4\n");
  EXPECT_TRUE(d.refresh());
  EXPECT_EQ(d.names().size(), 5u);
  t.write(cpu + "online", "0-3\n");  // same text as before: no change
  EXPECT_FALSE(d.refresh());
  t.write(cpu + "online", "0-2\n");
  EXPECT_TRUE(d.refresh());
}

TEST(CpuDirs, WithoutListsEveryCallRelists) {
  TempFixture t;
  t.remove("sys/devices/system/cpu/present");
  t.remove("sys/devices/system/cpu/online");
  CpuDirs d(t.path("sys/devices/system/cpu"));
  EXPECT_TRUE(d.refresh());
  EXPECT_TRUE(d.refresh());
  EXPECT_EQ(d.names().size(), 4u);
}

TEST(CpuDirs, MissingDirectoryListsNothing) {
  TempFixture t({});
  CpuDirs d(t.path("sys/devices/system/cpu"));
  EXPECT_TRUE(d.refresh());
  EXPECT_TRUE(d.names().empty());
}

}  // namespace
}  // namespace llmon::collector
