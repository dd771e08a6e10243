#include "base/dynamic_library.h"

#include <gtest/gtest.h>

#include <cstring>

namespace llmon::base {
namespace {

// libz.so.1 is on every machine that builds llmon (the agent links zlib).
TEST(DynamicLibrary, LoadsAndResolves) {
  auto lib = DynamicLibrary::open("libz.so.1");
  ASSERT_TRUE(lib) << lib.error();
  EXPECT_TRUE(lib->loaded());
  auto version = lib->function<const char* (*)()>("zlibVersion");
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(std::strncmp(version(), "1.", 2), 0);
  EXPECT_EQ(lib->symbol("no_such_symbol_in_zlib"), nullptr);
}

TEST(DynamicLibrary, FirstFunctionPrefersNewestName) {
  auto lib = DynamicLibrary::open("libz.so.1");
  ASSERT_TRUE(lib) << lib.error();
  const char* found = nullptr;
  auto fn = lib->first_function<unsigned long (*)(unsigned long, const unsigned char*, unsigned)>(
      {"crc32_v9_does_not_exist", "crc32"}, &found);
  ASSERT_NE(fn, nullptr);
  EXPECT_STREQ(found, "crc32");
  EXPECT_EQ(fn(0, reinterpret_cast<const unsigned char*>("abc"), 3), 0x352441C2ul);
  EXPECT_EQ((lib->first_function<void (*)()>({"nope1", "nope2"})), nullptr);
}

TEST(DynamicLibrary, MissingLibraryNamesThePath) {
  auto lib = DynamicLibrary::open("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(lib);
  EXPECT_NE(lib.error().find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << lib.error();
}

TEST(DynamicLibrary, MovesOwnership) {
  auto lib = DynamicLibrary::open("libz.so.1");
  ASSERT_TRUE(lib);
  DynamicLibrary a = std::move(*lib);
  EXPECT_TRUE(a.loaded());
  EXPECT_FALSE(lib->loaded());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  DynamicLibrary b;
  b = std::move(a);
  EXPECT_TRUE(b.loaded());
  EXPECT_NE(b.symbol("zlibVersion"), nullptr);
}

}  // namespace
}  // namespace llmon::base
