#include "procfs/meminfo_numa.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(NodeMeminfoParser, KilobytesBecomeBytesAndCountsStay) {
  std::vector<NodeMemInfoField> out;
  Status s = parse_node_meminfo(
      "Node 1 MemTotal:        32980008 kB\n\nNode 1 Active(anon):     9702212 kB\nNode 1 HugePages_Total:   256\n",
      "node1/meminfo", out);
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].node, "1");
  EXPECT_EQ(out[0].key, "MemTotal");
  EXPECT_EQ(out[0].value, 32980008.0 * 1024);
  EXPECT_EQ(out[1].key, "Active(anon)");
  EXPECT_EQ(node_meminfo_key(out[1].key), "Active_anon");
  EXPECT_EQ(out[2].key, "HugePages_Total");
  EXPECT_EQ(out[2].value, 256);
}

TEST(NodeMeminfoParser, MalformedLinesNameFileAndLine) {
  std::vector<NodeMemInfoField> out;
  Status s = parse_node_meminfo("Node 0 MemTotal: 1 kB\nNode 0 MemFree:\n", "node0/meminfo", out);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message().rfind("node0/meminfo:2:", 0), 0u) << s.message();
  EXPECT_FALSE(parse_node_meminfo("Node 0 MemFree: lots kB\n", "f", out));
  EXPECT_FALSE(parse_node_meminfo("Node 0 MemFree: 1 MB\n", "f", out));
  EXPECT_FALSE(parse_node_meminfo("Node 0 MemFree: 1 kB extra\n", "f", out));
}

TEST(NumastatParser, NameValueLines) {
  std::vector<NumaStatField> out;
  Status s = parse_node_numastat("numa_hit 1934721193\nnuma_miss 1204311\n\n", "numastat", out);
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].name, "numa_miss");
  EXPECT_EQ(out[1].value, 1204311);
  s = parse_node_numastat("numa_hit 1\nnuma_miss 1 2\n", "node0/numastat", out);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message().rfind("node0/numastat:2:", 0), 0u) << s.message();
  EXPECT_FALSE(parse_node_numastat("numa_hit x\n", "f", out));
}

}  // namespace
}  // namespace llmon::procfs
