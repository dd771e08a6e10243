#include "procfs/net_arp.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

constexpr std::string_view kHeader = "IP address       HW type     Flags       HW address            Mask     Device\n";

TEST(Arp, CountsEntriesPerDevice) {
  std::string text(kHeader);
  text +=
      "10.20.0.1        0x1         0x2         3c:ec:ef:12:34:01     *        eth0\n"
      "192.168.122.1    0x1         0x2         52:54:00:9a:3b:c1     *        ens3\n"
      "10.20.0.23       0x1         0x0         00:00:00:00:00:00     *        eth0\n";
  auto a = parse_arp(text);
  ASSERT_TRUE(a) << a.error();
  ASSERT_EQ(a->size(), 2u);
  EXPECT_EQ((*a)[0].device, "eth0");
  EXPECT_EQ((*a)[0].entries, 2u);
  EXPECT_EQ((*a)[1].device, "ens3");
  EXPECT_EQ((*a)[1].entries, 1u);
}

TEST(Arp, DeviceIsTheLastFieldAndContentIsNotChecked) {
  // node_exporter 1.5 looks at the field count and the last field only.
  std::string text(kHeader);
  text += "10.0.0.1 0x1 0x2 zz:zz * eth0 extra\n";
  auto a = parse_arp(text);
  ASSERT_TRUE(a) << a.error();
  ASSERT_EQ(a->size(), 1u);
  EXPECT_EQ((*a)[0].device, "extra");
}

TEST(Arp, ShortOrBlankLineIsAnError) {
  std::string text(kHeader);
  auto a = parse_arp(text + "10.0.0.1 0x1 0x2 aa:bb:cc:dd:ee:ff eth0\n");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().find("/proc/net/arp:2: unexpected ARP table format"), std::string::npos) << a.error();
  EXPECT_FALSE(parse_arp(text + "\n"));
  auto only_header = parse_arp(text);
  ASSERT_TRUE(only_header);
  EXPECT_TRUE(only_header->empty());
}

}  // namespace
}  // namespace llmon::procfs
