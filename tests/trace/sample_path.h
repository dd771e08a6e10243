// Where the shared sample traces (HTA's tests/data) are for the sample tests:
// LLMON_TRACE_SAMPLES, else data/traces beside the clone. They are optional:
// REQUIRE_SAMPLE skips a test with the reason when a file is absent.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace llmon::trace::testing {

inline std::string samples() {
  const char* env = std::getenv("LLMON_TRACE_SAMPLES");
  return env && *env ? env : std::string(LLMON_SOURCE_DIR) + "/../shared/data/traces";
}

}  // namespace llmon::trace::testing

#define REQUIRE_SAMPLE(path)          \
  if (!std::filesystem::exists(path)) \
  GTEST_SKIP() << "no sample trace " << (path) << " (set LLMON_TRACE_SAMPLES to HTA's tests/data)"
