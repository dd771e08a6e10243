// Helpers shared by the tests of src/top/: screen goldens under
// tests/golden/ (LLMON_UPDATE_GOLDEN=1 rewrites them) and key events.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "support/test_paths.h"
#include "top/keys.h"

namespace llmon::top {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void check_golden(const std::string& name, const std::string& got) {
  const std::string path = llmon::testing::source_dir() + "/tests/golden/" + name;
  if (llmon::testing::update_golden()) {
    std::ofstream(path, std::ios::binary) << got;
    return;
  }
  std::string want = read_file(path);
  ASSERT_FALSE(want.empty()) << path << " missing: run with LLMON_UPDATE_GOLDEN=1";
  EXPECT_EQ(got, want) << "screen differs from " << path << ":\n" << got;
}

inline KeyEvent ch(char32_t c) {
  KeyEvent e;
  e.key = Key::kChar;
  e.ch = c;
  return e;
}

inline KeyEvent key(Key k) {
  KeyEvent e;
  e.key = k;
  return e;
}

}  // namespace llmon::top
