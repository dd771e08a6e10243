#include "procfs/net_class.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llmon::procfs {
namespace {

TEST(NetClass, GoIntegerSyntax) {
  EXPECT_EQ(parse_go_int("1500"), 1500);
  EXPECT_EQ(parse_go_int("-1"), -1);
  EXPECT_EQ(parse_go_int("+5"), 5);
  EXPECT_EQ(parse_go_int("0x1003"), 4099);
  EXPECT_EQ(parse_go_int("0X1f"), 31);
  EXPECT_EQ(parse_go_int("-0x10"), -16);
  EXPECT_EQ(parse_go_int("00012"), 10);  // leading 0: octal
  EXPECT_EQ(parse_go_int("0"), 0);
  EXPECT_EQ(parse_go_int("0b101"), 5);
  EXPECT_EQ(parse_go_int("0o17"), 15);
  EXPECT_EQ(parse_go_int("1_000"), 1000);
  EXPECT_EQ(parse_go_int("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parse_go_int("-9223372036854775808"), INT64_MIN);
  for (const char* bad : {"", "-", "+", "0x", "0x1G", "abc", "1.5", "9223372036854775808", "08", "1__0", "_1", "1_",
                          " 1", "0x_"})
    EXPECT_FALSE(parse_go_int(bad)) << bad;
}

TEST(NetClass, SetAttributeTrimsAndParses) {
  NetClassIface i;
  EXPECT_TRUE(set_attribute(i, "mtu", " 1500\n"));
  EXPECT_TRUE(set_attribute(i, "flags", "0x1003\n"));
  EXPECT_TRUE(set_attribute(i, "speed", "-1\n"));
  EXPECT_TRUE(set_attribute(i, "operstate", "up\n"));
  EXPECT_TRUE(set_attribute(i, "ifalias", "uplink to core\n"));
  EXPECT_TRUE(set_attribute(i, "duplex", "\n"));
  EXPECT_FALSE(set_attribute(i, "uevent", "INTERFACE=eth0\n"));
  EXPECT_EQ(i.mtu, 1500);
  EXPECT_EQ(i.flags, 4099);
  EXPECT_EQ(i.speed, -1);
  EXPECT_EQ(i.operstate, "up");
  EXPECT_EQ(i.ifalias, "uplink to core");
  EXPECT_EQ(i.duplex, "");
  EXPECT_FALSE(i.carrier.has_value());  // never set: no metric
}

TEST(NetClass, UnparsableIntegersReadAsZero) {
  // node_exporter 1.5 (procfs ValueParser.PInt64) yields 0 for text it cannot parse.
  NetClassIface i;
  set_attribute(i, "speed", "abc");
  set_attribute(i, "mtu", "");
  std::string garbage("\x01\xff\0\x80", 4);
  set_attribute(i, "type", garbage);
  EXPECT_EQ(i.speed, 0);
  EXPECT_EQ(i.mtu, 0);
  EXPECT_EQ(i.type, 0);
  set_attribute(i, "address", garbage);
  EXPECT_EQ(i.address, garbage.substr(0, 4));
}

TEST(NetClass, ResetClearsEverything) {
  NetClassIface i;
  i.name = "eth0";
  for (auto f : net_class_attribute_files()) set_attribute(i, f, "1");
  EXPECT_EQ(i.operstate, "1");
  reset(i);
  EXPECT_EQ(i.name, "");
  EXPECT_EQ(i.operstate, "");
  EXPECT_FALSE(i.mtu.has_value());
  EXPECT_FALSE(i.tx_queue_len.has_value());
}

TEST(NetClass, AttributeListHasWhatTheCollectorEmits) {
  auto files = net_class_attribute_files();
  for (const char* f : {"address", "broadcast", "duplex", "ifalias", "operstate", "speed", "mtu", "carrier",
                        "carrier_changes", "carrier_up_count", "carrier_down_count", "dev_id", "dormant", "flags",
                        "ifindex", "iflink", "link_mode", "name_assign_type", "netdev_group", "tx_queue_len", "type",
                        "addr_assign_type"})
    EXPECT_NE(std::find(files.begin(), files.end(), f), files.end()) << f;
}

TEST(NetClass, AttributesByIndex) {
  auto files = net_class_attribute_files();
  ASSERT_EQ(files.size(), kNetClassAttributeCount);
  for (size_t i = 0; i < files.size(); ++i) EXPECT_EQ(net_class_attribute_index(files[i]), i) << files[i];
  EXPECT_EQ(net_class_attribute_index("statistics"), kNetClassAttributeCount);
  EXPECT_EQ(net_class_attribute_index(""), kNetClassAttributeCount);
  NetClassIface i;
  EXPECT_TRUE(set_attribute_at(i, net_class_attribute_index("mtu"), " 0x10\n"));
  EXPECT_EQ(i.mtu, 16);
  EXPECT_TRUE(set_attribute_at(i, net_class_attribute_index("operstate"), "up\n"));
  EXPECT_EQ(i.operstate, "up");
  EXPECT_FALSE(set_attribute_at(i, kNetClassAttributeCount, "1"));
  EXPECT_FALSE(set_attribute(i, "statistics", "1"));
}

}  // namespace
}  // namespace llmon::procfs
