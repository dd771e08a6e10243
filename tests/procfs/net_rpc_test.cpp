#include "procfs/net_rpc.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace llmon::procfs {
namespace {

std::string numbered(int count, int base) {
  std::string s = std::to_string(count);
  for (int i = 0; i < count; ++i) s += " " + std::to_string(base + i);
  return s;
}

struct BadCase {
  std::string text, message;
};

// Each text fails to parse (as file "f") with exactly its message.
template <typename Parse>
void expect_errors(Parse parse, std::initializer_list<BadCase> cases) {
  for (const auto& c : cases) {
    auto p = parse(c.text, "f");
    ASSERT_FALSE(p) << c.text;
    EXPECT_EQ(p.error(), c.message);
  }
}

TEST(NfsClientStatsParser, KernelLines) {
  auto p = parse_nfs_client_stats(
      "net 18628 0 18628 6\n"
      "rpc 4329785 0 4338291\n"
      "proc2 " +
      numbered(18, 200) +
      "\n"
      "proc3 " +
      numbered(22, 300) +
      "\n"
      "proc4 " +
      numbered(69, 1000) + "\n");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->network.net_count, 18628u);
  EXPECT_EQ(p->network.udp_count, 0u);
  EXPECT_EQ(p->network.tcp_count, 18628u);
  EXPECT_EQ(p->network.tcp_connect, 6u);
  EXPECT_EQ(p->rpc_count, 4329785u);
  EXPECT_EQ(p->retransmissions, 0u);
  EXPECT_EQ(p->auth_refreshes, 4338291u);
  EXPECT_EQ(p->v2[0], 200u);
  EXPECT_EQ(p->v2[17], 217u);
  EXPECT_EQ(p->v3[21], 321u);
  EXPECT_EQ(p->v4[0], 1000u);
  EXPECT_EQ(p->v4[58], 1058u);  // the 10 counters past procfs' 59 are dropped
}

TEST(NfsClientStatsParser, AbsentAndShortLinesLeaveZeros) {
  auto p = parse_nfs_client_stats("rpc 1 2 3\nproc4 " + numbered(40, 1) + "\n");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->network.tcp_count, 0u);
  EXPECT_EQ(p->v2, NfsV2Procs{});
  EXPECT_EQ(p->v4[39], 40u);
  EXPECT_EQ(p->v4[40], 0u);
  EXPECT_EQ(p->v4[58], 0u);
  ASSERT_TRUE(parse_nfs_client_stats(""));
}

TEST(NfsClientStatsParser, UnknownLinesAreSkipped) {
  auto p = parse_nfs_client_stats("rpc 1 2 3\nnewline 7 8\n");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->rpc_count, 1u);
}

TEST(NfsClientStatsParser, BadLinesNameFileAndLine) {
  expect_errors(parse_nfs_client_stats,
                {
                    {"rpc 1 2 3\nnet 1 2 3\n", "f:2: net: expected 4 values, got 3"},
                    {"rpc 1 2\n", "f:1: rpc: expected 3 values, got 2"},
                    {"rpc 1 -2 3\n", "f:1: rpc: value 2 is not an unsigned number: \"-2\""},
                    {"rpc\n", "f:1: expected a key and at least one value: \"rpc\""},
                    {"proc3 " + numbered(21, 1) + "\n", "f:1: proc3: expected at least 22 values, got 21"},
                    {"proc2 18 1 2\n", "f:1: proc2: the line announces 18 values but has 2"},
                });
}

TEST(NfsServerStatsParser, KernelLines) {
  auto p = parse_nfs_server_stats(
      "rc 3 1144893 3911271\n"
      "fh 9 0 0 0 0\n"
      "io 118723604480 52210339840\n"
      "th 8 0 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000\n"
      "ra 32 1 2 3 4 5 6 7 8 9 10 11\n"
      "net 9137188 1 9137004 402\n"
      "rpc 9136961 6 1 2 3\n"
      "proc2 " +
          numbered(18, 200) +
          "\n"
          "proc3 " +
          numbered(22, 300) +
          "\n"
          "proc4 2 4 4101582\n"
          "proc4ops " +
          numbered(72, 1000) + "\n",
      "f");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->reply_cache_hits, 3u);
  EXPECT_EQ(p->reply_cache_misses, 1144893u);
  EXPECT_EQ(p->reply_cache_nocache, 3911271u);
  EXPECT_EQ(p->file_handles_stale, 9u);
  EXPECT_EQ(p->io_read, 118723604480u);
  EXPECT_EQ(p->io_write, 52210339840u);
  EXPECT_EQ(p->threads, 8u);
  EXPECT_EQ(p->read_ahead_cache_size, 32u);
  EXPECT_EQ(p->read_ahead_cache_not_found, 11u);
  EXPECT_EQ(p->network.udp_count, 1u);
  EXPECT_EQ(p->network.tcp_connect, 402u);
  EXPECT_EQ(p->rpc_count, 9136961u);
  EXPECT_EQ(p->rpc_bad_fmt, 1u);
  EXPECT_EQ(p->rpc_bad_auth, 2u);
  EXPECT_EQ(p->rpc_bad_client, 3u);
  EXPECT_EQ(p->v2[1], 201u);
  EXPECT_EQ(p->v3[21], 321u);
  EXPECT_EQ(p->v4_ops[3], 1003u);
  EXPECT_EQ(p->v4_ops[39], 1039u);
}

TEST(NfsServerStatsParser, ShapesProcfsRefuses) {
  expect_errors(parse_nfs_server_stats,
                {
                    {"th 8\n", "f:1: th: expected 2 values, got 1"},
                    {"ra 32 0 0\n", "f:1: ra: expected 12 values, got 3"},
                    {"rpc 1 2 3 4\n", "f:1: rpc: expected 5 values, got 4"},
                    {"fh 0 0 0 0\n", "f:1: fh: expected 5 values, got 4"},
                    {"proc4 3 1 2 3\n", "f:1: proc4: expected 3 values, got 4"},
                    {"proc4ops " + numbered(38, 0) + "\n", "f:1: proc4ops: expected at least 39 values, got 38"},
                    {"io 1 x\n", "f:1: io: value 2 is not an unsigned number: \"x\""},
                });
  // 39 operations (2.6.x kernels): the 40th stays 0.
  auto p = parse_nfs_server_stats("proc4ops " + numbered(39, 1) + "\nwdeleg_getattr 5\n");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->v4_ops[38], 39u);
  EXPECT_EQ(p->v4_ops[39], 0u);
}

}  // namespace
}  // namespace llmon::procfs
