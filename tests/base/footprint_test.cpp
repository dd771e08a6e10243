// release_code_pages() and release_free_heap() in a running process: code
// of the binary and of the libraries keeps running afterwards (pages fault
// back from the files), and the resident code shrinks from what it was.
#include "base/footprint.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace llmon::base {
namespace {

// Resident kB of the process's r-xp file mappings, from /proc/self/smaps.
long resident_code_kb() {
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool code = false;
  long kb = 0;
  const std::regex header(R"(^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s+(\S*))");
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, header)) {
      code = m[1] == "r-xp" && !m[2].str().empty() && m[2].str()[0] == '/';
    } else if (code && line.rfind("Rss:", 0) == 0) {
      kb += std::strtol(line.c_str() + 4, nullptr, 10);
    }
  }
  return kb;
}

TEST(Footprint, CodeKeepsRunningAfterItsPagesAreReleased) {
  const long before = resident_code_kb();
  ASSERT_GT(before, 0);
  EXPECT_GT(release_code_pages(), 0);  // at least this binary and libc
  // Code of this binary, libstdc++ and libc runs again after the release.
  std::vector<std::string> words;
  for (int i = 0; i < 1000; ++i) words.push_back(std::to_string(i * 7919));
  std::regex digits("[0-9]+");
  EXPECT_TRUE(std::regex_match(words.back(), digits));
  release_free_heap();
  EXPECT_EQ(words[3], "23757");
  // Fewer code pages are resident than before: only what ran since.
  EXPECT_LT(resident_code_kb(), before);
}

}  // namespace
}  // namespace llmon::base
