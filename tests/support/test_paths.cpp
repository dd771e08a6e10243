#include "support/test_paths.h"

#include <cstdlib>
#include <cstring>

namespace llmon::testing {

std::string source_dir() { return LLMON_SOURCE_DIR; }
std::string fixture(const std::string& rel) { return source_dir() + "/tests/fixtures/" + rel; }
std::string llmon_binary() { return LLMON_BINARY; }
bool update_golden() {
  const char* v = std::getenv("LLMON_UPDATE_GOLDEN");
  return v && std::strcmp(v, "1") == 0;
}

}  // namespace llmon::testing
