#include "procfs/fibrechannel.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

const FcAttribute& attr(std::string_view file) {
  for (const auto& a : fc_attributes())
    if (a.file == file) return a;
  ADD_FAILURE() << file;
  return fc_attributes()[0];
}

TEST(FibreChannel, AttributesDropTheHexPrefix) {
  EXPECT_EQ(fc_attribute_value(attr("port_name"), "0x21000024ff7ab4c2\n"), "21000024ff7ab4c2");
  EXPECT_EQ(fc_attribute_value(attr("port_id"), "0x010a00\n"), "010a00");
  EXPECT_EQ(fc_attribute_value(attr("fabric_name"), "0\n"), "0");  // two characters or fewer: kept
  EXPECT_EQ(fc_attribute_value(attr("speed"), "16 Gbit\n"), "16 Gbit");
  EXPECT_EQ(fc_attributes().size(), 11u);
}

TEST(FibreChannel, CountersAreGoUnsignedIntegers) {
  EXPECT_EQ(parse_fc_counter("0x11\n"), 17u);
  EXPECT_EQ(parse_fc_counter("42\n"), 42u);
  EXPECT_FALSE(parse_fc_counter("bogus\n"));
  EXPECT_FALSE(parse_fc_counter("-1\n"));
  auto all_ones = parse_fc_counter("0xffffffffffffffff\n");
  ASSERT_TRUE(all_ones);
  EXPECT_TRUE(fc_counter_unimplemented(*all_ones));
  EXPECT_FALSE(fc_counter_unimplemented(0));
}

}  // namespace
}  // namespace llmon::procfs
