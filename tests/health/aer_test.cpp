#include "health/aer.h"

#include <gtest/gtest.h>

#include "support/test_paths.h"

namespace llmon::health {
namespace {

std::string sys_root() {
  return testing::fixture("health/sys");
}

TEST(Aer, ParsesTotalsAndSumsWithoutThem) {
  EXPECT_EQ(*parse_aer_file("RxErr 2\nBadTLP 1\nTOTAL_ERR_COR 3\n"), 3u);
  EXPECT_EQ(*parse_aer_file("RxErr 4\nBadTLP 5\n"), 9u);  // kernels before TOTAL_ERR_*
  EXPECT_EQ(*parse_aer_file(""), 0u);
  auto bad = parse_aer_file("RxErr 2\nBadTLP x\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("line 2"), std::string::npos);
  EXPECT_FALSE(parse_aer_file("RxErr\n"));
}

TEST(Aer, ReadsTheFixtureTreeByAnyAddressForm) {
  auto a = read_aer_counts(sys_root(), "00000000:18:00.0");  // NVML's form
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(a->correctable, 3u);
  EXPECT_EQ(a->nonfatal, 0u);
  EXPECT_EQ(a->fatal, 0u);
  auto b = read_aer_counts(sys_root(), "0000:2a:00");  // kernel Xid form
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(b->fatal, 1u);
  auto c = read_aer_counts(sys_root(), "0000:3a:00.0");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->correctable, 9u);
  EXPECT_EQ(c->nonfatal, 1u);
}

TEST(Aer, MissingCountersAreNoData) {
  auto none = read_aer_counts(sys_root(), "00000000:5D:00.0");
  ASSERT_FALSE(none);
  EXPECT_TRUE(none.status().is_no_data());
  auto absent = read_aer_counts(sys_root(), "0000:99:00.0");
  ASSERT_FALSE(absent);
  EXPECT_TRUE(absent.status().is_no_data());
  auto bad = read_aer_counts(sys_root(), "GPU-1");
  ASSERT_FALSE(bad);
  EXPECT_FALSE(bad.status().is_no_data());
}

}  // namespace
}  // namespace llmon::health
