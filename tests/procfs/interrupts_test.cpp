#include "procfs/interrupts.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

constexpr char kText[] =
    "           CPU0       CPU1       \n"
    "  16:          0         29  IR-IO-APIC   16-fasteoi   ehci_hcd:usb1, i801_smbus\n"
    "  78:          0     887123  IR-PCI-MSI-0000:17:00.0    0-edge      nvidia\n"
    " LOC:  189323991  181204355   Local timer interrupts\n"
    " ERR:          0\n"
    " MIS:          0\n";

TEST(InterruptsParser, NumberedAndNamedLines) {
  std::vector<Interrupt> out;
  Status s = parse_interrupts(kText, "/proc/interrupts", out);
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(out.size(), 3u);  // ERR and MIS have no CPU columns
  EXPECT_EQ(out[0].name, "16");
  EXPECT_EQ(out[0].info, "IR-IO-APIC");
  EXPECT_EQ(out[0].devices, "16-fasteoi ehci_hcd:usb1, i801_smbus");
  EXPECT_EQ(out[0].per_cpu, (std::vector<double>{0, 29}));
  EXPECT_EQ(out[2].name, "LOC");
  EXPECT_EQ(out[2].info, "Local timer interrupts");
  EXPECT_EQ(out[2].devices, "");
  EXPECT_EQ(out[2].per_cpu[0], 189323991);
}

TEST(InterruptsParser, LaterDuplicateReplacesEarlier) {
  std::vector<Interrupt> out;
  ASSERT_TRUE(parse_interrupts("CPU0\n 5: 1 a b\n 6: 2 c\n 5: 3 d e\n", "f", out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "5");
  EXPECT_EQ(out[0].per_cpu[0], 3);
  EXPECT_EQ(out[0].info, "d");
}

TEST(InterruptsParser, ErrorsNameFileAndLine) {
  std::vector<Interrupt> out;
  Status s = parse_interrupts("", "/proc/interrupts", out);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), "/proc/interrupts: interrupts empty");
  s = parse_interrupts("CPU0 CPU1\n 0: 46 0 IO-APIC 2-edge timer\n 1: 4 x IO-APIC 1-edge i8042\n", "/proc/interrupts",
                       out);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message().rfind("/proc/interrupts:3:", 0), 0u) << s.message();
}

}  // namespace
}  // namespace llmon::procfs
