#include "health/pci_address.h"

#include <gtest/gtest.h>

namespace llmon::health {
namespace {

TEST(PciAddress, KernelAndNvmlFormsCompareEqual) {
  struct Case {
    const char* in;
    const char* out;
  } cases[] = {
      {"0000:3b:00", "0000:3b:00.0"},
      {"0000:3b:00.0", "0000:3b:00.0"},
      {"00000000:3B:00.0", "0000:3b:00.0"},
      {"PCI:0000:3b:00", "0000:3b:00.0"},
      {"3b:00", "0000:3b:00.0"},
      {"PCI:3b:00", "0000:3b:00.0"},
      {"0009:01:00", "0009:01:00.0"},
      {"00000009:01:00.0", "0009:01:00.0"},
      {" 0000:db:1f.7 ", "0000:db:1f.7"},
      {"00010000:02:00.0", "10000:02:00.0"},
  };
  for (const Case& c : cases) {
    auto n = normalize_bus_id(c.in);
    ASSERT_TRUE(n) << c.in;
    EXPECT_EQ(*n, c.out) << c.in;
  }
  EXPECT_TRUE(same_bus_id("0000:3b:00", "00000000:3B:00.0"));
  EXPECT_FALSE(same_bus_id("0000:3b:00", "00000000:3B:00.1"));
  EXPECT_FALSE(same_bus_id("0000:3b:00", "0001:3b:00.0"));
}

TEST(PciAddress, RejectsWhatIsNotAnAddress) {
  for (const char* bad : {"", "3b", "GPU-1234", "0000:3b:00.8", "0000:3b:20.0", "0000:3bc:00.0", "zz:00",
                          "0000:3b:00:00:00", "000000000:3b:00.0", "0000:3b:00."})
    EXPECT_FALSE(normalize_bus_id(bad)) << bad;
  EXPECT_FALSE(same_bus_id("", ""));
}

}  // namespace
}  // namespace llmon::health
