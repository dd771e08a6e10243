#include "procfs/net_udp.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

constexpr std::string_view kHeader =
    "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref "
    "pointer drops            \n";

TEST(SocketQueues, SumsQueuesOverSockets) {
  std::string text(kHeader);
  text +=
      "  142: 3500007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000   102        0 19827 2 "
      "ffff8f2a0c4d8000 0\n"
      "  287: 00000000:14E9 00000000:0000 07 00000000:00000300 00:00000000 00000000   108        0 22911 2 "
      "ffff8f2a0c4db400 0\n"
      " 1024: 0A14000B:C8D5 0A140001:0035 01 00000340:00000a80 00:00000000 00000000  1000        0 88123 2 "
      "ffff8f2a0c4df000 0\n";
  auto q = parse_socket_queues(text);
  ASSERT_TRUE(q) << q.error();
  EXPECT_EQ(q->sockets, 3u);
  EXPECT_EQ(q->tx_queue, 0x340u);
  EXPECT_EQ(q->rx_queue, 0x300u + 0xa80u);
}

TEST(SocketQueues, Ipv6Addresses) {
  auto q = parse_socket_queues(
      "  sl  local_address                         remote_address                        st tx_queue rx_queue tr "
      "tm->when retrnsmt   uid  timeout inode ref pointer drops\n"
      "  391: 000080FE00000000FF000000ABCDEF12:007B 00000000000000000000000000000000:0000 07 00000010:00000200 "
      "00:00000000 00000000     0        0 24414 2 ffff8f2a1a2c9800 0\n",
      "/proc/net/udp6");
  ASSERT_TRUE(q) << q.error();
  EXPECT_EQ(q->tx_queue, 16u);
  EXPECT_EQ(q->rx_queue, 512u);
}

TEST(SocketQueues, HeaderOnlyAndEmpty) {
  auto q = parse_socket_queues(kHeader);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->sockets, 0u);
  EXPECT_TRUE(parse_socket_queues(""));
}

TEST(SocketQueues, MalformedLinesNameFileAndLine) {
  std::string h(kHeader);
  const char* bad[] = {
      "  142: 3500007F:0035 00000000:0000 07 00000000:00000000 00:00000000\n",               // 7 fields
      "  142 3500007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000 102\n",   // sl without colon
      "  142: 3500007:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000 102\n",   // odd-length address
      "  142: 3500007F:0035 00000000:0000 07 00000000-00000000 00:00000000 00000000 102\n",  // queues
      "  142: 3500007F:0035 00000000:0000 07 0000000g:00000000 00:00000000 00000000 102\n",
      "  142: 3500007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000 1x\n",  // uid
      "\n",
  };
  for (const char* line : bad) {
    auto q = parse_socket_queues(h + line, "/proc/net/udp");
    ASSERT_FALSE(q) << line;
    EXPECT_NE(q.error().find("/proc/net/udp:2:"), std::string::npos) << q.error();
  }
}

}  // namespace
}  // namespace llmon::procfs
