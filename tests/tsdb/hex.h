// Lower-case hex of a byte vector, for chunk goldens and failure messages.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace llmon::testing {

inline std::string hex(const std::vector<uint8_t>& b) {
  std::string out;
  char buf[4];
  for (uint8_t c : b) {
    std::snprintf(buf, sizeof buf, "%02x", c);
    out += buf;
  }
  return out;
}

}  // namespace llmon::testing
