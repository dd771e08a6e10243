#include "procfs/infiniband.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(IbState, IdAndName) {
  auto s = parse_ib_state("4: ACTIVE\n", "state");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->id, 4u);
  EXPECT_EQ(s->name, "ACTIVE");
  auto p = parse_ib_state("5: LinkUp\n", "phys_state");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->id, 5u);
  EXPECT_EQ(p->name, "LinkUp");
}

TEST(IbState, MalformedNamesTheFile) {
  for (auto bad : {"ACTIVE\n", "4: A: B\n", "x: ACTIVE\n", ": ACTIVE", "-1: DOWN", "4294967296: X"}) {
    auto s = parse_ib_state(bad, "/sys/class/infiniband/mlx5_0/ports/1/state");
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.error().find("ports/1/state"), std::string::npos) << s.error();
  }
}

TEST(IbRate, GbPerSecondToBytes) {
  EXPECT_EQ(*parse_ib_rate("200 Gb/sec (4X HDR)\n", "rate"), 25'000'000'000u);
  EXPECT_EQ(*parse_ib_rate("56 Gb/sec (4X FDR)\n", "rate"), 7'000'000'000u);
  EXPECT_EQ(*parse_ib_rate("2.5 Gb/sec (1X SDR)\n", "rate"), 312'500'000u);
  // float32 precision, as procfs' ParseFloat(s, 32): 14.0625 is exact, 0.1 is not.
  EXPECT_EQ(*parse_ib_rate("14.0625 Gb/sec (1X FDR)", "rate"), 1'757'812'500u);
  EXPECT_EQ(*parse_ib_rate("0.1 Gb/sec", "rate"), static_cast<uint64_t>(double(0.1f) * 125000000));
}

TEST(IbRate, MalformedNamesTheFile) {
  for (auto bad : {"200\n", "fast Gb/sec", ""}) {
    auto r = parse_ib_rate(bad, "ports/1/rate");
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().find("ports/1/rate"), std::string::npos) << r.error();
  }
}

TEST(IbCounters, SpecsAreUniqueAndFound) {
  const auto specs = ib_counter_specs();
  for (size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(ib_counter_index(specs[i].dir, specs[i].file), i) << specs[i].file;
    for (size_t j = i + 1; j < specs.size(); ++j) EXPECT_NE(specs[i].metric, specs[j].metric);
  }
  EXPECT_EQ(ib_counter_index("counters", "port_rcv_data_64"), specs.size());  // lives in counters_ext
  EXPECT_EQ(ib_counter_index("hw_counters", "rp_cnp_handled"), specs.size());
}

TEST(IbCounters, DataCountersAreMultipliedByFour) {
  const auto specs = ib_counter_specs();
  const auto& data = specs[ib_counter_index("counters", "port_rcv_data")];
  const auto& packets = specs[ib_counter_index("counters", "port_rcv_packets")];
  EXPECT_EQ(**parse_ib_counter(data, "1000\n", "f"), 4000u);
  EXPECT_EQ(**parse_ib_counter(packets, "1000\n", "f"), 1000u);
  EXPECT_EQ(**parse_ib_counter(specs[ib_counter_index("counters_ext", "port_xmit_data_64")], "3", "f"), 12u);
}

TEST(IbCounters, GoIntegerSyntaxNoPmaAndErrors) {
  const auto& spec = ib_counter_specs()[ib_counter_index("counters", "link_downed")];
  EXPECT_EQ(**parse_ib_counter(spec, "0x10\n", "f"), 16u);  // ParseUint(s, 0, 64)
  auto na = parse_ib_counter(spec, "N/A (no PMA)\n", "f");
  ASSERT_TRUE(na) << na.error();
  EXPECT_FALSE(na->has_value());
  for (auto bad : {"bogus", "-1", "", "18446744073709551616"}) {
    auto v = parse_ib_counter(spec, bad, "counters/link_downed");
    ASSERT_FALSE(v) << bad;
    EXPECT_NE(v.error().find("counters/link_downed"), std::string::npos) << v.error();
  }
}

}  // namespace
}  // namespace llmon::procfs
