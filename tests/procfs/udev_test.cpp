#include "procfs/udev.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(Udev, ReadsPropertyLinesOnly) {
  auto p = parse_udev_properties(
      "S:disk/by-id/ata-X\n"
      "W:4\n"
      "E:ID_MODEL=WDC_WD40EFRX\n"
      "E:ID_PATH=pci-0000:00:1f.2-ata-1\n"
      "E:DM_UUID=a=b\r\n"
      "E:NOEQUALS\n"
      "E:ID_MODEL=second\n"
      "G:systemd\n");
  EXPECT_EQ(p.get("ID_MODEL"), "second");  // the later duplicate wins
  EXPECT_EQ(p.get("ID_PATH"), "pci-0000:00:1f.2-ata-1");
  EXPECT_EQ(p.get("DM_UUID"), "a=b");
  EXPECT_EQ(p.get("S"), "");
  EXPECT_FALSE(p.has("NOEQUALS"));
  EXPECT_FALSE(p.has("disk/by-id/ata-X"));
  EXPECT_TRUE(p.has("ID_PATH"));
}

TEST(Udev, EmptyValueIsPresent) {
  auto p = parse_udev_properties("E:ID_ATA_WRITE_CACHE=\n");
  EXPECT_TRUE(p.has("ID_ATA_WRITE_CACHE"));
  EXPECT_EQ(p.get("ID_ATA_WRITE_CACHE"), "");
}

TEST(Udev, EmptyAndGarbage) {
  EXPECT_TRUE(parse_udev_properties("").props.empty());
  std::string text;
  for (int i = 0; i < 1024; ++i) text += static_cast<char>((i * 41 + 5) % 256);
  auto p = parse_udev_properties(text);
  for (const auto& [k, v] : p.props) EXPECT_EQ(k.find('='), std::string::npos);
  EXPECT_TRUE(parse_udev_properties("E:").props.empty());
  EXPECT_EQ(parse_udev_properties("E:=x").get(""), "x");
}

}  // namespace
}  // namespace llmon::procfs
