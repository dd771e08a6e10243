#include "procfs/cpuinfo.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

constexpr char kTwoCpus[] =
    "\n"
    "processor\t: 0\n"
    "vendor_id\t: AuthenticAMD\n"
    "cpu family\t: 25\n"
    "model\t\t: 1\n"
    "model name\t: AMD EPYC 7763 64-Core Processor\n"
    "stepping\t: 1\n"
    "microcode\t: 0xa0011d1\n"
    "cpu MHz\t\t: 2445.426\n"
    "cache size\t: 512 KB\n"
    "physical id\t: 0\n"
    "core id\t\t: 0\n"
    "flags\t\t: fpu vme  sse2 ht\n"
    "bugs\t\t: sysret_ss_attrs spectre_v1\n"
    "power management:\n"
    "\n"
    "processor\t: 1\n"
    "vendor_id\t: AuthenticAMD\n"
    "physical id\t: 1\n"
    "core id\t\t: 7\n";

TEST(CpuinfoParser, BlocksPerProcessor) {
  std::vector<CpuInfo> out;
  Status s = parse_cpuinfo(kTwoCpus, "/proc/cpuinfo", out);
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].processor, 0u);
  EXPECT_EQ(out[0].vendor_id, "AuthenticAMD");
  EXPECT_EQ(out[0].cpu_family, "25");
  EXPECT_EQ(out[0].model, "1");
  EXPECT_EQ(out[0].model_name, "AMD EPYC 7763 64-Core Processor");
  EXPECT_EQ(out[0].microcode, "0xa0011d1");
  EXPECT_EQ(out[0].cache_size, "512 KB");
  EXPECT_EQ(out[0].flags, (std::vector<std::string>{"fpu", "vme", "sse2", "ht"}));
  EXPECT_EQ(out[0].bugs, (std::vector<std::string>{"sysret_ss_attrs", "spectre_v1"}));
  EXPECT_EQ(out[1].processor, 1u);
  EXPECT_EQ(out[1].core_id, "7");
  EXPECT_EQ(out[1].physical_id, "1");
  EXPECT_TRUE(out[1].flags.empty());
}

TEST(CpuinfoParser, ErrorsNameFileAndLine) {
  std::vector<CpuInfo> out;
  Status s = parse_cpuinfo("", "/proc/cpuinfo", out);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("invalid cpuinfo file"), std::string::npos) << s.message();
  s = parse_cpuinfo("vendor_id\t: GenuineIntel\n", "/proc/cpuinfo", out);
  ASSERT_FALSE(s);
  s = parse_cpuinfo("processor\t: 0\ncpu MHz\t\t: fast\n", "/proc/cpuinfo", out);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message().rfind("/proc/cpuinfo:2:", 0), 0u) << s.message();
  EXPECT_FALSE(parse_cpuinfo("processor\t: -1\n", "f", out));
  EXPECT_FALSE(parse_cpuinfo("processor\t: 0\nsiblings\t: x\n", "f", out));
  ASSERT_TRUE(parse_cpuinfo("processor\t: 0x10\n", "f", out));  // ParseUint base 0
  EXPECT_EQ(out[0].processor, 16u);
}

}  // namespace
}  // namespace llmon::procfs
