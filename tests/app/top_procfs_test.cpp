// read_launchers / read_parent_pids over a fixture /proc: the tree view's
// non-GPU parents of GPU processes.
#include "app/top_procfs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tsdb/temp_dir.h"

namespace llmon::app {
namespace {

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

// /proc/PID/{stat,status} of a process named comm with parent ppid.
void add_process(const std::string& proc, const std::string& pid, const std::string& comm, const std::string& ppid,
                 int uid, int rss_kb) {
  write(proc + "/" + pid + "/stat", pid + " (" + comm + ") S " + ppid +
                                        " 1 1 0 -1 4194560 0 0 0 0 5 3 0 0 20 0 1 0 100 0 0 18446744073709551615 0 0 0 "
                                        "0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n");
  write(proc + "/" + pid + "/status", "Name:\t" + comm + "\nUid:\t" + std::to_string(uid) + "\t" + std::to_string(uid) +
                                          "\t" + std::to_string(uid) + "\t" + std::to_string(uid) + "\nVmRSS:\t" +
                                          std::to_string(rss_kb) + " kB\n");
}

TEST(TopLaunchers, NonGpuParentsAreReadAndNest) {
  testing::TempDir dir;
  const std::string proc = dir.path() + "/proc";
  add_process(proc, "100", "bash", "1", 1000, 4000);  // a shell: parent of torchrun and of a GPU process
  add_process(proc, "200", "torchrun", "100", 1000, 90000);
  add_process(proc, "201", "python3", "200", 1000, 1);  // GPU workers
  add_process(proc, "202", "python3", "200", 1000, 1);
  add_process(proc, "300", "python3", "100", 1000, 1);  // GPU, child of the shell
  add_process(proc, "400", "python3", "1", 0, 1);       // GPU, child of init: no launcher
  add_process(proc, "500", "python3", "2", 0, 1);       // GPU, child of kthreadd (odd): none either
  add_process(proc, "600", "python3", "999", 0, 1);     // its parent is gone
  write(dir.path() + "/passwd", "root:x:0:0::/root:/bin/sh\nml:x:1000:1000::/srv/ml:/bin/sh\n");
  const std::vector<std::string> gpu = {"201", "202", "300", "400", "500", "600"};
  auto ppid = read_parent_pids(proc, gpu);
  EXPECT_EQ(ppid.size(), 6u);
  EXPECT_EQ(ppid["201"], "200");
  auto launchers = read_launchers(proc, dir.path() + "/passwd", gpu, ppid);
  ASSERT_EQ(launchers.size(), 2u);  // bash and torchrun; 999 is gone
  EXPECT_EQ(launchers[0].pid, "100");
  EXPECT_EQ(launchers[0].command, "bash");
  EXPECT_EQ(launchers[0].user, "ml");
  ASSERT_TRUE(launchers[0].rss_bytes.has_value());
  EXPECT_EQ(*launchers[0].rss_bytes, 4000.0 * 1024);
  EXPECT_EQ(launchers[1].pid, "200");
  EXPECT_EQ(launchers[1].command, "torchrun");
  EXPECT_TRUE(launchers[1].gpu.empty());
  EXPECT_FALSE(launchers[1].gpu_mem_bytes.has_value());
  EXPECT_EQ(ppid["200"], "100");  // the launchers' own parents: torchrun nests under the shell
  EXPECT_EQ(ppid["100"], "1");
  // Without a passwd file the uid is shown.
  auto bare = read_launchers(proc, dir.path() + "/none", gpu, ppid);
  ASSERT_FALSE(bare.empty());
  EXPECT_EQ(bare[0].user, "1000");
}

TEST(TopLaunchers, NoneWhenEveryParentIsAGpuProcessOrInit) {
  testing::TempDir dir;
  const std::string proc = dir.path() + "/proc";
  add_process(proc, "10", "python3", "1", 0, 1);
  add_process(proc, "11", "python3", "10", 0, 1);
  const std::vector<std::string> gpu = {"10", "11"};
  auto ppid = read_parent_pids(proc, gpu);
  EXPECT_TRUE(read_launchers(proc, "/nonexistent", gpu, ppid).empty());
  EXPECT_EQ(ppid.size(), 2u);
}

}  // namespace
}  // namespace llmon::app
