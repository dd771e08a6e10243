// Scenario model of the fake NVML: a timeline of "ticks" (see README.md) describing what the driver reports on each
// collection cycle, and the strict JSON parser that builds it. Pure data: no NVML state, no I/O besides
// load_scenario_file(), no globals; safe to use from any thread on distinct objects.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "nvml_types.h"

namespace fake_nvml {

using Tick = uint64_t;

// A per-tick value: constant, array (held at its last element), or counter {start, step}. An element may be
// missing (JSON null), which the API maps to NOT_SUPPORTED (or NVML_VALUE_NOT_AVAILABLE for process memory).
// Negative JSON numbers are stored two's-complement, so a C unsigned of any width carries them as the driver would.
class Series {
 public:
  static Series constant(std::optional<uint64_t> v) { return Series{{v}, 0, false}; }
  static Series array(std::vector<std::optional<uint64_t>> v) { return Series{std::move(v), 0, false}; }
  static Series counter(uint64_t start, uint64_t step) { return Series{{start}, step, true}; }
  std::optional<uint64_t> at(Tick t) const;

 private:
  Series(std::vector<std::optional<uint64_t>> v, uint64_t step, bool counter)
      : values_(std::move(v)), step_(step), counter_(counter) {}
  std::vector<std::optional<uint64_t>> values_;
  uint64_t step_ = 0;
  bool counter_ = false;
};

// Per-device value keys; the JSON key is value_key_name(k). Order is irrelevant to the format.
// clang-format off
enum class Key : int {
  kGpuUtil, kMemUtil, kEncUtil, kDecUtil,
  kMemoryTotalBytes, kMemoryReservedBytes, kMemoryUsedBytes,
  kTemperatureGpu, kTemperatureMemory,
  kTemperatureShutdown, kTemperatureSlowdown, kTemperatureMemMax, kTemperatureGpuMax,
  kPowerUsageMw, kPowerAverageMw, kPowerInstantMw, kPowerLimitEnforcedMw, kPowerLimitMgmtMw, kPowerLimitDefaultMw, kEnergyMj,
  kClockGraphicsMhz, kClockSmMhz, kClockMemMhz, kClockVideoMhz,
  kClockGraphicsMaxMhz, kClockSmMaxMhz, kClockMemMaxMhz, kClockVideoMaxMhz,
  kClocksEventReasons, kPstate, kFanSpeed,
  kPcieReplay, kPcieLinkGen, kPcieLinkWidth, kPcieLinkGenMax, kPcieLinkWidthMax,
  kPcieTxKbps, kPcieRxKbps, kPcieTxBytes, kPcieRxBytes,
  kEccSbeVolatile, kEccDbeVolatile, kEccSbeAggregate, kEccDbeAggregate,
  kRetiredSbe, kRetiredDbe, kRetiredPending,
  kRemappedCor, kRemappedUnc, kRemappedPending, kRemappedFailure,
  kNvlinkLinkCount, kNvlinkDownMask, kNvlinkTxKib, kNvlinkRxKib,
  kNvlinkCrcFlit, kNvlinkCrcData, kNvlinkReplay, kNvlinkRecovery, kNvlinkEccData,
  kViolationPowerNs, kViolationSyncBoostNs, kViolationSwThermalNs, kViolationHwThermalNs, kViolationHwPowerBrakeNs,
  kGpuRecoveryAction,
  kCount
};
// clang-format on
constexpr int kKeyCount = static_cast<int>(Key::kCount);
std::string_view value_key_name(Key k);

using Values = std::array<std::optional<Series>, kKeyCount>;

// A per-tick GPM metric value, a double: constant or array (held at its last element); a missing element (JSON
// null) is NOT_SUPPORTED at that tick. Unlike Series, any JSON number is kept as is, fractions and negatives included.
class RealSeries {
 public:
  explicit RealSeries(std::vector<std::optional<double>> v) : values_(std::move(v)) {}
  std::optional<double> at(Tick t) const { return values_[t < values_.size() ? t : values_.size() - 1]; }

 private:
  std::vector<std::optional<double>> values_;  // never empty
};

// GPM value keys ("gpm"/"values"); the JSON key is gpm_key_name(k).
// clang-format off
enum class GpmKey : int {
  kGraphicsUtil, kSmUtil, kSmOccupancy, kTensorUtil, kDramBwUtil, kFp64Util, kFp32Util, kFp16Util,
  kPcieTxMibPerSec, kPcieRxMibPerSec, kNvlinkTxMibPerSec, kNvlinkRxMibPerSec,
  kCount
};
// clang-format on
constexpr int kGpmKeyCount = static_cast<int>(GpmKey::kCount);
std::string_view gpm_key_name(GpmKey k);

using GpmValues = std::array<std::optional<RealSeries>, kGpmKeyCount>;
inline std::optional<double> gpm_value(const GpmValues& v, GpmKey k, Tick t) {
  const auto& s = v[static_cast<int>(k)];
  return s ? s->at(t) : std::nullopt;
}

struct TickRange {
  Tick from = 0;
  std::optional<Tick> to;  // inclusive; nullopt = forever
  bool contains(Tick t) const { return t >= from && (!to || t <= *to); }
};

// "function" matches an exported name exactly, or as a prefix when it ends in '*'.
struct FunctionMatch {
  std::string pattern;
  bool matches(std::string_view fn) const;
};

struct ErrorInjection {
  FunctionMatch function;
  nvmlReturn_t code = NVML_ERROR_UNKNOWN;
  TickRange ticks;
  std::optional<unsigned> field;  // only that field id's entry of nvmlDeviceGetFieldValues
};

struct Hang {
  FunctionMatch function;
  TickRange ticks;
  uint32_t ms = 0;
};

struct Process {
  unsigned pid = 0;
  std::string types = "C";            // any of C, G, M
  std::optional<Series> used_memory;  // absent/null element -> NVML_VALUE_NOT_AVAILABLE
  unsigned gi = UINT_MAX, ci = UINT_MAX;
  TickRange ticks;
  std::optional<Series> sm, mem, enc, dec;
};

struct MigInstance {
  unsigned slot = 0;
  std::string uuid, name;
  unsigned gi = 0, ci = 0;
  std::optional<Series> memory_total, memory_used, memory_reserved;
  GpmValues gpm;  // "gpm": {"values": ...}, served by nvmlGpmMigSampleGet for this instance's gi
};

struct Mig {
  unsigned mode = 0, pending_mode = 0, max_devices = 0;
  std::vector<MigInstance> instances;
};

struct Event {
  Tick tick = 0;
  unsigned long long type = 0;
  unsigned long long data = 0;
  unsigned gi = UINT_MAX, ci = UINT_MAX;
};

struct Device {
  std::string uuid, name;
  std::string bus_id;  // "%08X:%02X:%02X.0"
  unsigned domain = 0, bus = 0, device = 0, pci_device_id = 0, pci_subsystem_id = 0;
  unsigned minor_number = 0;
  Values values;
  bool pcie_counter_uint = false;
  unsigned long long supported_events = 0;
  std::vector<TickRange> lost;
  std::vector<ErrorInjection> errors;
  std::vector<Hang> hangs;
  std::vector<Process> processes;
  bool mig_capable = false;  // a "mig" object is present
  Mig mig;
  std::vector<Event> events;
  bool gpm_supported = false;  // a "gpm" object is present and not "supported": false
  GpmValues gpm;

  std::optional<uint64_t> value(Key k, Tick t) const {
    const auto& s = values[static_cast<int>(k)];
    return s ? s->at(t) : std::nullopt;
  }
  bool lost_at(Tick t) const;
};

struct Scenario {
  std::string driver_version = "550.54.15";
  std::string nvml_version = "12.550.54.15";
  int cuda_driver_version = 12040;
  std::optional<nvmlReturn_t> init_error;
  unsigned process_stride = 24;
  bool wallclock_timestamps = false;
  std::vector<ErrorInjection> errors;  // calls that name no device
  std::vector<Hang> hangs;
  std::vector<Device> devices;
};

// Parses scenario JSON. On error returns a one-line message naming the JSON pointer (or the parse position).
std::variant<Scenario, std::string> parse_scenario(std::string_view json_text);
// Reads and parses a file; the error message starts with the path.
std::variant<Scenario, std::string> load_scenario_file(const std::string& path);

// "NO_PERMISSION", "NVML_ERROR_NO_PERMISSION", "SUCCESS" -> code; nullopt if unknown.
std::optional<nvmlReturn_t> return_code_from_name(std::string_view name);
// Text that nvmlErrorString returns.
const char* error_string(nvmlReturn_t r);

}  // namespace fake_nvml
