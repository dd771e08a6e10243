#include "health/kernel_lines.h"

#include <gtest/gtest.h>

namespace llmon::health {
namespace {

template <typename T>
T as(std::string_view text) {
  KernelLine l = parse_kernel_line(text);
  EXPECT_TRUE(std::holds_alternative<T>(l)) << text << " (variant index " << l.index() << ")";
  return std::holds_alternative<T>(l) ? std::get<T>(l) : T{};
}

struct XidCase {
  const char* line;
  const char* pci;
  uint32_t xid;
  std::optional<int64_t> pid;
  const char* process;
  const char* message;
};

TEST(KernelLines, XidShapesOfSeveralDriverVersions) {
  const XidCase cases[] = {
      // R525+ with pid and name.
      {"NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.", "0000:3b:00", 79, 1234,
       "python3", "GPU has fallen off the bus."},
      // Older drivers: no "PCI:" prefix, no pid.
      {"NVRM: Xid (0000:3b:00): 13, Graphics Exception: ESR 0x504648=0x102000e 0x504650=0x0", "0000:3b:00", 13,
       std::nullopt, "", "Graphics Exception: ESR 0x504648=0x102000e 0x504650=0x0"},
      // No domain, unknown pid and name.
      {"NVRM: Xid (PCI:3b:00): 31, pid='<unknown>', name=<unknown>, Ch 00000008, intr 10000000. MMU Fault: ENGINE "
       "GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f12_34560000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
       "3b:00", 31, std::nullopt, "",
       "Ch 00000008, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f12_34560000. Fault is of "
       "type FAULT_PDE ACCESS_TYPE_VIRT_READ"},
      // R470-era: pid but no name.
      {"NVRM: Xid (PCI:0000:5d:00): 43, pid=28814, Ch 00000010", "0000:5d:00", 43, 28814, "", "Ch 00000010"},
      // Double-bit ECC with pid and name.
      {"NVRM: Xid (PCI:0000:18:00): 48, pid=901, name=pt_main_thread, An uncorrectable double bit error (DBE) has "
       "been detected on GPU in the framebuffer at partition 6, subpartition 0.",
       "0000:18:00", 48, 901, "pt_main_thread",
       "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, "
       "subpartition 0."},
      // With a dmesg timestamp and a journal prefix before it.
      {"[ 5123.456789] NVRM: Xid (PCI:0000:9a:00): 94, pid=3, name=python, Contained: CE User Channel (0x9).",
       "0000:9a:00", 94, 3, "python", "Contained: CE User Channel (0x9)."},
      {"Dec 02 18:00:01 node1 kernel: NVRM: Xid (PCI:0000:ab:00): 119, pid=2, name=nvidia-smi, Timeout after 6s of "
       "waiting for RPC response from GPU1 GSP!",
       "0000:ab:00", 119, 2, "nvidia-smi", "Timeout after 6s of waiting for RPC response from GPU1 GSP!"},
  };
  for (const XidCase& c : cases) {
    XidLine x = as<XidLine>(c.line);
    EXPECT_EQ(x.pci, c.pci) << c.line;
    EXPECT_EQ(x.xid, c.xid) << c.line;
    EXPECT_EQ(x.pid, c.pid) << c.line;
    EXPECT_EQ(x.process, c.process) << c.line;
    EXPECT_EQ(x.message, c.message) << c.line;
    EXPECT_EQ(x.severity, "") << c.line;
  }
}

TEST(KernelLines, NvLink5XidsCarryTheirSeverity) {
  XidLine f = as<XidLine>(
      "NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6 0x00000000 0x00000000)");
  EXPECT_EQ(f.pci, "0009:01:00");
  EXPECT_EQ(f.xid, 149u);
  EXPECT_EQ(f.severity, "Fatal");
  XidLine n = as<XidLine>("NVRM: Xid (PCI:0009:01:00): 145, RLW_REMAP  Nonfatal  XC1 i0 Link -1 (0x00000000)");
  EXPECT_EQ(n.severity, "Nonfatal");
  XidLine other = as<XidLine>("NVRM: Xid (PCI:0000:3b:00): 13, Fatal error in something");
  EXPECT_EQ(other.severity, "");  // only 144-150 carry a decoded severity
}

TEST(KernelLines, FallenOffTheBusWithoutAnXid) {
  EXPECT_EQ(as<FallenOffBusLine>("NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.").pci, "0000:3b:00.0");
  EXPECT_EQ(as<FallenOffBusLine>("NVRM: GPU at PCI:0000:db:00: GPU has fallen off the bus.").pci, "0000:db:00");
  EXPECT_EQ(as<FallenOffBusLine>("NVRM: The NVIDIA GPU has fallen off the bus and is not responding").pci, "");
}

TEST(KernelLines, SxidFromNvSwitch) {
  SxidLine s = as<SxidLine>("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 30 LTSSM Fault Up");
  EXPECT_EQ(s.device, "nvidia-nvswitch0");
  EXPECT_EQ(s.pci, "0000:05:00.0");
  EXPECT_EQ(s.sxid, 20034u);
  EXPECT_EQ(s.severity, "Fatal");
  EXPECT_EQ(s.message, "Link 30 LTSSM Fault Up");
  SxidLine n = as<SxidLine>(
      "[  88.1] nvidia-nvswitch3: SXid (PCI:0000:c8:00.0): 12028, Non-fatal, Link 28 egress non-posted PRIV error");
  EXPECT_EQ(n.device, "nvidia-nvswitch3");
  EXPECT_EQ(n.severity, "Non-fatal");
  EXPECT_EQ(n.message, "Link 28 egress non-posted PRIV error");
  SxidLine d = as<SxidLine>("nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 11004, Data {0x00000001}");
  EXPECT_EQ(d.severity, "");
  EXPECT_EQ(d.message, "Data {0x00000001}");
}

TEST(KernelLines, PcieAer) {
  AerLine c = as<AerLine>("pcieport 0000:00:01.0: AER: Corrected error message received from 0000:3b:00.0");
  EXPECT_EQ(c.severity, AerSeverity::kCorrected);
  EXPECT_EQ(c.reporter, "0000:00:01.0");
  EXPECT_EQ(c.device, "0000:3b:00.0");
  EXPECT_FALSE(c.multiple);
  EXPECT_FALSE(c.detail);
  AerLine nf = as<AerLine>(
      "pcieport 0000:00:01.0: AER: Multiple Uncorrectable (Non-Fatal) error message received from 0000:3b:00.0");
  EXPECT_EQ(nf.severity, AerSeverity::kNonFatal);
  EXPECT_TRUE(nf.multiple);
  AerLine f = as<AerLine>("pcieport 0000:00:01.0: AER: Uncorrectable (Fatal) error received: 0000:3b:00.0");
  EXPECT_EQ(f.severity, AerSeverity::kFatal);  // older kernels: "error received:"
  EXPECT_EQ(f.device, "0000:3b:00.0");
  AerLine old = as<AerLine>("pcieport 0000:00:03.0: AER: Corrected error received: id=0018");
  EXPECT_EQ(old.device, "");
  AerLine det = as<AerLine>(
      "nvidia 0000:3b:00.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)");
  EXPECT_TRUE(det.detail);
  EXPECT_EQ(det.severity, AerSeverity::kFatal);
  EXPECT_EQ(det.device, "0000:3b:00.0");
  EXPECT_EQ(aer_severity_name(AerSeverity::kNonFatal), "nonfatal");
  EXPECT_TRUE(
      std::holds_alternative<std::monostate>(parse_kernel_line("pcieport 0000:00:01.0: AER: enabled with IRQ 24")));
}

TEST(KernelLines, OomKillerVictims) {
  OomKillLine s = as<OomKillLine>(
      "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-1a2b.scope,mems_allowed=0-1,"
      "oom_memcg=/kubepods.slice/kubepods-burstable.slice/pod1234,task_memcg=/kubepods.slice/"
      "kubepods-burstable.slice/pod1234/cri-containerd-1a2b.scope,task=python3,pid=4242,uid=1000");
  EXPECT_EQ(s.pid, 4242);
  EXPECT_EQ(s.command, "python3");
  EXPECT_EQ(s.cgroup, "/kubepods.slice/kubepods-burstable.slice/pod1234/cri-containerd-1a2b.scope");
  OomKillLine k = as<OomKillLine>(
      "Memory cgroup out of memory: Killed process 4242 (python3) total-vm:81234567kB, anon-rss:7654321kB, "
      "file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:20000kB oom_score_adj:0");
  EXPECT_EQ(k.pid, 4242);
  EXPECT_EQ(k.command, "python3");
  EXPECT_EQ(k.cgroup, "");
  OomKillLine p = as<OomKillLine>("Out of memory: Killed process 77 (my (odd) cmd) total-vm:1kB, anon-rss:1kB");
  EXPECT_EQ(p.command, "my (odd) cmd");
  OomKillLine old = as<OomKillLine>("Killed process 12 (java) total-vm:2kB, anon-rss:1kB, file-rss:0kB");
  EXPECT_EQ(old.pid, 12);
}

TEST(KernelLines, EverythingElseIsNone) {
  for (const char* l :
       {"", "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15", "NVRM: Xid (PCI:0000:3b:00): , pid=1",
        "NVRM: Xid (PCI:0000:3b:00 79", "Out of memory: Kill process 12 (java) score 900 or sacrifice child",
        "Killed process abc", "\xff\xfe garbage \x01", "nvidia-nvswitch0: SXid (PCI:0000:05:00.0) 20034"})
    EXPECT_TRUE(std::holds_alternative<std::monostate>(parse_kernel_line(l))) << l;
}

}  // namespace
}  // namespace llmon::health
