#include "procfs/file_nr.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(FileNrParser, AllocatedAndMaximum) {
  auto nr = parse_file_nr("9216\t0\t9223372036854775807\n");
  ASSERT_TRUE(nr) << nr.error();
  EXPECT_EQ(nr->allocated, 9216);
  EXPECT_EQ(nr->maximum, 9223372036854775807.0);
}

TEST(FileNrParser, MalformedTextNamesTheFile) {
  auto few = parse_file_nr("9216 0 1000\n", "/proc/sys/fs/file-nr");  // spaces, not tabs
  ASSERT_FALSE(few);
  EXPECT_EQ(few.error(), "/proc/sys/fs/file-nr:1: expected 3 tab-separated fields, got 1");
  auto bad = parse_file_nr("9216\t0\tmany\n", "/proc/sys/fs/file-nr");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "/proc/sys/fs/file-nr:1: field 3 is not a number: \"many\"");
  EXPECT_FALSE(parse_file_nr(""));
}

}  // namespace
}  // namespace llmon::procfs
