// What a kernel log line says about GPUs and PCIe: the pure parser of the
// message text of a /dev/kmsg record (the part after `prio,seq,usec,flags;`)
// or of a dmesg / journal line (anything before the match is ignored, so
// `[ 12.3] ` or `kernel: ` prefixes are fine). No I/O, no allocation beyond
// the result's strings. Shapes accepted (docs/gpu-health.md):
//
//   NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.
//   NVRM: Xid (0000:3b:00): 13, Graphics Exception: ...        (no "PCI:", older drivers)
//   NVRM: Xid (PCI:3b:00): 31, pid='<unknown>', name=<unknown>, Ch 00000008, ...
//   NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (...)
//   NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.        (no Xid number)
//   nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 30 LTSSM Fault Up
//   pcieport 0000:00:01.0: AER: Corrected error message received from 0000:3b:00.0
//   pcieport 0000:00:01.0: AER: Uncorrectable (Non-Fatal) error received: 0000:3b:00.0
//   nvidia 0000:3b:00.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=...
//   oom-kill:constraint=CONSTRAINT_MEMCG,...,task_memcg=/kubepods/...,task=python3,pid=4242,uid=0
//   Memory cgroup out of memory: Killed process 4242 (python3) total-vm:...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace llmon::health {

struct XidLine {
  std::string pci;  // as written: "0000:3b:00", "3b:00" (normalize_bus_id to compare)
  uint32_t xid = 0;
  std::optional<int64_t> pid;  // absent or '<unknown>': nullopt
  std::string process;         // name=...; empty when absent or <unknown>
  std::string severity;        // NVLink5 (144-150) lines: "Fatal" / "Nonfatal"; else empty
  std::string message;         // the rest of the line, trimmed
};

struct SxidLine {
  std::string device;  // "nvidia-nvswitch0"
  std::string pci;     // "0000:05:00.0"
  uint32_t sxid = 0;
  std::string severity;  // "Fatal", "Non-fatal" or empty
  std::string message;
};

// "GPU has fallen off the bus" without an Xid number (newer drivers): GPUd
// maps it to Xid 79.
struct FallenOffBusLine {
  std::string pci;  // may be empty when the line names no address
};

enum class AerSeverity : uint8_t { kCorrected, kNonFatal, kFatal };
std::string_view aer_severity_name(AerSeverity s);  // "corrected", "nonfatal", "fatal"

struct AerLine {
  AerSeverity severity = AerSeverity::kCorrected;
  std::string reporter;   // the device that logged it: "0000:00:01.0" (root port) or the device itself
  std::string device;     // the device in error: "0000:3b:00.0"
  bool multiple = false;  // "Multiple ... error message received"
  bool detail = false;    // a "PCIe Bus Error: severity=" detail line (follows a summary line)
};

struct OomKillLine {
  std::optional<int64_t> pid;
  std::string command;  // task= / "(name)"
  std::string cgroup;   // task_memcg=; empty on "Killed process" lines
};

using KernelLine = std::variant<std::monostate, XidLine, SxidLine, FallenOffBusLine, AerLine, OomKillLine>;

KernelLine parse_kernel_line(std::string_view text);

}  // namespace llmon::health
