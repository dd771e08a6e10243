// UniqueFd: closes what it owns, exactly once, and hands it over on move or
// release.
#include "base/unique_fd.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <utility>

namespace llmon::base {
namespace {

bool is_open(int fd) {
  return ::fcntl(fd, F_GETFD) != -1;
}

TEST(UniqueFd, ClosesOnDestructionAndReset) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(raw, 0);
  {
    UniqueFd fd(raw);
    EXPECT_TRUE(fd.valid());
    EXPECT_EQ(fd.get(), raw);
  }
  EXPECT_FALSE(is_open(raw));

  int a = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  UniqueFd fd(a);
  int b = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  fd.reset(b);
  EXPECT_FALSE(is_open(a));
  EXPECT_TRUE(is_open(b));
  fd.reset(b);  // the same descriptor again: kept open
  EXPECT_TRUE(is_open(b));
  fd.reset();
  EXPECT_FALSE(is_open(b));
  EXPECT_FALSE(fd.valid());
}

TEST(UniqueFd, MoveAndReleaseHandOver) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  UniqueFd a(raw);
  UniqueFd b(std::move(a));
  EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(b.get(), raw);
  UniqueFd c;
  c = std::move(b);
  EXPECT_EQ(c.get(), raw);
  EXPECT_EQ(c.release(), raw);
  EXPECT_FALSE(c.valid());
  EXPECT_TRUE(is_open(raw));
  ::close(raw);
}

}  // namespace
}  // namespace llmon::base
