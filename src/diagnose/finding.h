// What `llmon diagnose` reports (docs/diagnosis.md): findings of a fixed
// vocabulary of kinds, each with its subject, the window it covers, a
// one-line summary with numbers, the evidence (PromQL expressions and the
// values they gave, so a person can re-run them) and the playbook step to try.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace llmon::diagnose {

enum class Severity { kInfo = 0, kWarning = 1, kCritical = 2 };
std::string_view severity_name(Severity s);  // "info", "warning", "critical"

// The kinds: one name each, documented in docs/diagnosis.md (a test checks
// that every kind a detector can report is listed there).
namespace kind {
inline constexpr std::string_view kIdleGpu = "idle_gpu";
inline constexpr std::string_view kThermalThrottling = "thermal_throttling";
inline constexpr std::string_view kPowerThrottling = "power_throttling";
inline constexpr std::string_view kGpuMemoryPressure = "gpu_memory_pressure";
inline constexpr std::string_view kHostMemoryPressure = "host_memory_pressure";
inline constexpr std::string_view kHardwareFault = "hardware_fault";
inline constexpr std::string_view kInputBoundCpu = "input_bound_cpu";
inline constexpr std::string_view kInputBoundIo = "input_bound_io";
inline constexpr std::string_view kStraggler = "straggler";
inline constexpr std::string_view kMemoryLeakHost = "memory_leak_host";
inline constexpr std::string_view kMemoryLeakGpu = "memory_leak_gpu";
inline constexpr std::string_view kCommunicationBound = "communication_bound";
inline constexpr std::string_view kCheckpointSlow = "checkpoint_slow";
inline constexpr std::string_view kDiskSaturation = "disk_saturation";
inline constexpr std::string_view kNetworkSaturation = "network_saturation";
inline constexpr std::string_view kCoolingDegradation = "cooling_degradation";
}  // namespace kind

struct Evidence {
  std::string expr;  // the PromQL, evaluated at the finding's end time
  double value = 0;  // its value for the subject
  std::string note;  // what the value means ("share of the window throttled")
};

struct Finding {
  std::string kind;
  Severity severity = Severity::kInfo;
  double confidence = 0;                       // 0..1
  std::map<std::string, std::string> subject;  // gpu, UUID, modelName / pid, command, ... / device, mountpoint
  int64_t start_ms = 0, end_ms = 0;            // the window it covers
  std::string summary;                         // one line, with numbers
  std::vector<Evidence> evidence;
  std::string advice;  // the playbook step
};

}  // namespace llmon::diagnose
