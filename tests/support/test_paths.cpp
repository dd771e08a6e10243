#include "support/test_paths.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace llmon::testing {

std::string source_dir() { return LLMON_SOURCE_DIR; }
std::string fixture(const std::string& rel) { return source_dir() + "/tests/fixtures/" + rel; }
std::string llmon_binary() { return LLMON_BINARY; }
std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    const std::string p = dir + "/" + name;
    if (!dir.empty() && ::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}
bool update_golden() {
  const char* v = std::getenv("LLMON_UPDATE_GOLDEN");
  return v && std::strcmp(v, "1") == 0;
}

}  // namespace llmon::testing
