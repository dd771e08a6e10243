// docs/cli.md is generated from the flag table; this fails when it is stale.
// Regenerate with `make docs` (or LLMON_UPDATE_GOLDEN=1 and rerun this test).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "app/commands.h"
#include "support/test_paths.h"

namespace llmon::app {
namespace {

TEST(CliDoc, DocsCliMdMatchesFlagTable) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  write_help(mem, /*markdown=*/true);
  std::fclose(mem);
  std::string generated(buf, len);
  std::free(buf);
  std::string path = llmon::testing::source_dir() + "/docs/cli.md";
  if (llmon::testing::update_golden()) std::ofstream(path) << generated;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), generated) << "docs/cli.md is stale: run `make docs`";
}

}  // namespace
}  // namespace llmon::app
