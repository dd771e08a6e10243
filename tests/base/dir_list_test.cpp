#include "base/dir_list.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace llmon::base {
namespace {

namespace fs = std::filesystem;

TEST(DirList, SortedWithKindsAndLinks) {
  char tmpl[] = "/tmp/llmon-dirlist-test-XXXXXX";
  fs::path root = ::mkdtemp(tmpl);
  std::ofstream(root / "b") << "x";
  fs::create_directory(root / "a10");
  fs::create_directory(root / "a2");
  fs::create_symlink("a2", root / "c");

  std::vector<DirEntry> out;
  ASSERT_TRUE(list_dir(root.string(), out));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].name, "a10");  // byte order, like Go's os.ReadDir
  EXPECT_EQ(out[1].name, "a2");
  EXPECT_EQ(out[2].name, "b");
  EXPECT_EQ(out[3].name, "c");
  EXPECT_EQ(out[2].kind, EntryKind::kFile);
  EXPECT_EQ(out[3].kind, EntryKind::kSymlink);
  EXPECT_EQ(stat_kind((root / "c").string()), EntryKind::kDir);
  EXPECT_EQ(stat_kind((root / "missing").string()), EntryKind::kMissing);
  EXPECT_EQ(*read_link((root / "c").string()), "a2");
  EXPECT_EQ(*real_path((root / "c").string()), fs::canonical(root / "a2").string());
  EXPECT_FALSE(read_link((root / "b").string()));

  auto missing = list_dir((root / "missing").string(), out);
  EXPECT_FALSE(missing);
  EXPECT_NE(missing.message().find("missing"), std::string::npos);
  EXPECT_TRUE(out.empty());
  fs::remove_all(root);
}

}  // namespace
}  // namespace llmon::base
