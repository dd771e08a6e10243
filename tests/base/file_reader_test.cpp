#include "base/file_reader.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace llmon::base {
namespace {

TEST(CachedFile, ReadsPastTheFirstPageOfAProcSeqFile) {
  // 80 listeners put 80 lines of ~150 bytes into /proc/net/tcp, which the
  // kernel hands out one page per read.
  std::vector<int> fds;
  for (int i = 0; i < 80; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 1) != 0) {
      if (fd >= 0) ::close(fd);
      break;
    }
    fds.push_back(fd);
  }
  if (fds.size() < 80) GTEST_SKIP() << "no loopback TCP here";
  auto once = read_file("/proc/net/tcp");
  ASSERT_TRUE(once) << once.error();
  EXPECT_GT(once->size(), 8192u);
  CachedFile f("/proc/net/tcp");
  for (int pass = 0; pass < 2; ++pass) {  // the second read starts again at 0
    auto text = f.read();
    ASSERT_TRUE(text) << text.error();
    EXPECT_GT(text->size(), 8192u);
    size_t lines = 0;
    for (char c : *text) lines += c == '\n';
    EXPECT_GE(lines, 81u);  // the header and our listeners at least
    EXPECT_EQ(text->back(), '\n');
  }
  for (int fd : fds) ::close(fd);
}

TEST(CachedFile, RegularFileWholeAndMissingFileNamed) {
  std::string path = ::testing::TempDir() + "/seq_file_test.txt";
  std::string content(50000, 'x');
  std::ofstream(path) << content;
  CachedFile f(path);
  auto text = f.read();
  ASSERT_TRUE(text) << text.error();
  EXPECT_EQ(*text, content);
  std::remove(path.c_str());
  CachedFile missing("/nonexistent/llmon/seq");
  auto e = missing.read();
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("/nonexistent/llmon/seq"), std::string::npos) << e.error();
}

}  // namespace
}  // namespace llmon::base
